//! Support for the acp-rpc integration tests: an in-memory wire whose traffic is checked against
//! the official ACP schema, two real ends over it, a raw end that speaks bytes, and hang guards.
//!
//! Every message a test puts on the wire goes through a [`Wire`]: a pass-through task in the
//! middle of two `tokio::io::duplex` pipes that splits the byte stream into frames (NDJSON lines
//! or Content-Length frames, detected) and validates each one against the official schema.
//! Violations are collected and fail the test in [`Wire::finish`].

// Each test binary uses a different part of this module.
#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_codec::{AutoCodec, Frame, Framing};
use acp_rpc::{Config, Driver, Error, Handler, Peer, connect};
use bytes::BytesMut;
use futures::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::codec::{Decoder, FramedRead};

/// How long any single wait may take before the test is declared hung. Under paused time it
/// elapses as soon as every task is blocked, which is how deadlocks are detected.
pub const HANG_GUARD: Duration = Duration::from_secs(10);

/// The pipe capacity used by default: small, so that backpressure shows up in tests.
pub const PIPE: usize = 16 * 1024;

/// Awaits `fut`, failing the test if it does not finish within [`HANG_GUARD`].
pub async fn guard<F: Future>(what: &str, fut: F) -> F::Output {
    guard_for(HANG_GUARD, what, fut).await
}

/// Awaits `fut`, failing the test if it does not finish within `limit`: for work whose length
/// is CPU time (thousands of messages, each checked against the schema), which a busy machine
/// stretches well past [`HANG_GUARD`].
pub async fn guard_for<F: Future>(limit: Duration, what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(limit, fut).await {
        Ok(output) => output,
        Err(_) => panic!("hang: {what} did not finish within {limit:?}"),
    }
}

/// Validates one message against the official schema; `None` when the specification is absent.
pub fn schema_error(message: &Value) -> Option<String> {
    let spec = acp_testkit::Spec::load_or_skip()?;
    spec.check_message(message).err()
}

/// Asserts that a message is valid against the official schema (when it is available).
pub fn assert_valid(message: &Value) {
    if let Some(error) = schema_error(message) {
        panic!("message rejected by the official schema: {error}\nmessage: {message}");
    }
}

/// What a [`Wire`] saw.
#[derive(Debug, Default)]
pub struct TapLog {
    /// Messages validated, per direction: left to right, right to left.
    pub checked: [AtomicUsize; 2],
    /// Schema violations and framing trouble, one line each.
    pub errors: Mutex<Vec<String>>,
    /// The framing each direction was detected to use.
    pub framing: Mutex<[Option<Framing>; 2]>,
}

/// The middle of an in-memory connection: forwards bytes both ways and validates what passes.
#[derive(Debug)]
pub struct Wire {
    log: Arc<TapLog>,
    cut: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

/// Which directions of a [`Wire`] are validated.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// Validate what the left end writes.
    pub left_to_right: bool,
    /// Validate what the right end writes.
    pub right_to_left: bool,
}

impl Check {
    /// Both directions: for connections where both ends are real.
    pub const BOTH: Self = Self {
        left_to_right: true,
        right_to_left: true,
    };
    /// Only what the right end writes: the left end is a test sending malformed bytes on purpose.
    pub const RIGHT_ONLY: Self = Self {
        left_to_right: false,
        right_to_left: true,
    };
}

impl Wire {
    /// Two ends joined through a validating pass-through; each pipe holds `capacity` bytes.
    pub fn new(capacity: usize, check: Check) -> (DuplexStream, DuplexStream, Wire) {
        let (left, left_inner) = tokio::io::duplex(capacity);
        let (right_inner, right) = tokio::io::duplex(capacity);
        let (left_read, left_write) = tokio::io::split(left_inner);
        let (right_read, right_write) = tokio::io::split(right_inner);
        let log = Arc::new(TapLog::default());
        let (cut, cut_rx) = watch::channel(false);
        let tasks = vec![
            tokio::spawn(forward(
                left_read,
                right_write,
                0,
                check.left_to_right,
                log.clone(),
                cut_rx.clone(),
            )),
            tokio::spawn(forward(
                right_read,
                left_write,
                1,
                check.right_to_left,
                log.clone(),
                cut_rx,
            )),
        ];
        (left, right, Wire { log, cut, tasks })
    }

