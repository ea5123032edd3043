//! Serving an [`Agent`]: the connection, the protocol rules, and the handle to the client.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use acp_rpc::{Config, Driver, Handler, Peer};
use acp_types::capabilities::{client_allows, elicitation_mode_allowed};
use acp_types::methods::{self, client as cm};
use acp_types::*;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::admit;
use crate::signal::Signal;
use crate::{Agent, Error, PromptContext};

/// The protocol rules the library enforces for an agent, each of which can be turned off where
/// an agent needs otherwise.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentOptions {
    /// Connection settings (framing, limits).
    pub rpc: Config,
    /// Refuse every request but `initialize` until `initialize` succeeded (`-32600`).
    pub require_initialize: bool,
    /// Set the `protocolVersion` of the `initialize` response as the spec prescribes: the
    /// client's version if supported, else the latest supported.
    pub negotiate_version: bool,
    /// Refuse a second `session/prompt` for a session whose prompt is still running (`-32600`).
    /// On a v2 connection, where the answer means the prompt was accepted, the second prompt
    /// is held instead and accepted when the running one ends (feature `unstable_protocol_v2`).
    pub one_prompt_per_session: bool,
    /// Answer a prompt turn that was cancelled with `stopReason: "cancelled"`, whatever the
    /// agent returned.
    pub cancelled_stop_reason: bool,
    /// Fail calls to the client that it did not advertise in `initialize` locally, instead of
    /// sending them.
    pub gate_client_capabilities: bool,
    /// Refuse the client's requests for what the agent did not advertise in its `initialize`
    /// response, before they reach the [`Agent`]: methods (`session/load` without
    /// `loadSession`, `session/list`, `resume`, `close`, `delete` without their
    /// `sessionCapabilities`, `logout` without `auth.logout`) with `-32601` naming the method
    /// and the capability; prompt content (images, audio, embedded resources) and MCP
    /// transports (HTTP, SSE) beyond `promptCapabilities` / `mcpCapabilities` with `-32602`.
    /// Draft features: their methods without their capability (`-32601`; such a notification
    /// is dropped with a warning).
    pub refuse_unadvertised: bool,
    /// Refuse `session/new`, `session/load`, `session/resume` (and the draft `session/fork`)
    /// whose `cwd` or `additionalDirectories` holds a relative path, as the spec requires
    /// absolute ones, with `-32602` naming the field, before they reach the [`Agent`].
    pub require_absolute_cwd: bool,
    /// The highest protocol version offered to clients (feature `unstable_protocol_v2`):
    /// [`ProtocolVersion(2)`](ProtocolVersion) by default. With
    /// [`ProtocolVersion::V1`] every connection stays on v1, a client asking for 2 included
    /// (it is answered 1, as a v1-only agent answers): for an agent whose author is not ready
    /// for v2 yet. Values above 2 mean 2, below 1 mean 1.
    #[cfg(feature = "unstable_protocol_v2")]
    pub max_protocol_version: ProtocolVersion,
    /// What a v2 client is told about the agent when the agent's `initialize` answer has no
    /// `agentInfo`, which v2 requires as `info` (feature `unstable_protocol_v2`). `None`, the
    /// default: `acp-rs agent` with the version of the `acp-agent` crate. An agent that sets
    /// `agentInfo` itself never needs this.
    #[cfg(feature = "unstable_protocol_v2")]
    pub agent_info: Option<Implementation>,
}

impl Default for AgentOptions {
    fn default() -> Self {
        Self {
            rpc: Config::default(),
            require_initialize: true,
            negotiate_version: true,
            one_prompt_per_session: true,
            cancelled_stop_reason: true,
            gate_client_capabilities: true,
            refuse_unadvertised: true,
            require_absolute_cwd: true,
            #[cfg(feature = "unstable_protocol_v2")]
            max_protocol_version: ProtocolVersion(2),
            #[cfg(feature = "unstable_protocol_v2")]
            agent_info: None,
        }
    }
}

impl AgentOptions {
    /// Sets the connection settings.
    #[must_use]
    pub fn rpc(mut self, rpc: Config) -> Self {
        self.rpc = rpc;
        self
    }

    /// Sets the framing (NDJSON, Content-Length, or auto-detection).
    #[must_use]
    pub fn framing(mut self, framing: acp_rpc::FramingMode) -> Self {
        self.rpc = self.rpc.framing(framing);
        self
    }

