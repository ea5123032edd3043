//! A bridge for stdio agents: every remote connection gets a child process of its own, and
//! the messages are relayed between the connection and the child's stdio as they are, without
//! being decoded into types, so that any existing stdio agent becomes a remote one.
//!
//! The child runs in a process group of its own ([`acp_process::ProcessGroup`]). When the
//! connection ends (DELETE, the WebSocket closing, a stall, an idle timeout, the server
//! shutting down) the child is stopped the way `acp_client` stops a spawned agent, in the
//! background: its stdin is closed, it has [`BridgeOptions::exit_timeout`] to exit, then its process
//! group gets `SIGTERM`, and `SIGKILL` after as long again; whatever is left of the group once
//! the child ended is killed. So an agent that saves its sessions on exit can, and a wrapper
//! (`acp tap -- agent`) can stop its own child. Messages the client sent that the child had
//! not read yet when the connection ended are dropped. At server shutdown [`serve`] waits for
//! the children to be stopped (at most twice the exit timeout and a few seconds) before it returns;
//! a child still running after that, or when the runtime is dropped first, is killed with its
//! group. When the child exits, the connection ends. Its stderr goes to `tracing` (or where
//! [`BridgeOptions::stderr`] says), bounded per line and drained to the end.
//!
//! Only JSON-RPC goes to the client: a line of the child's output that is not a JSON object
//! with `"jsonrpc": "2.0"` (a banner, a log line, a stray `print`) is dropped. The first few are
//! logged at `warn` with their start, then a count every [`GARBAGE_REPORT_EVERY`]. A child
//! that writes [`MAX_GARBAGE_IN_A_ROW`] such lines without a single message in between is not
//! speaking ACP: its connection ends, and it is stopped.
//!
//! [`serve`]: crate::server::serve

use std::borrow::Cow;
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use acp_codec::{AnyCodec, Frame, FramingMode};
use acp_process::{ProcessGroup, Stderr, Stopped, forward_stderr};
use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, watch};
use tokio_util::codec::{FramedRead, FramedWrite};
use tokio_util::sync::CancellationToken;

use crate::server::conn::{AgentTask, CHANNEL_MESSAGES, FromAgent, Inbound, Link};
use crate::server::link::{Backend, Waiting};
use crate::server::{AcpServer, Peer, ServerOptions};

/// How many lines of a program's output that are not JSON-RPC are logged one by one (with
/// their start) before they are only counted.
const GARBAGE_LOGGED: u64 = 5;

/// How often the count of dropped lines of a program's output is logged, once
/// [`GARBAGE_LOGGED`] were.
const GARBAGE_REPORT_EVERY: Duration = Duration::from_secs(10);

/// How many lines that are not JSON-RPC a program may write in a row, without a message in
/// between, before its connection ends: a program that writes that many is not an ACP agent
/// (or is broken), and relaying nothing from it forever helps nobody.
const MAX_GARBAGE_IN_A_ROW: u64 = 10_000;

/// How many bytes of a dropped line are logged.
const GARBAGE_PREFIX_BYTES: usize = 80;

/// How long a killed program may take to be reaped before its task gives up on it.
const KILL_WAIT: Duration = Duration::from_secs(3);

/// How a bridged agent program is run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BridgeOptions {
    /// How the program frames messages on its stdio: NDJSON, as the ACP specification says,
    /// unless told otherwise.
    pub framing: FramingMode,
    /// The largest message relayed, either way, in bytes (a larger one is skipped and
    /// logged). `acp_codec::DEFAULT_MAX_FRAME_LEN`, 32 MiB, by default.
    pub max_message_bytes: usize,
    /// What happens to the program's stderr.
    pub stderr: Stderr,
    /// How long the program has to exit once its connection ended and its stdin closed,
    /// before its process group is terminated (and killed after as long again).
    pub exit_timeout: Duration,
    /// The most programs running at once, counting those still stopping: a new connection
    /// beyond it is refused (`503` with `Retry-After`), so that clients cannot start programs
    /// until memory or descriptors run out. 64 by default; each client's share is bounded by
    /// [`ServerOptions::max_connections_per_client`].
    pub max_programs: usize,
}

