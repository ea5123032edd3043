//! The protocol's message unions: params, results and notifications typed by method name.
//!
//! JSON-RPC messages name their method in `method`; the method decides the type of `params`,
//! and, for a response, the method of the matching request decides the type of `result`. The
//! unions here decode *by method, not by shape*: given the method, the params decode into the
//! one right type, or fail with that type's error. Methods starting with `_` are extensions and
//! keep their params raw.

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, Deserializer};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use crate::ext::is_extension_method;
use crate::methods::{agent, client, protocol};
use crate::prelude::*;

/// A union of the params (or results) of a set of methods, decoded by method name.
pub trait MethodUnion: Sized + Serialize {
    /// The method this value belongs to.
    fn method(&self) -> &str;

    /// True when `method` is one of the union's methods (extension methods excluded).
    fn is_known(method: &str) -> bool;

    /// Decodes the params (or result) of `method`.
    ///
    /// # Errors
    ///
    /// When `method` is unknown, or the JSON does not fit its type.
    fn decode<'de, D: Deserializer<'de>>(method: &str, deserializer: D) -> Result<Self, D::Error>;

    /// True when `method` is known or an extension method.
    fn accepts(method: &str) -> bool {
        Self::is_known(method) || is_extension_method(method)
    }
}

/// Declares a method union.
///
/// A variant may carry one `#[cfg(...)]` after its doc comment (a method of a draft feature):
/// when the condition does not hold, its method is unknown, as before the feature existed.
macro_rules! method_union {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident : $ext:ident {
            $(
                $(#[doc = $vdoc:literal])*
                $(#[cfg($vcfg:meta)])?
                $var:ident($ty:ty) = $method:path $(as $boxed:ident)?,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        // Hot variants stay inline (a box costs each decode an allocation); large, rarer ones are
        // declared `as boxed`, so that moving a decoded value stays cheap.
        #[allow(clippy::large_enum_variant)]
        pub enum $name {
            $(
                $(#[doc = $vdoc])*
                $(#[cfg($vcfg)])?
                $var($crate::wire::maybe_box!($ty $(, $boxed)?)),
            )*
            /// An extension method (its name starts with `_`), with its payload kept raw.
            Ext($ext),
        }

        impl MethodUnion for $name {
            fn method(&self) -> &str {
                match self {
                    $( $(#[cfg($vcfg)])? Self::$var(_) => $method, )*
                    Self::Ext(ext) => &ext.method,
                }
            }

            fn is_known(method: &str) -> bool {
                match method {
                    $( $(#[cfg($vcfg)])? $method => true, )*
                    _ => false,
                }
            }

            fn decode<'de, D: Deserializer<'de>>(method: &str, deserializer: D) -> Result<Self, D::Error> {
                match method {
                    $( $(#[cfg($vcfg)])? $method => <$ty as ::serde::Deserialize>::deserialize(deserializer).map(|v| Self::$var(v.into())), )*
                    ext if is_extension_method(ext) => {
                        let raw = <Box<RawValue> as ::serde::Deserialize>::deserialize(deserializer)?;
                        Ok(Self::Ext($ext::from_raw(ext, Some(raw))))
                    }
                    other => Err(de::Error::custom(format_args!("unknown method `{other}`"))),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $(#[cfg($vcfg)])? Self::$var(inner) => inner.serialize(serializer), )*
                    Self::Ext(inner) => inner.serialize(serializer),
                }
            }
        }

        $(
            $(#[cfg($vcfg)])?
            impl From<$ty> for $name {
                fn from(value: $ty) -> Self {
                    Self::$var(value.into())
                }
            }
        )*

        impl From<$ext> for $name {
            fn from(value: $ext) -> Self {
                Self::Ext(value)
            }
        }

        impl $name {
            /// The schema of the union: any of its members, and extension methods when
            /// `with_ext` (the proxy envelopes of the schema list only their own methods).
            fn union_schema(
                generator: &mut ::schemars::SchemaGenerator,
                with_ext: bool,
            ) -> ::serde_json::Value {
                let mut branches: Vec<::serde_json::Value> = Vec::new();
                $(
                    $(#[cfg($vcfg)])?
                    // `$/cancel_request` is a protocol-level message of its own in the schema
                    // (either side sends it), not a member of a side's notifications.
                    if $method != protocol::CANCEL_REQUEST {
                        branches.push(::serde_json::json!({ "allOf": [generator.subschema_for::<$ty>()] }));
                    }
                )*
                if with_ext {
                    branches.push(::serde_json::json!({ "allOf": [generator.subschema_for::<$ext>()] }));
                }
                ::serde_json::json!({ "anyOf": branches })
            }
        }
    };
}

method_union! {
    /// The params of a request the client sends to the agent, typed by its method.
    pub enum ClientRequestParams: ExtRequest {
        /// `initialize`.
        Initialize(InitializeRequest) = agent::INITIALIZE as boxed,
        /// `authenticate`.
        Authenticate(AuthenticateRequest) = agent::AUTHENTICATE,
        /// `logout`.
        Logout(LogoutRequest) = agent::LOGOUT,
        /// `session/new`.
        NewSession(NewSessionRequest) = agent::SESSION_NEW,
        /// `session/load`.
        LoadSession(LoadSessionRequest) = agent::SESSION_LOAD,
        /// `session/list`.
        ListSessions(ListSessionsRequest) = agent::SESSION_LIST,
        /// `session/delete`.
        DeleteSession(DeleteSessionRequest) = agent::SESSION_DELETE,
        /// `session/resume`.
        ResumeSession(ResumeSessionRequest) = agent::SESSION_RESUME,
        /// `session/close`.
        CloseSession(CloseSessionRequest) = agent::SESSION_CLOSE,
        /// `session/set_mode`.
        SetSessionMode(SetSessionModeRequest) = agent::SESSION_SET_MODE,
        /// `session/set_config_option`.
        SetSessionConfigOption(SetSessionConfigOptionRequest) = agent::SESSION_SET_CONFIG_OPTION,
        /// `session/prompt`.
        Prompt(PromptRequest) = agent::SESSION_PROMPT,
        /// `session/fork` (draft).
        #[cfg(feature = "unstable_session_fork")]
        ForkSession(ForkSessionRequest) = agent::SESSION_FORK,
        /// `providers/list` (draft).
        #[cfg(feature = "unstable_llm_providers")]
        ListProviders(ListProvidersRequest) = agent::PROVIDERS_LIST,
        /// `providers/set` (draft).
        #[cfg(feature = "unstable_llm_providers")]
        SetProvider(SetProviderRequest) = agent::PROVIDERS_SET,
        /// `providers/disable` (draft).
        #[cfg(feature = "unstable_llm_providers")]
        DisableProvider(DisableProviderRequest) = agent::PROVIDERS_DISABLE,
        /// `auth/status` (draft).
        #[cfg(feature = "unstable_auth_status")]
        AuthStatus(AuthStatusRequest) = agent::AUTH_STATUS,
        /// `session/archive` (draft).
        #[cfg(feature = "unstable_session_archive")]
        ArchiveSession(ArchiveSessionRequest) = agent::SESSION_ARCHIVE,
        /// `session/unarchive` (draft).
        #[cfg(feature = "unstable_session_archive")]
        UnarchiveSession(UnarchiveSessionRequest) = agent::SESSION_UNARCHIVE,
        /// `session/status` (draft).
        #[cfg(feature = "unstable_session_status")]
        SessionStatus(SessionStatusRequest) = agent::SESSION_STATUS,
        /// `session/set_title` (draft).
        #[cfg(feature = "unstable_session_set_title")]
        SetSessionTitle(SetSessionTitleRequest) = agent::SESSION_SET_TITLE,
    }
}

method_union! {
    /// The result of a request the client sent, as the agent answers it, typed by the method.
    pub enum AgentResult: ExtResponse {
        /// `initialize`.
        Initialize(InitializeResponse) = agent::INITIALIZE as boxed,
        /// `authenticate`.
        Authenticate(AuthenticateResponse) = agent::AUTHENTICATE,
        /// `logout`.
        Logout(LogoutResponse) = agent::LOGOUT,
        /// `session/new`.
        NewSession(NewSessionResponse) = agent::SESSION_NEW,
        /// `session/load`.
        LoadSession(LoadSessionResponse) = agent::SESSION_LOAD,
        /// `session/list`.
        ListSessions(ListSessionsResponse) = agent::SESSION_LIST,
        /// `session/delete`.
        DeleteSession(DeleteSessionResponse) = agent::SESSION_DELETE,
        /// `session/resume`.
        ResumeSession(ResumeSessionResponse) = agent::SESSION_RESUME,
        /// `session/close`.
        CloseSession(CloseSessionResponse) = agent::SESSION_CLOSE,
        /// `session/set_mode`.
        SetSessionMode(SetSessionModeResponse) = agent::SESSION_SET_MODE,
        /// `session/set_config_option`.
        SetSessionConfigOption(SetSessionConfigOptionResponse) = agent::SESSION_SET_CONFIG_OPTION,
        /// `session/prompt`.
        Prompt(PromptResponse) = agent::SESSION_PROMPT,
        /// `session/fork` (draft).
        #[cfg(feature = "unstable_session_fork")]
        ForkSession(ForkSessionResponse) = agent::SESSION_FORK,
        /// `providers/list` (draft).
        #[cfg(feature = "unstable_llm_providers")]
        ListProviders(ListProvidersResponse) = agent::PROVIDERS_LIST,
        /// `providers/set` (draft).
        #[cfg(feature = "unstable_llm_providers")]
        SetProvider(SetProviderResponse) = agent::PROVIDERS_SET,
        /// `providers/disable` (draft).
        #[cfg(feature = "unstable_llm_providers")]
        DisableProvider(DisableProviderResponse) = agent::PROVIDERS_DISABLE,
        /// `auth/status` (draft).
        #[cfg(feature = "unstable_auth_status")]
        AuthStatus(AuthStatusResponse) = agent::AUTH_STATUS,
        /// `session/archive` (draft).
        #[cfg(feature = "unstable_session_archive")]
        ArchiveSession(ArchiveSessionResponse) = agent::SESSION_ARCHIVE,
        /// `session/unarchive` (draft).
        #[cfg(feature = "unstable_session_archive")]
        UnarchiveSession(UnarchiveSessionResponse) = agent::SESSION_UNARCHIVE,
        /// `session/status` (draft).
        #[cfg(feature = "unstable_session_status")]
        SessionStatus(SessionStatusResponse) = agent::SESSION_STATUS,
        /// `session/set_title` (draft).
        #[cfg(feature = "unstable_session_set_title")]
        SetSessionTitle(SetSessionTitleResponse) = agent::SESSION_SET_TITLE,
    }
}

method_union! {
    /// The params of a request the agent sends to the client, typed by its method.
    pub enum AgentRequestParams: ExtRequest {
        /// `fs/write_text_file`.
        WriteTextFile(WriteTextFileRequest) = client::FS_WRITE_TEXT_FILE,
        /// `fs/read_text_file`.
        ReadTextFile(ReadTextFileRequest) = client::FS_READ_TEXT_FILE,
        /// `session/request_permission`.
        RequestPermission(RequestPermissionRequest) = client::SESSION_REQUEST_PERMISSION as boxed,
        /// `terminal/create`.
        CreateTerminal(CreateTerminalRequest) = client::TERMINAL_CREATE,
        /// `terminal/output`.
        TerminalOutput(TerminalOutputRequest) = client::TERMINAL_OUTPUT,
        /// `terminal/release`.
        ReleaseTerminal(ReleaseTerminalRequest) = client::TERMINAL_RELEASE,
        /// `terminal/wait_for_exit`.
        WaitForTerminalExit(WaitForTerminalExitRequest) = client::TERMINAL_WAIT_FOR_EXIT,
        /// `terminal/kill`.
        KillTerminal(KillTerminalRequest) = client::TERMINAL_KILL,
        /// `elicitation/create`.
        CreateElicitation(CreateElicitationRequest) = client::ELICITATION_CREATE as boxed,
        /// `mcp/message` (draft).
        #[cfg(feature = "unstable_mcp_over_acp")]
        MessageMcp(MessageMcpRequest) = client::MCP_MESSAGE,
    }
}

method_union! {
    /// The result of a request the agent sent, as the client answers it, typed by the method.
    pub enum ClientResult: ExtResponse {
        /// `fs/write_text_file`.
        WriteTextFile(WriteTextFileResponse) = client::FS_WRITE_TEXT_FILE,
        /// `fs/read_text_file`.
        ReadTextFile(ReadTextFileResponse) = client::FS_READ_TEXT_FILE,
        /// `session/request_permission`.
        RequestPermission(RequestPermissionResponse) = client::SESSION_REQUEST_PERMISSION,
        /// `terminal/create`.
        CreateTerminal(CreateTerminalResponse) = client::TERMINAL_CREATE,
        /// `terminal/output`.
        TerminalOutput(TerminalOutputResponse) = client::TERMINAL_OUTPUT,
        /// `terminal/release`.
        ReleaseTerminal(ReleaseTerminalResponse) = client::TERMINAL_RELEASE,
        /// `terminal/wait_for_exit`.
        WaitForTerminalExit(WaitForTerminalExitResponse) = client::TERMINAL_WAIT_FOR_EXIT,
        /// `terminal/kill`.
        KillTerminal(KillTerminalResponse) = client::TERMINAL_KILL,
        /// `elicitation/create`.
        CreateElicitation(CreateElicitationResponse) = client::ELICITATION_CREATE,
        /// `mcp/message` (draft).
        #[cfg(feature = "unstable_mcp_over_acp")]
        MessageMcp(MessageMcpResponse) = client::MCP_MESSAGE,
    }
}

method_union! {
    /// The params of a notification the agent sends to the client, typed by its method.
    pub enum AgentNotificationParams: ExtNotification {
        /// `session/update`.
        SessionUpdate(SessionNotification) = client::SESSION_UPDATE,
        /// `elicitation/complete`.
        CompleteElicitation(CompleteElicitationNotification) = client::ELICITATION_COMPLETE,
        /// `$/cancel_request`.
        CancelRequest(CancelRequestNotification) = protocol::CANCEL_REQUEST,
        /// `auth/status_update` (draft).
        #[cfg(feature = "unstable_auth_status")]
        AuthStatusUpdate(AuthStatusUpdateNotification) = client::AUTH_STATUS_UPDATE,
    }
}

method_union! {
    /// The params of a notification the client sends to the agent, typed by its method.
    pub enum ClientNotificationParams: ExtNotification {
        /// `session/cancel`.
        Cancel(CancelNotification) = agent::SESSION_CANCEL,
        /// `$/cancel_request`.
        CancelRequest(CancelRequestNotification) = protocol::CANCEL_REQUEST,
        /// `mcp/message` (draft).
        #[cfg(feature = "unstable_mcp_over_acp")]
        MessageMcp(MessageMcpNotification) = agent::MCP_MESSAGE,
    }
}

#[cfg(feature = "unstable_proxy_chains")]
method_union! {
    /// The params of a request between a proxy and its conductor, typed by its method (draft).
    pub enum ProxyRequestParams: ExtRequest {
        /// `proxy/initialize`.
        InitializeProxy(InitializeProxyRequest) = agent::PROXY_INITIALIZE as boxed,
        /// `proxy/successor`.
        ProxySuccessor(ProxySuccessorRequest) = agent::PROXY_SUCCESSOR,
    }
}

#[cfg(feature = "unstable_proxy_chains")]
method_union! {
    /// The result of a request between a proxy and its conductor, typed by the method (draft).
    pub enum ProxyResult: ExtResponse {
        /// `proxy/initialize`.
        InitializeProxy(InitializeProxyResponse) = agent::PROXY_INITIALIZE as boxed,
        /// `proxy/successor`.
        ProxySuccessor(ProxySuccessorResponse) = agent::PROXY_SUCCESSOR,
    }
}

#[cfg(feature = "unstable_proxy_chains")]
method_union! {
    /// The params of a notification between a proxy and its conductor, typed by its method
    /// (draft).
    pub enum ProxyNotificationParams: ExtNotification {
        /// `proxy/successor`.
        ProxySuccessor(ProxySuccessorNotification) = agent::PROXY_SUCCESSOR,
    }
}

/// How the `params` member appeared, so a decoded message re-encodes as it came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum ParamsForm {
    #[default]
    Present,
    Null,
    Absent,
}

/// Decodes the params of `method` when the message had none (absent or `null`): the params
/// type must accept an empty object.
fn params_when_missing<P: MethodUnion>(method: &str) -> Result<P, serde_json::Error> {
    if is_extension_method(method) {
        return P::decode(method, serde_json::Value::Null);
    }
    P::decode(method, serde_json::Value::Object(serde_json::Map::new()))
}

/// A request: an id, a method and params typed by the method.
///
/// [`ClientRequest`] and [`AgentRequest`] are its two instances.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RequestMessage<P> {
    /// The request id, echoed by the response.
    pub id: RequestId,
    /// The params, typed by the method (which they carry).
    pub params: P,
    jsonrpc: bool,
    form: ParamsForm,
}

/// A notification: a method and params typed by the method.
///
/// [`ClientNotification`] and [`AgentNotification`] are its two instances.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NotificationMessage<P> {
    /// The params, typed by the method (which they carry).
    pub params: P,
    jsonrpc: bool,
    form: ParamsForm,
}

/// A response: the id of the request it answers and a result typed by that request's method,
/// or an error.
///
/// [`AgentResponse`] and [`ClientResponse`] are its two instances.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResponseMessage<R> {
    /// The id of the request answered.
    pub id: RequestId,
    /// The result, or the error.
    pub result: Result<R, Error>,
    jsonrpc: bool,
    /// The result was received as `null` (for a method whose result has no required field).
    null_result: bool,
}

/// A request the client sends to the agent: id, method and params typed by the method.
pub type ClientRequest = RequestMessage<ClientRequestParams>;
/// A request the agent sends to the client: id, method and params typed by the method.
pub type AgentRequest = RequestMessage<AgentRequestParams>;
/// A notification the client sends to the agent, with params typed by the method.
pub type ClientNotification = NotificationMessage<ClientNotificationParams>;
/// A notification the agent sends to the client, with params typed by the method.
pub type AgentNotification = NotificationMessage<AgentNotificationParams>;
/// A response the agent sends to the client: a result typed by the request's method, or an error.
pub type AgentResponse = ResponseMessage<AgentResult>;
/// A response the client sends to the agent: a result typed by the request's method, or an error.
pub type ClientResponse = ResponseMessage<ClientResult>;
/// A request between a proxy and its conductor (either way): id, method and params typed by
/// the method (draft).
#[cfg(feature = "unstable_proxy_chains")]
pub type ProxyRequest = RequestMessage<ProxyRequestParams>;
/// A response between a proxy and its conductor: a result typed by the request's method, or
/// an error (draft).
#[cfg(feature = "unstable_proxy_chains")]
pub type ProxyResponse = ResponseMessage<ProxyResult>;
/// A notification between a proxy and its conductor, with params typed by the method (draft).
#[cfg(feature = "unstable_proxy_chains")]
pub type ProxyNotification = NotificationMessage<ProxyNotificationParams>;

impl<P: MethodUnion> RequestMessage<P> {
    /// A request with `id` and `params` (which carry the method).
    pub fn new(id: impl Into<RequestId>, params: impl Into<P>) -> Self {
        Self {
            id: id.into(),
            params: params.into(),
            jsonrpc: true,
            form: ParamsForm::Present,
        }
    }

    /// The method name.
    pub fn method(&self) -> &str {
        self.params.method()
    }
}

impl<P: MethodUnion> NotificationMessage<P> {
    /// A notification with `params` (which carry the method).
    pub fn new(params: impl Into<P>) -> Self {
        Self {
            params: params.into(),
            jsonrpc: true,
            form: ParamsForm::Present,
        }
    }

    /// The method name.
    pub fn method(&self) -> &str {
        self.params.method()
    }
}

impl<R> ResponseMessage<R> {
    /// A successful response to request `id`.
    pub fn ok(id: impl Into<RequestId>, result: impl Into<R>) -> Self {
        Self {
            id: id.into(),
            result: Ok(result.into()),
            jsonrpc: true,
            null_result: false,
        }
    }

    /// An error response to request `id`.
    pub fn error(id: impl Into<RequestId>, error: Error) -> Self {
        Self {
            id: id.into(),
            result: Err(error),
            jsonrpc: true,
            null_result: false,
        }
    }
}

fn serialize_params<M: serde::ser::SerializeMap, P: Serialize>(
    map: &mut M,
    params: &P,
    form: ParamsForm,
) -> Result<(), M::Error> {
    match form {
        ParamsForm::Present => map.serialize_entry("params", params),
        ParamsForm::Null => map.serialize_entry("params", &()),
        ParamsForm::Absent => Ok(()),
    }
}

impl<P: MethodUnion> Serialize for RequestMessage<P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        if self.jsonrpc {
            map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        }
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("method", self.params.method())?;
        serialize_params(&mut map, &self.params, self.form)?;
        map.end()
    }
}

impl<P: MethodUnion> Serialize for NotificationMessage<P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        if self.jsonrpc {
            map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        }
        map.serialize_entry("method", self.params.method())?;
        serialize_params(&mut map, &self.params, self.form)?;
        map.end()
    }
}

impl<R: Serialize> Serialize for ResponseMessage<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        if self.jsonrpc {
            map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        }
        map.serialize_entry("id", &self.id)?;
        match &self.result {
            // A result received as `null` is written back as `null` while it is still empty.
            Ok(result) if self.null_result && is_empty_object(result) => {
                map.serialize_entry("result", &())?;
            }
            Ok(result) => map.serialize_entry("result", result)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

/// True when `value` encodes as `{}`.
fn is_empty_object<T: Serialize>(value: &T) -> bool {
    serde_json::to_value(value).is_ok_and(|v| v.as_object().is_some_and(serde_json::Map::is_empty))
}

/// A JSON-RPC message typed by method: a request, a response or a notification.
///
/// [`AgentMessage`] is what an agent sends, [`ClientMessage`] what a client sends.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message<Req, Res, Not> {
    /// A request.
    Request(RequestMessage<Req>),
    /// A response.
    Response(ResponseMessage<Res>),
    /// A notification.
    Notification(NotificationMessage<Not>),
}

/// A message the agent sends: its requests, its responses, its notifications.
pub type AgentMessage = Message<AgentRequestParams, AgentResult, AgentNotificationParams>;
/// A message the client sends: its requests, its responses, its notifications.
pub type ClientMessage = Message<ClientRequestParams, ClientResult, ClientNotificationParams>;

impl<Req: MethodUnion, Res: MethodUnion, Not: MethodUnion> Serialize for Message<Req, Res, Not> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request(m) => m.serialize(serializer),
            Message::Response(m) => m.serialize(serializer),
            Message::Notification(m) => m.serialize(serializer),
        }
    }
}

/// A member of an envelope as it was read: typed when its method was known in time, raw
/// otherwise (decoded at the end).
enum Part<T> {
    Typed(T),
    Raw(Box<RawValue>),
}

/// What the single-pass envelope visitor collected.
struct Collected<'de, Req, Res, Not> {
    /// Borrowed from the input when it holds no escapes (no allocation per message).
    jsonrpc: Option<Cow<'de, str>>,
    id: Option<RequestId>,
    method: Option<Cow<'de, str>>,
    params: Option<Part<Either<Req, Not>>>,
    params_null: bool,
    /// `Typed(None)` is a `null` result.
    result: Option<Part<Option<Res>>>,
    error: Option<Error>,
}

/// Params of a request or of a notification (which one depends on whether an id is present).
enum Either<Req, Not> {
    Request(Req),
    Notification(Not),
}

/// The single-pass envelope visitor: decodes `params` and `result` straight into their types
/// when the method (or the id) comes first, as every known implementation writes them.
struct EnvelopeVisitor<'l, Req, Res, Not, L> {
    method_of: &'l L,
    marker: std::marker::PhantomData<(Req, Res, Not)>,
}

impl<'de, Req, Res, Not, L, M> de::Visitor<'de> for EnvelopeVisitor<'_, Req, Res, Not, L>
where
    Req: MethodUnion,
    Res: MethodUnion,
    Not: MethodUnion,
    L: Fn(&RequestId) -> Option<M>,
    M: AsRef<str>,
{
    type Value = Collected<'de, Req, Res, Not>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC 2.0 message object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        const KEYS: &[&str] = &["jsonrpc", "id", "method", "params", "result", "error"];
        let mut c = Collected {
            jsonrpc: None,
            id: None,
            method: None,
            params: None,
            params_null: false,
            result: None,
            error: None,
        };
        let mut seen = 0_u8;
        while let Some(key) = map.next_key_seed(crate::wire::KeySeed(KEYS))? {
            check_once(&key, &mut seen, KEYS)?;
            match key {
                crate::wire::Key::Known(0) => c.jsonrpc = Some(map.next_value::<CowStr<'de>>()?.0),
                crate::wire::Key::Known(1) => c.id = Some(map.next_value()?),
                crate::wire::Key::Known(2) => c.method = Some(map.next_value::<CowStr<'de>>()?.0),
                crate::wire::Key::Known(3) => {
                    let part = match (&c.method, &c.id) {
                        // The method is known and says which side's union applies: typed now.
                        (Some(method), Some(_)) if Req::accepts(method) => map
                            .next_value_seed(TypedSeed::<Req>::new(method))?
                            .map(|p| Part::Typed(Either::Request(p))),
                        (Some(method), None) if Not::accepts(method) => map
                            .next_value_seed(TypedSeed::<Not>::new(method))?
                            .map(|p| Part::Typed(Either::Notification(p))),
                        _ => map.next_value::<Option<Box<RawValue>>>()?.map(Part::Raw),
                    };
                    c.params_null = part.is_none();
                    c.params = part;
                }
                crate::wire::Key::Known(4) => {
                    let method = c.id.as_ref().and_then(|id| (self.method_of)(id));
                    c.result = Some(match method {
                        Some(method) if Res::accepts(method.as_ref()) => Part::Typed(
                            map.next_value_seed(TypedSeed::<Res>::new(method.as_ref()))?,
                        ),
                        _ => Part::Raw(map.next_value()?),
                    });
                }
                crate::wire::Key::Known(_) => c.error = Some(map.next_value()?),
                crate::wire::Key::Unknown(_) => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        Ok(c)
    }
}

/// Refuses an envelope member given twice (`seen` has one bit per member of `keys`): the
/// connection layer ([`RawMessage`]) and [`Message::decode`] must not pick different ones.
/// Other members are ignored, as JSON-RPC says, duplicates included.
fn check_once<E: de::Error>(
    key: &crate::wire::Key,
    seen: &mut u8,
    keys: &'static [&'static str],
) -> Result<(), E> {
    if let crate::wire::Key::Known(index) = *key {
        if *seen & (1 << index) != 0 {
            return Err(crate::wire::duplicate(keys[index]));
        }
        *seen |= 1 << index;
    }
    Ok(())
}

/// Decodes `null` as `None` and anything else as the union member of `method`.
struct TypedSeed<'m, U> {
    method: &'m str,
    marker: std::marker::PhantomData<U>,
}

impl<'m, U> TypedSeed<'m, U> {
    fn new(method: &'m str) -> Self {
        Self {
            method,
            marker: std::marker::PhantomData,
        }
    }
}

impl<'de, U: MethodUnion> DeserializeSeed<'de> for TypedSeed<'_, U> {
    type Value = Option<U>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<U>, D::Error> {
        struct NullOr<'m, U>(&'m str, std::marker::PhantomData<U>);

        impl<'de, U: MethodUnion> de::Visitor<'de> for NullOr<'_, U> {
            type Value = Option<U>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "the params of `{}`", self.0)
            }

            fn visit_none<E: de::Error>(self) -> Result<Option<U>, E> {
                Ok(None)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Option<U>, E> {
                Ok(None)
            }

            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<U>, D::Error> {
                U::decode(self.0, d).map(Some)
            }
        }

        deserializer.deserialize_option(NullOr::<U>(self.method, std::marker::PhantomData))
    }
}

