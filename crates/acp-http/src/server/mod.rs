//! The agent side: serve any [`Agent`] over Streamable HTTP and WebSocket on one endpoint.
//!
//! Each remote connection gets an agent of its own, made by the factory exactly as
//! [`acp_agent::serve`] makes one for a stdio connection, with the same [`AgentOptions`], the
//! same protocol rules and the same [`ClientHandle`].
//!
//! | request on the endpoint | answer |
//! | --- | --- |
//! | `POST` `initialize` | `200`, the JSON-RPC answer, header `Acp-Connection-Id` |
//! | `POST` any other message (with `Acp-Connection-Id`; `Acp-Session-Id` for a session) | `202`; the answer comes on a stream |
//! | `GET` (`Accept: text/event-stream`, `Acp-Connection-Id`, optionally `Acp-Session-Id`) | the connection's or the session's SSE stream |
//! | `GET` with `Upgrade: websocket` | `101` and `Acp-Connection-Id`: JSON-RPC text frames both ways, `initialize` first |
//! | `DELETE` with `Acp-Connection-Id` | `202`: the connection, its streams and its agent end |
//!
//! Where the agent's messages go: those of a session (its `session/update`s and requests, and
//! the answers to the client's requests for it, `session/load` included) on the session's
//! stream once the client has read it, so that a load's replay comes before its answer on one
//! stream; until then, and for everything else, on the connection stream, which every client
//! reads. A stream whose reader went away keeps what comes for it until a reader is back
//! (bounded by the output budget and the stall timeout).
//!
//! The full table of refusals (400, 403, 404, 406, 409, 413, 415, 503...) is on
//! [`AcpServer::router`].

mod bridge;
mod conn;
mod http;
mod link;
#[cfg(feature = "tls")]
mod tls;
mod ws;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use acp_agent::{Agent, AgentOptions, ClientHandle};
use axum::http::{HeaderMap, HeaderValue, StatusCode};

pub use self::bridge::BridgeOptions;
use self::conn::{Connection, Ended, Limits};
use self::link::{Backend, TypedAgents};
#[cfg(feature = "tls")]
pub use self::tls::{
    HANDSHAKE_TIMEOUT, MAX_HANDSHAKES, TlsConfigError, TlsListener, tls_config_from_pem,
};
/// The TLS library of [`serve_tls`] and [`TlsListener`] (feature `tls`).
#[cfg(feature = "tls")]
pub use rustls;

/// The default largest POST body: 16 MiB (`413` beyond it).
pub const DEFAULT_MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The default budget for a connection's output waiting for a reader: 8 MiB. Past it the
/// agent's sends wait (backpressure), never a bigger buffer.
pub const DEFAULT_MAX_BUFFERED_BYTES: usize = 8 * 1024 * 1024;

/// The default [`ServerOptions::max_burst_bytes`]: 4 KiB, about 18 streamed message chunks.
pub const DEFAULT_MAX_BURST_BYTES: usize = 4 * 1024;

/// What an authentication hook decides about a request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthDecision {
    /// Let it through.
    Allow,
    /// `401 Unauthorized` with a `WWW-Authenticate: Bearer` challenge: no or bad credentials.
    Unauthorized,
    /// `403 Forbidden`: credentials fine, but not allowed.
    Forbidden,
}

/// Which way a message goes, for a [`Tap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Direction {
    /// From the remote client to the agent.
    ToAgent,
    /// From the agent to the remote client.
    ToClient,
}

/// Sees every JSON-RPC message of every connection, both ways, as it passes (before routing):
/// for logging, metrics or validation. It runs on the connection's path: keep it quick.
pub type Tap = Arc<dyn Fn(Direction, &[u8]) + Send + Sync>;

/// An authentication hook: it sees every request's headers (POST, GET, DELETE, WebSocket
/// upgrade) before anything is allocated for it.
pub type AuthHook = Arc<dyn Fn(&HeaderMap) -> AuthDecision + Send + Sync>;

