//! Terminals for the agent (`terminal/*`), run by the client as real processes: a ready-made
//! implementation of the five terminal methods of [`Client`](crate::Client).
//! [`Local`](crate::Local) serves them (and the files) for you; to do it by hand:
//!
//! ```no_run
//! use acp_client::{Client, Terminals};
//! use acp_types::*;
//!
//! # #[allow(dead_code)]
//! struct Editor {
//!     root: std::path::PathBuf,
//!     terminals: Terminals,
//! }
//!
//! #[acp_client::async_trait]
//! impl Client for Editor {
//!     # async fn request_permission(&self, _: RequestPermissionRequest) -> Result<RequestPermissionResponse> {
//!     #     Ok(RequestPermissionResponse::new(RequestPermissionOutcome::cancelled()))
//!     # }
//!     # async fn session_notification(&self, _: SessionNotification) -> Result<()> { Ok(()) }
//!     async fn create_terminal(&self, r: CreateTerminalRequest) -> Result<CreateTerminalResponse> {
//!         // Where commands may run is the client's policy: here, its root only.
//!         self.terminals.create(&r, &self.root)
//!     }
//!     async fn terminal_output(&self, r: TerminalOutputRequest) -> Result<TerminalOutputResponse> {
//!         self.terminals.output(&r)
//!     }
//!     async fn wait_for_terminal_exit(
//!         &self,
//!         r: WaitForTerminalExitRequest,
//!     ) -> Result<WaitForTerminalExitResponse> {
//!         self.terminals.wait_for_exit(&r).await
//!     }
//!     async fn kill_terminal(&self, r: KillTerminalRequest) -> Result<KillTerminalResponse> {
//!         self.terminals.kill(&r)
//!     }
//!     async fn release_terminal(&self, r: ReleaseTerminalRequest) -> Result<ReleaseTerminalResponse> {
//!         self.terminals.release(&r)
//!     }
//! }
//! ```
//!
//! Each command runs in a process group of its own ([`ProcessGroup`]): killing a terminal
//! kills whatever the command started too, and so does releasing it or stopping the client
//! ([`Terminals::shutdown`]), even for helpers still running after the command exited. Its
//! output (stdout and stderr, as they come) is kept within the request's `outputByteLimit`,
//! dropping the oldest bytes at a character boundary, and read while the command runs.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use acp_types::*;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{Notify, watch};

use crate::{ProcessGroup, lock};

/// How long to wait for the pipes to drain once the process exited (a grandchild may hold
/// them open).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

/// A delay that does not end in practice: a terminal's lifetime without a limit (a year).
const UNBOUNDED: Duration = Duration::from_secs(365 * 24 * 3600);

/// How long a command gets to exit after SIGTERM when the client stops, before SIGKILL
/// ([`Terminals::shutdown`]).
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// How many released terminals keep their last output for [`Terminals::display_output`];
/// past it, the oldest are forgotten.
pub const MAX_RELEASED_KEPT: usize = 64;

/// The most output a terminal keeps by default: 1 MiB, whatever larger `outputByteLimit` the
/// agent asks for (or none): an agent running `yes` must not fill the client's memory. See
/// [`Terminals::with_limits`].
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// The most terminals alive at once by default (released ones do not count); further
/// `terminal/create` requests are refused until some are released. See
/// [`Terminals::with_limits`].
pub const DEFAULT_MAX_TERMINALS: usize = 64;

/// How a command ended, as the protocol says it.
fn exit_status(status: &ExitStatus) -> TerminalExitStatus {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(status).map(signal_name);
    #[cfg(not(unix))]
    let signal = None;
    TerminalExitStatus::new()
        .maybe(
            status.code().and_then(|c| u32::try_from(c).ok()),
            TerminalExitStatus::exit_code,
        )
        .maybe(signal, TerminalExitStatus::signal)
}

/// The name of signal `number` (`SIGKILL`...; `SIG<n>` for the less common ones), as
/// terminals report it.
#[cfg(unix)]
pub fn signal_name(number: i32) -> String {
    let name = match number {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        n => return format!("SIG{n}"),
    };
    name.to_owned()
}

/// A terminal's output, truncated from the front to stay within its byte limit.
#[derive(Debug)]
struct Output {
    bytes: Vec<u8>,
    limit: usize,
    truncated: bool,
}

impl Output {
    fn new(limit: usize) -> Self {
        Self {
            bytes: Vec::new(),
            limit,
            truncated: false,
        }
    }

