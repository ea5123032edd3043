//! The three states of the fields of v2 upserts: omitted (`Patch::Unchanged`), `null`
//! (`Patch::Clear`) and a value (`Patch::Set`) decode apart, encode back as they came, and
//! `Patch` on its own never writes the omitted state.

use acp_types::v2::{
    AgentMessage, ContentBlock, Patch, SessionInfoUpdate, TerminalExitStatus, TerminalOutput,
    TerminalUpdate, ToolCallStatus, ToolCallUpdate, ToolKind,
};
use serde_json::{Value, json};

use super::spec::V2Spec;

fn decode<T: serde::de::DeserializeOwned>(doc: &Value) -> T {
    acp_types::from_value(doc.clone()).unwrap_or_else(|e| panic!("{doc}: {e}"))
}

fn encode<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("a wire value encodes")
}

#[test]
fn omitted_null_and_value_are_three_states_of_every_tool_call_field() {
    let spec = V2Spec::load();
    let omitted = json!({"toolCallId": "c1"});
    let cleared = json!({
        "toolCallId": "c1", "name": null, "title": null, "kind": null, "status": null,
        "content": null, "locations": null, "rawInput": null, "rawOutput": null,
        "capabilities": null, "_meta": null,
    });
    let set = json!({
        "toolCallId": "c1", "name": "read_file", "title": "Read", "kind": "read",
        "status": "completed", "content": [], "locations": [], "rawInput": {"path": "/a"},
        "rawOutput": "text", "capabilities": {}, "_meta": {"k": 1},
    });
    for doc in [&omitted, &cleared, &set] {
        spec.assert_valid("ToolCallUpdate", doc);
    }
    let u: ToolCallUpdate = decode(&omitted);
    assert!(u.name.is_unchanged() && u.title.is_unchanged() && u.kind.is_unchanged());
    assert!(u.status.is_unchanged() && u.content.is_unchanged() && u.raw_input.is_unchanged());
    assert!(u.capabilities.is_unchanged() && u.meta.is_unchanged());
    assert_eq!(encode(&u), omitted);

    let u: ToolCallUpdate = decode(&cleared);
    assert_eq!(
        (u.name.clone(), u.title.clone()),
        (Patch::Clear, Patch::Clear)
    );
    assert_eq!(
        (u.kind.clone(), u.status.clone()),
        (Patch::Clear, Patch::Clear)
    );
    assert_eq!(
        (u.content.clone(), u.locations.clone()),
        (Patch::Clear, Patch::Clear)
    );
    // `null` of an any-JSON field is the clearing `null`, not a JSON null value.
    assert_eq!(
        (u.raw_input.clone(), u.raw_output.clone()),
        (Patch::Clear, Patch::Clear)
    );
    assert_eq!(
        (u.capabilities.clone(), u.meta.clone()),
        (Patch::Clear, Patch::Clear)
    );
    assert_eq!(encode(&u), cleared);

    let u: ToolCallUpdate = decode(&set);
    assert_eq!(u.kind, Patch::Set(ToolKind::Read));
    assert_eq!(u.status, Patch::Set(ToolCallStatus::Completed));
    assert_eq!(u.raw_output, Patch::Set(json!("text")));
    assert_eq!(u.content, Patch::Set(vec![]));
    assert_eq!(encode(&u), set);
}

#[test]
fn building_an_upsert_writes_exactly_the_states_set() {
    let mut update = ToolCallUpdate::new("c1")
        .title("Run tests")
        .status(ToolCallStatus::InProgress);
    update.kind = Patch::Clear;
    let doc = encode(&update);
    assert_eq!(
        doc,
        json!({"toolCallId": "c1", "title": "Run tests", "kind": null, "status": "in_progress"})
    );
    V2Spec::load().assert_valid("ToolCallUpdate", &doc);
    // `set_null` is the same as assigning `Patch::Clear`.
    let mut again = ToolCallUpdate::new("c1");
    assert!(again.set_null("title"));
    assert!(
        !again.set_null("toolCallId"),
        "a required field has no null state"
    );
    assert_eq!(again.title, Patch::Clear);
    assert_eq!(encode(&again), json!({"toolCallId": "c1", "title": null}));
}

#[test]
fn an_invalid_value_of_a_default_on_error_patch_field_leaves_it_unchanged() {
    // `kind` is `x-deserialize-default-on-error`: an invalid value is treated as absent.
    let doc = json!({"toolCallId": "c1", "kind": 42, "title": "T"});
    assert!(!V2Spec::load().is_valid("ToolCallUpdate", &doc));
    let u: ToolCallUpdate = decode(&doc);
    assert_eq!(u.kind, Patch::Unchanged);
    assert_eq!(u.title, Patch::Set("T".to_owned()));
    assert_eq!(encode(&u), json!({"toolCallId": "c1", "title": "T"}));
}