/// Settings of an [`AcpServer`]. The defaults are the safe ones: see each field.
#[derive(Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// The protocol rules of each connection's agent, as for stdio.
    pub agent: AgentOptions,
    /// The endpoint's path: `/acp`.
    pub path: String,
    /// Browser origins allowed to call the endpoint (`https://app.example`), also used for
    /// CORS. A request without `Origin` (not from a browser) is allowed; one with an origin
    /// not on this list gets `403` before anything is allocated. Empty by default: no web
    /// page can drive the agent.
    pub allowed_origins: Vec<String>,
    /// Runs on every request before anything else; `None` lets everyone in (the server binds
    /// to 127.0.0.1 by default).
    pub auth: Option<AuthHook>,
    /// The largest POST body (`413` beyond it).
    pub max_body_bytes: usize,
    /// The most connections at once (`503` beyond it).
    pub max_connections: usize,
    /// The budget of one connection's output waiting for a reader.
    pub max_buffered_bytes: usize,
    /// How many bytes an in-process agent sends in a row before its task lets the other
    /// connections run: it replaces [`agent.rpc.max_burst_bytes`](acp_rpc::Config::max_burst_bytes)
    /// (64 KiB, made for one stdio connection per process). With many clients streaming at
    /// once, a few KiB let every one of them get its first messages soon and keep little
    /// output waiting in memory, for some throughput. [`DEFAULT_MAX_BURST_BYTES`] by default.
    pub max_burst_bytes: usize,
    /// How long output may wait for a reader before the connection is closed and reported.
    pub stall_timeout: Duration,
    /// How long a connection may go without requests and without readers before it ends.
    pub idle_timeout: Duration,
    /// How long `initialize` may take (`504` beyond it).
    pub initialize_timeout: Duration,
    /// The interval of SSE keep-alive comments.
    pub keep_alive: Duration,
    /// How many streams may be opened for sessions the agent has not named yet (a client may
    /// listen before `session/load`); `404` beyond it.
    pub max_unconfirmed_streams: usize,
    /// How many session streams may hold output without a reader before the connection ends.
    pub max_waiting_streams: usize,
    /// Also serve the `client_id` profile of older remote agents: `POST {path}/rpc?client_id=…`
    /// (`202` for requests and notifications, `204` for responses) and
    /// `GET {path}/sse?client_id=…` (one stream for everything, `: connected` first, `: ping`
    /// every 5 s, a new reader replacing the old one). The client chooses the id, so anyone who
    /// learns it can read the stream: use it with [`auth`](Self::auth) beyond loopback. The
    /// profile has no DELETE: a connection ends once its reader has been gone for the stall
    /// timeout. Off by default.
    pub client_id_profile: bool,
    /// A prefix for the connection ids this server hands out (`node-a.` gives
    /// `node-a.6f1c…`), so that a load balancer in front of several servers can send each
    /// request to the server that owns its connection by the `Acp-Connection-Id` header alone.
    /// Empty by default.
    pub connection_id_prefix: String,
    /// Sees every message of every connection (see [`Tap`]). `None` by default.
    pub tap: Option<Tap>,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("path", &self.path)
            .field("allowed_origins", &self.allowed_origins)
            .field("auth", &self.auth.is_some())
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_connections", &self.max_connections)
            .field("max_buffered_bytes", &self.max_buffered_bytes)
            .field("max_burst_bytes", &self.max_burst_bytes)
            .field("stall_timeout", &self.stall_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .finish_non_exhaustive()
    }
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            agent: AgentOptions::default(),
            path: "/acp".into(),
            allowed_origins: Vec::new(),
            auth: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_connections: 1024,
            max_buffered_bytes: DEFAULT_MAX_BUFFERED_BYTES,
            max_burst_bytes: DEFAULT_MAX_BURST_BYTES,
            stall_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(30 * 60),
            initialize_timeout: Duration::from_secs(30),
            keep_alive: Duration::from_secs(15),
            max_unconfirmed_streams: 16,
            max_waiting_streams: 1024,
            client_id_profile: false,
            connection_id_prefix: String::new(),
            tap: None,
        }
    }
}

