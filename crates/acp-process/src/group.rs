//! Child processes that run in a process group of their own, so that they can be stopped with
//! everything they started: spawned agents, bridged agent programs, and the commands a client
//! runs for `terminal/create`.

use std::io;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::process::{Child, Command};

/// A child process leading a process group of its own (on Unix).
///
/// Signals go to the whole group, so helpers the process started (a shell's children, a
/// build's compilers) stop with it. Dropping it kills the group, even when the process itself
/// has already exited, so that no helper survives it.
///
/// This is what `acp_client::spawn` uses for the agent and `acp-http`'s bridge for each agent
/// program, and what a client can use for the commands it runs for the agent's
/// `terminal/create`:
///
/// ```no_run
/// # #[allow(dead_code)]
/// # async fn f() -> std::io::Result<()> {
/// use std::time::Duration;
/// use acp_process::ProcessGroup;
///
/// let mut command = tokio::process::Command::new("sh");
/// command.arg("-c").arg("sleep 100 & sleep 100");
/// let mut group = ProcessGroup::spawn(&mut command)?;
/// // Later: SIGTERM to the group, two seconds to exit, then SIGKILL.
/// let stopped = group.stop(Duration::from_secs(2)).await?;
/// eprintln!("the command {stopped}");
/// # Ok(()) }
/// ```
///
/// On other platforms it is a plain child process: stopping it kills it.
#[derive(Debug)]
pub struct ProcessGroup {
    child: Child,
    /// The group's id (the leader's pid at start), kept after the leader is reaped so that
    /// helpers it left behind can still be killed.
    group: Option<u32>,
}

/// At which step a process stopped by [`ProcessGroup::stop`] or [`ProcessGroup::wait_or_stop`]
/// (and `acp_client`'s `AgentProcess::shutdown`) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopStage {
    /// It exited without being signalled: it had exited already, or exited once its input was
    /// closed.
    Exited,
    /// It ended within the grace period after `SIGTERM` (on Unix).
    Terminated,
    /// It outlived the grace periods and was killed (`SIGKILL` on Unix).
    Killed,
}

/// How a stopped process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stopped {
    /// Its exit status (on Unix, with the signal that ended it if any).
    pub status: ExitStatus,
    /// The step at which it ended.
    pub stage: StopStage,
}

impl std::fmt::Display for Stopped {
    /// `exited with code 0`, `ended by signal 15 (after SIGTERM)`, `ended by signal 9 (killed
    /// after ignoring SIGTERM)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status.code() {
            Some(code) => write!(f, "exited with code {code}")?,
            None => match signal_of(&self.status) {
                Some(signal) => write!(f, "ended by signal {signal}")?,
                None => write!(f, "ended ({})", self.status)?,
            },
        }
        match self.stage {
            StopStage::Exited => Ok(()),
            StopStage::Terminated => f.write_str(" (after SIGTERM)"),
            StopStage::Killed => f.write_str(" (killed after ignoring SIGTERM)"),
        }
    }
}

