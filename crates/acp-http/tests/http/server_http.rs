//! The Streamable HTTP server on real sockets: the lifecycle, where each message goes, and one
//! row per status-code case the server decides.

use crate::common;

use std::time::Duration;

use acp_http::server::ServerOptions;
use common::{Raw, TestServer, chunk_text, new_session, prompt, request, within};
use serde_json::json;

#[tokio::test]
async fn a_session_lives_on_its_streams_from_initialize_to_delete() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut raw = Raw::new(&t.url);
    let init = raw.initialize().await;
    assert_eq!(init["id"], 0);
    assert_eq!(init["result"]["protocolVersion"], 1);
    let mut conn = raw.stream(None).await.expect("the connection stream");
    let session = new_session(&raw, &mut conn, 1).await;
    let mut stream = raw
        .stream(Some(&session))
        .await
        .expect("the session stream");

    // A prompt: its update and its answer come on the session stream, in order.
    let posted = raw
        .post(
            request(2, "session/prompt", prompt(&session, "hello")),
            &[("acp-session-id", &session)],
        )
        .await;
    assert_eq!(posted.status, 202);
    assert!(posted.body.is_empty());
    let update = stream.expect().await;
    assert_eq!(chunk_text(&update), Some("echo: hello"), "{update}");
    let done = stream.expect().await;
    assert_eq!(done["id"], 2);
    assert_eq!(done["result"]["stopReason"], "end_turn");

    // A permission request goes out on the session stream; the answer is POSTed back.
    raw.post(
        request(3, "session/prompt", prompt(&session, "ask")),
        &[("acp-session-id", &session)],
    )
    .await;
    let asked = stream.expect().await;
    assert_eq!(asked["method"], "session/request_permission", "{asked}");
    let answer = raw
        .post(
            json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}),
            &[("acp-session-id", &session)],
        )
        .await;
    assert_eq!(answer.status, 202, "{answer:?}");
    assert_eq!(chunk_text(&stream.expect().await), Some("selected allow"));
    assert_eq!(stream.expect().await["id"], 3);

    // Without the header, the session comes from params; a response needs none.
    raw.post(request(4, "session/prompt", prompt(&session, "again")), &[])
        .await;
    assert_eq!(chunk_text(&stream.expect().await), Some("echo: again"));
    assert_eq!(stream.expect().await["id"], 4);

    // DELETE ends the streams and the connection.
    assert_eq!(raw.delete().await, 202);
    assert!(
        within("the session stream's end", stream.next())
            .await
            .is_none()
    );
    assert!(
        within("the connection stream's end", conn.next())
            .await
            .is_none()
    );
    let after = raw
        .post(
            request(5, "session/new", json!({"cwd": "/w", "mcpServers": []})),
            &[],
        )
        .await;
    assert_eq!(after.status, 404);
    assert_eq!(raw.delete().await, 404);
    t.stop().await;
}

#[tokio::test]
async fn a_sessions_messages_use_the_connection_stream_until_its_own_stream_is_read() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut raw = Raw::new(&t.url);
    raw.initialize().await;
    // POST first, GET later: the answer waits on the connection stream.
    raw.post(
        request(1, "session/new", json!({"cwd": "/work", "mcpServers": []})),
        &[],
    )
    .await;
    let mut conn = raw.stream(None).await.unwrap();
    let session = conn.expect().await["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    // A client that never opens the session's stream (as the Python SDK after a load) gets
    // the session's messages on the connection stream.
    raw.post(request(2, "session/prompt", prompt(&session, "early")), &[])
        .await;
    assert_eq!(chunk_text(&conn.expect().await), Some("echo: early"));
    assert_eq!(conn.expect().await["id"], 2);
    // Once the session's stream is read, they go there, also to a reader that comes back.
    let stream = raw.stream(Some(&session)).await.unwrap();
    drop(stream);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut stream = raw.stream(Some(&session)).await.unwrap();
    raw.post(request(3, "session/prompt", prompt(&session, "late")), &[])
        .await;
    assert_eq!(chunk_text(&stream.expect().await), Some("echo: late"));
    assert_eq!(stream.expect().await["id"], 3);
    t.stop().await;
}

