//! Session fork (`unstable_session_fork`): a copy of a session for side prompts.

use crate::prelude::*;

wire_object! {
    /// Forks an existing session into a new one with the same history (`session/fork`).
    ///
    /// The fork takes side prompts (a summary, a commit message) without adding them to the
    /// original session's history. Only sent when the agent advertises
    /// `sessionCapabilities.fork`.
    #[new(session_id: impl Into<SessionId>, cwd: impl AsRef<Path>)]
    pub struct ForkSessionRequest {
        /// The session to fork.
        req session_id: SessionId = "sessionId";
        /// The working directory of the new session (an absolute path).
        req cwd: String as path = "cwd";
        /// More directories the new session may use, besides `cwd`.
        opt additional_directories: Vec<String> as paths = "additionalDirectories" [NULL_DEFAULT];
        /// The MCP servers the agent should connect to for the new session.
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
    /// The agent's answer to `session/fork`: the new session.
    #[new(session_id: impl Into<SessionId>)]
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

wire_object! {
    /// The agent supports `session/fork` (advertised in `sessionCapabilities.fork`).
    #[optional_fields(new)]
    pub struct SessionForkCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
