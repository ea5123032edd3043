//! Method names and typed methods.
//!
//! Method-name constants are grouped by the side that receives the call: [`agent`] (the client
//! calls the agent), [`client`] (the agent calls the client) and [`protocol`] (either side).
//! Each method also has an uninhabited marker type implementing [`Request`] or
//! [`Notification`], tying its name to its params and result types:
//!
//! ```
//! use acp_types::methods::{Request, SessionPrompt};
//!
//! assert_eq!(SessionPrompt::METHOD, "session/prompt");
//! fn result_type(_: <SessionPrompt as Request>::Result) {}
//! result_type(acp_types::PromptResponse::new(acp_types::StopReason::EndTurn));
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::*;

/// Methods the agent serves (the client calls them).
pub mod agent {
    /// `initialize`.
    pub const INITIALIZE: &str = "initialize";
    /// `authenticate`.
    pub const AUTHENTICATE: &str = "authenticate";
    /// `logout`.
    pub const LOGOUT: &str = "logout";
    /// `session/new`.
    pub const SESSION_NEW: &str = "session/new";
    /// `session/load`.
    pub const SESSION_LOAD: &str = "session/load";
    /// `session/list`.
    pub const SESSION_LIST: &str = "session/list";
    /// `session/delete`.
    pub const SESSION_DELETE: &str = "session/delete";
    /// `session/resume`.
    pub const SESSION_RESUME: &str = "session/resume";
    /// `session/close`.
    pub const SESSION_CLOSE: &str = "session/close";
    /// `session/set_mode`.
    pub const SESSION_SET_MODE: &str = "session/set_mode";
    /// `session/set_config_option`.
    pub const SESSION_SET_CONFIG_OPTION: &str = "session/set_config_option";
    /// `session/prompt`.
    pub const SESSION_PROMPT: &str = "session/prompt";
    /// `session/cancel` (a notification).
    pub const SESSION_CANCEL: &str = "session/cancel";
    #[cfg(feature = "unstable_session_fork")]
    /// `session/fork` (draft).
    pub const SESSION_FORK: &str = "session/fork";
    #[cfg(feature = "unstable_llm_providers")]
    /// `providers/list` (draft).
    pub const PROVIDERS_LIST: &str = "providers/list";
    #[cfg(feature = "unstable_llm_providers")]
    /// `providers/set` (draft).
    pub const PROVIDERS_SET: &str = "providers/set";
    #[cfg(feature = "unstable_llm_providers")]
    /// `providers/disable` (draft).
    pub const PROVIDERS_DISABLE: &str = "providers/disable";
    #[cfg(feature = "unstable_mcp_over_acp")]
    /// `mcp/message` as a notification (client to agent, for an active inner request; draft).
    pub const MCP_MESSAGE: &str = "mcp/message";
    #[cfg(feature = "unstable_auth_status")]
    /// `auth/status` (draft).
    pub const AUTH_STATUS: &str = "auth/status";
    #[cfg(feature = "unstable_session_archive")]
    /// `session/archive` (draft).
    pub const SESSION_ARCHIVE: &str = "session/archive";
    #[cfg(feature = "unstable_session_archive")]
    /// `session/unarchive` (draft).
    pub const SESSION_UNARCHIVE: &str = "session/unarchive";
    #[cfg(feature = "unstable_session_status")]
    /// `session/status` (draft).
    pub const SESSION_STATUS: &str = "session/status";
    #[cfg(feature = "unstable_session_set_title")]
    /// `session/set_title` (draft).
    pub const SESSION_SET_TITLE: &str = "session/set_title";
    #[cfg(feature = "unstable_proxy_chains")]
    /// `proxy/initialize` (served by a proxy, which is an agent to its predecessor; draft).
    pub const PROXY_INITIALIZE: &str = "proxy/initialize";
    #[cfg(feature = "unstable_proxy_chains")]
    /// `proxy/successor` (a request and a notification between a proxy and its conductor;
    /// draft).
    pub const PROXY_SUCCESSOR: &str = "proxy/successor";

