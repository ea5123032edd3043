//! Session notices (`unstable_session_notices`): advisory messages for the user, not part of
//! the session's history.

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::string_enum;

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
    /// Not session history: not replayed by `session/load`, and clients may ignore it.
    #[schema_extend(title_is_not_empty)]
    pub struct Notice {
        /// How prominent the notice is.
        req severity: NoticeSeverity = "severity";
        /// A plain-text title that stands alone. Never empty.
        req title: String = "title";
        /// Plain-text detail or guidance.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// The schema's `minLength: 1` on `title`.
fn title_is_not_empty(object: &mut serde_json::Map<String, serde_json::Value>) {
    if let Some(title) = object
        .get_mut("properties")
        .and_then(|p| p.get_mut("title"))
        .and_then(serde_json::Value::as_object_mut)
    {
        title.insert("minLength".into(), 1.into());
    }
}

impl Notice {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(severity: impl Into<NoticeSeverity>, title: impl Into<String>) -> Self {
        Self {
            severity: severity.into(),
            title: title.into(),
            description: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}