impl<Req: MethodUnion, Res: MethodUnion, Not: MethodUnion> Message<Req, Res, Not> {
    /// Decodes one message. `method_of` tells the method of the request a response answers
    /// (`None` when no such request is pending).
    ///
    /// A key given twice is refused at every depth (see [`RawMessage::parse`] for the
    /// envelope), so a message has one meaning whichever way it is read; a request's id may be
    /// `null`.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] whose [kind](DecodeError::kind) says what was wrong: not JSON, not a
    /// JSON-RPC 2.0 message, an unknown method, a response to an unknown request, or params /
    /// result that do not fit the method (with the path of the offending field).
    pub fn decode<'j, M: AsRef<str>>(
        json: &'j [u8],
        method_of: impl Fn(&RequestId) -> Option<M>,
    ) -> Result<Self, DecodeError> {
        let text = crate::decode::utf8(json);
        let attempt = |json: &'j [u8]| -> Result<Collected<'j, Req, Res, Not>, serde_json::Error> {
            let visitor = EnvelopeVisitor::<Req, Res, Not, _> {
                method_of: &method_of,
                marker: std::marker::PhantomData,
            };
            match text {
                Some(text) => {
                    let mut de = serde_json::Deserializer::from_str(text);
                    let collected = de::Deserializer::deserialize_map(&mut de, visitor)?;
                    de.end()?;
                    Ok(collected)
                }
                None => {
                    let mut de = serde_json::Deserializer::from_slice(json);
                    let collected = de::Deserializer::deserialize_map(&mut de, visitor)?;
                    de.end()?;
                    Ok(collected)
                }
            }
        };
        // Strict first (no buffering of lenient fields), then lenient, then diagnose.
        let collected = match crate::mode::with_strict(|| attempt(json)) {
            Ok(c) => c,
            Err(_) => match crate::mode::with_lenient(|| attempt(json)) {
                Ok(c) => c,
                Err(e) => return Err(diagnose::<Req, Res, Not, _, _>(json, &method_of, &e)),
            },
        };
        Self::assemble(collected, &method_of)
    }

    fn assemble<M: AsRef<str>>(
        c: Collected<'_, Req, Res, Not>,
        method_of: &impl Fn(&RequestId) -> Option<M>,
    ) -> Result<Self, DecodeError> {
        let invalid = |m: &str| DecodeError::new(DecodeErrorKind::InvalidMessage, "", m);
        let jsonrpc = match c.jsonrpc.as_deref() {
            Some(JSONRPC_VERSION) => true,
            Some(other) => {
                return Err(invalid(&format!(
                    "`jsonrpc` must be \"2.0\", found {other:?}"
                )));
            }
            None => false,
        };
        let form = match (&c.params, c.params_null) {
            (Some(_), _) => ParamsForm::Present,
            (None, true) => ParamsForm::Null,
            (None, false) => ParamsForm::Absent,
        };
        if let Some(method) = c.method {
            if c.result.is_some() || c.error.is_some() {
                return Err(invalid(
                    "a message cannot have both `method` and `result`/`error`",
                ));
            }
            return match c.id {
                // A `null` id is an id like any other (the schema allows it, and the reference
                // SDKs answer such requests, echoing `null`).
                Some(id) => {
                    if !Req::accepts(&method) {
                        return Err(unknown_method(&method));
                    }
                    let params = match c.params {
                        Some(Part::Typed(Either::Request(p))) => p,
                        Some(Part::Raw(raw)) => decode_raw::<Req>(&method, &raw, "params")?,
                        // Typed as a notification's before the id came (after `params`): the
                        // method is one both sides accept, such as an extension method. Decode
                        // them again as a request's, from their (exact) encoding.
                        Some(Part::Typed(Either::Notification(p))) => {
                            let raw = serde_json::value::to_raw_value(&p).map_err(|e| {
                                DecodeError::from_json(&e, String::new()).within("params")
                            })?;
                            decode_raw::<Req>(&method, &raw, "params")?
                        }
                        None => params_when_missing::<Req>(&method).map_err(|e| {
                            DecodeError::from_json(&e, String::new()).within("params")
                        })?,
                    };
                    Ok(Message::Request(RequestMessage {
                        id,
                        params,
                        jsonrpc,
                        form,
                    }))
                }
                None => {
                    if !Not::accepts(&method) {
                        return Err(unknown_method(&method));
                    }
                    let params = match c.params {
                        Some(Part::Typed(Either::Notification(p))) => p,
                        Some(Part::Raw(raw)) => decode_raw::<Not>(&method, &raw, "params")?,
                        Some(Part::Typed(Either::Request(_))) => {
                            unreachable!(
                                "params are typed as a request only once an id was read, and an id is never removed"
                            )
                        }
                        None => params_when_missing::<Not>(&method).map_err(|e| {
                            DecodeError::from_json(&e, String::new()).within("params")
                        })?,
                    };
                    Ok(Message::Notification(NotificationMessage {
                        params,
                        jsonrpc,
                        form,
                    }))
                }
            };
        }
        let Some(id) = c.id else {
            return Err(invalid("a message needs a `method` or an `id`"));
        };
        let mut null_result = false;
        let result = match (c.result, c.error) {
            (Some(_), Some(_)) => {
                return Err(invalid("a response cannot have both `result` and `error`"));
            }
            (None, None) => return Err(invalid("a response needs a `result` or an `error`")),
            (None, Some(error)) => Err(error),
            (Some(Part::Typed(Some(result))), None) => Ok(result),
            (Some(part), None) => {
                let Some(method) = method_of(&id) else {
                    return Err(DecodeError::new(
                        DecodeErrorKind::UnknownResponse,
                        "",
                        format!("no pending request has id {id}"),
                    ));
                };
                let method = method.as_ref();
                match part {
                    Part::Raw(raw) if raw.get() != "null" => {
                        Ok(decode_raw::<Res>(method, &raw, "result")?)
                    }
                    // A `null` result stands for the empty result of a method whose result
                    // has no required field (as the specification's examples show).
                    _ => {
                        null_result = true;
                        if !Res::accepts(method) {
                            return Err(unknown_method(method));
                        }
                        Ok(params_when_missing::<Res>(method).map_err(|e| {
                            DecodeError::from_json(&e, String::new()).within("result")
                        })?)
                    }
                }
            }
        };
        Ok(Message::Response(ResponseMessage {
            id,
            result,
            jsonrpc,
            null_result,
        }))
    }
}

