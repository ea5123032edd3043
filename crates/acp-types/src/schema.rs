//! The JSON Schema of the protocol, generated from the Rust types.
//!
//! [`bundle`] returns one schema whose `$defs` carry the official definition names, and whose
//! root accepts any message either side may send. The repository keeps it in
//! `schema/acp.schema.json`, with the method names in `schema/meta.json`; regenerate both with
//!
//! ```text
//! ACP_UPDATE_SCHEMA=1 cargo test -p acp-types --test types -- schema_snapshot::
//! ```
//!
//! Both describe what is compiled in: with draft features on, their definitions, fields,
//! variants and methods are part of the bundle. The repository also keeps the bundle with every
//! draft feature (the umbrella feature `unstable`) in `schema/acp.unstable.schema.json` and
//! `schema/meta.unstable.json`, regenerated with
//!
//! ```text
//! ACP_UPDATE_SCHEMA=1 cargo test -p acp-types --features unstable --test types -- schema_snapshot::
//! ```

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::methods::{agent, client, protocol};
use crate::*;

/// Calls the macro `$m!` with every definition of the schema that is a plain value (all but the
/// six JSON-RPC envelopes, which decode by method), in the official order: for example to run
/// the same check over every type.
///
/// ```
/// macro_rules! count {
///     ($($name:ident),* $(,)?) => { [$(stringify!($name)),*].len() };
/// }
/// assert_eq!(acp_types::for_each_value_definition!(count), 172);
/// ```
#[macro_export]
macro_rules! for_each_value_definition {
    ($m:ident) => {
        $m!(
            RequestId,
            WriteTextFileRequest,
            SessionId,
            ReadTextFileRequest,
            RequestPermissionRequest,
            ToolCallUpdate,
            ToolCallId,
            ToolKind,
            ToolCallStatus,
            ToolCallContent,
            ContentBlock,
            Annotations,
            Role,
            TextContent,
            ImageContent,
            AudioContent,
            ResourceLink,
            EmbeddedResourceResource,
            TextResourceContents,
            BlobResourceContents,
            EmbeddedResource,
            Content,
            Diff,
            TerminalId,
            Terminal,
            ToolCallLocation,
            PermissionOption,
            PermissionOptionId,
            PermissionOptionKind,
            CreateTerminalRequest,
            EnvVariable,
            TerminalOutputRequest,
            ReleaseTerminalRequest,
            WaitForTerminalExitRequest,
            KillTerminalRequest,
            CreateElicitationRequest,
            ElicitationSessionScope,
            ElicitationRequestScope,
            ElicitationSchema,
            ElicitationSchemaType,
            ElicitationPropertySchema,
            StringFormat,
            EnumOption,
            StringPropertySchema,
            NumberPropertySchema,
            IntegerPropertySchema,
            BooleanPropertySchema,
            MultiSelectItems,
            StringMultiSelectItems,
            TitledMultiSelectItems,
            MultiSelectPropertySchema,
            ElicitationFormMode,
            ElicitationId,
            ElicitationUrlMode,
            ExtRequest,
            InitializeResponse,
            ProtocolVersion,
            AgentCapabilities,
            PromptCapabilities,
            McpCapabilities,
            SessionCapabilities,
            SessionListCapabilities,
            SessionDeleteCapabilities,
            SessionAdditionalDirectoriesCapabilities,
            SessionResumeCapabilities,
            SessionCloseCapabilities,
            AgentAuthCapabilities,
            LogoutCapabilities,
            AuthMethod,
            AuthMethodId,
            AuthMethodTerminal,
            AuthMethodAgent,
            Implementation,
            AuthenticateResponse,
            LogoutResponse,
            NewSessionResponse,
            SessionModeState,
            SessionModeId,
            SessionMode,
            SessionConfigOption,
            SessionConfigId,
            SessionConfigOptionCategory,
            SessionConfigValueId,
            SessionConfigSelectOptions,
            SessionConfigSelectOption,
            SessionConfigSelectGroup,
            SessionConfigGroupId,
            SessionConfigSelect,
            SessionConfigBoolean,
            LoadSessionResponse,
            ListSessionsResponse,
            SessionInfo,
            DeleteSessionResponse,
            ResumeSessionResponse,
            CloseSessionResponse,
            SetSessionModeResponse,
            SetSessionConfigOptionResponse,
            PromptResponse,
            StopReason,
            ExtResponse,
            Error,
            ErrorCode,
            SessionNotification,
            SessionUpdate,
            MessageId,
            ContentChunk,
            ToolCall,
            PlanEntry,
            PlanEntryPriority,
            PlanEntryStatus,
            Plan,
            AvailableCommand,
            AvailableCommandInput,
            UnstructuredCommandInput,
            AvailableCommandsUpdate,
            CurrentModeUpdate,
            ConfigOptionUpdate,
            SessionInfoUpdate,
            Cost,
            UsageUpdate,
            NoticeSeverity,
            Notice,
            CompactionId,
            CompactionStatus,
            CompactionUpdate,
            CompactionSummaryChunk,
            CompleteElicitationNotification,
            ExtNotification,
            InitializeRequest,
            ClientCapabilities,
            FileSystemCapabilities,
            ClientSessionCapabilities,
            CompactionCapabilities,
            SessionConfigOptionsCapabilities,
            BooleanConfigOptionCapabilities,
            NoticeCapabilities,
            AuthCapabilities,
            ElicitationCapabilities,
            ElicitationFormCapabilities,
            ElicitationUrlCapabilities,
            AuthenticateRequest,
            LogoutRequest,
            NewSessionRequest,
            McpServer,
            HttpHeader,
            McpServerHttp,
            McpServerSse,
            McpServerStdio,
            LoadSessionRequest,
            ListSessionsRequest,
            DeleteSessionRequest,
            ResumeSessionRequest,
            CloseSessionRequest,
            SetSessionModeRequest,
            SetSessionConfigOptionRequest,
            PromptRequest,
            WriteTextFileResponse,
            ReadTextFileResponse,
            RequestPermissionResponse,
            RequestPermissionOutcome,
            SelectedPermissionOutcome,
            CreateTerminalResponse,
            TerminalOutputResponse,
            TerminalExitStatus,
            ReleaseTerminalResponse,
            WaitForTerminalExitResponse,
            KillTerminalResponse,
            CreateElicitationResponse,
            ElicitationContentValue,
            ElicitationAcceptAction,
            CancelNotification,
            CancelRequestNotification,
        )
    };
}

