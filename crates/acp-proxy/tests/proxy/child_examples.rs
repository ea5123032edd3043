//! The crate's example proxies as child processes on stdio, as a conductor runs them: the
//! pass-through one in the official conductor's spelling, the context one, the policy one.

use std::process::Stdio;

use serde_json::json;
use tokio::process::{Child, Command};

use crate::conductor::{Conductor, DEADLINE};

/// Starts the example `name` (built by `cargo test` beside this test) with `args`.
fn spawn(name: &str, args: &[&str]) -> (Child, Conductor) {
    // Built by `cargo test` (which builds the examples) next to this test.
    let path = acp_testkit::example_binary(name);
    let mut child = Command::new(&path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    (child, Conductor::over(stdout, stdin))
}

/// Closes the proxy's stdin and checks that it exits cleanly.
async fn finish(mut child: Child, conductor: Conductor) {
    conductor.close().await.expect("closed");
    let status = tokio::time::timeout(DEADLINE, child.wait())
        .await
        .expect("the proxy exits when its stdin closes")
        .expect("waited");
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn the_pass_through_example_in_the_official_spelling() {
    let (child, mut conductor) = spawn("passthrough", &[]);
    conductor
        .initialize_with(
            "_proxy",
            json!({"protocolVersion": 1, "agentCapabilities": {}}),
        )
        .await;
    conductor
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "_x/ask", "params": {"q": [1, {"_meta": null}]}}))
        .await;
    let forwarded = conductor.recv().await;
    assert_eq!(forwarded["method"], "_proxy/successor");
    assert_eq!(
        forwarded["params"],
        json!({"method": "_x/ask", "params": {"q": [1, {"_meta": null}]}})
    );
    conductor
        .send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"a": 42}}))
        .await;
    assert_eq!(
        conductor.recv().await,
        json!({"jsonrpc": "2.0", "id": 3, "result": {"a": 42}})
    );
    finish(child, conductor).await;
}

#[tokio::test]
async fn the_context_example_adds_its_line() {
    let (child, mut conductor) = spawn("context", &["Context: tests live in tests/."]);
    conductor.initialize().await;
    conductor
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "Add a test"}]}}),
        )
        .await;
    let forwarded = conductor.recv().await;
    let prompt = &forwarded["params"]["params"]["prompt"];
    assert_eq!(prompt[0]["text"], "Context: tests live in tests/.");
    assert_eq!(prompt[1]["text"], "Add a test");
    conductor
        .send(
            json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"stopReason": "end_turn"}}),
        )
        .await;
    assert_eq!(conductor.recv().await["result"]["stopReason"], "end_turn");
    finish(child, conductor).await;
}

/// A wrapped permission request for an edit of `path`.
fn edit_permission(id: &str, path: &str) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "proxy/successor", "params": {
        "method": "session/request_permission",
        "params": {"sessionId": "s",
            "toolCall": {"toolCallId": id, "kind": "edit", "locations": [{"path": path}]},
            "options": [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"}]}}})
}

#[tokio::test]
async fn the_policy_example_refuses_edits_outside_its_directory() {
    let (child, mut conductor) = spawn("policy", &["/work/project"]);
    conductor.initialize().await;

    // Outside (also through `..`): refused without asking the editor.
    for (id, path) in [("out", "/etc/passwd"), ("dots", "/work/project/../secrets")] {
        conductor.send(edit_permission(id, path)).await;
        let answer = conductor.recv().await;
        assert_eq!(answer["id"], id, "answered by the proxy: {answer}");
        assert_eq!(
            answer["result"]["outcome"],
            json!({"outcome": "selected", "optionId": "no"})
        );
    }

    // Inside: the editor decides.
    conductor
        .send(edit_permission("in", "/work/project/src/lib.rs"))
        .await;
    let asked = conductor.recv().await;
    assert_eq!(asked["method"], "session/request_permission");
    conductor
        .send(json!({"jsonrpc": "2.0", "id": asked["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": "yes"}}}))
        .await;
    let answer = conductor.recv().await;
    assert_eq!(answer["id"], "in");
    assert_eq!(answer["result"]["outcome"]["optionId"], "yes");
    finish(child, conductor).await;
}