impl Default for BridgeOptions {
    fn default() -> Self {
        Self {
            framing: FramingMode::Ndjson,
            max_message_bytes: acp_codec::DEFAULT_MAX_FRAME_LEN,
            stderr: Stderr::Tracing,
            exit_timeout: Duration::from_secs(2),
            max_programs: 64,
        }
    }
}

impl BridgeOptions {
    /// Sets the program's framing.
    #[must_use]
    pub fn framing(mut self, framing: FramingMode) -> Self {
        self.framing = framing;
        self
    }

    /// Sets what happens to the program's stderr.
    #[must_use]
    pub fn stderr(mut self, stderr: Stderr) -> Self {
        self.stderr = stderr;
        self
    }

    /// Sets the largest message relayed, either way (a larger one is skipped and logged).
    #[must_use]
    pub fn max_message_bytes(mut self, max: usize) -> Self {
        self.max_message_bytes = max;
        self
    }

    /// Sets the most programs running at once (see [`max_programs`](Self::max_programs)).
    #[must_use]
    pub fn max_programs(mut self, max: usize) -> Self {
        self.max_programs = max.max(1);
        self
    }

    /// Sets how long the program has to exit once its stdin closed, and again after
    /// `SIGTERM`, before it is killed (see [`exit_timeout`](Self::exit_timeout)).
    #[must_use]
    pub fn exit_timeout(mut self, timeout: Duration) -> Self {
        self.exit_timeout = timeout;
        self
    }
}

type MakeCommand = dyn Fn() -> Command + Send + Sync;

/// Agent programs, one child per connection.
struct Programs {
    command: Arc<MakeCommand>,
    options: BridgeOptions,
    /// Cancelled when the server shuts down: the parent of every program's stop token.
    stopping: CancellationToken,
    /// How many programs' tasks run (until their program is stopped).
    running: Arc<watch::Sender<usize>>,
}

/// One running program's task, counted in [`Programs::running`] until it is dropped.
struct Running(Arc<watch::Sender<usize>>);

