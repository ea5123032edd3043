//! The connection's error type.

use acp_codec::CodecError;
use acp_types::{DecodeError, ErrorObject};

/// What can go wrong on a connection, or with one call on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The peer answered the call with a JSON-RPC error object.
    #[error("the peer answered with an error: {0}")]
    Remote(ErrorObject),

    /// The connection is closed (the peer went away, or the driver stopped): the call was not
    /// answered and will not be.
    #[error("the connection is closed")]
    ConnectionClosed,

    /// The transport failed; the connection is over.
    #[error("i/o error on the transport")]
    Io(#[source] std::io::Error),

    /// The framing of the incoming stream broke (for example a malformed Content-Length header);
    /// the connection is over.
    #[error("framing error: {0}")]
    Codec(#[source] CodecError),

    /// An outgoing message could not be framed (too large for the frame limit); nothing was sent.
    #[error("the message could not be framed")]
    Frame(#[source] CodecError),

    /// The peer's answer did not fit the result type of the call.
    #[error("the peer's answer does not fit the expected result type")]
    Decode(#[source] DecodeError),

    /// The peer did not answer in time; the request was cancelled (`$/cancel_request`).
    #[error("`{method}` was not answered within {after:?}")]
    Timeout {
        /// The method called.
        method: &'static str,
        /// The limit that passed.
        after: std::time::Duration,
    },

    /// Our own params or result could not be serialized; nothing was sent.
    #[error("the message could not be serialized")]
    Serialize(#[source] serde_json::Error),
}

impl Error {
    /// The error object to answer a request with when a handler fails with this error.
    pub fn to_error_object(&self) -> ErrorObject {
        match self {
            Error::Remote(e) => e.clone(),
            other => ErrorObject::internal_error(other),
        }
    }

    /// True when the error means the connection is gone.
    pub fn is_connection_closed(&self) -> bool {
        matches!(
            self,
            Error::ConnectionClosed | Error::Io(_) | Error::Codec(_)
        )
    }
}

impl From<ErrorObject> for Error {
    fn from(e: ErrorObject) -> Self {
        Error::Remote(e)
    }
}
