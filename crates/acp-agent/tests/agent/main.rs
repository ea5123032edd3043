//! The integration tests of acp-agent: the session store across connections, the toolkit pieces.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod store_connections;
mod toolkit_pieces;
