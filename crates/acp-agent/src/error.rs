//! Errors of the calls an agent makes to the client.

use acp_types::ErrorObject;

/// Why a call to the client failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The connection failed the call (the client answered with an error, went away, or sent
    /// an answer that does not fit).
    #[error(transparent)]
    Rpc(#[from] acp_rpc::Error),

    /// The client did not advertise the capability the method needs, so the call was not sent.
    #[error("the client did not advertise `{capability}`, so `{method}` was not sent")]
    CapabilityNotAdvertised {
        /// The method that was not sent.
        method: &'static str,
        /// The client capability it needs (as named in `clientCapabilities`).
        capability: &'static str,
    },

    /// The agent did not advertise the capability that allows it to send the method (draft
    /// `auth/status_update` needs `auth.status`), so the call was not sent.
    #[error("the agent did not advertise `{capability}`, so `{method}` was not sent")]
    OwnCapabilityNotAdvertised {
        /// The method that was not sent.
        method: &'static str,
        /// The agent capability it needs (as named in `agentCapabilities`).
        capability: &'static str,
    },

    /// The call or update does not exist in the protocol version this connection speaks (on
    /// a v2 connection: the client's `fs/*` and `terminal/*` methods, session modes; on a v1
    /// connection: the v2-only updates), so nothing was sent.
    #[cfg(feature = "unstable_protocol_v2")]
    #[error("{what} is not part of ACP protocol version {version}, which this connection speaks")]
    NotInProtocolVersion {
        /// What was refused (a method, or an update kind).
        what: std::borrow::Cow<'static, str>,
        /// The connection's protocol version.
        version: acp_types::ProtocolVersion,
    },

    /// A value cannot be said in the protocol version this connection speaks without losing
    /// part of it, so nothing was sent.
    #[cfg(feature = "unstable_protocol_v2")]
    #[error("cannot send {what} in ACP protocol version {version}: {reason}")]
    Unconvertible {
        /// What could not be converted.
        what: std::borrow::Cow<'static, str>,
        /// The connection's protocol version.
        version: acp_types::ProtocolVersion,
        /// Why.
        reason: String,
    },
}

impl Error {
    /// The error object the client answered with, if that is what failed.
    pub fn remote(&self) -> Option<&ErrorObject> {
        match self {
            Error::Rpc(acp_rpc::Error::Remote(e)) => Some(e),
            _ => None,
        }
    }
}

impl From<Error> for ErrorObject {
    /// Lets agent methods use `?` on client calls: the client's own error is passed on as it
    /// is, anything else becomes an internal error.
    fn from(error: Error) -> Self {
        match error {
            Error::Rpc(acp_rpc::Error::Remote(e)) => e,
            other => ErrorObject::internal_error(other),
        }
    }
}
