//! What sits behind one remote connection: an agent, reached by messages.
//!
//! The server core only moves JSON-RPC message bodies: a [`Link`] takes the client's messages
//! and yields the agent's. An [`acp_agent::Agent`] served in process is one kind of link; a
//! stdio agent program relayed without re-typing ([`crate::server::bridge`]) is another.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, Weak};

use acp_agent::{Agent, AgentOptions, ClientHandle};
use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::server::Peer;
use crate::server::budget::{BodyShare, HeldBodies};
use crate::server::conn::{Connection, Ended};

/// How many messages wait in each direction between the transport and the agent before the
/// sender waits: small, so that backpressure reaches the agent's own outgoing buffer.
pub(crate) const CHANNEL_MESSAGES: usize = 16;

/// A client's message on its way to the agent, holding its share of the server's body budget
/// until the agent takes it.
#[derive(Debug)]
pub(crate) struct Inbound {
    pub(crate) message: Bytes,
    /// Held, not read: dropped when the agent took the message.
    pub(crate) _share: Option<BodyShare>,
    /// The message's place in its connection's count of held bodies, likewise.
    pub(crate) _held: Option<HeldBodies>,
}

/// One agent behind one connection.
#[derive(Debug)]
pub(crate) struct Link {
    /// The client's messages, to the agent.
    pub(crate) to_agent: mpsc::Sender<Inbound>,
    /// The agent's messages, to the client.
    pub(crate) from_agent: FromAgent,
    /// What runs the agent; ended ([`AgentTask::end`]) when the connection ends.
    pub(crate) task: AgentTask,
    /// The agent's messages are written by `acp-rpc` (an agent served in process), in the
    /// layout whose prefix routing can read ([`crate::message::shape_of_ours`]).
    pub(crate) ours: bool,
}

/// Where the agent's messages come from.
#[derive(Debug)]
pub(crate) enum FromAgent {
    /// A channel, which ends when the agent is gone (an agent program's relay).
    Channel(mpsc::Receiver<Bytes>),
    /// An agent in process, whose sends the connection takes itself (see [`Outlet`]).
    Outlet(Arc<Outlet>),
}

impl FromAgent {
    /// The agent's messages as a channel (the WebSocket profile writes them to its socket).
    pub(crate) fn into_channel(self) -> mpsc::Receiver<Bytes> {
        match self {
            Self::Channel(rx) => rx,
            Self::Outlet(outlet) => {
                let (tx, rx) = mpsc::channel(CHANNEL_MESSAGES);
                outlet.attach(Target::Channel(tx));
                rx
            }
        }
    }
}

/// Where an agent in process sends its messages: set once, when its connection is made
/// (before the agent can say anything: it speaks only after the connection forwards
/// `initialize`).
///
/// For the Streamable HTTP profile the agent's own task routes each message to its stream
/// ([`Connection::route`]): no task in between, no queue in between, so the agent waits
/// directly on the connection's output budget and the first message of a turn reaches its
/// reader one task switch sooner.
#[derive(Debug, Default)]
pub(crate) struct Outlet {
    target: OnceLock<Target>,
}

/// What an [`Outlet`] delivers to.
#[derive(Debug)]
pub(crate) enum Target {
    /// A channel's reader.
    Channel(mpsc::Sender<Bytes>),
    /// A connection that routes the messages itself.
    Routed(Weak<Connection>),
}

fn ended() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the connection has ended")
}

impl Outlet {
    /// Sets where the messages go (the first call wins).
    pub(crate) fn attach(&self, target: Target) {
        let _ = self.target.set(target);
    }

    /// Delivers one of the agent's messages, waiting for room.
    async fn send(&self, message: Bytes) -> io::Result<()> {
        match self.target.get() {
            Some(Target::Channel(tx)) => tx.send(message).await.map_err(|_| ended()),
            Some(Target::Routed(conn)) => match conn.upgrade() {
                Some(conn) if conn.route(message).await => Ok(()),
                _ => Err(ended()),
            },
            None => Err(ended()),
        }
    }

