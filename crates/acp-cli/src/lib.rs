//! `acp`: a command-line conformance checker for any Agent Client Protocol agent, a traffic
//! tap and a transcript validator.
//!
//! The binary is the product (`cargo install acp-cli`, then `acp --help`); this library is what
//! it is made of, for tests and for programs that want to run the checks themselves:
//!
//! ```
//! use acp_cli::schema::{Role, Schema};
//! use serde_json::json;
//!
//! // Every message a checked peer sends is validated for its method and direction.
//! let update = json!({"jsonrpc": "2.0", "method": "session/update", "params": {
//!     "sessionId": "s1",
//!     "update": {"sessionUpdate": "agent_message_chunk",
//!                "content": {"type": "text", "text": "Hi"}}}});
//! assert!(Schema::embedded().check_message(Role::Agent, &update, None).is_ok());
//! // A client may not send it.
//! assert!(Schema::embedded().check_message(Role::Client, &update, None).is_err());
//! ```
//!
//! - [`check_agent`]: `acp check agent`, the conformance cases for an agent.
//! - [`check_client`]: `acp check client`, the scripted agent that checks a client.
//! - [`schema`]: the embedded schema and message validation.
//! - [`protocol`]: the protocol versions a check speaks (v2 with the feature
//!   `unstable_protocol_v2`).
//! - [`report`]: the results, as a table or JSON.
//! - [`tap`]: `acp tap`, the transparent proxy that records a transcript.
//! - [`transcript`], [`validate`]: transcripts and `acp validate`.

mod answer;
mod case;
pub mod check_agent;
pub mod check_client;
pub mod conduct;
pub mod conn;
mod gated;
pub mod protocol;
pub mod report;
pub mod schema;
pub mod tap;
mod terminals;
pub mod transcript;
pub mod validate;
