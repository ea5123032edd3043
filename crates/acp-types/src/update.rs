//! Session updates the agent streams to the client.

use crate::prelude::*;

wire_object! {
    /// A progress update about a session, sent by the agent (`session/update`).
    #[new(session_id: impl Into<SessionId>, update: impl Into<SessionUpdate>)]
    pub struct SessionNotification {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// What changed.
        req update: SessionUpdate = "update";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
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
            /// An advisory notice for the user, not part of the session's history.
            Notice(Notice) = "notice",
            /// A compaction started or changed state.
            CompactionUpdate(CompactionUpdate) = "compaction_update",
            /// A piece of a compaction's summary.
            CompactionSummaryChunk(CompactionSummaryChunk) = "compaction_summary_chunk",
            /// A plan was created or replaced, by id (draft).
            #[cfg(feature = "unstable")]
            PlanUpdate(PlanUpdate) = "plan_update",
            /// A plan was removed (draft).
            #[cfg(feature = "unstable")]
            PlanRemoved(PlanRemoved) = "plan_removed",
            /// A child session was created or changed (draft).
            #[cfg(feature = "unstable_subagents")]
            SubagentUpdate(SubagentUpdate) = "subagent_update",
            /// A message between sessions was created or updated (draft).
            #[cfg(feature = "unstable_subagents")]
            SessionMessage(SessionMessage) = "session_message",
            /// A streamed block of a message between sessions (draft).
            #[cfg(feature = "unstable_subagents")]
            SessionMessageChunk(SessionMessageChunk) = "session_message_chunk",
        }
    }
}

id_type! {
    /// Identifies a message, so that chunks of one message can be grouped.
    pub struct MessageId;
}

wire_object! {
    /// A piece of a streamed message.
    #[new(content: impl Into<ContentBlock>)]
    pub struct ContentChunk {
        /// The content of this chunk.
        req content: ContentBlock = "content";
        /// The message this chunk belongs to.
        opt message_id: MessageId = "messageId" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A slash command the user can invoke.
    #[new(name: impl Into<String>, description: impl Into<String>)]
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

wire_object! {
    /// Free text input for a slash command, with a hint to show.
    #[new(hint: impl Into<String>)]
    pub struct UnstructuredCommandInput {
        /// A hint shown while the user types the input.
        req hint: String = "hint";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The set of slash commands changed.
    #[new(available_commands: impl Into<Vec<AvailableCommand>>)]
    pub struct AvailableCommandsUpdate {
        /// The commands now available.
        req available_commands: Vec<AvailableCommand> = "availableCommands" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The session switched to another mode.
    #[new(current_mode_id: impl Into<SessionModeId>)]
    pub struct CurrentModeUpdate {
        /// The mode currently active.
        req current_mode_id: SessionModeId = "currentModeId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The session's configuration options changed.
    #[new(config_options: impl Into<Vec<SessionConfigOption>>)]
    pub struct ConfigOptionUpdate {
        /// The session's configuration options.
        req config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
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
    #[new(amount: impl IntoField<f64>, currency: impl Into<String>)]
    pub struct Cost {
        /// The amount.
        req amount: f64 = "amount";
        /// The ISO 4217 currency code.
        req currency: String = "currency";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// How much of the model's context window is in use, and what it cost.
    #[new(used: impl IntoField<u64>, size: impl IntoField<u64>)]
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

/// What input a slash command takes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AvailableCommandInput {
    /// Free text, with a hint to show while the user types it.
    Unstructured(UnstructuredCommandInput),
}

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for AvailableCommandInput {}

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