    fn push(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        let limit = self.limit;
        if self.bytes.len() > limit {
            // Drop from the front, then up to the next character boundary, as the spec asks:
            // the output stays valid text even if slightly under the limit.
            let mut cut = self.bytes.len() - limit;
            while cut < self.bytes.len() && (self.bytes[cut] & 0xC0) == 0x80 {
                cut += 1;
            }
            self.bytes.drain(..cut);
            self.truncated = true;
        }
    }

    /// The text so far, without a character still being received at the end.
    fn text(&self) -> String {
        match std::str::from_utf8(&self.bytes) {
            Ok(text) => text.to_owned(),
            Err(e) if e.error_len().is_none() => {
                String::from_utf8_lossy(&self.bytes[..e.valid_up_to()]).into_owned()
            }
            Err(_) => String::from_utf8_lossy(&self.bytes).into_owned(),
        }
    }
}

struct Term {
    /// The session that created it: only its requests reach it.
    session_id: SessionId,
    /// The command, for logs.
    command: String,
    output: Mutex<Output>,
    exit: watch::Receiver<Option<TerminalExitStatus>>,
    /// Kills the command's process group at once.
    kill: Notify,
    /// Stops the command's process group gracefully (SIGTERM, a grace period, SIGKILL).
    stop: Notify,
    /// The process group once its leader exited: helpers it left running are killed when the
    /// terminal is released (this is dropped) or the client stops.
    leftovers: Mutex<Option<ProcessGroup>>,
}

impl Term {
    fn output(&self) -> MutexGuard<'_, Output> {
        lock(&self.output)
    }
}

/// The terminals of one client (see the [module](self) docs). Unknown or released
/// terminals, and terminals of another session, are answered with
/// [`ErrorObject::terminal_not_found`] (`-32002`). Bounded: each keeps at most
/// [`DEFAULT_MAX_OUTPUT_BYTES`] of output and at most [`DEFAULT_MAX_TERMINALS`] are alive at
/// once, unless set otherwise with [`with_limits`](Self::with_limits). Dropped, it kills
/// the commands still running.
pub struct Terminals {
    max_output_bytes: usize,
    max_terminals: usize,
    /// How long a command may run before it is killed; `None`: as long as it likes.
    max_lifetime: Option<Duration>,
    next_id: AtomicU64,
    live: Mutex<HashMap<TerminalId, Arc<Term>>>,
    /// The last output of the newest released terminals, for display (the spec: clients keep
    /// showing a released terminal embedded in a tool call).
    released: Mutex<VecDeque<(TerminalId, String)>>,
}

impl std::fmt::Debug for Terminals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminals").finish_non_exhaustive()
    }
}

/// Dropping the terminals kills their commands, as [`Terminals::kill_all`] does.
impl Drop for Terminals {
    fn drop(&mut self) {
        self.kill_all();
    }
}

impl Default for Terminals {
    fn default() -> Self {
        Self::with_limits(DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_TERMINALS)
    }
}

impl Terminals {
    /// No terminals yet, with the default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// No terminals yet: each keeps at most `max_output_bytes` of output (less when the
    /// agent's `outputByteLimit` asks for less; the oldest bytes go first), and at most
    /// `max_terminals` are alive at once.
    pub fn with_limits(max_output_bytes: usize, max_terminals: usize) -> Self {
        Self {
            max_output_bytes,
            max_terminals,
            max_lifetime: None,
            next_id: AtomicU64::new(0),
            live: Mutex::default(),
            released: Mutex::default(),
        }
    }

    /// Kills each command (with its process group) once it has run for `limit`, as
    /// `terminal/kill` would: its terminal stays, with its output, and its exit reports
    /// `SIGKILL`. A guard against commands that never end (a server, a prompt waiting for
    /// input); by default there is none.
    #[must_use]
    pub fn max_lifetime(mut self, limit: Duration) -> Self {
        self.max_lifetime = Some(limit);
        self
    }

