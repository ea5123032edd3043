//! The methods of v2: their names, by the side that serves them, and typed markers.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

pub use crate::methods::{MethodDefinition, Notification, Request, Side};

use super::*;

/// Methods the agent serves (the client calls them).
pub mod agent {
    /// `auth/login`.
    pub const AUTH_LOGIN: &str = "auth/login";
    /// `auth/logout`.
    pub const AUTH_LOGOUT: &str = "auth/logout";
    /// `auth/status`.
    #[cfg(feature = "unstable_auth_status")]
    pub const AUTH_STATUS: &str = "auth/status";
    /// `initialize`.
    pub const INITIALIZE: &str = "initialize";
    /// `mcp/message` (a notification).
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub const MCP_MESSAGE: &str = "mcp/message";
    /// `providers/disable`.
    #[cfg(feature = "unstable_llm_providers")]
    pub const PROVIDERS_DISABLE: &str = "providers/disable";
    /// `providers/list`.
    #[cfg(feature = "unstable_llm_providers")]
    pub const PROVIDERS_LIST: &str = "providers/list";
    /// `providers/set`.
    #[cfg(feature = "unstable_llm_providers")]
    pub const PROVIDERS_SET: &str = "providers/set";
    /// `proxy/initialize`.
    #[cfg(feature = "unstable_proxy_chains")]
    pub const PROXY_INITIALIZE: &str = "proxy/initialize";
    /// `proxy/successor`.
    #[cfg(feature = "unstable_proxy_chains")]
    pub const PROXY_SUCCESSOR: &str = "proxy/successor";
    /// `session/archive`.
    #[cfg(feature = "unstable_session_archive")]
    pub const SESSION_ARCHIVE: &str = "session/archive";
    /// `session/cancel` (a notification).
    pub const SESSION_CANCEL: &str = "session/cancel";
    /// `session/close`.
    pub const SESSION_CLOSE: &str = "session/close";
    /// `session/delete`.
    pub const SESSION_DELETE: &str = "session/delete";
    /// `session/fork`.
    #[cfg(feature = "unstable_session_fork")]
    pub const SESSION_FORK: &str = "session/fork";
    /// `session/list`.
    pub const SESSION_LIST: &str = "session/list";
    /// `session/new`.
    pub const SESSION_NEW: &str = "session/new";
    /// `session/prompt`.
    pub const SESSION_PROMPT: &str = "session/prompt";
    /// `session/resume`.
    pub const SESSION_RESUME: &str = "session/resume";
    /// `session/set_config_option`.
    pub const SESSION_SET_CONFIG_OPTION: &str = "session/set_config_option";
    /// `session/set_title`.
    #[cfg(feature = "unstable_session_set_title")]
    pub const SESSION_SET_TITLE: &str = "session/set_title";
    /// `session/status`.
    #[cfg(feature = "unstable_session_status")]
    pub const SESSION_STATUS: &str = "session/status";
    /// `session/unarchive`.
    #[cfg(feature = "unstable_session_archive")]
    pub const SESSION_UNARCHIVE: &str = "session/unarchive";
    /// `terminal/cancel`.
    pub const TERMINAL_CANCEL: &str = "terminal/cancel";
    /// `tool_call/cancel`.
    pub const TOOL_CALL_CANCEL: &str = "tool_call/cancel";

