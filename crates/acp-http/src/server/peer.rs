//! Who is at the other end of a connection: what the server knows of the client (its
//! authenticated principal, its address), for the agent factory and for the per-client limits.

use std::net::{IpAddr, SocketAddr};

/// The client of one connection, as the server knows it: given to the factory of
/// [`AcpServer::with_peer`](crate::server::AcpServer::with_peer), so that each connection's
/// agent can act for that client only (for example its sessions: see
/// `acp_agent::SessionStore::owned_by`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Peer {
    /// The connection's id (`Acp-Connection-Id`).
    pub connection_id: String,
    /// Who the [`auth`](crate::server::ServerOptions::auth) hook said the client is
    /// ([`AuthDecision::AllowAs`](crate::server::AuthDecision::AllowAs)); `None` without
    /// authentication, or when the hook answered a plain `Allow`.
    pub principal: Option<String>,
    /// The client's address, when the server was run by [`serve`](crate::server::serve) (or
    /// the router was given axum's `ConnectInfo<SocketAddr>`).
    pub addr: Option<SocketAddr>,
}

impl Peer {
    /// Whose things (sessions, files) the connection may reach: the principal when the client
    /// authenticated as one, otherwise the connection itself (its id, 128 random bits, which
    /// only its client knows).
    pub fn owner(&self) -> &str {
        self.principal.as_deref().unwrap_or(&self.connection_id)
    }
}

/// The principal the auth hook named for a request (a request extension set by the guard).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Principal(pub(crate) String);

/// What the per-client limits count by: the principal, or else the address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ClientKey {
    /// An authenticated principal.
    Principal(String),
    /// A client address (no principal).
    Address(IpAddr),
}

impl ClientKey {
    /// The key of a request's client; `None` when neither is known (the router mounted
    /// without `ConnectInfo` and no principal): then no per-client limit applies.
    pub(crate) fn of(principal: Option<&str>, addr: Option<SocketAddr>) -> Option<Self> {
        match (principal, addr) {
            (Some(principal), _) => Some(Self::Principal(principal.to_owned())),
            (None, Some(addr)) => Some(Self::Address(addr.ip())),
            (None, None) => None,
        }
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Principal(p) => write!(f, "principal {p:?}"),
            Self::Address(ip) => write!(f, "address {ip}"),
        }
    }
}
