//! MCP over ACP (`unstable_mcp_over_acp`): MCP servers that live in the client (or another ACP
//! component) and are reached through the ACP connection itself.
//!
//! The client lists such a server as [`McpServer::Acp`]; MCP messages then flow both ways as
//! `mcp/message` requests and notifications.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::prelude::*;
use crate::wire::lenient_no_default;

id_type! {
    /// Identifies an MCP server reached over ACP, as the client named it in [`McpServerAcp`].
    pub struct McpServerAcpId;
}

id_type! {
    /// Identifies one MCP connection over ACP, as `mcp/message` names it.
    pub struct McpConnectionId;
}

wire_object! {
    /// An MCP server reached through the ACP connection (`"type": "acp"` in [`McpServer`]).
    ///
    /// Only offered to agents that advertise `mcpCapabilities.acp`.
    #[new(name: impl Into<String>, server_id: impl Into<McpServerAcpId>)]
    pub struct McpServerAcp {
        /// A human-readable name.
        req name: String = "name";
        /// The id that names this server in `mcp/message`.
        req server_id: McpServerAcpId = "serverId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An MCP request carried over an MCP-over-ACP connection (`mcp/message` with an id; either
    /// side sends it). Its response is a [`MessageMcpResponse`].
    #[new(connection_id: impl Into<McpConnectionId>, method: impl Into<String>)]
    pub struct MessageMcpRequest {
        /// The connection it travels on.
        req connection_id: McpConnectionId = "connectionId";
        /// The MCP method.
        req method: String = "method";
        /// The MCP params.
        opt params: Meta = "params" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An MCP notification carried over an MCP-over-ACP connection (`mcp/message` without an
    /// id; either side sends it).
    #[new(connection_id: impl Into<McpConnectionId>, method: impl Into<String>)]
    pub struct MessageMcpNotification {
        /// The connection it travels on.
        req connection_id: McpConnectionId = "connectionId";
        /// The MCP method.
        req method: String = "method";
        /// The MCP params.
        opt params: Meta = "params" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// The result of an `mcp/message` request: the inner MCP result, any JSON value, kept as raw
/// JSON text and written back unchanged.
#[derive(Clone)]
#[non_exhaustive]
pub struct MessageMcpResponse {
    /// The raw JSON, exactly as received (or as built).
    pub raw: Box<RawValue>,
}

impl MessageMcpResponse {
    /// A result holding `value` (any serializable value).
    ///
    /// # Errors
    ///
    /// When `value` cannot be serialized.
    pub fn new(value: &impl Serialize) -> Result<Self, serde_json::Error> {
        Ok(Self {
            raw: serde_json::value::to_raw_value(value)?,
        })
    }

    /// A result carrying already serialized JSON.
    pub fn from_raw(raw: Box<RawValue>) -> Self {
        Self { raw }
    }

    /// The raw JSON text.
    pub fn get(&self) -> &str {
        self.raw.get()
    }

    /// Parses the raw JSON into `T`.
    ///
    /// # Errors
    ///
    /// When the JSON does not fit `T`.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.get())
    }
}

impl PartialEq for MessageMcpResponse {
    /// Equal when the two hold the same JSON value, whatever the spacing or key order of their
    /// texts.
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
            || matches!(
                (
                    serde_json::from_str::<serde_json::Value>(self.get()),
                    serde_json::from_str::<serde_json::Value>(other.get()),
                ),
                (Ok(a), Ok(b)) if a == b
            )
    }
}

impl fmt::Debug for MessageMcpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("MessageMcpResponse")
            .field(&self.get())
            .finish()
    }
}

impl Serialize for MessageMcpResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for MessageMcpResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Self::from_raw)
    }
}

impl schemars::JsonSchema for MessageMcpResponse {
    fn schema_name() -> Cow<'static, str> {
        "MessageMcpResponse".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The result of an `mcp/message` request: the inner MCP result, any JSON value.",
        })
    }
}

lenient_no_default!(MessageMcpResponse);

