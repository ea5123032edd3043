//! The editor side: reach a remote agent with any [`acp_client::Client`], over Streamable HTTP
//! (`http://…/acp`), WebSocket (`ws://…/acp`), or the `client_id` profile of older agents, and
//! get the same [`AgentHandle`] as over stdio (typed calls, session update streams, cancel).
//!
//! ```no_run
//! use acp_client::{AgentHandle, Client};
//! use acp_http::client::{ConnectOptions, connect};
//! use acp_types::*;
//!
//! struct Editor;
//!
//! #[acp_client::async_trait]
//! impl Client for Editor {
//!     async fn request_permission(
//!         &self,
//!         request: RequestPermissionRequest,
//!     ) -> Result<RequestPermissionResponse, ErrorObject> {
//!         Ok(RequestPermissionResponse::selected(request.options[0].option_id.clone()))
//!     }
//!     async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
//!         if let SessionUpdate::AgentMessageChunk(chunk) = &n.update {
//!             print!("{}", chunk.content.as_text().unwrap_or_default());
//!         }
//!         Ok(())
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let options = ConnectOptions::default().bearer_token("my-token")?;
//!     let (agent, driver) =
//!         connect("http://127.0.0.1:7331/acp", |_agent: AgentHandle| Editor, options).await?;
//!     let connection = driver.connection();
//!     let running = tokio::spawn(driver);
//!
//!     agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)).await?;
//!     let session = agent.new_session(NewSessionRequest::new("/tmp", Vec::<McpServer>::new())).await?;
//!     let done = agent.prompt(PromptRequest::new(session.session_id, vec!["Hello".into()])).await?;
//!     println!("\n[{}]", done.stop_reason);
//!
//!     connection.close(); // DELETE: the agent's side ends too.
//!     running.await??;
//!     Ok(())
//! }
//! ```
//!
//! # What goes on the wire
//!
//! **Streamable HTTP.** Every message is a `POST` with `Content-Type: application/json`,
//! sent one at a time, in order. The first must be `initialize`: its `POST` carries no
//! `Acp-Connection-Id`, and its answer must be a `2xx` with an `Acp-Connection-Id` header and
//! the JSON-RPC response as its body; then the connection's event stream opens (`GET`,
//! `Accept: text/event-stream`). Later requests carry `Acp-Connection-Id` and
//! `Acp-Protocol-Version` (the number of the version the `initialize` answer named, when it
//! named one), `POST`s `Acp-Session-Id`
//! when the message belongs to a session (its `params.sessionId`, or, for our answer to an
//! agent request, the session stream the request came on). Before the first `POST` for a
//! session, that session's stream opens; so it does whenever a result names a new
//! `sessionId` (`session/new`, `session/fork`). Input is taken leniently: an answer may come
//! on any stream (it is matched by id), `200` and `202` both accept, a JSON body of a `2xx` is
//! a message, and SSE comments, `event:`/`id:`/`retry:` fields and payloads that are not JSON
//! objects are skipped. Failures:
//!
//! | what | effect |
//! | --- | --- |
//! | `409` for a session (its `POST` or its stream) | the session failed: its requests fail with `-32603` until `session/load` or `session/resume` for it |
//! | `401`, `403`, `404`, `410`; a network error; the connection's stream ending | the connection ends: pending calls fail at once, the driver resolves with the [`Error`] |
//! | any other status on a request | that request fails with `-32603` and `data: {"status": …, "body": <at most 8 KiB>}` |
//! | any other status on a notification or a response | the connection ends |
//! | a session's stream ending | the session's pending requests fail; the next message for it opens the stream again |
//!
//! The cookies the agent sets are returned on every later request. Closing sends `DELETE`.
//!
//! **WebSocket.** The handshake carries the extra headers (and the jar's cookies); the
//! `Acp-Connection-Id` of the `101` answer is kept for [`Connection::connection_id`]. Then
//! one message per text frame, both ways; binary frames are ignored; the socket's close ends
//! the connection. Closing sends a close frame.
//!
//! **The `client_id` profile** ([`Profile::ClientId`]): see there.

mod driver;
mod error;
mod http;
mod link;
mod options;
mod pipe;
#[cfg(feature = "client-tls")]
mod tls;
mod ws;

use std::sync::Arc;
use std::time::Duration;

use acp_client::{AgentHandle, Client};
use futures::FutureExt;
use futures::future::BoxFuture;
use reqwest::Url;
use reqwest::cookie::Jar;