    /// Every method the agent side serves.
    pub const ALL: &[&str] = &[
        AUTH_LOGIN,
        AUTH_LOGOUT,
        #[cfg(feature = "unstable_auth_status")]
        AUTH_STATUS,
        INITIALIZE,
        #[cfg(feature = "unstable_mcp_over_acp")]
        MCP_MESSAGE,
        #[cfg(feature = "unstable_llm_providers")]
        PROVIDERS_DISABLE,
        #[cfg(feature = "unstable_llm_providers")]
        PROVIDERS_LIST,
        #[cfg(feature = "unstable_llm_providers")]
        PROVIDERS_SET,
        #[cfg(feature = "unstable_proxy_chains")]
        PROXY_INITIALIZE,
        #[cfg(feature = "unstable_proxy_chains")]
        PROXY_SUCCESSOR,
        #[cfg(feature = "unstable_session_archive")]
        SESSION_ARCHIVE,
        SESSION_CANCEL,
        SESSION_CLOSE,
        SESSION_DELETE,
        #[cfg(feature = "unstable_session_fork")]
        SESSION_FORK,
        SESSION_LIST,
        SESSION_NEW,
        SESSION_PROMPT,
        SESSION_RESUME,
        SESSION_SET_CONFIG_OPTION,
        #[cfg(feature = "unstable_session_set_title")]
        SESSION_SET_TITLE,
        #[cfg(feature = "unstable_session_status")]
        SESSION_STATUS,
        #[cfg(feature = "unstable_session_archive")]
        SESSION_UNARCHIVE,
        TERMINAL_CANCEL,
        TOOL_CALL_CANCEL,
    ];
}

/// Methods the client serves (the agent calls them).
pub mod client {
    /// `auth/status_update` (a notification).
    #[cfg(feature = "unstable_auth_status")]
    pub const AUTH_STATUS_UPDATE: &str = "auth/status_update";
    /// `elicitation/complete` (a notification).
    pub const ELICITATION_COMPLETE: &str = "elicitation/complete";
    /// `elicitation/create`.
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// `mcp/message`.
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub const MCP_MESSAGE: &str = "mcp/message";
    /// `proxy/initialize`.
    #[cfg(feature = "unstable_proxy_chains")]
    pub const PROXY_INITIALIZE: &str = "proxy/initialize";
    /// `proxy/successor`.
    #[cfg(feature = "unstable_proxy_chains")]
    pub const PROXY_SUCCESSOR: &str = "proxy/successor";
    /// `session/request_permission`.
    pub const SESSION_REQUEST_PERMISSION: &str = "session/request_permission";
    /// `session/update` (a notification).
    pub const SESSION_UPDATE: &str = "session/update";

    /// Every method the client side serves.
    pub const ALL: &[&str] = &[
        #[cfg(feature = "unstable_auth_status")]
        AUTH_STATUS_UPDATE,
        ELICITATION_COMPLETE,
        ELICITATION_CREATE,
        #[cfg(feature = "unstable_mcp_over_acp")]
        MCP_MESSAGE,
        #[cfg(feature = "unstable_proxy_chains")]
        PROXY_INITIALIZE,
        #[cfg(feature = "unstable_proxy_chains")]
        PROXY_SUCCESSOR,
        SESSION_REQUEST_PERMISSION,
        SESSION_UPDATE,
    ];
}

/// Protocol-level methods either side may send.
pub mod protocol {
    /// `$/cancel_request` (a notification).
    pub const CANCEL_REQUEST: &str = "$/cancel_request";

    /// Every protocol-level method.
    pub const ALL: &[&str] = &[CANCEL_REQUEST];
}

/// Methods of proxy chains, between a proxy and its conductor (draft).
#[cfg(feature = "unstable_proxy_chains")]
pub mod proxy {
    pub use super::agent::PROXY_INITIALIZE;
    pub use super::agent::PROXY_SUCCESSOR;

    /// Every proxy method.
    pub const ALL: &[&str] = &[PROXY_INITIALIZE, PROXY_SUCCESSOR];
}

/// `auth/login`: signs the user in with one of the agent's advertised methods (`auth/login`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum AuthLogin {}

impl Request for AuthLogin {
    const METHOD: &'static str = agent::AUTH_LOGIN;
    const SIDE: Side = Side::Agent;
    type Params = LoginAuthRequest;
    type Result = LoginAuthResponse;
}

/// `auth/logout`: signs the user out (`auth/logout`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum AuthLogout {}

impl Request for AuthLogout {
    const METHOD: &'static str = agent::AUTH_LOGOUT;
    const SIDE: Side = Side::Agent;
    type Params = LogoutAuthRequest;
    type Result = LogoutAuthResponse;
}

