//! Plan operations (`unstable_plan_operations`): several plans per session, addressed by id,
//! as entries, a file or markdown, and their removal.

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::{id_type, tagged_union};
use crate::*;

id_type! {
    /// Identifies one plan of a session.
    pub struct PlanId;
}

wire_object! {
    /// A plan was created or replaced (`"sessionUpdate": "plan_update"`).
    ///
    /// Only sent to clients that advertise `plan`; others get the stable `plan` update.
    pub struct PlanUpdate {
        /// The plan, whole.
        req plan: PlanUpdateContent = "plan";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl PlanUpdate {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(plan: impl Into<PlanUpdateContent>) -> Self {
        Self {
            plan: plan.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

tagged_union! {
    /// The content of a plan: entries, a file, or markdown.
    pub enum PlanUpdateContent {
        tag = "type",
        combinator = "oneOf",
        discriminator = true,
        open = false,
        unknown = Unknown,
        variants {
            /// A list of entries.
            Items(PlanItems) = "items",
            /// A file holding the plan.
            File(PlanFile) = "file",
            /// The plan as markdown.
            Markdown(PlanMarkdown) = "markdown",
        }
    }
}

wire_object! {
    /// A plan as a list of entries.
    pub struct PlanItems {
        /// The plan's id.
        req plan_id: PlanId = "planId";
        /// The entries, in order.
        req entries: Vec<PlanEntry> = "entries" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl PlanItems {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(plan_id: impl Into<PlanId>, entries: impl Into<Vec<PlanEntry>>) -> Self {
        Self {
            plan_id: plan_id.into(),
            entries: entries.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A plan kept in a file.
    pub struct PlanFile {
        /// The plan's id.
        req plan_id: PlanId = "planId";
        /// The file's URI.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl PlanFile {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(plan_id: impl Into<PlanId>, uri: impl Into<String>) -> Self {
        Self {
            plan_id: plan_id.into(),
            uri: uri.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A plan written as markdown.
    pub struct PlanMarkdown {
        /// The plan's id.
        req plan_id: PlanId = "planId";
        /// The markdown text.
        req content: String = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl PlanMarkdown {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(plan_id: impl Into<PlanId>, content: impl Into<String>) -> Self {
        Self {
            plan_id: plan_id.into(),
            content: content.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A plan was removed (`"sessionUpdate": "plan_removed"`).
    pub struct PlanRemoved {
        /// The plan removed.
        req plan_id: PlanId = "planId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl PlanRemoved {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(plan_id: impl Into<PlanId>) -> Self {
        Self {
            plan_id: plan_id.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The client understands plan operations (advertised in `plan`).
    #[optional_fields(new)]
    pub struct PlanCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
