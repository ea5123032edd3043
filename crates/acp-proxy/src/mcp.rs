//! MCP servers a proxy provides to the agent through the ACP connection itself (the draft
//! feature `unstable_mcp_over_acp`), written with rmcp.
//!
//! [`Proxy::mcp_server`] registers an rmcp server. From then on the proxy adds an MCP server of
//! the ACP transport (`{"type": "acp", "name": …, "serverId": …}`) to every `session/new`,
//! `session/load` and `session/resume` it forwards, when its successor advertised
//! `mcpCapabilities.acp` (under a conductor it always does: the conductor bridges for an agent
//! that cannot). Each session gets a server of its own, made by the author's factory from the
//! session's [`McpSession`] (its working directory, its server id), and started on the first
//! message for it.
//!
//! The agent reaches it with `mcp/message` requests, request-scoped as the November draft says:
//! each carries one inner MCP request (`method`, `params`, the caller's `requestId`) and is
//! answered with the inner result or MCP error. The proxy feeds the inner request to the rmcp
//! server over an in-memory transport (no bytes, no handshake: rmcp's `serve_directly`) and
//! answers with what the server answers. Progress the server reports for a request (the
//! request's `_meta.progressToken`) goes to the agent as `mcp/message` notifications naming the
//! request. The draft has no carrier for the server's own requests (sampling, roots,
//! elicitation): the server gets a `-32601` MCP error for them at once.
//!
//! A server lives as long as its session: it is stopped when the session is closed
//! (`session/close` answered, or refused as unknown), when the session is loaded or resumed
//! again (the new declaration replaces it), when the session request that declared it fails,
//! and when the connection to the conductor ends. An `mcp/message` for a server this proxy
//! declared and stopped gets `-32002` saying the server is gone, never an answer from another
//! component.
//!
//! Bounds: at most [`MAX_IN_FLIGHT`] inner requests per server at a time (more are refused with
//! an outer error saying so), at most [`MAX_SERVERS`] servers per registration at a time (the
//! oldest open session's server is stopped beyond that). A cancelled `mcp/message`
//! (`$/cancel_request`) sends `notifications/cancelled` to the server. An `mcp/message` for a
//! server this proxy did not declare goes on toward the editor untouched: another component
//! may provide it.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use acp_types::methods::agent::{
    INITIALIZE, SESSION_CLOSE, SESSION_LOAD, SESSION_NEW, SESSION_RESUME,
};
use acp_types::methods::{McpMessage, McpMessageNotification, Request as _};
use acp_types::{
    ErrorObject, LoadSessionRequest, McpError, McpRequestId, McpServer, McpServerAcp,
    McpServerAcpId, MessageMcpNotification, MessageMcpRequest, MessageMcpResponse, Meta,
    NewSessionRequest, RawJson, ResumeSessionRequest, SessionId,
};
use rmcp::model::{
    ClientJsonRpcMessage, ErrorCode, ErrorData, JsonRpcMessage, RequestId as InnerId,
    ServerJsonRpcMessage,
};
use rmcp::service::{RoleServer, Service, serve_directly};
use rmcp::transport::Transport;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::{Semaphore, mpsc, oneshot};

use crate::hop::{Context, Toward};
use crate::proxy::{Proxy, RequestFuture, RequestRoute, Routes};

/// The most inner MCP requests one server handles at a time; more are refused.
pub const MAX_IN_FLIGHT: usize = 32;

/// The most servers one registration keeps at a time (one per open session offered one);
/// beyond it the oldest session's server is stopped and its id is no longer served. Closed
/// sessions do not count: their servers are stopped with them.
pub const MAX_SERVERS: usize = 256;

/// What an MCP server of a proxy knows of the session it serves: made for each session the
/// proxy offers the server to.
#[derive(Debug, Clone)]
pub struct McpSession {
    cwd: PathBuf,
    server_id: McpServerAcpId,
}

