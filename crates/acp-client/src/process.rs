//! Starting an agent program and connecting to it over its stdio, and closing it again.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use acp_process::{ProcessGroup, Stderr, Stopped, forward_stderr};
use acp_rpc::Driver;
use futures::future::BoxFuture;
use tokio::io::AsyncWrite;
use tokio::process::{ChildStdin, Command};

use crate::{AgentHandle, Client, ClientOptions, Error, connect};

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
    /// The agent process: its exit status, closing it, killing it.
    pub process: AgentProcess,
}

/// The future that runs the connection to a spawned agent and forwards its stderr.
///
/// It resolves when the connection ends (typically because the agent exited, or after
/// [`AgentProcess::shutdown`]). If the agent's stderr is still open then (or when the driver is
/// dropped), the rest of it is read to its end on a background task of the current tokio
/// runtime, so that the agent can go on logging while it shuts down; see [`Stderr`].
#[must_use = "the connection does nothing unless its driver is polled"]
pub struct AgentDriver {
    driver: Driver,
    /// Forwards the agent's stderr until its end (`None` when not piped, or done).
    stderr: Option<BoxFuture<'static, ()>>,
    /// Alternates which of the two is polled first, so that a chatty stderr cannot starve the
    /// connection (or the reverse) once tokio's cooperative budget runs out.
    stderr_first: bool,
}

impl std::fmt::Debug for AgentDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentDriver")
            .field("stderr", &self.stderr.is_some())
            .finish_non_exhaustive()
    }
}

impl AgentDriver {
    /// Polls the stderr forwarder, forgetting it once done.
    fn poll_stderr(&mut self, cx: &mut Context<'_>) {
        if let Some(pump) = self.stderr.as_mut() {
            if pump.as_mut().poll(cx).is_ready() {
                self.stderr = None;
            }
        }
    }

    /// Moves the unfinished stderr forwarder to a task of its own, which reads to the end.
    fn detach_stderr(&mut self) {
        let Some(pump) = self.stderr.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(pump)),
            Err(_) => tracing::debug!("no tokio runtime to drain the agent's stderr: closing it"),
        }
    }
}

impl Future for AgentDriver {
    type Output = Result<(), acp_rpc::Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.stderr_first = !this.stderr_first;
        if this.stderr_first {
            this.poll_stderr(cx);
        }
        let result = Pin::new(&mut this.driver).poll(cx);
        if result.is_pending() && !this.stderr_first {
            this.poll_stderr(cx);
        }
        let result = ready!(result);
        this.detach_stderr();
        Poll::Ready(result)
    }
}

impl Drop for AgentDriver {
    fn drop(&mut self) {
        self.detach_stderr();
    }
}

/// A running agent process.
///
/// The agent runs in a process group of its own (on Unix). [`shutdown`](Self::shutdown) closes
/// it gracefully; dropping this kills the agent and every process of its group at once, so no
/// helper it started survives.
#[derive(Debug)]
pub struct AgentProcess {
    process: ProcessGroup,
    stdin: SharedStdin,
}

impl AgentProcess {
    /// The operating system's process id, while the process runs.
    pub fn id(&self) -> Option<u32> {
        self.process.id()
    }

    /// The agent's process group (on Unix), kept after the agent exited.
    pub fn group_id(&self) -> Option<u32> {
        self.process.group_id()
    }

    /// Waits for the agent to exit and reports how it did.
    ///
    /// # Errors
    ///
    /// When the status cannot be read.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.process.wait().await
    }

    /// The exit status if the agent has exited, without waiting.
    ///
    /// # Errors
    ///
    /// When the status cannot be read.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.process.try_wait()
    }

    /// Kills the agent (and its process group on Unix) now.
    ///
    /// # Errors
    ///
    /// When the process cannot be signalled.
    pub fn kill(&mut self) -> io::Result<()> {
        self.process.kill()
    }

    /// Closes the agent's stdin: the agent reads the end of its input, which for an ACP agent
    /// means the client is gone. The connection keeps reading what the agent still sends
    /// until it exits; anything sent to the agent from now on fails (the connection's writer
    /// fails, which ends the connection), and messages still queued for sending are dropped.
    pub fn close_stdin(&self) {
        self.stdin.close();
    }

    /// Closes the agent gracefully and reports how it ended:
    ///
    /// 1. closes its stdin ([`close_stdin`](Self::close_stdin)) and waits up to `grace` for
    ///    it to exit ([`StopStage::Exited`](crate::StopStage::Exited));
    /// 2. then sends `SIGTERM` to its process group and waits up to `grace` again
    ///    ([`StopStage::Terminated`](crate::StopStage::Terminated));
    /// 3. then kills the group with `SIGKILL` and waits
    ///    ([`StopStage::Killed`](crate::StopStage::Killed)).
    ///
    /// Whatever is left of the agent's process group once the agent ended is killed. The
    /// connection ends when the agent exits: await the answers you need (a cancelled turn's
    /// end, say) before, since messages still queued for sending are dropped. On platforms
    /// other than Unix, step 2 kills the agent.
    ///
    /// ```no_run
    /// # #[allow(dead_code)]
    /// # async fn f(spawned: acp_client::SpawnedAgent) -> std::io::Result<()> {
    /// use std::time::Duration;
    ///
    /// let mut process = spawned.process;
    /// let stopped = process.shutdown(Duration::from_secs(2)).await?;
    /// eprintln!("the agent {stopped}"); // "the agent exited with code 0"
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// When the process cannot be signalled or its status read.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: dropped half way, the later steps do not happen (dropping the
    /// `AgentProcess` still kills the group).
    pub async fn shutdown(&mut self, grace: Duration) -> io::Result<Stopped> {
        self.stdin.close();
        self.process.wait_or_stop(grace).await
    }
}

