//! The typed v1 <-> v2 conversions (`acp_types::v2::convert`): what both versions write the
//! same way converts to the same JSON and back to the same value (unknown fields, explicit
//! nulls and `_meta` included), and what one version cannot say is a clear error.

use acp_types::v2::{self, ConvertError};
use acp_types::{ContentBlock, ContentChunk, PlanEntry, StopReason, ToolCallStatus, ToolKind};
use proptest::prelude::*;
use serde_json::{Value, json};

/// v1 JSON → v1 value → v2 value (the same JSON) → v1 value (the same value).
fn block_both_ways(doc: &Value) -> Result<(), String> {
    let v1: ContentBlock = acp_types::from_value(doc.clone()).map_err(|e| format!("v1: {e}"))?;
    let v2_block = v2::ContentBlock::try_from(v1.clone()).map_err(|e| e.to_string())?;
    let written = serde_json::to_value(&v2_block).map_err(|e| e.to_string())?;
    let v1_written = serde_json::to_value(&v1).map_err(|e| e.to_string())?;
    if written != v1_written {
        return Err(format!("v2 wrote {written}, v1 wrote {v1_written}"));
    }
    let back = ContentBlock::try_from(v2_block).map_err(|e| e.to_string())?;
    if back != v1 {
        return Err(format!("v1 -> v2 -> v1 changed {doc}: {back:?}"));
    }
    Ok(())
}

#[test]
fn every_v1_content_block_fixture_converts_to_the_same_json_and_back() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/content.json");
    let text = std::fs::read_to_string(path).expect("the content fixtures");
    let fixtures: Vec<Value> = serde_json::from_str(&text).expect("a JSON array");
    let mut checked = 0;
    for fixture in fixtures
        .iter()
        .filter(|f| f["def"] == "ContentBlock" && f["expect"] == "roundtrip")
    {
        if let Err(problem) = block_both_ways(&fixture["doc"]) {
            panic!("{}: {problem}", fixture["name"]);
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} content block fixtures");
}

fn small_text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _./:-]{0,12}|[\"\\\\\n\tüé✓\u{1F600}]{1,4}"
}

/// Unknown fields, explicit nulls of optional fields and `_meta`, any of them.
fn extras(
    nullable: &'static [&'static str],
) -> impl Strategy<Value = serde_json::Map<String, Value>> {
    (
        proptest::option::of(small_text()),
        proptest::option::of(any::<i32>()),
        proptest::sample::subsequence(nullable, 0..=nullable.len()),
    )
        .prop_map(|(unknown, meta, nulls)| {
            let mut map = serde_json::Map::new();
            if let Some(text) = unknown {
                map.insert("xFuture".into(), json!({"note": text}));
            }
            if let Some(n) = meta {
                map.insert("_meta".into(), json!({"n": n}));
            }
            for field in nulls {
                map.insert((*field).into(), Value::Null);
            }
            map
        })
}

fn annotations() -> impl Strategy<Value = Value> {
    (
        proptest::sample::subsequence(&["user", "assistant"][..], 0..=2),
        proptest::option::of(0.0f64..=1.0),
        extras(&["lastModified"]),
    )
        .prop_map(|(audience, priority, mut map)| {
            map.insert("audience".into(), json!(audience));
            if let Some(p) = priority {
                map.insert("priority".into(), json!(p));
            }
            Value::Object(map)
        })
}

