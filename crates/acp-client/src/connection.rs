//! Connecting a [`Client`] to an agent: the handle to the agent, session update streams, and
//! the protocol rules on the client's side.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use acp_rpc::{Config, Driver, Handler, Peer};
use acp_types::capabilities::{agent_allows, prompt_block_allowed};
use acp_types::methods::{self, agent as am};
use acp_types::*;
use futures::future::BoxFuture;
use futures::{FutureExt, Stream};
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};

use crate::admit::Admission;
use crate::{Client, Error, lock};

/// How long [`AgentHandle::prompt_with_timeout`] still waits for a turn's answer after
/// cancelling it: the agent has this long to stop and answer `cancelled`.
pub const PROMPT_CANCEL_GRACE: Duration = Duration::from_secs(5);

/// The protocol rules the library enforces for a client, each of which can be turned off.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// Connection settings (framing, limits).
    pub rpc: Config,
    /// Fail calls the agent did not advertise (`session/load` without `loadSession`, prompts
    /// with images without `promptCapabilities.image`, ...) locally instead of sending them.
    pub gate_agent_capabilities: bool,
    /// Answer a session's pending permission requests with the `cancelled` outcome when
    /// [`AgentHandle::cancel`] cancels the session (or [`AgentHandle::close_session`] closes
    /// it), as the spec requires; and so those arriving afterwards until the turn ends.
    pub cancel_pending_permissions: bool,
    /// Fail `initialize` with [`Error::UnsupportedProtocolVersion`] when the agent answers with
    /// a version this library does not speak.
    pub check_protocol_version: bool,
    /// Refuse the agent's requests for methods whose capability the client did not advertise
    /// in the `initialize` it sent through [`AgentHandle::initialize`] (`fs.readTextFile`,
    /// `fs.writeTextFile`, `terminal`, `elicitation` and its modes) with `-32601`, naming the
    /// method and the capability, before they reach the [`Client`]; `elicitation/complete`
    /// without `elicitation.url` is dropped with a warning. Before `initialize` nothing is
    /// advertised.
    pub refuse_unadvertised: bool,
    /// Refuse the agent's requests for a session this connection does not have (not created
    /// by `session/new`, loaded or resumed through the [`AgentHandle`], or closed or deleted
    /// since) with `-32002` naming the session, and drop `session/update`s for such a session
    /// with a `tracing` warning, so that they are never shown as another session's.
    pub refuse_unknown_sessions: bool,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            rpc: Config::default(),
            gate_agent_capabilities: true,
            cancel_pending_permissions: true,
            check_protocol_version: true,
            refuse_unadvertised: true,
            refuse_unknown_sessions: true,
        }
    }
}

impl ClientOptions {
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

    /// Fails a request to the agent that is not answered within `timeout` with
    /// [`acp_rpc::Error::Timeout`] (naming the method and the limit); its pending entry is
    /// dropped and the agent gets `$/cancel_request`. This is [`Config::request_timeout`], set
    /// for the caller. `session/prompt` is not bound by it (a turn lasts as long as the work):
    /// give a turn its own limit with [`AgentHandle::prompt_with_timeout`].
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.rpc = self.rpc.request_timeout(Some(timeout));
        self
    }

    /// Gives every message exchanged with the agent to `f` (its direction and JSON body), to
    /// log or validate the traffic; see [`acp_rpc::Observer`]. For a [`spawn`](crate::spawn)ed
    /// agent too, through [`SpawnOptions::client`](crate::SpawnOptions::client).
    ///
    /// ```
    /// use acp_client::{ClientOptions, Direction};
    ///
    /// let options = ClientOptions::default().observe(|direction: Direction, body: &[u8]| {
    ///     eprintln!("{direction}: {}", String::from_utf8_lossy(body));
    /// });
    /// # let _ = options;
    /// ```
    #[must_use]
    pub fn observe(
        mut self,
        f: impl Fn(acp_rpc::Direction, &[u8]) + Send + Sync + 'static,
    ) -> Self {
        self.rpc = self.rpc.observe(f);
        self
    }
}

