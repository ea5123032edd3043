//! End-to-end tests: the agent crate against the client crate, in process and as child processes.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod common;

mod admission;
mod cancel;
mod child_process;
mod draft_features;
mod elicitation;
mod eras;
mod faults;
mod fs_terminal;
mod lifecycle;
mod permissions;
mod prompt_turn;
mod remote;
mod rules;
mod spec_update;
mod toolkit;
mod v2_lifecycle;
mod v2_pairings;
mod v2_remote;
mod v2_toolkit;
