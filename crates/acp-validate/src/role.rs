//! Who sent a message, and what kind of JSON-RPC message it is.

use std::fmt;

use serde_json::Value;

/// Which side of a connection sent (or serves) something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The agent.
    Agent,
    /// The client (the editor).
    Client,
}

impl Role {
    /// The other side.
    pub fn peer(self) -> Role {
        match self {
            Role::Agent => Role::Client,
            Role::Client => Role::Agent,
        }
    }

    /// `agent` or `client`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Agent => "agent",
            Role::Client => "client",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a JSON-RPC message is, by its members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A request: `method` and `id`.
    Request,
    /// A notification: `method`, no `id`.
    Notification,
    /// A response (a result or an error): `id` and no `method`.
    Response,
}

impl Kind {
    /// The kind of `message`, or `None` when it is not a JSON-RPC object.
    pub fn of(message: &Value) -> Option<Kind> {
        let object = message.as_object()?;
        match (object.contains_key("method"), object.contains_key("id")) {
            (true, true) => Some(Kind::Request),
            (true, false) => Some(Kind::Notification),
            (false, true) => Some(Kind::Response),
            (false, false) => None,
        }
    }

    /// `request`, `notification` or `response`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Response => "response",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
