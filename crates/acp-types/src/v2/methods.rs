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
    /// `initialize`.
    pub const INITIALIZE: &str = "initialize";
    /// `session/cancel` (a notification).
    pub const SESSION_CANCEL: &str = "session/cancel";
    /// `session/close`.
    pub const SESSION_CLOSE: &str = "session/close";
    /// `session/delete`.
    pub const SESSION_DELETE: &str = "session/delete";
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
    /// `terminal/cancel`.
    pub const TERMINAL_CANCEL: &str = "terminal/cancel";
    /// `tool_call/cancel`.
    pub const TOOL_CALL_CANCEL: &str = "tool_call/cancel";

    /// Every method the agent side serves.
    pub const ALL: &[&str] = &[
        AUTH_LOGIN,
        AUTH_LOGOUT,
        INITIALIZE,
        SESSION_CANCEL,
        SESSION_CLOSE,
        SESSION_DELETE,
        SESSION_LIST,
        SESSION_NEW,
        SESSION_PROMPT,
        SESSION_RESUME,
        SESSION_SET_CONFIG_OPTION,
        TERMINAL_CANCEL,
        TOOL_CALL_CANCEL,
    ];
}

/// Methods the client serves (the agent calls them).
pub mod client {
    /// `elicitation/complete` (a notification).
    pub const ELICITATION_COMPLETE: &str = "elicitation/complete";
    /// `elicitation/create`.
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// `session/request_permission`.
    pub const SESSION_REQUEST_PERMISSION: &str = "session/request_permission";
    /// `session/update` (a notification).
    pub const SESSION_UPDATE: &str = "session/update";

    /// Every method the client side serves.
    pub const ALL: &[&str] = &[
        ELICITATION_COMPLETE,
        ELICITATION_CREATE,
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

/// `elicitation/complete`: tells the client an out-of-band (URL) elicitation finished (`elicitation/complete`).
#[derive(Debug)]
#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
pub enum ElicitationComplete {}

impl Notification for ElicitationComplete {
    const METHOD: &'static str = client::ELICITATION_COMPLETE;
    const SIDE: Side = Side::Client;
    type Params = CompleteElicitationNotification;
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

/// Every method of v2, requests first: name, side, params and result definitions.
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
    MethodDefinition {
        method: client::ELICITATION_COMPLETE,
        side: Side::Client,
        params: "CompleteElicitationNotification",
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

/// The entry of [`DEFINITIONS`] for `method`, if v2 has it.
pub fn definition(method: &str) -> Option<&'static MethodDefinition> {
    DEFINITIONS.iter().find(|d| d.method == method)
}
