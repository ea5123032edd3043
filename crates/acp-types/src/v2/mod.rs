//! ACP v2 (draft): every definition of the official v2 schema, under its official name
//! (feature `unstable_protocol_v2`).
//!
//! v2 is a consolidation of v1: the `session/prompt` response only acknowledges the prompt and
//! the turn's progress and end arrive as [`StateUpdate`]s; messages, tool calls, plans and
//! display terminals are upserts keyed by required ids, whose fields have three states
//! ([`Patch`]: omitted, `null`, a value); `tool_call` and `plan` became [`ToolCallUpdate`] and
//! [`PlanUpdate`]; the client's `fs/*` and `terminal/*` methods and session modes are gone;
//! `session/load` became `session/resume` with [`ReplayFrom`]; `authenticate` became
//! `auth/login` (+ `auth/logout`); `initialize` carries `info` and `capabilities` on both sides;
//! and every enum and tagged union is open.
//!
//! ```
//! use acp_types::v2::{AgentMessage, ContentBlock, Patch, SessionUpdate, UpdateSessionNotification};
//!
//! let json = r#"{"sessionId":"s1","update":{"sessionUpdate":"agent_message","messageId":"m1",
//!     "content":null}}"#;
//! let notification: UpdateSessionNotification = acp_types::from_str(json)?;
//! let SessionUpdate::AgentMessage(message) = &notification.update else { panic!() };
//! // `null` clears the message's content; omitted would leave it as it is.
//! assert_eq!(message.content, Patch::Clear);
//! let again = serde_json::to_value(&notification)?;
//! assert_eq!(again, serde_json::from_str::<serde_json::Value>(json)?);
//!
//! // Building an upsert: setters set a value; `Patch::Clear` sends `null`.
//! let mut update = AgentMessage::new("m2").content(vec![ContentBlock::from("Hi")]);
//! update.meta = Patch::Clear;
//! assert_eq!(
//!     serde_json::to_value(&update)?,
//!     serde_json::json!({"messageId": "m2", "content": [{"type": "text", "text": "Hi"}], "_meta": null}),
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The types follow the rules of the v1 types: decoding and encoding again gives the same JSON
//! (unknown fields and explicit nulls are kept); an unknown enum value or union tag (including a
//! `_`-prefixed extension value) decodes into an `Unknown` variant and is written back as it
//! came, while a malformed payload of a *known* kind is an error; leniency is exactly where the
//! schema's `x-deserialize-*` annotations say.
//!
//! The definitions v2 shares unchanged with v1 (descriptions aside, and every definition they
//! name as well) are v1's types, re-exported here (listed in [`REEXPORTED`]). Every other
//! definition is a v2 type of its own, even where only a type it names changed (its Rust fields
//! then have other types).
//!
//! The JSON-RPC envelopes ([`AgentRequest`], [`ClientResponse`], ...) carry params and results
//! as JSON; [`methods`] ties each method to its types, and [`schema`] generates the v2 schema.
//! Most files are generated from the official schema by `src/v2/codegen/gen.py` (in the
//! repository), which writes the macros every wire type of this crate is declared with.

mod check;
mod conversions;
pub mod convert;
mod definitions;
mod error_code;
mod helpers;
mod jsonrpc;
pub mod methods;
mod patch;
mod prelude;
pub mod schema;
mod shape;
mod unstable;
mod untagged;

mod auth;
mod capabilities;
mod command;
mod config;
mod content;
mod diff;
mod elicitation;
mod error;
mod ids;
mod initialize;
mod mcp;
mod messages;
mod permission;
mod plan;
mod session;
mod state;
mod terminal;
mod tool_call;
mod update;

pub use auth::*;
pub use capabilities::*;
pub use command::*;
pub use config::*;
pub use content::*;
pub use convert::ConvertError;
pub use definitions::{REEXPORTED, REEXPORTED_DRAFTS};
pub use diff::*;
pub use elicitation::*;
pub use error::*;
pub use error_code::*;
pub use ids::*;
pub use initialize::*;
pub use jsonrpc::*;
pub use mcp::*;
pub use messages::*;
pub use patch::*;
pub use permission::*;
pub use plan::*;
pub use session::*;
pub use state::*;
pub use terminal::*;
pub use tool_call::*;
#[allow(unused_imports, unreachable_pub)] // With no draft feature on, `unstable` is empty.
pub use unstable::*;
pub use untagged::*;
pub use update::*;

// The definitions v2 shares with v1 (see `REEXPORTED`): v1's types.
pub use crate::{
    AuthMethodId, BooleanPropertySchema, CloseSessionRequest, CloseSessionResponse,
    CompleteElicitationNotification, Cost, DeleteSessionRequest, DeleteSessionResponse,
    ElicitationCapabilities, ElicitationFormCapabilities, ElicitationId, ElicitationSchemaType,
    ElicitationSessionScope, ElicitationUrlCapabilities, EnumOption, EnvVariable, ExtNotification,
    ExtRequest, ExtResponse, HttpHeader, Implementation, IntegerPropertySchema, MessageId,
    NumberPropertySchema, PermissionOptionId, ProtocolVersion, SelectedPermissionOutcome,
    SessionAdditionalDirectoriesCapabilities, SessionConfigBoolean, SessionConfigGroupId,
    SessionConfigId, SessionConfigOptionCategory, SessionConfigSelectOption, SessionConfigValueId,
    SessionDeleteCapabilities, SessionId, Terminal, TerminalId, ToolCallId, UsageUpdate,
};