fn unknown_method(method: &str) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnknownMethod,
        "",
        format!("unknown method `{method}`"),
    )
}

/// Decodes a raw member by method, with the field path in the error.
fn decode_raw<U: MethodUnion>(
    method: &str,
    raw: &RawValue,
    member: &str,
) -> Result<U, DecodeError> {
    if !U::accepts(method) {
        return Err(unknown_method(method));
    }
    let decode = |json: &str| {
        let mut de = serde_json::Deserializer::from_str(json);
        U::decode(method, &mut de)
    };
    if let Ok(v) = crate::mode::with_strict(|| decode(raw.get())) {
        return Ok(v);
    }
    crate::mode::with_lenient(|| match decode(raw.get()) {
        Ok(v) => Ok(v),
        Err(error) => {
            let mut de = serde_json::Deserializer::from_str(raw.get());
            let mut track = serde_path_to_error::Track::new();
            let path = match U::decode(
                method,
                serde_path_to_error::Deserializer::new(&mut de, &mut track),
            ) {
                Err(_) => track.path().to_string(),
                Ok(_) => String::new(),
            };
            Err(DecodeError::from_json(&error, path).within(member))
        }
    })
}

/// Explains why a message failed to decode: re-reads it loosely to classify the failure.
fn diagnose<Req: MethodUnion, Res: MethodUnion, Not: MethodUnion, L, M>(
    json: &[u8],
    method_of: &L,
    error: &serde_json::Error,
) -> DecodeError
where
    L: Fn(&RequestId) -> Option<M>,
    M: AsRef<str>,
{
    use serde_json::error::Category;
    if matches!(
        error.classify(),
        Category::Syntax | Category::Eof | Category::Io
    ) {
        // Where in the document the text broke (`params.prompt[0].text` for a lone surrogate).
        let mut de = serde_json::Deserializer::from_slice(json);
        let path = match serde_path_to_error::deserialize::<_, serde_json::Value>(&mut de) {
            Err(e) => e.path().to_string(),
            Ok(_) => String::new(),
        };
        return DecodeError::from_json(error, path);
    }
    let raw: RawMessage<'_> = match serde_json::from_slice(json) {
        Ok(raw) => raw,
        Err(e) => {
            let message = if json.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
                "batches are not supported by ACP".to_owned()
            } else {
                format!("not a JSON-RPC 2.0 message: {e}")
            };
            return DecodeError::new(DecodeErrorKind::InvalidMessage, "", message);
        }
    };
    match (&raw.method, &raw.id) {
        (Some(method), Some(_)) => match raw.params {
            Some(p) => decode_raw::<Req>(method, p, "params").err(),
            None => None,
        },
        (Some(method), None) => match raw.params {
            Some(p) => decode_raw::<Not>(method, p, "params").err(),
            None => None,
        },
        (None, Some(id)) => match (raw.result, method_of(id)) {
            (Some(r), Some(method)) => decode_raw::<Res>(method.as_ref(), r, "result").err(),
            _ => None,
        },
        (None, None) => None,
    }
    .unwrap_or_else(|| DecodeError::new(DecodeErrorKind::InvalidData, "", error.to_string()))
}