/// `auth/status`: asks for the agent's authentication state without changing it (`auth/status`).
#[cfg(feature = "unstable_auth_status")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum AuthStatus {}

#[cfg(feature = "unstable_auth_status")]
impl Request for AuthStatus {
    const METHOD: &'static str = agent::AUTH_STATUS;
    const SIDE: Side = Side::Agent;
    type Params = AuthStatusRequest;
    type Result = AuthStatusResponse;
}

/// `elicitation/create`: asks the client to collect structured input from the user (`elicitation/create`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ElicitationCreate {}

impl Request for ElicitationCreate {
    const METHOD: &'static str = client::ELICITATION_CREATE;
    const SIDE: Side = Side::Client;
    type Params = CreateElicitationRequest;
    type Result = CreateElicitationResponse;
}

/// `initialize`: the first request of a connection: the client's version, identity and capabilities (`initialize`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum Initialize {}

impl Request for Initialize {
    const METHOD: &'static str = agent::INITIALIZE;
    const SIDE: Side = Side::Agent;
    type Params = InitializeRequest;
    type Result = InitializeResponse;
}

/// `mcp/message`: the `MessageMcpRequest` of ACP v2.
#[cfg(feature = "unstable_mcp_over_acp")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum McpMessage {}

#[cfg(feature = "unstable_mcp_over_acp")]
impl Request for McpMessage {
    const METHOD: &'static str = client::MCP_MESSAGE;
    const SIDE: Side = Side::Client;
    type Params = MessageMcpRequest;
    type Result = MessageMcpResponse;
}

/// `providers/disable`: disables a provider (`providers/disable`).
#[cfg(feature = "unstable_llm_providers")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ProvidersDisable {}

#[cfg(feature = "unstable_llm_providers")]
impl Request for ProvidersDisable {
    const METHOD: &'static str = agent::PROVIDERS_DISABLE;
    const SIDE: Side = Side::Agent;
    type Params = DisableProviderRequest;
    type Result = DisableProviderResponse;
}

/// `providers/list`: lists the agent's LLM providers (`providers/list`).
#[cfg(feature = "unstable_llm_providers")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ProvidersList {}

#[cfg(feature = "unstable_llm_providers")]
impl Request for ProvidersList {
    const METHOD: &'static str = agent::PROVIDERS_LIST;
    const SIDE: Side = Side::Agent;
    type Params = ListProvidersRequest;
    type Result = ListProvidersResponse;
}

/// `providers/set`: the `SetProviderRequest` of ACP v2.
#[cfg(feature = "unstable_llm_providers")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ProvidersSet {}

#[cfg(feature = "unstable_llm_providers")]
impl Request for ProvidersSet {
    const METHOD: &'static str = agent::PROVIDERS_SET;
    const SIDE: Side = Side::Agent;
    type Params = SetProviderRequest;
    type Result = SetProviderResponse;
}

/// `proxy/initialize`: starts a proxy (`proxy/initialize`, conductor to a component that has a successor): the params of `initialize`, with the protocol version the conductor selected.
#[cfg(feature = "unstable_proxy_chains")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ProxyInitialize {}

#[cfg(feature = "unstable_proxy_chains")]
impl Request for ProxyInitialize {
    const METHOD: &'static str = proxy::PROXY_INITIALIZE;
    const SIDE: Side = Side::Proxy;
    type Params = InitializeProxyRequest;
    type Result = InitializeProxyResponse;
}

/// `proxy/successor`: forwards one request to the successor, or delivers one from it (`proxy/successor` with an id): the wrapped request's method and params.
#[cfg(feature = "unstable_proxy_chains")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ProxySuccessor {}

#[cfg(feature = "unstable_proxy_chains")]
impl Request for ProxySuccessor {
    const METHOD: &'static str = proxy::PROXY_SUCCESSOR;
    const SIDE: Side = Side::Proxy;
    type Params = ProxySuccessorRequest;
    type Result = ProxySuccessorResponse;
}

