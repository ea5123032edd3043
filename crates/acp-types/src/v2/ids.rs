//! The identifiers of v2.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;

id_type! {
    /// A MIME type (`text/plain`, `image/png`, ...).
    pub struct MediaType;
}

id_type! {
    /// An absolute file system path, as text.
    pub struct AbsolutePath;
}

id_type! {
    /// An opaque cursor of `session/list`, from a previous response's `nextCursor`.
    pub struct SessionListCursor;
}

id_type! {
    /// Identifies a plan within a session.
    pub struct PlanId;
}

id_type! {
    /// Identifies one compaction of a session's context.
    pub struct CompactionId;
}
