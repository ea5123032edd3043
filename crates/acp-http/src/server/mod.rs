//! The agent side: serve any [`Agent`] over Streamable HTTP and WebSocket on one endpoint.
//!
//! Each remote connection gets an agent of its own, made by the factory exactly as
//! [`acp_agent::serve`] makes one for a stdio connection, with the same [`AgentOptions`], the
//! same protocol rules and the same [`ClientHandle`]; with `unstable_protocol_v2` it
//! negotiates v1 or v2 per connection, as over stdio. The server reads only what both
//! versions share (a message's id, method and `sessionId`), so everything below holds for
//! either version; a v2 session's updates while it is idle (background work) go where its
//! other messages go.
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
//! the answers to the client's requests for it, `session/load` and v2's `session/resume`
//! included) on the session's stream once the client has read it, so that a replay comes
//! before its answer on one stream; until then, and for everything else, on the connection stream, which every client
//! reads. A stream whose reader went away keeps what comes for it until a reader is back
//! (bounded by the output budget and the stall timeout).
//!
//! The full table of refusals (400, 403, 404, 406, 409, 413, 415, 421, 503...) is on
//! [`AcpServer::router`].
//!
//! A WebSocket is bounded and closes cleanly: while a write waits for a client that does not
//! read, nothing more is read from it (its pings queue no pongs), and after the stall timeout
//! it is closed with `1008`; the write buffer is capped by
//! [`ServerOptions::max_ws_write_buffer_bytes`]. A client's close is answered with its code;
//! the server's own closes (`1001` shutdown, `1011` the agent ended) wait a few seconds for
//! the client's answer. A binary frame is closed with `1003` (the profile carries JSON text),
//! a text message that is not UTF-8 with `1007`, a malformed frame with `1002`, a message over
//! [`ServerOptions::max_body_bytes`] (or an agent message over the write buffer's cap) with
//! `1009`.
//!
//! # Browsers
//!
//! Every request first passes the guard, in this order:
//!
//! 1. **`Host`** (DNS rebinding): IP literals (`127.0.0.1`, `[::1]`) and `localhost` (and names
//!    under it) on any port are allowed, other names only when listed in
//!    [`ServerOptions::allowed_hosts`]; else `421 Misdirected Request`, preflights included. A
//!    page of `http://evil.example` whose name was rebound to `127.0.0.1` still sends
//!    `Host: evil.example`, and its same-origin requests carry no `Origin`: this check is what
//!    stops them. Behind a reverse proxy that keeps the public name, list it
//!    (`allow_host("agent.example.com")`); `*` turns the check off. A request naming no host
//!    at all (HTTP/1.0 tools; browsers always send one) passes.
//! 2. **`Origin`**: absent (editors, tools) passes; a browser origin not in
//!    [`ServerOptions::allowed_origins`] gets `403` (logged: the first refusal at info level,
//!    the others at debug). An origin is `scheme://host[:port]` exactly as browsers send it:
//!    lower case, no path or trailing slash, no default port (`https://a.test`, not
//!    `https://a.test:443/`); [`ServerOptions::try_allow_origin`] and
//!    [`ServerOptions::validate`] refuse any other form with a message saying what to write.
//!    `null` (sandboxed frames, `file://` pages) is allowed only when listed. `*` allows every
//!    origin but `null`: any web page the user opens could then drive the agent, so use it
//!    only with an [`auth`](ServerOptions::auth) hook (a warning is logged without one).
//! 3. **CORS** for the allowed origins: the origin echoed, `Vary: Origin`,
//!    `Access-Control-Allow-Credentials: true` (browser clients, the official TypeScript SDK
//!    among them, fetch with `credentials: "include"`, and a load balancer's sticky cookie
//!    needs it), the request headers `Content-Type`, `Accept`, `Authorization`,
//!    `Acp-Connection-Id`, `Acp-Session-Id`, `Acp-Protocol-Version` and `Last-Event-ID`, the response headers
//!    `Acp-Connection-Id` and `Acp-Session-Id` exposed, preflights cached for 10 minutes. With
//!    `*`, other origins get CORS without credentials unless
//!    [`ServerOptions::any_origin_credentials`] is set.
//! 4. **Authentication**: the [`auth`](ServerOptions::auth) hook (`401`/`403`). A browser
//!    WebSocket cannot set `Authorization`: it offers the token as a subprotocol,
//!    `new WebSocket("ws://127.0.0.1:8123/acp", ["acp", "acp.bearer." + token])`, and the hook
//!    sees `Authorization: Bearer <token>` when the upgrade has no `Authorization` of its own.
//!    The `101` answer selects `acp`, never the token. A subprotocol is an HTTP token: base64url
//!    (`A-Z a-z 0-9 - _`, no `=` padding) and hex tokens work; standard base64 (`/`, `=`) does
//!    not (the browser throws a `SyntaxError`).