/// `session/archive`: archives a session (`session/archive`): the agent ends any work on it, frees it as `session/close` would, and leaves it out of default `session/list` results.
#[cfg(feature = "unstable_session_archive")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionArchive {}

#[cfg(feature = "unstable_session_archive")]
impl Request for SessionArchive {
    const METHOD: &'static str = agent::SESSION_ARCHIVE;
    const SIDE: Side = Side::Agent;
    type Params = ArchiveSessionRequest;
    type Result = ArchiveSessionResponse;
}

/// `session/close`: asks the agent to close a session and free its resources (`session/close`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionClose {}

impl Request for SessionClose {
    const METHOD: &'static str = agent::SESSION_CLOSE;
    const SIDE: Side = Side::Agent;
    type Params = CloseSessionRequest;
    type Result = CloseSessionResponse;
}

/// `session/delete`: asks the agent to delete a session (`session/delete`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionDelete {}

impl Request for SessionDelete {
    const METHOD: &'static str = agent::SESSION_DELETE;
    const SIDE: Side = Side::Agent;
    type Params = DeleteSessionRequest;
    type Result = DeleteSessionResponse;
}

/// `session/fork`: forks an existing session into a new one with the same history (`session/fork`).
#[cfg(feature = "unstable_session_fork")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionFork {}

#[cfg(feature = "unstable_session_fork")]
impl Request for SessionFork {
    const METHOD: &'static str = agent::SESSION_FORK;
    const SIDE: Side = Side::Agent;
    type Params = ForkSessionRequest;
    type Result = ForkSessionResponse;
}

/// `session/list`: asks the agent for its sessions, a page at a time (`session/list`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionList {}

impl Request for SessionList {
    const METHOD: &'static str = agent::SESSION_LIST;
    const SIDE: Side = Side::Agent;
    type Params = ListSessionsRequest;
    type Result = ListSessionsResponse;
}

/// `session/new`: asks the agent to start a new session (`session/new`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionNew {}

impl Request for SessionNew {
    const METHOD: &'static str = agent::SESSION_NEW;
    const SIDE: Side = Side::Agent;
    type Params = NewSessionRequest;
    type Result = NewSessionResponse;
}

/// `session/prompt`: sends the user's prompt to the agent and starts a turn (`session/prompt`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionPrompt {}

impl Request for SessionPrompt {
    const METHOD: &'static str = agent::SESSION_PROMPT;
    const SIDE: Side = Side::Agent;
    type Params = PromptRequest;
    type Result = PromptResponse;
}

/// `session/request_permission`: asks the user for permission (`session/request_permission`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionRequestPermission {}

impl Request for SessionRequestPermission {
    const METHOD: &'static str = client::SESSION_REQUEST_PERMISSION;
    const SIDE: Side = Side::Client;
    type Params = RequestPermissionRequest;
    type Result = RequestPermissionResponse;
}

/// `session/resume`: reattaches to a session (`session/resume`), replaying its history when `replayFrom` asks for it.
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionResume {}

impl Request for SessionResume {
    const METHOD: &'static str = agent::SESSION_RESUME;
    const SIDE: Side = Side::Agent;
    type Params = ResumeSessionRequest;
    type Result = ResumeSessionResponse;
}

/// `session/set_config_option`: asks the agent to change a session configuration option (`session/set_config_option`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionSetConfigOption {}

impl Request for SessionSetConfigOption {
    const METHOD: &'static str = agent::SESSION_SET_CONFIG_OPTION;
    const SIDE: Side = Side::Agent;
    type Params = SetSessionConfigOptionRequest;
    type Result = SetSessionConfigOptionResponse;
}

/// `session/set_title`: sets a session's title (`session/set_title`).
#[cfg(feature = "unstable_session_set_title")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionSetTitle {}

#[cfg(feature = "unstable_session_set_title")]
impl Request for SessionSetTitle {
    const METHOD: &'static str = agent::SESSION_SET_TITLE;
    const SIDE: Side = Side::Agent;
    type Params = SetSessionTitleRequest;
    type Result = SetSessionTitleResponse;
}