pub use self::driver::RemoteDriver;
pub use self::error::{Error, MAX_BODY_EXCERPT};
pub use self::link::Connection;
pub use self::options::{ConnectOptions, DEFAULT_MAX_MESSAGE_BYTES, Profile};
/// The header types of [`ConnectOptions::header`] (from the `http` crate, through reqwest).
pub use reqwest::header;
/// The TLS library of `https://` and `wss://` (feature `client-tls`), for [`ConnectOptions::tls_config`].
#[cfg(feature = "client-tls")]
pub use rustls;

use self::driver::Goodbye;
use self::http::{Http, Mode, Settings};
use self::link::Link;
use self::pipe::Incoming;

/// How often TCP keep-alive probes check that an idle connection's peer is still there.
const TCP_KEEPALIVE: Duration = Duration::from_secs(30);

/// Connects to the agent at `url` and runs `make_client`'s [`Client`] against it.
///
/// The profile comes from [`ConnectOptions::profile`], or else from the URL's scheme:
/// `http(s)://` for Streamable HTTP, `ws(s)://` for WebSocket (`https://` and `wss://` need the
/// `client-tls` feature; without it they are refused). What is checked before this returns: the URL and the
/// options; for WebSocket, the handshake; for the `client_id` profile, the opening of its
/// event stream. Over Streamable HTTP nothing is sent before the first call,
/// [`AgentHandle::initialize`].
///
/// Nothing runs until the returned [`RemoteDriver`] is polled (usually `tokio::spawn(driver)`).
///
/// # Errors
///
/// [`Error::InvalidUrl`] for a URL the profile cannot use; [`Error::Status`],
/// [`Error::Transport`] or [`Error::Timeout`] when the WebSocket handshake or the `client_id`
/// stream fails.
pub async fn connect<C: Client>(
    url: &str,
    make_client: impl FnOnce(AgentHandle) -> C,
    options: ConnectOptions,
) -> Result<(AgentHandle, RemoteDriver), Error> {
    let invalid = |reason: &str| Error::InvalidUrl {
        url: url.to_owned(),
        reason: reason.to_owned(),
    };
    let mut parsed = Url::parse(url).map_err(|e| invalid(&e.to_string()))?;
    let profile = match (options.profile, parsed.scheme()) {
        (None | Some(Profile::StreamableHttp), "http" | "https") => Profile::StreamableHttp,
        (Some(Profile::ClientId), "http" | "https") => Profile::ClientId,
        (None | Some(Profile::WebSocket), "ws" | "wss") => Profile::WebSocket,
        (Some(Profile::WebSocket), "http" | "https") => {
            let scheme = if parsed.scheme() == "https" {
                "wss"
            } else {
                "ws"
            };
            parsed
                .set_scheme(scheme)
                .map_err(|()| invalid("cannot use it as a WebSocket URL"))?;
            Profile::WebSocket
        }
        (Some(profile), scheme) => {
            return Err(invalid(&format!("{profile} cannot use a {scheme}:// URL")));
        }
        (None, scheme) => {
            return Err(invalid(&format!(
                "unknown scheme {scheme}: use http(s):// for Streamable HTTP, ws(s):// for WebSocket"
            )));
        }
    };
    let secure = matches!(parsed.scheme(), "https" | "wss");
    // No TLS in this build (see the crate's features): say so now, not as an obscure error of
    // the first request.
    if secure && !cfg!(feature = "client-tls") {
        return Err(invalid(
            "https:// and wss:// need TLS: build acp-http with its `client-tls` feature",
        ));
    }
    let jar = options.cookie_jar.clone().unwrap_or_default();
    let link = Arc::new(Link::new(parsed.to_string(), profile));
    let (outgoing, outgoing_rx) = pipe::outgoing();
    let (transport, on_drop): (BoxFuture<'static, ()>, Option<Goodbye>) = match profile {
        Profile::WebSocket => {
            let (socket, connection_id) = ws::handshake(ws::Handshake {
                url: &parsed,
                headers: &options.headers,
                jar: &jar,
                max_message_bytes: options.max_message_bytes,
                timeout: options.connect_timeout,
                #[cfg(feature = "client-tls")]
                tls: secure.then(|| tls::config(&options, &[])).transpose()?,
            })
            .await?;
            if let Some(id) = connection_id {
                link.set_connection_id(id);
            }
            let transport = ws::run(socket, link.clone(), outgoing_rx, options.close_timeout);
            (transport.boxed(), None)
        }
        Profile::StreamableHttp | Profile::ClientId => {
            let mode = if profile == Profile::ClientId {
                let id = client_id()?;
                link.set_connection_id(id.clone());
                let (rpc, sse) = client_id_urls(&parsed, &id);
                Mode::ClientId { rpc, sse }
            } else {
                Mode::Streamable { endpoint: parsed }
            };
            let client = http_client(&options, jar, secure)?;
            let (http, new_streams) = Http::new(client, mode, settings(&options), link.clone());
            if profile == Profile::ClientId {
                // The one stream opens before anything is posted.
                let stream = http.open(None).await?;
                http.start_connection_reader(stream);
            }
            let goodbye = http.clone();
            let on_drop: Goodbye = Box::new(move || goodbye.goodbye_detached());
            (http.run(outgoing_rx, new_streams).boxed(), Some(on_drop))
        }
    };
    let incoming = Incoming(link.inbox.clone());
    let (agent, rpc) =
        acp_client::connect_messages(make_client, incoming, outgoing, options.client);
    Ok((agent, RemoteDriver::new(rpc, transport, link, on_drop)))
}