/// State shared by the connection and the agent handle.
pub(crate) struct State {
    /// The agent's answer to `initialize`.
    initialized: OnceLock<InitializeResponse>,
    /// Subscribers to each session's updates; `None` once the connection is closed, which
    /// ends every stream.
    subscribers: Mutex<Option<Subscribers>>,
    /// Permission requests being answered, per session, with the means to cancel them.
    permissions: Mutex<HashMap<SessionId, HashMap<u64, oneshot::Sender<()>>>>,
    next_permission: AtomicU64,
    /// The turns running through [`AgentHandle::prompt`], per session.
    turns: Mutex<HashMap<SessionId, Turns>>,
    /// What the client advertised and which sessions it has: what the agent may ask for.
    pub(crate) admission: Admission,
    /// The negotiated version and the v2 side of the connection.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) v2: crate::v2::Shared,
}

/// The prompts of one session running through this handle.
#[derive(Debug, Default)]
struct Turns {
    /// How many (more than one only while a refused extra prompt is in flight).
    running: usize,
    /// True once the turn was cancelled: until it ends, permission requests of the session
    /// belong to the cancelled turn and are answered `cancelled` without asking the user.
    cancelled: bool,
}

/// Counts a running prompt of a session; the session's turn state goes when the last ends.
pub(crate) struct TurnGuard<'a> {
    state: &'a State,
    session_id: SessionId,
}

impl<'a> TurnGuard<'a> {
    pub(crate) fn start(state: &'a State, session_id: &SessionId) -> Self {
        lock(&state.turns)
            .entry(session_id.clone())
            .or_default()
            .running += 1;
        Self {
            state,
            session_id: session_id.clone(),
        }
    }
}

impl Drop for TurnGuard<'_> {
    fn drop(&mut self) {
        let mut turns = lock(&self.state.turns);
        if let Some(turn) = turns.get_mut(&self.session_id) {
            turn.running = turn.running.saturating_sub(1);
            if turn.running == 0 {
                turns.remove(&self.session_id);
            }
        }
    }
}

impl State {
    fn new(options: &ClientOptions) -> Self {
        Self {
            initialized: OnceLock::new(),
            subscribers: Mutex::new(Some(HashMap::new())),
            permissions: Mutex::new(HashMap::new()),
            next_permission: AtomicU64::new(0),
            turns: Mutex::new(HashMap::new()),
            admission: Admission::new(options.refuse_unadvertised, options.refuse_unknown_sessions),
            #[cfg(feature = "unstable_protocol_v2")]
            v2: crate::v2::Shared::new(),
        }
    }
}

type Subscribers = HashMap<SessionId, Vec<mpsc::UnboundedSender<SessionNotification>>>;

/// A cloneable handle for calling the agent, one method per ACP agent method.
#[derive(Clone)]
pub struct AgentHandle {
    pub(crate) peer: Peer,
    pub(crate) state: Arc<State>,
    pub(crate) options: Arc<ClientOptions>,
}

impl std::fmt::Debug for AgentHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentHandle")
            .field("peer", &self.peer)
            .field("initialized", &self.state.initialized.get().is_some())
            .finish()
    }
}