/// A JSON-RPC message read without typing its params or result: the connection layer's view.
///
/// Borrowed from the input; `params` and `result` stay raw JSON text for the handler of the
/// method to decode.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct RawMessage<'a> {
    /// The `jsonrpc` member, if present.
    pub jsonrpc: Option<Cow<'a, str>>,
    /// The `id`, if present (`Some(RequestId::Null)` for an explicit null).
    pub id: Option<RequestId>,
    /// The `method`, if present.
    pub method: Option<Cow<'a, str>>,
    /// The raw `params`, if present and not null.
    pub params: Option<&'a RawValue>,
    /// The raw `result`, if present.
    pub result: Option<&'a RawValue>,
    /// The `error`, if present.
    pub error: Option<Error>,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for RawMessage<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RawVisitor;

        impl<'de> de::Visitor<'de> for RawVisitor {
            type Value = RawMessage<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC 2.0 message object")
            }

            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                const KEYS: &[&str] = &["jsonrpc", "id", "method", "params", "result", "error"];
                let mut m = RawMessage::default();
                let mut seen = 0_u8;
                while let Some(key) = map.next_key_seed(crate::wire::KeySeed(KEYS))? {
                    check_once(&key, &mut seen, KEYS)?;
                    match key {
                        crate::wire::Key::Known(0) => {
                            m.jsonrpc = Some(map.next_value::<CowStr<'de>>()?.0)
                        }
                        crate::wire::Key::Known(1) => m.id = Some(map.next_value()?),
                        crate::wire::Key::Known(2) => {
                            m.method = Some(map.next_value::<CowStr<'de>>()?.0)
                        }
                        crate::wire::Key::Known(3) => {
                            let raw: &'de RawValue = map.next_value()?;
                            m.params = (raw.get() != "null").then_some(raw);
                        }
                        crate::wire::Key::Known(4) => m.result = Some(map.next_value()?),
                        crate::wire::Key::Known(_) => m.error = Some(map.next_value()?),
                        crate::wire::Key::Unknown(_) => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(m)
            }
        }

        deserializer.deserialize_map(RawVisitor)
    }
}