impl McpSession {
    /// The session's working directory, as the editor gave it in `session/new` (or load,
    /// resume).
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The id the server was declared with (`serverId`), unique on the connection.
    pub fn server_id(&self) -> &McpServerAcpId {
        &self.server_id
    }
}

/// Starts an author's server for a session on an in-memory transport.
type Start = Box<dyn Fn(&McpSession, InMemory) + Send + Sync>;

/// One registration of [`Proxy::mcp_server`]: the servers it offered, by id.
struct Provider {
    name: String,
    start: Start,
    /// The successor advertised `mcpCapabilities.acp`: only then are servers offered.
    acp_transport: AtomicBool,
    servers: Mutex<Servers>,
    next: AtomicU64,
    /// Makes ids of different proxies (and runs) differ.
    salt: u64,
}

#[derive(Default)]
struct Servers {
    by_id: HashMap<McpServerAcpId, Declared>,
    /// Oldest first, for the bound.
    order: VecDeque<McpServerAcpId>,
    /// The server of each session the agent accepted, for freeing it with the session.
    by_session: HashMap<SessionId, McpServerAcpId>,
}

/// A declared server, and the session it serves once the agent accepted the session.
struct Declared {
    server: Arc<Server>,
    session: Option<SessionId>,
}

impl Servers {
    /// Forgets the server `id` (it stops once the calls in flight on it end).
    fn remove(&mut self, id: &McpServerAcpId) {
        if let Some(declared) = self.by_id.remove(id) {
            self.order.retain(|other| other != id);
            if let Some(session) = declared.session
                && self.by_session.get(&session) == Some(id)
            {
                self.by_session.remove(&session);
            }
        }
    }
}

/// The server of one session: started on its first message.
struct Server {
    session: McpSession,
    running: OnceLock<Running>,
    permits: Arc<Semaphore>,
}

/// A started server: what feeds it, and what its answers go to.
struct Running {
    inbox: mpsc::Sender<ClientJsonRpcMessage>,
    shared: Arc<Shared>,
}

/// What the transport's send side and the callers share.
struct Shared {
    cx: Context,
    server_id: McpServerAcpId,
    next_id: AtomicI64,
    /// The callers waiting for an answer, by inner id.
    pending: Mutex<HashMap<i64, oneshot::Sender<Outcome>>>,
    /// The progress tokens of active requests (as JSON text), and the request each names.
    progress: Mutex<HashMap<String, McpRequestId>>,
    /// Answers the server's own requests (a weak handle: the server stops when the last
    /// caller's handle goes).
    inbox: mpsc::WeakSender<ClientJsonRpcMessage>,
}

