//! The agent's plan for a turn: its entries, with their priority and progress.

use crate::prelude::*;

wire_object! {
    /// The agent's plan for the turn; each update replaces the whole plan.
    #[new(entries: impl Into<Vec<PlanEntry>>)]
    pub struct Plan {
        /// The tasks of the plan.
        req entries: Vec<PlanEntry> = "entries" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// One task of the agent's plan.
    #[new(
        content: impl Into<String>,
        priority: impl Into<PlanEntryPriority>,
        status: impl Into<PlanEntryStatus>,
    )]
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
    Unknown, open_schema = false
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
    }
    Unknown, open_schema = false
}