/// Calls the macro `$m!` with every definition the draft features add (all of them, so only
/// with the umbrella feature `unstable`), in the official order of `schema.unstable.json`.
///
/// ```
/// macro_rules! count {
///     ($($name:ident),* $(,)?) => { [$(stringify!($name)),*].len() };
/// }
/// assert_eq!(acp_types::for_each_unstable_definition!(count), 71);
/// ```
#[cfg(feature = "unstable")]
#[macro_export]
macro_rules! for_each_unstable_definition {
    ($m:ident) => {
        $m!(
            MessageMcpRequest,
            McpServerAcpId,
            McpRequestId,
            SessionSystemPromptCapabilities,
            SessionSystemPromptModeCapabilities,
            SessionSystemPromptOverrideCapabilities,
            SessionForkCapabilities,
            SessionArchiveCapabilities,
            SessionStatusCapabilities,
            SessionTitleCapabilities,
            AuthStatusCapabilities,
            ProvidersCapabilities,
            ListProvidersResponse,
            ProviderInfo,
            ProviderId,
            LlmProtocol,
            ProviderCurrentConfig,
            SetProviderResponse,
            DisableProviderResponse,
            AuthStatusResponse,
            AuthState,
            AuthAccount,
            ForkSessionResponse,
            ArchiveSessionResponse,
            UnarchiveSessionResponse,
            SessionStatusResponse,
            SessionStatus,
            SetSessionTitleResponse,
            Usage,
            PlanUpdateContent,
            PlanId,
            PlanItems,
            PlanFile,
            PlanMarkdown,
            PlanUpdate,
            PlanRemoved,
            SubagentSessionCapabilities,
            SessionCancelCapabilities,
            StateUpdate,
            RunningStateUpdate,
            ErrorStopReason,
            IdleStateUpdate,
            RequiresActionStateUpdate,
            UnknownStateUpdate,
            SubagentUpdate,
            SessionMessage,
            SessionMessageChunk,
            AuthStatusUpdateNotification,
            SubagentCapabilities,
            PlanCapabilities,
            ListProvidersRequest,
            SetProviderRequest,
            DisableProviderRequest,
            AuthStatusRequest,
            McpServerAcp,
            SystemPrompt,
            SystemPromptMode,
            SessionArchiveFilter,
            ForkSessionRequest,
            ArchiveSessionRequest,
            UnarchiveSessionRequest,
            SessionStatusRequest,
            SetSessionTitleRequest,
            MessageMcpResponse,
            McpError,
            MessageMcpNotification,
            InitializeProxyRequest,
            ProxySuccessorRequest,
            InitializeProxyResponse,
            ProxySuccessorResponse,
            ProxySuccessorNotification,
        )
    };
}

