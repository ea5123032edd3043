//! The settings of a remote connection.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use acp_client::ClientOptions;
use reqwest::cookie::Jar;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};

use super::Error;

/// The largest message taken from the agent by default: 32 MiB (an SSE event, a POST answer's
/// body, a WebSocket message), the size of the largest stdio frame.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// How the client talks to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// Streamable HTTP (the ACP transport draft): every message is a `POST` to the endpoint
    /// (`http://host/acp`); the agent's messages come on server-sent event streams, one for the
    /// connection and one per session. The first message must be `initialize`, answered with
    /// the `Acp-Connection-Id` that every later request carries.
    StreamableHttp,
    /// WebSocket on the same endpoint (`ws://host/acp`): one JSON-RPC message per text frame,
    /// both ways.
    WebSocket,
    /// The `client_id` profile of older agents (elephant.ai's `alex acp serve`): every message
    /// is a `POST {base}/acp/rpc?client_id=<id>`, and everything from the agent comes on the one
    /// stream `GET {base}/acp/sse?client_id=<id>`, opened before anything is posted. The
    /// client picks the id: 128 random bits. The URL given is the server's base
    /// (`http://127.0.0.1:9000`); a path already ending in `/acp` is used as it is.
    ClientId,
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Profile::StreamableHttp => "Streamable HTTP",
            Profile::WebSocket => "WebSocket",
            Profile::ClientId => "client_id HTTP+SSE",
        })
    }
}

/// The settings of [`connect`](super::connect).
///
/// ```
/// use std::time::Duration;
/// use acp_http::client::{ConnectOptions, Profile};
///
/// # fn main() -> Result<(), acp_http::client::Error> {
/// let options = ConnectOptions::default()
///     .bearer_token("secret-token")?
///     .profile(Profile::StreamableHttp)
///     .post_timeout(Some(Duration::from_secs(30)));
/// assert!(options.headers.contains_key("authorization"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct ConnectOptions {
    /// The protocol rules of the client, as for stdio.
    pub client: ClientOptions,
    /// Headers sent with every request (each `POST`, each stream's `GET`, the `DELETE`) and
    /// with the WebSocket handshake: `Authorization`, for example.
    pub headers: HeaderMap,
    /// The profile; `None` (the default) picks it by the URL's scheme: `http`/`https` for
    /// Streamable HTTP, `ws`/`wss` for WebSocket. The `client_id` profile is only ever chosen
    /// here.
    pub profile: Option<Profile>,
    /// The largest message taken from the agent ([`DEFAULT_MAX_MESSAGE_BYTES`]): a larger SSE
    /// event is skipped with a warning; a larger WebSocket message ends the connection.
    pub max_message_bytes: usize,
    /// How long to wait for a TCP (and TLS) connection, for the WebSocket handshake, and for
    /// the headers of an event stream. 30 seconds by default.
    pub connect_timeout: Option<Duration>,
    /// How long one `POST` may take, until its status and body: `initialize` waits for the
    /// agent's answer, so allow for it. A request whose `POST` times out fails; any other
    /// message's ends the connection. 60 seconds by default.
    pub post_timeout: Option<Duration>,
    /// How long an event stream may stay silent (agents send a keep-alive comment every 15
    /// seconds, or every 5) before it counts as lost. `None` by default: TCP keep-alive
    /// probes detect a dead peer instead.
    pub stream_idle_timeout: Option<Duration>,
    /// How long closing may take: the `DELETE`, or the WebSocket close frame. Errors are
    /// ignored. 5 seconds by default.
    pub close_timeout: Duration,
    /// Speak HTTP/2 without negotiating it (h2c "prior knowledge") on `http://` URLs, for
    /// servers that offer it (this crate's server does). By default `http://` uses HTTP/1.1.
    pub http2_prior_knowledge: bool,
    /// The cookie jar: the cookies the agent sets are returned on every later request of the
    /// connection (which load balancers use for affinity), and on the WebSocket handshake.
    /// `None` (the default) gives each connection a jar of its own; share one to keep cookies
    /// across connections.
    pub cookie_jar: Option<Arc<Jar>>,
    /// The TLS settings of `https://` and `wss://` connections (feature `client-tls`). `None` (the
    /// default) verifies the agent's certificate against the platform's trust store, with
    /// rustls and its `ring` provider. Give a configuration of your own for a private
    /// certificate authority, pinned roots or a client certificate. Its ALPN protocols are set
    /// per transport (`h2` and `http/1.1` for HTTP, none for WebSocket), whatever it says.
    #[cfg(feature = "client-tls")]
    pub tls_config: Option<Arc<rustls::ClientConfig>>,
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The header values may be credentials: names only.
        let mut f = f.debug_struct("ConnectOptions");
        f.field("client", &self.client)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("profile", &self.profile)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("connect_timeout", &self.connect_timeout)
            .field("post_timeout", &self.post_timeout)
            .field("stream_idle_timeout", &self.stream_idle_timeout)
            .field("close_timeout", &self.close_timeout)
            .field("http2_prior_knowledge", &self.http2_prior_knowledge)
            .field("cookie_jar", &self.cookie_jar.is_some());
        #[cfg(feature = "client-tls")]
        f.field("tls_config", &self.tls_config.is_some());
        f.finish()
    }
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            client: ClientOptions::default(),
            headers: HeaderMap::new(),
            profile: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            connect_timeout: Some(Duration::from_secs(30)),
            post_timeout: Some(Duration::from_secs(60)),
            stream_idle_timeout: None,
            close_timeout: Duration::from_secs(5),
            http2_prior_knowledge: false,
            cookie_jar: None,
            #[cfg(feature = "client-tls")]
            tls_config: None,
        }
    }
}

