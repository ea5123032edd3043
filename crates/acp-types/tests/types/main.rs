//! The integration tests of acp-types: builders, messages, fixtures, round trips, the schema.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod common;

mod builders;
mod draft_features_off;
mod fixtures;
mod messages;
mod null_default;
mod proptest_roundtrip;
mod schema_snapshot;
mod spec_examples;
mod v2;