    /// Fails a request to the client that is not answered within `timeout` (a permission
    /// request included: the user has that long) with [`acp_rpc::Error::Timeout`], naming the
    /// method and the limit; its pending entry is dropped and the client gets
    /// `$/cancel_request`. This is [`Config::request_timeout`], set for the caller.
    #[must_use]
    pub fn request_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.rpc = self.rpc.request_timeout(Some(timeout));
        self
    }

    /// Caps the protocol version offered to clients (see
    /// [`max_protocol_version`](Self::max_protocol_version)).
    #[cfg(feature = "unstable_protocol_v2")]
    #[must_use]
    pub fn max_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.max_protocol_version = version;
        self
    }

    /// Sets what v2 clients are told about an agent that gives no `agentInfo` (see
    /// [`agent_info`](Self::agent_info)).
    #[cfg(feature = "unstable_protocol_v2")]
    #[must_use]
    pub fn agent_info(mut self, info: Implementation) -> Self {
        self.agent_info = Some(info);
        self
    }

    /// The `info` of a v2 `initialize` answer whose agent gave no `agentInfo`.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn default_agent_info(&self) -> Implementation {
        self.agent_info
            .clone()
            .unwrap_or_else(|| Implementation::new("acp-rs agent", env!("CARGO_PKG_VERSION")))
    }

    /// Gives every message exchanged with the client to `f` (its direction and JSON body), to
    /// log or validate the traffic; see [`acp_rpc::Observer`].
    #[must_use]
    pub fn observe(
        mut self,
        f: impl Fn(acp_rpc::Direction, &[u8]) + Send + Sync + 'static,
    ) -> Self {
        self.rpc = self.rpc.observe(f);
        self
    }
}

/// State shared by the connection and the client handle.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The client's `initialize` request, once it succeeded (on a v2 connection, its v1 form).
    pub(crate) initialized: OnceLock<InitializeRequest>,
    /// Our answer to it: what we advertised (on a v2 connection, the agent's v1 answer).
    pub(crate) advertised: OnceLock<InitializeResponse>,
    /// The message ids of the sessions of a v2 connection.
    #[cfg(feature = "unstable_protocol_v2")]
    cursors: crate::v2::Cursors,
    /// The turns of a v2 connection's sessions, and the prompts held behind them.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) turns: crate::v2::Turns,
    /// Numbers the tool calls started through [`PromptContext::tool_call`].
    next_tool_call: std::sync::atomic::AtomicU64,
    /// The running prompts of each session (one, unless the one-prompt rule is off), by their
    /// cancellation signals.
    prompts: Mutex<HashMap<SessionId, Vec<Signal>>>,
}

impl State {
    pub(crate) fn prompts(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Vec<Signal>>> {
        lock(&self.prompts)
    }
}

/// Locks `mutex`, going on after a panic elsewhere (each change under these locks is a single
/// insert or remove, so the value stays consistent).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A cloneable handle for calling the client, one method per ACP client method.
///
/// Calls the client did not advertise in `initialize` fail locally with
/// [`Error::CapabilityNotAdvertised`] instead of being sent (see
/// [`AgentOptions::gate_client_capabilities`]).
#[derive(Clone)]
pub struct ClientHandle {
    peer: Peer,
    state: Arc<State>,
    gate: bool,
}

impl std::fmt::Debug for ClientHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHandle")
            .field("peer", &self.peer)
            .field("initialized", &self.state.initialized.get().is_some())
            .finish()
    }
}

