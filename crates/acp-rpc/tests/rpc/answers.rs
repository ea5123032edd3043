//! Every request gets exactly one answer, even when the answer we would give cannot be sent as
//! it is (it is over the frame limit), and even when the request is refused because of the
//! memory it would hold.

use crate::common;

use std::sync::Arc;

use acp_rpc::{Config, Handler, Router};
use acp_types::methods::SessionPrompt;
use acp_types::{ErrorObject, PromptResponse, StopReason};
use common::{RawWire, error_code};
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use serde_json::{Value, json};

const LIMIT: usize = 256 * 1024;

fn line(message: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(message).unwrap();
    bytes.push(b'\n');
    bytes
}

#[tokio::test(flavor = "current_thread")]
async fn an_invalid_params_error_echoing_a_huge_value_is_answered() {
    let router = Router::new().request::<SessionPrompt, _, _>(|_req| async {
        Ok(PromptResponse::new(StopReason::EndTurn))
    });
    let mut t = RawWire::new(|_| router, Config::default().max_frame_len(LIMIT));
    // `prompt` must be an array: the decoder's message quotes the string it got, which is
    // about as long as the frame limit.
    let huge = "x".repeat(LIMIT - 1024);
    let request = json!({
        "jsonrpc": "2.0", "id": 7, "method": "session/prompt",
        "params": {"sessionId": "s", "prompt": huge},
    });
    t.raw.send_raw(line(&request)).await;
    let reply = t.raw.recv().await;
    assert_eq!(reply["id"], 7, "{reply}");
    assert_eq!(error_code(&reply), Some(-32602), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.len() < 8 * 1024, "{} bytes", message.len());
    assert!(message.contains("truncated"), "{message}");
    t.shutdown().await;
}

/// A handler whose refusals carry more data than a frame can hold.
struct Oversharing;

impl Handler for Oversharing {
    type Request = ();
    type Notification = ();
    type Response = Value;

    fn decode_request(&self, _: &str, _: Option<&RawValue>) -> Result<(), ErrorObject> {
        Err(ErrorObject::new(-32042, "refused").with_data("y".repeat(2 * LIMIT)))
    }

    fn decode_notification(&self, _: &str, _: Option<&RawValue>) -> Result<(), ErrorObject> {
        Ok(())
    }

    fn handle_request(self: &Arc<Self>, (): ()) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        async { Ok(Value::Null) }.boxed()
    }

    fn handle_notification(self: &Arc<Self>, (): ()) -> BoxFuture<'static, ()> {
        async {}.boxed()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_error_reply_over_the_frame_limit_becomes_a_short_internal_error() {
    let mut t = RawWire::new(|_| Oversharing, Config::default().max_frame_len(LIMIT));
    t.raw
        .send_raw(line(
            &json!({"jsonrpc": "2.0", "id": "a", "method": "_x/y", "params": {}}),
        ))
        .await;
    let reply = t.raw.recv().await;
    assert_eq!(reply["id"], "a", "{reply}");
    assert_eq!(error_code(&reply), Some(-32603), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("too large"), "{message}");
    assert!(reply["error"].get("data").is_none(), "{reply}");
    t.shutdown().await;
}

/// A router whose `_hold` requests and notifications wait until the test opens the gate.
fn holding_router(gate: Arc<tokio::sync::Semaphore>) -> Router {
    let notified = gate.clone();
    Router::new()
        .request_raw("_hold", move |_params| {
            let gate = gate.clone();
            async move {
                let _permit = gate.acquire().await.expect("the gate stays open");
                Ok(RawValue::from_string("{}".into()).unwrap())
            }
        })
        .notification_raw("_hold", move |_params| {
            let gate = notified.clone();
            async move {
                let _permit = gate.acquire().await.expect("the gate stays open");
            }
        })
        .request_raw("_ping", |_params| async {
            Ok(RawValue::from_string("{}".into()).unwrap())
        })
}

fn holding(id: Option<u64>, size: usize) -> Vec<u8> {
    let mut message =
        json!({"jsonrpc": "2.0", "method": "_hold", "params": {"pad": "p".repeat(size)}});
    if let Some(id) = id {
        message["id"] = id.into();
    }
    line(&message)
}