    /// Every method the agent serves.
    pub const ALL: &[&str] = &[
        INITIALIZE,
        AUTHENTICATE,
        LOGOUT,
        SESSION_NEW,
        SESSION_LOAD,
        SESSION_LIST,
        SESSION_DELETE,
        SESSION_RESUME,
        SESSION_CLOSE,
        SESSION_SET_MODE,
        SESSION_SET_CONFIG_OPTION,
        SESSION_PROMPT,
        SESSION_CANCEL,
        #[cfg(feature = "unstable_session_fork")]
        SESSION_FORK,
        #[cfg(feature = "unstable_llm_providers")]
        PROVIDERS_LIST,
        #[cfg(feature = "unstable_llm_providers")]
        PROVIDERS_SET,
        #[cfg(feature = "unstable_llm_providers")]
        PROVIDERS_DISABLE,
        #[cfg(feature = "unstable_mcp_over_acp")]
        MCP_MESSAGE,
        #[cfg(feature = "unstable_auth_status")]
        AUTH_STATUS,
        #[cfg(feature = "unstable_session_archive")]
        SESSION_ARCHIVE,
        #[cfg(feature = "unstable_session_archive")]
        SESSION_UNARCHIVE,
        #[cfg(feature = "unstable_session_status")]
        SESSION_STATUS,
        #[cfg(feature = "unstable_session_set_title")]
        SESSION_SET_TITLE,
        #[cfg(feature = "unstable_proxy_chains")]
        PROXY_INITIALIZE,
        #[cfg(feature = "unstable_proxy_chains")]
        PROXY_SUCCESSOR,
    ];
}

/// Methods the client serves (the agent calls them).
pub mod client {
    /// `session/request_permission`.
    pub const SESSION_REQUEST_PERMISSION: &str = "session/request_permission";
    /// `session/update` (a notification).
    pub const SESSION_UPDATE: &str = "session/update";
    /// `fs/read_text_file`.
    pub const FS_READ_TEXT_FILE: &str = "fs/read_text_file";
    /// `fs/write_text_file`.
    pub const FS_WRITE_TEXT_FILE: &str = "fs/write_text_file";
    /// `terminal/create`.
    pub const TERMINAL_CREATE: &str = "terminal/create";
    /// `terminal/output`.
    pub const TERMINAL_OUTPUT: &str = "terminal/output";
    /// `terminal/release`.
    pub const TERMINAL_RELEASE: &str = "terminal/release";
    /// `terminal/wait_for_exit`.
    pub const TERMINAL_WAIT_FOR_EXIT: &str = "terminal/wait_for_exit";
    /// `terminal/kill`.
    pub const TERMINAL_KILL: &str = "terminal/kill";
    /// `elicitation/create`.
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// `elicitation/complete` (a notification).
    pub const ELICITATION_COMPLETE: &str = "elicitation/complete";
    #[cfg(feature = "unstable_mcp_over_acp")]
    /// `mcp/message` as a request (agent to client: an inner MCP request; draft).
    pub const MCP_MESSAGE: &str = "mcp/message";
    #[cfg(feature = "unstable_auth_status")]
    /// `auth/status_update` (a notification, draft).
    pub const AUTH_STATUS_UPDATE: &str = "auth/status_update";
    /// `proxy/initialize` and `proxy/successor` (a proxy is a client to its successor; draft).
    #[cfg(feature = "unstable_proxy_chains")]
    pub use super::agent::{PROXY_INITIALIZE, PROXY_SUCCESSOR};

    /// Every method the client serves.
    pub const ALL: &[&str] = &[
        SESSION_REQUEST_PERMISSION,
        SESSION_UPDATE,
        FS_READ_TEXT_FILE,
        FS_WRITE_TEXT_FILE,
        TERMINAL_CREATE,
        TERMINAL_OUTPUT,
        TERMINAL_RELEASE,
        TERMINAL_WAIT_FOR_EXIT,
        TERMINAL_KILL,
        ELICITATION_CREATE,
        ELICITATION_COMPLETE,
        #[cfg(feature = "unstable_mcp_over_acp")]
        MCP_MESSAGE,
        #[cfg(feature = "unstable_auth_status")]
        AUTH_STATUS_UPDATE,
        #[cfg(feature = "unstable_proxy_chains")]
        PROXY_INITIALIZE,
        #[cfg(feature = "unstable_proxy_chains")]
        PROXY_SUCCESSOR,
    ];
}