macro_rules! client_requests {
    ($( $(#[doc = $doc:literal])* $name:ident: $marker:ident($req:ty) -> $res:ty; )*) => {
        $(
            $(#[doc = $doc])*
            ///
            /// # Errors
            ///
            /// [`Error::CapabilityNotAdvertised`] when the client did not advertise the method;
            /// [`Error::Rpc`] when the client answers with an error or the connection closes.
            pub async fn $name(&self, request: $req) -> Result<$res, Error> {
                self.check(methods::$marker::METHOD_NAME)?;
                Ok(self.peer.request::<methods::$marker>(&request).await?)
            }
        )*
    };
}

trait MethodName {
    const METHOD_NAME: &'static str;
}

impl<M: acp_types::methods::Request> MethodName for M {
    const METHOD_NAME: &'static str = M::METHOD;
}

impl ClientHandle {
    /// `session/request_permission` (spec chapter "Tool Calls", requesting permission): asks
    /// the user to approve a tool call.
    ///
    /// On a v2 connection the request is sent in its v2 form (the tool call as its subject,
    /// its title as the request's), and while it waits for the user the session's turn is in
    /// the `requires_action` state.
    ///
    /// # Errors
    ///
    /// [`Error::Rpc`] when the client answers with an error or the connection closes.
    pub async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        #[cfg(feature = "unstable_protocol_v2")]
        if self.is_v2() {
            return self.request_permission_v2(request).await;
        }
        Ok(self
            .peer
            .request::<methods::SessionRequestPermission>(&request)
            .await?)
    }

    client_requests! {
        /// `fs/read_text_file` (spec chapter "File System"): reads a text file through the client,
        /// which sees unsaved editor state. Needs `fs.readTextFile`.
        read_text_file: FsReadTextFile(ReadTextFileRequest) -> ReadTextFileResponse;
        /// `fs/write_text_file` (spec chapter "File System"): writes a text file through the
        /// client. Needs `fs.writeTextFile`.
        write_text_file: FsWriteTextFile(WriteTextFileRequest) -> WriteTextFileResponse;
        /// `terminal/create` (spec chapter "Terminals"): runs a command in a new terminal.
        /// Needs `terminal`.
        create_terminal: TerminalCreate(CreateTerminalRequest) -> CreateTerminalResponse;
        /// `terminal/output` (spec chapter "Terminals"): the output so far. Needs `terminal`.
        terminal_output: TerminalOutput(TerminalOutputRequest) -> TerminalOutputResponse;
        /// `terminal/wait_for_exit` (spec chapter "Terminals"): waits for the command to exit.
        /// Needs `terminal`.
        wait_for_terminal_exit: TerminalWaitForExit(WaitForTerminalExitRequest) -> WaitForTerminalExitResponse;
        /// `terminal/kill` (spec chapter "Terminals"): kills the command, keeping the terminal.
        /// Needs `terminal`.
        kill_terminal: TerminalKill(KillTerminalRequest) -> KillTerminalResponse;
        /// `terminal/release` (spec chapter "Terminals"): releases the terminal (killing the
        /// command if still running). Needs `terminal`.
        release_terminal: TerminalRelease(ReleaseTerminalRequest) -> ReleaseTerminalResponse;
    }

    /// `elicitation/create` (spec chapter "Elicitation"): asks the user for structured
    /// input. Needs `elicitation` with the mode the request uses (`form` or `url`): the spec
    /// forbids requesting a mode the client did not advertise, and `elicitation: {}`
    /// advertises none.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the client did not advertise the request's
    /// mode; [`Error::Rpc`] when the client answers with an error or the connection closes.
    pub async fn create_elicitation(
        &self,
        request: CreateElicitationRequest,
    ) -> Result<CreateElicitationResponse, Error> {
        if self.gate {
            let elicitation = self.advertised().and_then(|c| c.elicitation.as_ref());
            elicitation_mode_allowed(elicitation, &request.mode).map_err(|capability| {
                Error::CapabilityNotAdvertised {
                    method: cm::ELICITATION_CREATE,
                    capability,
                }
            })?;
        }
        #[cfg(feature = "unstable_protocol_v2")]
        if self.is_v2() {
            return self.create_elicitation_v2(request).await;
        }
        Ok(self
            .peer
            .request::<methods::ElicitationCreate>(&request)
            .await?)
    }

    /// `session/update` (spec chapter "Prompt Turn"), a notification: reports progress of a
    /// session. Updates are delivered in the order they are sent, and before the response of
    /// the prompt that sends them.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn session_update(&self, notification: SessionNotification) -> Result<(), Error> {
        #[cfg(feature = "unstable_protocol_v2")]
        if self.is_v2() {
            return self.session_update_as_v2(notification).await;
        }
        Ok(self
            .peer
            .notify::<methods::SessionUpdate>(&notification)
            .await?)
    }

    /// A v1 `session/update` whose update is already encoded (by the store that recorded it):
    /// the same bytes as [`session_update`](Self::session_update) puts on the wire for a
    /// notification without `_meta`, without encoding the update again. Never on a v2
    /// connection (its updates are converted first).
    pub(crate) async fn session_update_encoded(
        &self,
        session_id: &SessionId,
        update: &RawValue,
    ) -> Result<(), Error> {
        Ok(self
            .peer
            .notify_raw(cm::SESSION_UPDATE, &EncodedUpdate { session_id, update })
            .await?)
    }

    /// `elicitation/complete` (spec chapter "Elicitation"), a notification: an out-of-band (URL)
    /// elicitation finished. Needs `elicitation.url` (only URL elicitations complete this way).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`], or when the connection is closed.
    pub async fn complete_elicitation(
        &self,
        notification: CompleteElicitationNotification,
    ) -> Result<(), Error> {
        self.check(cm::ELICITATION_COMPLETE)?;
        Ok(self
            .peer
            .notify::<methods::ElicitationComplete>(&notification)
            .await?)
    }

    /// An extension request (spec chapter "Extensibility"): `method` should start with `_`.
    ///
    /// # Errors
    ///
    /// When the client answers with an error or the connection closes.
    pub async fn ext_method(&self, request: ExtRequest) -> Result<ExtResponse, Error> {
        Ok(self.peer.ext_request(&request).await?)
    }

    /// An extension notification (spec chapter "Extensibility"): `method` should start with `_`.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn ext_notification(&self, notification: ExtNotification) -> Result<(), Error> {
        Ok(self.peer.ext_notify(&notification).await?)
    }

    /// The client's `initialize` request (its capabilities and info), once initialized.
    pub fn client_initialize(&self) -> Option<&InitializeRequest> {
        self.state.initialized.get()
    }

    /// The client's capabilities, once initialized.
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        self.client_initialize()?.client_capabilities.as_ref()
    }

    /// The capabilities this agent advertised in its `initialize` response, once answered.
    pub fn agent_capabilities(&self) -> Option<&AgentCapabilities> {
        self.state.advertised.get()?.agent_capabilities.as_ref()
    }

    /// True when the client advertised `fs.readTextFile`.
    pub fn can_read_text_file(&self) -> bool {
        self.client_initialize()
            .is_some_and(InitializeRequest::can_read_text_file)
    }

    /// True when the client advertised `fs.writeTextFile`.
    pub fn can_write_text_file(&self) -> bool {
        self.client_initialize()
            .is_some_and(InitializeRequest::can_write_text_file)
    }

    /// True when the client advertised `terminal`.
    pub fn can_use_terminal(&self) -> bool {
        self.client_initialize()
            .is_some_and(InitializeRequest::can_use_terminal)
    }

    /// True when the client advertised form elicitation (`elicitation.form`).
    pub fn can_elicit_form(&self) -> bool {
        self.client_capabilities()
            .and_then(|c| c.elicitation.as_ref())
            .is_some_and(|e| e.form.is_some())
    }

    /// True when the client advertised URL elicitation (`elicitation.url`).
    pub fn can_elicit_url(&self) -> bool {
        self.client_capabilities()
            .and_then(|c| c.elicitation.as_ref())
            .is_some_and(|e| e.url.is_some())
    }

    /// Runs `request` in a client terminal (`terminal/create`) and returns its handle, which
    /// releases the terminal when dropped.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `terminal`; [`Error::Rpc`] when the client
    /// fails it or the connection closes.
    pub async fn terminal(
        &self,
        request: CreateTerminalRequest,
    ) -> Result<crate::TerminalHandle, Error> {
        crate::TerminalHandle::create(self, request).await
    }

    /// A tool call id unique on this connection: `call-1`, `call-2`...
    pub(crate) fn next_tool_call_id(&self) -> ToolCallId {
        let n = self
            .state
            .next_tool_call
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        ToolCallId::from(format!("call-{n}"))
    }

    /// A context to push updates for `session_id` without repeating it (outside a prompt turn,
    /// for example while replaying history in `session/load`).
    pub fn session(&self, session_id: impl Into<SessionId>) -> PromptContext {
        PromptContext::new(self.clone(), session_id.into(), Signal::default())
    }

    /// The underlying connection handle (raw calls, closing state).
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// True when calls the client did not advertise fail locally (see
    /// [`AgentOptions::gate_client_capabilities`]).
    pub(crate) fn gates(&self) -> bool {
        self.gate
    }

    /// Refuses `method` when gating is on and the client did not advertise its capability
    /// (nothing is advertised before `initialize`).
    fn check(&self, method: &'static str) -> Result<(), Error> {
        #[cfg(feature = "unstable_protocol_v2")]
        if self.is_v2() && (method.starts_with("fs/") || method.starts_with("terminal/")) {
            return Err(Error::NotInProtocolVersion {
                what: format!("the client method `{method}`").into(),
                version: crate::v2::V2,
            });
        }
        if !self.gate {
            return Ok(());
        }
        client_allows(self.advertised(), method)
            .map_err(|capability| Error::CapabilityNotAdvertised { method, capability })
    }

    /// True when this connection speaks ACP v2 (negotiated in `initialize`; feature
    /// `unstable_protocol_v2`).
    #[cfg(feature = "unstable_protocol_v2")]
    pub fn is_v2(&self) -> bool {
        self.peer.protocol_version().is_some_and(|v| v.0 >= 2)
    }

    /// The message ids of the sessions of a v2 connection.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn cursors(&self) -> &crate::v2::Cursors {
        &self.state.cursors
    }

    /// True while a prompt of `session_id` runs.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn has_running_prompt(&self, session_id: &SessionId) -> bool {
        self.state.prompts().contains_key(session_id)
    }

    /// The capabilities the client advertised in `initialize` (none before it).
    fn advertised(&self) -> Option<&ClientCapabilities> {
        let init = self.state.initialized.get();
        init.and_then(|i| i.client_capabilities.as_ref())
    }
}

