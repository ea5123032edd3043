//! Initialization: version negotiation and capabilities.

use crate::prelude::*;

wire_object! {
    /// The first request of a connection: the client's version and capabilities (`initialize`).
    #[new(protocol_version: impl Into<ProtocolVersion>)]
    pub struct InitializeRequest {
        /// The protocol version.
        req protocol_version: ProtocolVersion = "protocolVersion";
        /// What the client supports.
        opt client_capabilities: ClientCapabilities = "clientCapabilities" [DOE];
        /// The client's name and version.
        opt client_info: Implementation = "clientInfo" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `initialize`: the negotiated version and its capabilities.
    #[new(protocol_version: impl Into<ProtocolVersion>)]
    pub struct InitializeResponse {
        /// The protocol version.
        req protocol_version: ProtocolVersion = "protocolVersion";
        /// What the agent supports.
        opt agent_capabilities: AgentCapabilities = "agentCapabilities" [DOE];
        /// The ways the client can authenticate the user.
        opt auth_methods: Vec<AuthMethod> = "authMethods" [DOE | SKIP];
        /// The agent's name and version.
        opt agent_info: Implementation = "agentInfo" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The name and version of a client or agent program.
    #[new(name: impl Into<String>, version: impl Into<String>)]
    pub struct Implementation {
        /// The program's name, for logic.
        req name: String = "name";
        /// The program's name, for display.
        opt title: String = "title" [DOE | NULLABLE];
        /// The program's version.
        req version: String = "version";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// What the agent supports beyond the baseline protocol.
    #[optional_fields(new)]
    pub struct AgentCapabilities {
        /// Whether the agent supports `session/load`.
        opt load_session: bool = "loadSession" [DOE];
        /// Which content kinds the agent accepts in prompts.
        opt prompt_capabilities: PromptCapabilities = "promptCapabilities" [DOE];
        /// Which MCP transports the agent supports.
        opt mcp_capabilities: McpCapabilities = "mcpCapabilities" [DOE];
        /// Which optional session methods the agent supports.
        opt session_capabilities: SessionCapabilities = "sessionCapabilities" [DOE];
        /// Authentication features.
        opt auth: AgentAuthCapabilities = "auth" [DOE];
        /// Support for the `providers/*` methods (draft).
        #[cfg(feature = "unstable_llm_providers")]
        opt providers: ProvidersCapabilities = "providers" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Which kinds of content the agent accepts in prompts, beyond text and resource links.
    #[optional_fields(new)]
    pub struct PromptCapabilities {
        /// Whether images are accepted.
        opt image: bool = "image" [DOE];
        /// Whether audio is accepted.
        opt audio: bool = "audio" [DOE];
        /// Whether embedded resources are accepted.
        opt embedded_context: bool = "embeddedContext" [DOE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Which MCP server transports the agent can connect to, beyond stdio.
    #[optional_fields(new)]
    pub struct McpCapabilities {
        /// Whether HTTP MCP servers are supported.
        opt http: bool = "http" [DOE];
        /// Whether SSE MCP servers are supported.
        opt sse: bool = "sse" [DOE];
        /// Whether MCP servers reached over ACP (`"type": "acp"`) are supported (draft).
        #[cfg(feature = "unstable_mcp_over_acp")]
        opt acp: bool = "acp" [DOE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Which optional session methods the agent supports.
    #[optional_fields(new)]
    pub struct SessionCapabilities {
        /// Support for `session/list`.
        opt list: SessionListCapabilities = "list" [DOE | NULLABLE];
        /// Support for `session/delete`.
        opt delete: SessionDeleteCapabilities = "delete" [DOE | NULLABLE];
        /// Extra workspace directories (absolute paths).
        opt additional_directories: SessionAdditionalDirectoriesCapabilities = "additionalDirectories" [DOE | NULLABLE];
        /// Support for `session/resume`.
        opt resume: SessionResumeCapabilities = "resume" [DOE | NULLABLE];
        /// Support for `session/close`.
        opt close: SessionCloseCapabilities = "close" [DOE | NULLABLE];
        /// Support for `session/fork` (draft).
        #[cfg(feature = "unstable_session_fork")]
        opt fork: SessionForkCapabilities = "fork" [DOE | NULLABLE];
        /// Support for `session/archive` and `session/unarchive` (draft).
        #[cfg(feature = "unstable_session_archive")]
        opt archive: SessionArchiveCapabilities = "archive" [DOE | NULLABLE];
        /// Support for `session/status` (draft).
        #[cfg(feature = "unstable_session_status")]
        opt status: SessionStatusCapabilities = "status" [DOE | NULLABLE];
        /// Support for `systemPrompt` on session lifecycle requests (draft).
        #[cfg(feature = "unstable_session_options")]
        opt system_prompt: SessionSystemPromptCapabilities = "systemPrompt" [DOE | NULLABLE];
        /// Support for `session/set_title` (draft).
        #[cfg(feature = "unstable_session_set_title")]
        opt title: SessionTitleCapabilities = "title" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the agent supports `session/list`.
    #[optional_fields(new)]
    pub struct SessionListCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the agent supports `session/delete`.
    #[optional_fields(new)]
    pub struct SessionDeleteCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the agent accepts additional workspace directories for a session.
    #[optional_fields(new)]
    pub struct SessionAdditionalDirectoriesCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the agent supports `session/resume`.
    #[optional_fields(new)]
    pub struct SessionResumeCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the agent supports `session/close`.
    #[optional_fields(new)]
    pub struct SessionCloseCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Authentication features the agent supports.
    #[optional_fields(new)]
    pub struct AgentAuthCapabilities {
        /// Support for `logout`.
        opt logout: LogoutCapabilities = "logout" [DOE | NULLABLE];
        /// Support for `auth/status` and `auth/status_update` (draft).
        #[cfg(feature = "unstable_auth_status")]
        opt status: AuthStatusCapabilities = "status" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the agent supports `logout`.
    #[optional_fields(new)]
    pub struct LogoutCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// What the client supports: file system access, terminals, elicitation and more.
    #[optional_fields(new)]
    pub struct ClientCapabilities {
        /// Which file system methods the client serves.
        opt fs: FileSystemCapabilities = "fs" [DOE];
        /// Whether the client serves the `terminal/*` methods.
        opt terminal: bool = "terminal" [DOE];
        /// Session features the client supports.
        opt session: ClientSessionCapabilities = "session" [DOE | NULLABLE];
        /// Authentication features.
        opt auth: AuthCapabilities = "auth" [DOE];
        /// Which elicitation modes the client supports.
        opt elicitation: ElicitationCapabilities = "elicitation" [DOE | NULLABLE];
        /// Whether the client understands plan operations (draft).
        #[cfg(feature = "unstable")]
        opt plan: PlanCapabilities = "plan" [DOE | NULLABLE];
        /// Whether the client understands subagent sessions (draft).
        #[cfg(feature = "unstable_subagents")]
        opt subagents: SubagentCapabilities = "subagents" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Which file system methods the client serves.
    #[optional_fields(new)]
    pub struct FileSystemCapabilities {
        /// Whether the client serves `fs/read_text_file`.
        opt read_text_file: bool = "readTextFile" [DOE];
        /// Whether the client serves `fs/write_text_file`.
        opt write_text_file: bool = "writeTextFile" [DOE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Session features the client supports.
    #[optional_fields(new)]
    pub struct ClientSessionCapabilities {
        /// Support for compaction updates: `{}` advertises the whole compaction contract;
        /// absent or `null` means unsupported.
        opt compaction: CompactionCapabilities = "compaction" [DOE | NULLABLE];
        /// The session's configuration options.
        opt config_options: SessionConfigOptionsCapabilities = "configOptions" [DOE | NULLABLE];
        /// Support for `notice` updates: `{}` means the client can show notices to the user;
        /// absent or `null` means unsupported.
        opt notices: NoticeCapabilities = "notices" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Which kinds of configuration options the client can display.
    #[optional_fields(new)]
    pub struct SessionConfigOptionsCapabilities {
        /// Whether on/off options can be displayed.
        opt boolean: BooleanConfigOptionCapabilities = "boolean" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the client can display on/off configuration options.
    #[optional_fields(new)]
    pub struct BooleanConfigOptionCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Authentication features the client supports.
    #[optional_fields(new)]
    pub struct AuthCapabilities {
        /// Whether the client can run terminal authentication methods.
        opt terminal: bool = "terminal" [DOE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Which elicitation modes the client supports.
    #[optional_fields(new)]
    pub struct ElicitationCapabilities {
        /// Support for form elicitations.
        opt form: ElicitationFormCapabilities = "form" [DOE | NULLABLE];
        /// The URL.
        opt url: ElicitationUrlCapabilities = "url" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the client can show elicitation forms.
    #[optional_fields(new)]
    pub struct ElicitationFormCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Present when the client can send the user to an elicitation URL.
    #[optional_fields(new)]
    pub struct ElicitationUrlCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