    /// What was seen so far.
    pub fn log(&self) -> &TapLog {
        &self.log
    }

    /// Cuts the wire: both ends see the end of their input.
    pub fn cut(&self) {
        let _ = self.cut.send(true);
    }

    /// Waits for both directions to end (each ends when its writer closes or the wire is cut)
    /// and fails the test on any schema violation. Returns the messages checked per direction.
    pub async fn finish(self) -> [usize; 2] {
        for task in self.tasks {
            guard("the wire's pass-through", task)
                .await
                .expect("the pass-through task panicked");
        }
        let errors = self.log.errors.lock().unwrap();
        assert!(
            errors.is_empty(),
            "invalid traffic on the wire:\n{}",
            errors.join("\n")
        );
        [
            self.log.checked[0].load(Ordering::SeqCst),
            self.log.checked[1].load(Ordering::SeqCst),
        ]
    }
}

/// Copies bytes from `from` to `to` unchanged, validating every frame when `validate` is set.
async fn forward(
    mut from: ReadHalf<DuplexStream>,
    mut to: WriteHalf<DuplexStream>,
    direction: usize,
    validate: bool,
    log: Arc<TapLog>,
    mut cut: watch::Receiver<bool>,
) {
    let mut codec = AutoCodec::new();
    let mut frames = BytesMut::new();
    let mut chunk = vec![0; 8 * 1024];
    loop {
        let n = tokio::select! {
            // A failed read ends the direction like the end of input.
            read = from.read(&mut chunk) => read.unwrap_or(0),
            _ = cut.wait_for(|cut| *cut) => 0,
        };
        if n == 0 {
            break;
        }
        if validate {
            frames.extend_from_slice(&chunk[..n]);
            check_frames(&mut codec, &mut frames, direction, &log, false);
        }
        let written = tokio::select! {
            written = to.write_all(&chunk[..n]) => written.is_ok(),
            _ = cut.wait_for(|cut| *cut) => false,
        };
        if !written {
            break;
        }
    }
    if validate {
        check_frames(&mut codec, &mut frames, direction, &log, true);
    }
    let _ = to.shutdown().await;
}

fn check_frames(
    codec: &mut AutoCodec,
    buf: &mut BytesMut,
    direction: usize,
    log: &TapLog,
    eof: bool,
) {
    loop {
        let next = if eof {
            codec.decode_eof(buf)
        } else {
            codec.decode(buf)
        };
        let frame = match next {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(e) => {
                log.errors
                    .lock()
                    .unwrap()
                    .push(format!("direction {direction}: unreadable framing: {e}"));
                buf.clear();
                break;
            }
        };
        log.framing.lock().unwrap()[direction] = codec.framing();
        let body = match frame {
            Frame::Message(body) => body,
            other => {
                log.errors
                    .lock()
                    .unwrap()
                    .push(format!("direction {direction}: unexpected {other:?}"));
                continue;
            }
        };
        match serde_json::from_slice::<Value>(&body) {
            Ok(message) => {
                if let Some(error) = schema_error(&message) {
                    log.errors.lock().unwrap().push(format!(
                        "direction {direction}: {error}\n  message: {message}"
                    ));
                }
            }
            Err(e) => log.errors.lock().unwrap().push(format!(
                "direction {direction}: not JSON ({e}): {}",
                String::from_utf8_lossy(&body)
            )),
        }
        log.checked[direction].fetch_add(1, Ordering::SeqCst);
    }
}

/// One real end of a connection: the handle to the other side and the spawned driver.
#[derive(Debug)]
pub struct End {
    /// The handle for calling the other side.
    pub peer: Peer,
    /// The spawned driver.
    pub driver: JoinHandle<Result<(), Error>>,
}

impl End {
    /// Connects over `io` and spawns the driver.
    pub fn spawn<H: Handler>(
        make_handler: impl FnOnce(Peer) -> H,
        io: DuplexStream,
        config: Config,
    ) -> Self {
        let (read, write) = tokio::io::split(io);
        let (peer, driver): (Peer, Driver) = connect(make_handler, read, write, config);
        Self {
            peer,
            driver: tokio::spawn(driver),
        }
    }

