//! A hand-driven peer: one real end (an `acp-client` client or an `acp-agent` agent) faces a
//! test that writes and reads JSON-RPC messages itself, as NDJSON lines. It shows how the real
//! end answers exactly what a peer put on the wire, including answers other SDKs give (a
//! `null` result) and requests a well-behaved peer of ours would never send.
//!
//! Every message in both directions goes through the [`Checker`]: what the test sends (so no
//! test can rely on a message the specification forbids, unless it says so with
//! [`RawPeer::send_unchecked`]) and what the real end writes (responses against the result
//! type of the request they answer).

use std::collections::HashMap;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

use crate::{Checker, within};

/// The test's end of the connection.
pub struct RawPeer {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    check: Checker,
    /// The method of each request we sent, by id: the real end's responses are checked
    /// against it.
    ours: HashMap<String, String>,
    /// The method of each request the real end sent, by id: our responses are checked
    /// against it.
    theirs: HashMap<String, String>,
}

impl std::fmt::Debug for RawPeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawPeer").finish_non_exhaustive()
    }
}

fn id_key(message: &Value) -> Option<String> {
    message.get("id").map(Value::to_string)
}

impl RawPeer {
    /// A raw peer over `io`, whose other end the real side uses.
    pub fn new(io: DuplexStream, check: Checker) -> Self {
        let (read, writer) = tokio::io::split(io);
        Self {
            lines: BufReader::new(read).lines(),
            writer,
            check,
            ours: HashMap::new(),
            theirs: HashMap::new(),
        }
    }

    /// Checks `message` against the schema and writes it.
    ///
    /// # Panics
    ///
    /// When the message is invalid.
    pub async fn send(&mut self, message: Value) {
        let answers = id_key(&message).and_then(|id| {
            if message.get("method").is_none() {
                self.theirs.get(&id).cloned()
            } else {
                None
            }
        });
        if let Err(e) = (self.check)(&message, answers.as_deref()) {
            panic!("the test would send an invalid message: {e}\n{message}");
        }
        self.send_unchecked(message).await;
    }

    /// Writes `message` without checking it: for input the specification forbids on purpose.
    pub async fn send_unchecked(&mut self, message: Value) {
        if let (Some(id), Some(method)) = (id_key(&message), message.get("method")) {
            self.ours
                .insert(id, method.as_str().unwrap_or_default().to_owned());
        }
        let mut line = serde_json::to_vec(&message).expect("a JSON value serializes");
        line.push(b'\n');
        self.write_raw(&line).await;
    }

    /// Writes bytes as they are.
    pub async fn write_raw(&mut self, bytes: &[u8]) {
        within("writing to the real end", self.writer.write_all(bytes))
            .await
            .expect("the real end is reading");
    }

    /// Sends a request.
    pub async fn request(&mut self, id: impl Into<Value>, method: &str, params: Value) {
        let id = id.into();
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Answers the real end's request `id` with `result`.
    pub async fn respond(&mut self, id: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
    }

    /// Reads the next message the real end wrote, checked against the schema.
    ///
    /// # Panics
    ///
    /// On a hang, at the end of the stream, or when the message is invalid.
    pub async fn recv(&mut self) -> Value {
        self.recv_or_eof()
            .await
            .expect("the real end closed the connection while a message was expected")
    }

    /// Reads the next message, or `None` at the end of the stream.
    ///
    /// # Panics
    ///
    /// On a hang or when the message is invalid.
    pub async fn recv_or_eof(&mut self) -> Option<Value> {
        let line = within("reading from the real end", self.lines.next_line())
            .await
            .expect("reading the pipe")?;
        let message: Value = serde_json::from_str(&line).expect("the real end wrote JSON");
        let key = id_key(&message);
        let answers = match (&key, message.get("method")) {
            (Some(id), Some(method)) => {
                self.theirs
                    .insert(id.clone(), method.as_str().unwrap_or_default().to_owned());
                None
            }
            (Some(id), None) => self.ours.remove(id),
            _ => None,
        };
        if let Err(e) = (self.check)(&message, answers.as_deref()) {
            panic!("the real end wrote an invalid message: {e}\n{message}");
        }
        Some(message)
    }

    /// Reads until a message for which `pick` returns something, and returns that; the
    /// messages read before it are returned too, in order.
    pub async fn recv_until<T>(
        &mut self,
        mut pick: impl FnMut(&Value) -> Option<T>,
    ) -> (T, Vec<Value>) {
        let mut skipped = Vec::new();
        loop {
            let message = self.recv().await;
            if let Some(found) = pick(&message) {
                return (found, skipped);
            }
            skipped.push(message);
        }
    }

    /// Reads the next request of `method` from the real end and returns its id and params.
    ///
    /// # Panics
    ///
    /// When the next message is something else.
    pub async fn expect_request(&mut self, method: &str) -> (Value, Value) {
        let message = self.recv().await;
        assert_eq!(
            message.get("method").and_then(Value::as_str),
            Some(method),
            "expected a `{method}` request, got {message}"
        );
        (message["id"].clone(), message["params"].clone())
    }

    /// Reads the next message and checks that it answers `id` with a result, which it returns.
    ///
    /// # Panics
    ///
    /// When the next message is something else.
    pub async fn expect_result(&mut self, id: impl Into<Value>) -> Value {
        let id = id.into();
        let message = self.recv().await;
        assert_eq!(
            message.get("id"),
            Some(&id),
            "expected the answer to {id}, got {message}"
        );
        message
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("expected a result for {id}, got {message}"))
    }

    /// Reads the next message and checks that it answers `id` with an error, which it returns.
    ///
    /// # Panics
    ///
    /// When the next message is something else.
    pub async fn expect_error(&mut self, id: impl Into<Value>) -> Value {
        let id = id.into();
        let message = self.recv().await;
        assert_eq!(
            message.get("id"),
            Some(&id),
            "expected the answer to {id}, got {message}"
        );
        message
            .get("error")
            .cloned()
            .unwrap_or_else(|| panic!("expected an error for {id}, got {message}"))
    }

    /// Closes the test's side, so that the real end sees the end of its input.
    pub async fn close(mut self) {
        let _ = self.writer.shutdown().await;
    }
}
