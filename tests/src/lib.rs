//! End-to-end tests of the Agent Client Protocol crates: the `acp-agent` crate against the
//! `acp-client` crate, with every message on the wire checked against the official schema.
//!
//! ```text
//! acp-client (TestClient) --tap--> pipe --tap--> acp-agent (ScriptedAgent)     in process
//! acp-client --spawn--> e2e_relay (records bytes) --> e2e_agent (serve_stdio)    child process
//! ```
//!
//! The pieces:
//!
//! - [`ScriptedAgent`]: a complete agent whose prompt turns follow the scripts of [`script`]
//!   (the first word of the prompt): streaming every kind of update, asking permission,
//!   reading and writing files, driving terminals, eliciting input, waiting for cancellation,
//!   crashing. Its sessions can be listed, loaded (with replay), resumed, closed and deleted,
//!   and have modes and configuration options.
//! - [`TestClient`]: an editor with an in-memory file system, fake terminals and scripted
//!   elicitation answers, answering permission requests by a [`PermissionPolicy`] or by
//!   handing them to the test.
//! - [`wire`]: the validating tap. It splits the byte stream of each direction into messages
//!   (strictly, in the framing expected), and hands each to a [`Checker`]; the integration
//!   tests pass one backed by the official `schema.json` (`acp-testkit`). A test ends with
//!   [`Wire::assert_clean`], which fails on any framing, JSON or schema problem.
//! - [`Duplex`]: both ends in one process over in-memory pipes, tapped both ways.
//! - [`RawPeer`]: a hand-driven peer facing one real end, for answers only a foreign peer
//!   gives and requests only a hostile one sends.
//! - [`RemoteServer`] / [`RemoteClient`]: both ends over the network transports of `acp-http`
//!   (Streamable HTTP and WebSocket), every message checked by the server's tap.
//! - [`ChildAgent`]: the `e2e_agent` program as a real child process, started with
//!   `acp_client::spawn` through the `e2e_relay` program, which records both directions for
//!   the tap.
//!
//! The tests live in `tests/*.rs`, one file per area.

mod agent;
mod child;
mod client;
mod duplex;
mod raw;
mod remote;
pub mod script;
mod turns;
pub mod wire;

pub use agent::{AgentConfig, AgentEvent, AgentEvents, LIST_PAGE_SIZE, ScriptedAgent, SharedState};
pub use child::{
    AGENT_TO_CLIENT_LOG, CLIENT_TO_AGENT_LOG, ChildAgent, ChildEnded, ChildOptions, EVENTS_LOG,
};
pub use client::{ClientEvent, PermissionPolicy, TestClient, form_answers};
pub use duplex::{
    CheckerBox, Duplex, DuplexOptions, Ended, HANG_GUARD, PIPE_BYTES, Wiring,
    all_client_capabilities, within,
};
pub use raw::RawPeer;
pub use remote::{RemoteClient, RemoteServer, Transport};
pub use turns::{ELICITATION_ID, block_kind, elicitation_form};
pub use wire::{Checker, Direction, Seen, Wire};

/// The code snippets of the repository's README, compiled as doctests so they cannot rot.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeSnippets;
