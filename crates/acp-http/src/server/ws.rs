//! The WebSocket profile: one connection per socket, JSON-RPC text frames both ways,
//! `initialize` first.
//!
//! Every socket is bounded. Its write buffer holds at most one burst of the agent's messages
//! and one pong or close answer: while a write waits for a client that does not read (the
//! agent's output, or the pong of a ping), the server reads nothing more from that client, so
//! its pings cannot queue pongs and its requests cannot queue answers, and after the stall
//! timeout the connection is closed (`1008`). [`ServerOptions::max_ws_write_buffer_bytes`]
//! caps the buffer in any case; it is also the largest message the server can write (a
//! message goes out as one frame), so it must hold the agent's largest message. Incoming
//! messages and frames are limited to [`ServerOptions::max_body_bytes`].
//!
//! Closing follows RFC 6455: a client's close is answered (its code echoed) and flushed before
//! the socket ends; when the server closes, it sends its close frame and waits up to
//! [`CLOSE_TIMEOUT`] for the client's answer, so that both sides see a clean close.
//!
//! | close code | when |
//! | --- | --- |
//! | the client's own | the client closed: its close frame is echoed |
//! | `1001` going away | the server shuts down |
//! | `1002` protocol error | the first message is not an `initialize` request with an id, or a malformed frame (unmasked, reserved bits or opcode, a bad continuation, an oversized control frame) |
//! | `1003` unsupported data | a binary frame: the profile carries JSON text only |
//! | `1007` invalid payload | a text message that is not UTF-8 |
//! | `1008` policy violation | the client stopped reading for the stall timeout (sent if the socket has room) |
//! | `1009` message too big | a message or frame over `max_body_bytes`, or an agent message over `max_ws_write_buffer_bytes` |
//! | `1011` internal error | the agent ended |
//!
//! After a malformed frame nothing more is read from the socket: the close frame is sent (best
//! effort) and the connection dropped. Each of these closes is logged with the connection id.
//!
//! [`ServerOptions::max_ws_write_buffer_bytes`]: crate::server::ServerOptions::max_ws_write_buffer_bytes
//! [`ServerOptions::max_body_bytes`]: crate::server::ServerOptions::max_body_bytes

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade, close_code};
use axum::response::Response;
use bytes::Bytes;
use futures::{FutureExt, SinkExt};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Error as WsError;
use tokio_tungstenite::tungstenite::error::ProtocolError;

use crate::headers::CONNECTION_ID;
use crate::message;
use crate::server::conn::AgentTask;
use crate::server::conn::{Connection, Ended};
use crate::server::{Caller, Inner, id_header};

/// The read buffer of each socket. tungstenite's default (128 KiB) is zero-filled on every
/// read, so it was resident for every idle connection; a client's frames are small, and a big
/// one still grows the buffer as it needs.
const READ_BUFFER_BYTES: usize = 8 * 1024;

/// How many bytes of frames are gathered before they are written to the socket (tungstenite's
/// default); a burst is flushed whole anyway.
const WRITE_BUFFER_BYTES: usize = 128 * 1024;

/// The most messages written to a socket in one burst (one flush, one system call for all of
/// them) before the loop looks at the client's side again.
const BURST_MESSAGES: usize = 64;

/// How long a closing socket waits for its close frame to be written, and then for the
/// client's answer to the server's close, before the connection is dropped.
pub(crate) const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// Answers an upgrade: a new connection, its id in the `101` response.
pub(crate) fn upgrade(inner: Arc<Inner>, caller: &Caller, upgrade: WebSocketUpgrade) -> Response {
    let opened = inner.open(caller, Connection::start_socket, |(conn, _, _)| {
        conn.clone()
    });
    let (conn, from_agent, agent_task) = match opened {
        Ok(opened) => opened,
        Err(why) => return crate::server::reply::not_opened(why),
    };
    let id = conn.id.clone();
    let failed = (inner.clone(), id.clone());
    // tungstenite wants the cap above the gathering size (it panics otherwise).
    let max_write = inner.options.max_ws_write_buffer_bytes.max(1);
    let mut response = upgrade
        .max_message_size(inner.options.max_body_bytes)
        .max_frame_size(inner.options.max_body_bytes)
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES.min(max_write - 1))
        .max_write_buffer_size(max_write)
        .on_failed_upgrade(move |error| {
            tracing::debug!(%error, "a WebSocket upgrade failed");
            failed.0.remove(&failed.1, Ended::InitializeAbandoned);
        })
        .on_upgrade(move |socket| run(inner, conn, socket, from_agent, agent_task));
    response.headers_mut().insert(CONNECTION_ID, id_header(&id));
    response
}