/// Methods either side may send.
pub mod protocol {
    /// `$/cancel_request` (a notification): cancel one running request.
    pub const CANCEL_REQUEST: &str = "$/cancel_request";

    /// Every protocol-level method.
    pub const ALL: &[&str] = &[CANCEL_REQUEST];
}

/// Which side of the connection serves a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Side {
    /// The agent serves it; the client calls it.
    Agent,
    /// The client serves it; the agent calls it.
    Client,
    /// Either side may send it: a protocol-level method (`$/cancel_request`).
    Protocol,
    /// Served by a proxy of a proxy chain, and sent between it and its conductor in both
    /// directions (the draft `proxy/*` methods).
    Proxy,
}

impl Side {
    /// The side as the official schema's `x-side` writes it: `"agent"`, `"client"`,
    /// `"protocol"` or `"proxy"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Side::Agent => "agent",
            Side::Client => "client",
            Side::Protocol => "protocol",
            Side::Proxy => "proxy",
        }
    }
}

/// A method's definitions in the schema: its params and, for a request, its result, under
/// their official names (the definitions the official schema marks with `x-method` and
/// `x-side`, as the generated one does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MethodDefinition {
    /// The method name.
    pub method: &'static str,
    /// Which side serves it.
    pub side: Side,
    /// The definition of its params.
    pub params: &'static str,
    /// The definition of its result; `None` for a notification.
    pub result: Option<&'static str>,
}

impl MethodDefinition {
    /// True for a notification (a method without a result).
    pub const fn is_notification(&self) -> bool {
        self.result.is_none()
    }
}

/// Every method compiled in (the draft ones with their features), requests first: name, side,
/// params and result definitions. `mcp/message` and `proxy/successor` (drafts) have two
/// entries each, a request and a notification.
///
/// ```
/// use acp_types::methods::{self, Side};
///
/// let prompt = methods::definitions("session/prompt").next().unwrap();
/// assert_eq!(prompt.side, Side::Agent);
/// assert_eq!((prompt.params, prompt.result), ("PromptRequest", Some("PromptResponse")));
/// ```
pub const DEFINITIONS: &[MethodDefinition] = &{
    const NONE: MethodDefinition = MethodDefinition {
        method: "",
        side: Side::Protocol,
        params: "",
        result: None,
    };
    let mut all = [NONE; REQUEST_DEFINITIONS.len() + NOTIFICATION_DEFINITIONS.len()];
    let mut i = 0;
    while i < REQUEST_DEFINITIONS.len() {
        all[i] = REQUEST_DEFINITIONS[i];
        i += 1;
    }
    while i < all.len() {
        all[i] = NOTIFICATION_DEFINITIONS[i - REQUEST_DEFINITIONS.len()];
        i += 1;
    }
    all
};

/// The entries of [`DEFINITIONS`] for `method`: none for a method not compiled in, two for
/// `mcp/message` and `proxy/successor` (request and notification), else one.
pub fn definitions(method: &str) -> impl Iterator<Item = &'static MethodDefinition> + '_ {
    DEFINITIONS.iter().filter(move |d| d.method == method)
}

/// A request method: its name, params and result types.
pub trait Request {
    /// The method name.
    const METHOD: &'static str;
    /// Which side serves it.
    const SIDE: Side;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The result type.
    type Result: Serialize + DeserializeOwned + Send + Sync + 'static;
}

/// A notification method: its name and params type.
pub trait Notification {
    /// The method name.
    const METHOD: &'static str;
    /// Which side receives it.
    const SIDE: Side;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
}

