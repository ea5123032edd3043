//! ACP v2 (draft) on the client's side (feature `unstable_protocol_v2`).
//!
//! One connection speaks one version, chosen by `initialize`:
//! [`AgentHandle::negotiate`](crate::AgentHandle::negotiate) asks for v2 and falls back to v1
//! when the agent answers 1. On a v2 connection:
//!
//! - the agent's requests reach the v2 methods of [`Client`](crate::Client)
//!   (`request_permission_v2`, `session_notification_v2`, `create_elicitation_v2`; extension
//!   methods and `elicitation/complete` as in v1), with the same gates (elicitation needs the
//!   client's `capabilities.elicitation`, unknown sessions are refused); the v1-only `fs/*` and
//!   `terminal/*` are refused with `-32601` saying v2 has none;
//! - [`AgentHandle`] makes the v2 calls: [`prompt`](AgentHandle::prompt) ends at the `idle`
//!   state update with its stop reason, [`cancel`](AgentHandle::cancel) waits for the `idle`
//!   that confirms it, [`resume_session`](AgentHandle::resume_session) replays with
//!   `replayFrom`;
//! - [`SessionModel`](crate::model::SessionModel) folds the updates of either version into one
//!   model.
//!
//! ```
//! use acp_client::{Client, ClientOptions, ErrorObject, connect};
//! use acp_types::{v2, Implementation, InitializeRequest, ProtocolVersion};
//!
//! struct Editor;
//!
//! #[async_trait::async_trait]
//! impl Client for Editor {
//!     async fn request_permission(
//!         &self,
//!         _: acp_types::RequestPermissionRequest,
//!     ) -> Result<acp_types::RequestPermissionResponse, ErrorObject> {
//!         Ok(acp_types::RequestPermissionResponse::cancelled())
//!     }
//!     async fn session_notification(&self, _: acp_types::SessionNotification) -> Result<(), ErrorObject> {
//!         Ok(())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
//! # let (reader, writer) = tokio::io::split(agent_io);
//! # let (_c, agent_driver) = acp_rpc::connect(|_| acp_rpc::Router::new()
//! #     .request::<v2::methods::Initialize, _, _>(|_| async {
//! #         Ok(v2::InitializeResponse::new(2u16, Implementation::new("agent", "1.0"))
//! #             .capabilities(v2::AgentCapabilities::new().session(v2::SessionCapabilities::new())))
//! #     })
//! #     .request::<v2::methods::SessionNew, _, _>(|_| async { Ok(v2::NewSessionResponse::new("s1")) }),
//! #     reader, writer, Default::default());
//! # tokio::spawn(agent_driver);
//! // `agent_io` is served by an agent that speaks v2 (or only v1).
//! let (reader, writer) = tokio::io::split(client_io);
//! let (agent, driver) = connect(|_| Editor, reader, writer, ClientOptions::default());
//! tokio::spawn(driver);
//!
//! let v2_request = v2::InitializeRequest::new(2u16, Implementation::new("editor", "1.0"));
//! let v1_fallback = InitializeRequest::new(ProtocolVersion::V1);
//! agent.negotiate(v2_request, v1_fallback).await?;
//! let Some(v2) = agent.v2() else {
//!     return Ok(()); // A v1 agent: `agent` is the v1 surface, as ever.
//! };
//! assert_eq!(agent.protocol_version(), Some(ProtocolVersion(2)));
//! let session = v2.new_session(v2::NewSessionRequest::new("/work")).await?;
//! assert_eq!(session.session_id.as_str(), "s1");
//! # Ok(()) }
//! ```
//!
//! Why a second handle and `_v2` trait methods rather than one surface: the two versions'
//! types differ in nearly every request (v2 `initialize`, permission requests with a title and
//! subject, prompts acknowledged rather than answered), so a shared signature would have to
//! convert on every call and lose what one version has and the other lacks. What is the same
//! logic is shared: the connection, the session admission, the cancellation of permission
//! requests, and the model.

mod handle;
pub(crate) mod negotiate;
pub(crate) mod serve;
mod shared;

pub use handle::{AgentHandle, SessionUpdates, TurnEnd};
pub use negotiate::Negotiated;
pub(crate) use shared::Shared;