/// A string borrowed from the input when possible.
struct CowStr<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match (crate::wire::TagSeed { any: false }).deserialize(deserializer)? {
            crate::wire::Tag::Borrowed(s) => Ok(CowStr(Cow::Borrowed(s))),
            crate::wire::Tag::Owned(s) => Ok(CowStr(Cow::Owned(s))),
            crate::wire::Tag::Other(_) => unreachable!("a strict tag seed only accepts strings"),
        }
    }
}

impl<'a> RawMessage<'a> {
    /// Reads a message from JSON bytes, checking only the JSON-RPC envelope.
    ///
    /// A request may have a `null` id (the schema allows it, discouraged): it is a request like
    /// any other, answered with `"id": null`.
    ///
    /// # Errors
    ///
    /// [`DecodeErrorKind::Syntax`] when the bytes are not JSON, [`DecodeErrorKind::InvalidMessage`]
    /// when they are not one JSON-RPC 2.0 message object, including when a member of the
    /// envelope (`jsonrpc`, `id`, `method`, `params`, `result`, `error`) is given twice
    /// ([`Message::decode`] refuses the same messages).
    pub fn parse(json: &'a [u8]) -> Result<Self, DecodeError> {
        let parsed = match crate::decode::utf8(json) {
            Some(text) => serde_json::from_str::<RawMessage<'a>>(text),
            None => serde_json::from_slice::<RawMessage<'a>>(json),
        };
        let message: RawMessage<'a> = parsed.map_err(|e| {
            use serde_json::error::Category;
            match e.classify() {
                Category::Syntax | Category::Eof | Category::Io => {
                    DecodeError::new(DecodeErrorKind::Syntax, "", e.to_string())
                }
                Category::Data => {
                    let message = if json.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
                        "batches are not supported by ACP".to_owned()
                    } else {
                        format!("not a JSON-RPC 2.0 message: {e}")
                    };
                    DecodeError::new(DecodeErrorKind::InvalidMessage, "", message)
                }
            }
        })?;
        message.validate()?;
        Ok(message)
    }

    fn validate(&self) -> Result<(), DecodeError> {
        let invalid = |m: &str| Err(DecodeError::new(DecodeErrorKind::InvalidMessage, "", m));
        match self.jsonrpc.as_deref() {
            Some(JSONRPC_VERSION) => {}
            Some(other) => return invalid(&format!("`jsonrpc` must be \"2.0\", found {other:?}")),
            None => return invalid("`jsonrpc` is missing"),
        }
        match (&self.method, &self.id) {
            (Some(_), _) if self.result.is_some() || self.error.is_some() => {
                invalid("a message cannot have both `method` and `result`/`error`")
            }
            (None, Some(_)) if self.result.is_some() && self.error.is_some() => {
                invalid("a response cannot have both `result` and `error`")
            }
            (None, Some(_)) if self.result.is_none() && self.error.is_none() => {
                invalid("a response needs a `result` or an `error`")
            }
            (None, None) => invalid("a message needs a `method` or an `id`"),
            _ => Ok(()),
        }
    }

    /// True for a request (a method and an id).
    pub fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    /// True for a notification (a method, no id).
    pub fn is_notification(&self) -> bool {
        self.method.is_some() && self.id.is_none()
    }

    /// True for a response (an id, no method).
    pub fn is_response(&self) -> bool {
        self.method.is_none() && self.id.is_some()
    }

    /// Decodes the params into the member of `U` for this message's method.
    ///
    /// # Errors
    ///
    /// [`DecodeErrorKind::UnknownMethod`] or [`DecodeErrorKind::InvalidData`] (with the path).
    pub fn decode_params<U: MethodUnion>(&self) -> Result<U, DecodeError> {
        let method = self.method.as_deref().unwrap_or_default();
        match self.params {
            Some(raw) => decode_raw::<U>(method, raw, "params"),
            None if U::accepts(method) => params_when_missing::<U>(method)
                .map_err(|e| DecodeError::from_json(&e, String::new()).within("params")),
            None => Err(unknown_method(method)),
        }
    }
}

