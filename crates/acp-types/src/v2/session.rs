//! Sessions: creating, resuming with replay, listing, prompting, cancelling.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::check::min_items;
use super::prelude::*;
use super::shape::keywords;

wire_object! {
    /// The agent's answer to `session/new`: the new session and its modes and options.
    #[new(session_id: impl Into<SessionId>)]
    pub struct NewSessionResponse {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The session's configuration options.
        opt config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP];
        /// The slash commands available from the start.
        opt available_commands: Vec<AvailableCommand> = "availableCommands" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/list`: one page of sessions.
    #[new(sessions: impl Into<Vec<SessionInfo>>)]
    pub struct ListSessionsResponse {
        /// The sessions of this page.
        req sessions: Vec<SessionInfo> = "sessions" [DOE | SKIP];
        /// Where the next page starts; absent on the last page.
        opt next_cursor: SessionListCursor = "nextCursor" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A summary of a session, as listed by `session/list`.
    #[schema_extend(schema_session_info)]
    #[new(session_id: impl Into<SessionId>, cwd: impl Into<AbsolutePath>)]
    pub struct SessionInfo {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The session's working directory.
        req cwd: AbsolutePath = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<AbsolutePath> = "additionalDirectories" [NULL_DEFAULT];
        /// The session's title.
        opt title: String = "title" [DOE | NULLABLE];
        /// When the session was last updated (an ISO 8601 timestamp).
        opt updated_at: String = "updatedAt" [DOE | NULLABLE];
        /// Whether the session is archived (draft; agents advertising
        /// `sessionCapabilities.archive` report it on every listed session).
        #[cfg(feature = "unstable_session_archive")]
        opt archived: bool = "archived" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`SessionInfo`] what the types of its fields do not say.
fn schema_session_info(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"updatedAt": {"format": "date-time"}}),
    );
}

wire_object! {
    /// The agent's answer to `session/resume`.
    #[optional_fields(new)]
    pub struct ResumeSessionResponse {
        /// The session's configuration options.
        opt config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP];
        /// The slash commands available now.
        opt available_commands: Vec<AvailableCommand> = "availableCommands" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent accepted a prompt: the acknowledgement, not the end of the turn (see
    /// [`StateUpdate`]).
    #[new(message_id: impl Into<MessageId>)]
    pub struct PromptResponse {
        /// The id of the user message this prompt became, as the `user_message` acknowledgement
        /// names it.
        req message_id: MessageId = "messageId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent to start a new session (`session/new`).
    #[new(cwd: impl Into<AbsolutePath>)]
    pub struct NewSessionRequest {
        /// The working directory (an absolute path).
        req cwd: AbsolutePath = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<AbsolutePath> = "additionalDirectories" [NULL_DEFAULT];
        /// The MCP servers the agent should connect to.
        opt mcp_servers: Vec<McpServer> = "mcpServers" [NULL_DEFAULT];
        /// Client-provided system instructions for the session (draft; only when the agent
        /// advertises `sessionCapabilities.systemPrompt`).
        #[cfg(feature = "unstable_session_options")]
        opt system_prompt: SystemPrompt = "systemPrompt" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent for its sessions, a page at a time (`session/list`).
    #[optional_fields(new)]
    pub struct ListSessionsRequest {
        /// Only list sessions with this working directory.
        opt cwd: AbsolutePath = "cwd" [NULLABLE];
        /// Where to continue listing, from a previous `nextCursor`.
        opt cursor: SessionListCursor = "cursor" [NULLABLE];
        /// Which sessions to list by archive state; absent means `exclude` (draft; only when
        /// the agent advertises `sessionCapabilities.archive`).
        #[cfg(feature = "unstable_session_archive")]
        opt archived: SessionArchiveFilter = "archived" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Reattaches to a session (`session/resume`), replaying its history when `replayFrom` asks
    /// for it.
    #[new(session_id: impl Into<SessionId>, cwd: impl Into<AbsolutePath>)]
    pub struct ResumeSessionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The working directory (an absolute path).
        req cwd: AbsolutePath = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<AbsolutePath> = "additionalDirectories" [NULL_DEFAULT];
        /// The MCP servers the agent should connect to.
        opt mcp_servers: Vec<McpServer> = "mcpServers" [NULL_DEFAULT];
        /// Where to start replaying the history; absent or `null` resumes without replay.
        opt replay_from: ReplayFrom = "replayFrom" [NULLABLE];
        /// Client-provided system instructions for the session (draft; only when the agent
        /// advertises `sessionCapabilities.systemPrompt`).
        #[cfg(feature = "unstable_session_options")]
        opt system_prompt: SystemPrompt = "systemPrompt" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

tagged_union! {
    /// Where the replay of a resumed session starts.
    pub enum ReplayFrom {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        variants {
            /// Replay the whole conversation.
            Start(ReplayFromStart) = "start",
        }
    }
}

wire_object! {
    /// Replay the whole conversation.
    #[optional_fields(new)]
    pub struct ReplayFromStart {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Sends the user's prompt to the agent and starts a turn (`session/prompt`).
    #[schema_extend(schema_prompt_request)]
    #[check(check_prompt_request)]
    #[new(session_id: impl Into<SessionId>, prompt: impl Into<Vec<ContentBlock>>)]
    pub struct PromptRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The user's message.
        req prompt: Vec<ContentBlock> = "prompt";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`PromptRequest`] what the types of its fields do not say.
fn schema_prompt_request(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"prompt": {"minItems": 1}}));
}

/// Checks the bounds the schema sets on the members of a [`PromptRequest`].
fn check_prompt_request(value: &PromptRequest) -> Result<(), String> {
    min_items("prompt", &value.prompt, 1)?;
    Ok(())
}

wire_object! {
    /// Asks the agent to stop the session's foreground work (`session/cancel`); the idle
    /// `state_update` with the `cancelled` stop reason confirms it.
    #[new(session_id: impl Into<SessionId>)]
    pub struct CancelSessionNotification {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Cancels one JSON-RPC request that is still running (`$/cancel_request`).
    #[new(request_id: impl Into<RequestId>)]
    pub struct CancelRequestNotification {
        /// The id of the request to cancel.
        req request_id: RequestId = "requestId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
