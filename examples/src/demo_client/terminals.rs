//! The terminals the client runs for the agent (`terminal/*`): real processes, started in the
//! working directory, whose output is kept within the agent's byte limit.
//!
//! Each command runs in a process group of its own ([`acp_client::ProcessGroup`]): killing a
//! terminal kills whatever the command started too, and so does releasing it or stopping the
//! client ([`Terminals::shutdown`]), even for helpers still running after the command exited.

use std::collections::HashMap;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use acp_client::ProcessGroup;
use acp_types::*;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{Notify, watch};

use super::workspace::Workspace;

/// How long to wait for the pipes to drain once the process exited (a grandchild may hold
/// them open).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a command gets to exit after SIGTERM when the client stops, before SIGKILL.
pub(crate) const STOP_GRACE: Duration = Duration::from_secs(2);

/// How a terminal's command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exit {
    /// The exit code, if it exited normally.
    pub code: Option<u32>,
    /// The signal that ended it, if any (`SIGKILL`, ...).
    pub signal: Option<String>,
}

impl Exit {
    fn from_status(status: &ExitStatus) -> Self {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(status).map(signal_name);
        #[cfg(not(unix))]
        let signal = None;
        Self {
            code: status.code().and_then(|c| u32::try_from(c).ok()),
            signal,
        }
    }
}

