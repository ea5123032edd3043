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
