//! The v2 definitions of the draft feature `unstable_session_fork`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use crate::v2::prelude::*;

wire_object! {
    /// The agent's answer to `session/fork`: the new session.
    #[new(session_id: impl Into<SessionId>)]
    pub struct ForkSessionResponse {
        /// The id of the new session.
        req session_id: SessionId = "sessionId";
        /// The new session's configuration options.
        opt config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP];
        /// The commands now available.
        opt available_commands: Vec<AvailableCommand> = "availableCommands" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Forks an existing session into a new one with the same history (`session/fork`). The
    /// fork takes side prompts (a summary, a commit message) without adding them to the
    /// original session's history. Only sent when the agent advertises
    /// `sessionCapabilities.fork`.
    #[new(session_id: impl Into<SessionId>, cwd: impl Into<AbsolutePath>)]
    pub struct ForkSessionRequest {
        /// The session to fork.
        req session_id: SessionId = "sessionId";
        /// The working directory of the new session (an absolute path).
        req cwd: AbsolutePath = "cwd";
        /// More directories the new session may use, besides `cwd`.
        opt additional_directories: Vec<AbsolutePath> = "additionalDirectories" [NULL_DEFAULT];
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

// The definitions of this draft v2 shares with v1: v1's types.
pub use crate::SessionForkCapabilities;