#[tokio::test]
async fn two_sessions_on_one_connection_stay_apart() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut raw = Raw::new(&t.url);
    raw.initialize().await;
    let mut conn = raw.stream(None).await.unwrap();
    let a = new_session(&raw, &mut conn, 1).await;
    let b = new_session(&raw, &mut conn, 2).await;
    let mut sa = raw.stream(Some(&a)).await.unwrap();
    let mut sb = raw.stream(Some(&b)).await.unwrap();
    raw.post(
        request(3, "session/prompt", prompt(&a, "to a")),
        &[("acp-session-id", &a)],
    )
    .await;
    raw.post(
        request(4, "session/prompt", prompt(&b, "to b")),
        &[("acp-session-id", &b)],
    )
    .await;
    assert_eq!(chunk_text(&sa.expect().await), Some("echo: to a"));
    assert_eq!(sa.expect().await["id"], 3);
    assert_eq!(chunk_text(&sb.expect().await), Some("echo: to b"));
    assert_eq!(sb.expect().await["id"], 4);
    t.stop().await;
}

#[tokio::test]
async fn a_session_outlives_its_connection_through_session_load() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut first = Raw::new(&t.url);
    first.initialize().await;
    let mut conn = first.stream(None).await.unwrap();
    let session = new_session(&first, &mut conn, 1).await;
    assert_eq!(first.delete().await, 202);

    // Reconnect: a new connection, the session stream opened before the load (as the TS
    // client does), the replay on it and the load's answer on the connection stream.
    let mut second = Raw::new(&t.url);
    second.initialize().await;
    let conn = second.stream(None).await.unwrap();
    let mut stream = second
        .stream(Some(&session))
        .await
        .expect("a stream before the load");
    let load = second
        .post(
            request(
                1,
                "session/load",
                json!({"sessionId": session, "cwd": "/work", "mcpServers": []}),
            ),
            &[("acp-session-id", &session)],
        )
        .await;
    assert_eq!(load.status, 202);
    // The replay, then the answer, in order on the session's stream.
    assert_eq!(chunk_text(&stream.expect().await), Some("replayed"));
    assert_eq!(stream.expect().await["id"], 1);
    drop(conn);
    t.stop().await;
}

#[tokio::test]
async fn a_second_reader_of_a_stream_gets_409() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut raw = Raw::new(&t.url);
    raw.initialize().await;
    let first = raw.stream(None).await.unwrap();
    let second = raw.stream(None).await.err().expect("refused");
    assert_eq!(second.status, 409);
    // Once the first goes, the stream can be read again.
    drop(first);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(raw.stream(None).await.is_ok());
    t.stop().await;
}