/// Serves `agent` on a reader and a writer (a pipe, a socket, an in-memory duplex, the stdio
/// pipes of a child process...). `make_agent` receives the handle used to call the client.
///
/// Nothing runs until the returned [`Driver`] is polled (usually `tokio::spawn(driver)`, or
/// `driver.await` as the last thing `main` does). It resolves when the client disconnects.
pub fn serve<A, R, W>(
    make_agent: impl FnOnce(ClientHandle) -> A,
    reader: R,
    writer: W,
    options: AgentOptions,
) -> (ClientHandle, Driver)
where
    A: Agent,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    serve_on(make_agent, options, |make_handler, rpc| {
        acp_rpc::connect(make_handler, reader, writer, rpc)
    })
}

/// Serves `agent` over a message transport: `incoming` yields one JSON-RPC message per item and
/// `outgoing` takes one per item, unframed (WebSocket text frames, HTTP bodies, an in-process
/// channel). Everything else is as [`serve`]: the same rules, the same [`ClientHandle`].
pub fn serve_messages<A, I, O>(
    make_agent: impl FnOnce(ClientHandle) -> A,
    incoming: I,
    outgoing: O,
    options: AgentOptions,
) -> (ClientHandle, Driver)
where
    A: Agent,
    I: futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + Unpin + 'static,
    O: futures::Sink<bytes::Bytes, Error = std::io::Error> + Send + Unpin + 'static,
{
    serve_on(make_agent, options, |make_handler, rpc| {
        acp_rpc::connect_messages(make_handler, incoming, outgoing, rpc)
    })
}