mod bridge;
mod budget;
mod conn;
mod guard;
mod http;
mod link;
mod peer;
mod reply;
mod tcp;
#[cfg(feature = "server-tls")]
mod tls;
mod validate;
mod ws;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use acp_agent::{Agent, AgentOptions, ClientHandle};
use axum::http::{HeaderMap, HeaderValue, StatusCode};

pub use self::bridge::BridgeOptions;
use self::budget::{BodyBudget, OutputBudget};
use self::conn::{Connection, Ended, Limits};
pub use self::guard::{BEARER_SUBPROTOCOL_PREFIX, SUBPROTOCOL};
use self::link::{Backend, TypedAgents};
pub use self::peer::Peer;
use self::peer::{ClientKey, Principal};
#[cfg(feature = "server-tls")]
pub use self::tcp::serve_tls;
pub use self::tcp::{LISTEN_BACKLOG, bind, serve};
#[cfg(feature = "server-tls")]
pub use self::tls::{
    HANDSHAKE_TIMEOUT, MAX_HANDSHAKES, TlsConfigError, TlsListener, tls_config_from_pem,
};
pub use self::validate::ConfigError;
/// Where a bridged program's stderr goes ([`BridgeOptions::stderr`]): `acp-process`'s, as for
/// an agent `acp_client` spawns.
pub use acp_process::Stderr;
/// The traffic observer of every ACP connection, here the server's (see
/// [`ServerOptions::observe`]): as everywhere, a message is [`Received`](Direction::Received)
/// by the agent's side (from the remote client to the agent) or [`Sent`](Direction::Sent) by
/// it (from the agent to the remote client).
pub use acp_rpc::{Direction, Observer};
/// The TLS library of [`serve_tls`] and [`TlsListener`] (feature `server-tls`).
#[cfg(feature = "server-tls")]
pub use rustls;

/// The default largest POST body: 16 MiB (`413` beyond it).
pub const DEFAULT_MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The default budget for a connection's output waiting for a reader: 8 MiB. Past it the
/// agent's sends wait (backpressure), never a bigger buffer.
pub const DEFAULT_MAX_BUFFERED_BYTES: usize = 8 * 1024 * 1024;

/// The default [`ServerOptions::max_burst_bytes`]: 4 KiB, about 18 streamed message chunks.
pub const DEFAULT_MAX_BURST_BYTES: usize = 4 * 1024;

/// The default [`ServerOptions::max_total_body_bytes`]: 256 MiB of request bodies held at once
/// across all connections.
pub const DEFAULT_MAX_TOTAL_BODY_BYTES: usize = 256 * 1024 * 1024;

/// The default [`ServerOptions::max_total_buffered_bytes`]: 256 MiB of output waiting for
/// readers across all connections.
pub const DEFAULT_MAX_TOTAL_BUFFERED_BYTES: usize = 256 * 1024 * 1024;
/// The default [`ServerOptions::max_ws_write_buffer_bytes`]: 32 MiB and 256 KiB, the largest
/// message an agent sends by default (`acp_codec::DEFAULT_MAX_FRAME_LEN`) and a burst's worth.
pub const DEFAULT_MAX_WS_WRITE_BUFFER_BYTES: usize = 32 * 1024 * 1024 + 256 * 1024;

/// What an authentication hook decides about a request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthDecision {
    /// Let it through.
    Allow,
    /// Let it through as this principal (a user name, a token's subject): the connections it
    /// opens are its own (a request on them from another principal is answered `404`, as for
    /// an unknown connection), the per-client limits count by it, and the agent factory of
    /// [`AcpServer::with_peer`] sees it in [`Peer::principal`].
    AllowAs(String),
    /// `401 Unauthorized` with a `WWW-Authenticate: Bearer` challenge: no or bad credentials.
    Unauthorized,
    /// `403 Forbidden`: credentials fine, but not allowed.
    Forbidden,
}

/// An authentication hook: it sees every request's headers (POST, GET, DELETE, WebSocket
/// upgrade) before anything is allocated for it.
pub type AuthHook = Arc<dyn Fn(&HeaderMap) -> AuthDecision + Send + Sync>;