/// `session/status`: asks whether the agent holds a session in memory (`session/status`).
#[cfg(feature = "unstable_session_status")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionStatus {}

#[cfg(feature = "unstable_session_status")]
impl Request for SessionStatus {
    const METHOD: &'static str = agent::SESSION_STATUS;
    const SIDE: Side = Side::Agent;
    type Params = SessionStatusRequest;
    type Result = SessionStatusResponse;
}

/// `session/unarchive`: unarchives a session (`session/unarchive`): it is listed by default again.
#[cfg(feature = "unstable_session_archive")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionUnarchive {}

#[cfg(feature = "unstable_session_archive")]
impl Request for SessionUnarchive {
    const METHOD: &'static str = agent::SESSION_UNARCHIVE;
    const SIDE: Side = Side::Agent;
    type Params = UnarchiveSessionRequest;
    type Result = UnarchiveSessionResponse;
}

/// `terminal/cancel`: asks the agent to cancel the command of a display terminal that advertises cancellation (`terminal/cancel`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum TerminalCancel {}

impl Request for TerminalCancel {
    const METHOD: &'static str = agent::TERMINAL_CANCEL;
    const SIDE: Side = Side::Agent;
    type Params = CancelTerminalRequest;
    type Result = CancelTerminalResponse;
}

/// `tool_call/cancel`: asks the agent to cancel a tool call that advertises cancellation (`tool_call/cancel`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ToolCallCancel {}

impl Request for ToolCallCancel {
    const METHOD: &'static str = agent::TOOL_CALL_CANCEL;
    const SIDE: Side = Side::Agent;
    type Params = CancelToolCallRequest;
    type Result = CancelToolCallResponse;
}

/// `$/cancel_request`: cancels one JSON-RPC request that is still running (`$/cancel_request`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum CancelRequest {}

impl Notification for CancelRequest {
    const METHOD: &'static str = protocol::CANCEL_REQUEST;
    const SIDE: Side = Side::Protocol;
    type Params = CancelRequestNotification;
}

/// `auth/status_update`: the agent's authentication state changed (`auth/status_update`, agent to client).
#[cfg(feature = "unstable_auth_status")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum AuthStatusUpdate {}

#[cfg(feature = "unstable_auth_status")]
impl Notification for AuthStatusUpdate {
    const METHOD: &'static str = client::AUTH_STATUS_UPDATE;
    const SIDE: Side = Side::Client;
    type Params = AuthStatusUpdateNotification;
}

/// `elicitation/complete`: tells the client an out-of-band (URL) elicitation finished (`elicitation/complete`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ElicitationComplete {}

impl Notification for ElicitationComplete {
    const METHOD: &'static str = client::ELICITATION_COMPLETE;
    const SIDE: Side = Side::Client;
    type Params = CompleteElicitationNotification;
}

/// `mcp/message`: the `MessageMcpNotification` of ACP v2.
#[cfg(feature = "unstable_mcp_over_acp")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum McpMessageNotification {}

#[cfg(feature = "unstable_mcp_over_acp")]
impl Notification for McpMessageNotification {
    const METHOD: &'static str = agent::MCP_MESSAGE;
    const SIDE: Side = Side::Agent;
    type Params = MessageMcpNotification;
}

/// `proxy/successor`: forwards one notification to the successor, or delivers one from it (`proxy/successor` without an id): the wrapped notification's method and params.
#[cfg(feature = "unstable_proxy_chains")]
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ProxySuccessorNotify {}

#[cfg(feature = "unstable_proxy_chains")]
impl Notification for ProxySuccessorNotify {
    const METHOD: &'static str = proxy::PROXY_SUCCESSOR;
    const SIDE: Side = Side::Proxy;
    type Params = ProxySuccessorNotification;
}

/// `session/cancel`: asks the agent to stop the session's foreground work (`session/cancel`); the idle `state_update` with the `cancelled` stop reason confirms it.
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionCancel {}

