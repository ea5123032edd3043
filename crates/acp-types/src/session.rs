//! Session setup and management: new, load, list, resume, close, delete, cancel.

use crate::prelude::*;

wire_object! {
    /// Asks the agent to start a new session (`session/new`).
    #[new(cwd: impl AsRef<Path>, mcp_servers: impl Into<Vec<McpServer>>)]
    pub struct NewSessionRequest {
        /// The working directory (an absolute path).
        req cwd: String as path = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<String> as paths = "additionalDirectories" [NULL_DEFAULT];
        /// The MCP servers the agent should connect to.
        req mcp_servers: Vec<McpServer> = "mcpServers" [NULL_DEFAULT];
        /// Client-provided system instructions for the session (draft; only when the agent
        /// advertises `sessionCapabilities.systemPrompt`).
        #[cfg(feature = "unstable_session_options")]
        opt system_prompt: SystemPrompt = "systemPrompt" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/new`: the new session and its modes and options.
    #[new(session_id: impl Into<SessionId>)]
    pub struct NewSessionResponse {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The session's modes, if the agent has modes.
        opt modes: SessionModeState = "modes" [DOE | NULLABLE];
        /// The session's configuration options.
        opt config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent to load a previous session and replay its history (`session/load`).
    #[new(
        session_id: impl Into<SessionId>,
        cwd: impl AsRef<Path>,
        mcp_servers: impl Into<Vec<McpServer>>,
    )]
    pub struct LoadSessionRequest {
        /// The MCP servers the agent should connect to.
        req mcp_servers: Vec<McpServer> = "mcpServers" [NULL_DEFAULT];
        /// The working directory (an absolute path).
        req cwd: String as path = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<String> as paths = "additionalDirectories" [NULL_DEFAULT];
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Client-provided system instructions for the session (draft; only when the agent
        /// advertises `sessionCapabilities.systemPrompt`).
        #[cfg(feature = "unstable_session_options")]
        opt system_prompt: SystemPrompt = "systemPrompt" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/load`, after the history was replayed.
    #[optional_fields(new)]
    pub struct LoadSessionResponse {
        /// The session's modes, if the agent has modes.
        opt modes: SessionModeState = "modes" [DOE | NULLABLE];
        /// The session's configuration options.
        opt config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent for its sessions, a page at a time (`session/list`).
    #[optional_fields(new)]
    pub struct ListSessionsRequest {
        /// Only list sessions with this working directory.
        opt cwd: String as path = "cwd" [NULLABLE];
        /// Where to continue listing, from a previous `nextCursor`.
        opt cursor: String = "cursor" [NULLABLE];
        /// Which sessions to list by archive state; absent means `exclude` (draft; only when
        /// the agent advertises `sessionCapabilities.archive`).
        #[cfg(feature = "unstable_session_archive")]
        opt archived: SessionArchiveFilter = "archived" [NULLABLE];
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
        opt next_cursor: String = "nextCursor" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A summary of a session, as listed by `session/list`.
    #[new(session_id: impl Into<SessionId>, cwd: impl AsRef<Path>)]
    pub struct SessionInfo {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The session's working directory.
        req cwd: String as path = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<String> as paths = "additionalDirectories" [NULL_DEFAULT];
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

wire_object! {
    /// Asks the agent to delete a session (`session/delete`).
    #[new(session_id: impl Into<SessionId>)]
    pub struct DeleteSessionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/delete`.
    #[optional_fields(new)]
    pub struct DeleteSessionResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent to resume a session without replaying its history (`session/resume`).
    #[new(session_id: impl Into<SessionId>, cwd: impl AsRef<Path>)]
    pub struct ResumeSessionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The working directory (an absolute path).
        req cwd: String as path = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<String> as paths = "additionalDirectories" [NULL_DEFAULT];
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
    /// The agent's answer to `session/resume`.
    #[optional_fields(new)]
    pub struct ResumeSessionResponse {
        /// The session's modes, if the agent has modes.
        opt modes: SessionModeState = "modes" [DOE | NULLABLE];
        /// The session's configuration options.
        opt config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent to close a session and free its resources (`session/close`).
    #[new(session_id: impl Into<SessionId>)]
    pub struct CloseSessionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/close`.
    #[optional_fields(new)]
    pub struct CloseSessionResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Cancels the running prompt turn of a session (`session/cancel`).
    #[new(session_id: impl Into<SessionId>)]
    pub struct CancelNotification {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