/// The six JSON-RPC envelope definitions (they decode by method, see [`crate::Message`]).
macro_rules! with_envelopes {
    ($m:ident) => {
        $m!(
            AgentRequest,
            AgentResponse,
            AgentNotification,
            ClientRequest,
            ClientResponse,
            ClientNotification,
        )
    };
}

/// The three envelope definitions of proxy chains (draft), decoded by method like the six
/// above (see [`crate::ProxyRequest`]).
#[cfg(feature = "unstable_proxy_chains")]
macro_rules! with_proxy_envelopes {
    ($m:ident) => {
        $m!(ProxyRequest, ProxyResponse, ProxyNotification)
    };
}

macro_rules! names {
    ($($name:ident),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}

/// The names of every definition of the schema: the plain values (see
/// [`for_each_value_definition!`](crate::for_each_value_definition)), then the six envelopes.
pub const DEFINITIONS: &[&str] = &{
    const VALUES: &[&str] = for_each_value_definition!(names);
    const ENVELOPES: &[&str] = with_envelopes!(names);
    let mut all = [""; VALUES.len() + ENVELOPES.len()];
    let mut i = 0;
    while i < VALUES.len() {
        all[i] = VALUES[i];
        i += 1;
    }
    while i < all.len() {
        all[i] = ENVELOPES[i - VALUES.len()];
        i += 1;
    }
    all
};

/// A generator set up as the bundle needs: JSON Schema draft 2020-12, definitions in `$defs`.
pub fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// The whole protocol as one JSON Schema (see the [module docs](self)).
pub fn bundle() -> Value {
    let mut generator = generator();
    macro_rules! add_all {
        ($($name:ident),* $(,)?) => {
            $( generator.subschema_for::<$name>(); )*
        };
    }
    for_each_value_definition!(add_all);
    with_envelopes!(add_all);
    #[cfg(feature = "unstable_proxy_chains")]
    with_proxy_envelopes!(add_all);
    // Referenced only from the schema of `IdleStateUpdate`'s `error` branch.
    #[cfg(feature = "unstable_subagents")]
    add_all!(ErrorStopReason);
    let mut defs: Map<String, Value> = generator.take_definitions(true);
    // The official definitions, each titled with its name. (The map keeps its keys sorted, so
    // the file lists them by name, not in the official order.)
    let mut ordered = Map::new();
    for name in DEFINITIONS {
        if let Some(mut def) = defs.remove(*name) {
            if let Some(obj) = def.as_object_mut() {
                obj.insert("title".into(), Value::String((*name).to_owned()));
            }
            ordered.insert((*name).to_owned(), def);
        }
    }
    // The definitions of the draft features compiled in: every one is reachable from a stable
    // definition or a message union, and nothing else is left.
    for (name, mut def) in defs {
        if let Some(obj) = def.as_object_mut() {
            obj.insert("title".into(), Value::String(name.clone()));
        }
        ordered.insert(name, def);
    }
    // The official annotations: each method's params and result definitions name it and its
    // side; the envelope unions are left out of generated docs.
    for method in methods::DEFINITIONS {
        for name in std::iter::once(method.params).chain(method.result) {
            if let Some(obj) = ordered.get_mut(name).and_then(Value::as_object_mut) {
                obj.insert("x-side".into(), method.side.as_str().into());
                obj.insert("x-method".into(), method.method.into());
            }
        }
    }
    #[cfg(feature = "unstable_proxy_chains")]
    let envelopes = with_envelopes!(names)
        .iter()
        .chain(with_proxy_envelopes!(names));
    #[cfg(not(feature = "unstable_proxy_chains"))]
    let envelopes = with_envelopes!(names).iter();
    for name in envelopes {
        if let Some(obj) = ordered.get_mut(*name).and_then(Value::as_object_mut) {
            obj.insert("x-docs-ignore".into(), true.into());
        }
    }
    let side = |description: &str, request: &str, response: &str, notification: &str| {
        json!({
            "description": description,
            "type": "object",
            "properties": { "jsonrpc": { "type": "string", "enum": [JSONRPC_VERSION] } },
            "required": ["jsonrpc"],
            "anyOf": [
                { "allOf": [{ "$ref": format!("#/$defs/{request}") }] },
                { "allOf": [{ "$ref": format!("#/$defs/{response}") }] },
                { "allOf": [{ "$ref": format!("#/$defs/{notification}") }] },
            ],
        })
    };
    #[cfg_attr(not(feature = "unstable_proxy_chains"), allow(unused_mut))]
    let mut bundle = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ACP messages",
        "description": DESCRIPTION,
        "anyOf": [
            side("A message the agent sends.", "AgentRequest", "AgentResponse", "AgentNotification"),
            side("A message the client sends.", "ClientRequest", "ClientResponse", "ClientNotification"),
            {
                "description": "A protocol-level notification either side may send.",
                "type": "object",
                "properties": {
                    "jsonrpc": { "type": "string", "enum": [JSONRPC_VERSION] },
                    "method": { "type": "string" },
                    "params": {
                        "anyOf": [
                            { "allOf": [{ "$ref": "#/$defs/CancelRequestNotification" }] },
                            { "type": "null" },
                        ],
                    },
                },
                "required": ["jsonrpc", "method"],
                "x-docs-ignore": true,
            },
        ],
        "$defs": ordered,
    });
    // The messages between a proxy and its conductor (draft).
    #[cfg(feature = "unstable_proxy_chains")]
    if let Some(messages) = bundle.get_mut("anyOf").and_then(Value::as_array_mut) {
        messages.push(side(
            "A message between a proxy and its conductor (draft).",
            "ProxyRequest",
            "ProxyResponse",
            "ProxyNotification",
        ));
    }
    bundle
}

