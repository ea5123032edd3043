//! Plan operations (draft, with the umbrella feature `unstable` alone): several plans per session, addressed by id,
//! as entries, a file or markdown, and their removal.

use crate::prelude::*;

id_type! {
    /// Identifies one plan of a session.
    pub struct PlanId;
}

wire_object! {
    /// A plan was created or replaced (`"sessionUpdate": "plan_update"`).
    ///
    /// Only sent to clients that advertise `plan`; others get the stable `plan` update.
    #[new(plan: impl Into<PlanUpdateContent>)]
    pub struct PlanUpdate {
        /// The plan, whole.
        req plan: PlanUpdateContent = "plan";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
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
    #[new(plan_id: impl Into<PlanId>, entries: impl Into<Vec<PlanEntry>>)]
    pub struct PlanItems {
        /// The plan's id.
        req plan_id: PlanId = "planId";
        /// The entries, in order.
        req entries: Vec<PlanEntry> = "entries" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A plan kept in a file.
    #[new(plan_id: impl Into<PlanId>, uri: impl Into<String>)]
    pub struct PlanFile {
        /// The plan's id.
        req plan_id: PlanId = "planId";
        /// The file's URI.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A plan written as markdown.
    #[new(plan_id: impl Into<PlanId>, content: impl Into<String>)]
    pub struct PlanMarkdown {
        /// The plan's id.
        req plan_id: PlanId = "planId";
        /// The markdown text.
        req content: String = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A plan was removed (`"sessionUpdate": "plan_removed"`).
    #[new(plan_id: impl Into<PlanId>)]
    pub struct PlanRemoved {
        /// The plan removed.
        req plan_id: PlanId = "planId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
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
