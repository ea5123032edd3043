//! The v2 definitions of the draft feature `unstable_session_archive`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

// The definitions of this draft v2 shares with v1: v1's types.
pub use crate::{
    ArchiveSessionRequest, ArchiveSessionResponse, SessionArchiveCapabilities,
    SessionArchiveFilter, UnarchiveSessionRequest, UnarchiveSessionResponse,
};