fn settings(options: &ConnectOptions) -> Settings {
    Settings {
        headers: options.headers.clone(),
        max_message_bytes: options.max_message_bytes,
        connect_timeout: options.connect_timeout,
        post_timeout: options.post_timeout,
        stream_idle_timeout: options.stream_idle_timeout,
        close_timeout: options.close_timeout,
    }
}

/// The connection's HTTP client: its own cookie jar (or the one given), no redirects (a `3xx`
/// is an answer like any other), TCP keep-alive; TLS when `secure` (feature `client-tls`).
fn http_client(
    options: &ConnectOptions,
    jar: Arc<Jar>,
    secure: bool,
) -> Result<reqwest::Client, Error> {
    let mut builder = reqwest::Client::builder()
        .cookie_provider(jar)
        .redirect(reqwest::redirect::Policy::none())
        .tcp_keepalive(TCP_KEEPALIVE)
        .tcp_nodelay(true);
    if let Some(timeout) = options.connect_timeout {
        builder = builder.connect_timeout(timeout);
    }
    if options.http2_prior_knowledge {
        builder = builder.http2_prior_knowledge();
    }
    // Always a configuration of ours: reqwest has no crypto provider of its own here.
    #[cfg(feature = "client-tls")]
    {
        builder = builder.tls_backend_preconfigured(if secure {
            tls::config(options, tls::HTTP_ALPN)?
        } else {
            tls::plain()?
        });
    }
    #[cfg(not(feature = "client-tls"))]
    let _ = secure;
    builder
        .build()
        .map_err(|e| Error::InvalidOption(format!("the HTTP client cannot be built: {e}")))
}

/// A `client_id`: 128 random bits, in hex.
fn client_id() -> Result<String, Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::InvalidOption(format!("no randomness for a client_id: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The `client_id` profile's two URLs under a base: `{base}/acp/rpc?client_id=…` and
/// `{base}/acp/sse?client_id=…` (a base already ending in `/acp` is not extended). The
/// base's own query parameters are kept.
fn client_id_urls(base: &Url, id: &str) -> (Url, Url) {
    let mut path = base.path().trim_end_matches('/').to_owned();
    if !path.ends_with("/acp") {
        path.push_str("/acp");
    }
    let at = |leaf: &str| {
        let mut url = base.clone();
        url.set_path(&format!("{path}/{leaf}"));
        url.query_pairs_mut().append_pair("client_id", id);
        url
    };
    (at("rpc"), at("sse"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_id_urls_sit_under_the_base() {
        let base = Url::parse("http://127.0.0.1:9000").unwrap();
        let (rpc, sse) = client_id_urls(&base, "abc");
        assert_eq!(rpc.as_str(), "http://127.0.0.1:9000/acp/rpc?client_id=abc");
        assert_eq!(sse.as_str(), "http://127.0.0.1:9000/acp/sse?client_id=abc");
        let base = Url::parse("http://h/x/acp/?token=t").unwrap();
        let (rpc, _) = client_id_urls(&base, "abc");
        assert_eq!(rpc.as_str(), "http://h/x/acp/rpc?token=t&client_id=abc");
    }

    #[test]
    fn client_ids_are_128_random_bits() {
        let a = client_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, client_id().unwrap());
    }
}