#[tokio::test]
async fn every_refusal_gets_its_status() {
    let t = TestServer::start(ServerOptions::default().max_body_bytes(64 * 1024)).await;
    let mut raw = Raw::new(&t.url);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}});

    // Content types.
    for content_type in [
        "text/plain",
        "application/jsonfoobar",
        "application/json-patch+json",
    ] {
        let answer = within(
            "a POST",
            raw.http
                .post(&t.url)
                .header("content-type", content_type)
                .body(init.to_string())
                .send(),
        )
        .await
        .unwrap();
        assert_eq!(answer.status(), 415, "{content_type}");
    }
    let answer = within(
        "a POST",
        raw.http.post(&t.url).body(init.to_string()).send(),
    )
    .await
    .unwrap();
    assert_eq!(answer.status(), 415, "no content type");
    let answer = raw
        .post_raw(
            init.to_string(),
            &[("content-type", "application/json; charset=utf-8")],
        )
        .await;
    assert_eq!(answer.status, 200, "parameters are allowed");

    // Bodies.
    for (body, status) in [
        ("{nope", 400),
        ("42", 400),
        ("null", 400),
        ("\"initialize\"", 400),
    ] {
        assert_eq!(raw.post_raw(body, &[]).await.status, status, "{body}");
    }
    let batch = raw.post_raw(format!("[{init}]"), &[]).await;
    assert_eq!(batch.status, 400);
    let error = batch.json();
    assert_eq!(error["error"]["code"], -32600);
    assert_eq!(error["id"], serde_json::Value::Null);
    common::check(&error);
    let big = raw
        .post_raw(format!("{{\"pad\":\"{}\"}}", "x".repeat(70 * 1024)), &[])
        .await;
    assert_eq!(big.status, 413);
    let null_id = raw
        .post_raw(
            r#"{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":1}}"#,
            &[],
        )
        .await;
    assert_eq!(null_id.status, 400);

    // Connection ids.
    let no_conn = raw
        .post(
            request(1, "session/new", json!({"cwd": "/w", "mcpServers": []})),
            &[],
        )
        .await;
    assert_eq!(no_conn.status, 400);
    raw.connection = Some("00000000-0000-4000-8000-000000000000".into());
    let unknown = raw
        .post(
            request(1, "session/new", json!({"cwd": "/w", "mcpServers": []})),
            &[],
        )
        .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(raw.stream(None).await.err().unwrap().status, 404);
    assert_eq!(raw.delete().await, 404);
    raw.connection = None;
    assert_eq!(raw.delete().await, 400);
    assert_eq!(raw.stream(None).await.err().unwrap().status, 400);

    raw.initialize().await;
    let again = raw.post(init.clone(), &[]).await;
    assert_eq!(again.status, 400, "initialize on an existing connection");
    let mismatch = raw
        .post(
            request(2, "session/prompt", prompt("s-1", "x")),
            &[("acp-session-id", "s-2")],
        )
        .await;
    assert_eq!(mismatch.status, 400);
    let no_accept = within(
        "a GET",
        raw.http
            .get(&t.url)
            .header("accept", "application/json")
            .header("acp-connection-id", raw.connection.as_deref().unwrap())
            .send(),
    )
    .await
    .unwrap();
    assert_eq!(no_accept.status(), 406);
    let put = within("a PUT", raw.http.put(&t.url).send()).await.unwrap();
    assert_eq!(put.status(), 405);
    t.stop().await;
}

#[tokio::test]
async fn unconfirmed_session_streams_are_bounded() {
    let mut options = ServerOptions::default();
    options.max_unconfirmed_streams = 2;
    let t = TestServer::start(options).await;
    let mut raw = Raw::new(&t.url);
    raw.initialize().await;
    let _a = raw
        .stream(Some("ghost-a"))
        .await
        .expect("first unconfirmed stream");
    let _b = raw
        .stream(Some("ghost-b"))
        .await
        .expect("second unconfirmed stream");
    assert_eq!(raw.stream(Some("ghost-c")).await.err().unwrap().status, 404);
    t.stop().await;
}

#[tokio::test]
async fn origins_and_credentials_are_checked_before_anything_else() {
    let options = ServerOptions::default()
        .allow_origin("https://editor.example")
        .bearer_token("s3cret")
        .unwrap();
    let t = TestServer::start(options).await;
    let raw = Raw::new(&t.url);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}});
    let foreign = raw
        .post(
            init.clone(),
            &[
                ("origin", "https://evil.example"),
                ("authorization", "Bearer s3cret"),
            ],
        )
        .await;
    assert_eq!(foreign.status, 403);
    let anonymous = raw.post(init.clone(), &[]).await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.header("www-authenticate"), Some("Bearer"));
    let wrong = raw
        .post(init.clone(), &[("authorization", "Bearer nope")])
        .await;
    assert_eq!(wrong.status, 401);
    assert_eq!(t.server.connection_count(), 0, "nothing was allocated");
    let allowed = raw
        .post(
            init.clone(),
            &[
                ("origin", "https://editor.example"),
                ("authorization", "Bearer s3cret"),
            ],
        )
        .await;
    assert_eq!(allowed.status, 200, "{allowed:?}");
    assert_eq!(
        allowed.header("access-control-allow-origin"),
        Some("https://editor.example")
    );
    let plain = raw.post(init, &[("authorization", "Bearer s3cret")]).await;
    assert_eq!(plain.status, 200, "no Origin: not a browser");
    assert_eq!(t.server.connection_count(), 2);
    drop(raw);
    t.stop().await;
}

