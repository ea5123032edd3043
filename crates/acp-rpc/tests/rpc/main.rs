//! The integration tests of acp-rpc: two connections over in-memory pipes, and raw wire peers.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod common;

mod answers;
mod batching;
mod end_of_input;
mod ext;
mod fairness;
mod loopback;
mod observe;
mod raw_wire;
#[cfg(feature = "unstable_protocol_v2")]
mod v2_ids;
