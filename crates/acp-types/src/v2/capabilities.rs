//! Capabilities, exchanged by `initialize`: presence marks support.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;

wire_object! {
    /// What the agent supports; session methods are grouped under `session`.
    #[optional_fields(new)]
    pub struct AgentCapabilities {
        /// What the agent supports for sessions; present, the baseline session methods are
        /// served.
        opt session: SessionCapabilities = "session" [DOE | NULLABLE];
        /// Authentication features.
        opt auth: AgentAuthCapabilities = "auth" [DOE | NULLABLE];
        /// Support for the `providers/*` methods (draft).
        #[cfg(feature = "unstable_llm_providers")]
        opt providers: ProvidersCapabilities = "providers" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// What the agent supports for sessions; present, it commits the agent to the baseline
    /// session methods.
    #[optional_fields(new)]
    pub struct SessionCapabilities {
        /// The content the agent accepts in prompts.
        opt prompt: PromptCapabilities = "prompt" [DOE | NULLABLE];
        /// The MCP transports the agent supports.
        opt mcp: McpCapabilities = "mcp" [DOE | NULLABLE];
        /// Support for `session/delete`.
        opt delete: SessionDeleteCapabilities = "delete" [DOE | NULLABLE];
        /// Extra workspace directories (absolute paths).
        opt additional_directories: SessionAdditionalDirectoriesCapabilities = "additionalDirectories" [DOE | NULLABLE];
        /// Support for `systemPrompt` on session lifecycle requests (draft).
        #[cfg(feature = "unstable_session_options")]
        opt system_prompt: SessionSystemPromptCapabilities = "systemPrompt" [DOE | NULLABLE];
        /// Support for `session/fork` (draft).
        #[cfg(feature = "unstable_session_fork")]
        opt fork: SessionForkCapabilities = "fork" [DOE | NULLABLE];
        /// Support for `session/archive` and `session/unarchive` (draft).
        #[cfg(feature = "unstable_session_archive")]
        opt archive: SessionArchiveCapabilities = "archive" [DOE | NULLABLE];
        /// Support for `session/status` (draft).
        #[cfg(feature = "unstable_session_status")]
        opt status: SessionStatusCapabilities = "status" [DOE | NULLABLE];
        /// Support for `session/set_title` (draft).
        #[cfg(feature = "unstable_session_set_title")]
        opt title: SessionTitleCapabilities = "title" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The content the agent accepts in prompts beyond text and resource links.
    #[optional_fields(new)]
    pub struct PromptCapabilities {
        /// Whether images are accepted.
        opt image: PromptImageCapabilities = "image" [DOE | NULLABLE];
        /// Whether audio is accepted.
        opt audio: PromptAudioCapabilities = "audio" [DOE | NULLABLE];
        /// Whether embedded resources are accepted.
        opt embedded_context: PromptEmbeddedContextCapabilities = "embeddedContext" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Support for images in prompts.
    #[optional_fields(new)]
    pub struct PromptImageCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Support for audio in prompts.
    #[optional_fields(new)]
    pub struct PromptAudioCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Support for embedded resources in prompts.
    #[optional_fields(new)]
    pub struct PromptEmbeddedContextCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The MCP transports the agent supports.
    #[optional_fields(new)]
    pub struct McpCapabilities {
        /// Support for MCP servers the agent launches.
        opt stdio: McpStdioCapabilities = "stdio" [DOE | NULLABLE];
        /// Whether HTTP MCP servers are supported.
        opt http: McpHttpCapabilities = "http" [DOE | NULLABLE];
        /// Whether MCP servers reached over ACP (`"type": "acp"`) are supported (draft).
        #[cfg(feature = "unstable_mcp_over_acp")]
        opt acp: McpAcpCapabilities = "acp" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Support for MCP servers the agent launches (stdio).
    #[optional_fields(new)]
    pub struct McpStdioCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Support for MCP servers over HTTP.
    #[optional_fields(new)]
    pub struct McpHttpCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Authentication-related extensions the agent supports.
    #[optional_fields(new)]
    pub struct AgentAuthCapabilities {
        /// Support for `auth/status` and `auth/status_update` (draft).
        #[cfg(feature = "unstable_auth_status")]
        opt status: AuthStatusCapabilities = "status" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// What the client supports.
    #[optional_fields(new)]
    pub struct ClientCapabilities {
        /// Authentication features.
        opt auth: ClientAuthCapabilities = "auth" [DOE | NULLABLE];
        /// Which elicitation modes the client supports.
        opt elicitation: ElicitationCapabilities = "elicitation" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The authentication flows the client can run itself.
    #[optional_fields(new)]
    pub struct ClientAuthCapabilities {
        /// Support for terminal authentication methods.
        opt terminal: TerminalAuthCapabilities = "terminal" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Support for terminal authentication methods.
    #[optional_fields(new)]
    pub struct TerminalAuthCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