fn block() -> impl Strategy<Value = Value> {
    let fields = (
        small_text(),
        proptest::option::of(annotations()),
        extras(&["uri", "title", "description", "mimeType"]),
    );
    (0..6usize, fields, 0i64..1_000_000).prop_map(|(kind, (text, annotations, extras), size)| {
        let mut map = serde_json::Map::new();
        let (tag, allowed): (&str, &[&str]) = match kind {
            0 => {
                map.insert("text".into(), json!(text));
                ("text", &[])
            }
            1 => {
                map.insert("data".into(), json!("iVBORw0KGgo="));
                map.insert("mimeType".into(), json!("image/png"));
                ("image", &["uri"])
            }
            2 => {
                map.insert("data".into(), json!("UklGRg=="));
                map.insert("mimeType".into(), json!("audio/wav"));
                ("audio", &[])
            }
            3 => {
                map.insert("name".into(), json!(text));
                map.insert("uri".into(), json!("file:///a"));
                map.insert("size".into(), json!(size));
                ("resource_link", &["title", "description", "mimeType"])
            }
            4 => {
                let contents = json!({"uri": "file:///a", "text": text, "mimeType": "text/plain"});
                map.insert("resource".into(), contents);
                ("resource", &[])
            }
            _ => {
                // A kind of a newer peer: kept as it is on both sides.
                map.insert("payload".into(), json!(text));
                ("_hologram", &[])
            }
        };
        map.insert("type".into(), json!(tag));
        for (key, value) in extras {
            let null_of_a_field = value.is_null();
            if !null_of_a_field || allowed.contains(&key.as_str()) {
                map.entry(key).or_insert(value);
            }
        }
        if let Some(annotations) = annotations {
            map.insert("annotations".into(), annotations);
        }
        Value::Object(map)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_v1_content_block_converts_to_the_same_json_and_back(doc in block()) {
        if let Err(problem) = block_both_ways(&doc) {
            return Err(TestCaseError::fail(problem));
        }
    }

    #[test]
    fn a_v1_chunk_with_its_message_id_converts_both_ways(doc in block(), id in "[a-z0-9-]{1,12}") {
        let content: ContentBlock = acp_types::from_value(doc).expect("a v1 block");
        let v1 = ContentChunk::new(content).message_id(id.as_str());
        let v2_chunk = v2::ContentChunk::try_from(v1.clone()).expect("converts");
        prop_assert_eq!(v2_chunk.message_id.as_str(), id.as_str());
        prop_assert_eq!(
            serde_json::to_value(&v2_chunk).expect("JSON"),
            serde_json::to_value(&v1).expect("JSON")
        );
        prop_assert_eq!(ContentChunk::try_from(v2_chunk).expect("converts back"), v1);
    }
}

#[test]
fn a_chunk_without_a_message_id_has_no_v2_form() {
    let error = v2::ContentChunk::try_from(ContentChunk::new(ContentBlock::from("hi")))
        .expect_err("v2 requires a messageId");
    assert_eq!(error.what, "ContentChunk");
    assert!(error.to_string().contains("messageId"), "{error}");
}

#[test]
fn v2_only_enum_values_fail_toward_v1_and_extension_values_stay() {
    let error: ConvertError = StopReason::try_from(v2::StopReason::Error).expect_err("no v1 error");
    assert!(error.to_string().contains("`error`"), "{error}");
    assert_eq!(
        StopReason::try_from(v2::StopReason::from("_paused")).expect("an extension value"),
        StopReason::from("_paused")
    );
    assert!(ToolKind::try_from(v2::ToolKind::from("teleport")).is_err());
    for status in ToolCallStatus::VALUES {
        let v1 = ToolCallStatus::from(*status);
        let v2_status = v2::ToolCallStatus::from(v1.clone());
        assert_eq!(v2_status.as_str(), *status);
        assert_eq!(
            ToolCallStatus::try_from(v2_status).expect("a v1 status"),
            v1
        );
    }
}

#[test]
fn a_plan_entry_converts_both_ways_with_its_extras() {
    let doc = json!({"content": "tests", "priority": "high", "status": "in_progress",
                     "_meta": {"a": 1}, "xFuture": [1]});
    let v1: PlanEntry = acp_types::from_value(doc.clone()).expect("a v1 entry");
    let v2_entry = v2::PlanEntry::from(v1.clone());
    assert_eq!(serde_json::to_value(&v2_entry).expect("JSON"), doc);
    assert_eq!(PlanEntry::try_from(v2_entry).expect("converts back"), v1);
}

#[test]
fn v2_resource_link_icons_travel_through_v1_and_back_and_bad_sizes_fail() {
    let doc = json!({"type": "resource_link", "name": "a", "uri": "file:///a",
                     "icons": [{"src": "https://x/i.png", "sizes": ["48x48"]}], "size": 3});
    let v2_block: v2::ContentBlock = acp_types::from_value(doc.clone()).expect("a v2 block");
    let v1 = ContentBlock::try_from(v2_block.clone()).expect("a v1 block");
    assert_eq!(
        serde_json::to_value(&v1).expect("JSON"),
        doc,
        "icons as an unknown v1 field"
    );
    assert_eq!(v2::ContentBlock::try_from(v1).expect("back"), v2_block);

    let negative: ContentBlock = acp_types::from_value(
        json!({"type": "resource_link", "name": "a", "uri": "file:///a", "size": -1}),
    )
    .expect("v1 allows any integer");
    let error = v2::ContentBlock::try_from(negative).expect_err("v2 sizes are unsigned");
    assert!(error.to_string().contains("negative"), "{error}");
}

#[test]
fn v1_commands_become_v2_commands_with_their_types_and_extras() {
    let doc = json!({"sessionUpdate": "available_commands_update", "availableCommands": [
        {"name": "test", "description": "Runs the tests", "input": {"hint": "filter", "xIn": 1},
         "_meta": {"a": 1}, "xFuture": true},
        {"name": "plain", "description": "No input"},
    ], "_meta": {"b": 2}});
    let v1: acp_types::SessionUpdate = acp_types::from_value(doc).expect("a v1 update");
    let converted = v2::convert::session_update(
        v1,
        || v2::PlanId::from("plan"),
        v2::convert::Terminals::Refuse,
    )
    .expect("converts")
    .expect("typed, not handed back");
    let written = serde_json::to_value(&converted).expect("JSON");
    assert_eq!(
        written,
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"type": "command", "name": "test", "description": "Runs the tests",
             "input": {"type": "text", "hint": "filter", "xIn": 1},
             "_meta": {"a": 1}, "xFuture": true},
            {"type": "command", "name": "plain", "description": "No input"},
        ], "_meta": {"b": 2}})
    );
    let read: v2::SessionUpdate = acp_types::from_value(written).expect("v2 reads it");
    assert_eq!(read, converted);
}

