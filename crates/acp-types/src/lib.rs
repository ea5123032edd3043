//! Every wire type of the Agent Client Protocol (ACP) v1, exact on the wire.
//!
//! ```text
//! acp-types   <- you are here: the messages (serde + JSON Schema)
//! acp-codec      framing of bytes (NDJSON, Content-Length)
//! acp-rpc        the JSON-RPC connection, built on both
//! ```
//!
//! Each of the 178 definitions of the official stable schema (November 2026) is a type of the same
//! name at the crate root: [`ContentBlock`], [`SessionUpdate`], [`PromptRequest`], ...
//! Decoding a document and encoding it again yields the same JSON: unknown fields and explicit
//! nulls are kept (see [`Extras`]), unknown union tags and enum values decode into explicit
//! `Unknown` variants, and nothing absent is filled in. Documents the schema rejects fail with
//! an error naming the field, except where the schema itself prescribes leniency.
//!
//! ```
//! use acp_types::{ContentBlock, SessionNotification, SessionUpdate, ContentChunk};
//!
//! let json = r#"{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk",
//!     "content":{"type":"text","text":"Hello"},"x-new-field":true}}"#;
//! let notification: SessionNotification = acp_types::from_str(json)?;
//! let SessionUpdate::AgentMessageChunk(chunk) = &notification.update else { panic!() };
//! assert_eq!(chunk.content, ContentBlock::from("Hello"));
//!
//! // Re-encoding keeps everything, including the field this crate does not know.
//! let again = serde_json::to_value(&notification)?;
//! assert_eq!(again, serde_json::from_str::<serde_json::Value>(json)?);
//!
//! // Building values: constructors take the required fields, setters the optional ones.
//! let update = SessionNotification::new(
//!     "sess-1",
//!     SessionUpdate::AgentMessageChunk(ContentChunk::new("Hi").message_id("m1")),
//! );
//! assert_eq!(serde_json::to_value(&update)?["update"]["messageId"], "m1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Messages decode by method, not by shape: see [`Message::decode`], [`RawMessage`] and the
//! typed methods of [`methods`]. The JSON Schema generated from these types is
//! `schema/acp.schema.json` in the repository (see [`schema`]).
//!
//! The protocol's draft (unstable) surface is behind cargo features, off by default and named
//! as in the official Rust schema crate: `unstable_agent_skills`, `unstable_auth_status`,
//! `unstable_end_turn_token_usage`, `unstable_llm_providers`, `unstable_mcp_over_acp`,
//! `unstable_prompt_suggestions`, `unstable_proxy_chains`, `unstable_session_archive`,
//! `unstable_session_cursors`, `unstable_session_fork`, `unstable_session_status`,
//! `unstable_session_options`, `unstable_session_set_title`, `unstable_speed_config_category`,
//! `unstable_subagents`, and `unstable` for all of them (plan operations come with `unstable`
//! alone). Each adds its definitions, fields,
//! union variants and methods; with a feature off, what it adds to the wire decodes as unknown
//! fields, `Unknown` variants and unknown methods, as before, and is written back unchanged.
//! Anything behind these features follows the draft and may change in a minor release.
//!
//! The draft of the protocol's second version is behind the feature `unstable_protocol_v2`
//! (not part of `unstable`, as upstream): the module `v2` then holds every definition of the
//! official v2 schema, beside the v1 types of the crate root.

#![doc(test(attr(deny(warnings))))]
#![warn(clippy::exhaustive_structs, clippy::exhaustive_enums)]

mod id_cache;
mod mode;
mod prelude;
mod wire;
mod wire_enum;
mod wire_value;

mod auth;
mod cancel_request;
pub mod capabilities;
mod compaction;
mod config;
mod content;
pub mod decode;
mod elicitation;
mod ext;
mod field;
mod fs;
mod helpers;
mod initialize;
mod jsonrpc;
mod mcp;
pub mod methods;
mod notice;
mod permission;
mod plan;
mod prompt;
mod protocol;
pub mod schema;
mod session;
mod session_id;
mod terminal;
mod tool_call;
mod unstable;
mod update;
#[cfg(feature = "unstable_protocol_v2")]
pub mod v2;

pub use auth::*;
pub use cancel_request::*;
pub use compaction::*;
pub use config::*;
pub use content::*;
pub use decode::{DecodeError, DecodeErrorKind, from_slice, from_str, from_value};
pub use elicitation::*;
pub use ext::*;
pub use field::{ConvertibleField, IntoField};
pub use fs::*;
pub use initialize::*;
pub use jsonrpc::*;
pub use mcp::*;
pub use notice::*;
pub use permission::*;
pub use plan::*;
pub use prompt::*;
pub use protocol::{
    AgentMessage, AgentNotification, AgentNotificationParams, AgentRequest, AgentRequestParams,
    AgentResponse, AgentResult, ClientMessage, ClientNotification, ClientNotificationParams,
    ClientRequest, ClientRequestParams, ClientResponse, ClientResult, Message, MethodUnion,
    NotificationMessage, RawMessage, RequestMessage, ResponseMessage,
};
#[cfg(feature = "unstable_proxy_chains")]
pub use protocol::{
    ProxyNotification, ProxyNotificationParams, ProxyRequest, ProxyRequestParams, ProxyResponse,
    ProxyResult,
};
pub use session::*;
pub use session_id::*;
pub use terminal::*;
pub use tool_call::*;
#[allow(unused_imports, unreachable_pub)] // Empty without a feature that adds types.
pub use unstable::*;
pub use update::*;
pub use wire::{Extras, Meta, WireFields};
