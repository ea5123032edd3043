//! Session updates the agent streams to the client.

#![allow(unused_imports)]

use std::collections::BTreeMap;

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::{id_type, string_enum, tagged_union};
use crate::*;

wire_object! {
    /// A progress update about a session, sent by the agent (`session/update`).
    pub struct SessionNotification {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// What changed.
        req update: SessionUpdate = "update";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl SessionNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, update: impl Into<SessionUpdate>) -> Self {
        Self {
            session_id: session_id.into(),
            update: update.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

tagged_union! {
    /// What changed in a session: message chunks, tool calls, plans, modes and more.
    pub enum SessionUpdate {
        tag = "sessionUpdate",
        combinator = "oneOf",
        discriminator = true,
        open = false,
        unknown = Unknown,
        variants {
            /// A chunk of the user's message (when replaying a session).
            UserMessageChunk(ContentChunk) = "user_message_chunk",
            /// A chunk of the agent's reply.
            AgentMessageChunk(ContentChunk) = "agent_message_chunk",
            /// A chunk of the agent's reasoning.
            AgentThoughtChunk(ContentChunk) = "agent_thought_chunk",
            /// A new tool call.
            ToolCall(ToolCall) = "tool_call" as boxed,
            /// A change to an existing tool call.
            ToolCallUpdate(ToolCallUpdate) = "tool_call_update" as boxed,
            /// The agent's plan, replacing any previous one.
            Plan(Plan) = "plan",
            /// The slash commands changed.
            AvailableCommandsUpdate(AvailableCommandsUpdate) = "available_commands_update",
            /// The current mode changed.
            CurrentModeUpdate(CurrentModeUpdate) = "current_mode_update",
            /// The configuration options changed.
            ConfigOptionUpdate(ConfigOptionUpdate) = "config_option_update",
            /// The session's title or timestamp changed.
            SessionInfoUpdate(SessionInfoUpdate) = "session_info_update",
            /// Context window usage and cost.
            UsageUpdate(UsageUpdate) = "usage_update",
            /// A plan was created or replaced, by id (draft).
            #[cfg(feature = "unstable_plan_operations")]
            PlanUpdate(PlanUpdate) = "plan_update",
            /// A plan was removed (draft).
            #[cfg(feature = "unstable_plan_operations")]
            PlanRemoved(PlanRemoved) = "plan_removed",
            /// A compaction started or changed state (draft).
            #[cfg(feature = "unstable_session_compaction")]
            CompactionUpdate(CompactionUpdate) = "compaction_update",
            /// A piece of a compaction's summary (draft).
            #[cfg(feature = "unstable_session_compaction")]
            CompactionSummaryChunk(CompactionSummaryChunk) = "compaction_summary_chunk",
            /// An advisory notice for the user (draft).
            #[cfg(feature = "unstable_session_notices")]
            Notice(Notice) = "notice",
        }
    }
}

id_type! {
    /// Identifies a message, so that chunks of one message can be grouped.
    pub struct MessageId;
}

wire_object! {
    /// A piece of a streamed message.
    pub struct ContentChunk {
        /// The content of this chunk.
        req content: ContentBlock = "content";
        /// The message this chunk belongs to.
        opt message_id: MessageId = "messageId" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl ContentChunk {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(content: impl Into<ContentBlock>) -> Self {
        Self {
            content: content.into(),
            message_id: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The agent's plan for the turn; each update replaces the whole plan.
    pub struct Plan {
        /// The tasks of the plan.
        req entries: Vec<PlanEntry> = "entries" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl Plan {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(entries: impl Into<Vec<PlanEntry>>) -> Self {
        Self {
            entries: entries.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// One task of the agent's plan.
    pub struct PlanEntry {
        /// What the task is.
        req content: String = "content";
        /// How important the task is.
        req priority: PlanEntryPriority = "priority";
        /// How far along the task is.
        req status: PlanEntryStatus = "status";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl PlanEntry {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        content: impl Into<String>,
        priority: impl Into<PlanEntryPriority>,
        status: impl Into<PlanEntryStatus>,
    ) -> Self {
        Self {
            content: content.into(),
            priority: priority.into(),
            status: status.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

string_enum! {
    /// How important a plan entry is.
    pub enum PlanEntryPriority {
        /// High priority.
        High = "high",
        /// Medium priority.
        Medium = "medium",
        /// Low priority.
        Low = "low",
    }
    Unknown, open_schema = false
}

string_enum! {
    /// How far along a plan entry is.
    pub enum PlanEntryStatus {
        /// Not started yet.
        Pending = "pending",
        /// Running.
        InProgress = "in_progress",
        /// Finished successfully.
        Completed = "completed",
    }
    Unknown, open_schema = false
}

wire_object! {
    /// A slash command the user can invoke.
    pub struct AvailableCommand {
        /// The command's name, as typed after the slash.
        req name: String = "name";
        /// A human-readable description.
        req description: String = "description";
        /// What input the command takes.
        opt input: AvailableCommandInput = "input" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl AvailableCommand {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// Free text input for a slash command, with a hint to show.
    pub struct UnstructuredCommandInput {
        /// A hint shown while the user types the input.
        req hint: String = "hint";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl UnstructuredCommandInput {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(hint: impl Into<String>) -> Self {
        Self {
            hint: hint.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The set of slash commands changed.
    pub struct AvailableCommandsUpdate {
        /// The commands now available.
        req available_commands: Vec<AvailableCommand> = "availableCommands" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl AvailableCommandsUpdate {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(available_commands: impl Into<Vec<AvailableCommand>>) -> Self {
        Self {
            available_commands: available_commands.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The session switched to another mode.
    pub struct CurrentModeUpdate {
        /// The mode currently active.
        req current_mode_id: SessionModeId = "currentModeId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl CurrentModeUpdate {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(current_mode_id: impl Into<SessionModeId>) -> Self {
        Self {
            current_mode_id: current_mode_id.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The session's configuration options changed.
    pub struct ConfigOptionUpdate {
        /// The session's configuration options.
        req config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl ConfigOptionUpdate {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(config_options: impl Into<Vec<SessionConfigOption>>) -> Self {
        Self {
            config_options: config_options.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The session's title or last-update time changed.
    #[optional_fields(new)]
    pub struct SessionInfoUpdate {
        /// The session's new title.
        opt title: String = "title" [DOE | NULLABLE];
        /// When the session was last updated (an ISO 8601 timestamp).
        opt updated_at: String = "updatedAt" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An amount of money spent.
    pub struct Cost {
        /// The amount.
        req amount: f64 = "amount";
        /// The ISO 4217 currency code.
        req currency: String = "currency";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl Cost {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(amount: impl IntoField<f64>, currency: impl Into<String>) -> Self {
        Self {
            amount: amount.into_field(),
            currency: currency.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// How much of the model's context window is in use, and what it cost.
    pub struct UsageUpdate {
        /// Tokens of the context window in use.
        req used: u64 = "used";
        /// The size of the context window, in tokens.
        req size: u64 = "size";
        /// What the session has cost so far.
        opt cost: Cost = "cost" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl UsageUpdate {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(used: impl IntoField<u64>, size: impl IntoField<u64>) -> Self {
        Self {
            used: used.into_field(),
            size: size.into_field(),
            cost: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

/// What input a slash command takes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AvailableCommandInput {
    /// Free text, with a hint to show while the user types it.
    Unstructured(UnstructuredCommandInput),
}

impl From<UnstructuredCommandInput> for AvailableCommandInput {
    fn from(value: UnstructuredCommandInput) -> Self {
        Self::Unstructured(value)
    }
}

impl serde::Serialize for AvailableCommandInput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Unstructured(v) => v.serialize(serializer),
        }
    }
}

impl<'de> serde::Deserialize<'de> for AvailableCommandInput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        UnstructuredCommandInput::deserialize(deserializer).map(Self::Unstructured)
    }
}

crate::wire::lenient_no_default!(AvailableCommandInput);

impl schemars::JsonSchema for AvailableCommandInput {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AvailableCommandInput".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let unstructured = generator.subschema_for::<UnstructuredCommandInput>();
        schemars::json_schema!({
            "description": "What input a slash command takes.",
            "anyOf": [{ "description": "Free text input.", "allOf": [unstructured] }],
        })
    }
}
