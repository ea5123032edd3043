//! Validation of Agent Client Protocol messages against the protocol's JSON Schema, for any
//! program: hook it into a connection and it reports every message the peer sends that the
//! schema rejects, each response checked against the request it answers.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//!
//! use acp_client::{ClientOptions, Direction};
//! use acp_validate::{Part, Role, peer_checker};
//!
//! // A client that checks what its agent sends, printing each violation:
//! let options = ClientOptions::default()
//!     .observe(peer_checker(Role::Agent, |violation| eprintln!("{violation}")));
//! # let _ = options;
//!
//! // What the connection does with every message, shown by hand: an update without its
//! // session is reported.
//! let found = Arc::new(Mutex::new(Vec::new()));
//! let keep = found.clone();
//! let observe = peer_checker(Role::Agent, move |v| keep.lock().unwrap().push(v.clone()));
//! observe(
//!     Direction::Received,
//!     br#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{}}}"#,
//! );
//! let found = found.lock().unwrap();
//! assert_eq!(found[0].part, Part::Params);
//! assert!(found[0].to_string().starts_with("the agent's `session/update` notification: "));
//! ```
//!
//! - [`Validator`]: one message checked as a whole against the embedded schema
//!   ([`Validator::embedded`]; the draft one with the `unstable` feature) or any schema of the
//!   protocol ([`Validator::new`], the official `schema.json` for one): its envelope as the
//!   sending side may send it, its params or result against its method's definition.
//!   Extension methods (`_...`) are checked only for their envelope. With the feature
//!   `unstable_protocol_v2`, the ACP v2 draft schema too (`Validator::embedded_v2`,
//!   [`Validator::embedded_for`] a version).
//! - [`Conversation`]: the messages of one connection, each response matched to the request
//!   it answers (bounded memory) and checked against that method's result; with
//!   [`Conversation::follow_version`], against the schema of the version its `initialize`
//!   negotiates (what [`Checker`] does).
//! - [`Violation`]: what is wrong, where, in which message from which side.
//! - [`Checker`], [`peer_checker`] (feature `observer`, on by default): the observer function
//!   for `AgentOptions::observe`, `ClientOptions::observe` and acp-rpc's `Config::observe`.

mod conversation;
#[cfg(feature = "observer")]
mod observe;
mod role;
mod validator;
mod violation;

pub use conversation::{Conversation, DEFAULT_OPEN_LIMIT, Fed, Open};
#[cfg(feature = "observer")]
pub use observe::{Checker, peer_checker};
pub use role::{Kind, Role};
#[cfg(feature = "unstable")]
pub use validator::UNSTABLE_SCHEMA_JSON;
#[cfg(feature = "unstable_protocol_v2")]
pub use validator::V2_SCHEMA_JSON;
#[cfg(all(feature = "unstable_protocol_v2", feature = "unstable"))]
pub use validator::V2_UNSTABLE_SCHEMA_JSON;
pub use validator::{Method, Mismatch, SCHEMA_JSON, SchemaError, Validator, is_extension, shorten};
pub use violation::{Part, Violation};
