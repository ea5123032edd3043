//! The v2 definitions of the draft feature `unstable_session_status`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use crate::v2::prelude::*;

wire_object! {
    /// The agent's answer to `session/status`.
    #[new(status: impl Into<SessionStatus>)]
    pub struct SessionStatusResponse {
        /// The session's status.
        req status: SessionStatus = "status";
        /// Whether sessions can start without a sign-in: the only field clients act on.
        opt state: StateUpdate = "state" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

// The definitions of this draft v2 shares with v1: v1's types.
pub use crate::{SessionStatus, SessionStatusCapabilities, SessionStatusRequest};
