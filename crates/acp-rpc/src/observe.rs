//! Watching a connection's traffic: every message, received and sent, as it crosses the wire.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//!
//! use acp_rpc::{Config, Direction, Router, connect};
//! use acp_types::methods::SessionPrompt;
//! use acp_types::{PromptRequest, PromptResponse, StopReason};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), acp_rpc::Error> {
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let log = seen.clone();
//! // Log (or validate) what this side exchanges: `body` is one message's JSON, unframed.
//! let config = Config::default().observe(move |direction: Direction, body: &[u8]| {
//!     log.lock().unwrap().push(format!("{direction} {}", String::from_utf8_lossy(body)));
//! });
//! # let (a, b) = tokio::io::duplex(64 * 1024);
//! # let (a_read, a_write) = tokio::io::split(a);
//! # let (b_read, b_write) = tokio::io::split(b);
//! # let (_a, a_driver) = connect(
//! #     |_| Router::new().request::<SessionPrompt, _, _>(|_| async { Ok(PromptResponse::new(StopReason::EndTurn)) }),
//! #     a_read, a_write, Config::default(),
//! # );
//! let (agent, driver) = connect(|_peer| Router::new(), b_read, b_write, config);
//! # tokio::spawn(a_driver);
//! tokio::spawn(driver);
//! agent.request::<SessionPrompt>(&PromptRequest::new("s", vec!["Hi".into()])).await?;
//! let seen = seen.lock().unwrap();
//! assert!(seen[0].starts_with(r#"sent {"jsonrpc":"2.0","id":0,"method":"session/prompt""#));
//! assert_eq!(seen[1], r#"received {"jsonrpc":"2.0","id":0,"result":{"stopReason":"end_turn"}}"#);
//! # Ok(()) }
//! ```

use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Direction {
    /// From the peer to this side.
    Received,
    /// From this side to the peer.
    Sent,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Received => "received",
            Direction::Sent => "sent",
        })
    }
}

/// A function that sees every message of a connection (see [`Config::observe`](crate::Config::observe)).
///
/// It is given each message body (the JSON text, without framing) exactly as received, before
/// it is handled, and exactly as sent, in the order it goes on the wire. A frame that is not a
/// message (over the size limit, a malformed header) is not given; a received body may be
/// invalid JSON, which the connection then answers with an error.
///
/// It runs on the connection's tasks, sends under the connection's lock: keep it quick (log,
/// count, validate), and never call the connection from it. Decode a body with
/// [`acp_types::RawMessage`] or `serde_json` if you need more than bytes. Without an observer
/// the connection does no extra work.
#[derive(Clone)]
pub struct Observer(Arc<ObserveFn>);

/// The function an [`Observer`] calls.
type ObserveFn = dyn Fn(Direction, &[u8]) + Send + Sync;

impl Observer {
    /// Wraps `f`.
    pub fn new(f: impl Fn(Direction, &[u8]) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// An observer that appends each message, as one line of JSON, to `received` or `sent`:
    /// two NDJSON logs of the traffic, readable by any JSON-lines tool (line breaks inside a
    /// message, whitespace in JSON, are written as spaces). The writes are
    /// blocking (give it files or buffers, not pipes); after a write error the log of that
    /// direction stops, with a `tracing` warning.
    pub fn write_lines(
        received: impl Write + Send + 'static,
        sent: impl Write + Send + 'static,
    ) -> Self {
        let logs: [Mutex<Option<Box<dyn Write + Send>>>; 2] = [
            Mutex::new(Some(Box::new(received))),
            Mutex::new(Some(Box::new(sent))),
        ];
        Self::new(move |direction, body| {
            let log = &logs[usize::from(direction == Direction::Sent)];
            let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(writer) = log.as_mut() else {
                return;
            };
            // A line break in JSON can only be whitespace: a space keeps the message the same
            // and the log one message per line (a Content-Length body may be pretty-printed).
            let written = if body.iter().any(|b| matches!(b, b'\n' | b'\r')) {
                let flat: Vec<u8> = body
                    .iter()
                    .map(|&b| if matches!(b, b'\n' | b'\r') { b' ' } else { b })
                    .collect();
                writer.write_all(&flat)
            } else {
                writer.write_all(body)
            };
            let written = written
                .and_then(|()| writer.write_all(b"\n"))
                .and_then(|()| writer.flush());
            if let Err(error) = written {
                tracing::warn!(%direction, %error, "the traffic log failed; it stops here");
                *log = None;
            }
        })
    }

    /// Gives `body` to the function.
    pub fn observe(&self, direction: Direction, body: &[u8]) {
        (self.0)(direction, body);
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer")
    }
}
