//! Session setup and management: new, load, list, resume, close, delete, cancel.

#![allow(unused_imports)]

use std::collections::BTreeMap;

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::{id_type, string_enum, tagged_union};
use crate::*;

id_type! {
    /// Identifies a conversation session between a client and an agent.
    pub struct SessionId;
}

wire_object! {
    /// Asks the agent to start a new session (`session/new`).
    pub struct NewSessionRequest {
        /// The working directory (an absolute path).
        req cwd: String = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<String> = "additionalDirectories" [DOE | SKIP];
        /// The MCP servers the agent should connect to.
        req mcp_servers: Vec<McpServer> = "mcpServers" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NewSessionRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(cwd: impl AsRef<std::path::Path>, mcp_servers: impl Into<Vec<McpServer>>) -> Self {
        Self {
            cwd: crate::field::path_text(cwd),
            additional_directories: None,
            mcp_servers: mcp_servers.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The agent's answer to `session/new`: the new session and its modes and options.
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

impl NewSessionResponse {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            modes: None,
            config_options: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// Asks the agent to load a previous session and replay its history (`session/load`).
    pub struct LoadSessionRequest {
        /// The MCP servers the agent should connect to.
        req mcp_servers: Vec<McpServer> = "mcpServers" [DOE | SKIP];
        /// The working directory (an absolute path).
        req cwd: String = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<String> = "additionalDirectories" [DOE | SKIP];
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl LoadSessionRequest {
    /// Builds the value from its required fields (in the order of
    /// [`NewSessionRequest::new`], after the session); optional ones start absent.
    pub fn new(
        session_id: impl Into<SessionId>,
        cwd: impl AsRef<std::path::Path>,
        mcp_servers: impl Into<Vec<McpServer>>,
    ) -> Self {
        Self {
            mcp_servers: mcp_servers.into(),
            cwd: crate::field::path_text(cwd),
            additional_directories: None,
            session_id: session_id.into(),
            meta: None,
            extras: Extras::default(),
        }
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
        opt cwd: String = "cwd" [NULLABLE];
        /// Where to continue listing, from a previous `nextCursor`.
        opt cursor: String = "cursor" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/list`: one page of sessions.
    pub struct ListSessionsResponse {
        /// The sessions of this page.
        req sessions: Vec<SessionInfo> = "sessions" [DOE | SKIP];
        /// Where the next page starts; absent on the last page.
        opt next_cursor: String = "nextCursor" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl ListSessionsResponse {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(sessions: impl Into<Vec<SessionInfo>>) -> Self {
        Self {
            sessions: sessions.into(),
            next_cursor: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A summary of a session, as listed by `session/list`.
    pub struct SessionInfo {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The session's working directory.
        req cwd: String = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<String> = "additionalDirectories" [DOE | SKIP];
        /// The session's title.
        opt title: String = "title" [DOE | NULLABLE];
        /// When the session was last updated (an ISO 8601 timestamp).
        opt updated_at: String = "updatedAt" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl SessionInfo {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, cwd: impl AsRef<std::path::Path>) -> Self {
        Self {
            session_id: session_id.into(),
            cwd: crate::field::path_text(cwd),
            additional_directories: None,
            title: None,
            updated_at: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// Asks the agent to delete a session (`session/delete`).
    pub struct DeleteSessionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl DeleteSessionRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            meta: None,
            extras: Extras::default(),
        }
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
    pub struct ResumeSessionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The working directory (an absolute path).
        req cwd: String = "cwd";
        /// Extra workspace directories (absolute paths).
        opt additional_directories: Vec<String> = "additionalDirectories" [DOE | SKIP];
        /// The MCP servers the agent should connect to.
        opt mcp_servers: Vec<McpServer> = "mcpServers" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl ResumeSessionRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, cwd: impl AsRef<std::path::Path>) -> Self {
        Self {
            session_id: session_id.into(),
            cwd: crate::field::path_text(cwd),
            additional_directories: None,
            mcp_servers: None,
            meta: None,
            extras: Extras::default(),
        }
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
    pub struct CloseSessionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl CloseSessionRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            meta: None,
            extras: Extras::default(),
        }
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
    pub struct CancelNotification {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl CancelNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}