    /// The agent is gone: its connection ends (a channel's reader sees it end by itself).
    fn agent_gone(&self) {
        if let Some(Target::Routed(conn)) = self.target.get()
            && let Some(conn) = conn.upgrade()
        {
            conn.end(Ended::AgentGone);
        }
    }
}

/// What runs one connection's agent, and how it is ended.
///
/// An agent served in process is aborted: it holds nothing outside the process. An agent
/// program is asked to stop, and its task stops it gracefully in the background (its stdin
/// closed, then `SIGTERM`, then `SIGKILL`: see [`crate::server::bridge`]); dropping the handle
/// asks the same, so that no path leaves a program running or kills it outright.
#[derive(Debug)]
pub(crate) struct AgentTask {
    task: JoinHandle<()>,
    /// Asks an agent program's task to stop the program; `None` for an agent in process.
    stop: Option<CancellationToken>,
}

impl AgentTask {
    /// The task of an agent served in process.
    pub(crate) fn in_process(task: JoinHandle<()>) -> Self {
        Self { task, stop: None }
    }

    /// The task of an agent program, which stops the program once `stop` is cancelled.
    pub(crate) fn program(task: JoinHandle<()>, stop: CancellationToken) -> Self {
        Self {
            task,
            stop: Some(stop),
        }
    }

    /// Ends the agent without waiting for it: an agent in process is aborted, an agent
    /// program is stopped in the background.
    pub(crate) fn end(self) {
        if self.stop.is_none() {
            self.task.abort();
        }
        // A program's task is asked to stop when the handle drops.
    }
}

impl Drop for AgentTask {
    fn drop(&mut self) {
        if let Some(stop) = &self.stop {
            stop.cancel();
        }
    }
}

/// A future the server waits on, boxed so that [`Backend`] stays object safe.
pub(crate) type Waiting<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Makes the agent of each new connection.
pub(crate) trait Backend: Send + Sync + 'static {
    /// Starts an agent for a new connection of `peer`.
    fn open(&self, peer: &Peer) -> io::Result<Link>;

    /// The server is shutting down: every agent starts to stop (in the background).
    fn shutdown(&self) {}

    /// Resolves once the agents stopped after [`shutdown`](Self::shutdown), or a bound
    /// passed; at once when the server is not shutting down.
    fn stopped(&self) -> Waiting<'_> {
        Box::pin(async {})
    }
}

/// An [`Agent`] type served in process, one instance per connection.
pub(crate) struct TypedAgents<F> {
    pub(crate) factory: Arc<F>,
    pub(crate) options: AgentOptions,
}

impl<A, F> Backend for TypedAgents<F>
where
    A: Agent,
    F: Fn(ClientHandle, &Peer) -> A + Send + Sync + 'static,
{
    fn open(&self, peer: &Peer) -> io::Result<Link> {
        let (to_agent, to_agent_rx) = mpsc::channel::<Inbound>(CHANNEL_MESSAGES);
        let outlet = Arc::new(Outlet::default());
        let incoming = Box::pin(futures::stream::unfold(to_agent_rx, |mut rx| async move {
            // The body's share of the budget goes back here: acp-rpc's own in-flight budget
            // bounds what it holds from now on.
            rx.recv().await.map(|inbound| (Ok(inbound.message), rx))
        }));
        let outgoing = Box::pin(futures::sink::unfold(
            outlet.clone(),
            |outlet, message: Bytes| async move {
                outlet.send(message).await?;
                Ok::<_, io::Error>(outlet)
            },
        ));
        let factory = self.factory.clone();
        let peer = peer.clone();
        let (_client, driver) = acp_agent::serve_messages(
            move |client| factory(client, &peer),
            incoming,
            outgoing,
            self.options.clone(),
        );
        let gone = outlet.clone();
        let task = tokio::spawn(async move {
            if let Err(error) = driver.await {
                tracing::debug!(%error, "a remote connection's agent ended with an error");
            }
            gone.agent_gone();
        });
        Ok(Link {
            to_agent,
            from_agent: FromAgent::Outlet(outlet),
            task: AgentTask::in_process(task),
            ours: true,
        })
    }
}
