//! Session status (`unstable_session_status`): whether the agent holds a session in memory,
//! asked without side effects (`session/status`).

use crate::prelude::*;

wire_object! {
    /// Asks whether the agent holds a session in memory (`session/status`).
    ///
    /// No side effects: the agent does not load, resume, create, close or change the session.
    /// Only sent when the agent advertises `sessionCapabilities.status`; an unknown session
    /// gets `-32002`.
    #[new(session_id: impl Into<SessionId>)]
    pub struct SessionStatusRequest {
        /// The session to check.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/status`.
    #[new(status: impl Into<SessionStatus>)]
    pub struct SessionStatusResponse {
        /// The session's status.
        req status: SessionStatus = "status";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// Whether the agent has a session in memory. An open set: other values are kept as
    /// they are.
    pub enum SessionStatus {
        /// The session is in memory.
        Open = "open",
        /// The session is stored but not in memory.
        Saved = "saved",
    }
    Other, open_schema = true
}

wire_object! {
    /// The agent supports `session/status` (advertised in `sessionCapabilities.status`).
    #[optional_fields(new)]
    pub struct SessionStatusCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