/// Builds the handler and hands it to `connect`, which runs it on some transport.
fn serve_on<A: Agent>(
    make_agent: impl FnOnce(ClientHandle) -> A,
    options: AgentOptions,
    connect: impl FnOnce(Box<dyn FnOnce(Peer) -> AgentHandler<A> + '_>, Config) -> (Peer, Driver),
) -> (ClientHandle, Driver) {
    let state = Arc::new(State::default());
    let rpc = options.rpc.clone();
    let mut handle_out = None;
    let (_peer, driver) = connect(
        Box::new(|peer| {
            let client = ClientHandle {
                peer,
                state: state.clone(),
                gate: options.gate_client_capabilities,
            };
            handle_out = Some(client.clone());
            AgentHandler {
                agent: make_agent(client.clone()),
                client,
                state,
                options,
            }
        }),
        rpc,
    );
    let client = handle_out.expect("connect calls the handler constructor");
    (client, driver)
}

/// Serves `agent` on the process's stdin and stdout, the standard ACP transport.
///
/// Nothing else may write to stdout: it is the transport. Log to stderr (`tracing` with a
/// stderr writer). When stdin and stdout are pipes or sockets they are used in non-blocking
/// mode ([`acp_rpc::stdio`]), which is several times faster for small messages than tokio's
/// thread-pool stdio.
///
/// # Panics
///
/// Outside a tokio runtime with I/O enabled (`#[tokio::main]` enables it).
pub fn serve_stdio<A: Agent>(
    make_agent: impl FnOnce(ClientHandle) -> A,
    options: AgentOptions,
) -> (ClientHandle, Driver) {
    let (stdin, stdout) = acp_rpc::stdio();
    serve(make_agent, stdin, stdout, options)
}

/// The connection's handler: decodes by method, applies the protocol rules, calls the agent.
pub(crate) struct AgentHandler<A> {
    pub(crate) agent: A,
    pub(crate) client: ClientHandle,
    pub(crate) state: Arc<State>,
    pub(crate) options: AgentOptions,
}

/// A decoded request of either protocol version.
pub(crate) enum Call {
    /// A request of a v1 connection (or an extension request).
    V1(V1Call),
    /// A request of a v2 connection.
    #[cfg(feature = "unstable_protocol_v2")]
    V2(crate::v2::Call),
}

/// A decoded notification of either protocol version.
pub(crate) enum Note {
    /// A notification of a v1 connection (or an extension notification).
    V1(ClientNotificationParams),
    /// A notification of a v2 connection.
    #[cfg(feature = "unstable_protocol_v2")]
    V2(crate::v2::Notification),
}

/// The answer to a request of either protocol version.
pub(crate) enum Answer {
    /// A v1 result.
    V1(AgentResult),
    /// A v2 result.
    #[cfg(feature = "unstable_protocol_v2")]
    V2(crate::v2::Answer),
}

impl serde::Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::V1(result) => result.serialize(serializer),
            #[cfg(feature = "unstable_protocol_v2")]
            Answer::V2(answer) => answer.serialize(serializer),
        }
    }
}

