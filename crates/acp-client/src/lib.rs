//! Build an Agent Client Protocol client (an editor): implement [`Client`], then connect it to
//! any ACP agent, in process or as a child process.
//!
//! ```text
//! acp-types / acp-codec / acp-rpc   the wire types, framing and connection
//! acp-agent      the agent's side
//! acp-client  <- you are here: the editor's trait, the handle to the agent, spawning agents
//! ```
//!
//! A client is a type implementing [`Client`]: the methods the agent may call (permission
//! requests, session updates, files, terminals, elicitation), with defaults for everything
//! optional. [`spawn`] starts an agent program and connects to it; [`connect`] works over any
//! reader and writer. The returned [`AgentHandle`] calls the agent with one typed method per
//! ACP method, and hands out per-session streams of updates.
//!
//! ```
//! use acp_client::{AgentHandle, Client, ClientOptions, connect};
//! use acp_types::*;
//!
//! struct Editor;
//!
//! #[async_trait::async_trait]
//! impl Client for Editor {
//!     async fn request_permission(
//!         &self,
//!         request: RequestPermissionRequest,
//!     ) -> Result<RequestPermissionResponse, ErrorObject> {
//!         // Approve with the first option offered.
//!         Ok(RequestPermissionResponse::selected(request.options[0].option_id.clone()))
//!     }
//!     async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
//!         if let SessionUpdate::AgentMessageChunk(chunk) = &n.update {
//!             eprint!("{}", chunk.content.as_text().unwrap_or_default());
//!         }
//!         Ok(())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
//! # let (reader, writer) = tokio::io::split(agent_io);
//! # let (_c, agent_driver) = acp_rpc::connect(|_| acp_rpc::Router::new()
//! #     .request::<methods::Initialize, _, _>(|_| async { Ok(InitializeResponse::new(ProtocolVersion::V1)) })
//! #     .request::<methods::SessionNew, _, _>(|_| async { Ok(NewSessionResponse::new("s1")) })
//! #     .request::<methods::SessionPrompt, _, _>(|_| async { Ok(PromptResponse::new(StopReason::EndTurn)) }),
//! #     reader, writer, Default::default());
//! # tokio::spawn(agent_driver);
//! // `agent_io` is served by an agent (see the `acp-agent` crate), or use `acp_client::spawn`.
//! let (reader, writer) = tokio::io::split(client_io);
//! let (agent, driver) = connect(|_agent: AgentHandle| Editor, reader, writer, ClientOptions::default());
//! tokio::spawn(driver);
//!
//! agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)).await?;
//! let session = agent.new_session(NewSessionRequest::new("/tmp", Vec::<McpServer>::new())).await?;
//! let mut updates = agent.session_updates(session.session_id.clone());
//! let done = agent.prompt(PromptRequest::new(session.session_id, vec!["Hello".into()])).await?;
//! assert_eq!(done.stop_reason, StopReason::EndTurn);
//! while let Some(update) = updates.try_next() {
//!     let _ = update; // Every update of the turn is here once `prompt` returned.
//! }
//! # Ok(()) }
//! ```
//!
//! # What the library takes care of
//!
//! See [`ClientOptions`]. Cancelling a session with [`AgentHandle::cancel`] answers its pending
//! permission requests with the `cancelled` outcome at once; `initialize` checks the protocol
//! version the agent answered; calls the agent did not advertise fail locally with
//! [`Error::CapabilityNotAdvertised`]. A spawned agent runs in its own process group, which is
//! killed when the [`AgentProcess`] is dropped.

//!
//! # Draft protocol features
//!
//! The cargo features of `acp-types` for the protocol's draft surface (`unstable_session_fork`,
//! ..., `unstable` for all) exist here too and turn on the client's side of each: trait methods
//! for the new methods, typed calls on the handle, and their capability gates.

//!
//! # ACP v2 (draft)
//!
//! With the feature `unstable_protocol_v2` (not part of `unstable`, as upstream),
//! `AgentHandle::negotiate` asks the agent for v2 and falls back to v1; the `v2` module has
//! the v2 handle and how the agent's v2 requests reach the [`Client`], and `model` is one
//! session model that the updates of either version build. Without the feature nothing
//! changes.

#![doc(test(attr(deny(warnings))))]

mod admit;
mod client;
pub mod compactions;
mod connection;
mod error;
pub mod local;
#[cfg(feature = "unstable_protocol_v2")]
pub mod model;
mod process;
pub mod terminals;
#[cfg(feature = "unstable_protocol_v2")]
pub mod v2;
pub mod workspace;
// The draft features that add calls to the agent.
#[cfg(any(
    feature = "unstable_session_fork",
    feature = "unstable_llm_providers",
    feature = "unstable_mcp_over_acp",
    feature = "unstable_auth_status",
    feature = "unstable_session_archive",
    feature = "unstable_session_status",
    feature = "unstable_session_set_title",
    feature = "unstable_session_options"
))]
mod unstable;

// Process groups and stderr handling live in `acp-process` (which `acp-http`'s bridge uses too);
// they are part of this crate's API as they always were.
pub use acp_process::{MAX_STDERR_LINE, ProcessGroup, Stderr, StopStage, Stopped, forward_stderr};
pub use acp_rpc::{Config, Direction, Driver, FramingMode, Observer};
pub use acp_types::ErrorObject;
pub use async_trait::async_trait;
pub use client::Client;
pub use compactions::{CompactionError, CompactionView, Compactions};
pub use connection::{
    AgentHandle, ClientOptions, PROMPT_CANCEL_GRACE, SessionUpdates, connect, connect_messages,
};
pub use error::Error;
pub use local::{Local, LocalCall, WithLocal};
pub use process::{AgentDriver, AgentProcess, SpawnOptions, SpawnedAgent, spawn};
pub use terminals::Terminals;
pub use workspace::Workspace;

/// Locks `mutex`, going on after a panic elsewhere: every value kept under a lock here stays
/// consistent between two statements (one insert, remove or push at a time).
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