#[tokio::test(flavor = "current_thread")]
async fn requests_over_the_in_flight_byte_budget_are_refused_until_others_are_answered() {
    const BIG: usize = 40 * 1024;
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let config = Config::default()
        .max_frame_len(LIMIT)
        .max_in_flight_bytes(100 * 1024);
    let mut t = RawWire::new(|_| holding_router(gate.clone()), config);
    // Two big requests fit the budget; the third would go over it and is refused at once.
    for id in 1..=3 {
        t.raw.send_raw(holding(Some(id), BIG)).await;
    }
    let refused = t.raw.recv().await;
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(error_code(&refused), Some(-32603), "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("server busy") && message.contains("budget"),
        "{message}"
    );
    // Small requests still pass.
    t.raw
        .send_raw(line(&json!({"jsonrpc": "2.0", "id": 4, "method": "_ping"})))
        .await;
    assert_eq!(t.raw.recv().await["id"], 4);
    // Once the held requests are answered, a big one is accepted again.
    gate.add_permits(2);
    let mut answered = vec![
        t.raw.recv().await["id"].clone(),
        t.raw.recv().await["id"].clone(),
    ];
    answered.sort_by_key(|id| id.as_u64());
    assert_eq!(answered, [1, 2]);
    t.raw.send_raw(holding(Some(5), BIG)).await;
    gate.add_permits(1);
    let accepted = t.raw.recv().await;
    assert_eq!(accepted["id"], 5, "{accepted}");
    assert!(accepted.get("result").is_some(), "{accepted}");
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn reading_pauses_while_queued_notifications_hold_the_byte_budget() {
    const BIG: usize = 40 * 1024;
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let config = Config::default()
        .max_frame_len(LIMIT)
        .max_in_flight_bytes(100 * 1024);
    let mut t = RawWire::with_capacity(|_| holding_router(gate.clone()), config, 1024 * 1024);
    // The first notification's handler waits; the next ones queue until they hold the budget.
    for _ in 0..5 {
        t.raw.send_raw(holding(None, BIG)).await;
    }
    t.raw
        .send_raw(line(&json!({"jsonrpc": "2.0", "id": 1, "method": "_ping"})))
        .await;
    // Reading has paused: the ping is not even read.
    let early = tokio::time::timeout(std::time::Duration::from_millis(300), t.raw.recv()).await;
    assert!(
        early.is_err(),
        "the ping was read while the queue was full: {early:?}"
    );
    // The handler catches up, reading resumes, and the ping is answered.
    gate.add_permits(5);
    let pong = t.raw.recv().await;
    assert_eq!(pong["id"], 1, "{pong}");
    t.shutdown().await;
}

/// An error response whose `data` nests deeper than the parser goes.
fn deeply_nested_error(id: u64) -> Vec<u8> {
    let depth = 1000;
    let mut text = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"x","data":{}{}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    text.push('\n');
    text.into_bytes()
}

#[tokio::test(flavor = "current_thread")]
async fn an_unreadable_response_is_never_answered_and_fails_the_call_it_answers() {
    let mut t = RawWire::new(
        |_| holding_router(Arc::new(tokio::sync::Semaphore::new(0))),
        Config::default(),
    );
    // To no request of ours: dropped, not answered (the next message is the ping's answer).
    t.raw.send_raw(deeply_nested_error(77)).await;
    t.raw
        .send_raw(line(
            &json!({"jsonrpc": "2.0", "id": "p", "method": "_ping"}),
        ))
        .await;
    assert_eq!(t.raw.recv().await["id"], "p");
    // To a pending call: the call fails promptly with the reason, and nothing is answered.
    let peer = t.end.peer.clone();
    let call = tokio::spawn(async move { peer.request_raw("_x/ask", &json!({})).await });
    let asked = t.raw.recv().await;
    assert_eq!(asked["method"], "_x/ask");
    let id = asked["id"].as_u64().expect("our ids are numbers");
    t.raw.send_raw(deeply_nested_error(id)).await;
    let failed = common::guard("the call", call)
        .await
        .unwrap()
        .expect_err("unreadable");
    assert!(failed.to_string().contains("could not be read"), "{failed}");
    t.raw
        .send_raw(line(
            &json!({"jsonrpc": "2.0", "id": "q", "method": "_ping"}),
        ))
        .await;
    assert_eq!(t.raw.recv().await["id"], "q");
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_call_not_answered_in_time_fails_and_is_cancelled() {
    use acp_types::methods::SessionRequestPermission;
    use std::time::Duration;
    let config = Config::default().request_timeout(Some(Duration::from_millis(200)));
    let mut t = RawWire::new(|_| Router::new(), config);
    let params: acp_types::RequestPermissionRequest = serde_json::from_value(json!({
        "sessionId": "s", "toolCall": {"toolCallId": "c"},
        "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}],
    }))
    .unwrap();
    // The connection-wide limit.
    let peer = t.end.peer.clone();
    let sent = params.clone();
    let call = tokio::spawn(async move { peer.request::<SessionRequestPermission>(&sent).await });
    let asked = t.raw.recv().await;
    assert_eq!(asked["method"], "session/request_permission");
    let failed = common::guard("the call", call)
        .await
        .unwrap()
        .expect_err("timed out");
    assert!(
        matches!(
            failed,
            acp_rpc::Error::Timeout {
                method: "session/request_permission",
                ..
            }
        ),
        "{failed:?}"
    );
    assert!(
        failed.to_string().contains("not answered within"),
        "{failed}"
    );
    let cancel = t.raw.recv().await;
    assert_eq!(cancel["method"], "$/cancel_request");
    assert_eq!(cancel["params"]["requestId"], asked["id"]);
    // A per-call limit overrides it.
    let peer = t.end.peer.clone();
    let call = tokio::spawn(async move {
        peer.request_with_timeout::<SessionRequestPermission>(&params, Duration::from_secs(5))
            .await
    });
    let asked = t.raw.recv().await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    t.raw
        .send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "cancelled"}}}))
        .await;
    common::guard("the call", call)
        .await
        .unwrap()
        .expect("answered in time");
    t.shutdown().await;
}