    /// Waits for the driver to end and returns how it ended.
    pub async fn join(self) -> Result<(), Error> {
        guard("a driver", self.driver)
            .await
            .expect("the driver task panicked")
    }
}

/// Two real ends over a validated [`Wire`]: the agent on the right, the client on the left.
#[derive(Debug)]
pub struct Loopback {
    /// The client's end: `client.peer` calls the agent.
    pub client: End,
    /// The agent's end: `agent.peer` calls the client.
    pub agent: End,
    /// The wire between them.
    pub wire: Wire,
}

impl Loopback {
    /// Connects a client and an agent, both with `Config::default()`.
    pub fn new<A: Handler, C: Handler>(
        agent: impl FnOnce(Peer) -> A,
        client: impl FnOnce(Peer) -> C,
    ) -> Self {
        Self::with_configs(agent, Config::default(), client, Config::default())
    }

    /// Connects a client and an agent with their own configurations.
    pub fn with_configs<A: Handler, C: Handler>(
        agent: impl FnOnce(Peer) -> A,
        agent_config: Config,
        client: impl FnOnce(Peer) -> C,
        client_config: Config,
    ) -> Self {
        let (client_io, agent_io, wire) = Wire::new(PIPE, Check::BOTH);
        Self {
            agent: End::spawn(agent, agent_io, agent_config),
            client: End::spawn(client, client_io, client_config),
            wire,
        }
    }

    /// The handle the client uses to call the agent.
    pub fn to_agent(&self) -> Peer {
        self.client.peer.clone()
    }

    /// The handle the agent uses to call the client.
    pub fn to_client(&self) -> Peer {
        self.agent.peer.clone()
    }

    /// Closes the connection, checks that both drivers end cleanly, and returns the number of
    /// messages validated per direction (client to agent, agent to client).
    pub async fn shutdown(self) -> [usize; 2] {
        self.wire.cut();
        self.client
            .join()
            .await
            .expect("the client's driver failed");
        self.agent.join().await.expect("the agent's driver failed");
        self.wire.finish().await
    }
}

/// The test's own end of a connection: it writes bytes and reads replies, frame by frame.
#[derive(Debug)]
pub struct RawEnd {
    reader: FramedRead<ReadHalf<DuplexStream>, AutoCodec>,
    writer: WriteHalf<DuplexStream>,
}

impl RawEnd {
    /// A raw end over `io`.
    pub fn new(io: DuplexStream) -> Self {
        let (read, write) = tokio::io::split(io);
        Self {
            reader: FramedRead::new(read, AutoCodec::new()),
            writer: write,
        }
    }

    /// Writes bytes as they are (malformed input on purpose; not validated).
    pub async fn send_raw(&mut self, bytes: impl AsRef<[u8]>) {
        guard("writing raw bytes", self.writer.write_all(bytes.as_ref()))
            .await
            .expect("writing to the pipe");
    }

    /// Validates a message and writes it as one NDJSON line.
    pub async fn send(&mut self, message: Value) {
        assert_valid(&message);
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        self.send_raw(line).await;
    }

    /// Validates a message and writes it as one Content-Length frame.
    pub async fn send_content_length(&mut self, message: Value) {
        assert_valid(&message);
        let body = serde_json::to_vec(&message).unwrap();
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(&body);
        self.send_raw(frame).await;
    }

    /// Reads the next message (already validated by the wire).
    pub async fn recv(&mut self) -> Value {
        let frame = guard("reading a message", self.reader.next())
            .await
            .expect("the connection ended while a message was expected")
            .expect("the driver wrote unreadable framing");
        let Frame::Message(body) = frame else {
            panic!("unexpected frame {frame:?}");
        };
        serde_json::from_slice(&body).expect("the driver wrote a message that is not JSON")
    }

