//! Remote ACP: serve any [`acp_agent::Agent`] over Streamable HTTP (POST + server-sent events)
//! and WebSocket, or reach a remote agent with any [`acp_client::Client`], with the same trait
//! API as over stdio.
//!
//! (Crate docs with a runnable example: written once the server and client are in place.)

#![doc(test(attr(deny(warnings))))]

mod headers;
mod message;
#[cfg(feature = "client")]
mod sse;

#[cfg(feature = "server")]
pub mod server;

#[cfg(feature = "client")]
pub mod client;

pub use headers::{CONNECTION_ID, SESSION_ID};