    /// Starts `request`'s command in `cwd` (`terminal/create`). The request's own `cwd` is
    /// not used: which directories commands may run in is the client's policy, so resolve
    /// and check it first.
    ///
    /// # Errors
    ///
    /// `-32603` when the command cannot be started, or when the most terminals allowed are
    /// alive.
    pub fn create(
        &self,
        request: &CreateTerminalRequest,
        cwd: &Path,
    ) -> Result<CreateTerminalResponse, ErrorObject> {
        // Held until the terminal is in the table: concurrent creates cannot pass the count
        // together (nothing here awaits).
        let mut live = lock(&self.live);
        if live.len() >= self.max_terminals {
            return Err(ErrorObject::internal_error(format_args!(
                "too many terminals: {} are alive, release one first",
                self.max_terminals
            )));
        }
        let mut command = tokio::process::Command::new(&request.command);
        command
            .args(request.args.iter().flatten())
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in request.env.iter().flatten() {
            command.env(&var.name, &var.value);
        }
        let mut group = ProcessGroup::spawn(&mut command).map_err(|e| {
            ErrorObject::internal_error(format_args!("cannot start `{}`: {e}", request.command))
        })?;
        let limit = request
            .output_byte_limit
            .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX))
            .min(self.max_output_bytes);
        let (exit_tx, exit_rx) = watch::channel(None);
        let term = Arc::new(Term {
            session_id: request.session_id.clone(),
            command: request.command.clone(),
            output: Mutex::new(Output::new(limit)),
            exit: exit_rx,
            kill: Notify::new(),
            stop: Notify::new(),
            leftovers: Mutex::new(None),
        });
        let stdout = group.child().stdout.take();
        let stderr = group.child().stderr.take();
        let task_term = term.clone();
        let lifetime = self.max_lifetime;
        tokio::spawn(async move {
            // Far enough to never fire without a limit (`Instant` cannot hold `Duration::MAX`).
            let deadline = tokio::time::sleep(lifetime.unwrap_or(UNBOUNDED));
            tokio::pin!(deadline);
            let pumps = futures::future::join(
                pump(stdout, task_term.clone()),
                pump(stderr, task_term.clone()),
            );
            tokio::pin!(pumps);
            // The output is read while the command runs: it is shown as it comes, and a
            // command writing more than a pipe holds is not blocked for ever.
            let mut drained = false;
            let status = loop {
                tokio::select! {
                    _ = &mut pumps, if !drained => drained = true,
                    status = group.wait() => break status,
                    () = task_term.kill.notified() => {
                        let _ = group.kill();
                        break group.wait().await;
                    }
                    () = task_term.stop.notified() => {
                        break group.stop(STOP_GRACE).await.map(|stopped| stopped.status);
                    }
                    () = &mut deadline, if lifetime.is_some() => {
                        tracing::debug!(command = %task_term.command, "the terminal's lifetime is over: killing it");
                        let _ = group.kill();
                        break group.wait().await;
                    }
                }
            };
            if !drained {
                let _ = tokio::time::timeout(DRAIN_TIMEOUT, &mut pumps).await;
            }
            let exit = match status {
                Ok(status) => exit_status(&status),
                Err(_) => TerminalExitStatus::new(),
            };
            let _ = exit_tx.send(Some(exit));
            *lock(&task_term.leftovers) = Some(group);
        });
        let id = TerminalId::from(format!(
            "term-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed) + 1
        ));
        live.insert(id.clone(), term);
        Ok(CreateTerminalResponse::new(id))
    }

    /// The output so far, whether it was truncated, and the exit once the command ended
    /// (`terminal/output`).
    ///
    /// # Errors
    ///
    /// `-32002` for an unknown (or released) terminal.
    pub fn output(
        &self,
        request: &TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, ErrorObject> {
        let term = self.get(&request.session_id, &request.terminal_id)?;
        let exit = term.exit.borrow().clone();
        let output = term.output();
        Ok(TerminalOutputResponse::new(output.text(), output.truncated)
            .maybe(exit, TerminalOutputResponse::exit_status))
    }

    /// Waits for the command to end (`terminal/wait_for_exit`).
    ///
    /// # Errors
    ///
    /// `-32002` for an unknown (or released) terminal.
    pub async fn wait_for_exit(
        &self,
        request: &WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, ErrorObject> {
        let mut exit = self
            .get(&request.session_id, &request.terminal_id)?
            .exit
            .clone();
        let exit = exit
            .wait_for(Option::is_some)
            .await
            .map_err(|_| ErrorObject::internal_error("the terminal's watcher ended"))?;
        let exit = exit.clone().unwrap_or_default();
        Ok(WaitForTerminalExitResponse::new()
            .maybe(exit.exit_code, WaitForTerminalExitResponse::exit_code)
            .maybe(exit.signal, WaitForTerminalExitResponse::signal))
    }

    /// Kills the command; the terminal stays, with its output (`terminal/kill`).
    ///
    /// # Errors
    ///
    /// `-32002` for an unknown (or released) terminal.
    pub fn kill(&self, request: &KillTerminalRequest) -> Result<KillTerminalResponse, ErrorObject> {
        self.get(&request.session_id, &request.terminal_id)?
            .kill
            .notify_one();
        Ok(KillTerminalResponse::new())
    }

    /// Kills the command if still running and forgets the terminal (`terminal/release`); its
    /// last output stays for [`display_output`](Self::display_output).
    ///
    /// # Errors
    ///
    /// `-32002` for an unknown (or already released) terminal.
    pub fn release(
        &self,
        request: &ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, ErrorObject> {
        let id = &request.terminal_id;
        self.get(&request.session_id, id)?;
        let term = lock(&self.live).remove(id).ok_or_else(|| unknown(id))?;
        term.kill.notify_one();
        let mut released = lock(&self.released);
        if released.len() >= MAX_RELEASED_KEPT {
            released.pop_front();
        }
        released.push_back((id.clone(), term.output().text()));
        Ok(ReleaseTerminalResponse::new())
    }

    /// The output to show for a terminal embedded in a tool call, live or released.
    pub fn display_output(&self, id: &TerminalId) -> Option<String> {
        let released = lock(&self.released);
        if let Some((_, text)) = released.iter().rev().find(|(r, _)| r == id) {
            return Some(text.clone());
        }
        drop(released);
        lock(&self.live).get(id).map(|t| t.output().text())
    }

    /// Stops every terminal's command with its process group (SIGTERM, 2 seconds, then
    /// SIGKILL), waits for them to end, and kills what they left running. For the client's
    /// exit: every terminal is forgotten.
    pub async fn shutdown(&self) {
        let terms: Vec<Arc<Term>> = lock(&self.live).drain().map(|(_, term)| term).collect();
        for term in &terms {
            term.stop.notify_one();
        }
        for term in &terms {
            let mut exit = term.exit.clone();
            // SIGKILL ends the command within the second grace period; the bound is a guard.
            let _ = tokio::time::timeout(STOP_GRACE * 2, exit.wait_for(Option::is_some)).await;
            lock(&term.leftovers).take();
        }
    }

    /// Kills every terminal's command with its process group, now (asynchronously: the
    /// commands' tasks do it, or drop their process groups when the runtime shuts down, which
    /// kills them too). For a client that must exit at once.
    pub fn kill_all(&self) {
        for term in lock(&self.live).values() {
            term.kill.notify_one();
            lock(&term.leftovers).take();
        }
    }

    /// How many terminals are live (not released).
    pub fn live(&self) -> usize {
        lock(&self.live).len()
    }

    /// A live terminal of `session`.
    fn get(&self, session: &SessionId, id: &TerminalId) -> Result<Arc<Term>, ErrorObject> {
        let live = lock(&self.live);
        let term = live.get(id).filter(|t| t.session_id == *session);
        term.cloned().ok_or_else(|| unknown(id))
    }
}

fn unknown(id: &TerminalId) -> ErrorObject {
    ErrorObject::terminal_not_found(id.as_str())
}

async fn pump(pipe: Option<impl AsyncRead + Unpin>, term: Arc<Term>) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 8192];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => term.output().push(&buf[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(session: &str, id: &TerminalId) -> WaitForTerminalExitRequest {
        WaitForTerminalExitRequest::new(session, id.clone())
    }

    #[test]
    fn truncation_keeps_the_end_at_a_character_boundary() {
        let mut output = Output::new(5);
        output.push("abc".as_bytes());
        assert!(!output.truncated);
        output.push("dé€".as_bytes());
        assert!(output.truncated);
        assert_eq!(output.text(), "é€");
        // Keeping the last 5 bytes would start inside the first euro sign (3 bytes): the cut
        // moves to the next character, leaving 4 bytes.
        output.push("x€".as_bytes());
        assert_eq!(output.text(), "x€");
    }

    #[test]
    fn a_character_still_arriving_is_not_shown() {
        let mut output = Output::new(100);
        output.push(&"€".as_bytes()[..2]);
        assert_eq!(output.text(), "");
        output.push(&"€".as_bytes()[2..]);
        assert_eq!(output.text(), "€");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn commands_run_in_the_workspace_and_can_be_killed() {
        let dir = std::env::temp_dir().join(format!("acp-term-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dir = dir.canonicalize().unwrap();
        let terminals = Terminals::default();
        let id = terminals
            .create(&CreateTerminalRequest::new("s", "pwd"), &dir)
            .unwrap()
            .terminal_id;
        let exit = terminals.wait_for_exit(&wait("s", &id)).await.unwrap();
        assert_eq!(exit.exit_code, Some(0));
        let output = terminals
            .output(&TerminalOutputRequest::new("s", id.clone()))
            .unwrap();
        assert_eq!(output.output.trim(), dir.display().to_string());
        assert!(!output.truncated);
        assert_eq!(output.exit_status.and_then(|e| e.exit_code), Some(0));
        // Another session's terminals are not reachable.
        let other = terminals.output(&TerminalOutputRequest::new("t", id.clone()));
        assert_eq!(other.unwrap_err().code, ErrorCode::RESOURCE_NOT_FOUND);
        terminals
            .release(&ReleaseTerminalRequest::new("s", id.clone()))
            .unwrap();
        let gone = terminals.output(&TerminalOutputRequest::new("s", id.clone()));
        assert_eq!(gone.unwrap_err().code, ErrorCode::RESOURCE_NOT_FOUND);
        assert_eq!(
            terminals.display_output(&id).map(|t| t.trim().to_owned()),
            Some(dir.display().to_string())
        );

        let request = CreateTerminalRequest::new("s", "sleep").args(vec!["30".to_owned()]);
        let id = terminals.create(&request, &dir).unwrap().terminal_id;
        terminals
            .kill(&KillTerminalRequest::new("s", id.clone()))
            .unwrap();
        let exit = terminals.wait_for_exit(&wait("s", &id)).await.unwrap();
        assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_command_outliving_the_lifetime_limit_is_killed() {
        let terminals = Terminals::default().max_lifetime(Duration::from_millis(300));
        let dir = std::env::temp_dir();
        let request = CreateTerminalRequest::new("s", "sleep").args(vec!["30".to_owned()]);
        let started = std::time::Instant::now();
        let id = terminals.create(&request, &dir).unwrap().terminal_id;
        let exit = tokio::time::timeout(
            Duration::from_secs(20),
            terminals.wait_for_exit(&wait("s", &id)),
        )
        .await
        .expect("killed well before its 30 seconds")
        .unwrap();
        assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
        assert!(started.elapsed() >= Duration::from_millis(300));
        // The terminal stays, with its exit; a quick command is not touched.
        let output = terminals
            .output(&TerminalOutputRequest::new("s", id))
            .unwrap();
        assert!(output.exit_status.is_some());
        let quick = CreateTerminalRequest::new("s", "true");
        let id = terminals.create(&quick, &dir).unwrap().terminal_id;
        let exit = terminals.wait_for_exit(&wait("s", &id)).await.unwrap();
        assert_eq!((exit.exit_code, exit.signal), (Some(0), None));
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn output_is_read_while_the_command_runs() {
        let dir = std::env::temp_dir().join(format!("acp-term-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let terminals = Terminals::default();
        // More than a pipe holds (64 KiB on Linux): unread, the command could never exit.
        let request = CreateTerminalRequest::new("s", "sh").args(vec![
            "-c".into(),
            "head -c 300000 /dev/zero | tr '\\0' x".into(),
        ]);
        let id = terminals.create(&request, &dir).unwrap().terminal_id;
        let exit = tokio::time::timeout(
            Duration::from_secs(30),
            terminals.wait_for_exit(&wait("s", &id)),
        )
        .await
        .expect("the command ends")
        .unwrap();
        assert_eq!(exit.exit_code, Some(0));
        let output = terminals
            .output(&TerminalOutputRequest::new("s", id))
            .unwrap();
        assert_eq!(output.output.len(), 300_000);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Creates from many threads at once (a multi-thread runtime serves requests in
    /// parallel) never pass the bound together.
    #[cfg(unix)]
    #[test]
    fn concurrent_creates_stay_within_the_number_of_terminals() {
        const THREADS: usize = 16;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let dir = std::env::temp_dir();
        let terminals = Terminals::with_limits(1000, 3);
        let start = std::sync::Barrier::new(THREADS);
        let created = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..THREADS)
                .map(|_| {
                    scope.spawn(|| {
                        let _runtime = runtime.enter();
                        let request =
                            CreateTerminalRequest::new("s", "sleep").args(vec!["5".into()]);
                        start.wait();
                        terminals.create(&request, &dir).is_ok()
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap())
                .filter(|&ok| ok)
                .count()
        });
        assert_eq!((created, terminals.live()), (3, 3));
        runtime.block_on(terminals.shutdown());
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn output_and_the_number_of_terminals_are_bounded_whatever_the_agent_asks() {
        let dir = std::env::temp_dir().join(format!("acp-term-bound-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let terminals = Terminals::with_limits(1000, 2);
        let flood = |limit: Option<u64>| {
            CreateTerminalRequest::new("s", "sh")
                .args(vec![
                    "-c".into(),
                    "head -c 5000 /dev/zero | tr '\\0' x".into(),
                ])
                .maybe(limit, CreateTerminalRequest::output_byte_limit)
        };
        // No limit asked, and a larger one than the client keeps: both held to 1000 bytes.
        let mut ids = Vec::new();
        for limit in [None, Some(1_000_000)] {
            let id = terminals.create(&flood(limit), &dir).unwrap().terminal_id;
            terminals.wait_for_exit(&wait("s", &id)).await.unwrap();
            let output = terminals
                .output(&TerminalOutputRequest::new("s", id.clone()))
                .unwrap();
            assert_eq!((output.output.len(), output.truncated), (1000, true));
            ids.push(id);
        }
        // Two alive (exited but not released): a third is refused until one is released.
        let refused = terminals.create(&flood(None), &dir).unwrap_err();
        assert_eq!(refused.code, ErrorCode::INTERNAL_ERROR);
        assert!(
            refused.message.contains("too many terminals"),
            "{}",
            refused.message
        );
        terminals
            .release(&ReleaseTerminalRequest::new("s", ids[0].clone()))
            .unwrap();
        let id = terminals
            .create(&flood(Some(10)), &dir)
            .unwrap()
            .terminal_id;
        terminals.wait_for_exit(&wait("s", &id)).await.unwrap();
        let output = terminals
            .output(&TerminalOutputRequest::new("s", id))
            .unwrap();
        assert_eq!(output.output, "x".repeat(10));
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The pid a command printed first on its output (polled: the output has no event).
    #[cfg(target_os = "linux")]
    async fn first_pid(terminals: &Terminals, id: &TerminalId) -> u32 {
        for _ in 0..1000 {
            let output = terminals
                .output(&TerminalOutputRequest::new("s", id.clone()))
                .unwrap();
            if let Some(pid) = output
                .output
                .lines()
                .next()
                .and_then(|l| l.trim().parse().ok())
            {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no pid on the terminal's output");
    }

    /// True while `pid` runs (a zombie counts as gone).
    #[cfg(target_os = "linux")]
    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
    }

    /// Waits (bounded) for `pid` to be gone: SIGKILL is asynchronous.
    #[cfg(target_os = "linux")]
    async fn gone(pid: u32) -> bool {
        for _ in 0..500 {
            if !alive(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn dropping_the_terminals_kills_their_commands() {
        let dir = std::env::temp_dir().join(format!("acp-term-drop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let terminals = Terminals::default();
        let request = CreateTerminalRequest::new("s", "sh")
            .args(vec!["-c".into(), "echo $$; exec sleep 1000".into()]);
        let id = terminals.create(&request, &dir).unwrap().terminal_id;
        let pid = first_pid(&terminals, &id).await;
        assert!(alive(pid));
        drop(terminals);
        assert!(gone(pid).await, "the command survived its terminals");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn shutdown_stops_the_commands_with_everything_they_started() {
        let dir = std::env::temp_dir().join(format!("acp-term-stop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let terminals = Terminals::default();
        let request = CreateTerminalRequest::new("s", "sh").args(vec![
            "-c".into(),
            "sleep 1000 & echo $!; exec sleep 1000".into(),
        ]);
        let id = terminals.create(&request, &dir).unwrap().terminal_id;
        let helper = first_pid(&terminals, &id).await;
        assert!(alive(helper));
        tokio::time::timeout(Duration::from_secs(30), terminals.shutdown())
            .await
            .expect("shutdown ends");
        assert_eq!(terminals.live(), 0);
        // The helper's reaper is not us: poll, bounded.
        assert!(gone(helper).await, "the helper survived");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
