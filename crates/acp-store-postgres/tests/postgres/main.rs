//! The PostgreSQL backend against a real server (a throwaway cluster of
//! `acp_testkit::services::Postgres`; skipped with a notice where PostgreSQL is not installed,
//! never under CI): sessions across a reopen and across two live nodes, owners, listing by
//! query, and a server that goes away.

#[path = "../../../acp-store-sqlite/tests/sqlite/common.rs"]
mod common;
mod history;
mod layout;
#[path = "../../../acp-store-sqlite/tests/sqlite/model.rs"]
mod model;
mod nodes;
