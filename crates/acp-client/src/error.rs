//! Errors of the calls a client makes to the agent.

use acp_types::{ErrorObject, ProtocolVersion};

/// Why a call to the agent (or starting it) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The connection failed the call (the agent answered with an error, went away, or sent
    /// an answer that does not fit).
    #[error(transparent)]
    Rpc(#[from] acp_rpc::Error),

    /// The agent did not advertise the capability the call needs, so it was not sent.
    #[error("the agent did not advertise `{capability}`, so `{method}` was not sent")]
    CapabilityNotAdvertised {
        /// The method that was not sent.
        method: &'static str,
        /// The agent capability it needs (as named in `agentCapabilities`).
        capability: &'static str,
    },

    /// The agent answered `initialize` with a protocol version this library does not support;
    /// the spec says to close the connection.
    #[error("the agent speaks protocol version {0}, which this client does not support")]
    UnsupportedProtocolVersion(ProtocolVersion),

    /// A v1 call on a connection that negotiated v2 (feature `unstable_protocol_v2`): make it
    /// through [`AgentHandle::v2`](crate::AgentHandle::v2). Nothing was sent.
    #[cfg(feature = "unstable_protocol_v2")]
    #[error(
        "`{method}` was called in its v1 form, but this connection speaks v2: use `AgentHandle::v2()`"
    )]
    NotV1 {
        /// The method that was not sent.
        method: &'static str,
    },
    /// The agent process could not be started.
    #[error("could not start the agent")]
    Spawn(#[source] std::io::Error),
}

impl Error {
    /// The error object the agent answered with, if that is what failed.
    pub fn remote(&self) -> Option<&ErrorObject> {
        match self {
            Error::Rpc(acp_rpc::Error::Remote(e)) => Some(e),
            _ => None,
        }
    }
}

impl From<Error> for ErrorObject {
    /// Passes the agent's own error on as it is; anything else becomes an internal error.
    fn from(error: Error) -> Self {
        match error {
            Error::Rpc(acp_rpc::Error::Remote(e)) => e,
            other => ErrorObject::internal_error(other),
        }
    }
}