macro_rules! agent_requests {
    ($( $(#[doc = $doc:literal])* $name:ident: $marker:ident($req:ty) -> $res:ty; )*) => {
        $(
            $(#[doc = $doc])*
            ///
            /// # Errors
            ///
            /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise the method;
            /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
            pub async fn $name(&self, request: $req) -> Result<$res, Error> {
                self.check(<methods::$marker as methods::Request>::METHOD)?;
                Ok(self.peer.request::<methods::$marker>(&request).await?)
            }
        )*
    };
}

impl AgentHandle {
    /// `initialize` (spec chapter "Initialization"): negotiates the protocol version and
    /// exchanges capabilities. Call it first, once.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedProtocolVersion`] when the agent answers with a version this library
    /// does not speak (close the connection then, as the spec says); [`Error::Rpc`] otherwise.
    pub async fn initialize(
        &self,
        request: InitializeRequest,
    ) -> Result<InitializeResponse, Error> {
        // What the agent may ask of us from now on.
        self.state
            .admission
            .advertise(request.client_capabilities.as_ref());
        let response = self.peer.request::<methods::Initialize>(&request).await?;
        if self.options.check_protocol_version && response.protocol_version != ProtocolVersion::V1 {
            return Err(Error::UnsupportedProtocolVersion(response.protocol_version));
        }
        self.set_initialized(response.clone());
        Ok(response)
    }

    /// Records the agent's v1 answer to `initialize`.
    pub(crate) fn set_initialized(&self, response: InitializeResponse) {
        let _ = self.state.initialized.set(response);
    }

    agent_requests! {
        /// `authenticate` (spec chapter "Initialization"): authenticates with one of the
        /// agent's `authMethods`.
        authenticate: Authenticate(AuthenticateRequest) -> AuthenticateResponse;
        /// `logout`: signs the user out. Needs `auth.logout`.
        logout: Logout(LogoutRequest) -> LogoutResponse;
        /// `session/list` (spec chapter "Session List"): lists sessions. Needs
        /// `sessionCapabilities.list`.
        list_sessions: SessionList(ListSessionsRequest) -> ListSessionsResponse;
        /// `session/set_mode` (spec chapter "Session Modes"): switches the session's mode.
        set_session_mode: SessionSetMode(SetSessionModeRequest) -> SetSessionModeResponse;
        /// `session/set_config_option` (spec chapter "Session Config Options"): changes an
        /// option.
        set_session_config_option: SessionSetConfigOption(SetSessionConfigOptionRequest)
            -> SetSessionConfigOptionResponse;
    }

    /// `session/new` (spec chapter "Session Setup"): creates a session. With MCP over ACP
    /// (draft), the agent may connect to the `"acp"` servers in `mcpServers` from now on.
    ///
    /// # Errors
    ///
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    pub async fn new_session(
        &self,
        request: NewSessionRequest,
    ) -> Result<NewSessionResponse, Error> {
        self.check_v1(am::SESSION_NEW)?;
        #[cfg(feature = "unstable_session_options")]
        self.check_system_prompt(am::SESSION_NEW, request.system_prompt.as_ref())?;
        self.offer_mcp_servers(&request.mcp_servers);
        Ok(self.peer.request::<methods::SessionNew>(&request).await?)
    }

    /// `session/load` (spec chapter "Session Setup"): loads a session; its history arrives
    /// as `session/update`s before the answer. Needs `loadSession`. From the moment it is sent
    /// the session is this connection's (its replayed updates are accepted), unless the agent
    /// refuses it.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise the method;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    pub async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, Error> {
        self.check(am::SESSION_LOAD)?;
        #[cfg(feature = "unstable_session_options")]
        self.check_system_prompt(am::SESSION_LOAD, request.system_prompt.as_ref())?;
        self.offer_mcp_servers(&request.mcp_servers);
        self.adopt_session(&request.session_id, || {
            self.peer.request::<methods::SessionLoad>(&request)
        })
        .await
    }

    /// `session/resume` (spec chapter "Session Setup"): resumes a session without replay.
    /// Needs `sessionCapabilities.resume`. The session is this connection's from the moment
    /// the request is sent, unless the agent refuses it.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise the method;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    pub async fn resume_session(
        &self,
        request: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, Error> {
        self.check(am::SESSION_RESUME)?;
        #[cfg(feature = "unstable_session_options")]
        self.check_system_prompt(am::SESSION_RESUME, request.system_prompt.as_ref())?;
        self.offer_mcp_servers(request.mcp_servers.as_deref().unwrap_or_default());
        self.adopt_session(&request.session_id, || {
            self.peer.request::<methods::SessionResume>(&request)
        })
        .await
    }

    /// `session/delete` (spec chapter "Session Delete"): deletes a session. Needs
    /// `sessionCapabilities.delete`. Once deleted, the session is no longer this
    /// connection's.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise the method;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    pub async fn delete_session(
        &self,
        request: DeleteSessionRequest,
    ) -> Result<DeleteSessionResponse, Error> {
        self.check(am::SESSION_DELETE)?;
        let response = self
            .peer
            .request::<methods::SessionDelete>(&request)
            .await?;
        self.state.admission.remove_session(&request.session_id);
        Ok(response)
    }

    /// Lets the agent connect to the `"acp"` MCP servers among `servers` (draft MCP over ACP),
    /// offered in a session request about to be sent.
    pub(crate) fn offer_mcp_servers(&self, servers: &[McpServer]) {
        self.state.admission.offer_mcp_servers(servers);
    }

    /// Runs a call that makes `session_id` this connection's: the session is known before the
    /// call is sent (its updates may come before the answer), and forgotten again if the call
    /// fails and it was not known before.
    pub(crate) async fn adopt_session<T, F>(
        &self,
        session_id: &SessionId,
        call: impl FnOnce() -> F,
    ) -> Result<T, Error>
    where
        F: Future<Output = Result<T, acp_rpc::Error>>,
    {
        let added = self.state.admission.add_session(session_id);
        let result = call().await;
        if result.is_err() && added {
            self.state.admission.remove_session(session_id);
        }
        Ok(result?)
    }

    /// `session/prompt` (spec chapter "Prompt Turn"): runs one turn. Returns when the turn
    /// ends, after every `session/update` of the turn was handled (by
    /// [`Client::session_notification`] and the [`session_updates`](Self::session_updates)
    /// streams).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the prompt holds content the agent did not
    /// advertise (images, audio, embedded resources); [`Error::Rpc`] otherwise.
    pub async fn prompt(&self, request: PromptRequest) -> Result<PromptResponse, Error> {
        self.prompt_within(request, None).await
    }

    /// [`prompt`](Self::prompt), giving the turn at most `timeout`: past it the session is
    /// cancelled (`session/cancel`, as [`cancel`](Self::cancel) does, permission requests
    /// included) and the turn's answer awaited for [`PROMPT_CANCEL_GRACE`] more, so that the
    /// turn ends properly and the session is free for the next prompt. The answer is then the
    /// agent's (normally `stopReason: "cancelled"`).
    ///
    /// # Errors
    ///
    /// As [`prompt`](Self::prompt); [`acp_rpc::Error::Timeout`] when the agent did not answer
    /// within the grace period after the cancellation either (the request is then dropped,
    /// with `$/cancel_request`).
    pub async fn prompt_with_timeout(
        &self,
        request: PromptRequest,
        timeout: Duration,
    ) -> Result<PromptResponse, Error> {
        self.prompt_within(request, Some(timeout)).await
    }

    async fn prompt_within(
        &self,
        request: PromptRequest,
        timeout: Option<Duration>,
    ) -> Result<PromptResponse, Error> {
        self.check_v1(am::SESSION_PROMPT)?;
        self.check_prompt(&request)?;
        let _turn = TurnGuard::start(&self.state, &request.session_id);
        // Not `Peer::request`: the connection-wide request timeout does not bound a turn.
        let answer = self.peer.request_raw(am::SESSION_PROMPT, &request);
        let Some(timeout) = timeout else {
            return Ok(answer.await?.decode_method_result()?);
        };
        tokio::pin!(answer);
        let answer = match tokio::time::timeout(timeout, &mut answer).await {
            Ok(answer) => answer,
            Err(_) => {
                tracing::debug!(session = %request.session_id, ?timeout, "the turn took too long: cancelling it");
                self.cancel(CancelNotification::new(request.session_id.clone()))
                    .await?;
                tokio::time::timeout(PROMPT_CANCEL_GRACE, answer)
                    .await
                    .map_err(|_| acp_rpc::Error::Timeout {
                        method: am::SESSION_PROMPT,
                        after: timeout + PROMPT_CANCEL_GRACE,
                    })?
            }
        };
        Ok(answer?.decode_method_result()?)
    }

    /// `session/cancel` (spec chapter "Prompt Turn", cancellation), a notification: asks the
    /// agent to stop the session's running turn (which then ends with `cancelled`). Pending
    /// permission requests of the session are answered `cancelled` at once, and so are those
    /// that arrive before the turn (run through [`prompt`](Self::prompt)) ends.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn cancel(&self, notification: CancelNotification) -> Result<(), Error> {
        self.check_v1(am::SESSION_CANCEL)?;
        self.cancel_permissions(&notification.session_id);
        Ok(self
            .peer
            .notify::<methods::SessionCancel>(&notification)
            .await?)
    }

    /// `session/close` (spec chapter "Session Setup"): closes a session. Needs
    /// `sessionCapabilities.close`. The agent cancels the session's running turn as if
    /// `session/cancel` had been sent, so pending permission requests of the session are
    /// answered `cancelled`, as [`cancel`](Self::cancel) does.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise the method;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    pub async fn close_session(
        &self,
        request: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, Error> {
        self.check(am::SESSION_CLOSE)?;
        self.cancel_permissions(&request.session_id);
        let response = self.peer.request::<methods::SessionClose>(&request).await?;
        self.state.admission.remove_session(&request.session_id);
        Ok(response)
    }

    /// Marks the session's running turn cancelled and answers its pending permission requests
    /// `cancelled` (if [`ClientOptions::cancel_pending_permissions`]).
    pub(crate) fn cancel_permissions(&self, session_id: &SessionId) {
        if !self.options.cancel_pending_permissions {
            return;
        }
        // Mark first: a request registering after the sweep below then sees the mark.
        if let Some(turn) = lock(&self.state.turns).get_mut(session_id) {
            turn.cancelled = true;
        }
        let pending = lock(&self.state.permissions).remove(session_id);
        for (_, cancel) in pending.into_iter().flatten() {
            // The request may have been answered meanwhile.
            let _ = cancel.send(());
        }
    }

    /// An extension request (spec chapter "Extensibility"): `method` should start with `_`.
    ///
    /// # Errors
    ///
    /// When the agent answers with an error or the connection closes.
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

    /// The stream of `session/update`s of one session, from now on, in order. A prompt's
    /// response is returned only after every update of the turn was pushed to the stream.
    ///
    /// The stream buffers without bound so that it can never stall the connection: consume it,
    /// or drop it when done.
    pub fn session_updates(&self, session_id: impl Into<SessionId>) -> SessionUpdates {
        let (tx, rx) = mpsc::unbounded_channel();
        // A closed connection gets no subscriber: the stream ends at once.
        if let Some(subscribers) = lock(&self.state.subscribers).as_mut() {
            subscribers.entry(session_id.into()).or_default().push(tx);
        }
        SessionUpdates { rx }
    }

    /// The agent's answer to `initialize` (its capabilities, auth methods, info), once
    /// initialized.
    pub fn agent_initialize(&self) -> Option<&InitializeResponse> {
        self.state.initialized.get()
    }

    /// The agent's capabilities, once initialized.
    pub fn agent_capabilities(&self) -> Option<&AgentCapabilities> {
        self.agent_initialize()?.agent_capabilities.as_ref()
    }

    /// The underlying connection handle.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Refuses `method` when gating is on and the agent's `initialize` response did not
    /// advertise its capability (draft methods included). Before `initialize` nothing is
    /// known: the agent answers.
    pub(crate) fn check(&self, method: &'static str) -> Result<(), Error> {
        self.check_v1(method)?;
        match self.gating() {
            Some(init) => agent_allows(init.agent_capabilities.as_ref(), method)
                .map_err(|capability| Error::CapabilityNotAdvertised { method, capability }),
            None => Ok(()),
        }
    }

    /// Refuses a v1 call on a connection that negotiated v2 (its calls are on
    /// [`AgentHandle::v2`]): the agent would read it as v2, and its answer would not fit.
    #[cfg_attr(not(feature = "unstable_protocol_v2"), allow(clippy::unused_self))]
    pub(crate) fn check_v1(&self, method: &'static str) -> Result<(), Error> {
        #[cfg(feature = "unstable_protocol_v2")]
        if self.state.v2.is_v2() {
            return Err(Error::NotV1 { method });
        }
        let _ = method;
        Ok(())
    }

    /// The agent's `initialize` response when gating is on and it was answered: what the
    /// checks go by.
    pub(crate) fn gating(&self) -> Option<&InitializeResponse> {
        if self.options.gate_agent_capabilities {
            self.state.initialized.get()
        } else {
            None
        }
    }

    fn check_prompt(&self, request: &PromptRequest) -> Result<(), Error> {
        let Some(init) = self.gating() else {
            return Ok(());
        };
        let caps = init.agent_capabilities.as_ref();
        let prompt = caps.and_then(|c| c.prompt_capabilities.as_ref());
        request
            .prompt
            .iter()
            .try_for_each(|block| prompt_block_allowed(prompt, block))
            .map_err(|capability| Error::CapabilityNotAdvertised {
                method: am::SESSION_PROMPT,
                capability,
            })
    }
}

