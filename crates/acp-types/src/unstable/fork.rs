//! Session fork (`unstable_session_fork`): a copy of a session for side prompts.

use crate::wire::{Extras, Meta, wire_object};
use crate::*;

wire_object! {
    /// Forks an existing session into a new one with the same history (`session/fork`).
    ///
    /// The fork takes side prompts (a summary, a commit message) without adding them to the
    /// original session's history. Only sent when the agent advertises
    /// `sessionCapabilities.fork`.
    pub struct ForkSessionRequest {
        /// The session to fork.
        req session_id: SessionId = "sessionId";
        /// The working directory of the new session (an absolute path).
        req cwd: String = "cwd";
        /// More directories the new session may use, besides `cwd`.
        opt additional_directories: Vec<String> = "additionalDirectories" [DOE | SKIP];
        /// The MCP servers the agent should connect to for the new session.
        opt mcp_servers: Vec<McpServer> = "mcpServers" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl ForkSessionRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, cwd: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            cwd: cwd.into(),
            additional_directories: None,
            mcp_servers: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The agent's answer to `session/fork`: the new session.
    pub struct ForkSessionResponse {
        /// The id of the new session.
        req session_id: SessionId = "sessionId";
        /// The new session's modes, if the agent has modes.
        opt modes: SessionModeState = "modes" [DOE | NULLABLE];
        /// The new session's configuration options.
        opt config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl ForkSessionResponse {
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
    /// The agent supports `session/fork` (advertised in `sessionCapabilities.fork`).
    #[optional_fields(new)]
    pub struct SessionForkCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