/// The bundle's description: the draft features compiled in are named.
const DESCRIPTION: &str = if UNSTABLE_FEATURES.is_empty() {
    "Any JSON-RPC message of the Agent Client Protocol v1, generated by the acp-types crate."
} else {
    "Any JSON-RPC message of the Agent Client Protocol v1 with its draft (unstable) features, \
     generated by the acp-types crate."
};

/// The draft features compiled in.
pub const UNSTABLE_FEATURES: &[&str] = &[
    #[cfg(feature = "unstable_agent_skills")]
    "unstable_agent_skills",
    #[cfg(feature = "unstable_auth_status")]
    "unstable_auth_status",
    #[cfg(feature = "unstable_end_turn_token_usage")]
    "unstable_end_turn_token_usage",
    #[cfg(feature = "unstable_llm_providers")]
    "unstable_llm_providers",
    #[cfg(feature = "unstable_mcp_over_acp")]
    "unstable_mcp_over_acp",
    #[cfg(feature = "unstable_prompt_suggestions")]
    "unstable_prompt_suggestions",
    #[cfg(feature = "unstable_proxy_chains")]
    "unstable_proxy_chains",
    #[cfg(feature = "unstable_session_archive")]
    "unstable_session_archive",
    #[cfg(feature = "unstable_session_cursors")]
    "unstable_session_cursors",
    #[cfg(feature = "unstable_session_fork")]
    "unstable_session_fork",
    #[cfg(feature = "unstable_session_status")]
    "unstable_session_status",
    #[cfg(feature = "unstable_session_options")]
    "unstable_session_options",
    #[cfg(feature = "unstable_session_set_title")]
    "unstable_session_set_title",
    #[cfg(feature = "unstable_speed_config_category")]
    "unstable_speed_config_category",
    #[cfg(feature = "unstable_subagents")]
    "unstable_subagents",
];

/// The method names, grouped by the side that serves them (the shape of the official
/// `meta.json`).
pub fn meta() -> Value {
    let group = |names: &[&str]| -> Value {
        names
            .iter()
            .map(|m| (key_of(m), json!(m)))
            .collect::<Map<String, Value>>()
            .into()
    };
    json!({
        "version": ProtocolVersion::LATEST.0,
        "agentMethods": group(agent::ALL),
        "clientMethods": group(client::ALL),
        "protocolMethods": group(protocol::ALL),
    })
}

/// The key of a method in `meta.json`: its name in snake case, `/` and `$` as `_`
/// (`session/set_config_option` is `session_set_config_option`, `$/cancel_request` is
/// `cancel_request`).
pub(crate) fn key_of(method: &str) -> String {
    let mut key = String::with_capacity(method.len() + 4);
    for c in method.chars() {
        match c {
            '/' | '$' => key.push('_'),
            c if c.is_ascii_uppercase() => {
                key.push('_');
                key.push(c.to_ascii_lowercase());
            }
            c => key.push(c),
        }
    }
    key.trim_start_matches('_').to_owned()
}
