//! MCP over ACP (`unstable_mcp_over_acp`): MCP servers that live in the client (or another ACP
//! component) and are reached through the ACP connection itself.
//!
//! The client lists such a server as [`McpServer::Acp`] (to agents that advertise
//! `mcpCapabilities.acp`). Each inner MCP request travels as an `mcp/message` request from the
//! agent to the client, naming the server and the inner request's id; its answer is the
//! inner result or MCP error ([`MessageMcpResponse`]). While an inner request is active, the
//! server side sends `mcp/message` notifications for it (progress, subscription updates).

use std::borrow::Cow;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use crate::prelude::*;
use crate::wire::{
    DOE, Extras, Key, KeySeed, NULLABLE, Optional, Slot, UnknownSeed, UnknownValue, duplicate,
    error_at, lenient_no_default,
};

id_type! {
    /// Identifies an MCP server reached over ACP, as the client named it in [`McpServerAcp`].
    pub struct McpServerAcpId;
}

id_type! {
    /// Identifies an inner MCP request active on a server of this ACP connection, chosen by the
    /// caller and kept unchanged by proxies (not the outer JSON-RPC request id).
    pub struct McpRequestId;
}

wire_object! {
    /// An MCP server reached through the ACP connection (`"type": "acp"` in [`McpServer`]).
    ///
    /// Only offered to agents that advertise `mcpCapabilities.acp`.
    #[new(name: impl Into<String>, server_id: impl Into<McpServerAcpId>)]
    pub struct McpServerAcp {
        /// A human-readable name.
        req name: String = "name";
        /// The id `mcp/message` names the server by.
        req server_id: McpServerAcpId = "serverId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An inner MCP request to a server reached over ACP (`mcp/message` with an id, agent to
    /// client). Its result is a [`MessageMcpResponse`].
    #[new(
        server_id: impl Into<McpServerAcpId>,
        request_id: impl Into<McpRequestId>,
        method: impl Into<String>,
    )]
    pub struct MessageMcpRequest {
        /// The server the request is for (one the client declared).
        req server_id: McpServerAcpId = "serverId";
        /// The inner request's id, chosen by the caller.
        req request_id: McpRequestId = "requestId";
        /// The inner MCP method.
        req method: String = "method";
        /// The inner MCP params (absent and `null` mean none).
        opt params: Meta = "params" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An inner MCP notification for an active inner request (`mcp/message` without an id,
    /// client to agent): progress, subscription acknowledgements and updates.
    #[new(
        server_id: impl Into<McpServerAcpId>,
        request_id: impl Into<McpRequestId>,
        method: impl Into<String>,
    )]
    pub struct MessageMcpNotification {
        /// The server handling the inner request.
        req server_id: McpServerAcpId = "serverId";
        /// The active inner request it concerns.
        req request_id: McpRequestId = "requestId";
        /// The inner MCP method.
        req method: String = "method";
        /// The inner MCP params (absent and `null` mean none).
        opt params: Meta = "params" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An inner MCP error: the MCP server's failure, never an ACP error. Fields this crate
    /// does not know are kept.
    #[new(code: i32, message: impl Into<String>)]
    pub struct McpError {
        /// The MCP error code.
        req code: i32 = "code";
        /// The MCP error message.
        req message: String = "message";
        /// Error data, any JSON value (an explicit `null` is kept).
        raw data = "data";
    }
}

/// The inner outcome an `mcp/message` result carries.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpOutcome {
    /// The inner MCP result, any JSON value (`null` included), kept as raw JSON.
    Result(RawJson),
    /// The inner MCP error.
    Error(McpError),
}

/// The result of an `mcp/message` request: exactly one inner outcome, an MCP result or an
/// MCP error (outer ACP errors are for binding and runtime failures).
///
/// A document carrying both decodes as the result (receivers prefer it); the `error` is
/// then kept as an unknown field and written back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MessageMcpResponse {
    /// The inner outcome.
    pub outcome: McpOutcome,
    /// Extension data, opaque to the protocol.
    pub meta: Option<Meta>,
    extras: Extras,
}

impl MessageMcpResponse {
    /// A response carrying the inner result `result`.
    pub fn result(result: impl Into<RawJson>) -> Self {
        Self::from_outcome(McpOutcome::Result(result.into()))
    }

