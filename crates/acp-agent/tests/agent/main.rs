//! The integration tests of acp-agent: the session store across connections, the toolkit
//! pieces, the session updates a client must have advertised.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod session_updates;
mod store_connections;
mod toolkit_pieces;
#[cfg(feature = "unstable_protocol_v2")]
mod v2_serving;