/// How a socket's life ends.
#[derive(Debug)]
enum End {
    /// The client closed: its close frame, echoed by tungstenite, is to be flushed.
    Answer,
    /// The server closes with this code and reason, and waits for the client's answer.
    Close(u16, &'static str),
    /// The client broke the protocol: the close frame is sent, nothing more is read.
    Fail(u16, &'static str),
    /// The client stopped reading for the stall timeout: the close frame is tried once
    /// (`1008`), without waiting for room in a buffer the client does not empty.
    Stalled,
    /// The socket is gone (reset, or a write failed): nothing more to say.
    Gone,
}

impl End {
    /// What a read error means: a close code for the client's mistakes, or the end.
    fn of_read(conn: &Connection, error: axum::Error) -> Self {
        let error = match error.into_inner().downcast::<WsError>() {
            Ok(error) => *error,
            Err(error) => {
                tracing::debug!(connection = %conn.id, %error, "a WebSocket read failed");
                return Self::Gone;
            }
        };
        let end = match &error {
            WsError::Utf8(_) => Self::Fail(close_code::INVALID, "a text message is not UTF-8"),
            WsError::Capacity(_) => Self::Fail(close_code::SIZE, "a message is too big"),
            WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => Self::Gone,
            WsError::Protocol(_) => Self::Fail(close_code::PROTOCOL, "a malformed frame"),
            _ => Self::Gone,
        };
        tracing::debug!(connection = %conn.id, %error, ?end, "a WebSocket read failed");
        end
    }

    /// What a write error means: a message over the write buffer's cap is the one error the
    /// client can still be told about.
    fn of_write(conn: &Connection, error: axum::Error) -> Self {
        match error.into_inner().downcast::<WsError>().map(|e| *e) {
            Ok(WsError::WriteBufferFull(message)) => {
                tracing::warn!(
                    connection = %conn.id,
                    bytes = message.len(),
                    "an agent message is larger than the WebSocket write buffer's cap \
                     (ServerOptions::max_ws_write_buffer_bytes): closing the socket"
                );
                Self::Fail(
                    close_code::SIZE,
                    "a message is too big for the write buffer",
                )
            }
            Ok(error) => {
                tracing::debug!(connection = %conn.id, %error, "a WebSocket write failed");
                Self::Gone
            }
            Err(error) => {
                tracing::debug!(connection = %conn.id, %error, "a WebSocket write failed");
                Self::Gone
            }
        }
    }
}

fn close(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    }))
}

/// Whether the first frame is an `initialize` request with a non-null id.
fn is_initialize(frame: &[u8]) -> bool {
    message::shape(frame).is_ok_and(|s| {
        s.is_request()
            && s.method.as_deref() == Some("initialize")
            && s.id.as_deref() != Some("null")
    })
}

/// Writes `message` and those already waiting, fed to the socket and flushed once: a stream
/// of small updates is not one system call per message.
async fn write_burst(
    conn: &Connection,
    socket: &mut WebSocket,
    from_agent: &mut mpsc::Receiver<Bytes>,
    message: Bytes,
) -> Result<(), axum::Error> {
    let mut next = Some(message);
    let mut fed = 0;
    while let Some(message) = next.take() {
        conn.observe(acp_rpc::Direction::Sent, &message);
        match Utf8Bytes::try_from(message) {
            Ok(text) => socket.feed(Message::Text(text)).await?,
            Err(_) => {
                tracing::warn!(connection = %conn.id, "the agent sent a message that is not UTF-8: dropped");
            }
        }
        fed += 1;
        if fed < BURST_MESSAGES {
            next = from_agent.try_recv().ok();
        }
    }
    socket.flush().await
}