/// A decoded v1 request, with what the rules decided about it.
pub(crate) struct V1Call {
    params: ClientRequestParams,
    /// For a prompt: its registration among the session's running prompts. It lives in the
    /// decoded call, so the registration goes away even if the handler never runs.
    prompt: Option<PromptGuard>,
}

/// Removes a session's running-prompt entry when the prompt ends, however it ends.
pub(crate) struct PromptGuard {
    state: Arc<State>,
    session_id: SessionId,
    signal: Signal,
}

impl Drop for PromptGuard {
    fn drop(&mut self) {
        let mut prompts = self.state.prompts();
        // Only remove our own signal: other prompts of the session may still run.
        if let Some(signals) = prompts.get_mut(&self.session_id) {
            signals.retain(|s| !s.ptr_eq(&self.signal));
            if signals.is_empty() {
                prompts.remove(&self.session_id);
            }
        }
    }
}

impl PromptGuard {
    /// The cancellation signal of the prompt.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn signal(&self) -> &Signal {
        &self.signal
    }
}

impl<A> AgentHandler<A> {
    /// Cancels the prompts running in `session_id` (`session/cancel`, or the session is closed
    /// or archived).
    pub(crate) fn cancel_prompts(&self, session_id: &SessionId) {
        // First the prompts a v2 session holds: one accepted meanwhile is registered below.
        #[cfg(feature = "unstable_protocol_v2")]
        self.state.turns.cancel(session_id);
        for signal in self.state.prompts().get(session_id).into_iter().flatten() {
            tracing::debug!(session = %session_id, "cancelling the running prompt");
            signal.set();
        }
    }

    /// Registers a prompt of `session_id` among the running ones, refusing it when one runs
    /// and the one-prompt rule is on.
    pub(crate) fn register_prompt(
        &self,
        session_id: &SessionId,
    ) -> Result<PromptGuard, ErrorObject> {
        let mut prompts = self.state.prompts();
        if self.options.one_prompt_per_session && prompts.contains_key(session_id) {
            return Err(ErrorObject::invalid_request(format_args!(
                "a prompt is already running in session {session_id}"
            )));
        }
        let signal = Signal::default();
        prompts
            .entry(session_id.clone())
            .or_default()
            .push(signal.clone());
        Ok(PromptGuard {
            state: self.state.clone(),
            session_id: session_id.clone(),
            signal,
        })
    }
}

impl<A: Agent> Handler for AgentHandler<A> {
    type Request = Call;
    type Notification = Note;
    type Response = Answer;

    fn decode_request(&self, method: &str, params: Option<&RawValue>) -> Result<Call, ErrorObject> {
        if self.options.require_initialize
            && method != methods::agent::INITIALIZE
            && self.state.initialized.get().is_none()
        {
            return Err(ErrorObject::invalid_request(format_args!(
                "`{method}` before `initialize`: the connection must be initialized first"
            )));
        }
        #[cfg(feature = "unstable_protocol_v2")]
        if let Some(call) = crate::v2::decode_request(self, method, params)? {
            return Ok(Call::V2(call));
        }
        let advertised = self.state.advertised.get();
        if self.options.refuse_unadvertised {
            admit::check_method(advertised, method)?;
        }
        let params: ClientRequestParams = acp_rpc::decode_params(method, params)?;
        if self.options.require_absolute_cwd {
            crate::cwd::check(&params)?;
        }
        if self.options.refuse_unadvertised {
            admit::check_request(advertised, &params)?;
        }
        let mut guard = None;
        if let ClientRequestParams::Prompt(prompt) = &params {
            guard = Some(self.register_prompt(&prompt.session_id)?);
        }
        Ok(Call::V1(V1Call {
            params,
            prompt: guard,
        }))
    }

    fn decode_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Note, ErrorObject> {
        #[cfg(feature = "unstable_protocol_v2")]
        if let Some(notification) = crate::v2::decode_notification(self, method, params)? {
            return Ok(Note::V2(notification));
        }
        // An error drops the notification with a warning.
        if self.options.refuse_unadvertised {
            admit::check_method(self.state.advertised.get(), method)?;
        }
        let notification = acp_rpc::decode_params(method, params)?;
        Ok(Note::V1(notification))
    }

