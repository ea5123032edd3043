//! Build an Agent Client Protocol agent: implement [`Agent`], then serve it.
//!
//! ```text
//! acp-types / acp-codec / acp-rpc   the wire types, framing and connection
//! acp-agent   <- you are here: the agent's trait, serving it, the handle to the client
//! acp-client     the editor's side
//! ```
//!
//! An agent is a type implementing [`Agent`]: one async method per ACP method, with defaults
//! for everything optional. [`serve_stdio`] runs it on stdin/stdout (the standard transport);
//! [`serve`] on any reader and writer. The agent reaches the client through the
//! [`ClientHandle`] it gets at construction, and streams a turn's progress through the
//! [`PromptContext`] each prompt gets.
//!
//! ```
//! use acp_agent::{Agent, AgentOptions, ClientHandle, PromptContext, serve};
//! use acp_types::*;
//!
//! struct EchoAgent;
//!
//! #[async_trait::async_trait]
//! impl Agent for EchoAgent {
//!     async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
//!         Ok(InitializeResponse::new(ProtocolVersion::LATEST))
//!     }
//!     async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
//!         Ok(NewSessionResponse::new("session-1"))
//!     }
//!     async fn prompt(&self, req: PromptRequest, cx: PromptContext) -> Result<PromptResponse, ErrorObject> {
//!         for block in req.prompt {
//!             cx.message(block).await?; // Echo every block back as a message chunk.
//!         }
//!         Ok(PromptResponse::new(StopReason::EndTurn))
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (agent_io, client_io) = tokio::io::duplex(64 * 1024);
//! let (reader, writer) = tokio::io::split(agent_io);
//! let (_client, driver) = serve(|_client: ClientHandle| EchoAgent, reader, writer, AgentOptions::default());
//! tokio::spawn(driver);
//! # let (reader, writer) = tokio::io::split(client_io);
//! # let (agent, client_driver) = acp_rpc::connect(|_| acp_rpc::Router::new(), reader, writer, Default::default());
//! # tokio::spawn(client_driver);
//! # let init = agent.request::<methods::Initialize>(&InitializeRequest::new(ProtocolVersion::V1)).await?;
//! # assert_eq!(init.protocol_version, ProtocolVersion::V1);
//! # let session = agent.request::<methods::SessionNew>(&NewSessionRequest::new("/tmp", Vec::<McpServer>::new())).await?;
//! # let done = agent.request::<methods::SessionPrompt>(&PromptRequest::new(session.session_id, vec!["hi".into()])).await?;
//! # assert_eq!(done.stop_reason, StopReason::EndTurn);
//! // A client (see the `acp-client` crate) now talks to the agent through `client_io`.
//! # Ok(()) }
//! ```
//!
//! # What the library takes care of
//!
//! See [`AgentOptions`]; each rule can be turned off. Requests before `initialize` are refused;
//! the protocol version is negotiated; a second `session/prompt` for a session whose prompt is
//! running is refused with `-32600`; `session/cancel` reaches the running prompt as
//! [`PromptContext::cancelled`] / [`PromptContext::is_cancelled`], and the turn then ends with
//! `stopReason: "cancelled"`; calls to the client it did not advertise (`fs`, `terminal`,
//! elicitation) fail locally with [`Error::CapabilityNotAdvertised`], and so do session
//! updates that need a client capability (compaction updates, notices).

//!
//! # Draft protocol features
//!
//! The cargo features of `acp-types` for the protocol's draft surface (`unstable_session_fork`,
//! ..., `unstable` for all) exist here too and turn on the agent's side of each: trait methods
//! for the new methods, typed calls on the handle, their capability gates, and
//! `PromptContext` helpers for the new session updates.
//!
//! # ACP v2 (draft)
//!
//! With the feature `unstable_protocol_v2` (not part of `unstable`), the same agent also
//! serves clients of protocol version 2, the version negotiated per connection: the library
//! converts v2 requests onto this one [`Agent`] trait, runs the v2 prompt lifecycle, and makes
//! the toolkit speak v2 on a v2 connection. The module `v2` explains the design and what each
//! v2 feature maps to. What only v2 can say has calls of its own, each documented with what it
//! does on a v1 connection: `MessageHandle` (replace or clear a message by its `messageId`),
//! tool-call content chunks ([`ToolCallHandle::content`]), and agent-owned display terminals
//! (`DisplayTerminalHandle`).

#![doc(test(attr(deny(warnings))))]

mod admit;
mod agent;
mod compaction;
mod connection;
mod context;
mod cwd;
#[cfg(feature = "unstable_protocol_v2")]
mod display_terminal;
mod error;
#[cfg(feature = "unstable_protocol_v2")]
mod message;
mod modes;
mod notice;
mod signal;
mod store;
mod terminal;
mod tools;
#[cfg(feature = "unstable_protocol_v2")]
pub mod v2;
// The draft features' calls to the client and session updates.
#[cfg(any(
    feature = "unstable",
    feature = "unstable_auth_status",
    feature = "unstable_mcp_over_acp",
    feature = "unstable_subagents"
))]
mod unstable;

pub use acp_rpc::{Config, Direction, Driver, FramingMode, Observer};
pub use acp_types::ErrorObject;
pub use agent::Agent;
pub use async_trait::async_trait;
pub use compaction::Compaction;
pub use connection::{AgentOptions, ClientHandle, serve, serve_messages, serve_stdio};
pub use context::{Cancelled, PromptContext};
#[cfg(feature = "unstable_protocol_v2")]
pub use display_terminal::{DisplayTerminalHandle, NewDisplayTerminal};
pub use error::Error;
#[cfg(feature = "unstable_protocol_v2")]
pub use message::MessageHandle;
pub use modes::{DEFAULT_MAX_MODE_SESSIONS, Modes};
pub use store::{
    DurableOptions, History, HistoryLimits, SessionState, SessionStore, StoreLimits, TurnGuard,
    backend, is_conversation,
};
pub use terminal::{NewTerminal, TerminalHandle};
pub use tools::{
    IntoPlanEntry, Permission, PlanHandle, ToolCallHandle, ToolOutput, permission_options,
};
