//! The validating tap: splits the bytes between the two ends into messages, checks the framing,
//! and hands every message to a checker (the tests pass one backed by the official schema).
//!
//! The splitter is written here on purpose rather than borrowed from `acp-codec`: the tap is an
//! independent witness of what went over the wire, so a framing bug in the library cannot hide
//! itself.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use acp_codec::Framing;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Which way a message travelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the client (the editor) to the agent.
    ClientToAgent,
    /// From the agent to the client.
    AgentToClient,
}

impl Direction {
    /// The other way.
    pub fn reverse(self) -> Self {
        match self {
            Direction::ClientToAgent => Direction::AgentToClient,
            Direction::AgentToClient => Direction::ClientToAgent,
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::ClientToAgent => "client->agent",
            Direction::AgentToClient => "agent->client",
        })
    }
}

/// Checks one whole JSON-RPC message; `Err` describes why it is invalid.
///
/// The second argument is, for a response, the method of the request it answers (the tap
/// pairs them by id), so that the result can be checked against that method's result type.
pub type Checker = Arc<dyn Fn(&Value, Option<&str>) -> Result<(), String> + Send + Sync>;

/// Splits a byte stream in one framing into message bodies, strictly: anything our library
/// would never write (blank lines, missing or malformed headers) is a framing problem.
#[derive(Debug)]
pub struct Splitter {
    framing: Framing,
    buf: Vec<u8>,
}

impl Splitter {
    /// A splitter expecting `framing`.
    pub fn new(framing: Framing) -> Self {
        Self {
            framing,
            buf: Vec::new(),
        }
    }

    /// Adds bytes; returns every message body completed by them, or what is wrong with the
    /// framing (the splitter then drops what it buffered).
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Result<Vec<u8>, String>> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        loop {
            let next = match self.framing {
                Framing::Ndjson => self.next_line(),
                Framing::ContentLength => self.next_frame(),
            };
            match next {
                Ok(Some(body)) => out.push(Ok(body)),
                Ok(None) => break,
                Err(problem) => {
                    self.buf.clear();
                    out.push(Err(problem));
                    break;
                }
            }
        }
        out
    }

    /// The bytes of an unfinished message, if the stream stopped in the middle of one.
    pub fn leftover(&self) -> &[u8] {
        &self.buf
    }

    fn next_line(&mut self) -> Result<Option<Vec<u8>>, String> {
        let Some(end) = self.buf.iter().position(|&b| b == b'\n') else {
            return Ok(None);
        };
        let line: Vec<u8> = self.buf.drain(..=end).take(end).collect();
        if line.is_empty() || line.iter().all(u8::is_ascii_whitespace) {
            return Err("a blank line in an NDJSON stream".into());
        }
        if line.starts_with(b"Content-Length") {
            return Err("a Content-Length header in an NDJSON stream".into());
        }
        Ok(Some(line))
    }

    fn next_frame(&mut self) -> Result<Option<Vec<u8>>, String> {
        if self.buf.first() == Some(&b'{') {
            return Err("an unframed JSON body in a Content-Length stream".into());
        }
        let Some(head_end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            return Ok(None);
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).into_owned();
        let mut length = None;
        for line in head.split("\r\n") {
            let Some((name, value)) = line.split_once(':') else {
                return Err(format!("a malformed header line {line:?}"));
            };
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|_| format!("a non-numeric Content-Length {value:?}"))?,
                );
            }
        }
        let length = length.ok_or_else(|| format!("a header without Content-Length: {head:?}"))?;
        let start = head_end + 4;
        if self.buf.len() < start + length {
            return Ok(None);
        }
        let body = self.buf[start..start + length].to_vec();
        self.buf.drain(..start + length);
        Ok(Some(body))
    }
}

/// One message seen on the wire.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Which way it went.
    pub direction: Direction,
    /// The message.
    pub message: Value,
}

impl Seen {
    /// The `method` of a request or notification.
    pub fn method(&self) -> Option<&str> {
        self.message.get("method").and_then(Value::as_str)
    }

    /// True for a request or notification of `method`.
    pub fn is(&self, method: &str) -> bool {
        self.method() == Some(method)
    }

    /// The error code of an error response.
    pub fn error_code(&self) -> Option<i64> {
        self.message.pointer("/error/code").and_then(Value::as_i64)
    }
}