/// The inner answer: the raw result or the MCP error.
type Outcome = Result<Box<RawValue>, McpError>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Provider {
    /// Declares a new server for a session in `cwd`, under the bound.
    fn offer(&self, cwd: &str) -> McpServerAcpId {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = McpServerAcpId::from(format!("{}-{:016x}-{n}", self.name, self.salt));
        let server = Arc::new(Server {
            session: McpSession {
                cwd: PathBuf::from(cwd),
                server_id: id.clone(),
            },
            running: OnceLock::new(),
            permits: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
        });
        let mut servers = lock(&self.servers);
        if servers.order.len() >= MAX_SERVERS
            && let Some(oldest) = servers.order.front().cloned()
        {
            tracing::warn!(
                server = %oldest.0,
                "{MAX_SERVERS} sessions have an MCP server of this proxy: the oldest one's is stopped"
            );
            servers.remove(&oldest);
        }
        servers.order.push_back(id.clone());
        servers.by_id.insert(
            id.clone(),
            Declared {
                server,
                session: None,
            },
        );
        id
    }

    /// Forgets a server (its session was refused, or closed).
    fn withdraw(&self, id: &McpServerAcpId) {
        lock(&self.servers).remove(id);
    }

    /// Records that the agent accepted `session` with the server `id`; a server the session
    /// had before (an earlier load or resume on this connection) is stopped.
    fn bind(&self, id: &McpServerAcpId, session: SessionId) {
        let mut servers = lock(&self.servers);
        let Some(declared) = servers.by_id.get_mut(id) else {
            // Stopped meanwhile (beyond the bound): nothing to bind.
            return;
        };
        declared.session = Some(session.clone());
        if let Some(previous) = servers.by_session.insert(session, id.clone())
            && previous != *id
        {
            servers.remove(&previous);
        }
    }

    /// Stops the server of `session`, if it has one of this registration.
    fn close(&self, session: &SessionId) {
        let mut servers = lock(&self.servers);
        if let Some(id) = servers.by_session.get(session).cloned() {
            tracing::debug!(server = %id.0, session = %session.0, "the session's MCP server is stopped");
            servers.remove(&id);
        }
    }

    fn find(&self, id: &McpServerAcpId) -> Option<Arc<Server>> {
        lock(&self.servers)
            .by_id
            .get(id)
            .map(|declared| declared.server.clone())
    }

    /// Whether `id` is one this registration made (served now or not): ids are
    /// `NAME-SALT-N` with `N` below the next one to give.
    fn made(&self, id: &McpServerAcpId) -> bool {
        let Some(rest) = id.0.strip_prefix(self.name.as_str()) else {
            return false;
        };
        let Some(rest) = rest.strip_prefix('-') else {
            return false;
        };
        let Some((salt, n)) = rest.split_once('-') else {
            return false;
        };
        u64::from_str_radix(salt, 16).is_ok_and(|salt| salt == self.salt)
            && n.parse::<u64>()
                .is_ok_and(|n| n < self.next.load(Ordering::Relaxed))
    }
}

/// The error for an `mcp/message` naming a server this proxy declared and has stopped.
fn gone(id: &McpServerAcpId) -> ErrorObject {
    ErrorObject::new(
        acp_types::ErrorCode::RESOURCE_NOT_FOUND,
        format!(
            "Resource not found: the MCP server `{}` is gone (its session was closed or \
             replaced, its session request failed, or more than {MAX_SERVERS} sessions had one)",
            id.0
        ),
    )
    .with_data(serde_json::json!({ "serverId": id.0 }))
}

impl Server {
    /// The running server, started on first use.
    fn running(&self, provider: &Provider, cx: &Context) -> &Running {
        self.running.get_or_init(|| {
            let (inbox, receiver) = mpsc::channel(MAX_IN_FLIGHT * 2);
            let shared = Arc::new(Shared {
                cx: cx.clone(),
                server_id: self.session.server_id.clone(),
                next_id: AtomicI64::new(1),
                pending: Mutex::default(),
                progress: Mutex::default(),
                inbox: inbox.downgrade(),
            });
            (provider.start)(
                &self.session,
                InMemory {
                    receiver,
                    shared: shared.clone(),
                },
            );
            Running { inbox, shared }
        })
    }

    /// One inner request: fed to the server, its answer awaited.
    async fn call(
        &self,
        provider: &Provider,
        cx: &Context,
        request: MessageMcpRequest,
    ) -> Result<MessageMcpResponse, ErrorObject> {
        let Ok(_permit) = self.permits.clone().try_acquire_owned() else {
            return Err(ErrorObject::internal_error(format_args!(
                "the MCP server `{}` already has {MAX_IN_FLIGHT} requests in flight",
                self.session.server_id.0
            )));
        };
        let running = self.running(provider, cx);
        let shared = &running.shared;
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let message = match inner_request(id, &request.method, request.params.as_ref()) {
            Ok(message) => message,
            Err(error) => return Ok(MessageMcpResponse::error(error)),
        };
        let (tx, rx) = oneshot::channel();
        lock(&shared.pending).insert(id, tx);
        let token = progress_token(request.params.as_ref());
        if let Some(token) = &token {
            lock(&shared.progress).insert(token.clone(), request.request_id.clone());
        }
        let mut inflight = InFlight {
            running,
            id,
            token,
            answered: false,
        };
        if running.inbox.send(message).await.is_err() {
            return Err(stopped(&self.session.server_id));
        }
        let outcome = rx.await.map_err(|_| stopped(&self.session.server_id))?;
        inflight.answered = true;
        Ok(match outcome {
            Ok(result) => MessageMcpResponse::result(RawJson::from_raw(result)),
            Err(error) => MessageMcpResponse::error(error),
        })
    }
}

