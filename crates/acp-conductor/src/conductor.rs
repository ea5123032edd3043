//! The conductor: starts the chain, runs it on one connection to its predecessor, and stops it.

use std::sync::Arc;
use std::time::Duration;

use acp_process::Stderr;
use acp_rpc::Direction;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::component::{Component, Running};
use crate::supervise::Processes;
use crate::{Error, relay, route};

/// How long each component gets to exit by itself once its input is closed, and again after
/// `SIGTERM`, before it is killed.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);

/// How the conductor presents itself to its predecessor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mode {
    /// As an agent (terminal mode): the editor sends `initialize`; the last component is the
    /// agent, every other one a proxy.
    Agent,
    /// As a proxy inside a larger chain (nested chains): the outer conductor sends
    /// `proxy/initialize`; every component is a proxy, and what the last one sends to its
    /// successor goes to the conductor's own successor, through the outer conductor.
    Proxy,
}

/// One hop of the chain, as the conductor sees it: the connection to its predecessor, or to
/// one component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Link {
    /// The connection to the predecessor (the editor, or the outer conductor).
    Predecessor,
    /// The connection to component `i` (0 is the first proxy).
    Component(usize),
}

/// A function that sees every message of every hop.
pub(crate) type Observe = Arc<dyn Fn(Link, Direction, &[u8]) + Send + Sync>;

/// How a run ended.
#[derive(Debug)]
pub(crate) enum Ended {
    /// The predecessor closed the connection (or it failed).
    Predecessor(std::io::Result<()>),
    /// Component `index` closed its connection or exited, as `how` says.
    Component { index: usize, how: String },
}

/// Runs a chain of proxies (and, in terminal mode, the agent after them) and presents it to
/// its predecessor as one agent (or, in proxy mode, as one proxy).
///
/// Each component runs in a process group of its own; when one ends, the chain ends: the
/// requests still open are answered with an error saying which component ended and how, and
/// every process is stopped. When the predecessor closes the connection, every component's
/// input is closed and each gets [`grace`](Self::grace) to exit before it is signalled.
///
/// With no proxy in terminal mode, the conductor relays the bytes between the editor and the
/// agent unchanged, looking at each message only to know which requests are open.
#[derive(Clone)]
pub struct Conductor {
    components: Vec<Component>,
    mode: Mode,
    stderr: Stderr,
    grace: Duration,
    observe: Option<Observe>,
}

impl std::fmt::Debug for Conductor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conductor")
            .field("components", &self.components)
            .field("mode", &self.mode)
            .field("stderr", &self.stderr)
            .field("grace", &self.grace)
            .field("observe", &self.observe.is_some())
            .finish()
    }
}

impl Conductor {
    /// A conductor in terminal mode ([`Mode::Agent`]): `components` are the proxies, in order,
    /// then the agent.
    pub fn agent(components: impl IntoIterator<Item = Component>) -> Self {
        Self::new(Mode::Agent, components)
    }

    /// A conductor in proxy mode ([`Mode::Proxy`]): `components` are the proxies, in order.
    pub fn proxy(components: impl IntoIterator<Item = Component>) -> Self {
        Self::new(Mode::Proxy, components)
    }

    /// A conductor in `mode` running `components`.
    pub fn new(mode: Mode, components: impl IntoIterator<Item = Component>) -> Self {
        Self {
            components: components.into_iter().collect(),
            mode,
            stderr: Stderr::Inherit,
            grace: DEFAULT_GRACE,
            observe: None,
        }
    }

    /// Where the components' stderr goes: by default the conductor's own
    /// ([`Stderr::Inherit`]).
    #[must_use]
    pub fn stderr(mut self, stderr: Stderr) -> Self {
        self.stderr = stderr;
        self
    }

    /// How long each component gets to exit when the chain stops, first by itself, then after
    /// `SIGTERM` ([`DEFAULT_GRACE`] by default).
    #[must_use]
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Calls `f` with every message of every hop, as received and as sent (the JSON text,
    /// without framing): for traces and for checking the traffic. It runs on the connections'
    /// tasks: keep it quick.
    #[must_use]
    pub fn observe(mut self, f: impl Fn(Link, Direction, &[u8]) + Send + Sync + 'static) -> Self {
        self.observe = Some(Arc::new(f));
        self
    }

    /// The components, in chain order.
    pub fn components(&self) -> &[Component] {
        &self.components
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Runs the chain on the connection `reader`/`writer` to the predecessor, until the
    /// predecessor closes it or hangs up (`Ok`) or the chain ends early (`Err`). Every process of the
    /// chain has been stopped when it returns.
    ///
    /// # Errors
    ///
    /// [`Error::Chain`] for a chain this mode cannot run, [`Error::Spawn`] when a component
    /// cannot be started, [`Error::ComponentEnded`] when a component ended the chain,
    /// [`Error::Io`] when the connection to the predecessor failed.
    pub async fn run<R, W>(self, reader: R, writer: W) -> Result<(), Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        if self.components.is_empty() {
            return Err(Error::Chain(match self.mode {
                Mode::Agent => "a chain needs at least its agent",
                Mode::Proxy => "a conductor in proxy mode needs at least one proxy",
            }));
        }
        let names: Vec<String> = self
            .components
            .iter()
            .map(|c| c.name().to_owned())
            .collect();
        let mut groups = Vec::with_capacity(self.components.len());
        let mut pipes = Vec::with_capacity(self.components.len());
        for (i, component) in self.components.iter().enumerate() {
            match component.spawn(i, &self.stderr) {
                Ok(Running { group, pipes: io }) => {
                    groups.push(group);
                    pipes.push(io);
                }
                Err(error) => {
                    // Their input closes with `pipes`: the ones started stop by themselves.
                    drop(pipes);
                    let started = names[..groups.len()].to_vec();
                    Processes::new(groups, started).stop_all(self.grace).await;
                    return Err(error);
                }
            }
        }
        let processes = Processes::new(groups, names.clone());
        let (ended, processes) = if self.mode == Mode::Agent && pipes.len() == 1 {
            relay::run(reader, writer, pipes, processes, self.observe).await
        } else {
            route::run(reader, writer, pipes, processes, self.mode, self.observe).await
        };
        processes.stop_all(self.grace).await;
        match ended {
            Ended::Predecessor(Ok(())) => Ok(()),
            // Writing to a predecessor that hung up (closed both ends while messages were on
            // their way to it) fails before its end of input is read: it is the same end.
            Ended::Predecessor(Err(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                ) =>
            {
                tracing::debug!(error = %e, "the predecessor hung up while the chain was writing to it");
                Ok(())
            }
            Ended::Predecessor(Err(e)) => Err(Error::Io(e)),
            Ended::Component { index, how } => Err(Error::ComponentEnded {
                component: names[index].clone(),
                index,
                how,
            }),
        }
    }

    /// Runs the chain on the process's stdin and stdout, as an editor (or an outer conductor)
    /// that started the conductor talks to it. See [`run`](Self::run).
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    pub async fn run_stdio(self) -> Result<(), Error> {
        let (stdin, stdout) = acp_rpc::stdio();
        self.run(stdin, stdout).await
    }
}