struct WireState {
    splitters: [Splitter; 2],
    seen: Vec<Seen>,
    problems: Vec<String>,
    /// Requests not answered yet, by the direction they went and their id: their method.
    pending: HashMap<(Direction, String), String>,
}

impl WireState {
    /// Remembers a request; for a response, returns the method of the request it answers.
    fn pair(&mut self, direction: Direction, message: &Value) -> Option<String> {
        let id = message.get("id")?.to_string();
        match message.get("method").and_then(Value::as_str) {
            Some(method) => {
                self.pending.insert((direction, id), method.to_owned());
                None
            }
            None => self.pending.remove(&(direction.reverse(), id)),
        }
    }
}

/// Everything that went over one connection, both ways, split into messages and checked as it
/// passes. Cheap to clone; clones share the record.
#[derive(Clone)]
pub struct Wire {
    state: Arc<Mutex<WireState>>,
    check: Checker,
}

impl fmt::Debug for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("Wire")
            .field("messages", &state.seen.len())
            .field("problems", &state.problems)
            .finish()
    }
}

impl Wire {
    /// A record expecting `framing` both ways, checking every message with `check`.
    pub fn new(framing: Framing, check: Checker) -> Self {
        Self {
            state: Arc::new(Mutex::new(WireState {
                splitters: [Splitter::new(framing), Splitter::new(framing)],
                seen: Vec::new(),
                problems: Vec::new(),
                pending: HashMap::new(),
            })),
            check,
        }
    }

    fn lock(&self) -> MutexGuard<'_, WireState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records bytes that went `direction`, checking each message they complete.
    pub fn record(&self, direction: Direction, bytes: &[u8]) {
        let mut state = self.lock();
        let index = match direction {
            Direction::ClientToAgent => 0,
            Direction::AgentToClient => 1,
        };
        for body in state.splitters[index].push(bytes) {
            let problem = match body {
                Err(problem) => Some(format!("{direction}: framing: {problem}")),
                Ok(body) => match serde_json::from_slice::<Value>(&body) {
                    Err(e) => Some(format!(
                        "{direction}: not JSON ({e}): {}",
                        String::from_utf8_lossy(&body)
                    )),
                    Ok(message) => {
                        let answers = state.pair(direction, &message);
                        let verdict = (self.check)(&message, answers.as_deref());
                        let problem = verdict
                            .err()
                            .map(|e| format!("{direction}: invalid message: {e}\n  {message}"));
                        state.seen.push(Seen { direction, message });
                        problem
                    }
                },
            };
            state.problems.extend(problem);
        }
    }

    /// Every message so far, in the order each side received it (the two directions are
    /// interleaved as the tap saw them).
    pub fn seen(&self) -> Vec<Seen> {
        self.lock().seen.clone()
    }

    /// The messages of one direction that are requests or notifications of `method`.
    pub fn calls(&self, direction: Direction, method: &str) -> Vec<Value> {
        self.lock()
            .seen
            .iter()
            .filter(|s| s.direction == direction && s.is(method))
            .map(|s| s.message.clone())
            .collect()
    }

    /// The response that went `direction` to the request with `id`.
    pub fn response_to(&self, direction: Direction, id: &Value) -> Option<Value> {
        self.lock()
            .seen
            .iter()
            .find(|s| {
                s.direction == direction && s.method().is_none() && s.message.get("id") == Some(id)
            })
            .map(|s| s.message.clone())
    }

    /// What was wrong so far (framing, JSON, schema), one line each.
    pub fn problems(&self) -> Vec<String> {
        self.lock().problems.clone()
    }

    /// Asserts that every message was well framed and valid, that no message was cut off, and
    /// that at least `min_messages` went over the wire (so a silent tap cannot pass); returns
    /// how many did.
    ///
    /// # Panics
    ///
    /// When any of that does not hold, listing every problem.
    #[track_caller]
    pub fn assert_clean(&self, min_messages: usize) -> usize {
        let state = self.lock();
        let mut problems = state.problems.clone();
        for (splitter, direction) in state
            .splitters
            .iter()
            .zip([Direction::ClientToAgent, Direction::AgentToClient])
        {
            if !splitter.leftover().is_empty() {
                problems.push(format!(
                    "{direction}: a message was cut off: {:?}",
                    String::from_utf8_lossy(splitter.leftover())
                ));
            }
        }
        assert!(
            problems.is_empty(),
            "the wire was not clean:\n{}",
            problems.join("\n")
        );
        assert!(
            state.seen.len() >= min_messages,
            "expected at least {min_messages} messages on the wire, saw {}",
            state.seen.len()
        );
        state.seen.len()
    }
}

