//! The tests of the `acp` tool: its checks against good and broken peers, tap and validate.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod common;

mod check_agent;
mod check_client;
mod cli;
mod conduct;
mod tap_validate;
#[cfg(feature = "unstable_protocol_v2")]
mod v2;