impl ServerOptions {
    /// Sets the agents' protocol rules.
    #[must_use]
    pub fn agent(mut self, agent: AgentOptions) -> Self {
        self.agent = agent;
        self
    }

    /// Sets the endpoint's path.
    #[must_use]
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Allows a browser origin (`https://app.example`).
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Sets an authentication hook.
    #[must_use]
    pub fn auth(
        mut self,
        hook: impl Fn(&HeaderMap) -> AuthDecision + Send + Sync + 'static,
    ) -> Self {
        self.auth = Some(Arc::new(hook));
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request (`401` without it).
    #[must_use]
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        let expected = format!("Bearer {}", token.into());
        self.auth(
            move |headers| match headers.get(axum::http::header::AUTHORIZATION) {
                Some(value) if constant_time_eq(value.as_bytes(), expected.as_bytes()) => {
                    AuthDecision::Allow
                }
                _ => AuthDecision::Unauthorized,
            },
        )
    }

    /// Sets the most connections at once.
    #[must_use]
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// Sets the output budget of one connection.
    #[must_use]
    pub fn max_buffered_bytes(mut self, max: usize) -> Self {
        self.max_buffered_bytes = max.max(1);
        self
    }

    /// Sets how many bytes an in-process agent sends in a row before letting other
    /// connections run (see [`max_burst_bytes`](Self::max_burst_bytes)).
    #[must_use]
    pub fn max_burst_bytes(mut self, max: usize) -> Self {
        self.max_burst_bytes = max.max(1);
        self
    }

    /// Sets the stall timeout.
    #[must_use]
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall_timeout = timeout;
        self
    }

    /// Sets the idle timeout.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Sets the largest POST body.
    #[must_use]
    pub fn max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = max;
        self
    }

    /// Also serves the `client_id` profile (see
    /// [`client_id_profile`](Self::client_id_profile)).
    #[must_use]
    pub fn client_id_profile(mut self, on: bool) -> Self {
        self.client_id_profile = on;
        self
    }

    /// Sets the prefix of connection ids (see
    /// [`connection_id_prefix`](Self::connection_id_prefix)).
    #[must_use]
    pub fn connection_id_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.connection_id_prefix = prefix.into();
        self
    }

    /// Sets a tap that sees every message (see [`Tap`]).
    #[must_use]
    pub fn tap(mut self, tap: impl Fn(Direction, &[u8]) + Send + Sync + 'static) -> Self {
        self.tap = Some(Arc::new(tap));
        self
    }

    /// Sets the SSE keep-alive interval.
    #[must_use]
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval;
        self
    }

    fn limits(&self) -> Limits {
        Limits {
            tap: self.tap.clone(),
            max_buffered_bytes: self.max_buffered_bytes,
            stall_timeout: self.stall_timeout,
            idle_timeout: self.idle_timeout,
            max_unconfirmed_streams: self.max_unconfirmed_streams,
            max_waiting_streams: self.max_waiting_streams,
        }
    }
}

/// Compares two byte strings in time that depends only on their lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Serves agents over HTTP and WebSocket: build it with a factory, then mount
/// [`router`](Self::router) in an axum application or run [`serve`].
#[derive(Clone)]
pub struct AcpServer {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for AcpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AcpServer")
            .field("options", &self.inner.options)
            .field("connections", &self.connection_count())
            .finish()
    }
}

pub(crate) struct Inner {
    pub(crate) options: ServerOptions,
    backend: Box<dyn Backend>,
    /// The live connections, by id; `None` once the server shut down.
    connections: Mutex<Option<std::collections::HashMap<String, Arc<Connection>>>>,
}

impl AcpServer {
    /// A server making one agent per connection with `factory`, as [`acp_agent::serve`] does
    /// for stdio.
    pub fn new<A, F>(factory: F, options: ServerOptions) -> Self
    where
        A: Agent,
        F: Fn(ClientHandle) -> A + Send + Sync + 'static,
    {
        let mut agent = options.agent.clone();
        agent.rpc.max_burst_bytes = options.max_burst_bytes;
        let backend = TypedAgents {
            factory: Arc::new(factory),
            options: agent,
        };
        Self::with_backend(Box::new(backend), options)
    }

