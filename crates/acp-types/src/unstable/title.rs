//! Session title (`unstable_session_set_title`): the client retitles a session
//! (`session/set_title`).

use crate::prelude::*;

wire_object! {
    /// Sets a session's title (`session/set_title`).
    ///
    /// The session need not be active on the connection. Only sent when the agent advertises
    /// `sessionCapabilities.title`; an unknown session gets `-32002`, a title the agent refuses
    /// (empty once normalized) `-32602`.
    #[new(session_id: impl Into<SessionId>, title: impl Into<String>)]
    pub struct SetSessionTitleRequest {
        /// The session to retitle.
        req session_id: SessionId = "sessionId";
        /// The new title (the agent may normalize it).
        req title: String = "title";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/set_title`, sent once the title is stored.
    #[new(title: impl Into<String>)]
    pub struct SetSessionTitleResponse {
        /// The title as stored, after the agent's normalization.
        req title: String = "title";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent lets clients set session titles (advertised in `sessionCapabilities.title`).
    ///
    /// Agents report titles through `session/list` and `session_info_update` without it.
    #[optional_fields(new)]
    pub struct SessionTitleCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
