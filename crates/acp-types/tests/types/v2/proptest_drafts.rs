//! Generated v2 draft values round-trip (every draft feature on): subagent upserts with their
//! patch fields in any of the three states and any state of the child (the draft `unknown`
//! state, an idle one with its token usage), session messages between sessions, and the plan
//! operations; and a subagent upsert document with each patch field omitted, `null` or set
//! decodes into exactly those states and encodes back to the same JSON.

use acp_types::v2::{
    BackgroundSubagent, BackgroundWork, ContentBlock, IdleStateUpdate, PlanMarkdown, PlanRemoved,
    PlanUpdate, PlanUpdateContent, RunningStateUpdate, SessionMessage, SessionMessageChunk,
    SessionUpdate, StateUpdate, StopReason, SubagentUpdate, UnknownStateUpdate, Usage,
};
use proptest::prelude::*;
use proptest::{collection::vec, option};
use serde_json::{Map, Value, json};

use super::proptest_roundtrip::{meta, open_enum, patch, round_trip, state_of, text};

fn id() -> impl Strategy<Value = String> {
    "[a-z0-9_-]{1,8}"
}

fn usage() -> impl Strategy<Value = Usage> {
    (any::<u32>(), any::<u32>(), option::of(any::<u32>())).prop_map(|(input, output, thought)| {
        let mut usage = Usage::new(
            u64::from(input) + u64::from(output),
            u64::from(input),
            u64::from(output),
        );
        usage.thought_tokens = thought.map(u64::from);
        usage
    })
}

fn child_state() -> impl Strategy<Value = StateUpdate> {
    prop_oneof![
        Just(StateUpdate::Running(RunningStateUpdate::new())),
        (
            option::of(open_enum::<StopReason>(StopReason::VALUES)),
            option::of(usage()),
            option::of(vec(id(), 0..3)),
        )
            .prop_map(|(reason, usage, children)| {
                let mut idle = IdleStateUpdate::new();
                idle.stop_reason = reason;
                idle.usage = usage.map(Box::new);
                idle.background = children.map(|ids| {
                    ids.iter()
                        .map(|id| BackgroundWork::from(BackgroundSubagent::new(id.as_str())))
                        .collect()
                });
                StateUpdate::Idle(idle)
            }),
        Just(StateUpdate::UnknownState(UnknownStateUpdate::new())),
    ]
}

fn subagent_update() -> impl Strategy<Value = SubagentUpdate> {
    (
        id(),
        patch(text()),
        patch(text()),
        patch(child_state()),
        patch("/[a-z]{1,6}"),
        patch(meta()),
    )
        .prop_map(|(session, title, description, state, cwd, meta)| {
            let mut update = SubagentUpdate::new(session.as_str());
            update.title = title;
            update.description = description;
            update.state = state;
            update.cwd = cwd.map(|cwd| cwd.as_str().into());
            update.meta = meta;
            update
        })
}

fn session_message() -> impl Strategy<Value = SessionMessage> {
    (
        id(),
        patch(id()),
        patch(id()),
        patch(vec(text().prop_map(ContentBlock::from), 0..3)),
        patch(meta()),
    )
        .prop_map(|(message, sender, recipient, content, meta)| {
            let mut update = SessionMessage::new(message.as_str());
            update.sender_session_id = sender.map(|s| s.as_str().into());
            update.recipient_session_id = recipient.map(|s| s.as_str().into());
            update.content = content;
            update.meta = meta;
            update
        })
}

fn draft_update() -> impl Strategy<Value = SessionUpdate> {
    prop_oneof![
        subagent_update().prop_map(SessionUpdate::from),
        session_message().prop_map(SessionUpdate::from),
        (id(), text()).prop_map(|(message, chunk)| SessionUpdate::SessionMessageChunk(
            SessionMessageChunk::new(message.as_str(), ContentBlock::from(chunk))
        )),
        id().prop_map(|plan| SessionUpdate::PlanRemoved(PlanRemoved::new(plan.as_str()))),
        (id(), text()).prop_map(
            |(plan, markdown)| SessionUpdate::PlanUpdate(PlanUpdate::new(
                PlanUpdateContent::Markdown(PlanMarkdown::new(plan.as_str(), markdown))
            ))
        ),
        child_state().prop_map(SessionUpdate::StateUpdate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn v2_draft_updates_round_trip(update in draft_update()) {
        round_trip(&update)?;
    }

    #[test]
    fn each_patch_field_of_a_subagent_update_keeps_its_state(states in vec(0u8..3, 6)) {
        // 0: omitted, 1: null, 2: a value.
        let fields: [(&str, Value); 6] = [
            ("title", json!("Research")),
            ("description", json!("Reads the docs")),
            ("state", json!({"state": "idle", "stopReason": "end_turn",
                "usage": {"totalTokens": 3, "inputTokens": 2, "outputTokens": 1}})),
            ("cwd", json!("/work")),
            ("additionalDirectories", json!(["/a", "/b"])),
            ("_meta", json!({"k": [1, null]})),
        ];
        let mut doc = Map::new();
        doc.insert("sessionId".into(), json!("child-1"));
        for ((name, value), state) in fields.iter().zip(&states) {
            match state {
                0 => {}
                1 => { doc.insert((*name).into(), Value::Null); }
                _ => { doc.insert((*name).into(), value.clone()); }
            }
        }
        let doc = Value::Object(doc);
        let update: SubagentUpdate = acp_types::from_value(doc.clone())
            .map_err(|e| TestCaseError::fail(format!("{doc}: {e}")))?;
        let seen = [
            state_of(&update.title), state_of(&update.description), state_of(&update.state),
            state_of(&update.cwd), state_of(&update.additional_directories),
            state_of(&update.meta),
        ];
        prop_assert_eq!(seen.to_vec(), states);
        prop_assert_eq!(serde_json::to_value(&update).expect("encodes"), doc);
    }
}
