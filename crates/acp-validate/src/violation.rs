//! What is wrong with a message: [`Violation`].

use std::fmt;

use crate::{Kind, Role};

/// Which part of a message a [`Violation`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Part {
    /// The bytes: not JSON, or not a JSON-RPC object (one with `method` or `id`).
    Message,
    /// The envelope: `jsonrpc`, `id`, `method`, `params`, `result` or `error` as the sending
    /// side may send them.
    Envelope,
    /// The method: not one of the protocol, served by the sender itself, or sent as a request
    /// when it is a notification (or the other way round).
    Method,
    /// The params, against the definition of the method.
    Params,
    /// The result, against the result definition of the request's method.
    Result,
    /// The error object of an error response.
    Error,
    /// The id: an answer to no request the peer has open, a request reusing the id of one
    /// still open, or an id the schema's `RequestId` refuses (`null` in v2).
    Id,
}

/// One message that breaks the protocol: who sent it, which message it is, where it is wrong
/// and why, in a line. Small (the strings that never change are boxed), as the error of
/// every check.
///
/// Its [`Display`](fmt::Display) is that line, the sender and the message first, then the
/// reason: ``the agent's `session/update` notification: params of `session/update` are not a
/// valid SessionNotification: at /update: ...``.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// The side that sent the message.
    pub from: Role,
    /// What the message is, when it is a JSON-RPC object.
    pub kind: Option<Kind>,
    /// Its method; for a response, the method of the request it answers, when known.
    pub method: Option<Box<str>>,
    /// Its id, as JSON text (`3`, `"a"`), when it has one.
    pub id: Option<Box<str>>,
    /// Which part of the message is wrong.
    pub part: Part,
    /// Where in the message the first schema error is (a JSON Pointer: `/params/update`);
    /// empty for the message as a whole.
    pub path: Box<str>,
    /// The schema keyword that failed for the first schema error, a JSON Pointer into the
    /// schema (`/$defs/NewSessionRequest/properties/cwd/type`); empty when the schema was not
    /// what failed.
    pub schema_path: Box<str>,
    /// What is wrong: the first schema errors with their paths (the rest counted), or the
    /// method or id problem.
    pub reason: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {}'s ", self.from)?;
        let method = self.method.as_deref();
        let id = self.id.as_deref().unwrap_or("?");
        match (self.kind, method) {
            (Some(Kind::Request), Some(m)) => write!(f, "request {id} (`{m}`)")?,
            (Some(Kind::Notification), Some(m)) => write!(f, "`{m}` notification")?,
            (Some(Kind::Response), Some(m)) => write!(f, "response to request {id} (`{m}`)")?,
            (Some(Kind::Response), None) => write!(f, "response to request {id}")?,
            (Some(kind), None) => write!(f, "{kind}")?,
            (None, _) => f.write_str("message")?,
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for Violation {}