/// A reader that records what it reads into a [`Wire`].
#[derive(Debug)]
pub struct TapRead<R> {
    inner: R,
    wire: Wire,
    direction: Direction,
}

impl<R> TapRead<R> {
    /// Records what `inner` yields as going `direction`.
    pub fn new(inner: R, wire: Wire, direction: Direction) -> Self {
        Self {
            inner,
            wire,
            direction,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for TapRead<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            let fresh = &buf.filled()[before..];
            if !fresh.is_empty() {
                self.wire.record(self.direction, fresh);
            }
        }
        poll
    }
}

/// A writer that can be hung up from outside while a driver owns it: [`Hangup::hang_up`]
/// drops the inner writer, so the reader at the other end sees end of file.
#[derive(Debug)]
pub struct HangupWrite<W> {
    inner: Arc<Mutex<Option<W>>>,
}

/// Hangs up a [`HangupWrite`].
#[derive(Debug)]
pub struct Hangup<W> {
    inner: Arc<Mutex<Option<W>>>,
}

impl<W> Clone for Hangup<W> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

/// Wraps `writer` so that it can be hung up.
pub fn hangup_writer<W>(writer: W) -> (HangupWrite<W>, Hangup<W>) {
    let inner = Arc::new(Mutex::new(Some(writer)));
    (
        HangupWrite {
            inner: inner.clone(),
        },
        Hangup { inner },
    )
}

impl<W> Hangup<W> {
    /// Drops the writer: the other end reads end of file, later writes fail.
    pub fn hang_up(&self) {
        let writer = self
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(writer);
    }
}

impl<W: AsyncWrite + Unpin> HangupWrite<W> {
    fn with<T>(&self, f: impl FnOnce(Pin<&mut W>) -> Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        match guard.as_mut() {
            Some(writer) => f(Pin::new(writer)),
            None => Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for HangupWrite<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.with(|w| w.poll_write(cx, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.with(|w| w.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.with(|w| w.poll_shutdown(cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_all(framing: Framing, input: &[u8]) -> Vec<Result<Vec<u8>, String>> {
        // Feed one byte at a time: the splitter must not care where reads end.
        let mut splitter = Splitter::new(framing);
        input.iter().flat_map(|b| splitter.push(&[*b])).collect()
    }

    #[test]
    fn ndjson_lines_split_at_newlines() {
        let out = split_all(Framing::Ndjson, b"{\"a\":1}\n{\"b\":2}\n{\"c\"");
        assert_eq!(
            out,
            vec![Ok(b"{\"a\":1}".to_vec()), Ok(b"{\"b\":2}".to_vec())]
        );
    }

    #[test]
    fn content_length_frames_split_by_length() {
        let out = split_all(
            Framing::ContentLength,
            b"Content-Length: 7\r\n\r\n{\"a\":1}content-length: 2\r\nContent-Type: x\r\n\r\n{}",
        );
        assert_eq!(out, vec![Ok(b"{\"a\":1}".to_vec()), Ok(b"{}".to_vec())]);
    }

    #[test]
    fn wrong_framing_is_a_problem() {
        assert!(split_all(Framing::ContentLength, b"{\"a\":1}\n")[0].is_err());
        assert!(split_all(Framing::Ndjson, b"Content-Length: 2\r\n\r\n{}")[0].is_err());
        assert!(split_all(Framing::Ndjson, b"\n")[0].is_err());
    }

    #[test]
    fn invalid_messages_are_reported_and_valid_ones_kept() {
        let check: Checker = Arc::new(|v: &Value, _: Option<&str>| {
            if v.get("jsonrpc") == Some(&Value::from("2.0")) {
                Ok(())
            } else {
                Err("no jsonrpc".into())
            }
        });
        let wire = Wire::new(Framing::Ndjson, check);
        wire.record(
            Direction::ClientToAgent,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n{}\nnope\n",
        );
        assert_eq!(wire.seen().len(), 2);
        assert_eq!(wire.problems().len(), 2, "{:?}", wire.problems());
    }
}
