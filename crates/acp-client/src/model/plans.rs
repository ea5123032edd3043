//! Plans of the session model, by `planId`.

use acp_types::v2::{PlanEntry, PlanId};

/// One plan: each update replaces its entries.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Plan {
    /// Its id; `None` for the (single, id-less) plan of a v1 agent.
    pub id: Option<PlanId>,
    /// The entries, in order.
    pub entries: Vec<PlanEntry>,
}

impl Plan {
    pub(crate) fn new(id: Option<PlanId>) -> Self {
        Self {
            id,
            entries: Vec::new(),
        }
    }
}