    fn handle_request(
        self: &Arc<Self>,
        call: Call,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
        #[allow(clippy::infallible_destructuring_match)] // One variant without v2.
        let call = match call {
            Call::V1(call) => call,
            #[cfg(feature = "unstable_protocol_v2")]
            Call::V2(call) => {
                return crate::v2::handle(self.clone(), call)
                    .map(|r| r.map(Answer::V2))
                    .boxed();
            }
        };
        let this = self.clone();
        async move {
            let agent = &this.agent;
            Ok(match call.params {
                ClientRequestParams::Initialize(request) => {
                    let requested = request.protocol_version;
                    let mut response = agent.initialize((*request).clone()).await?;
                    if this.options.negotiate_version {
                        response.protocol_version = negotiate(requested);
                    }
                    // The first successful initialize wins; a repeated one changes nothing.
                    if this.state.initialized.set(*request).is_ok() {
                        let _ = this.state.advertised.set(response.clone());
                    }
                    AgentResult::from(response)
                }
                ClientRequestParams::Authenticate(r) => {
                    AgentResult::Authenticate(agent.authenticate(r).await?)
                }
                ClientRequestParams::Logout(r) => AgentResult::Logout(agent.logout(r).await?),
                ClientRequestParams::NewSession(r) => {
                    AgentResult::NewSession(agent.new_session(r).await?)
                }
                ClientRequestParams::LoadSession(r) => {
                    AgentResult::LoadSession(agent.load_session(r).await?)
                }
                ClientRequestParams::ListSessions(r) => {
                    AgentResult::ListSessions(agent.list_sessions(r).await?)
                }
                ClientRequestParams::ResumeSession(r) => {
                    AgentResult::ResumeSession(agent.resume_session(r).await?)
                }
                ClientRequestParams::CloseSession(r) => {
                    // A prompt still running in a closed session is cancelled first.
                    this.cancel_prompts(&r.session_id);
                    AgentResult::CloseSession(agent.close_session(r).await?)
                }
                ClientRequestParams::DeleteSession(r) => {
                    AgentResult::DeleteSession(agent.delete_session(r).await?)
                }
                ClientRequestParams::SetSessionMode(r) => {
                    AgentResult::SetSessionMode(agent.set_session_mode(r).await?)
                }
                ClientRequestParams::SetSessionConfigOption(r) => {
                    AgentResult::SetSessionConfigOption(agent.set_session_config_option(r).await?)
                }
                ClientRequestParams::Prompt(r) => {
                    let guard = call.prompt.unwrap_or_else(|| PromptGuard {
                        state: this.state.clone(),
                        session_id: r.session_id.clone(),
                        signal: Signal::default(),
                    });
                    let signal = guard.signal.clone();
                    let context = PromptContext::new(
                        this.client.clone(),
                        r.session_id.clone(),
                        signal.clone(),
                    );
                    let result = agent.prompt(r, context).await;
                    if this.options.cancelled_stop_reason && signal.is_set() {
                        // The spec: a cancelled turn ends with `cancelled`, even if the agent
                        // failed while stopping.
                        let mut response = match result {
                            Ok(response) => response,
                            Err(error) => {
                                tracing::debug!(%error, "prompt failed after cancellation");
                                PromptResponse::new(StopReason::Cancelled)
                            }
                        };
                        response.stop_reason = StopReason::Cancelled;
                        AgentResult::Prompt(response)
                    } else {
                        AgentResult::Prompt(result?)
                    }
                }
                ClientRequestParams::Ext(r) => AgentResult::Ext(agent.ext_method(r).await?),
                #[cfg(feature = "unstable_session_fork")]
                ClientRequestParams::ForkSession(r) => {
                    AgentResult::ForkSession(agent.fork_session(r).await?)
                }
                #[cfg(feature = "unstable_llm_providers")]
                ClientRequestParams::ListProviders(r) => {
                    AgentResult::ListProviders(agent.list_providers(r).await?)
                }
                #[cfg(feature = "unstable_llm_providers")]
                ClientRequestParams::SetProvider(r) => {
                    AgentResult::SetProvider(agent.set_provider(r).await?)
                }
                #[cfg(feature = "unstable_llm_providers")]
                ClientRequestParams::DisableProvider(r) => {
                    AgentResult::DisableProvider(agent.disable_provider(r).await?)
                }
                #[cfg(feature = "unstable_auth_status")]
                ClientRequestParams::AuthStatus(r) => {
                    AgentResult::AuthStatus(agent.auth_status(r).await?)
                }
                #[cfg(feature = "unstable_session_archive")]
                ClientRequestParams::ArchiveSession(r) => {
                    // As `session/close`: a prompt still running in the session is cancelled.
                    this.cancel_prompts(&r.session_id);
                    AgentResult::ArchiveSession(agent.archive_session(r).await?)
                }
                #[cfg(feature = "unstable_session_archive")]
                ClientRequestParams::UnarchiveSession(r) => {
                    AgentResult::UnarchiveSession(agent.unarchive_session(r).await?)
                }
                #[cfg(feature = "unstable_session_status")]
                ClientRequestParams::SessionStatus(r) => {
                    AgentResult::SessionStatus(agent.session_status(r).await?)
                }
                #[cfg(feature = "unstable_session_set_title")]
                ClientRequestParams::SetSessionTitle(r) => {
                    AgentResult::SetSessionTitle(agent.set_session_title(r).await?)
                }
                other => {
                    return Err(ErrorObject::method_not_found(
                        acp_types::MethodUnion::method(&other),
                    ));
                }
            })
        }
        .map(|r| r.map(Answer::V1))
        .boxed()
    }

