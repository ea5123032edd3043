//! The integration tests of acp-http: the server and the client, each against the other and
//! against raw HTTP and WebSocket peers.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

#[cfg(all(feature = "client", feature = "server"))]
#[path = "../client_support/mod.rs"]
mod client_support;
#[path = "../common/mod.rs"]
mod common;

mod client_client_id;
mod client_e2e;
mod client_failures;
mod client_http;
mod client_tls;
mod client_ws;
mod protocol_version;
mod server_bridge;
mod server_browser_guard;
mod server_client_id;
mod server_http;
mod server_limits;
#[cfg(all(feature = "server", feature = "unstable_protocol_v2"))]
mod server_v2;
mod server_ws;
mod server_ws_abuse;
