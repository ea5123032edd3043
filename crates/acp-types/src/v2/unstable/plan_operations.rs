//! The v2 definitions of the draft feature `unstable`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use crate::v2::prelude::*;
use crate::v2::shape::keywords;

wire_object! {
    /// A plan kept in a file.
    #[schema_extend(schema_plan_file)]
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

/// Adds to the schema of a [`PlanFile`] what the types of its fields do not say.
fn schema_plan_file(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"uri": {"format": "uri"}}));
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