#[test]
fn message_content_replacement_and_clearing() {
    let spec = V2Spec::load();
    // Replace: a concrete array; clear: `null` or `[]`; keep: omitted (e.g. to change `_meta`).
    for (doc, expected) in [
        (
            json!({"messageId": "m1", "content": [{"type": "text", "text": "C"}]}),
            Patch::Set(vec![ContentBlock::from("C")]),
        ),
        (json!({"messageId": "m1", "content": null}), Patch::Clear),
        (
            json!({"messageId": "m1", "content": []}),
            Patch::Set(vec![]),
        ),
        (
            json!({"messageId": "m1", "_meta": {"edited": true}}),
            Patch::Unchanged,
        ),
    ] {
        spec.assert_valid("AgentMessage", &doc);
        let message: AgentMessage = decode(&doc);
        assert_eq!(message.content, expected, "{doc}");
        assert_eq!(encode(&message), doc);
    }
}

#[test]
fn terminal_update_patches_and_snapshot_scoped_meta() {
    let spec = V2Spec::load();
    let doc = json!({
        "terminalId": "t1", "command": "cargo test", "cwd": "/work",
        "output": {"data": "cnVubmluZwo=", "_meta": null},
        "exitStatus": {"exitCode": 0, "signal": null},
    });
    spec.assert_valid("TerminalUpdate", &doc);
    let update: TerminalUpdate = decode(&doc);
    let Patch::Set(output) = &update.output else {
        panic!("a snapshot: {update:?}")
    };
    assert_eq!(output.data, "cnVubmluZwo=");
    // Inside the snapshot, `_meta` is an ordinary optional field: `null` is kept as it came.
    assert_eq!(output.meta, None);
    assert!(output.extras().was_null("_meta"));
    let Patch::Set(exit) = &update.exit_status else {
        panic!("an exit status")
    };
    assert_eq!(exit.exit_code, Some(0));
    assert_eq!(update.size, Patch::Unchanged);
    assert_eq!(encode(&update), doc);

    let cleared = json!({"terminalId": "t1", "output": null, "exitStatus": null, "cwd": null});
    spec.assert_valid("TerminalUpdate", &cleared);
    let update: TerminalUpdate = decode(&cleared);
    assert_eq!(update.output, Patch::<TerminalOutput>::Clear);
    assert_eq!(update.exit_status, Patch::<TerminalExitStatus>::Clear);
    assert_eq!(update.command, Patch::Unchanged);
    assert_eq!(encode(&update), cleared);
}

#[test]
fn session_info_title_is_a_patch() {
    let doc = json!({"title": null, "updatedAt": "2026-11-02T10:00:00Z"});
    V2Spec::load().assert_valid("SessionInfoUpdate", &doc);
    let info: SessionInfoUpdate = decode(&doc);
    assert_eq!(info.title, Patch::Clear);
    assert_eq!(info.meta, Patch::Unchanged);
    assert_eq!(encode(&info), doc);
}

#[test]
fn patch_alone_never_writes_the_omitted_state() {
    assert_eq!(serde_json::to_value(Patch::Set(3)).unwrap(), json!(3));
    assert_eq!(
        serde_json::to_value(Patch::<u32>::Clear).unwrap(),
        Value::Null
    );
    let error = serde_json::to_value(Patch::<u32>::Unchanged).unwrap_err();
    assert!(error.to_string().contains("left out"), "{error}");
    assert_eq!(
        serde_json::from_value::<Patch<u32>>(json!(null)).unwrap(),
        Patch::Clear
    );
    assert_eq!(
        serde_json::from_value::<Patch<u32>>(json!(7)).unwrap(),
        Patch::Set(7)
    );
    assert!(serde_json::from_value::<Patch<u32>>(json!("7")).is_err());
}

#[test]
fn applying_patches_to_stored_state() {
    let mut title = Some("old".to_owned());
    Patch::Unchanged.apply_to(&mut title);
    assert_eq!(title.as_deref(), Some("old"));
    Patch::Set("new".to_owned()).apply_to(&mut title);
    assert_eq!(title.as_deref(), Some("new"));
    Patch::Clear.apply_to(&mut title);
    assert_eq!(title, None);
    // A field with an initial state: `null` resets it there.
    let status = Patch::Clear.apply_or(ToolCallStatus::Completed, ToolCallStatus::Pending);
    assert_eq!(status, ToolCallStatus::Pending);
    assert_eq!(Patch::from(Some(1)), Patch::Set(1));
    assert_eq!(Patch::<i32>::from(None), Patch::Clear);
}
