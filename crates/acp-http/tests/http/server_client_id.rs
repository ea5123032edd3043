//! The `client_id` profile of older remote agents: `POST /acp/rpc?client_id=…` and one
//! `GET /acp/sse?client_id=…` stream for everything.

use crate::common;

use acp_http::server::ServerOptions;
use common::{Raw, TestServer, chunk_text, prompt, request, within};
use serde_json::json;

#[tokio::test]
async fn a_session_over_the_client_id_profile() {
    let t = TestServer::start(ServerOptions::default().client_id_profile(true)).await;
    let rpc = format!("{}/acp/rpc?client_id=editor%2D1", t.base);
    let sse = format!("{}/acp/sse?client_id=editor-1", t.base);
    let mut raw = Raw::new(&rpc);
    let mut stream = raw.stream_at(&sse, None).await.expect("the stream");
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}});
    assert_eq!(raw.post(initialize, &[]).await.status, 202);
    assert_eq!(stream.expect().await["result"]["protocolVersion"], 1);
    assert!(stream.comments >= 1, "`: connected` comes first");
    assert_eq!(
        raw.post(
            request(1, "session/new", json!({"cwd": "/work", "mcpServers": []})),
            &[]
        )
        .await
        .status,
        202
    );
    let session = stream.expect().await["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    raw.post(request(2, "session/prompt", prompt(&session, "ask")), &[])
        .await;
    let asked = stream.expect().await;
    assert_eq!(asked["method"], "session/request_permission");
    let answer = raw
        .post(
            json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}),
            &[],
        )
        .await;
    assert_eq!(answer.status, 204, "a response is answered 204");
    assert_eq!(chunk_text(&stream.expect().await), Some("selected allow"));
    assert_eq!(stream.expect().await["id"], 2);

    // A new stream for the same client id replaces the old one.
    let mut newer = raw.stream_at(&sse, None).await.expect("a second stream");
    assert!(
        within("the old stream's end", stream.next())
            .await
            .is_none()
    );
    raw.post(request(3, "session/prompt", prompt(&session, "hi")), &[])
        .await;
    assert_eq!(chunk_text(&newer.expect().await), Some("echo: hi"));
    raw.connection = None;
    t.stop().await;
}

#[tokio::test]
async fn the_client_id_profile_refuses_what_it_cannot_serve() {
    let t = TestServer::start(ServerOptions::default().client_id_profile(true)).await;
    for url in [
        format!("{}/acp/rpc", t.base),
        format!("{}/acp/rpc?client_id=", t.base),
    ] {
        let raw = Raw::new(&url);
        let answer = raw
            .post(
                json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}),
                &[],
            )
            .await;
        assert_eq!(answer.status, 400, "{url}");
        assert_eq!(answer.body, "client_id is required");
        assert_eq!(
            raw.stream_at(&url.replace("/rpc", "/sse"), None)
                .await
                .err()
                .unwrap()
                .status,
            400
        );
    }
    let raw = Raw::new(&format!("{}/acp/rpc?client_id=c", t.base));
    assert_eq!(raw.post_raw("{nope", &[]).await.status, 400);
    assert_eq!(raw.post_raw(r#"{"jsonrpc":"2.0"}"#, &[]).await.status, 400);
    let put = within("a PUT", raw.http.put(&raw.url).send())
        .await
        .unwrap();
    assert_eq!(put.status(), 405);
    // Off by default.
    let plain = TestServer::start(ServerOptions::default()).await;
    let raw = Raw::new(&format!("{}/acp/rpc?client_id=c", plain.base));
    assert_eq!(raw.post_raw("{}", &[]).await.status, 404);
    plain.stop().await;
    t.stop().await;
}