impl Running {
    fn enter(running: &Arc<watch::Sender<usize>>) -> Self {
        running.send_modify(|n| *n += 1);
        Self(running.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl AcpServer {
    /// A server that runs the agent *program* made by `command` for each connection and
    /// relays its stdio, so that any stdio agent (`codex-acp`, `claude-code-acp`, ...) can be
    /// reached over HTTP and WebSocket.
    ///
    /// ```no_run
    /// # #[allow(dead_code)]
    /// # async fn f() -> std::io::Result<()> {
    /// use acp_http::server::{AcpServer, BridgeOptions, ServerOptions, serve};
    ///
    /// let server = AcpServer::bridge(
    ///     || tokio::process::Command::new("my-stdio-agent"),
    ///     ServerOptions::default(),
    ///     BridgeOptions::default(),
    /// );
    /// let listener = acp_http::server::bind("127.0.0.1:8123").await?;
    /// serve(listener, server, async { let _ = tokio::signal::ctrl_c().await; }).await
    /// # }
    /// ```
    ///
    /// The protocol rules of [`ServerOptions::agent`] do not apply: the program enforces its
    /// own.
    ///
    /// Each program runs in a process group of its own. When its connection ends (DELETE, the
    /// WebSocket closing, a stall, an idle timeout, [`shutdown`](Self::shutdown)) it is
    /// stopped in the background as `acp_client` stops a spawned agent: its stdin is closed, it
    /// has [`BridgeOptions::exit_timeout`] to exit, then its group gets `SIGTERM`, then
    /// `SIGKILL` after as long again; whatever is left of the group is killed. Messages it had not read yet
    /// are dropped. [`serve`](crate::server::serve) waits for the programs to be stopped (at
    /// most twice the exit timeout and a few seconds) before it returns; a program still running when
    /// the runtime is dropped is killed with its group. When a program exits, its connection
    /// ends.
    ///
    /// Only JSON-RPC reaches the client: a line of the program's output that is not a JSON
    /// object with `"jsonrpc": "2.0"` (a banner, a log line) is dropped and logged (the first
    /// 5 with their start, then a count every 10 s). A program that writes 10,000 such lines in
    /// a row, without a message in between, is not speaking ACP: its connection ends.
    pub fn bridge(
        command: impl Fn() -> Command + Send + Sync + 'static,
        options: ServerOptions,
        bridge: BridgeOptions,
    ) -> Self {
        let programs = Programs {
            command: Arc::new(command),
            options: bridge,
            stopping: CancellationToken::new(),
            running: Arc::new(watch::Sender::new(0)),
        };
        Self::with_backend(Box::new(programs), options)
    }
}

impl Backend for Programs {
    fn open(&self, _peer: &Peer) -> io::Result<Link> {
        // Connections are opened one at a time (under the server's lock): no race here.
        let running = *self.running.borrow();
        if running >= self.options.max_programs {
            tracing::warn!(
                running,
                "refusing a connection: the most bridged agent programs are running"
            );
            return Err(io::Error::new(
                io::ErrorKind::ResourceBusy,
                "the most bridged agent programs are running",
            ));
        }
        let mut command = (self.command)();
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(self.options.stderr.stdio());
        let mut group = ProcessGroup::spawn(&mut command)?;
        let child = group.child();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other(
                "the agent program's stdio could not be piped",
            ));
        };
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(forward_stderr(stderr, self.options.stderr.clone()));
        }
        tracing::debug!(pid = ?group.id(), "started a bridged agent program");
        let (to_agent, to_agent_rx) = mpsc::channel::<Inbound>(CHANNEL_MESSAGES);
        let (from_agent_tx, from_agent) = mpsc::channel::<Bytes>(CHANNEL_MESSAGES);
        let codec = || AnyCodec::with_max_len(self.options.framing, self.options.max_message_bytes);
        let stop = self.stopping.child_token();
        let program = Program {
            group,
            writer: FramedWrite::new(stdin, codec()),
            reader: FramedRead::new(stdout, codec()),
            grace: self.options.exit_timeout,
            stop: stop.clone(),
            _running: Running::enter(&self.running),
        };
        let task = tokio::spawn(program.run(to_agent_rx, from_agent_tx));
        Ok(Link {
            to_agent,
            from_agent: FromAgent::Channel(from_agent),
            task: AgentTask::program(task, stop),
            // A program's own output: any layout.
            ours: false,
        })
    }

    fn shutdown(&self) {
        self.stopping.cancel();
    }

    fn stopped(&self) -> Waiting<'_> {
        Box::pin(async move {
            if !self.stopping.is_cancelled() {
                return;
            }
            // Each program: a grace with its stdin closed, a grace after SIGTERM, then SIGKILL.
            let bound = self
                .options
                .exit_timeout
                .saturating_mul(2)
                .saturating_add(KILL_WAIT);
            let mut running = self.running.subscribe();
            if tokio::time::timeout(bound, running.wait_for(|n| *n == 0))
                .await
                .is_err()
            {
                tracing::warn!(
                    running = *self.running.borrow(),
                    ?bound,
                    "bridged agent programs still stopping after the server shut down; \
                     they are killed if the runtime ends first"
                );
            }
        })
    }
}

/// One bridged program and its stdio, run by its connection's task.
struct Program {
    group: ProcessGroup,
    writer: FramedWrite<ChildStdin, AnyCodec>,
    reader: FramedRead<ChildStdout, AnyCodec>,
    grace: Duration,
    /// Cancelled when the connection ended (or the server shuts down).
    stop: CancellationToken,
    _running: Running,
}