fn stopped(id: &McpServerAcpId) -> ErrorObject {
    ErrorObject::internal_error(format_args!(
        "the MCP server `{}` stopped before answering",
        id.0
    ))
}

/// An inner request on its way: cleans up when it ends, and tells the server when it was
/// abandoned (the caller cancelled the `mcp/message`).
struct InFlight<'a> {
    running: &'a Running,
    id: i64,
    token: Option<String>,
    answered: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let shared = &self.running.shared;
        lock(&shared.pending).remove(&self.id);
        if let Some(token) = &self.token {
            lock(&shared.progress).remove(token);
        }
        if !self.answered {
            let cancelled = serde_json::json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": { "requestId": self.id, "reason": "the mcp/message request was cancelled" },
            });
            if let Ok(message) = serde_json::from_value::<ClientJsonRpcMessage>(cancelled) {
                // Best effort: a full inbox means the server is busy anyway.
                let _ = self.running.inbox.try_send(message);
            }
        }
    }
}

/// The inner JSON-RPC request for rmcp, or the MCP error saying why it is not one.
fn inner_request(
    id: i64,
    method: &str,
    params: Option<&Meta>,
) -> Result<ClientJsonRpcMessage, McpError> {
    #[derive(Serialize)]
    struct Envelope<'a> {
        jsonrpc: &'static str,
        id: i64,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<&'a Meta>,
    }
    let text = serde_json::to_string(&Envelope {
        jsonrpc: "2.0",
        id,
        method,
        params,
    })
    .map_err(|e| McpError::new(-32603, format!("the request could not be encoded: {e}")))?;
    serde_json::from_str(&text).map_err(|e| {
        McpError::new(
            -32602,
            format!("`{method}` is not a valid MCP request here: {e}"),
        )
    })
}

/// The request's `_meta.progressToken`, as JSON text.
fn progress_token(params: Option<&Meta>) -> Option<String> {
    let token = params?.get("_meta")?.get("progressToken")?;
    Some(token.to_string())
}

/// The in-memory transport between the proxy and one rmcp server.
struct InMemory {
    receiver: mpsc::Receiver<ClientJsonRpcMessage>,
    shared: Arc<Shared>,
}

impl Transport<RoleServer> for InMemory {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let shared = self.shared.clone();
        async move {
            shared.deliver(item).await;
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.receiver.recv()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.receiver.close();
        std::future::ready(Ok(()))
    }
}