impl Notification for SessionCancel {
    const METHOD: &'static str = agent::SESSION_CANCEL;
    const SIDE: Side = Side::Agent;
    type Params = CancelSessionNotification;
}

/// `session/update`: an update about a session, sent by the agent (`session/update`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum SessionUpdate {}

impl Notification for SessionUpdate {
    const METHOD: &'static str = client::SESSION_UPDATE;
    const SIDE: Side = Side::Client;
    type Params = UpdateSessionNotification;
}

/// Every method of v2 compiled in (the drafts with their features), requests first: name,
/// side, params and result definitions. `mcp/message` and `proxy/successor` (drafts) have two
/// entries each, a request and a notification.
pub const DEFINITIONS: &[MethodDefinition] = &[
    MethodDefinition {
        method: agent::AUTH_LOGIN,
        side: Side::Agent,
        params: "LoginAuthRequest",
        result: Some("LoginAuthResponse"),
    },
    MethodDefinition {
        method: agent::AUTH_LOGOUT,
        side: Side::Agent,
        params: "LogoutAuthRequest",
        result: Some("LogoutAuthResponse"),
    },
    #[cfg(feature = "unstable_auth_status")]
    MethodDefinition {
        method: agent::AUTH_STATUS,
        side: Side::Agent,
        params: "AuthStatusRequest",
        result: Some("AuthStatusResponse"),
    },
    MethodDefinition {
        method: client::ELICITATION_CREATE,
        side: Side::Client,
        params: "CreateElicitationRequest",
        result: Some("CreateElicitationResponse"),
    },
    MethodDefinition {
        method: agent::INITIALIZE,
        side: Side::Agent,
        params: "InitializeRequest",
        result: Some("InitializeResponse"),
    },
    #[cfg(feature = "unstable_mcp_over_acp")]
    MethodDefinition {
        method: client::MCP_MESSAGE,
        side: Side::Client,
        params: "MessageMcpRequest",
        result: Some("MessageMcpResponse"),
    },
    #[cfg(feature = "unstable_llm_providers")]
    MethodDefinition {
        method: agent::PROVIDERS_DISABLE,
        side: Side::Agent,
        params: "DisableProviderRequest",
        result: Some("DisableProviderResponse"),
    },
    #[cfg(feature = "unstable_llm_providers")]
    MethodDefinition {
        method: agent::PROVIDERS_LIST,
        side: Side::Agent,
        params: "ListProvidersRequest",
        result: Some("ListProvidersResponse"),
    },
    #[cfg(feature = "unstable_llm_providers")]
    MethodDefinition {
        method: agent::PROVIDERS_SET,
        side: Side::Agent,
        params: "SetProviderRequest",
        result: Some("SetProviderResponse"),
    },
    #[cfg(feature = "unstable_proxy_chains")]
    MethodDefinition {
        method: proxy::PROXY_INITIALIZE,
        side: Side::Proxy,
        params: "InitializeProxyRequest",
        result: Some("InitializeProxyResponse"),
    },
    #[cfg(feature = "unstable_proxy_chains")]
    MethodDefinition {
        method: proxy::PROXY_SUCCESSOR,
        side: Side::Proxy,
        params: "ProxySuccessorRequest",
        result: Some("ProxySuccessorResponse"),
    },
    #[cfg(feature = "unstable_session_archive")]
    MethodDefinition {
        method: agent::SESSION_ARCHIVE,
        side: Side::Agent,
        params: "ArchiveSessionRequest",
        result: Some("ArchiveSessionResponse"),
    },
    MethodDefinition {
        method: agent::SESSION_CLOSE,
        side: Side::Agent,
        params: "CloseSessionRequest",
        result: Some("CloseSessionResponse"),
    },
    MethodDefinition {
        method: agent::SESSION_DELETE,
        side: Side::Agent,
        params: "DeleteSessionRequest",
        result: Some("DeleteSessionResponse"),
    },
    #[cfg(feature = "unstable_session_fork")]
    MethodDefinition {
        method: agent::SESSION_FORK,
        side: Side::Agent,
        params: "ForkSessionRequest",
        result: Some("ForkSessionResponse"),
    },
    MethodDefinition {
        method: agent::SESSION_LIST,
        side: Side::Agent,
        params: "ListSessionsRequest",
        result: Some("ListSessionsResponse"),
    },
    MethodDefinition {
        method: agent::SESSION_NEW,
        side: Side::Agent,
        params: "NewSessionRequest",
        result: Some("NewSessionResponse"),
    },
    MethodDefinition {
        method: agent::SESSION_PROMPT,
        side: Side::Agent,
        params: "PromptRequest",
        result: Some("PromptResponse"),
    },
    MethodDefinition {
        method: client::SESSION_REQUEST_PERMISSION,
        side: Side::Client,
        params: "RequestPermissionRequest",
        result: Some("RequestPermissionResponse"),
    },
    MethodDefinition {
        method: agent::SESSION_RESUME,
        side: Side::Agent,
        params: "ResumeSessionRequest",
        result: Some("ResumeSessionResponse"),
    },
    MethodDefinition {
        method: agent::SESSION_SET_CONFIG_OPTION,
        side: Side::Agent,
        params: "SetSessionConfigOptionRequest",
        result: Some("SetSessionConfigOptionResponse"),
    },
    #[cfg(feature = "unstable_session_set_title")]
    MethodDefinition {
        method: agent::SESSION_SET_TITLE,
        side: Side::Agent,
        params: "SetSessionTitleRequest",
        result: Some("SetSessionTitleResponse"),
    },
    #[cfg(feature = "unstable_session_status")]
    MethodDefinition {
        method: agent::SESSION_STATUS,
        side: Side::Agent,
        params: "SessionStatusRequest",
        result: Some("SessionStatusResponse"),
    },
    #[cfg(feature = "unstable_session_archive")]
    MethodDefinition {
        method: agent::SESSION_UNARCHIVE,
        side: Side::Agent,
        params: "UnarchiveSessionRequest",
        result: Some("UnarchiveSessionResponse"),
    },
    MethodDefinition {
        method: agent::TERMINAL_CANCEL,
        side: Side::Agent,
        params: "CancelTerminalRequest",
        result: Some("CancelTerminalResponse"),
    },
    MethodDefinition {
        method: agent::TOOL_CALL_CANCEL,
        side: Side::Agent,
        params: "CancelToolCallRequest",
        result: Some("CancelToolCallResponse"),
    },
    MethodDefinition {
        method: protocol::CANCEL_REQUEST,
        side: Side::Protocol,
        params: "CancelRequestNotification",
        result: None,
    },
    #[cfg(feature = "unstable_auth_status")]
    MethodDefinition {
        method: client::AUTH_STATUS_UPDATE,
        side: Side::Client,
        params: "AuthStatusUpdateNotification",
        result: None,
    },
    MethodDefinition {
        method: client::ELICITATION_COMPLETE,
        side: Side::Client,
        params: "CompleteElicitationNotification",
        result: None,
    },
    #[cfg(feature = "unstable_mcp_over_acp")]
    MethodDefinition {
        method: agent::MCP_MESSAGE,
        side: Side::Agent,
        params: "MessageMcpNotification",
        result: None,
    },
    #[cfg(feature = "unstable_proxy_chains")]
    MethodDefinition {
        method: proxy::PROXY_SUCCESSOR,
        side: Side::Proxy,
        params: "ProxySuccessorNotification",
        result: None,
    },
    MethodDefinition {
        method: agent::SESSION_CANCEL,
        side: Side::Agent,
        params: "CancelSessionNotification",
        result: None,
    },
    MethodDefinition {
        method: client::SESSION_UPDATE,
        side: Side::Client,
        params: "UpdateSessionNotification",
        result: None,
    },
];

/// The entry of [`DEFINITIONS`] for `method`, if v2 has it (the request, for a method that is
/// also a notification).
pub fn definition(method: &str) -> Option<&'static MethodDefinition> {
    DEFINITIONS.iter().find(|d| d.method == method)
}