#[tokio::test]
async fn connection_ids_carry_the_configured_prefix() {
    let t = TestServer::start(ServerOptions::default().connection_id_prefix("node-a.")).await;
    let mut raw = Raw::new(&t.url);
    let answer = raw
        .post(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}), &[])
        .await;
    let id = answer.header("acp-connection-id").unwrap().to_owned();
    assert!(id.starts_with("node-a.") && id.len() == 7 + 36, "{id}");
    raw.connection = Some(id);
    assert!(raw.stream(None).await.is_ok());
    t.stop().await;
}

#[tokio::test]
async fn connections_beyond_the_maximum_get_503() {
    let t = TestServer::start(ServerOptions::default().max_connections(2)).await;
    let mut a = Raw::new(&t.url);
    let mut b = Raw::new(&t.url);
    a.initialize().await;
    b.initialize().await;
    let c = Raw::new(&t.url);
    let refused = c
        .post(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}), &[])
        .await;
    assert_eq!(refused.status, 503);
    // A connection that ends makes room.
    assert_eq!(a.delete().await, 202);
    let mut c = c;
    c.initialize().await;
    t.stop().await;
}

#[tokio::test]
async fn shutdown_ends_open_streams() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut raw = Raw::new(&t.url);
    raw.initialize().await;
    let mut conn = raw.stream(None).await.unwrap();
    let server = t.server.clone();
    let stopping = tokio::spawn(t.stop());
    assert!(within("the stream's end", conn.next()).await.is_none());
    within("the server's end", stopping).await.unwrap();
    assert_eq!(server.connection_count(), 0);
}

#[tokio::test]
async fn a_reader_that_stops_reading_gets_its_connection_closed_without_losing_what_it_read() {
    let options = ServerOptions::default()
        .max_buffered_bytes(64 * 1024)
        .stall_timeout(Duration::from_millis(500));
    let t = TestServer::start(options).await;
    let mut raw = Raw::new(&t.url);
    raw.initialize().await;
    let mut conn = raw.stream(None).await.unwrap();
    let session = new_session(&raw, &mut conn, 1).await;
    // The session's stream was read, and its reader went away: the session's messages wait on
    // it while the agent floods it.
    drop(raw.stream(Some(&session)).await.unwrap());
    tokio::time::sleep(Duration::from_millis(50)).await;
    // Nobody reads the session stream while the agent floods it: the buffer fills (the agent
    // waits) and, after the stall timeout, the connection is closed.
    raw.post(
        request(2, "session/prompt", prompt(&session, "flood 2000")),
        &[],
    )
    .await;
    let closed = within("the stalled connection's end", conn.next()).await;
    assert!(closed.is_none(), "{closed:?}");
    assert_eq!(t.server.connection_count(), 0);
    let after = raw
        .post(request(3, "session/prompt", prompt(&session, "x")), &[])
        .await;
    assert_eq!(after.status, 404);
    t.stop().await;
}

#[tokio::test]
async fn a_slow_reader_gets_everything_in_order_with_bounded_buffering() {
    let options = ServerOptions::default().max_buffered_bytes(16 * 1024);
    let t = TestServer::start(options).await;
    let mut raw = Raw::new(&t.url);
    raw.initialize().await;
    let mut conn = raw.stream(None).await.unwrap();
    let session = new_session(&raw, &mut conn, 1).await;
    let mut stream = raw.stream(Some(&session)).await.unwrap();
    raw.post(
        request(2, "session/prompt", prompt(&session, "flood 300")),
        &[],
    )
    .await;
    for i in 0..300 {
        let update = stream.expect().await;
        let text = chunk_text(&update).unwrap();
        assert!(
            text.starts_with(&format!("chunk {i} ")),
            "{i}: {}",
            &text[..20]
        );
        if i % 50 == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    assert_eq!(stream.expect().await["id"], 2);
    t.stop().await;
}
