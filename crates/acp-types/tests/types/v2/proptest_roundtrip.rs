//! Generated v2 upserts round-trip: value -> JSON -> value gives the same value (every field in
//! any of its three states), and a JSON document with each patch field omitted, `null` or set
//! decodes into exactly those states and encodes back to the same JSON.

use std::fmt::Debug;

use acp_types::v2::{
    AgentMessage, ContentBlock, IdleStateUpdate, Patch, SessionUpdate, StateUpdate, StopReason,
    TerminalOutput, TerminalUpdate, ToolCallStatus, ToolCallUpdate, ToolKind,
};
use proptest::prelude::*;
use proptest::{collection::vec, option};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

pub(super) fn round_trip<T>(value: &T) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let json = serde_json::to_value(value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back: T = acp_types::from_value(json.clone())
        .map_err(|e| TestCaseError::fail(format!("from_value {json}: {e}")))?;
    prop_assert_eq!(
        &back,
        value,
        "value -> JSON -> value changed it; JSON: {}",
        json
    );
    let text = serde_json::to_string(value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let from_text: T = acp_types::from_str(&text)
        .map_err(|e| TestCaseError::fail(format!("from_str {text}: {e}")))?;
    prop_assert_eq!(&from_text, value);
    let again = serde_json::to_value(&from_text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(again, json);
    Ok(())
}

pub(super) fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _./:-]{0,10}|[\"\\\\\n\tüé✓\u{1F600}]{1,4}"
}

/// A patch of `T`: omitted, cleared or set.
pub(super) fn patch<T: Debug + Clone>(
    value: impl Strategy<Value = T>,
) -> impl Strategy<Value = Patch<T>> {
    prop_oneof![
        Just(Patch::Unchanged),
        Just(Patch::Clear),
        value.prop_map(Patch::Set),
    ]
}

pub(super) fn open_enum<T: for<'a> From<&'a str> + Debug>(
    known: &'static [&'static str],
) -> impl Strategy<Value = T> {
    prop_oneof![
        3 => proptest::sample::select(known).prop_map(T::from),
        1 => "_[a-z]{1,6}".prop_map(|s| T::from(s.as_str())),
    ]
}

pub(super) fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::from),
        vec(text(), 0..3).prop_map(|items| json!(items)),
    ]
}

pub(super) fn meta() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::btree_map("[a-z]{1,5}", json_value(), 0..3)
        .prop_map(|m| m.into_iter().collect())
}

fn tool_call_update() -> impl Strategy<Value = ToolCallUpdate> {
    (
        "[a-z0-9_-]{1,8}",
        patch(text()),
        patch(text()),
        patch(open_enum::<ToolKind>(ToolKind::VALUES)),
        patch(open_enum::<ToolCallStatus>(ToolCallStatus::VALUES)),
        patch(json_value()),
        patch(json_value()),
        patch(meta()),
    )
        .prop_map(
            |(id, name, title, kind, status, raw_input, raw_output, meta)| {
                let mut update = ToolCallUpdate::new(id.as_str());
                update.name = name;
                update.title = title;
                update.kind = kind;
                update.status = status;
                update.raw_input = raw_input;
                update.raw_output = raw_output;
                update.meta = meta;
                update
            },
        )
}

fn terminal_update() -> impl Strategy<Value = TerminalUpdate> {
    (
        "[a-z0-9]{1,6}",
        patch(text()),
        patch("/[a-z]{1,6}"),
        patch(vec(any::<u8>(), 0..12).prop_map(|bytes| TerminalOutput::from_bytes(&bytes))),
        patch(meta()),
    )
        .prop_map(|(id, command, cwd, output, meta)| {
            let mut update = TerminalUpdate::new(id.as_str());
            update.command = command;
            update.cwd = cwd.map(|cwd| cwd.as_str().into());
            update.output = output;
            update.meta = meta;
            update
        })
}

fn agent_message() -> impl Strategy<Value = AgentMessage> {
    (
        "[a-z0-9]{1,6}",
        patch(vec(text().prop_map(ContentBlock::from), 0..3)),
        patch(meta()),
    )
        .prop_map(|(id, content, meta)| {
            let mut message = AgentMessage::new(id.as_str());
            message.content = content;
            message.meta = meta;
            message
        })
}

fn session_update() -> impl Strategy<Value = SessionUpdate> {
    prop_oneof![
        tool_call_update().prop_map(SessionUpdate::from),
        terminal_update().prop_map(SessionUpdate::from),
        agent_message().prop_map(SessionUpdate::AgentMessage),
        option::of(open_enum::<StopReason>(StopReason::VALUES)).prop_map(|reason| {
            let mut idle = IdleStateUpdate::new();
            idle.stop_reason = reason;
            SessionUpdate::StateUpdate(StateUpdate::Idle(idle))
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn v2_upserts_round_trip(update in session_update()) {
        round_trip(&update)?;
    }

    #[test]
    fn each_patch_field_of_a_document_keeps_its_state(states in vec(0u8..3, 8)) {
        // 0: omitted, 1: null, 2: a value.
        let fields: [(&str, Value); 8] = [
            ("name", json!("read_file")),
            ("title", json!("Read")),
            ("kind", json!("_vendor_kind")),
            ("status", json!("in_progress")),
            ("content", json!([{"type": "content", "content": {"type": "text", "text": "x"}}])),
            ("rawInput", json!({"path": "/a"})),
            ("capabilities", json!({"cancel": {}})),
            ("_meta", json!({"k": [1, null]})),
        ];
        let mut doc = Map::new();
        doc.insert("toolCallId".into(), json!("c1"));
        for ((name, value), state) in fields.iter().zip(&states) {
            match state {
                0 => {}
                1 => { doc.insert((*name).into(), Value::Null); }
                _ => { doc.insert((*name).into(), value.clone()); }
            }
        }
        let doc = Value::Object(doc);
        let update: ToolCallUpdate = acp_types::from_value(doc.clone())
            .map_err(|e| TestCaseError::fail(format!("{doc}: {e}")))?;
        let seen = [
            state_of(&update.name), state_of(&update.title), state_of(&update.kind),
            state_of(&update.status), state_of(&update.content), state_of(&update.raw_input),
            state_of(&update.capabilities), state_of(&update.meta),
        ];
        prop_assert_eq!(seen.to_vec(), states);
        prop_assert_eq!(serde_json::to_value(&update).expect("encodes"), doc);
    }
}

pub(super) fn state_of<T>(patch: &Patch<T>) -> u8 {
    match patch {
        Patch::Unchanged => 0,
        Patch::Clear => 1,
        Patch::Set(_) => 2,
    }
}