impl<P: MethodUnion> RequestMessage<P> {
    /// Decodes a request from JSON bytes.
    ///
    /// # Errors
    ///
    /// As [`Message::decode`]; a message that is not a request is
    /// [`DecodeErrorKind::InvalidMessage`].
    pub fn decode(json: &[u8]) -> Result<Self, DecodeError> {
        match Message::<P, P, P>::decode(json, |_| None::<&str>)? {
            Message::Request(r) => Ok(r),
            _ => Err(DecodeError::new(
                DecodeErrorKind::InvalidMessage,
                "",
                "not a request",
            )),
        }
    }
}

impl<P: MethodUnion> NotificationMessage<P> {
    /// Decodes a notification from JSON bytes.
    ///
    /// # Errors
    ///
    /// As [`Message::decode`]; a message that is not a notification is
    /// [`DecodeErrorKind::InvalidMessage`].
    pub fn decode(json: &[u8]) -> Result<Self, DecodeError> {
        match Message::<P, P, P>::decode(json, |_| None::<&str>)? {
            Message::Notification(n) => Ok(n),
            _ => Err(DecodeError::new(
                DecodeErrorKind::InvalidMessage,
                "",
                "not a notification",
            )),
        }
    }
}

impl<R: MethodUnion> ResponseMessage<R> {
    /// Decodes a response to a request of `method` from JSON bytes.
    ///
    /// # Errors
    ///
    /// As [`Message::decode`]; a message that is not a response is
    /// [`DecodeErrorKind::InvalidMessage`].
    pub fn decode(json: &[u8], method: &str) -> Result<Self, DecodeError> {
        match Message::<R, R, R>::decode(json, |_| Some(method))? {
            Message::Response(r) => Ok(r),
            _ => Err(DecodeError::new(
                DecodeErrorKind::InvalidMessage,
                "",
                "not a response",
            )),
        }
    }
}