/// Waits for a write (`flush`) for at most the stall timeout: `None` when it is done, how the
/// socket ends otherwise.
async fn within_stall(
    conn: &Connection,
    stall: Duration,
    write: impl Future<Output = Result<(), axum::Error>>,
) -> Option<End> {
    match tokio::time::timeout(stall, write).await {
        Ok(Ok(())) => None,
        Ok(Err(error)) => Some(End::of_write(conn, error)),
        Err(_) => {
            tracing::warn!(connection = %conn.id, ?stall, "closing a WebSocket whose client stopped reading");
            Some(End::Stalled)
        }
    }
}

async fn run(
    inner: Arc<Inner>,
    conn: Arc<Connection>,
    mut socket: WebSocket,
    mut from_agent: mpsc::Receiver<Bytes>,
    agent_task: AgentTask,
) {
    let stall = inner.options.stall_timeout;
    let mut initialized = false;
    // One task owns the socket: while it waits for a write it reads nothing, which is what
    // keeps a client that does not read from growing the server's buffers.
    let end = loop {
        tokio::select! {
            biased;
            () = conn.closed() => {
                break match conn.ended() {
                    Some(Ended::Shutdown) => End::Close(close_code::AWAY, "the server is shutting down"),
                    _ => End::Close(close_code::NORMAL, "the connection ended"),
                };
            }
            out = from_agent.recv() => match out {
                Some(message) => {
                    let burst = write_burst(&conn, &mut socket, &mut from_agent, message);
                    if let Some(end) = within_stall(&conn, stall, burst).await {
                        break end;
                    }
                }
                None => break End::Close(close_code::ERROR, "the agent ended"),
            },
            frame = socket.recv() => match frame {
                Some(Ok(Message::Text(text))) => {
                    let bytes = Bytes::from(text);
                    if !initialized {
                        if !is_initialize(&bytes) {
                            tracing::debug!(connection = %conn.id, "the first WebSocket message is not an initialize request");
                            break End::Close(close_code::PROTOCOL, "the first message must be an initialize request");
                        }
                        initialized = true;
                    }
                    // Its share of the server's body budget: while there is none, the socket
                    // is not read (backpressure on the client).
                    let share = inner.bodies.take(bytes.len()).await;
                    if conn.forward(bytes, share).await.is_err() {
                        break End::Close(close_code::ERROR, "the agent ended");
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    tracing::debug!(connection = %conn.id, "closing a WebSocket that sent a binary frame");
                    break End::Close(close_code::UNSUPPORTED, "binary frames are not supported");
                }
                Some(Ok(Message::Ping(_))) => {
                    // tungstenite queued the pong: it is written before the next frame is read,
                    // so a client that pings without reading stops being read.
                    if let Some(end) = within_stall(&conn, stall, socket.flush()).await {
                        break end;
                    }
                }
                Some(Ok(Message::Pong(_))) => {}
                Some(Ok(Message::Close(frame))) => {
                    tracing::debug!(connection = %conn.id, code = frame.as_ref().map(|f| f.code), "the client closed its WebSocket");
                    break End::Answer;
                }
                Some(Err(error)) => break End::of_read(&conn, error),
                None => break End::Gone,
            },
        }
    };
    inner.remove(&conn.id, Ended::Deleted);
    agent_task.end();
    finish(socket, end).await;
}

/// Ends the close handshake, each step bounded by [`CLOSE_TIMEOUT`].
async fn finish(mut socket: WebSocket, end: End) {
    match end {
        End::Answer => {
            // The echo of the client's close, queued by tungstenite when it read it.
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, socket.flush()).await;
        }
        End::Fail(code, reason) => {
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, socket.send(close(code, reason))).await;
        }
        End::Stalled => {
            let _ = socket
                .send(close(close_code::POLICY, "the client stopped reading"))
                .now_or_never();
        }
        End::Close(code, reason) => {
            let closing = async {
                if socket.send(close(code, reason)).await.is_err() {
                    return;
                }
                // The client's answer ends the handshake; what it sent before is dropped.
                while let Some(Ok(frame)) = socket.recv().await {
                    if let Message::Close(_) = frame {
                        break;
                    }
                }
            };
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, closing).await;
        }
        End::Gone => {}
    }
}