/// The agent's stdin, shared by the connection's writer and [`AgentProcess::close_stdin`].
#[derive(Debug, Clone)]
struct SharedStdin(Arc<Mutex<StdinState>>);

/// The connection's end of the agent's stdin: dropping it (when the connection ends or its
/// driver is dropped) closes the pipe, as dropping a plain `ChildStdin` would.
#[derive(Debug)]
struct StdinWriter(SharedStdin);

impl Drop for StdinWriter {
    fn drop(&mut self) {
        self.0.close();
    }
}

#[derive(Debug)]
struct StdinState {
    /// `None` once closed.
    pipe: Option<ChildStdin>,
    /// The writer waiting for the pipe, woken when the pipe is closed under it.
    waiting: Option<Waker>,
}

impl SharedStdin {
    fn new(pipe: ChildStdin) -> Self {
        Self(Arc::new(Mutex::new(StdinState {
            pipe: Some(pipe),
            waiting: None,
        })))
    }

    fn state(&self) -> MutexGuard<'_, StdinState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn close(&self) {
        let (pipe, waiting) = {
            let mut state = self.state();
            (state.pipe.take(), state.waiting.take())
        };
        drop(pipe);
        if let Some(waker) = waiting {
            waker.wake();
        }
    }

    /// Runs `op` on the open pipe, remembering the waker if it waits.
    fn with_pipe<T>(
        &self,
        cx: &mut Context<'_>,
        closed: impl FnOnce() -> io::Result<T>,
        op: impl FnOnce(Pin<&mut ChildStdin>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        let mut state = self.state();
        let Some(pipe) = state.pipe.as_mut() else {
            return Poll::Ready(closed());
        };
        let poll = op(Pin::new(pipe), cx);
        if poll.is_pending() {
            state.waiting = Some(cx.waker().clone());
        }
        poll
    }
}

fn stdin_closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        "the agent's stdin was closed (AgentProcess::close_stdin)",
    )
}

impl AsyncWrite for StdinWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.with_pipe(
            cx,
            || Err(stdin_closed()),
            |pipe, cx| pipe.poll_write(cx, buf),
        )
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.0.with_pipe(
            cx,
            || Err(stdin_closed()),
            |pipe, cx| pipe.poll_write_vectored(cx, bufs),
        )
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0
            .with_pipe(cx, || Ok(()), |pipe, cx| pipe.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0
            .with_pipe(cx, || Ok(()), |pipe, cx| pipe.poll_shutdown(cx))
    }
}

/// Starts `command` as an agent with piped stdin/stdout and connects `client` to it.
///
/// The agent's stderr goes where [`SpawnOptions::stderr`] says. The process is put in its own
/// process group (on Unix), so that dropping the [`AgentProcess`] kills the agent with
/// everything it started; [`AgentProcess::shutdown`] closes it gracefully.
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
        .stderr(options.stderr.stdio());
    let mut process = ProcessGroup::spawn(&mut command).map_err(Error::Spawn)?;
    let child = process.child();
    let missing = || Error::Spawn(io::Error::other("the child's stdio was not piped"));
    let stdin = SharedStdin::new(child.stdin.take().ok_or_else(missing)?);
    let stdout = child.stdout.take().ok_or_else(missing)?;
    let stderr = child.stderr.take();
    tracing::debug!(pid = child.id(), "started the agent");
    let (agent, driver) = connect(
        make_client,
        stdout,
        StdinWriter(stdin.clone()),
        options.client,
    );
    let stderr = stderr.map(|pipe| forward_stderr(pipe, options.stderr));
    Ok(SpawnedAgent {
        agent,
        driver: AgentDriver {
            driver,
            stderr,
            stderr_first: false,
        },
        process: AgentProcess { process, stdin },
    })
}
