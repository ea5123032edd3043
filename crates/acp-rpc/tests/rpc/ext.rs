//! Extension methods (`_`-prefixed) travel with their params and results as raw JSON.

use acp_rpc::{Config, Router, connect};
use acp_types::{ExtNotification, ExtRequest};
use serde_json::json;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

#[tokio::test(flavor = "current_thread")]
async fn extension_requests_and_notifications_keep_their_raw_json() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (a_read, a_write) = tokio::io::split(a);
    let (b_read, b_write) = tokio::io::split(b);
    let (seen_tx, mut seen) = mpsc::unbounded_channel();
    let (_server, server_driver) = connect(
        move |_| {
            let seen_tx = seen_tx.clone();
            Router::new()
                .request_raw("_zed/echo", |params| async move {
                    // Echo the params inside an object, untouched.
                    let params = params.map_or("null".to_owned(), |p| p.get().to_owned());
                    Ok(RawValue::from_string(format!("{{\"echo\":{params}}}")).unwrap())
                })
                .notification_raw("_zed/ping", move |params| {
                    let _ = seen_tx.send(params.map(|p| p.get().to_owned()));
                    async {}
                })
        },
        a_read,
        a_write,
        Config::default(),
    );
    let (peer, client_driver) = connect(|_| Router::new(), b_read, b_write, Config::default());
    let server = tokio::spawn(server_driver);
    let client = tokio::spawn(client_driver);

    let request = ExtRequest::new("_zed/echo", &json!({"n": 1.50, "s": "x"})).unwrap();
    let response = peer.ext_request(&request).await.unwrap();
    assert_eq!(response.method, "_zed/echo");
    assert_eq!(response.get(), r#"{"echo":{"n":1.5,"s":"x"}}"#);

    let unknown = ExtRequest::new("_zed/nothing", &json!({})).unwrap();
    let error = peer.ext_request(&unknown).await.unwrap_err();
    assert_eq!(error.to_error_object().code.0, -32601, "{error}");

    let ping = ExtNotification::new("_zed/ping", &json!([1, 2])).unwrap();
    peer.ext_notify(&ping).await.unwrap();
    assert_eq!(seen.recv().await.unwrap().as_deref(), Some("[1,2]"));

    drop(peer);
    server.abort();
    let _ = server.await;
    let _ = client.await;
}