macro_rules! request_markers {
    ($(
        $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])?
        $marker:ident = $side:ident :: $konst:ident, $params:ty => $result:ty;
    )*) => {
        $(
            $(#[doc = $doc])*
            $(#[cfg($cfg)])?
            #[derive(Debug)]
            #[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
            pub enum $marker {}

            $(#[cfg($cfg)])?
            impl Request for $marker {
                const METHOD: &'static str = request_markers!(@konst $side $konst);
                const SIDE: Side = request_markers!(@side $side);
                type Params = $params;
                type Result = $result;
            }
        )*

        /// The requests of [`DEFINITIONS`].
        const REQUEST_DEFINITIONS: &[MethodDefinition] = &[$(
            $(#[cfg($cfg)])?
            MethodDefinition {
                method: request_markers!(@konst $side $konst),
                side: request_markers!(@side $side),
                params: stringify!($params),
                result: Some(stringify!($result)),
            },
        )*];
    };
    (@konst proxy $konst:ident) => { agent::$konst };
    (@konst $side:ident $konst:ident) => { $side::$konst };
    (@side agent) => { Side::Agent };
    (@side client) => { Side::Client };
    (@side protocol) => { Side::Protocol };
    // The `proxy/*` methods: their constants are in both modules.
    (@side proxy) => { Side::Proxy };
}

macro_rules! notification_markers {
    ($(
        $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])?
        $marker:ident = $side:ident :: $konst:ident, $params:ty;
    )*) => {
        $(
            $(#[doc = $doc])*
            $(#[cfg($cfg)])?
            #[derive(Debug)]
            #[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.
            pub enum $marker {}

            $(#[cfg($cfg)])?
            impl Notification for $marker {
                const METHOD: &'static str = request_markers!(@konst $side $konst);
                const SIDE: Side = request_markers!(@side $side);
                type Params = $params;
            }
        )*

        /// The notifications of [`DEFINITIONS`].
        const NOTIFICATION_DEFINITIONS: &[MethodDefinition] = &[$(
            $(#[cfg($cfg)])?
            MethodDefinition {
                method: request_markers!(@konst $side $konst),
                side: request_markers!(@side $side),
                params: stringify!($params),
                result: None,
            },
        )*];
    };
}

request_markers! {
    /// `initialize`: negotiate the protocol version and capabilities.
    Initialize = agent::INITIALIZE, InitializeRequest => InitializeResponse;
    /// `authenticate`: authenticate with one of the agent's methods.
    Authenticate = agent::AUTHENTICATE, AuthenticateRequest => AuthenticateResponse;
    /// `logout`: sign the user out.
    Logout = agent::LOGOUT, LogoutRequest => LogoutResponse;
    /// `session/new`: start a session.
    SessionNew = agent::SESSION_NEW, NewSessionRequest => NewSessionResponse;
    /// `session/load`: load a session, replaying its history.
    SessionLoad = agent::SESSION_LOAD, LoadSessionRequest => LoadSessionResponse;
    /// `session/list`: list sessions.
    SessionList = agent::SESSION_LIST, ListSessionsRequest => ListSessionsResponse;
    /// `session/delete`: delete a session.
    SessionDelete = agent::SESSION_DELETE, DeleteSessionRequest => DeleteSessionResponse;
    /// `session/resume`: resume a session without replaying it.
    SessionResume = agent::SESSION_RESUME, ResumeSessionRequest => ResumeSessionResponse;
    /// `session/close`: close a session.
    SessionClose = agent::SESSION_CLOSE, CloseSessionRequest => CloseSessionResponse;
    /// `session/set_mode`: switch the session mode.
    SessionSetMode = agent::SESSION_SET_MODE, SetSessionModeRequest => SetSessionModeResponse;
    /// `session/set_config_option`: change a configuration option.
    SessionSetConfigOption = agent::SESSION_SET_CONFIG_OPTION,
        SetSessionConfigOptionRequest => SetSessionConfigOptionResponse;
    /// `session/prompt`: run a prompt turn.
    SessionPrompt = agent::SESSION_PROMPT, PromptRequest => PromptResponse;
    /// `session/request_permission`: ask the user to approve a tool call.
    SessionRequestPermission = client::SESSION_REQUEST_PERMISSION,
        RequestPermissionRequest => RequestPermissionResponse;
    /// `fs/read_text_file`: read a text file.
    FsReadTextFile = client::FS_READ_TEXT_FILE, ReadTextFileRequest => ReadTextFileResponse;
    /// `fs/write_text_file`: write a text file.
    FsWriteTextFile = client::FS_WRITE_TEXT_FILE, WriteTextFileRequest => WriteTextFileResponse;
    /// `terminal/create`: run a command in a new terminal.
    TerminalCreate = client::TERMINAL_CREATE, CreateTerminalRequest => CreateTerminalResponse;
    /// `terminal/output`: get a terminal's output so far.
    TerminalOutput = client::TERMINAL_OUTPUT, TerminalOutputRequest => TerminalOutputResponse;
    /// `terminal/release`: release a terminal.
    TerminalRelease = client::TERMINAL_RELEASE, ReleaseTerminalRequest => ReleaseTerminalResponse;
    /// `terminal/wait_for_exit`: wait for a terminal's command to exit.
    TerminalWaitForExit = client::TERMINAL_WAIT_FOR_EXIT,
        WaitForTerminalExitRequest => WaitForTerminalExitResponse;
    /// `terminal/kill`: kill a terminal's command.
    TerminalKill = client::TERMINAL_KILL, KillTerminalRequest => KillTerminalResponse;
    /// `elicitation/create`: collect structured input from the user.
    ElicitationCreate = client::ELICITATION_CREATE,
        CreateElicitationRequest => CreateElicitationResponse;
    /// `session/fork`: fork a session for side prompts (draft).
    #[cfg(feature = "unstable_session_fork")]
    SessionFork = agent::SESSION_FORK, ForkSessionRequest => ForkSessionResponse;
    /// `providers/list`: list the agent's LLM providers (draft).
    #[cfg(feature = "unstable_llm_providers")]
    ProvidersList = agent::PROVIDERS_LIST, ListProvidersRequest => ListProvidersResponse;
    /// `providers/set`: point an LLM provider at an endpoint (draft).
    #[cfg(feature = "unstable_llm_providers")]
    ProvidersSet = agent::PROVIDERS_SET, SetProviderRequest => SetProviderResponse;
    /// `providers/disable`: disable an LLM provider (draft).
    #[cfg(feature = "unstable_llm_providers")]
    ProvidersDisable = agent::PROVIDERS_DISABLE, DisableProviderRequest => DisableProviderResponse;
    /// `mcp/message` as a request: an inner MCP request to a server reached over ACP (draft).
    #[cfg(feature = "unstable_mcp_over_acp")]
    McpMessage = client::MCP_MESSAGE, MessageMcpRequest => MessageMcpResponse;
    /// `auth/status`: the agent's authentication state (draft).
    #[cfg(feature = "unstable_auth_status")]
    AuthStatus = agent::AUTH_STATUS, AuthStatusRequest => AuthStatusResponse;
    /// `session/archive`: archive a session (draft).
    #[cfg(feature = "unstable_session_archive")]
    SessionArchive = agent::SESSION_ARCHIVE, ArchiveSessionRequest => ArchiveSessionResponse;
    /// `session/unarchive`: unarchive a session (draft).
    #[cfg(feature = "unstable_session_archive")]
    SessionUnarchive = agent::SESSION_UNARCHIVE,
        UnarchiveSessionRequest => UnarchiveSessionResponse;
    /// `session/status`: whether the agent holds a session in memory (draft).
    #[cfg(feature = "unstable_session_status")]
    SessionStatus = agent::SESSION_STATUS, SessionStatusRequest => SessionStatusResponse;
    /// `session/set_title`: retitle a session (draft).
    #[cfg(feature = "unstable_session_set_title")]
    SessionSetTitle = agent::SESSION_SET_TITLE, SetSessionTitleRequest => SetSessionTitleResponse;
    /// `proxy/initialize`: start a proxy of a proxy chain (draft).
    #[cfg(feature = "unstable_proxy_chains")]
    ProxyInitialize = proxy::PROXY_INITIALIZE, InitializeProxyRequest => InitializeProxyResponse;
    /// `proxy/successor` as a request: a request forwarded along a proxy chain (draft).
    #[cfg(feature = "unstable_proxy_chains")]
    ProxySuccessor = proxy::PROXY_SUCCESSOR, ProxySuccessorRequest => ProxySuccessorResponse;
}

notification_markers! {
    /// `session/cancel`: cancel a session's running prompt turn.
    SessionCancel = agent::SESSION_CANCEL, CancelNotification;
    /// `session/update`: report progress of a session.
    SessionUpdate = client::SESSION_UPDATE, SessionNotification;
    /// `elicitation/complete`: a URL elicitation finished.
    ElicitationComplete = client::ELICITATION_COMPLETE, CompleteElicitationNotification;
    /// `$/cancel_request`: cancel one running request.
    CancelRequest = protocol::CANCEL_REQUEST, CancelRequestNotification;
    /// `mcp/message` as a notification: an inner MCP notification for an active inner
    /// request (draft).
    #[cfg(feature = "unstable_mcp_over_acp")]
    McpMessageNotification = agent::MCP_MESSAGE, MessageMcpNotification;
    /// `auth/status_update`: the agent's authentication state changed (draft).
    #[cfg(feature = "unstable_auth_status")]
    AuthStatusUpdate = client::AUTH_STATUS_UPDATE, AuthStatusUpdateNotification;
    /// `proxy/successor` as a notification: a notification forwarded along a proxy chain
    /// (draft).
    #[cfg(feature = "unstable_proxy_chains")]
    ProxySuccessorNotify = proxy::PROXY_SUCCESSOR, ProxySuccessorNotification;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The methods each draft feature adds, by the official `meta.unstable.json`.
    fn unstable_method_count() -> usize {
        [
            (cfg!(feature = "unstable_session_fork"), 1),
            (cfg!(feature = "unstable_llm_providers"), 3),
            (cfg!(feature = "unstable_mcp_over_acp"), 1),
            (cfg!(feature = "unstable_auth_status"), 2),
            (cfg!(feature = "unstable_session_archive"), 2),
            (cfg!(feature = "unstable_session_status"), 1),
            (cfg!(feature = "unstable_session_set_title"), 1),
            (cfg!(feature = "unstable_proxy_chains"), 2),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| n)
        .sum()
    }

    #[test]
    fn method_lists_have_no_duplicates() {
        let mut all: Vec<&str> = agent::ALL
            .iter()
            .chain(client::ALL)
            .chain(protocol::ALL)
            .copied()
            .collect();
        let before = all.len();
        all.sort_unstable();
        all.dedup();
        // `mcp/message` (a request to the client, a notification to the agent) and the two
        // `proxy/*` methods are in both lists.
        let both = usize::from(cfg!(feature = "unstable_mcp_over_acp"))
            + 2 * usize::from(cfg!(feature = "unstable_proxy_chains"));
        assert_eq!(all.len() + both, before);
        assert_eq!(all.len(), 25 + unstable_method_count());
    }

    #[test]
    fn the_definitions_table_has_each_method_once_per_kind_on_its_side() {
        // `mcp/message` and `proxy/successor` are each a request and a notification.
        let both = usize::from(cfg!(feature = "unstable_mcp_over_acp"))
            + usize::from(cfg!(feature = "unstable_proxy_chains"));
        assert_eq!(DEFINITIONS.len(), 25 + unstable_method_count() + both);
        for definition in DEFINITIONS {
            let listed_by = |names: &[&str]| names.contains(&definition.method);
            let expected = match definition.side {
                // `mcp/message` is served by the client as a request and by the agent as a
                // notification.
                Side::Agent => {
                    listed_by(agent::ALL)
                        && (!listed_by(client::ALL) || definition.method == "mcp/message")
                }
                Side::Client => {
                    listed_by(client::ALL)
                        && (!listed_by(agent::ALL) || definition.method == "mcp/message")
                }
                Side::Protocol => listed_by(protocol::ALL),
                Side::Proxy => listed_by(agent::ALL) && listed_by(client::ALL),
            };
            assert!(expected, "{definition:?} is not listed under its side");
            assert_eq!(
                definition.params.ends_with("Notification"),
                definition.is_notification(),
                "{definition:?}"
            );
            let kinds = definitions(definition.method)
                .filter(|d| d.is_notification() == definition.is_notification())
                .count();
            assert_eq!(kinds, 1, "{} listed twice", definition.method);
        }
    }
}
