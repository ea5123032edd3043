//! Session compaction: the agent reports when it compacts a
//! session's context, and streams the summary it keeps.

use crate::prelude::*;

id_type! {
    /// Identifies one compaction of a session's context.
    pub struct CompactionId;
}

string_enum! {
    /// Where a compaction stands. An open set: other values are kept as they are.
    pub enum CompactionStatus {
        /// The compaction is running.
        InProgress = "in_progress",
        /// The compaction finished.
        Completed = "completed",
        /// The compaction failed.
        Failed = "failed",
        /// The compaction was cancelled.
        Cancelled = "cancelled",
    }
    Other, open_schema = true
}

wire_object! {
    /// A compaction started or changed state (`"sessionUpdate": "compaction_update"`).
    ///
    /// Optional fields work as a patch: an absent or `null` field leaves the value the client
    /// knows unchanged. Only sent to clients that advertise `session.compaction`.
    #[new(compaction_id: impl Into<CompactionId>, status: impl Into<CompactionStatus>)]
    pub struct CompactionUpdate {
        /// The compaction this concerns.
        req compaction_id: CompactionId = "compactionId";
        /// Its status now.
        req status: CompactionStatus = "status";
        /// The summary that replaces the compacted history, when known.
        opt summary: Vec<ContentBlock> = "summary" [DOE | SKIP | NULLABLE];
        /// Why the compaction failed, for a failed one.
        opt error: String = "error" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A streamed piece of a compaction's summary
    /// (`"sessionUpdate": "compaction_summary_chunk"`).
    #[new(compaction_id: impl Into<CompactionId>, content: impl Into<ContentBlock>)]
    pub struct CompactionSummaryChunk {
        /// The compaction this belongs to.
        req compaction_id: CompactionId = "compactionId";
        /// The piece of the summary.
        req content: ContentBlock = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client understands compaction updates (advertised in `session.compaction`).
    #[optional_fields(new)]
    pub struct CompactionCapabilities {}
}