    fn handle_notification(self: &Arc<Self>, notification: Note) -> BoxFuture<'static, ()> {
        let this = self.clone();
        async move {
            #[allow(clippy::infallible_destructuring_match)] // One variant without v2.
            let notification = match notification {
                Note::V1(notification) => notification,
                #[cfg(feature = "unstable_protocol_v2")]
                Note::V2(notification) => {
                    if let Err(error) = crate::v2::handle_notification(&this, notification).await {
                        tracing::warn!(%error, "notification handler failed");
                    }
                    return;
                }
            };
            let result = match notification {
                ClientNotificationParams::Cancel(n) => {
                    this.cancel_prompts(&n.session_id);
                    this.agent.cancel(n).await
                }
                ClientNotificationParams::Ext(n) => this.agent.ext_notification(n).await,
                #[cfg(feature = "unstable_mcp_over_acp")]
                ClientNotificationParams::MessageMcp(n) => {
                    this.agent.message_mcp_notification(n).await
                }
                // `$/cancel_request` is handled by the connection itself.
                _ => Ok(()),
            };
            if let Err(error) = result {
                tracing::warn!(%error, "notification handler failed");
            }
        }
        .boxed()
    }
}

/// The version to answer `initialize` with: the client's if we support it, else our latest.
fn negotiate(requested: ProtocolVersion) -> ProtocolVersion {
    if requested == ProtocolVersion::V1 {
        requested
    } else {
        ProtocolVersion::LATEST
    }
}

/// `session/update`'s params (a [`SessionNotification`] without `_meta`), the update already
/// encoded: written as it is.
#[derive(serde::Serialize)]
struct EncodedUpdate<'a> {
    #[serde(rename = "sessionId")]
    session_id: &'a SessionId,
    update: &'a RawValue,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The params [`ClientHandle::session_update_encoded`] writes are, byte for byte, those
    /// of the [`SessionNotification`] [`ClientHandle::session_update`] would have encoded.
    #[test]
    fn an_encoded_update_goes_out_as_the_notification_would() {
        let id = SessionId::new("sess-\"quoted\" é");
        let mut meta = Meta::new();
        meta.insert(
            "k\u{1}".into(),
            serde_json::json!({"b": [1, 2.5, null], "a": "\u{2028}"}),
        );
        let updates = [
            SessionUpdate::AgentMessageChunk(ContentChunk::new("line\n\t\"é\" \u{0} 😀")),
            SessionUpdate::AgentThoughtChunk(ContentChunk::new("x").meta(meta.clone())),
            SessionUpdate::ToolCall(Box::new(
                ToolCall::new("call-1", "Read \\ file")
                    .kind(ToolKind::Read)
                    .content(vec![ToolCallContent::from("out")]),
            )),
            SessionUpdate::Plan(Plan::new(vec![PlanEntry::new(
                "step",
                PlanEntryPriority::High,
                PlanEntryStatus::Pending,
            )])),
        ];
        for update in updates {
            let encoded = serde_json::value::to_raw_value(&update).expect("encodes");
            let expected = serde_json::to_string(&SessionNotification::new(id.clone(), update))
                .expect("encodes");
            let params = EncodedUpdate {
                session_id: &id,
                update: &encoded,
            };
            assert_eq!(serde_json::to_string(&params).expect("encodes"), expected);
        }
    }
}
