//! What sits behind one remote connection: an agent, reached by messages.
//!
//! The server core only moves JSON-RPC message bodies: a [`Link`] takes the client's messages
//! and yields the agent's. An [`acp_agent::Agent`] served in process is one kind of link; a
//! stdio agent program relayed without re-typing ([`crate::server::bridge`]) is another.

use std::io;
use std::sync::Arc;

use acp_agent::{Agent, AgentOptions, ClientHandle};
use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::server::Peer;
use crate::server::budget::BodyShare;

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
}

/// One agent behind one connection.
#[derive(Debug)]
pub(crate) struct Link {
    /// The client's messages, to the agent.
    pub(crate) to_agent: mpsc::Sender<Inbound>,
    /// The agent's messages, to the client; ends when the agent is gone.
    pub(crate) from_agent: mpsc::Receiver<Bytes>,
    /// What runs the agent; aborted when the connection ends.
    pub(crate) task: JoinHandle<()>,
    /// The agent's messages are written by `acp-rpc` (an agent served in process), in the
    /// layout whose prefix routing can read ([`crate::message::shape_of_ours`]).
    pub(crate) ours: bool,
}

/// Makes the agent of each new connection.
pub(crate) trait Backend: Send + Sync + 'static {
    /// Starts an agent for a new connection of `peer`.
    fn open(&self, peer: &Peer) -> io::Result<Link>;
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
        let (from_agent_tx, from_agent) = mpsc::channel::<Bytes>(CHANNEL_MESSAGES);
        let incoming = Box::pin(futures::stream::unfold(to_agent_rx, |mut rx| async move {
            // The body's share of the budget goes back here: acp-rpc's own in-flight budget
            // bounds what it holds from now on.
            rx.recv().await.map(|inbound| (Ok(inbound.message), rx))
        }));
        let outgoing = Box::pin(futures::sink::unfold(
            from_agent_tx,
            |tx, message: Bytes| async move {
                tx.send(message).await.map_err(|_| {
                    io::Error::new(io::ErrorKind::BrokenPipe, "the connection has ended")
                })?;
                Ok::<_, io::Error>(tx)
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
        let task = tokio::spawn(async move {
            if let Err(error) = driver.await {
                tracing::debug!(%error, "a remote connection's agent ended with an error");
            }
        });
        Ok(Link {
            to_agent,
            from_agent,
            task,
            ours: true,
        })
    }
}
