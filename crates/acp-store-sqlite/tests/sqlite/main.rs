//! The SQLite backend for real, in temporary directories: sessions across a reopen, owners,
//! listing by query, the write queue's bound, a database that fails, unreadable files, and
//! `kill -9` of a writing process; what a recording turn puts on the wire and in the file.

mod chunks;
mod common;
mod crash;
mod failures;
mod files;
mod listing;
mod model;
mod restart;
mod runtimes;
mod scratch;
mod wire;