impl Shared {
    /// What the server sends: an answer to its waiter, progress to the agent, a request of its
    /// own refused.
    async fn deliver(&self, item: ServerJsonRpcMessage) {
        match item {
            JsonRpcMessage::Response(response) => {
                let outcome = serde_json::value::to_raw_value(&response.result).map_err(|e| {
                    McpError::new(-32603, format!("the result could not be encoded: {e}"))
                });
                self.answer(&response.id, outcome);
            }
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    let mut inner = McpError::new(error.error.code.0, error.error.message);
                    if let Some(data) = error.error.data {
                        inner = inner.data(data);
                    }
                    self.answer(id, Err(inner));
                }
            }
            JsonRpcMessage::Notification(notification) => {
                self.relay(&notification.notification).await;
            }
            JsonRpcMessage::Request(request) => {
                // No carrier in the draft for a server's own requests: refuse at once, so the
                // server never waits.
                let refusal = ClientJsonRpcMessage::error(
                    ErrorData::new(
                        ErrorCode::METHOD_NOT_FOUND,
                        "MCP over ACP carries no requests from the server to the client",
                        None,
                    ),
                    Some(request.id),
                );
                if let Some(inbox) = self.inbox.upgrade() {
                    let _ = inbox.send(refusal).await;
                }
            }
        }
    }

    fn answer(&self, id: &InnerId, outcome: Outcome) {
        let waiter = match id {
            InnerId::Number(n) => lock(&self.pending).remove(n),
            InnerId::String(_) => None,
        };
        match waiter {
            // The caller may be gone (cancelled): the answer has no one to go to.
            Some(waiter) => drop(waiter.send(outcome)),
            None => tracing::debug!(?id, "an MCP answer for no active request is dropped"),
        }
    }

    /// A notification of the server: progress of an active request goes to the agent.
    async fn relay(&self, notification: &impl Serialize) {
        #[derive(Deserialize)]
        struct Inner {
            method: String,
            #[serde(default)]
            params: Option<Meta>,
        }
        let Ok(inner) = serde_json::to_string(notification)
            .and_then(|text| serde_json::from_str::<Inner>(&text))
        else {
            return;
        };
        let request = inner
            .params
            .as_ref()
            .and_then(|p| p.get("progressToken"))
            .and_then(|token| lock(&self.progress).get(&token.to_string()).cloned());
        let Some(request_id) = request else {
            tracing::debug!(
                method = inner.method,
                "an MCP notification for no active request is dropped"
            );
            return;
        };
        let mut params =
            MessageMcpNotification::new(self.server_id.clone(), request_id, inner.method);
        params.params = inner.params;
        if let Err(error) = self
            .cx
            .successor()
            .notify::<McpMessageNotification>(&params)
            .await
        {
            tracing::debug!(%error, "an MCP progress notification was lost");
        }
    }
}

/// Requests whose params declare the session's MCP servers.
trait DeclaresServers: serde::de::DeserializeOwned + Serialize {
    fn cwd(&self) -> &str;
    fn servers(&mut self) -> &mut Vec<McpServer>;
    /// The session the request names; `None` for a new one (its id is in the answer).
    fn session(&self) -> Option<&SessionId>;
}

impl DeclaresServers for NewSessionRequest {
    fn cwd(&self) -> &str {
        &self.cwd
    }
    fn servers(&mut self) -> &mut Vec<McpServer> {
        &mut self.mcp_servers
    }
    fn session(&self) -> Option<&SessionId> {
        None
    }
}

impl DeclaresServers for LoadSessionRequest {
    fn cwd(&self) -> &str {
        &self.cwd
    }
    fn servers(&mut self) -> &mut Vec<McpServer> {
        &mut self.mcp_servers
    }
    fn session(&self) -> Option<&SessionId> {
        Some(&self.session_id)
    }
}

impl DeclaresServers for ResumeSessionRequest {
    fn cwd(&self) -> &str {
        &self.cwd
    }
    fn servers(&mut self) -> &mut Vec<McpServer> {
        self.mcp_servers.get_or_insert_with(Vec::new)
    }
    fn session(&self) -> Option<&SessionId> {
        Some(&self.session_id)
    }
}

/// The `sessionId` of a session request's params or of `session/new`'s answer (the only
/// field read).
#[derive(Deserialize)]
struct NamesSession {
    #[serde(rename = "sessionId")]
    session_id: SessionId,
}

/// The route `inner` had (or plain forwarding toward `toward`), to call from a wrapper.
fn next_route(inner: Option<RequestRoute>, toward: Toward, method: &'static str) -> RequestRoute {
    inner.unwrap_or_else(|| {
        Box::new(move |cx: Context, params: Option<&RawValue>| {
            let params = params.map(ToOwned::to_owned);
            Ok(Box::pin(async move {
                cx.hop(toward)
                    .request_raw(method, params.as_deref())
                    .await
                    .map(|answer| answer.raw)
            }) as RequestFuture)
        })
    })
}