impl Program {
    /// Relays messages both ways until the connection ends, the program's output ends or its
    /// input can no longer be written; then stops the program, still relaying (or, once the
    /// connection is gone, draining) its output meanwhile so that it is not blocked writing.
    async fn run(self, to_agent: mpsc::Receiver<Inbound>, from_agent: mpsc::Sender<Bytes>) {
        let Self {
            mut group,
            writer,
            reader,
            grace,
            stop,
            _running,
        } = self;
        let mut to_program = Box::pin(relay_input(writer, to_agent));
        let mut from_program = Box::pin(relay_output(reader, from_agent));
        let mut output_ended = false;
        tokio::select! {
            () = stop.cancelled() => {}
            () = &mut from_program => output_ended = true,
            () = &mut to_program => {}
        }
        // The program sees the end of its input.
        drop(to_program);
        let group_id = group.group_id();
        let stopping = stop_program(&mut group, grace);
        tokio::pin!(stopping);
        let stopped = loop {
            tokio::select! {
                biased;
                stopped = &mut stopping => break stopped,
                () = &mut from_program, if !output_ended => output_ended = true,
            }
        };
        match stopped {
            Ok(Ok(stopped)) => tracing::debug!(%stopped, "a bridged agent program ended"),
            Ok(Err(error)) => tracing::warn!(%error, "could not stop a bridged agent program"),
            Err(_) => tracing::warn!(
                group = group_id,
                "a bridged agent program was killed but not reaped in time"
            ),
        }
    }
}

/// Stops a program whose stdin was closed, as `acp_client` stops a spawned agent
/// ([`ProcessGroup::wait_or_stop`]): `grace` to exit by itself, then `SIGTERM` to its group and
/// `grace` more, then `SIGKILL`; what is left of its group once it ended is killed. `Err` when
/// even the kill did not end it in time.
async fn stop_program(
    group: &mut ProcessGroup,
    grace: Duration,
) -> Result<io::Result<Stopped>, tokio::time::error::Elapsed> {
    let bound = grace.saturating_mul(2).saturating_add(KILL_WAIT);
    tokio::time::timeout(bound, group.wait_or_stop(grace)).await
}

/// Writes the client's messages to the program until the connection drops its sender or the
/// program stops reading; then closes the program's stdin.
async fn relay_input(
    mut writer: FramedWrite<ChildStdin, AnyCodec>,
    mut messages: mpsc::Receiver<Inbound>,
) {
    // Each message's share of the server's body budget goes back once it is written.
    while let Some(inbound) = messages.recv().await {
        if let Err(error) = writer.send(inbound.message).await {
            tracing::debug!(%error, "the bridged agent program stopped reading");
            return;
        }
    }
    let _ = SinkExt::<Bytes>::close(&mut writer).await;
}

/// Hands the program's JSON-RPC messages to the connection until its output ends (or it wrote
/// nothing but garbage for too long); once the connection is gone, reads on and discards.
async fn relay_output(
    mut reader: FramedRead<ChildStdout, AnyCodec>,
    messages: mpsc::Sender<Bytes>,
) {
    let mut dropped = Dropped::default();
    let mut connected = true;
    while let Some(frame) = reader.next().await {
        match frame {
            Ok(Frame::Message(message)) => {
                if !is_json_rpc(&message) {
                    if dropped.record("it is not a JSON-RPC message", &message) {
                        tracing::warn!(
                            lines = MAX_GARBAGE_IN_A_ROW,
                            "the bridged agent program writes nothing but lines that are not \
                             JSON-RPC messages: ending its connection"
                        );
                        break;
                    }
                    continue;
                }
                dropped.in_a_row = 0;
                if connected && messages.send(message).await.is_err() {
                    connected = false;
                }
            }
            Ok(Frame::Oversized { limit }) => {
                let reason = format!("it is over the limit of {limit} bytes");
                if dropped.record(&reason, b"") {
                    break;
                }
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, "the bridged agent program's output cannot be read");
                break;
            }
        }
    }
    dropped.report();
}

/// Whether `frame` is a JSON-RPC message: UTF-8 JSON text holding one object whose `jsonrpc`
/// member is `"2.0"`. One pass over the text, with nothing allocated for a well-formed one.
fn is_json_rpc(frame: &[u8]) -> bool {
    /// The envelope's version; every other member is skipped (and checked to be JSON).
    #[derive(Deserialize)]
    struct Version<'a> {
        #[serde(borrow)]
        jsonrpc: Cow<'a, str>,
    }

    // serde reads a struct from a JSON array too: only an object is a message.
    let object = frame
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        == Some(&b'{');
    object
        && std::str::from_utf8(frame)
            .ok()
            .and_then(|text| serde_json::from_str::<Version<'_>>(text).ok())
            .is_some_and(|v| v.jsonrpc == "2.0")
}