#[test]
fn a_v1_tool_call_and_the_same_tool_call_update_make_the_same_v2_upsert() {
    let fields = json!({"toolCallId": "c1", "title": "Read", "kind": "read",
                        "status": "pending", "locations": [{"path": "/a"}],
                        "rawInput": {"p": 1}, "xFuture": 1});
    let call: acp_types::ToolCall = acp_types::from_value(fields.clone()).expect("a tool call");
    let update: acp_types::ToolCallUpdate =
        acp_types::from_value(fields).expect("a tool call update");
    let from_call = v2::ToolCallUpdate::try_from(call).expect("converts");
    let from_update = v2::ToolCallUpdate::try_from(update).expect("converts");
    assert_eq!(from_call, from_update);
    assert_eq!(from_call.title, v2::Patch::Set("Read".to_owned()));

    // A v1 `null` leaves the field unchanged: not a v2 `null`, which would clear it.
    let nulls: acp_types::ToolCallUpdate =
        acp_types::from_value(json!({"toolCallId": "c1", "title": null, "rawOutput": null}))
            .expect("v1 nulls");
    let upsert = v2::ToolCallUpdate::try_from(nulls).expect("converts");
    assert_eq!(
        serde_json::to_value(&upsert).expect("JSON"),
        json!({"toolCallId": "c1"})
    );
}

#[test]
fn a_v1_terminal_reference_converts_only_where_the_caller_says_it_is_a_display_terminal() {
    let doc = json!({"sessionUpdate": "tool_call_update", "toolCallId": "call-1",
        "content": [{"type": "terminal", "terminalId": "term-1"}]});
    let v1: acp_types::SessionUpdate = acp_types::from_value(doc).expect("a v1 update");
    // By shape alone (the `TryFrom` conversions): a v1 client terminal has no v2 form.
    let refused = v2::convert::session_update(
        v1.clone(),
        || v2::PlanId::from("plan"),
        v2::convert::Terminals::Refuse,
    )
    .expect_err("a client terminal is refused");
    assert!(refused.to_string().contains("term-1"), "{refused}");
    let content: acp_types::ToolCallContent =
        acp_types::from_value(json!({"type": "terminal", "terminalId": "term-1"})).expect("v1");
    assert!(v2::ToolCallContent::try_from(content.clone()).is_err());
    // Said to be the agent's display terminal: the v2 reference.
    let converted = v2::convert::session_update(
        v1,
        || v2::PlanId::from("plan"),
        v2::convert::Terminals::Keep,
    )
    .expect("converts")
    .expect("typed");
    assert_eq!(
        serde_json::to_value(&converted).expect("JSON"),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "call-1",
            "content": [{"type": "terminal", "terminalId": "term-1"}]})
    );
    let item = v2::convert::tool_call_content(content, v2::convert::Terminals::Keep)
        .expect("a display terminal");
    assert!(matches!(item, v2::ToolCallContent::Terminal(_)));
}