/// Settings of an [`AcpServer`]. The defaults are the safe ones: see each field.
///
/// Every field has a setter of its name ([`observe`](Self::observe) for
/// [`observer`](Self::observer), as in the role crates' options). Bounds are named in one
/// form, here as in [`BridgeOptions`] and the client's `ConnectOptions`: `max_<thing>` for a
/// count, `max_<thing>_bytes` for a size, `<thing>_timeout` for how long something may take,
/// `<thing>_interval` for how often something happens.
#[derive(Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// The protocol rules of each connection's agent, as for stdio.
    pub agent: AgentOptions,
    /// The endpoint's path: `/acp`.
    pub path: String,
    /// Browser origins allowed to call the endpoint (`https://app.example`), also used for
    /// CORS (with credentials). A request without `Origin` (not from a browser) is allowed;
    /// one with an origin not on this list gets `403` before anything is allocated. `*`
    /// allows every origin but `null` (dangerous without [`auth`](Self::auth)). Values no
    /// browser sends are refused by [`try_allow_origin`](Self::try_allow_origin) and
    /// [`validate`](Self::validate), and left out (logged as errors) when the router is
    /// built. Empty by default: no web page can drive the agent. See [the guard](crate::server#browsers).
    pub allowed_origins: Vec<String>,
    /// With `*` in [`allowed_origins`](Self::allowed_origins): also send
    /// `Access-Control-Allow-Credentials: true` to every origin, so that pages anywhere can
    /// fetch with cookies or HTTP authentication. Listed origins always get it. `false` by
    /// default.
    pub any_origin_credentials: bool,
    /// Host names (`agent.example.com`, any port) that requests may name in `Host` besides IP
    /// literals and `localhost`, which are always allowed; other names get `421`, which stops
    /// DNS rebinding. `*` allows any `Host`. Empty by default. See [the guard](crate::server#browsers).
    pub allowed_hosts: Vec<String>,
    /// Runs on every request before anything else (after the `Host` and `Origin` checks);
    /// `None` lets everyone in (the server binds to 127.0.0.1 by default). On a WebSocket
    /// upgrade without `Authorization`, a token offered as the `acp.bearer.<token>`
    /// subprotocol is seen as `Authorization: Bearer <token>`.
    pub auth: Option<AuthHook>,
    /// The largest POST body (`413` beyond it).
    pub max_body_bytes: usize,
    /// How long a client has to send a POST's whole body once its headers came (`408` beyond
    /// it): a client that sends a body slowly or never finishes it holds nothing for long.
    pub body_timeout: Duration,
    /// The request bodies held at once by the whole server, read but not yet taken by their
    /// agents (WebSocket messages too). A body waits for room (its client's upload pauses),
    /// for at most the [`body_timeout`](Self::body_timeout), then `503` with `Retry-After`.
    /// [`DEFAULT_MAX_TOTAL_BODY_BYTES`] by default.
    pub max_total_body_bytes: usize,
    /// How many POSTs of one connection may wait for its agent to take them; one more is
    /// refused at once with `429 Too Many Requests` and `Retry-After: 1`. 4 by default. The
    /// bodies a connection holds are also bounded by its share of
    /// [`max_total_body_bytes`](Self::max_total_body_bytes): an eighth of it, or one
    /// [`max_body_bytes`](Self::max_body_bytes) if that is more (`429` beyond it too, before the
    /// body is read), so that one connection cannot leave the others waiting for the budget.
    pub max_queued_posts: usize,
    /// The most connections at once (`503` beyond it).
    pub max_connections: usize,
    /// The most connections of one client at once: one principal (see
    /// [`AuthDecision::AllowAs`]) or, without one, one address (`429` beyond it, with
    /// `Retry-After`), so that one client cannot take every connection (nor start every
    /// bridged agent program). 32 by default.
    pub max_connections_per_client: usize,
    /// How long a new connection may go without being used (its stream read, or a second
    /// request sent) before it ends: a client that only sends `initialize` holds a place in
    /// [`max_connections`](Self::max_connections) for seconds, not for the idle timeout.
    /// 10 s by default. WebSocket connections are in use from the start.
    pub unused_timeout: Duration,
    /// The most TCP connections [`serve`] keeps open at once. At the cap, the oldest connection
    /// that has made no request yet (silent, or still sending its headers) is closed for the
    /// new one; when every one has made a request, further clients wait in the accept queue.
    /// By default half the process's open-file limit (between 64 and 16,384).
    pub max_tcp_connections: usize,
    /// The most TCP connections [`serve`] keeps open from one address; further ones are closed
    /// at once. 256 by default.
    pub max_tcp_connections_per_client: usize,
    /// Whether the per-address limits ([`max_connections_per_client`](Self::max_connections_per_client)
    /// without a principal, [`max_tcp_connections_per_client`](Self::max_tcp_connections_per_client))
    /// also count loopback addresses. Off by default: behind a reverse proxy on the same
    /// machine every client comes from `127.0.0.1`, and so do all local editors, so one count
    /// for that address would cap the whole service. Behind a proxy, authenticate
    /// ([`AuthDecision::AllowAs`]) to get per-principal limits.
    pub limit_loopback_clients: bool,
    /// How long [`serve`] waits for a request's headers, from the moment it waits for them
    /// (on a new TCP connection, or on a kept-alive one after the previous answer): slow or
    /// silent clients and idle kept-alive connections are closed after it. 10 s by default.
    pub header_timeout: Duration,
    /// The most concurrent streams (requests) on one HTTP/2 connection of [`serve`]. 128 by
    /// default.
    pub max_streams_per_tcp_connection: u32,
    /// The output waiting for readers across all connections. Past it a connection's agent
    /// waits (backpressure) unless that connection holds less than 64 KiB: a slow reader slows
    /// others, never stops them. [`DEFAULT_MAX_TOTAL_BUFFERED_BYTES`] by default.
    pub max_total_buffered_bytes: usize,
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
    /// How long a connection may go without requests and without readers before it ends: a
    /// client that vanished (a closed tab, a crashed editor) without `DELETE` is reclaimed
    /// after it, its agent (or bridged program) stopped. 90 s by default.
    pub idle_timeout: Duration,
    /// How long `initialize` may take (`504` beyond it).
    pub initialize_timeout: Duration,
    /// How often an SSE stream with nothing to send gets a keep-alive comment. 15 s by
    /// default.
    pub keep_alive_interval: Duration,
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
    /// Sees every JSON-RPC message of every connection as it passes, before routing:
    /// [`Direction::Received`] for what a remote client sends its agent,
    /// [`Direction::Sent`] for what the agent sends the client (the directions of the agent's
    /// side, as with [`AgentOptions::observe`](acp_agent::AgentOptions::observe)). Unlike
    /// the observer of [`agent`](Self::agent)'s `rpc`, which sees one in-process agent's
    /// traffic, it also sees the traffic of bridged programs ([`AcpServer::bridge`]).
    /// It runs on the connection's path: keep it quick. `None` by default.
    pub observer: Option<Observer>,
    /// The cap of each WebSocket's write buffer, in bytes. The buffer normally holds one burst
    /// of the agent's messages and one pong or close answer, because a socket whose writes
    /// wait is not read (a client that pings or asks without reading stops being read, and is
    /// closed with `1008` after the stall timeout); the cap bounds it whatever happens. A
    /// message is written as one frame, so the cap is also the largest message the agent can
    /// send over a WebSocket: a larger one closes the socket with `1009`.
    /// [`DEFAULT_MAX_WS_WRITE_BUFFER_BYTES`] by default.
    pub max_ws_write_buffer_bytes: usize,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("path", &self.path)
            .field("allowed_origins", &self.allowed_origins)
            .field("any_origin_credentials", &self.any_origin_credentials)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("auth", &self.auth.is_some())
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_connections", &self.max_connections)
            .field("max_buffered_bytes", &self.max_buffered_bytes)
            .field("max_burst_bytes", &self.max_burst_bytes)
            .field("stall_timeout", &self.stall_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("max_total_body_bytes", &self.max_total_body_bytes)
            .field("max_queued_posts", &self.max_queued_posts)
            .field(
                "max_connections_per_client",
                &self.max_connections_per_client,
            )
            .field("unused_timeout", &self.unused_timeout)
            .field("max_tcp_connections", &self.max_tcp_connections)
            .field(
                "max_tcp_connections_per_client",
                &self.max_tcp_connections_per_client,
            )
            .field("limit_loopback_clients", &self.limit_loopback_clients)
            .field("header_timeout", &self.header_timeout)
            .field("max_total_buffered_bytes", &self.max_total_buffered_bytes)
            .field("max_ws_write_buffer_bytes", &self.max_ws_write_buffer_bytes)
            .field("observer", &self.observer.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            agent: AgentOptions::default(),
            path: "/acp".into(),
            allowed_origins: Vec::new(),
            any_origin_credentials: false,
            allowed_hosts: Vec::new(),
            auth: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            body_timeout: Duration::from_secs(30),
            max_total_body_bytes: DEFAULT_MAX_TOTAL_BODY_BYTES,
            max_queued_posts: 4,
            max_connections: 1024,
            max_connections_per_client: 32,
            unused_timeout: Duration::from_secs(10),
            max_tcp_connections: tcp::default_max_tcp_connections(),
            max_tcp_connections_per_client: 256,
            limit_loopback_clients: false,
            header_timeout: Duration::from_secs(10),
            max_streams_per_tcp_connection: 128,
            max_total_buffered_bytes: DEFAULT_MAX_TOTAL_BUFFERED_BYTES,
            max_buffered_bytes: DEFAULT_MAX_BUFFERED_BYTES,
            max_burst_bytes: DEFAULT_MAX_BURST_BYTES,
            stall_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(90),
            initialize_timeout: Duration::from_secs(30),
            keep_alive_interval: Duration::from_secs(15),
            max_unconfirmed_streams: 16,
            max_waiting_streams: 1024,
            client_id_profile: false,
            connection_id_prefix: String::new(),
            observer: None,
            max_ws_write_buffer_bytes: DEFAULT_MAX_WS_WRITE_BUFFER_BYTES,
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

    /// Allows a browser origin (`https://app.example`, or `*` for all). A value no browser
    /// sends is left out, with an error logged, when the router is built: prefer
    /// [`try_allow_origin`](Self::try_allow_origin) for values from users.
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Sets the allowed browser origins, replacing those allowed so far (see
    /// [`allowed_origins`](Self::allowed_origins)); checked as
    /// [`allow_origin`](Self::allow_origin)'s are.
    #[must_use]
    pub fn allowed_origins<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Allows a browser origin, if browsers can send it: `scheme://host[:port]` in lower case,
    /// without path, trailing slash or default port; `null`; or `*`.
    ///
    /// # Errors
    ///
    /// When no browser ever sends `origin`; the message says what to write instead
    /// (`http://a.test/` → `http://a.test`).
    pub fn try_allow_origin(mut self, origin: &str) -> Result<Self, ConfigError> {
        validate::origin_rule(origin)?;
        self.allowed_origins.push(origin.to_owned());
        Ok(self)
    }

    /// With `*` allowed, sends CORS credentials to every origin (see
    /// [`any_origin_credentials`](Self::any_origin_credentials)).
    #[must_use]
    pub fn any_origin_credentials(mut self, on: bool) -> Self {
        self.any_origin_credentials = on;
        self
    }

    /// Allows a host name in `Host` (`agent.example.com`, any port; `*` for any). A value that
    /// is not a host name is left out, with an error logged, when the router is built: prefer
    /// [`try_allow_host`](Self::try_allow_host) for values from users.
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Sets the allowed host names, replacing those allowed so far (see
    /// [`allowed_hosts`](Self::allowed_hosts)); checked as [`allow_host`](Self::allow_host)'s
    /// are.
    #[must_use]
    pub fn allowed_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Self {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Allows a host name in `Host`, if it is one: no scheme, no port, no path.
    ///
    /// # Errors
    ///
    /// When `host` is not a host name (`https://a.test/`, `a.test:8443`); the message says
    /// what to write instead.
    pub fn try_allow_host(mut self, host: &str) -> Result<Self, ConfigError> {
        validate::host_rule(host)?;
        self.allowed_hosts.push(host.to_owned());
        Ok(self)
    }

    /// Checks the allowed origins and hosts: call it before serving options built from user
    /// input with [`allow_origin`](Self::allow_origin) or by setting the fields.
    ///
    /// # Errors
    ///
    /// The first origin or host no browser would send.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for origin in &self.allowed_origins {
            validate::origin_rule(origin)?;
        }
        for host in &self.allowed_hosts {
            validate::host_rule(host)?;
        }
        Ok(())
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

    /// Requires `Authorization: Bearer <token>` on every request (`401` without it), in
    /// place of any [`auth`](Self::auth) hook. A browser WebSocket passes it as the
    /// `acp.bearer.<token>` subprotocol: use a token of subprotocol characters (base64url
    /// without padding, or hex) for browsers. The same shape as the client's
    /// `ConnectOptions::bearer_token`, which sends it.
    ///
    /// ```
    /// use acp_http::server::ServerOptions;
    ///
    /// let options = ServerOptions::default().bearer_token("s3cret")?;
    /// assert!(options.auth.is_some());
    /// assert!(ServerOptions::default().bearer_token("").is_err());
    /// # Ok::<(), acp_http::server::ConfigError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When no client could send the token: empty, spaces around it, or characters other
    /// than visible ASCII (the message does not show the token).
    pub fn bearer_token(self, token: &str) -> Result<Self, ConfigError> {
        validate::bearer_rule(token)?;
        let expected = format!("Bearer {token}");
        Ok(self.auth(
            move |headers| match headers.get(axum::http::header::AUTHORIZATION) {
                Some(value) if constant_time_eq(value.as_bytes(), expected.as_bytes()) => {
                    AuthDecision::Allow
                }
                _ => AuthDecision::Unauthorized,
            },
        ))
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

    /// Sees every message of every connection, both ways (see [`observer`](Self::observer)):
    /// to log, count or validate the traffic, as [`AgentOptions::observe`] does for one
    /// connection.
    ///
    /// ```
    /// use acp_http::server::{Direction, ServerOptions};
    ///
    /// let options = ServerOptions::default().observe(|direction: Direction, body: &[u8]| {
    ///     tracing::debug!(%direction, "{}", String::from_utf8_lossy(body));
    /// });
    /// assert!(options.observer.is_some());
    /// ```
    #[must_use]
    pub fn observe(mut self, f: impl Fn(Direction, &[u8]) + Send + Sync + 'static) -> Self {
        self.observer = Some(Observer::new(f));
        self
    }

    /// Sets the cap of each WebSocket's write buffer (see
    /// [`max_ws_write_buffer_bytes`](Self::max_ws_write_buffer_bytes)).
    #[must_use]
    pub fn max_ws_write_buffer_bytes(mut self, max: usize) -> Self {
        self.max_ws_write_buffer_bytes = max.max(1);
        self
    }

    /// Sets the SSE keep-alive interval (see
    /// [`keep_alive_interval`](Self::keep_alive_interval)).
    #[must_use]
    pub fn keep_alive_interval(mut self, interval: Duration) -> Self {
        self.keep_alive_interval = interval;
        self
    }

    /// Sets how long a POST's body may take (see [`body_timeout`](Self::body_timeout)).
    #[must_use]
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Sets the server-wide budget of request bodies (see
    /// [`max_total_body_bytes`](Self::max_total_body_bytes)).
    #[must_use]
    pub fn max_total_body_bytes(mut self, max: usize) -> Self {
        self.max_total_body_bytes = max.max(1);
        self
    }

    /// Sets how many POSTs of a connection may wait for its agent (see
    /// [`max_queued_posts`](Self::max_queued_posts)).
    #[must_use]
    pub fn max_queued_posts(mut self, max: usize) -> Self {
        self.max_queued_posts = max.max(1);
        self
    }

    /// Sets the most connections of one client (see
    /// [`max_connections_per_client`](Self::max_connections_per_client)).
    #[must_use]
    pub fn max_connections_per_client(mut self, max: usize) -> Self {
        self.max_connections_per_client = max.max(1);
        self
    }

    /// Sets how long a new connection may stay unused (see
    /// [`unused_timeout`](Self::unused_timeout)).
    #[must_use]
    pub fn unused_timeout(mut self, timeout: Duration) -> Self {
        self.unused_timeout = timeout;
        self
    }

    /// Sets the most TCP connections at once (see
    /// [`max_tcp_connections`](Self::max_tcp_connections)).
    #[must_use]
    pub fn max_tcp_connections(mut self, max: usize) -> Self {
        self.max_tcp_connections = max.max(1);
        self
    }

    /// Sets the most TCP connections from one address (see
    /// [`max_tcp_connections_per_client`](Self::max_tcp_connections_per_client)).
    #[must_use]
    pub fn max_tcp_connections_per_client(mut self, max: usize) -> Self {
        self.max_tcp_connections_per_client = max.max(1);
        self
    }

    /// Sets whether loopback addresses are counted by the per-address limits (see
    /// [`limit_loopback_clients`](Self::limit_loopback_clients)).
    #[must_use]
    pub fn limit_loopback_clients(mut self, on: bool) -> Self {
        self.limit_loopback_clients = on;
        self
    }

    /// Sets the header timeout (see [`header_timeout`](Self::header_timeout)).
    #[must_use]
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets the most streams of one HTTP/2 connection (see
    /// [`max_streams_per_tcp_connection`](Self::max_streams_per_tcp_connection)).
    #[must_use]
    pub fn max_streams_per_tcp_connection(mut self, max: u32) -> Self {
        self.max_streams_per_tcp_connection = max.max(1);
        self
    }

    /// Sets the server-wide output budget (see
    /// [`max_total_buffered_bytes`](Self::max_total_buffered_bytes)).
    #[must_use]
    pub fn max_total_buffered_bytes(mut self, max: usize) -> Self {
        self.max_total_buffered_bytes = max.max(1);
        self
    }

    /// Sets the initialize timeout (see [`initialize_timeout`](Self::initialize_timeout)).
    #[must_use]
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.initialize_timeout = timeout;
        self
    }

    /// Sets how many session streams may be opened before the agent names their sessions
    /// (see [`max_unconfirmed_streams`](Self::max_unconfirmed_streams)).
    #[must_use]
    pub fn max_unconfirmed_streams(mut self, max: usize) -> Self {
        self.max_unconfirmed_streams = max;
        self
    }

    /// Sets how many session streams may hold output without a reader (see
    /// [`max_waiting_streams`](Self::max_waiting_streams)).
    #[must_use]
    pub fn max_waiting_streams(mut self, max: usize) -> Self {
        self.max_waiting_streams = max.max(1);
        self
    }

    fn limits(&self, output: Arc<OutputBudget>) -> Limits {
        Limits {
            output,
            client: None,
            principal: None,
            observer: self.observer.clone(),
            max_buffered_bytes: self.max_buffered_bytes,
            stall_timeout: self.stall_timeout,
            idle_timeout: self.idle_timeout,
            max_unconfirmed_streams: self.max_unconfirmed_streams,
            max_waiting_streams: self.max_waiting_streams,
            unused_timeout: self.unused_timeout,
            max_queued_posts: self.max_queued_posts,
            max_held_body_bytes: (self.max_total_body_bytes / 8).max(self.max_body_bytes),
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
    /// Held while a `client_id` connection is made, so that two first requests make one.
    opening: Mutex<()>,
    /// Request bodies held across connections.
    pub(crate) bodies: BodyBudget,
    /// Output waiting for readers across connections.
    output: Arc<OutputBudget>,
}

/// What a request says of its client, for opening a connection.
#[derive(Debug, Clone, Default)]
pub(crate) struct Caller {
    pub(crate) principal: Option<String>,
    pub(crate) addr: Option<SocketAddr>,
}

impl Caller {
    /// The caller of a request, from the guard's principal and axum's `ConnectInfo`.
    pub(crate) fn of(extensions: &axum::http::Extensions) -> Self {
        Self {
            principal: extensions.get::<Principal>().map(|p| p.0.clone()),
            addr: extensions
                .get::<axum::extract::ConnectInfo<SocketAddr>>()
                .map(|c| c.0),
        }
    }
}

impl AcpServer {
    /// A server making one agent per connection with `factory`, as [`acp_agent::serve`] does
    /// for stdio.
    pub fn new<A, F>(factory: F, options: ServerOptions) -> Self
    where
        A: Agent,
        F: Fn(ClientHandle) -> A + Send + Sync + 'static,
    {
        Self::with_peer(move |client, _: &Peer| factory(client), options)
    }

    /// A server making one agent per connection with `factory`, which also sees who the
    /// connection's client is ([`Peer`]): its principal, its address, and
    /// [`Peer::owner`], whose sessions the agent should reach and no other's.
    ///
    /// ```
    /// use acp_agent::{Agent, ClientHandle, PromptContext};
    /// use acp_http::server::{AcpServer, Peer, ServerOptions};
    /// use acp_types::*;
    ///
    /// /// Acts for one client: `owner` is whose sessions it may reach.
    /// struct MyAgent {
    ///     owner: String,
    /// }
    ///
    /// #[acp_agent::async_trait]
    /// impl Agent for MyAgent {
    ///     async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
    ///         Ok(InitializeResponse::new(ProtocolVersion::LATEST))
    ///     }
    ///     async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
    ///         Ok(NewSessionResponse::new(format!("{}-1", self.owner.len())))
    ///     }
    ///     async fn prompt(&self, _: PromptRequest, _: PromptContext) -> Result<PromptResponse, ErrorObject> {
    ///         Ok(PromptResponse::new(StopReason::EndTurn))
    ///     }
    /// }
    ///
    /// let server = AcpServer::with_peer(
    ///     |_client: ClientHandle, peer: &Peer| MyAgent {
    ///         owner: peer.owner().to_owned(),
    ///     },
    ///     ServerOptions::default(),
    /// );
    /// # let _ = server;
    /// ```
    pub fn with_peer<A, F>(factory: F, options: ServerOptions) -> Self
    where
        A: Agent,
        F: Fn(ClientHandle, &Peer) -> A + Send + Sync + 'static,
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
        let output = OutputBudget::new(options.max_total_buffered_bytes);
        let bodies = BodyBudget::new(options.max_total_body_bytes);
        Self {
            inner: Arc::new(Inner {
                options,
                backend,
                connections: Mutex::new(Some(std::collections::HashMap::new())),
                opening: Mutex::new(()),
                bodies,
                output,
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

/// Why a new connection was not opened: the status, a reason, and for a client over its share
/// the seconds after which to try again.
pub(crate) type NotOpened = (StatusCode, &'static str);

impl Inner {
    fn connections(
        &self,
    ) -> std::sync::MutexGuard<'_, Option<std::collections::HashMap<String, Arc<Connection>>>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a new connection with its agent for `caller`, or says why not: `start` makes the
    /// connection from the id, the agent's link and the limits.
    pub(crate) fn open<T>(
        &self,
        caller: &Caller,
        start: impl FnOnce(String, conn::Link, Limits) -> T,
        conn_of: impl FnOnce(&T) -> Arc<Connection>,
    ) -> Result<T, NotOpened> {
        let Some(id) = new_connection_id(&self.options.connection_id_prefix) else {
            return Err((
                StatusCode::INTERNAL_SERVER_ERROR,
                "no randomness for a connection id",
            ));
        };
        self.open_as(id, caller, start, conn_of)
    }

    fn open_as<T>(
        &self,
        id: String,
        caller: &Caller,
        start: impl FnOnce(String, conn::Link, Limits) -> T,
        conn_of: impl FnOnce(&T) -> Arc<Connection>,
    ) -> Result<T, NotOpened> {
        let mut connections = self.connections();
        let Some(map) = connections.as_mut() else {
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down",
            ));
        };
        map.retain(|_, conn| conn.ended().is_none());
        if map.contains_key(&id) {
            // A `client_id` another principal holds: never taken over.
            return Err((StatusCode::CONFLICT, "this client_id is in use"));
        }
        let client = ClientKey::of(
            caller.principal.as_deref(),
            caller.addr,
            self.options.limit_loopback_clients,
        );
        if let Some(client) = &client {
            let theirs = map
                .values()
                .filter(|c| c.client.as_ref() == Some(client))
                .count();
            if theirs >= self.options.max_connections_per_client {
                tracing::debug!(%client, theirs, "refusing a connection over the per-client limit");
                return Err((
                    StatusCode::TOO_MANY_REQUESTS,
                    "too many connections from this client",
                ));
            }
        }
        if map.len() >= self.options.max_connections {
            return Err((StatusCode::SERVICE_UNAVAILABLE, "too many connections"));
        }
        let peer = Peer {
            connection_id: id.clone(),
            principal: caller.principal.clone(),
            addr: caller.addr,
        };
        let link = self.backend.open(&peer).map_err(|error| {
            if error.kind() == std::io::ErrorKind::ResourceBusy {
                return (StatusCode::SERVICE_UNAVAILABLE, "too many agents running");
            }
            tracing::warn!(%error, "could not start an agent for a new connection");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "could not start the agent",
            )
        })?;
        let mut limits = self.options.limits(self.output.clone());
        limits.client = client;
        limits.principal = caller.principal.clone();
        let started = start(id.clone(), link, limits);
        map.insert(id, conn_of(&started));
        Ok(started)
    }

    /// The connection of a `client_id` (the profile of older agents), made on first use.
    pub(crate) fn client_connection(
        &self,
        client_id: &str,
        caller: &Caller,
    ) -> Result<Arc<Connection>, NotOpened> {
        let key = format!("client_id:{client_id}");
        if let Some(conn) = self.get(&key, caller) {
            return Ok(conn);
        }
        // Two first requests at once: the second finds the first's connection.
        let _one_at_a_time = self.opening.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(conn) = self.get(&key, caller) {
            return Ok(conn);
        }
        self.open_as(key, caller, Connection::start_single, Arc::clone)
    }

    /// The live connection `id`, when `caller` may use it: a connection opened by a principal
    /// is that principal's alone.
    pub(crate) fn get(&self, id: &str, caller: &Caller) -> Option<Arc<Connection>> {
        let connections = self.connections();
        let conn = connections.as_ref()?.get(id)?;
        let theirs = conn.principal() == caller.principal.as_deref();
        (theirs && conn.ended().is_none()).then(|| conn.clone())
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

/// The header value of a connection id.
pub(crate) fn id_header(id: &str) -> HeaderValue {
    HeaderValue::from_str(id).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}
