//! Session updates: `session/update` and what it carries.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;
use super::shape::keywords;

wire_object! {
    /// An update about a session, sent by the agent (`session/update`).
    #[new(session_id: impl Into<SessionId>, update: impl Into<SessionUpdate>)]
    pub struct UpdateSessionNotification {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// What changed.
        req update: SessionUpdate = "update";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

tagged_union! {
    /// What changed in a session: message upserts and chunks, state, tool calls, terminals,
    /// plans and more.
    pub enum SessionUpdate {
        tag = "sessionUpdate",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        variants {
            /// A chunk of the user's message (when replaying a session).
            UserMessageChunk(ContentChunk) = "user_message_chunk",
            /// A whole user message, upserted by its `messageId`; after `session/prompt`, the
            /// acknowledgement that places the prompt in the session history.
            UserMessage(UserMessage) = "user_message",
            /// A chunk of the agent's reply.
            AgentMessageChunk(ContentChunk) = "agent_message_chunk",
            /// A whole agent message, upserted by its `messageId`: replaces the content stored
            /// for the message (see [`Patch`]).
            AgentMessage(AgentMessage) = "agent_message",
            /// A chunk of the agent's reasoning.
            AgentThoughtChunk(ContentChunk) = "agent_thought_chunk",
            /// A whole agent thought, upserted by its `messageId`: replaces the content stored
            /// for the thought (see [`Patch`]).
            AgentThought(AgentThought) = "agent_thought",
            /// The state of the session's foreground work, told apart by its `state`.
            StateUpdate(StateUpdate) = "state_update",
            /// One content item appended to a tool call's content.
            ToolCallContentChunk(ToolCallContentChunk) = "tool_call_content_chunk" as boxed,
            /// A change to an existing tool call.
            ToolCallUpdate(ToolCallUpdate) = "tool_call_update" as boxed,
            /// An upsert of an agent-owned display terminal, by its `terminalId` (see
            /// [`Patch`]).
            TerminalUpdate(TerminalUpdate) = "terminal_update" as boxed,
            /// Output bytes (base64, decoded on their own) appended to a display terminal; a
            /// chunk may split UTF-8 code points and escape sequences.
            TerminalOutputChunk(TerminalOutputChunk) = "terminal_output_chunk",
            /// A plan was created or replaced, by id (draft).
            PlanUpdate(PlanUpdate) = "plan_update",
            /// A plan was removed (draft).
            #[cfg(feature = "unstable")]
            PlanRemoved(PlanRemoved) = "plan_removed",
            /// The slash commands changed.
            AvailableCommandsUpdate(AvailableCommandsUpdate) = "available_commands_update",
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
            /// A child session was created or changed (draft).
            #[cfg(feature = "unstable_subagents")]
            SubagentUpdate(SubagentUpdate) = "subagent_update" as boxed,
            /// A message between sessions was created or updated (draft).
            #[cfg(feature = "unstable_subagents")]
            SessionMessage(SessionMessage) = "session_message" as boxed,
            /// A streamed block of a message between sessions (draft).
            #[cfg(feature = "unstable_subagents")]
            SessionMessageChunk(SessionMessageChunk) = "session_message_chunk",
        }
    }
}

wire_object! {
    /// The session's title or last-update time changed.
    #[schema_extend(schema_session_info_update)]
    #[optional_fields(new)]
    pub struct SessionInfoUpdate {
        /// The session's title; `Clear` removes it.
        patch title: String = "title" [DOE];
        /// The time of the last activity (RFC 3339); `Clear` removes it.
        patch updated_at: String = "updatedAt" [DOE];
        /// Extension data, opaque to the protocol.
        patch meta: Meta = "_meta" [DOE];
    }
}

/// Adds to the schema of a [`SessionInfoUpdate`] what the types of its fields do not say.
fn schema_session_info_update(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"updatedAt": {"format": "date-time"}}),
    );
}

string_enum! {
    /// How prominent a notice is. An open set: other values are kept as they are.
    pub enum NoticeSeverity {
        /// For information.
        Info = "info",
        /// Something the user should know.
        Warning = "warning",
        /// Something went wrong.
        Error = "error",
    }
    Unknown, open_schema = true
}

wire_object! {
    /// A fire-and-forget notice for the user (`"sessionUpdate": "notice"`). Not session
    /// history: not replayed by `session/load`, and clients may ignore it. Only sent to clients
    /// that advertise `session.notices`.
    #[new(severity: impl Into<NoticeSeverity>, title: impl Into<String>)]
    pub struct Notice {
        /// How prominent the notice is.
        req severity: NoticeSeverity = "severity";
        /// A plain-text title that stands alone. Never empty.
        req title: String = "title" [NON_EMPTY];
        /// Plain-text detail or guidance.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// Where a compaction stands. An open set: other values are kept as they are.
    pub enum CompactionStatus {
        /// The compaction is running.
        InProgress = "in_progress",
        /// The compaction finished.
        Completed = "completed",
        /// The compaction failed.
        Failed = "failed",
        /// The compaction was cancelled.
        Cancelled = "cancelled",
    }
    Unknown, open_schema = true
}

wire_object! {
    /// A compaction started or changed state (`"sessionUpdate": "compaction_update"`). Optional
    /// fields work as a patch: an absent or `null` field leaves the value the client knows
    /// unchanged. Only sent to clients that advertise `session.compaction`.
    #[new(compaction_id: impl Into<CompactionId>, status: impl Into<CompactionStatus>)]
    pub struct CompactionUpdate {
        /// The compaction this concerns.
        req compaction_id: CompactionId = "compactionId";
        /// Its status now.
        req status: CompactionStatus = "status";
        /// The whole summary, replacing what was stored.
        patch summary: Vec<ContentBlock> = "summary" [DOE | SKIP];
        /// What went wrong, for display.
        patch error: String = "error" [DOE];
        /// Extension data, opaque to the protocol.
        patch meta: Meta = "_meta" [DOE];
    }
}

wire_object! {
    /// A streamed piece of a compaction's summary (`"sessionUpdate":
    /// "compaction_summary_chunk"`).
    #[new(compaction_id: impl Into<CompactionId>, content: impl Into<ContentBlock>)]
    pub struct CompactionSummaryChunk {
        /// The compaction this belongs to.
        req compaction_id: CompactionId = "compactionId";
        /// The piece of the summary.
        req content: ContentBlock = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
