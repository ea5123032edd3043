//! Cancellation through the proxy: `session/cancel` is forwarded; `$/cancel_request` cancels
//! the proxied request on the next hop (per hop, as the schema says), from either side.

use acp_proxy::Proxy;
use serde_json::{Value, json};

use crate::conductor::{Conductor, chunk};

/// Receives `n` messages, in whatever order the proxy wrote them.
async fn recv_n(conductor: &mut Conductor, n: usize) -> Vec<Value> {
    let mut got = Vec::with_capacity(n);
    for _ in 0..n {
        got.push(conductor.recv().await);
    }
    got
}

#[tokio::test]
async fn session_cancel_passes_through() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    conductor
        .send(json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s", "_meta": {"why": "user"}}}))
        .await;
    let forwarded = conductor.recv().await;
    assert_eq!(
        forwarded,
        json!({"jsonrpc": "2.0", "method": "proxy/successor",
            "params": {"method": "session/cancel", "params": {"sessionId": "s", "_meta": {"why": "user"}}}})
    );
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn cancel_request_from_the_editor_cancels_the_envelope() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    conductor
        .send(
            json!({"jsonrpc": "2.0", "id": 7, "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "long"}]}}),
        )
        .await;
    let forwarded = conductor.recv().await;
    let envelope_id = forwarded["id"].clone();
    conductor
        .send(json!({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 7}}))
        .await;
    let got = recv_n(&mut conductor, 2).await;
    let answer = got
        .iter()
        .find(|m| m["id"] == 7)
        .expect("the prompt is answered");
    assert_eq!(answer["error"]["code"], -32800);
    let cancel = got
        .iter()
        .find(|m| m["method"] == "$/cancel_request")
        .expect("the envelope is cancelled");
    assert_eq!(
        cancel["params"]["requestId"], envelope_id,
        "on the same connection, by its id"
    );

    // A late answer of the successor is dropped: the next thing the editor sees is new.
    conductor
        .send(json!({"jsonrpc": "2.0", "id": envelope_id, "result": {"stopReason": "cancelled"}}))
        .await;
    conductor
        .send(json!({"jsonrpc": "2.0", "method": "proxy/successor",
            "params": {"method": "session/update", "params": chunk("s", "after")}}))
        .await;
    let next = conductor.recv().await;
    assert_eq!(next["method"], "session/update", "{next}");
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn cancel_request_from_the_successor_cancels_the_forwarded_request() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    conductor
        .send(
            json!({"jsonrpc": "2.0", "id": 50, "method": "proxy/successor", "params": {
            "method": "fs/read_text_file", "params": {"sessionId": "s", "path": "/big"}}}),
        )
        .await;
    let forwarded = conductor.recv().await;
    assert_eq!(forwarded["method"], "fs/read_text_file");
    let upstream_id = forwarded["id"].clone();
    conductor
        .send(json!({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 50}}))
        .await;
    let got = recv_n(&mut conductor, 2).await;
    let answer = got
        .iter()
        .find(|m| m["id"] == 50)
        .expect("the envelope is answered");
    assert_eq!(answer["error"]["code"], -32800);
    let cancel = got
        .iter()
        .find(|m| m["method"] == "$/cancel_request")
        .expect("the editor's request is cancelled");
    assert_eq!(cancel["params"]["requestId"], upstream_id);
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn a_wrapped_cancel_request_is_not_forwarded() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    conductor
        .send(json!({"jsonrpc": "2.0", "method": "proxy/successor",
            "params": {"method": "$/cancel_request", "params": {"requestId": 3}}}))
        .await;
    conductor
        .send(json!({"jsonrpc": "2.0", "method": "proxy/successor",
            "params": {"method": "session/update", "params": chunk("s", "next")}}))
        .await;
    let next = conductor.recv().await;
    assert_eq!(
        next["method"], "session/update",
        "the wrapped cancel was dropped: {next}"
    );
    conductor.close().await.expect("a clean end");
}
