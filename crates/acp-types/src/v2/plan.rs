//! Plans, keyed by `planId`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;
use super::shape::catch_all_requires;

tagged_union! {
    /// The content of a plan update, told apart by its `type`.
    pub enum PlanUpdateContent {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        unknown_requires = ["planId"],
        schema_extend = schema_plan_update_content,
        variants {
            /// A list of entries.
            Items(PlanItems) = "items",
            /// A file holding the plan.
            #[cfg(feature = "unstable")]
            File(PlanFile) = "file",
            /// The plan as markdown.
            #[cfg(feature = "unstable")]
            Markdown(PlanMarkdown) = "markdown",
        }
    }
}

/// Gives the catch-all branch of a [`PlanUpdateContent`] the members every kind requires.
fn schema_plan_update_content(object: &mut serde_json::Map<String, serde_json::Value>) {
    catch_all_requires(
        object,
        serde_json::json!({"planId": {"allOf": [{"$ref": "#/$defs/PlanId"}]}}),
        &["planId"],
    );
}

wire_object! {
    /// The `PlanEntry` of ACP v2.
    #[new(content: impl Into<String>, priority: impl Into<PlanEntryPriority>, status: impl Into<PlanEntryStatus>)]
    pub struct PlanEntry {
        /// What the task is.
        req content: String = "content";
        /// How important the task is.
        req priority: PlanEntryPriority = "priority";
        /// How far along the task is.
        req status: PlanEntryStatus = "status";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// How important a plan entry is.
    pub enum PlanEntryPriority {
        /// High priority.
        High = "high",
        /// Medium priority.
        Medium = "medium",
        /// Low priority.
        Low = "low",
    }
    Unknown, open_schema = true
}

string_enum! {
    /// How far along a plan entry is.
    pub enum PlanEntryStatus {
        /// Not started yet.
        Pending = "pending",
        /// Running.
        InProgress = "in_progress",
        /// Finished successfully.
        Completed = "completed",
        /// The entry was cancelled.
        Cancelled = "cancelled",
    }
    Unknown, open_schema = true
}

wire_object! {
    /// A plan given as a list of entries; each update replaces the plan's entries.
    #[new(plan_id: impl Into<PlanId>, entries: impl Into<Vec<PlanEntry>>)]
    pub struct PlanItems {
        /// The plan's id.
        req plan_id: PlanId = "planId";
        /// The entries, in order.
        req entries: Vec<PlanEntry> = "entries" [SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A plan created or replaced, by its `planId`.
    #[new(plan: impl Into<PlanUpdateContent>)]
    pub struct PlanUpdate {
        /// The plan, whole.
        req plan: PlanUpdateContent = "plan";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