    pub(crate) fn with_backend(backend: Box<dyn Backend>, options: ServerOptions) -> Self {
        Self {
            inner: Arc::new(Inner {
                options,
                backend,
                connections: Mutex::new(Some(std::collections::HashMap::new())),
            }),
        }
    }

    /// How many connections are open (not ended).
    pub fn connection_count(&self) -> usize {
        self.inner.connections().as_ref().map_or(0, |map| {
            map.values().filter(|c| c.ended().is_none()).count()
        })
    }

    /// Ends every connection (open SSE bodies end, WebSockets close with `1001`) and refuses
    /// new ones with `503`. Bridged agent programs ([`bridge`](Self::bridge)) are stopped
    /// gracefully in the background; [`serve`] waits for them.
    pub fn shutdown(&self) {
        let connections = self.inner.connections().take();
        for conn in connections.into_iter().flat_map(|c| c.into_values()) {
            conn.end(Ended::Shutdown);
        }
        self.inner.backend.shutdown();
    }
}

impl Inner {
    fn connections(
        &self,
    ) -> std::sync::MutexGuard<'_, Option<std::collections::HashMap<String, Arc<Connection>>>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a new connection with its agent, or says why not: `start` makes the connection
    /// from the id, the agent's link and the limits.
    pub(crate) fn open<T>(
        &self,
        start: impl FnOnce(String, link::Link, Limits) -> T,
        conn_of: impl FnOnce(&T) -> Arc<Connection>,
    ) -> Result<T, (StatusCode, &'static str)> {
        let mut connections = self.connections();
        let Some(map) = connections.as_mut() else {
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down",
            ));
        };
        map.retain(|_, conn| conn.ended().is_none());
        if map.len() >= self.options.max_connections {
            return Err((StatusCode::SERVICE_UNAVAILABLE, "too many connections"));
        }
        let Some(id) = new_connection_id(&self.options.connection_id_prefix) else {
            return Err((
                StatusCode::INTERNAL_SERVER_ERROR,
                "no randomness for a connection id",
            ));
        };
        let link = self.backend.open().map_err(|error| {
            tracing::warn!(%error, "could not start an agent for a new connection");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "could not start the agent",
            )
        })?;
        let started = start(id.clone(), link, self.options.limits());
        map.insert(id, conn_of(&started));
        Ok(started)
    }

    /// The connection of a `client_id` (the profile of older agents), made on first use.
    pub(crate) fn client_connection(
        &self,
        client_id: &str,
    ) -> Result<Arc<Connection>, (StatusCode, &'static str)> {
        let key = format!("client_id:{client_id}");
        if let Some(conn) = self.get(&key) {
            return Ok(conn);
        }
        let mut connections = self.connections();
        let Some(map) = connections.as_mut() else {
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down",
            ));
        };
        map.retain(|_, conn| conn.ended().is_none());
        if let Some(conn) = map.get(&key) {
            return Ok(conn.clone());
        }
        if map.len() >= self.options.max_connections {
            return Err((StatusCode::SERVICE_UNAVAILABLE, "too many connections"));
        }
        let link = self.backend.open().map_err(|error| {
            tracing::warn!(%error, "could not start an agent for a new connection");
            (StatusCode::INTERNAL_SERVER_ERROR, "transport unavailable")
        })?;
        let conn = Connection::start_single(key.clone(), link, self.options.limits());
        map.insert(key, conn.clone());
        Ok(conn)
    }

    /// The live connection `id`.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Connection>> {
        let connections = self.connections();
        let conn = connections.as_ref()?.get(id)?;
        conn.ended().is_none().then(|| conn.clone())
    }

    /// Forgets connection `id`, ending it.
    pub(crate) fn remove(&self, id: &str, why: Ended) -> bool {
        let removed = self.connections().as_mut().and_then(|map| map.remove(id));
        match removed {
            Some(conn) => {
                let live = conn.ended().is_none();
                conn.end(why);
                live
            }
            None => false,
        }
    }
}

