//! Subagents (`unstable_subagents`): child sessions an agent runs for a parent session,
//! announced and described by `subagent_update`, with their work state and the messages the
//! sessions send each other (`session_message`, `session_message_chunk`).
//!
//! Only sent to clients that advertise `subagents`.

use serde_json::{Map, Value, json};

use crate::prelude::*;

wire_object! {
    /// The client understands subagent sessions (advertised in `subagents`): child
    /// associations, work-state snapshots, session-directed messages and restricted-session
    /// rules.
    #[optional_fields(new)]
    pub struct SubagentCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The session mutations a client may start on one subagent session. A mutation needs its
    /// own per-child capability: support for the method on ordinary sessions does not count.
    #[optional_fields(new)]
    pub struct SubagentSessionCapabilities {
        /// The client may cancel the child's current work without ending the session.
        opt cancel: SessionCancelCapabilities = "cancel" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Cancelling a subagent session's work without ending the session is supported.
    #[optional_fields(new)]
    pub struct SessionCancelCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

tagged_union! {
    /// The foreground-work state of a child session: a whole snapshot each time. Idle does
    /// not end the child; the parent can message it again.
    pub enum StateUpdate {
        tag = "state",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Other,
        variants {
            /// The child is working.
            Running(RunningStateUpdate) = "running",
            /// The child is ready for another prompt.
            Idle(IdleStateUpdate) = "idle",
            /// The child waits for something only the user can give.
            RequiresAction(RequiresActionStateUpdate) = "requires_action",
            /// The agent cannot tell the child's state.
            Unknown(UnknownStateUpdate) = "unknown",
        }
    }
}

wire_object! {
    /// The child is working (`"state": "running"`).
    #[optional_fields(new)]
    pub struct RunningStateUpdate {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The child waits for an action (`"state": "requires_action"`).
    #[optional_fields(new)]
    pub struct RequiresActionStateUpdate {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The child's state is not known (`"state": "unknown"`).
    #[optional_fields(new)]
    pub struct UnknownStateUpdate {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The child is ready to process another prompt (`"state": "idle"`).
    ///
    /// An absent, `null` or malformed `stopReason` means the agent does not report one; the
    /// `error` stop reason may carry the failure (see [`ErrorStopReason`]).
    #[schema_extend(idle_schema)]
    #[optional_fields(new)]
    pub struct IdleStateUpdate {
        /// Why the foreground work stopped; unknown values are kept.
        opt stop_reason: StopReason = "stopReason" [DOE | NULLABLE];
        /// The failure, with the stop reason `error` only (a field of [`ErrorStopReason`]).
        opt error: Error = "error" [DOE | NULLABLE];
        /// The tokens the completed work used.
        opt usage: Usage = "usage" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// The stop reasons of an idle child the schema names (`error` adds [`ErrorStopReason`]'s
/// fields).
const IDLE_STOP_REASONS: &[&str] = &[
    "end_turn",
    "max_tokens",
    "max_turn_requests",
    "refusal",
    "cancelled",
    "error",
];

/// The schema of [`IdleStateUpdate`]: `stopReason` selects a branch, `error` belongs to the
/// `error` branch (an [`ErrorStopReason`]), any other string is kept, and no stop reason is
/// allowed.
fn idle_schema(object: &mut Map<String, Value>) {
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.remove("error");
    }
    let branch = |reason: &str| {
        json!({
            "type": "object",
            "properties": { "stopReason": { "type": "string", "const": reason } },
            "required": ["stopReason"],
        })
    };
    let mut branches: Vec<Value> = IDLE_STOP_REASONS
        .iter()
        .map(|reason| {
            let mut b = branch(reason);
            if *reason == "error" {
                b["allOf"] = json!([{ "$ref": "#/$defs/ErrorStopReason" }]);
            }
            b
        })
        .collect();
    branches.push(json!({
        "type": "object",
        "description": "Any other stop reason, with any fields.",
        "properties": { "stopReason": { "type": "string" } },
        "required": ["stopReason"],
        "not": { "anyOf": IDLE_STOP_REASONS.iter().map(|r| branch(r)).collect::<Vec<_>>() },
        "additionalProperties": true,
    }));
    branches.push(json!({
        "type": "object",
        "description": "No stop reason reported.",
        "properties": { "stopReason": { "type": "null" } },
    }));
    object.insert("anyOf".into(), branches.into());
}

wire_object! {
    /// Details of a failure that ended a child's foreground work: the fields the stop reason
    /// `error` adds to an [`IdleStateUpdate`].
    #[optional_fields(new)]
    pub struct ErrorStopReason {
        /// The failure, as a JSON-RPC error object.
        opt error: Error = "error" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The parent session created or describes a child session (`"sessionUpdate":
    /// "subagent_update"`, sent on the parent).
    ///
    /// Optional fields work as a patch: absent keeps the value the client knows, `null`
    /// clears it. The first update for a child comes before any of its traffic.
    #[new(session_id: impl Into<SessionId>)]
    pub struct SubagentUpdate {
        /// The child session.
        req session_id: SessionId = "sessionId";
        /// The parent's display title for the child.
        opt title: String = "title" [DOE | NULLABLE];
        /// The parent's description of the child's role.
        opt description: String = "description" [DOE | NULLABLE];
        /// The session mutations the client may start on the child (a whole set).
        opt capabilities: SubagentSessionCapabilities = "capabilities" [DOE | NULLABLE];
        /// The child's work state (a whole snapshot).
        opt state: StateUpdate = "state" [DOE | NULLABLE];
        /// The child's working directory (an absolute path); while unset, the parent's.
        opt cwd: String as path = "cwd" [NULLABLE];
        /// The child's additional workspace roots (absolute paths); while unset, the parent's.
        opt additional_directories: Vec<String> as paths = "additionalDirectories" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A message between sessions, created or updated (`"sessionUpdate": "session_message"`).
    ///
    /// Optional fields work as a patch: absent keeps the stored value, `null` clears it.
    #[new(message_id: impl Into<MessageId>)]
    pub struct SessionMessage {
        /// The message in the enclosing session's transcript.
        req message_id: MessageId = "messageId";
        /// The sending session.
        opt sender_session_id: SessionId = "senderSessionId" [DOE | NULLABLE];
        /// The receiving session.
        opt recipient_session_id: SessionId = "recipientSessionId" [DOE | NULLABLE];
        /// On an incoming view, the id of the same message in the sender's transcript.
        opt sender_message_id: MessageId = "senderMessageId" [DOE | NULLABLE];
        /// On an outgoing view, the id of the same message in the recipient's transcript.
        opt recipient_message_id: MessageId = "recipientMessageId" [DOE | NULLABLE];
        /// The whole content (`null` or empty clears it).
        opt content: Vec<ContentBlock> = "content" [DOE | SKIP | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A streamed content block of a message between sessions
    /// (`"sessionUpdate": "session_message_chunk"`).
    #[new(message_id: impl Into<MessageId>, content: impl Into<ContentBlock>)]
    pub struct SessionMessageChunk {
        /// The message it belongs to.
        req message_id: MessageId = "messageId";
        /// The block appended to the message.
        req content: ContentBlock = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
