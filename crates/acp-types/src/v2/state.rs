//! The state of a session's foreground work: `state_update` and the prompt lifecycle.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;
use super::shape::{only_properties, replace_property, set_required};

tagged_union! {
    /// The state of the session's foreground work, told apart by its `state`.
    pub enum StateUpdate {
        tag = "state",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        nested = true,
        unknown = Unknown,
        variants {
            /// Foreground work started or resumed.
            Running(RunningStateUpdate) = "running",
            /// The agent is ready for a new prompt; with a stop reason when this ends
            /// foreground work.
            Idle(IdleStateUpdate) = "idle",
            /// Foreground work waits for the user (for example on a permission request).
            RequiresAction(RequiresActionStateUpdate) = "requires_action",
            /// The agent cannot tell the child's state.
            #[cfg(feature = "unstable_subagents")]
            UnknownState(UnknownStateUpdate) = "unknown",
        }
    }
}

tagged_union! {
    /// Work that runs independently of the foreground turn, reported with an idle state.
    pub enum BackgroundWork {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        variants {
            /// A display terminal that keeps running in the background.
            Terminal(BackgroundTerminal) = "terminal",
            /// A tool call that keeps running in the background.
            ToolCall(BackgroundToolCall) = "tool_call",
            /// The `BackgroundSubagent` of ACP v2.
            #[cfg(feature = "unstable_subagents")]
            Subagent(BackgroundSubagent) = "subagent",
        }
    }
}

wire_object! {
    /// A display terminal that keeps running in the background.
    #[new(terminal_id: impl Into<TerminalId>)]
    pub struct BackgroundTerminal {
        /// The display terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A tool call that keeps running in the background.
    #[new(tool_call_id: impl Into<ToolCallId>)]
    pub struct BackgroundToolCall {
        /// The tool call this concerns.
        req tool_call_id: ToolCallId = "toolCallId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Foreground work started or resumed.
    #[optional_fields(new)]
    pub struct RunningStateUpdate {
        /// The work running in the background, as a complete snapshot.
        opt background: Vec<BackgroundWork> = "background" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The fields of an idle state that ended foreground work with an error.
    #[optional_fields(new)]
    pub struct ErrorStopReason {
        /// The error that ended foreground work.
        opt error: Error = "error" [DOE | NULLABLE];
    }
}

string_enum! {
    /// Why foreground work stopped.
    pub enum StopReason {
        /// The model finished its turn.
        EndTurn = "end_turn",
        /// The token limit was reached.
        MaxTokens = "max_tokens",
        /// The limit of model requests in one turn was reached.
        MaxTurnRequests = "max_turn_requests",
        /// The agent refused to continue.
        Refusal = "refusal",
        /// The client cancelled the turn.
        Cancelled = "cancelled",
        /// Foreground work ended with an error.
        Error = "error",
    }
    Unknown, open_schema = true, inline = true
}
wire_object! {
    /// The agent is ready for a new prompt; with a stop reason when this ends foreground work.
    #[schema_extend(schema_idle_state_update)]
    #[check(check_idle_state_update)]
    #[optional_fields(new)]
    pub struct IdleStateUpdate {
        /// Why foreground work stopped, when this ends it.
        opt stop_reason: StopReason = "stopReason" [DOE | NULLABLE];
        /// The tokens the completed work used.
        #[cfg(feature = "unstable_end_turn_token_usage")]
        opt usage: Box<Usage> = "usage" [DOE | NULLABLE];
        /// The work still running in the background, as a complete snapshot.
        opt background: Vec<BackgroundWork> = "background" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
        /// The error that ended foreground work (stop reason `error`).
        opt error: Box<Error> = "error" [DOE | NULLABLE];
    }
}

/// Checks what the schema requires of a [`IdleStateUpdate`] beyond its fields: what its kind needs.
fn check_idle_state_update(value: &IdleStateUpdate) -> Result<(), String> {
    match value.stop_reason.as_ref() {
        Some(StopReason::EndTurn) => {}
        Some(StopReason::MaxTokens) => {}
        Some(StopReason::MaxTurnRequests) => {}
        Some(StopReason::Refusal) => {}
        Some(StopReason::Cancelled) => {}
        Some(StopReason::Error) => {}
        _ => {}
    }
    Ok(())
}

/// Gives the schema of a [`IdleStateUpdate`] the official shape: its common members, and its
/// kinds as references to their definitions.
fn schema_idle_state_update(object: &mut serde_json::Map<String, serde_json::Value>) {
    only_properties(object, &["usage", "background", "_meta", "stopReason"]);
    replace_property(
        object,
        "stopReason",
        serde_json::json!({"type": ["string", "null"], "x-deserialize-default-on-error": true}),
    );
    set_required(object, &[]);
    object.insert("anyOf".into(), serde_json::json!([{"type": "object", "properties": {"stopReason": {"type": "string", "const": "end_turn"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "max_tokens"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "max_turn_requests"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "refusal"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "cancelled"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "error"}}, "required": ["stopReason"], "allOf": [{"$ref": "#/$defs/ErrorStopReason"}]}, {"type": "object", "properties": {"stopReason": {"type": "string"}}, "required": ["stopReason"], "not": {"anyOf": [{"type": "object", "properties": {"stopReason": {"type": "string", "const": "end_turn"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "max_tokens"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "max_turn_requests"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "refusal"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "cancelled"}}, "required": ["stopReason"]}, {"type": "object", "properties": {"stopReason": {"type": "string", "const": "error"}}, "required": ["stopReason"]}]}, "additionalProperties": true}, {"type": "object", "properties": {"stopReason": {"type": "null"}}}]));
}

wire_object! {
    /// Foreground work waits for the user (for example on a permission request).
    #[optional_fields(new)]
    pub struct RequiresActionStateUpdate {
        /// The work running in the background, as a complete snapshot.
        opt background: Vec<BackgroundWork> = "background" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