/// Schema support for the envelope definitions.
pub(crate) mod schema {
    use super::*;

    /// Declares the schema of an envelope type (request/notification) by its def name.
    macro_rules! envelope_schema {
        ($ty:ty, $name:literal, $desc:literal, $params:ty, request = $is_req:literal $(, ext = $with_ext:literal)?) => {
            impl ::schemars::JsonSchema for $ty {
                fn schema_name() -> Cow<'static, str> {
                    $name.into()
                }

                fn json_schema(generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                    let union = <$params>::union_schema(generator, true $(&& $with_ext)?);
                    let mut properties = ::serde_json::Map::new();
                    if $is_req {
                        properties.insert(
                            "id".into(),
                            ::serde_json::json!({ "allOf": [generator.subschema_for::<RequestId>()] }),
                        );
                    }
                    properties.insert("method".into(), ::serde_json::json!({ "type": "string" }));
                    properties.insert(
                        "params".into(),
                        ::serde_json::json!({ "anyOf": [union, { "type": "null" }] }),
                    );
                    let required = if $is_req {
                        ::serde_json::json!(["id", "method"])
                    } else {
                        ::serde_json::json!(["method"])
                    };
                    ::schemars::json_schema!({
                        "description": $desc,
                        "type": "object",
                        "properties": properties,
                        "required": required,
                    })
                }
            }
        };
    }

    macro_rules! response_schema {
        ($ty:ty, $name:literal, $desc:literal, $result:ty $(, ext = $with_ext:literal)?) => {
            impl ::schemars::JsonSchema for $ty {
                fn schema_name() -> Cow<'static, str> {
                    $name.into()
                }

                fn json_schema(generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                    let union = <$result>::union_schema(generator, true $(&& $with_ext)?);
                    let id = generator.subschema_for::<RequestId>();
                    let error = generator.subschema_for::<Error>();
                    ::schemars::json_schema!({
                        "description": $desc,
                        "anyOf": [
                            {
                                "description": "A successful response.",
                                "type": "object",
                                "properties": { "id": { "allOf": [id.clone()] }, "result": union },
                                "required": ["id", "result"],
                            },
                            {
                                "description": "An error response.",
                                "type": "object",
                                "properties": { "id": { "allOf": [id] }, "error": { "allOf": [error] } },
                                "required": ["id", "error"],
                            },
                        ],
                    })
                }
            }
        };
    }

    envelope_schema!(
        ClientRequest,
        "ClientRequest",
        "A request the client sends to the agent: id, method and params typed by the method.",
        ClientRequestParams,
        request = true
    );
    envelope_schema!(
        AgentRequest,
        "AgentRequest",
        "A request the agent sends to the client: id, method and params typed by the method.",
        AgentRequestParams,
        request = true
    );
    envelope_schema!(
        ClientNotification,
        "ClientNotification",
        "A notification the client sends to the agent, with params typed by the method.",
        ClientNotificationParams,
        request = false
    );
    envelope_schema!(
        AgentNotification,
        "AgentNotification",
        "A notification the agent sends to the client, with params typed by the method.",
        AgentNotificationParams,
        request = false
    );
    response_schema!(
        AgentResponse,
        "AgentResponse",
        "A response the agent sends to the client: a result typed by the request's method, or an error.",
        AgentResult
    );
    response_schema!(
        ClientResponse,
        "ClientResponse",
        "A response the client sends to the agent: a result typed by the request's method, or an error.",
        ClientResult
    );

    #[cfg(feature = "unstable_proxy_chains")]
    envelope_schema!(
        ProxyRequest,
        "ProxyRequest",
        "A request between a proxy and its conductor: id, method and params typed by the method.",
        ProxyRequestParams,
        request = true,
        ext = false
    );
    #[cfg(feature = "unstable_proxy_chains")]
    response_schema!(
        ProxyResponse,
        "ProxyResponse",
        "A response between a proxy and its conductor: a result typed by the request's method, or an error.",
        ProxyResult,
        ext = false
    );
    #[cfg(feature = "unstable_proxy_chains")]
    envelope_schema!(
        ProxyNotification,
        "ProxyNotification",
        "A notification between a proxy and its conductor, with params typed by the method.",
        ProxyNotificationParams,
        request = false,
        ext = false
    );
}
