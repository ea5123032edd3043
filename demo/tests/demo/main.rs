//! The tests of the demo programs, in one test binary (one link, one executable): each module
//! runs the `agent`, `client` and `bridge` programs of this package as processes (cargo builds
//! them for the tests: `CARGO_BIN_EXE_*`), or the demo agent in process.

mod acp_check;
mod agent_history;
mod chain;
mod client_auth;
mod client_capabilities;
mod client_shutdown;
mod cluster;
mod common;
mod draft_features;
mod durable_sessions;
mod help;
mod kill_store;
mod logging;
mod protocol_v2;
mod remote;
mod scale_out;
mod session;
mod session_updates;
mod wired;
