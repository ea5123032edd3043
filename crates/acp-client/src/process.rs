//! Starting an agent program and connecting to it over its stdio.

use std::future::Future;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};

use crate::{AgentHandle, Client, ClientOptions, Error, connect};

/// What to do with the agent's stderr (where agents log).
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Stderr {
    /// Forward each line to `tracing` (target `acp_client::agent_stderr`, level `info`).
    #[default]
    Tracing,
    /// Pass each line to a callback.
    Lines(Arc<dyn Fn(&str) + Send + Sync>),
    /// Let the agent write to our own stderr.
    Inherit,
    /// Discard it.
    Discard,
}

impl std::fmt::Debug for Stderr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stderr::Tracing => "Tracing",
            Stderr::Lines(_) => "Lines(..)",
            Stderr::Inherit => "Inherit",
            Stderr::Discard => "Discard",
        })
    }
}

/// How to start an agent.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SpawnOptions {
    /// The client-side connection options.
    pub client: ClientOptions,
    /// What to do with the agent's stderr.
    pub stderr: Stderr,
}

impl SpawnOptions {
    /// Sets the client options.
    #[must_use]
    pub fn client(mut self, client: ClientOptions) -> Self {
        self.client = client;
        self
    }

    /// Sets what happens to the agent's stderr.
    #[must_use]
    pub fn stderr(mut self, stderr: Stderr) -> Self {
        self.stderr = stderr;
        self
    }
}

/// A started agent: the handle to call it, the driver to run, and the process.
#[derive(Debug)]
#[non_exhaustive]
pub struct SpawnedAgent {
    /// The handle to call the agent.
    pub agent: AgentHandle,
    /// The connection's driver (it also forwards the agent's stderr); run it, e.g. with
    /// `tokio::spawn`.
    pub driver: AgentDriver,
    /// The agent process: its exit status, and killing it.
    pub process: AgentProcess,
}

/// The future that runs the connection to a spawned agent and forwards its stderr.
///
/// It resolves when the connection ends (typically because the agent exited).
#[must_use = "the connection does nothing unless its driver is polled"]
pub struct AgentDriver {
    inner: BoxFuture<'static, Result<(), acp_rpc::Error>>,
}

impl std::fmt::Debug for AgentDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentDriver").finish_non_exhaustive()
    }
}

impl Future for AgentDriver {
    type Output = Result<(), acp_rpc::Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.inner.as_mut().poll(cx)
    }
}

/// A running agent process. Dropping it kills the agent and, on Unix, every process of its
/// process group (the agent runs in a group of its own), so no helper it started survives.
#[derive(Debug)]
pub struct AgentProcess {
    child: Child,
    /// The agent's process group (its pid at start), kept after the agent itself is reaped so
    /// that helpers it left behind can still be killed.
    group: Option<u32>,
}

impl AgentProcess {
    /// The operating system's process id, while the process runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits for the agent to exit and reports how it did.
    ///
    /// # Errors
    ///
    /// When the status cannot be read.
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// The exit status if the agent has exited, without waiting.
    ///
    /// # Errors
    ///
    /// When the status cannot be read.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    /// Kills the agent (and its process group on Unix) now.
    ///
    /// # Errors
    ///
    /// When the process cannot be signalled.
    pub fn kill(&mut self) -> std::io::Result<()> {
        kill_group(self.group);
        match self.child.start_kill() {
            // Already reaped: nothing to kill.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Ok(()),
            other => other,
        }
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        // Even if the agent itself has exited, helpers it started may still run in its group.
        tracing::debug!(group = self.group, "killing the agent's process group");
        let _ = self.kill();
    }
}

#[cfg(unix)]
fn kill_group(group: Option<u32>) {
    let group = group
        .and_then(|id| i32::try_from(id).ok())
        .and_then(rustix::process::Pid::from_raw);
    if let Some(group) = group {
        // The group may be gone already; nothing else to do then. (A process group's id is not
        // reused while any member lives, so this cannot hit an unrelated group.)
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_group: Option<u32>) {}

/// Starts `command` as an agent with piped stdin/stdout and connects `client` to it.
///
/// The agent's stderr goes where [`SpawnOptions::stderr`] says. The process is put in its own
/// process group (on Unix), so that dropping the [`AgentProcess`] kills the agent with
/// everything it started.
///
/// ```no_run
/// # #[allow(dead_code)]
/// # async fn f(client: impl acp_client::Client) -> Result<(), acp_client::Error> {
/// let mut command = tokio::process::Command::new("my-agent");
/// command.arg("--acp");
/// let spawned = acp_client::spawn(command, |_agent| client, Default::default())?;
/// tokio::spawn(spawned.driver);
/// # Ok(()) }
/// ```
///
/// # Errors
///
/// [`Error::Spawn`] when the program cannot be started.
pub fn spawn<C: Client>(
    mut command: Command,
    make_client: impl FnOnce(AgentHandle) -> C,
    options: SpawnOptions,
) -> Result<SpawnedAgent, Error> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(match options.stderr {
            Stderr::Inherit => Stdio::inherit(),
            Stderr::Discard => Stdio::null(),
            Stderr::Tracing | Stderr::Lines(_) => Stdio::piped(),
        })
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command.spawn().map_err(Error::Spawn)?;
    // With `process_group(0)` the group's id is the agent's pid.
    let group = child.id();
    let missing = || Error::Spawn(std::io::Error::other("the child's stdio was not piped"));
    let stdin = child.stdin.take().ok_or_else(missing)?;
    let stdout = child.stdout.take().ok_or_else(missing)?;
    let stderr = child.stderr.take();
    tracing::debug!(pid = child.id(), "started the agent");
    let (agent, driver) = connect(make_client, stdout, stdin, options.client);
    let pump = stderr.map(|stderr| forward_stderr(stderr, options.stderr));
    let inner: BoxFuture<'static, Result<(), acp_rpc::Error>> = Box::pin(async move {
        match pump {
            // Forward stderr while the connection runs; the connection decides when we are done.
            Some(pump) => {
                tokio::pin!(pump);
                tokio::pin!(driver);
                loop {
                    tokio::select! {
                        result = &mut driver => break result,
                        () = &mut pump, if !pump_done(&pump) => {}
                    }
                }
            }
            None => driver.await,
        }
    });
    Ok(SpawnedAgent {
        agent,
        driver: AgentDriver { inner },
        process: AgentProcess { group, child },
    })
}

fn pump_done<F>(_pump: &Pin<&mut futures::future::Fuse<F>>) -> bool
where
    F: Future,
{
    futures::future::FusedFuture::is_terminated(&**_pump)
}

fn forward_stderr(
    stderr: ChildStderr,
    mode: Stderr,
) -> futures::future::Fuse<BoxFuture<'static, ()>> {
    use futures::FutureExt;
    let fut: BoxFuture<'static, ()> = Box::pin(async move {
        let mut lines = BufReader::new(stderr).lines();
        loop {
            match lines.next_line().await {
                Ok(Some(line)) => match &mode {
                    Stderr::Lines(callback) => callback(&line),
                    _ => tracing::info!(target: "acp_client::agent_stderr", "{line}"),
                },
                Ok(None) => break,
                Err(error) => {
                    tracing::debug!(%error, "reading the agent's stderr failed");
                    break;
                }
            }
        }
    });
    fut.fuse()
}