#[cfg(unix)]
pub(crate) fn signal_name(number: i32) -> String {
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
#[derive(Debug, Default)]
pub(crate) struct Output {
    bytes: Vec<u8>,
    limit: Option<usize>,
    truncated: bool,
}

impl Output {
    fn push(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        let Some(limit) = self.limit else { return };
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
    pub(crate) fn text(&self) -> String {
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
    output: Mutex<Output>,
    exit: watch::Receiver<Option<Exit>>,
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

/// The terminals of one client.
#[derive(Default)]
pub struct Terminals {
    next_id: AtomicU64,
    live: Mutex<HashMap<TerminalId, Arc<Term>>>,
    /// The last output of released terminals, for display (the spec: clients keep showing a
    /// released terminal embedded in a tool call).
    released: Mutex<HashMap<TerminalId, String>>,
}

impl std::fmt::Debug for Terminals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminals").finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Terminals {
    /// Starts the command in `workspace` (or in `cwd`, which must be inside it).
    ///
    /// # Errors
    ///
    /// When the directory is refused or the command cannot be started.
    pub fn create(
        &self,
        workspace: &Workspace,
        request: &CreateTerminalRequest,
    ) -> Result<TerminalId, ErrorObject> {
        let cwd = match &request.cwd {
            Some(cwd) => workspace.resolve_existing(cwd)?,
            None => workspace.root().to_path_buf(),
        };
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
            .map(|l| usize::try_from(l).unwrap_or(usize::MAX));
        let (exit_tx, exit_rx) = watch::channel(None);
        let term = Arc::new(Term {
            output: Mutex::new(Output {
                limit,
                ..Output::default()
            }),
            exit: exit_rx,
            kill: Notify::new(),
            stop: Notify::new(),
            leftovers: Mutex::new(None),
        });
        let stdout = group.child().stdout.take();
        let stderr = group.child().stderr.take();
        let task_term = term.clone();
        tokio::spawn(async move {
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
                }
            };
            if !drained {
                let _ = tokio::time::timeout(DRAIN_TIMEOUT, &mut pumps).await;
            }
            let exit = match status {
                Ok(status) => Exit::from_status(&status),
                Err(_) => Exit {
                    code: None,
                    signal: None,
                },
            };
            let _ = exit_tx.send(Some(exit));
            *lock(&task_term.leftovers) = Some(group);
        });
        let id = TerminalId::from(format!(
            "term-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed) + 1
        ));
        lock(&self.live).insert(id.clone(), term);
        Ok(id)
    }

    /// The output so far, whether it was truncated, and the exit if the command ended.
    ///
    /// # Errors
    ///
    /// For an unknown (or released) terminal.
    pub fn output(&self, id: &TerminalId) -> Result<(String, bool, Option<Exit>), ErrorObject> {
        let term = self.get(id)?;
        let exit = term.exit.borrow().clone();
        let output = term.output();
        Ok((output.text(), output.truncated, exit))
    }

    /// Waits for the command to end.
    ///
    /// # Errors
    ///
    /// For an unknown (or released) terminal.
    pub async fn wait_for_exit(&self, id: &TerminalId) -> Result<Exit, ErrorObject> {
        let mut exit = self.get(id)?.exit.clone();
        let exit = exit
            .wait_for(Option::is_some)
            .await
            .map_err(|_| ErrorObject::internal_error("the terminal's watcher ended"))?;
        Ok(exit.clone().unwrap_or(Exit {
            code: None,
            signal: None,
        }))
    }

    /// Kills the command; the terminal stays, with its output.
    ///
    /// # Errors
    ///
    /// For an unknown (or released) terminal.
    pub fn kill(&self, id: &TerminalId) -> Result<(), ErrorObject> {
        self.get(id)?.kill.notify_one();
        Ok(())
    }

    /// Kills the command if still running and forgets the terminal (its last output is kept
    /// for display).
    ///
    /// # Errors
    ///
    /// For an unknown (or already released) terminal.
    pub fn release(&self, id: &TerminalId) -> Result<(), ErrorObject> {
        let term = lock(&self.live).remove(id).ok_or_else(|| unknown(id))?;
        term.kill.notify_one();
        lock(&self.released).insert(id.clone(), term.output().text());
        Ok(())
    }

    /// The output to show for a terminal embedded in a tool call, live or released.
    pub fn display_output(&self, id: &TerminalId) -> Option<String> {
        if let Some(text) = lock(&self.released).get(id) {
            return Some(text.clone());
        }
        self.get(id).ok().map(|t| t.output().text())
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

    fn get(&self, id: &TerminalId) -> Result<Arc<Term>, ErrorObject> {
        lock(&self.live).get(id).cloned().ok_or_else(|| unknown(id))
    }
}

fn unknown(id: &TerminalId) -> ErrorObject {
    ErrorObject::invalid_params(format_args!("no terminal `{id}` (unknown or released)"))
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

    #[test]
    fn truncation_keeps_the_end_at_a_character_boundary() {
        let mut output = Output {
            limit: Some(5),
            ..Output::default()
        };
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
        let mut output = Output::default();
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
        let ws = Workspace::new(&dir, false).unwrap();
        let terminals = Terminals::default();
        let id = terminals
            .create(&ws, &CreateTerminalRequest::new("s", "pwd"))
            .unwrap();
        let exit = terminals.wait_for_exit(&id).await.unwrap();
        assert_eq!(exit.code, Some(0));
        let (text, truncated, _) = terminals.output(&id).unwrap();
        assert_eq!(text.trim(), ws.root().display().to_string());
        assert!(!truncated);
        terminals.release(&id).unwrap();
        assert!(terminals.output(&id).is_err());

        let request = CreateTerminalRequest::new("s", "sleep").args(vec!["30".to_owned()]);
        let id = terminals.create(&ws, &request).unwrap();
        terminals.kill(&id).unwrap();
        let exit = terminals.wait_for_exit(&id).await.unwrap();
        assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
        let outside = CreateTerminalRequest::new("s", "pwd").cwd("/");
        assert!(terminals.create(&ws, &outside).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn output_is_read_while_the_command_runs() {
        let dir = std::env::temp_dir().join(format!("acp-term-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ws = Workspace::new(&dir, false).unwrap();
        let terminals = Terminals::default();
        // More than a pipe holds (64 KiB on Linux): unread, the command could never exit.
        let request = CreateTerminalRequest::new("s", "sh").args(vec![
            "-c".into(),
            "head -c 300000 /dev/zero | tr '\\0' x".into(),
        ]);
        let id = terminals.create(&ws, &request).unwrap();
        let exit = tokio::time::timeout(Duration::from_secs(30), terminals.wait_for_exit(&id))
            .await
            .expect("the command ends")
            .unwrap();
        assert_eq!(exit.code, Some(0));
        assert_eq!(terminals.output(&id).unwrap().0.len(), 300_000);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn shutdown_stops_the_commands_with_everything_they_started() {
        let dir = std::env::temp_dir().join(format!("acp-term-stop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ws = Workspace::new(&dir, false).unwrap();
        let terminals = Terminals::default();
        let request = CreateTerminalRequest::new("s", "sh").args(vec![
            "-c".into(),
            "sleep 1000 & echo $!; exec sleep 1000".into(),
        ]);
        let id = terminals.create(&ws, &request).unwrap();
        // The helper's pid arrives on the terminal's output (polled: the output has no event).
        let mut helper = None;
        for _ in 0..1000 {
            let (text, _, _) = terminals.output(&id).unwrap();
            if let Some(line) = text.lines().next() {
                helper = line.trim().parse::<u32>().ok();
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let helper = helper.expect("the helper's pid");
        let alive = |pid: u32| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
            })
        };
        assert!(alive(helper));
        tokio::time::timeout(Duration::from_secs(30), terminals.shutdown())
            .await
            .expect("shutdown ends");
        assert_eq!(terminals.live(), 0);
        // SIGKILL is asynchronous, and the helper's reaper is not us: poll, bounded.
        for _ in 0..500 {
            if !alive(helper) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!alive(helper), "the helper survived");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