/// The `session/update`s of one session, in order; see [`AgentHandle::session_updates`].
#[derive(Debug)]
pub struct SessionUpdates {
    rx: mpsc::UnboundedReceiver<SessionNotification>,
}

impl SessionUpdates {
    /// The next update, or `None` once the connection is closed.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn next(&mut self) -> Option<SessionNotification> {
        self.rx.recv().await
    }

    /// An update already received, without waiting.
    pub fn try_next(&mut self) -> Option<SessionNotification> {
        self.rx.try_recv().ok()
    }
}

impl Stream for SessionUpdates {
    type Item = SessionNotification;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx)
    }
}

/// Connects `client` to an agent over a reader and a writer (an in-process duplex, a socket,
/// a child's pipes...). `make_client` receives the handle used to call the agent.
///
/// Nothing runs until the returned [`Driver`] is polled (usually `tokio::spawn(driver)`).
pub fn connect<C, R, W>(
    make_client: impl FnOnce(AgentHandle) -> C,
    reader: R,
    writer: W,
    options: ClientOptions,
) -> (AgentHandle, Driver)
where
    C: Client,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    connect_on(make_client, options, |make_handler, rpc| {
        acp_rpc::connect(make_handler, reader, writer, rpc)
    })
}

/// Connects `client` to an agent over a message transport: `incoming` yields one JSON-RPC
/// message per item and `outgoing` takes one per item, unframed (WebSocket text frames, HTTP
/// bodies, an in-process channel). Everything else is as [`connect`]: the same rules, the same
/// [`AgentHandle`].
pub fn connect_messages<C, I, O>(
    make_client: impl FnOnce(AgentHandle) -> C,
    incoming: I,
    outgoing: O,
    options: ClientOptions,
) -> (AgentHandle, Driver)
where
    C: Client,
    I: Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + Unpin + 'static,
    O: futures::Sink<bytes::Bytes, Error = std::io::Error> + Send + Unpin + 'static,
{
    connect_on(make_client, options, |make_handler, rpc| {
        acp_rpc::connect_messages(make_handler, incoming, outgoing, rpc)
    })
}