#[cfg(unix)]
fn signal_of(status: &ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn signal_of(_status: &ExitStatus) -> Option<i32> {
    None
}

impl ProcessGroup {
    /// Starts `command` as the leader of a new process group (on Unix), with `kill_on_drop`.
    ///
    /// # Errors
    ///
    /// When the program cannot be started.
    pub fn spawn(command: &mut Command) -> io::Result<Self> {
        command.kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let child = command.spawn()?;
        // With `process_group(0)` the group's id is the leader's pid.
        let group = if cfg!(unix) { child.id() } else { None };
        Ok(Self { child, group })
    }

    /// The child process, e.g. to take its pipes.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// The operating system's process id, while the process runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// The process group's id (on Unix), kept after the leader exited.
    pub fn group_id(&self) -> Option<u32> {
        self.group
    }

    /// Waits for the process to exit.
    ///
    /// # Errors
    ///
    /// When the status cannot be read.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// The exit status if the process has exited, without waiting.
    ///
    /// # Errors
    ///
    /// When the status cannot be read.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    /// Asks the process group to stop: `SIGTERM` to the group on Unix; elsewhere, kills the
    /// process.
    ///
    /// # Errors
    ///
    /// When the process cannot be signalled.
    pub fn terminate(&mut self) -> io::Result<()> {
        if signal_group(self.group, Signal::Term) {
            return Ok(());
        }
        self.start_kill()
    }

    /// Kills the process and (on Unix) every process of its group, now.
    ///
    /// # Errors
    ///
    /// When the process cannot be signalled.
    pub fn kill(&mut self) -> io::Result<()> {
        signal_group(self.group, Signal::Kill);
        self.start_kill()
    }

    fn start_kill(&mut self) -> io::Result<()> {
        match self.child.start_kill() {
            // Already reaped: nothing to kill.
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(()),
            other => other,
        }
    }

    /// Stops the process gracefully: [`terminate`](Self::terminate), wait up to `grace` for it
    /// to exit, then [`kill`](Self::kill) and wait. Whatever is left of its group once it
    /// ended (helpers that ignored `SIGTERM`) is killed. A process that had already exited is
    /// reported as [`StopStage::Exited`].
    ///
    /// # Errors
    ///
    /// When the process cannot be signalled or its status read.
    pub async fn stop(&mut self, grace: Duration) -> io::Result<Stopped> {
        if let Some(status) = self.child.try_wait()? {
            return Ok(self.ended(status, StopStage::Exited));
        }
        self.terminate()?;
        self.stop_after_terminate(grace).await
    }

    /// Stops a process that was asked to end by other means first (its stdin closed, a quit
    /// message): waits up to `grace` for it to exit by itself ([`StopStage::Exited`]), then
    /// goes on as [`stop`](Self::stop) does, `SIGTERM` and `grace` more, then `SIGKILL`.
    /// Whatever is left of its group once it ended is killed. This is how an ACP agent is
    /// closed: the end of its input tells it the client is gone, and one that saves its
    /// sessions on exit gets the time to.
    ///
    /// # Errors
    ///
    /// When the process cannot be signalled or its status read.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: dropped half way, the later steps do not happen (dropping the group
    /// still kills it).
    pub async fn wait_or_stop(&mut self, grace: Duration) -> io::Result<Stopped> {
        if let Ok(status) = tokio::time::timeout(grace, self.child.wait()).await {
            return Ok(self.ended(status?, StopStage::Exited));
        }
        tracing::debug!(
            group = self.group,
            "the process did not exit by itself: SIGTERM"
        );
        self.terminate()?;
        self.stop_after_terminate(grace).await
    }

    /// The rest of [`stop`](Self::stop), once `SIGTERM` was sent.
    async fn stop_after_terminate(&mut self, grace: Duration) -> io::Result<Stopped> {
        if let Ok(status) = tokio::time::timeout(grace, self.child.wait()).await {
            return Ok(self.ended(status?, StopStage::Terminated));
        }
        tracing::debug!(
            group = self.group,
            "the process ignored SIGTERM; killing it"
        );
        self.kill()?;
        let status = self.child.wait().await?;
        Ok(self.ended(status, StopStage::Killed))
    }

    /// Reports the end, killing what is left of the group.
    fn ended(&mut self, status: ExitStatus, stage: StopStage) -> Stopped {
        signal_group(self.group, Signal::Kill);
        Stopped { status, stage }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // Even if the leader has exited, helpers it started may still run in its group.
        tracing::debug!(group = self.group, "killing the process group");
        let _ = self.kill();
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

/// Signals the process group; false when there is no group to signal (not Unix, or no id).
#[cfg(unix)]
fn signal_group(group: Option<u32>, signal: Signal) -> bool {
    let group = group
        .and_then(|id| i32::try_from(id).ok())
        .and_then(rustix::process::Pid::from_raw);
    let Some(group) = group else {
        return false;
    };
    let signal = match signal {
        Signal::Term => rustix::process::Signal::TERM,
        Signal::Kill => rustix::process::Signal::KILL,
    };
    // The group may be gone already; nothing else to do then. (A process group's id is not
    // reused while any member lives, so this cannot hit an unrelated group.)
    let _ = rustix::process::kill_process_group(group, signal);
    true
}

#[cfg(not(unix))]
fn signal_group(_group: Option<u32>, _signal: Signal) -> bool {
    false
}
