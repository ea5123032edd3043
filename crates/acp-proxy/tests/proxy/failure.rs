//! Every request gets exactly one answer when things break: the conductor's error for a dead
//! successor reaches the editor unchanged; a gone conductor fails pending calls clearly;
//! malformed envelopes are refused with a reason.

use acp_proxy::Proxy;
use acp_types::{NewSessionRequest, methods};
use serde_json::json;

use crate::conductor::{Conductor, DEADLINE};

#[tokio::test]
async fn the_error_of_a_dead_successor_reaches_the_editor() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    conductor
        .send(
            json!({"jsonrpc": "2.0", "id": "p", "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": []}}),
        )
        .await;
    let forwarded = conductor.recv().await;
    let error =
        json!({"code": -32603, "message": "the agent exited (status 1)", "data": {"component": 2}});
    conductor
        .send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "error": error}))
        .await;
    let answer = conductor.recv().await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "p", "error": error}));
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn a_gone_conductor_fails_pending_calls_with_a_clear_error() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    let cx = conductor.cx.clone();
    let call = tokio::spawn(async move {
        cx.successor()
            .request::<methods::SessionNew>(&NewSessionRequest::new("/w", Vec::new()))
            .await
    });
    let request = conductor.recv().await;
    assert_eq!(request["params"]["method"], "session/new");
    let end = conductor.close().await;
    assert!(end.is_ok(), "end of input is a clean end: {end:?}");
    let error = tokio::time::timeout(DEADLINE, call)
        .await
        .expect("in time")
        .expect("no panic")
        .expect_err("no answer can come");
    assert_eq!(error.code, acp_types::ErrorCode::INTERNAL_ERROR);
    assert!(
        error
            .to_string()
            .contains("connection to the conductor is closed"),
        "{error}"
    );
}

#[tokio::test]
async fn malformed_envelopes_are_refused_with_a_reason() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    for (id, params) in [
        (1, r#"{"params":{}}"#),
        (2, r#"{"method":"session/new","params":"text"}"#),
        (3, r#"[1,2]"#),
    ] {
        conductor
            .send_unchecked(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"proxy/successor","params":{params}}}"#
            ))
            .await;
        let answer = conductor.recv().await;
        assert_eq!(answer["id"], id);
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
    conductor
        .send_unchecked(r#"{"jsonrpc":"2.0","id":4,"method":"proxy/successor"}"#)
        .await;
    let answer = conductor.recv().await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    conductor.close().await.expect("a clean end");
}
