//! Session notices: advisory messages for the user, not part of
//! the session's history.

use crate::prelude::*;

string_enum! {
    /// How prominent a notice is. An open set: other values are kept as they are.
    pub enum NoticeSeverity {
        /// For information.
        Info = "info",
        /// Something the user should know.
        Warning = "warning",
        /// Something went wrong.
        Error = "error",
    }
    Other, open_schema = true
}

wire_object! {
    /// A fire-and-forget notice for the user (`"sessionUpdate": "notice"`).
    ///
    /// Not session history: not replayed by `session/load`, and clients may ignore it. Only sent
    /// to clients that advertise `session.notices`.
    #[new(severity: impl Into<NoticeSeverity>, title: impl Into<String>)]
    pub struct Notice {
        /// How prominent the notice is.
        req severity: NoticeSeverity = "severity";
        /// A plain-text title that stands alone. Never empty.
        req title: String = "title" [NON_EMPTY];
        /// Plain-text detail or guidance.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client can show notices to the user (advertised in `session.notices`).
    #[optional_fields(new)]
    pub struct NoticeCapabilities {}
}
