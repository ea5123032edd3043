//! Every line of generated S4 traffic is valid against the official ACP schema, and the traffic
//! has the shape the benchmark protocol describes.

use std::collections::{HashMap, HashSet};

use acp_bench::s4::{self, Kind, LineInfo, Sender};
use acp_testkit::Spec;
use serde_json::Value;

/// The `$defs` entry for `method`'s params (`suffix` "Request" or "Notification") or result
/// ("Response"), found through the schema's `x-method` annotations.
fn def_for(spec: &Spec, method: &str, suffix: &str) -> String {
    let defs = spec.schema()["$defs"]
        .as_object()
        .expect("$defs is an object");
    let names: Vec<&String> = defs
        .iter()
        .filter(|(name, def)| def["x-method"] == method && name.ends_with(suffix))
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        names.len(),
        1,
        "one {suffix} definition for {method}: {names:?}"
    );
    names[0].clone()
}

fn check_def(spec: &Spec, method: &str, suffix: &str, doc: &Value, line: &str) {
    let def = def_for(spec, method, suffix);
    if let Err(e) = spec.check_def(&def, doc) {
        panic!("{def} rejects a generated {method} {suffix}: {e}\nline: {line}");
    }
}

#[test]
fn every_generated_line_is_valid_against_the_official_schema() {
    let Some(spec) = Spec::load_or_skip() else {
        return;
    };
    let traffic = s4::traffic(0x5eed, 400_000);
    let text = std::str::from_utf8(&traffic.bytes).expect("traffic is UTF-8");
    let lines: Vec<&str> = text
        .strip_suffix('\n')
        .expect("ends with a newline")
        .split('\n')
        .collect();
    assert_eq!(lines.len(), traffic.lines.len());

    // Requests not answered yet, by id, with the sender and method.
    let mut pending: HashMap<String, (Sender, &str)> = HashMap::new();
    let mut seen_ids = HashSet::new();
    for (line, info) in lines.iter().zip(&traffic.lines) {
        let message: Value = serde_json::from_str(line).expect("every line is one JSON value");
        spec.assert_valid_message(&message);
        let LineInfo {
            sender,
            kind,
            method,
        } = *info;
        match kind {
            Kind::Request => {
                assert_eq!(message["method"], method);
                let id = &message["id"];
                match sender {
                    Sender::Client => assert!(id.is_i64(), "client ids are integers: {line}"),
                    Sender::Agent => assert!(id.is_string(), "agent ids are strings: {line}"),
                }
                assert!(seen_ids.insert(id.to_string()), "id reused: {line}");
                pending.insert(id.to_string(), (sender, method));
                check_def(spec, method, "Request", &message["params"], line);
            }
            Kind::Notification => {
                assert_eq!(message["method"], method);
                assert!(message.get("id").is_none());
                check_def(spec, method, "Notification", &message["params"], line);
            }
            Kind::Response => {
                let id = message["id"].to_string();
                let (requester, requested) = pending
                    .remove(&id)
                    .unwrap_or_else(|| panic!("response before (or without) its request: {line}"));
                assert_ne!(requester, sender, "a side answered its own request");
                assert_eq!(requested, method);
                check_def(spec, method, "Response", &message["result"], line);
            }
        }
    }
    assert!(pending.is_empty(), "unanswered requests: {pending:?}");

    // The checks above are not vacuous: a broken prompt response is rejected.
    let broken = serde_json::json!({"stopReason": "done"});
    assert!(
        spec.check_def(&def_for(spec, "session/prompt", "Response"), &broken)
            .is_err()
    );
}

#[test]
fn the_traffic_has_every_part_of_a_turn_and_hard_text() {
    let traffic = s4::traffic(0x5eed, 400_000);
    let text = std::str::from_utf8(&traffic.bytes).expect("traffic is UTF-8");
    for needle in [
        r#""method":"initialize""#,
        r#""method":"session/new""#,
        r#""method":"session/prompt""#,
        r#""type":"resource_link""#,
        r#""type":"resource""#,
        r#""sessionUpdate":"agent_thought_chunk""#,
        r#""sessionUpdate":"plan""#,
        r#""sessionUpdate":"agent_message_chunk""#,
        r#""sessionUpdate":"tool_call""#,
        r#""status":"in_progress""#,
        r#""status":"completed""#,
        r#""type":"diff""#,
        r#""locations":[{"#,
        r#""rawInput":{"#,
        r#""method":"session/request_permission""#,
        r#""method":"fs/read_text_file""#,
        r#""method":"fs/write_text_file""#,
        r#""stopReason":"end_turn""#,
        // Escaped newline, quote, backslash and tab inside strings.
        r"\n",
        r#"\""#,
        r"\\",
        r"\t",
    ] {
        assert!(text.contains(needle), "the traffic lacks {needle}");
    }
    assert!(!text.is_ascii(), "the traffic has non-ASCII text");
    let count = |method: &str, kind: Kind| {
        traffic
            .lines
            .iter()
            .filter(|l| l.method == method && l.kind == kind)
            .count()
    };
    let turns = count("session/prompt", Kind::Request);
    assert!(turns > 10, "{turns} turns");
    assert_eq!(count("session/prompt", Kind::Response), turns);
    assert!(count("session/update", Kind::Notification) > turns * 20);
}
