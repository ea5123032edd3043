//! The terminals the client runs for the agent (`terminal/*`): real processes, started in the
//! working directory, whose output is kept within the agent's byte limit.

use std::collections::HashMap;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use acp_types::*;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{Notify, watch};

use super::workspace::Workspace;

/// How long to wait for the pipes to drain once the process exited (a grandchild may hold
/// them open).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

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
fn signal_name(number: i32) -> String {
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
    kill: Notify,
}

impl Term {
    fn output(&self) -> MutexGuard<'_, Output> {
        self.output.lock().unwrap_or_else(PoisonError::into_inner)
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
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for var in request.env.iter().flatten() {
            command.env(&var.name, &var.value);
        }
        let mut child = command.spawn().map_err(|e| {
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
        });
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let task_term = term.clone();
        tokio::spawn(async move {
            let pumps = futures::future::join(
                pump(stdout, task_term.clone()),
                pump(stderr, task_term.clone()),
            );
            tokio::pin!(pumps);
            let status = tokio::select! {
                status = child.wait() => status,
                () = task_term.kill.notified() => {
                    let _ = child.start_kill();
                    child.wait().await
                }
            };
            let _ = tokio::time::timeout(DRAIN_TIMEOUT, &mut pumps).await;
            let exit = match status {
                Ok(status) => Exit::from_status(&status),
                Err(_) => Exit {
                    code: None,
                    signal: None,
                },
            };
            let _ = exit_tx.send(Some(exit));
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
}
