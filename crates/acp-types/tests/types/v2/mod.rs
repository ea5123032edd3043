//! The tests of the ACP v2 draft types (`acp_types::v2`, feature `unstable_protocol_v2`): every
//! definition against the official v2 schema, the three states of patch fields, the prompt
//! lifecycle and the rest of the SDK checklist of the v2 migration guide, round trips, and the
//! generated v2 schema against the committed and the official files; with every draft feature
//! on, the same of the drafts.

#![cfg(feature = "unstable_protocol_v2")]

mod checklist;
mod convert;
mod fixtures;
mod patch;
#[cfg(feature = "unstable")]
mod proptest_drafts;
mod proptest_roundtrip;
mod schema;
mod sizes;
mod spec;