impl ConnectOptions {
    /// Sets the client's protocol rules.
    #[must_use]
    pub fn client(mut self, client: ClientOptions) -> Self {
        self.client = client;
        self
    }

    /// Adds a header to every request and to the WebSocket handshake (replacing one of the
    /// same name).
    #[must_use]
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }

    /// Sends `Authorization: Bearer <token>` with every request and with the WebSocket
    /// handshake. The value is marked sensitive (kept out of logs). The same shape as the
    /// server's `ServerOptions::bearer_token`, which expects it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOption`] when the token cannot be sent as it is: empty, spaces around
    /// it, or characters other than visible ASCII (the message does not show the token).
    pub fn bearer_token(self, token: &str) -> Result<Self, Error> {
        if let Some(problem) = crate::headers::bearer_token_problem(token) {
            return Err(Error::InvalidOption(problem.into()));
        }
        let mut value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
            Error::InvalidOption("the bearer token is not a valid header value".into())
        })?;
        value.set_sensitive(true);
        Ok(self.header(AUTHORIZATION, value))
    }

    /// Uses this TLS configuration for `https://` and `wss://` (feature `client-tls`), instead of
    /// the platform's trust store. See [`ConnectOptions::tls_config`].
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use acp_http::client::{ConnectOptions, rustls};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // Trust a private certificate authority (DER-encoded), and only it.
    /// let mut roots = rustls::RootCertStore::empty();
    /// roots.add(std::fs::read("private-ca.der")?.into())?;
    /// let provider = Arc::new(rustls::crypto::ring::default_provider());
    /// let config = rustls::ClientConfig::builder_with_provider(provider)
    ///     .with_safe_default_protocol_versions()?
    ///     .with_root_certificates(roots)
    ///     .with_no_client_auth();
    /// let options = ConnectOptions::default().tls_config(config);
    /// assert!(options.tls_config.is_some());
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "client-tls")]
    #[must_use]
    pub fn tls_config(mut self, config: rustls::ClientConfig) -> Self {
        self.tls_config = Some(Arc::new(config));
        self
    }

    /// Sets the profile, instead of choosing it by the URL's scheme.
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = Some(profile);
        self
    }

    /// Sets the largest message taken from the agent.
    #[must_use]
    pub fn max_message_bytes(mut self, max_message_bytes: usize) -> Self {
        self.max_message_bytes = max_message_bytes;
        self
    }

    /// Sets the connect timeout (`None`: wait as long as it takes).
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the timeout of each `POST` (`None`: wait as long as it takes).
    #[must_use]
    pub fn post_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.post_timeout = timeout;
        self
    }

    /// Sets how long an event stream may stay silent before it counts as lost.
    #[must_use]
    pub fn stream_idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.stream_idle_timeout = timeout;
        self
    }

    /// Sets how long closing may take.
    #[must_use]
    pub fn close_timeout(mut self, timeout: Duration) -> Self {
        self.close_timeout = timeout;
        self
    }

    /// Speaks HTTP/2 without negotiation on `http://` URLs.
    #[must_use]
    pub fn http2_prior_knowledge(mut self, on: bool) -> Self {
        self.http2_prior_knowledge = on;
        self
    }

    /// Uses this cookie jar (shared, for example, by the connections of one application).
    #[must_use]
    pub fn cookie_jar(mut self, jar: Arc<Jar>) -> Self {
        self.cookie_jar = Some(jar);
        self
    }
}
