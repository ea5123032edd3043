//! Session archive (`unstable_session_archive`): hide a session from the default
//! `session/list` results and bring it back, keeping its id and history.

use crate::prelude::*;

wire_object! {
    /// Archives a session (`session/archive`): the agent ends any work on it, frees it as
    /// `session/close` would, and leaves it out of default `session/list` results.
    ///
    /// Only sent when the agent advertises `sessionCapabilities.archive`. Archiving an archived
    /// session succeeds; an unknown session gets `-32002`.
    #[new(session_id: impl Into<SessionId>)]
    pub struct ArchiveSessionRequest {
        /// The session to archive.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/archive`.
    #[optional_fields(new)]
    pub struct ArchiveSessionResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Unarchives a session (`session/unarchive`): it is listed by default again. It is not
    /// loaded or resumed.
    ///
    /// Only sent when the agent advertises `sessionCapabilities.archive`. Unarchiving a session
    /// that is not archived succeeds; an unknown session gets `-32002`.
    #[new(session_id: impl Into<SessionId>)]
    pub struct UnarchiveSessionRequest {
        /// The session to unarchive.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/unarchive`.
    #[optional_fields(new)]
    pub struct UnarchiveSessionResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent supports `session/archive`, `session/unarchive`, the `archived` filter of
    /// `session/list` and `SessionInfo.archived` (advertised in `sessionCapabilities.archive`;
    /// such an agent also advertises `sessionCapabilities.list`).
    #[optional_fields(new)]
    pub struct SessionArchiveCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// Which sessions `session/list` returns by archive state (absent means `exclude`). An
    /// open set: other values are kept, and an agent refuses the ones it does not support
    /// with `-32602`.
    pub enum SessionArchiveFilter {
        /// Only sessions that are not archived (the default).
        Exclude = "exclude",
        /// Archived sessions and the others.
        Include = "include",
        /// Only archived sessions.
        Only = "only",
    }
    Other, open_schema = true
}
