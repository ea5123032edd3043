//! The WebSocket profile: one connection per socket, JSON-RPC text frames both ways,
//! `initialize` first.
//!
//! Close codes: `1002` when the first frame is not an `initialize` request with an id, `1008`
//! when the client stops reading for the stall timeout, `1011` when the agent ends, `1001`
//! when the server shuts down.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade, close_code};
use axum::response::Response;
use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;

use crate::headers::CONNECTION_ID;
use crate::message;
use crate::server::conn::{Connection, Ended};
use crate::server::link::AgentTask;
use crate::server::{Inner, id_header};

/// The read buffer of each socket. tungstenite's default (128 KiB) is zero-filled on every
/// read, so it was resident for every idle connection; a client's frames are small, and a big
/// one still grows the buffer as it needs.
const READ_BUFFER_BYTES: usize = 8 * 1024;

/// The most messages written to a socket in one burst (one flush, one system call for all of
/// them) before the loop looks at the client's side again.
const BURST_MESSAGES: usize = 64;

/// Answers an upgrade: a new connection, its id in the `101` response.
pub(crate) fn upgrade(inner: Arc<Inner>, upgrade: WebSocketUpgrade) -> Response {
    let opened = inner.open(Connection::start_socket, |(conn, _, _)| conn.clone());
    let (conn, from_agent, agent_task) = match opened {
        Ok(opened) => opened,
        Err((status, why)) => {
            return axum::response::IntoResponse::into_response((status, why));
        }
    };
    let id = conn.id.clone();
    let failed = (inner.clone(), id.clone());
    let mut response = upgrade
        .max_message_size(inner.options.max_body_bytes)
        .read_buffer_size(READ_BUFFER_BYTES)
        .on_failed_upgrade(move |error| {
            tracing::debug!(%error, "a WebSocket upgrade failed");
            failed.0.remove(&failed.1, Ended::InitializeAbandoned);
        })
        .on_upgrade(move |socket| run(inner, conn, socket, from_agent, agent_task));
    response.headers_mut().insert(CONNECTION_ID, id_header(&id));
    response
}

fn close(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from(reason),
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

async fn run(
    inner: Arc<Inner>,
    conn: Arc<Connection>,
    socket: WebSocket,
    mut from_agent: mpsc::Receiver<Bytes>,
    agent_task: AgentTask,
) {
    let (mut sink, mut stream) = socket.split();
    let stall = inner.options.stall_timeout;
    let mut initialized = false;
    let why: Option<(u16, &str)> = loop {
        tokio::select! {
            biased;
            () = conn.closed() => {
                break match conn.ended() {
                    Some(Ended::Shutdown) => Some((close_code::AWAY, "the server is shutting down")),
                    _ => Some((close_code::NORMAL, "the connection ended")),
                };
            }
            out = from_agent.recv() => match out {
                Some(message) => {
                    // This message and those already waiting, fed to the socket and flushed
                    // once: a stream of small updates is not one system call per message.
                    let burst = async {
                        let mut next = Some(message);
                        let mut fed = 0;
                        while let Some(message) = next.take() {
                            conn.tap(crate::server::Direction::ToClient, &message);
                            match Utf8Bytes::try_from(message) {
                                Ok(text) => sink.feed(Message::Text(text)).await?,
                                Err(_) => {
                                    tracing::warn!(connection = %conn.id, "the agent sent a message that is not UTF-8: dropped");
                                }
                            }
                            fed += 1;
                            if fed < BURST_MESSAGES {
                                next = from_agent.try_recv().ok();
                            }
                        }
                        sink.flush().await
                    };
                    match tokio::time::timeout(stall, burst).await {
                        Ok(Ok(())) => {}
                        Ok(Err(_)) => break None,
                        Err(_) => {
                            tracing::warn!(connection = %conn.id, ?stall, "closing a WebSocket whose client stopped reading");
                            break Some((close_code::POLICY, "the client stopped reading"));
                        }
                    }
                }
                None => break Some((close_code::ERROR, "the agent ended")),
            },
            frame = stream.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    let bytes = Bytes::from(text);
                    if !initialized {
                        if !is_initialize(&bytes) {
                            break Some((close_code::PROTOCOL, "the first message must be an initialize request"));
                        }
                        initialized = true;
                    }
                    if conn.forward(bytes).await.is_err() {
                        break Some((close_code::ERROR, "the agent ended"));
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    tracing::debug!(connection = %conn.id, "binary WebSocket frame ignored");
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_)) | Err(_)) | None => break None,
            },
        }
    };
    if let Some((code, reason)) = why {
        let _ = tokio::time::timeout(stall, sink.send(close(code, reason))).await;
    }
    inner.remove(&conn.id, Ended::Deleted);
    agent_task.end();
}
