//! The transport's header names.

/// `Acp-Connection-Id`: names the connection an HTTP request belongs to. The server assigns it
/// in its answer to `initialize` (or to the WebSocket upgrade); it routes, it does not
/// authenticate.
pub const CONNECTION_ID: &str = "acp-connection-id";

/// `Acp-Session-Id`: names the session a POST or a GET stream belongs to.
pub const SESSION_ID: &str = "acp-session-id";
