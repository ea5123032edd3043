//! What the proxy does not intercept goes through exactly: initialize, unknown fields, `_meta`,
//! extension methods, both ways, in both spellings of the proxy methods.

use acp_proxy::Proxy;
use serde_json::json;

use crate::conductor::{Conductor, chunk};

/// The text of `key`'s value in the one-line JSON object `line` (the bytes as written).
fn raw_member<'a>(line: &'a str, key: &str) -> &'a str {
    let value: &serde_json::value::RawValue = {
        let map: std::collections::HashMap<&str, &serde_json::value::RawValue> =
            serde_json::from_str(line).expect("a JSON object");
        map.get(key)
            .copied()
            .unwrap_or_else(|| panic!("no `{key}` in {line}"))
    };
    value.get()
}

#[tokio::test]
async fn initialize_goes_to_the_successor_and_back_untouched() {
    let mut conductor = Conductor::start(Proxy::new());
    let params = r#"{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":false},"terminal":true},"clientInfo":{"name":"ed","version":"1.0"},"_meta":{"x-trace":"abc"}}"#;
    conductor
        .send_text(&format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"proxy/initialize","params":{params}}}"#
        ))
        .await;
    let line = conductor.recv_text().await;
    let envelope = raw_member(&line, "params");
    assert_eq!(raw_member(envelope, "method"), r#""initialize""#);
    assert_eq!(
        raw_member(envelope, "params"),
        params,
        "the params, byte for byte"
    );
    let id = raw_member(&line, "id").to_owned();

    let result = r#"{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true}},"authMethods":[],"agentInfo":{"name":"agent","version":"0.1"},"_meta":{"k":[1,2.5]}}"#;
    let answer = conductor.answer_text(&id, result).await;
    assert_eq!(raw_member(&answer, "id"), "0");
    assert_eq!(
        raw_member(&answer, "result"),
        result,
        "the answer, byte for byte"
    );
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn unknown_fields_and_meta_cross_byte_for_byte() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    // Odd spacing, key order, an escape, a number spelled unusually, unknown fields.
    let params = r#"{ "mcpServers" : [], "cwd":"/work/caf\u00e9", "futureField": {"n": 1.50e0}, "_meta":{"z":1,"a":[true,null]} }"#;
    conductor
        .send_text(&format!(
            r#"{{"jsonrpc":"2.0","id":"new-1","method":"session/new","params":{params}}}"#
        ))
        .await;
    let line = conductor.recv_text().await;
    let envelope = raw_member(&line, "params");
    assert_eq!(raw_member(envelope, "method"), r#""session/new""#);
    assert_eq!(
        raw_member(envelope, "params"),
        params.trim(),
        "the params, byte for byte"
    );
    let id = raw_member(&line, "id").to_owned();

    let result =
        r#"{"sessionId":"s-1","modes":null,"_meta":{"big":12345678901234567890},"later":{"x":[]}}"#;
    let answer = conductor.answer_text(&id, result).await;
    assert_eq!(raw_member(&answer, "id"), r#""new-1""#);
    assert_eq!(raw_member(&answer, "result"), result);
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn extension_methods_and_requests_from_the_agent_pass_both_ways() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;

    // An extension request from the editor, and its answer.
    let params = r#"{"deep":{"list":[1,"two",{"three":3}]},"_meta":{"v":1}}"#;
    conductor
        .send_text(&format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"_vendor/ping","params":{params}}}"#
        ))
        .await;
    let line = conductor.recv_text().await;
    let envelope = raw_member(&line, "params");
    assert_eq!(raw_member(envelope, "method"), r#""_vendor/ping""#);
    assert_eq!(raw_member(envelope, "params"), params);
    let id = raw_member(&line, "id").to_owned();
    let answer = conductor.answer_text(&id, r#"{"pong":[3,2,1]}"#).await;
    assert_eq!(raw_member(&answer, "result"), r#"{"pong":[3,2,1]}"#);

    // An extension notification from the agent reaches the editor unwrapped.
    let note = r#"{"level":"info","_meta":{"t":0}}"#;
    conductor
        .send_text(&format!(
            r#"{{"jsonrpc":"2.0","method":"proxy/successor","params":{{"method":"_vendor/log","params":{note},"_meta":{{"hop":"local"}}}}}}"#
        ))
        .await;
    let line = conductor.recv_text().await;
    assert_eq!(raw_member(&line, "method"), r#""_vendor/log""#);
    assert_eq!(raw_member(&line, "params"), note);
    assert!(
        !line.contains("hop"),
        "the envelope's _meta is hop-local: {line}"
    );

    // A request of the agent (read a file) reaches the editor unwrapped; the answer goes back
    // as the envelope's answer.
    let read = r#"{"sessionId":"s-1","path":"/work/a.rs","line":3}"#;
    conductor
        .send_text(&format!(
            r#"{{"jsonrpc":"2.0","id":"env-9","method":"proxy/successor","params":{{"method":"fs/read_text_file","params":{read}}}}}"#
        ))
        .await;
    let line = conductor.recv_text().await;
    assert_eq!(raw_member(&line, "method"), r#""fs/read_text_file""#);
    assert_eq!(raw_member(&line, "params"), read);
    let id = raw_member(&line, "id").to_owned();
    let content = r#"{"content":"fn main() {}\n","_meta":{"etag":"\"1\""}}"#;
    let answer = conductor.answer_text(&id, content).await;
    assert_eq!(raw_member(&answer, "id"), r#""env-9""#);
    assert_eq!(raw_member(&answer, "result"), content);
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn the_official_conductor_spelling_is_answered_in_kind() {
    let mut conductor = Conductor::start(Proxy::new());
    let done = conductor
        .initialize_with(
            "_proxy",
            json!({"protocolVersion": 1, "agentCapabilities": {}}),
        )
        .await;
    assert_eq!(done["result"]["protocolVersion"], 1);
    assert_eq!(conductor.cx.dialect(), acp_proxy::Dialect::Extension);

    conductor
        .send(json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}))
        .await;
    let forwarded = conductor.recv().await;
    assert_eq!(forwarded["method"], "_proxy/successor");
    assert_eq!(
        forwarded["params"],
        json!({"method": "session/cancel", "params": {"sessionId": "s"}})
    );

    // Both spellings are read at any time.
    for spelling in ["_proxy/successor", "proxy/successor"] {
        conductor
            .send(json!({"jsonrpc": "2.0", "method": spelling,
                "params": {"method": "session/update", "params": chunk("s", spelling)}}))
            .await;
        let update = conductor.recv().await;
        assert_eq!(update["method"], "session/update");
        assert_eq!(update["params"], chunk("s", spelling));
    }
    conductor.close().await.expect("a clean end");
}