/// A connection id: 128 random bits, as UUID text (version 4). It routes; it is never a
/// credential. `None` when the operating system has no randomness to give.
fn new_connection_id(prefix: &str) -> Option<String> {
    let mut bytes = [0u8; 16];
    if let Err(error) = getrandom::fill(&mut bytes) {
        tracing::error!(%error, "no randomness for a connection id");
        return None;
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Some(format!(
        "{prefix}{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

/// The accept queue [`bind`] asks for: 4,096 connections (the kernel may cap it, Linux at
/// `net.core.somaxconn`).
pub const LISTEN_BACKLOG: u32 = 4096;

/// A TCP listener on `addr` for [`serve`], with an accept queue of [`LISTEN_BACKLOG`]
/// connections (`TcpListener::bind` asks for 1,024).
///
/// When many clients connect at once while the server is busy (a thousand editors
/// reconnecting, or each opening a connection for its next POST while its SSE streams hold the
/// others), connections beyond the queue are dropped by the kernel and the client's TCP waits
/// a second before it tries again: a deeper queue absorbs the burst. The first address `addr`
/// resolves to that can be bound is used.
///
/// # Errors
///
/// When `addr` does not resolve, or no address it resolves to can be bound.
pub async fn bind(
    addr: impl tokio::net::ToSocketAddrs,
) -> std::io::Result<tokio::net::TcpListener> {
    let mut last_error = None;
    for addr in tokio::net::lookup_host(addr).await? {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        // As `TcpListener::bind` does: a restarted server binds its port again at once.
        #[cfg(unix)]
        socket.set_reuseaddr(true)?;
        match socket
            .bind(addr)
            .and_then(|()| socket.listen(LISTEN_BACKLOG))
        {
            Ok(listener) => return Ok(listener),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the address resolved to nothing",
        )
    }))
}

/// Serves `server` on `listener` until `shutdown` resolves; then every connection ends
/// (open SSE bodies end, WebSockets close) and the function returns once the listener is
/// closed and the bridged agent programs are stopped (see [`AcpServer::bridge`]; bounded by
/// their grace periods).
///
/// Bind the listener to `127.0.0.1` unless the agent must be reached from elsewhere (and then
/// set [`ServerOptions::auth`]); [`bind`] makes one with a deep accept queue.
///
/// # Errors
///
/// When the listener fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    server: AcpServer,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_on(listener, server, shutdown).await
}

/// Serves `server` over TLS (`https://`, `wss://`; feature `tls`) on `listener` until
/// `shutdown` resolves, as [`serve`] does over plain TCP. `config` holds the certificate
/// (see [`tls_config_from_pem`]); HTTP/2 is offered by ALPN unless `config` names its own
/// protocols. Handshakes run concurrently, each within [`HANDSHAKE_TIMEOUT`] (see
/// [`TlsListener`]).
///
/// # Errors
///
/// When the listener fails.
#[cfg(feature = "tls")]
pub async fn serve_tls(
    listener: tokio::net::TcpListener,
    config: impl Into<Arc<rustls::ServerConfig>>,
    server: AcpServer,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_on(TlsListener::new(listener, config)?, server, shutdown).await
}

/// Serves `server` on any listener, the peer's address available to layers as
/// `ConnectInfo<SocketAddr>`, until `shutdown` resolves.
async fn serve_on<L>(
    listener: L,
    server: AcpServer,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: axum::serve::Listener<Addr = SocketAddr>,
{
    use axum::serve::ListenerExt as _;

    let router = server.router();
    let stopping = server.clone();
    // `tap_io` (doing nothing) gives any listener axum's `ConnectInfo` of its address.
    let served = axum::serve(
        listener.tap_io(|_| {}),
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown.await;
        stopping.shutdown();
    })
    .await;
    // Bridged agent programs stop in the background once shut down: wait for them (bounded).
    server.inner.backend.stopped().await;
    served
}

/// The header value of a connection id.
pub(crate) fn id_header(id: &str) -> HeaderValue {
    HeaderValue::from_str(id).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}