/// The lines of a program's output that were dropped, logged within bounds: the first
/// [`GARBAGE_LOGGED`] one by one with their start, then a count at most every
/// [`GARBAGE_REPORT_EVERY`], and a last count when the output ends.
#[derive(Debug, Default)]
struct Dropped {
    total: u64,
    /// Dropped since the last count was logged.
    unreported: u64,
    last_report: Option<Instant>,
    /// Dropped since the last message relayed.
    in_a_row: u64,
    /// Log lines written about them.
    logged: u64,
}

impl Dropped {
    /// Counts one dropped line (logging it if still among the first); true when the program
    /// has written [`MAX_GARBAGE_IN_A_ROW`] of them in a row.
    fn record(&mut self, reason: &str, line: &[u8]) -> bool {
        self.total += 1;
        self.in_a_row += 1;
        if self.total <= GARBAGE_LOGGED {
            self.logged += 1;
            let start = String::from_utf8_lossy(&line[..line.len().min(GARBAGE_PREFIX_BYTES)]);
            tracing::warn!(
                reason,
                len = line.len(),
                start = %start.escape_debug(),
                "the bridged agent program wrote a line that is not relayed: dropped"
            );
            if self.total == GARBAGE_LOGGED {
                self.logged += 1;
                tracing::warn!(
                    every = ?GARBAGE_REPORT_EVERY,
                    "further dropped lines of the bridged agent program are only counted"
                );
                self.last_report = Some(Instant::now());
            }
        } else {
            self.unreported += 1;
            let now = Instant::now();
            if self
                .last_report
                .is_none_or(|last| now.duration_since(last) >= GARBAGE_REPORT_EVERY)
            {
                self.report();
                self.last_report = Some(now);
            }
        }
        self.in_a_row >= MAX_GARBAGE_IN_A_ROW
    }

    /// Logs the count not yet logged, if any.
    fn report(&mut self) {
        if self.unreported > 0 {
            self.logged += 1;
            tracing::warn!(
                dropped = self.unreported,
                total = self.total,
                "the bridged agent program wrote lines that are not JSON-RPC messages: dropped"
            );
            self.unreported = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_rpc_lines_are_objects_with_version_2_0() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":1,"result":{}}"#[..],
            br#"  {"method":"x","jsonrpc":"2.0"} "#,
            br#"{"jsonrpc":"2\u002e0","method":"x"}"#,
        ] {
            assert!(is_json_rpc(line), "{}", String::from_utf8_lossy(line));
        }
        for line in [
            &b""[..],
            b"Starting...",
            br#"{"id":1}"#,
            br#"["jsonrpc","2.0"]"#,
            br#"{"jsonrpc":"1.0","id":1}"#,
            br#"{"jsonrpc":2.0,"id":1}"#,
            br#"{"jsonrpc":"2.0","id":1"#,
            br#"{"jsonrpc":"2.0"} {"#,
            br#"{"jsonrpc":"2.0","jsonrpc":"2.0"}"#,
            b"{\"jsonrpc\":\"2.0\",\"x\":\"\xff\"}",
        ] {
            assert!(!is_json_rpc(line), "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn a_burst_of_garbage_is_logged_a_few_times_not_once_a_line() {
        let mut dropped = Dropped::default();
        let mut ended_at = None;
        for n in 1..=2 * MAX_GARBAGE_IN_A_ROW {
            if dropped.record("not JSON-RPC", b"garbage") && ended_at.is_none() {
                ended_at = Some(n);
            }
        }
        dropped.report();
        // The first few, the notice that the rest are counted, the final count (the burst
        // took less than the report interval).
        assert_eq!(dropped.logged, GARBAGE_LOGGED + 2);
        assert_eq!(ended_at, Some(MAX_GARBAGE_IN_A_ROW));
    }
}