    /// A response carrying the inner MCP error `error`.
    pub fn error(error: McpError) -> Self {
        Self::from_outcome(McpOutcome::Error(error))
    }

    fn from_outcome(outcome: McpOutcome) -> Self {
        Self {
            outcome,
            meta: None,
            extras: Extras::default(),
        }
    }

    /// Sets `_meta`.
    #[must_use]
    pub fn meta(mut self, value: impl Into<Meta>) -> Self {
        self.meta = Some(value.into());
        self
    }

    /// Unmodelled fields and explicit nulls received with this result.
    pub fn extras(&self) -> &Extras {
        &self.extras
    }
}

impl Serialize for MessageMcpResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match &self.outcome {
            McpOutcome::Result(result) => map.serialize_entry("result", result)?,
            McpOutcome::Error(error) => map.serialize_entry("error", error)?,
        }
        match &self.meta {
            Some(meta) => map.serialize_entry("_meta", meta)?,
            None => self.extras.serialize_null(&mut map, "_meta")?,
        }
        self.extras.serialize_unknown(&mut map)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for MessageMcpResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ResponseVisitor;

        impl<'de> Visitor<'de> for ResponseVisitor {
            type Value = MessageMcpResponse;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an mcp/message result object (`result` or `error`)")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                const FIELDS: &[&str] = &["result", "error", "_meta"];
                let mut result: Option<RawJson> = None;
                let mut error: Option<UnknownValue> = None;
                let mut meta = None;
                let mut extras = Extras::default();
                let mut seen = 0_u8;
                while let Some(key) = map.next_key_seed(KeySeed(FIELDS))? {
                    let index = match key {
                        Key::Unknown(name) => {
                            let value = map.next_value_seed(UnknownSeed)?;
                            extras.insert_unknown_checked(name, value)?;
                            continue;
                        }
                        Key::Known(index) => index,
                    };
                    if seen & (1 << index) != 0 {
                        return Err(duplicate(FIELDS[index]));
                    }
                    seen |= 1 << index;
                    match index {
                        0 => result = Some(map.next_value()?),
                        1 => error = Some(map.next_value_seed(UnknownSeed)?),
                        _ => match map
                            .next_value_seed(Optional::<Meta, { DOE | NULLABLE }>::new())?
                        {
                            Slot::Value(value, _) => meta = Some(value),
                            Slot::Null => extras.mark_null("_meta"),
                            Slot::Invalid => {}
                        },
                    }
                }
                let outcome = match (result, error) {
                    (Some(result), error) => {
                        if let Some(error) = error {
                            extras.insert_unknown_checked("error".to_owned(), error)?;
                        }
                        McpOutcome::Result(result)
                    }
                    (None, Some(error)) => {
                        let decoded = match &error.exact {
                            Some(text) => serde_json::from_str::<McpError>(text.get()),
                            None => serde_json::from_value::<McpError>(error.value),
                        };
                        McpOutcome::Error(decoded.map_err(|e| error_at::<A::Error>("error", e))?)
                    }
                    (None, None) => return Err(de::Error::missing_field("result")),
                };
                Ok(MessageMcpResponse {
                    outcome,
                    meta,
                    extras,
                })
            }
        }

        deserializer.deserialize_map(ResponseVisitor)
    }
}

impl schemars::JsonSchema for MessageMcpResponse {
    fn schema_name() -> Cow<'static, str> {
        "MessageMcpResponse".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let error = generator.subschema_for::<McpError>();
        let meta = serde_json::json!({
            "description": "Extension data, opaque to the protocol.",
            "type": ["object", "null"],
            "additionalProperties": true,
            "x-deserialize-default-on-error": true,
        });
        schemars::json_schema!({
            "description": "The result of an `mcp/message` request: exactly one inner outcome, an MCP result or an MCP error.",
            "anyOf": [
                {
                    "title": "Result",
                    "type": "object",
                    "properties": { "result": {}, "_meta": meta },
                    "required": ["result"],
                },
                {
                    "title": "Error",
                    "type": "object",
                    "properties": { "error": { "allOf": [error] }, "_meta": meta },
                    "required": ["error"],
                },
            ],
        })
    }
}

lenient_no_default!(MessageMcpResponse);
