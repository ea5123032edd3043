//! The integration tests of acp-client: agents as child processes, the client's own tools.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod common;

mod agent_stderr;
mod local;
mod observe;
mod shutdown;
#[cfg(feature = "unstable_protocol_v2")]
mod v2;