    /// Reads the next message, or `None` at the end of the stream.
    pub async fn recv_or_eof(&mut self) -> Option<Value> {
        match guard("reading a message", self.reader.next()).await? {
            Ok(Frame::Message(body)) => Some(serde_json::from_slice(&body).unwrap()),
            other => panic!("unexpected {other:?}"),
        }
    }

    /// The framing the driver's output was detected to use.
    pub fn framing(&self) -> Option<Framing> {
        self.reader.decoder().framing()
    }

    /// Closes the test's output, so the driver sees the end of its input, and reads the rest of
    /// the driver's output until it closes too. Returns what was still unread.
    pub async fn close(mut self) -> Vec<Value> {
        guard("closing the raw end", self.writer.shutdown())
            .await
            .expect("shutting down the pipe");
        let mut rest = Vec::new();
        while let Some(message) = self.recv_or_eof().await {
            rest.push(message);
        }
        rest
    }

    /// Splits into the reading and the writing half, for tests that do both at once.
    pub fn into_parts(
        self,
    ) -> (
        FramedRead<ReadHalf<DuplexStream>, AutoCodec>,
        WriteHalf<DuplexStream>,
    ) {
        (self.reader, self.writer)
    }
}

/// A real end (right) driven by a raw end (left) written by the test, with the real end's
/// output validated.
#[derive(Debug)]
pub struct RawWire {
    /// The test's raw end.
    pub raw: RawEnd,
    /// The real end.
    pub end: End,
    /// The wire between them.
    pub wire: Wire,
}

impl RawWire {
    /// Connects a real end with `config` to a raw end.
    pub fn new<H: Handler>(make_handler: impl FnOnce(Peer) -> H, config: Config) -> Self {
        Self::with_capacity(make_handler, config, PIPE)
    }

    /// As [`new`](Self::new), with pipes of `capacity` bytes.
    pub fn with_capacity<H: Handler>(
        make_handler: impl FnOnce(Peer) -> H,
        config: Config,
        capacity: usize,
    ) -> Self {
        let (raw_io, end_io, wire) = Wire::new(capacity, Check::RIGHT_ONLY);
        Self {
            raw: RawEnd::new(raw_io),
            end: End::spawn(make_handler, end_io, config),
            wire,
        }
    }

    /// Closes the raw end, checks the real end's driver ends cleanly with nothing left unread,
    /// and returns the number of messages the real end wrote.
    pub async fn shutdown(self) -> usize {
        let rest = self.raw.close().await;
        assert!(rest.is_empty(), "unread messages at shutdown: {rest:?}");
        self.end.join().await.expect("the driver failed");
        self.wire.finish().await[1]
    }
}

/// A JSON-RPC request as a value.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

/// A JSON-RPC notification as a value.
pub fn notification(method: &str, params: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A successful JSON-RPC response as a value.
pub fn response(id: impl Into<Value>, result: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id.into(), "result": result})
}

/// The `initialize` request used as a ping: every test handler answers it.
pub fn ping(id: impl Into<Value>) -> Value {
    request(id, "initialize", serde_json::json!({"protocolVersion": 1}))
}

/// The error code of an error response, or `None` for anything else.
pub fn error_code(message: &Value) -> Option<i64> {
    message["error"]["code"].as_i64()
}

/// A `session/update` notification carrying the text `text` for session `session`.
pub fn chunk(session: &str, text: impl Into<String>) -> acp_types::SessionNotification {
    acp_types::SessionNotification::new(
        session,
        acp_types::SessionUpdate::AgentMessageChunk(acp_types::ContentChunk::new(text.into())),
    )
}

/// The text of an `agent_message_chunk` notification's params.
pub fn chunk_text(update: &acp_types::SessionNotification) -> String {
    match &update.update {
        acp_types::SessionUpdate::AgentMessageChunk(chunk) => match &chunk.content {
            acp_types::ContentBlock::Text(text) => text.text.clone(),
            other => panic!("not a text chunk: {other:?}"),
        },
        other => panic!("not a message chunk: {other:?}"),
    }
}

/// A cheap deterministic generator, for handlers that yield a varying number of times.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next number below `bound`.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// Yields to the scheduler `times` times.
pub async fn yield_times(times: u64) {
    for _ in 0..times {
        tokio::task::yield_now().await;
    }
}