/// Wraps the route of `method` in `routes` (or its forwarding) with `wrap`.
fn wrap_route(
    routes: &mut Routes,
    toward: Toward,
    method: &'static str,
    wrap: impl Fn(&RequestRoute, Context, Option<&RawValue>) -> Result<RequestFuture, ErrorObject>
    + Send
    + Sync
    + 'static,
) {
    let next = next_route(routes.requests.remove(method), toward, method);
    routes.requests.insert(
        method.to_owned(),
        Box::new(move |cx, params| wrap(&next, cx, params)),
    );
}

/// Adds the provider's server to a session request on its way to the agent.
fn declare<T: DeclaresServers>(
    provider: &Arc<Provider>,
    next: &RequestRoute,
    cx: Context,
    params: Option<&RawValue>,
) -> Result<RequestFuture, ErrorObject> {
    if !provider.acp_transport.load(Ordering::Acquire) {
        return next(cx, params);
    }
    let mut request: T = acp_types::from_str(params.map_or("{}", RawValue::get))
        .map_err(ErrorObject::invalid_params)?;
    let id = provider.offer(request.cwd());
    request.servers().push(McpServer::Acp(McpServerAcp::new(
        provider.name.clone(),
        id.clone(),
    )));
    let params = serde_json::value::to_raw_value(&request).map_err(|e| {
        ErrorObject::internal_error(format_args!("could not serialize the session request: {e}"))
    })?;
    let named = request.session().cloned();
    let work = match next(cx, Some(&params)) {
        Ok(work) => work,
        Err(error) => {
            provider.withdraw(&id);
            return Err(error);
        }
    };
    let provider = provider.clone();
    Ok(Box::pin(async move {
        let answer = work.await;
        let session = match (&answer, named) {
            (Err(_), _) => None,
            (Ok(_), Some(named)) => Some(named),
            (Ok(answer), None) => serde_json::from_str::<NamesSession>(answer.get())
                .ok()
                .map(|created| created.session_id),
        };
        match session {
            Some(session) => provider.bind(&id, session),
            // Refused (or an answer naming no session, which the predecessor will refuse):
            // no session uses the server.
            None => provider.withdraw(&id),
        }
        answer
    }))
}

/// Stops the provider's server of a session once `session/close` succeeded (or the agent
/// said it does not know the session: it is gone either way).
fn close(
    provider: &Arc<Provider>,
    next: &RequestRoute,
    cx: Context,
    params: Option<&RawValue>,
) -> Result<RequestFuture, ErrorObject> {
    let session = params
        .and_then(|params| serde_json::from_str::<NamesSession>(params.get()).ok())
        .map(|named| named.session_id);
    let work = next(cx, params)?;
    let Some(session) = session else {
        // Not a valid close: the agent refuses it, nothing is closed.
        return Ok(work);
    };
    let provider = provider.clone();
    Ok(Box::pin(async move {
        let answer = work.await;
        match &answer {
            Ok(_) => provider.close(&session),
            Err(error) if error.code == acp_types::ErrorCode::RESOURCE_NOT_FOUND => {
                provider.close(&session);
            }
            Err(_) => {}
        }
        answer
    }))
}

/// Learns from the successor's `initialize` answer whether it takes ACP-transport servers.
fn learn(provider: &Provider, answer: &RawValue) {
    #[derive(Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct Answer {
        agent_capabilities: Capabilities,
    }
    #[derive(Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct Capabilities {
        mcp_capabilities: Mcp,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Mcp {
        acp: Option<serde_json::Value>,
    }
    let acp = serde_json::from_str::<Answer>(answer.get())
        .ok()
        .and_then(|a| a.agent_capabilities.mcp_capabilities.acp)
        .is_some_and(|v| v == serde_json::Value::Bool(true));
    if !acp {
        tracing::info!(
            server = provider.name,
            "the successor does not take MCP servers over ACP: this one is not offered"
        );
    }
    provider.acp_transport.store(acp, Ordering::Release);
}

