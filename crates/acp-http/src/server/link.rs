//! What makes the agent behind each remote connection.
//!
//! The server core only moves JSON-RPC message bodies: a [`Link`] (defined with the connection
//! that holds it) takes the client's messages and yields the agent's. An [`acp_agent::Agent`] served in process is one kind of link; a
//! stdio agent program relayed without re-typing ([`crate::server::bridge`]) is another.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;

use acp_agent::{Agent, AgentOptions, ClientHandle};
use bytes::Bytes;
use tokio::sync::mpsc;

use crate::server::Peer;
use crate::server::conn::{AgentTask, CHANNEL_MESSAGES, FromAgent, Inbound, Link, Outlet};

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