/// Builds the handler and hands it to `connect`, which runs it on some transport.
fn connect_on<C: Client>(
    make_client: impl FnOnce(AgentHandle) -> C,
    options: ClientOptions,
    connect: impl FnOnce(Box<dyn FnOnce(Peer) -> ClientHandler<C> + '_>, Config) -> (Peer, Driver),
) -> (AgentHandle, Driver) {
    let state = Arc::new(State::new(&options));
    let rpc = options.rpc.clone();
    let options = Arc::new(options);
    #[cfg(feature = "unstable_protocol_v2")]
    let handler_options = options.clone();
    let mut handle_out = None;
    let (_peer, driver) = connect(
        Box::new(|peer| {
            #[cfg(feature = "unstable_protocol_v2")]
            let handler_peer = peer.clone();
            let agent = AgentHandle {
                peer,
                state: state.clone(),
                options,
            };
            handle_out = Some(agent.clone());
            ClientHandler {
                client: make_client(agent),
                state,
                #[cfg(feature = "unstable_protocol_v2")]
                options: handler_options,
                #[cfg(feature = "unstable_protocol_v2")]
                peer: handler_peer,
            }
        }),
        rpc,
    );
    (
        handle_out.expect("connect calls the handler constructor"),
        driver,
    )
}

/// The connection's handler: decodes by method, calls the client, feeds update streams.
pub(crate) struct ClientHandler<C> {
    pub(crate) client: C,
    pub(crate) state: Arc<State>,
    #[cfg(feature = "unstable_protocol_v2")]
    options: Arc<ClientOptions>,
    /// The connection, told the negotiated version (its rules differ per version).
    #[cfg(feature = "unstable_protocol_v2")]
    peer: Peer,
}

/// A decoded request of the agent, in the negotiated version's types.
pub(crate) enum Incoming {
    V1(AgentRequestParams),
    #[cfg(feature = "unstable_protocol_v2")]
    V2(Box<crate::v2::serve::Request>),
}

/// A decoded notification of the agent, in the negotiated version's types.
#[allow(clippy::large_enum_variant)] // Moved once per update: a box would allocate per update.
pub(crate) enum IncomingNotification {
    V1(AgentNotificationParams),
    #[cfg(feature = "unstable_protocol_v2")]
    V2(crate::v2::serve::Notification),
}

/// The client's answer, in the negotiated version's types.
pub(crate) enum Answer {
    V1(ClientResult),
    #[cfg(feature = "unstable_protocol_v2")]
    V2(crate::v2::serve::Answer),
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

impl<C: Client> Handler for ClientHandler<C> {
    type Request = Incoming;
    type Notification = IncomingNotification;
    type Response = Answer;

    fn decode_request(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Incoming, ErrorObject> {
        let admission = &self.state.admission;
        #[cfg(feature = "unstable_protocol_v2")]
        if self.state.v2.is_v2() {
            let refuse = self.options.refuse_unadvertised;
            return crate::v2::serve::decode_request(
                &self.state.v2,
                admission,
                refuse,
                method,
                params,
            )
            .map(|r| Incoming::V2(Box::new(r)));
        }
        admission.check_method(method)?;
        let request = acp_rpc::decode_params(method, params)?;
        admission.check_request(&request)?;
        Ok(Incoming::V1(request))
    }

    fn decode_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<IncomingNotification, ErrorObject> {
        let admission = &self.state.admission;
        #[cfg(feature = "unstable_protocol_v2")]
        if self.state.v2.is_v2() {
            let refuse = self.options.refuse_unadvertised;
            return crate::v2::serve::decode_notification(
                &self.state.v2,
                admission,
                refuse,
                method,
                params,
            )
            .map(IncomingNotification::V2);
        }
        admission.check_method(method)?;
        let notification = acp_rpc::decode_params(method, params)?;
        admission.check_notification(&notification)?;
        Ok(IncomingNotification::V1(notification))
    }

    fn response_received(&self, method: &str, result: Result<&acp_rpc::RawResult, &ErrorObject>) {
        #[cfg(feature = "unstable_protocol_v2")]
        if crate::v2::negotiate::response_received(&self.state, &self.peer, method, result) {
            return;
        }
        // The session exists from its creation on: its first updates may follow the response
        // before the caller of `new_session` has even seen it.
        if method == am::SESSION_NEW {
            if let Ok(Ok(created)) = result.map(|r| r.decode_method_result::<NewSessionResponse>())
            {
                self.state.admission.add_session(&created.session_id);
            }
        }
        // A fork is a new session of this connection too.
        #[cfg(feature = "unstable_session_fork")]
        if method == am::SESSION_FORK {
            if let Ok(Ok(forked)) = result.map(|r| r.decode_method_result::<ForkSessionResponse>())
            {
                self.state.admission.add_session(&forked.session_id);
            }
        }
    }

    // Without v2 the version match has one arm.
    #[cfg_attr(
        not(feature = "unstable_protocol_v2"),
        allow(clippy::infallible_destructuring_match)
    )]
    fn handle_request(
        self: &Arc<Self>,
        request: Incoming,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
        let this = self.clone();
        async move {
            let client = &this.client;
            let request = match request {
                Incoming::V1(request) => request,
                #[cfg(feature = "unstable_protocol_v2")]
                Incoming::V2(request) => {
                    return this.handle_v2_request(*request).await.map(Answer::V2);
                }
            };
            Ok(Answer::V1(match request {
                AgentRequestParams::RequestPermission(r) => {
                    ClientResult::RequestPermission(this.request_permission(*r).await?)
                }
                AgentRequestParams::ReadTextFile(r) => {
                    ClientResult::ReadTextFile(client.read_text_file(r).await?)
                }
                AgentRequestParams::WriteTextFile(r) => {
                    ClientResult::WriteTextFile(client.write_text_file(r).await?)
                }
                AgentRequestParams::CreateTerminal(r) => {
                    ClientResult::CreateTerminal(client.create_terminal(r).await?)
                }
                AgentRequestParams::TerminalOutput(r) => {
                    ClientResult::TerminalOutput(client.terminal_output(r).await?)
                }
                AgentRequestParams::WaitForTerminalExit(r) => {
                    ClientResult::WaitForTerminalExit(client.wait_for_terminal_exit(r).await?)
                }
                AgentRequestParams::KillTerminal(r) => {
                    ClientResult::KillTerminal(client.kill_terminal(r).await?)
                }
                AgentRequestParams::ReleaseTerminal(r) => {
                    ClientResult::ReleaseTerminal(client.release_terminal(r).await?)
                }
                AgentRequestParams::CreateElicitation(r) => {
                    ClientResult::CreateElicitation(client.create_elicitation(*r).await?)
                }
                AgentRequestParams::Ext(r) => ClientResult::Ext(client.ext_method(r).await?),
                #[cfg(feature = "unstable_mcp_over_acp")]
                AgentRequestParams::MessageMcp(r) => {
                    ClientResult::MessageMcp(client.message_mcp(r).await?)
                }
                other => return Err(ErrorObject::method_not_found(MethodUnion::method(&other))),
            }))
        }
        .boxed()
    }

    // Without v2 the version match has one arm.
    #[cfg_attr(
        not(feature = "unstable_protocol_v2"),
        allow(clippy::infallible_destructuring_match)
    )]
    fn handle_notification(
        self: &Arc<Self>,
        notification: IncomingNotification,
    ) -> BoxFuture<'static, ()> {
        let this = self.clone();
        async move {
            let notification = match notification {
                IncomingNotification::V1(notification) => notification,
                #[cfg(feature = "unstable_protocol_v2")]
                IncomingNotification::V2(notification) => {
                    if let Err(error) = this.handle_v2_notification(notification).await {
                        tracing::warn!(%error, "notification handler failed");
                    }
                    return;
                }
            };
            let result = match notification {
                AgentNotificationParams::SessionUpdate(n) => {
                    this.publish(&n);
                    this.client.session_notification(n).await
                }
                AgentNotificationParams::CompleteElicitation(n) => {
                    this.client.complete_elicitation(n).await
                }
                AgentNotificationParams::Ext(n) => this.client.ext_notification(n).await,
                #[cfg(feature = "unstable_auth_status")]
                AgentNotificationParams::AuthStatusUpdate(n) => {
                    this.client.auth_status_update(n).await
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

impl<C> Drop for ClientHandler<C> {
    /// The connection is over (its driver ended or was dropped): end every update stream, now
    /// and for later subscribers.
    fn drop(&mut self) {
        lock(&self.state.subscribers).take();
        #[cfg(feature = "unstable_protocol_v2")]
        self.state.v2.close();
    }
}

impl<C: Client> ClientHandler<C> {
    /// Pushes an update to the session's subscribers, forgetting those that went away.
    fn publish(&self, notification: &SessionNotification) {
        let mut subscribers = lock(&self.state.subscribers);
        let Some(subscribers) = subscribers.as_mut() else {
            return;
        };
        if let Some(list) = subscribers.get_mut(&notification.session_id) {
            list.retain(|tx| tx.send(notification.clone()).is_ok());
            if list.is_empty() {
                subscribers.remove(&notification.session_id);
            }
        }
    }

    /// Runs the client's permission handler, answering `cancelled` if the session is cancelled
    /// meanwhile.
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        let session_id = request.session_id.clone();
        self.cancellable_permission(
            session_id,
            self.client.request_permission(request),
            RequestPermissionResponse::cancelled,
        )
        .await
    }

    /// Runs a permission handler (`ask`), answering `cancelled()` instead if the session is
    /// cancelled meanwhile, or at once if the session's turn was cancelled already.
    pub(crate) async fn cancellable_permission<T>(
        &self,
        session_id: SessionId,
        ask: impl Future<Output = Result<T, ErrorObject>>,
        cancelled: impl Fn() -> T,
    ) -> Result<T, ErrorObject> {
        let key = self.state.next_permission.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.state.permissions)
            .entry(session_id.clone())
            .or_default()
            .insert(key, tx);
        // Registered first, then checked: a cancellation racing with us either sees our
        // registration or we see its mark.
        let turn_cancelled = lock(&self.state.turns)
            .get(&session_id)
            .is_some_and(|t| t.cancelled);
        let result = if turn_cancelled {
            // The request belongs to a turn the user already cancelled: do not ask them.
            Ok(cancelled())
        } else {
            tokio::select! {
                biased;
                Ok(()) = rx => Ok(cancelled()),
                result = ask => result,
            }
        };
        let mut permissions = lock(&self.state.permissions);
        if let Some(pending) = permissions.get_mut(&session_id) {
            pending.remove(&key);
            if pending.is_empty() {
                permissions.remove(&session_id);
            }
        }
        result
    }
}