impl Proxy {
    /// Provides the rmcp server `factory` makes to the agent, over ACP (draft feature
    /// `unstable_mcp_over_acp`): declared as `name` in every session the proxy forwards (when
    /// its successor advertises `mcpCapabilities.acp`), one server per session, answered
    /// through `mcp/message` (see the [module docs](crate::mcp)).
    ///
    /// It wraps the routes of `initialize`, `session/new`, `session/load`, `session/resume`,
    /// `session/close` and `mcp/message`: register your own handlers of those before this
    /// call, or they replace the wrapping. Several servers may be registered; each gets its
    /// own id.
    pub fn mcp_server<S, F>(mut self, name: impl Into<String>, factory: F) -> Self
    where
        S: Service<RoleServer>,
        F: Fn(&McpSession) -> S + Send + Sync + 'static,
    {
        let name = name.into();
        let salt = {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u32(std::process::id());
            hasher.finish()
        };
        let provider = Arc::new(Provider {
            name,
            start: Box::new(move |session, transport| {
                let running = serve_directly(factory(session), transport, None);
                // The server runs until its transport closes (the last caller's handle goes).
                tokio::spawn(async move {
                    let _ = running.waiting().await;
                });
            }),
            acp_transport: AtomicBool::new(false),
            servers: Mutex::default(),
            next: AtomicU64::new(1),
            salt,
        });

        let learner = provider.clone();
        let initialize = next_route(self.initialize.take(), Toward::Successor, INITIALIZE);
        self.initialize = Some(Box::new(move |cx, params| {
            let work = initialize(cx, params)?;
            let provider = learner.clone();
            Ok(Box::pin(async move {
                let answer = work.await?;
                learn(&provider, &answer);
                Ok(answer)
            }))
        }));

        let p = provider.clone();
        wrap_route(
            &mut self.to_successor,
            Toward::Successor,
            SESSION_NEW,
            move |next, cx, params| declare::<NewSessionRequest>(&p, next, cx, params),
        );
        let p = provider.clone();
        wrap_route(
            &mut self.to_successor,
            Toward::Successor,
            SESSION_LOAD,
            move |next, cx, params| declare::<LoadSessionRequest>(&p, next, cx, params),
        );
        let p = provider.clone();
        wrap_route(
            &mut self.to_successor,
            Toward::Successor,
            SESSION_RESUME,
            move |next, cx, params| declare::<ResumeSessionRequest>(&p, next, cx, params),
        );
        let p = provider.clone();
        wrap_route(
            &mut self.to_successor,
            Toward::Successor,
            SESSION_CLOSE,
            move |next, cx, params| close(&p, next, cx, params),
        );

        wrap_route(
            &mut self.to_predecessor,
            Toward::Predecessor,
            McpMessage::METHOD,
            move |next, cx, params| {
                let request: MessageMcpRequest =
                    acp_types::from_str(params.map_or("{}", RawValue::get))
                        .map_err(ErrorObject::invalid_params)?;
                let Some(server) = provider.find(&request.server_id) else {
                    if provider.made(&request.server_id) {
                        return Err(gone(&request.server_id));
                    }
                    // Not ours: another component toward the editor may provide it.
                    return next(cx, params);
                };
                let provider = provider.clone();
                Ok(Box::pin(async move {
                    let answer = server.call(&provider, &cx, request).await?;
                    serde_json::value::to_raw_value(&answer).map_err(|e| {
                        ErrorObject::internal_error(format_args!(
                            "could not serialize the answer: {e}"
                        ))
                    })
                }))
            },
        );
        self
    }
}
