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
