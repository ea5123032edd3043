//! WebSocket: one JSON-RPC message per text frame, both ways, on one socket.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use reqwest::Url;
use reqwest::cookie::{CookieStore, Jar};
use reqwest::header::{COOKIE, HeaderMap, SET_COOKIE};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::Error;
use super::error::excerpt;
use super::link::Link;
use crate::CONNECTION_ID;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What the handshake needs.
#[derive(Debug)]
pub(crate) struct Handshake<'a> {
    pub(crate) url: &'a Url,
    pub(crate) headers: &'a HeaderMap,
    pub(crate) jar: &'a Arc<Jar>,
    pub(crate) max_message_bytes: usize,
    pub(crate) timeout: Option<Duration>,
    /// The TLS configuration of a `wss://` URL.
    #[cfg(feature = "client-tls")]
    pub(crate) tls: Option<rustls::ClientConfig>,
}

/// The URL cookies are kept under: the `http(s)` twin of a `ws(s)` URL.
fn cookie_url(url: &Url) -> Url {
    let mut twin = url.clone();
    let scheme = if url.scheme() == "wss" {
        "https"
    } else {
        "http"
    };
    // `set_scheme` refuses to switch between special schemes only in odd cases; keep the
    // original then.
    if twin.set_scheme(scheme).is_err() {
        return url.clone();
    }
    twin
}

/// Opens the socket: the handshake with the extra headers and the jar's cookies. Returns the
/// socket and the `Acp-Connection-Id` of the `101` answer, if any.
pub(crate) async fn handshake(h: Handshake<'_>) -> Result<(Socket, Option<String>), Error> {
    let url_text = h.url.to_string();
    let mut request = url_text
        .as_str()
        .into_client_request()
        .map_err(|e| Error::InvalidUrl {
            url: url_text.clone(),
            reason: e.to_string(),
        })?;
    for (name, value) in h.headers {
        request.headers_mut().append(name, value.clone());
    }
    let cookie_url = cookie_url(h.url);
    if !request.headers().contains_key(COOKIE) {
        if let Some(cookies) = h.jar.cookies(&cookie_url) {
            request.headers_mut().insert(COOKIE, cookies);
        }
    }
    let config = WebSocketConfig::default()
        .max_message_size(Some(h.max_message_bytes))
        .max_frame_size(Some(h.max_message_bytes));
    #[cfg(feature = "client-tls")]
    let connecting = tokio_tungstenite::connect_async_tls_with_config(
        request,
        Some(config),
        true,
        h.tls
            .map(|tls| tokio_tungstenite::Connector::Rustls(Arc::new(tls))),
    );
    #[cfg(not(feature = "client-tls"))]
    let connecting = tokio_tungstenite::connect_async_with_config(request, Some(config), true);
    let connected = match h.timeout {
        Some(after) => {
            tokio::time::timeout(after, connecting)
                .await
                .map_err(|_| Error::Timeout {
                    action: "WebSocket handshake",
                    url: url_text.clone(),
                    after,
                })?
        }
        None => connecting.await,
    };
    let (socket, response) = connected.map_err(|e| match e {
        tungstenite::Error::Http(response) => Error::Status {
            action: "WebSocket handshake",
            url: url_text.clone(),
            status: response.status().as_u16(),
            body: excerpt(response.body().as_deref().unwrap_or_default()),
        },
        other => Error::Transport {
            action: "WebSocket handshake",
            url: url_text.clone(),
            source: Box::new(other),
        },
    })?;
    let mut set_cookies = response.headers().get_all(SET_COOKIE).iter();
    h.jar.set_cookies(&mut set_cookies, &cookie_url);
    let connection_id = response
        .headers()
        .get(CONNECTION_ID)
        .map(|id| String::from_utf8_lossy(id.as_bytes()).into_owned());
    Ok((socket, connection_id))
}

/// Runs the socket: the driver's messages out as text frames, in order; text frames in.
/// Ends when the socket closes (the inbox then ends), fails (the connection fails), or the
/// connection stops (a close frame goes out).
pub(crate) async fn run(
    socket: Socket,
    link: Arc<Link>,
    mut outgoing: mpsc::Receiver<Bytes>,
    close_timeout: Duration,
) {
    let (mut sink, mut stream) = socket.split();
    let fail = |e: tungstenite::Error| {
        link.fail(Error::Transport {
            action: "WebSocket",
            url: link.url.clone(),
            source: Box::new(e),
        });
    };
    let read = async {
        while let Some(frame) = stream.next().await {
            match frame {
                Ok(Message::Text(text)) => link.inbox.push(Bytes::from(text)).await,
                Ok(Message::Binary(_)) => tracing::debug!("ignored a binary WebSocket frame"),
                Ok(Message::Close(frame)) => {
                    tracing::debug!(?frame, "the agent closed the WebSocket");
                    break;
                }
                // Pings are answered by the library.
                Ok(_) => {}
                Err(e) => return fail(e),
            }
        }
        link.close();
    };
    let write = async {
        while let Some(message) = outgoing.next().await {
            let text = match Utf8Bytes::try_from(message) {
                Ok(text) => text,
                Err(_) => {
                    tracing::warn!("dropped an outgoing message that is not UTF-8");
                    continue;
                }
            };
            if let Err(e) = sink.send(Message::Text(text)).await {
                return fail(e);
            }
        }
    };
    // Say goodbye unless the agent already did (or the socket broke while reading). After a
    // failed write the close frame fails at once too.
    let goodbye = tokio::select! {
        biased;
        () = link.stopped() => true,
        () = read => false,
        // The driver is gone.
        () = write => true,
    };
    if goodbye {
        let close = async {
            let _ = sink.send(Message::Close(None)).await;
            let _ = sink.close().await;
        };
        let _ = tokio::time::timeout(close_timeout, close).await;
    }
}
