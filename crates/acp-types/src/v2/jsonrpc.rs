//! JSON-RPC in v2: request ids (never `null`) and the six envelopes of the schema.
//!
//! The envelopes carry their params and results as JSON; [`methods`](super::methods) ties each
//! method name to its types.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use serde_json::{Map, Value};

use super::methods::Side;
use super::prelude::*;
use crate::wire::Parts;

/// The id of a JSON-RPC request in v2: an integer or a string.
///
/// Unlike v1's [`crate::RequestId`], v2 has no `null` id: a request with `"id": null` is
/// refused. Only an error response to a message whose id could not be read carries a `null`
/// id (see [`AgentResponse::Error`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RequestId {
    /// A numeric id.
    Number(i64),
    /// A string id.
    Str(String),
}

impl crate::ConvertibleField for RequestId {}

impl fmt::Display for RequestId {
    /// Numbers print bare and strings quoted, so `1` and `"1"` stay distinguishable in logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(value: i64) -> Self {
        RequestId::Number(value)
    }
}

impl From<i32> for RequestId {
    fn from(value: i32) -> Self {
        RequestId::Number(value.into())
    }
}

impl From<u32> for RequestId {
    fn from(value: u32) -> Self {
        RequestId::Number(value.into())
    }
}

impl From<&str> for RequestId {
    fn from(value: &str) -> Self {
        RequestId::Str(value.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(value: String) -> Self {
        RequestId::Str(value)
    }
}

impl From<RequestId> for crate::RequestId {
    fn from(value: RequestId) -> Self {
        match value {
            RequestId::Number(n) => crate::RequestId::Number(n),
            RequestId::Str(s) => crate::RequestId::Str(s),
        }
    }
}

impl TryFrom<crate::RequestId> for RequestId {
    /// The v1 `null` id, which v2 does not have.
    type Error = crate::RequestId;

    fn try_from(value: crate::RequestId) -> Result<Self, Self::Error> {
        match value {
            crate::RequestId::Number(n) => Ok(RequestId::Number(n)),
            crate::RequestId::Str(s) => Ok(RequestId::Str(s)),
            other => Err(other),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::Str(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;

        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a v2 request id (an integer or a string, not null)")
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &"an int64 id"))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::Str(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
                Ok(RequestId::Str(v))
            }
        }

        deserializer.deserialize_any(IdVisitor)
    }
}

crate::wire::lenient_no_default!(RequestId);

impl schemars::JsonSchema for RequestId {
    fn schema_name() -> Cow<'static, str> {
        "RequestId".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The id of a JSON-RPC request: an integer or a string (never null in v2).",
            "anyOf": [
                { "title": "Number", "type": "integer", "format": "int64" },
                { "title": "Str", "type": "string" },
            ],
        })
    }
}

/// The definitions of the params (or results, `results`) of the methods `side` serves:
/// `params` of requests (`notifications` false) or of notifications, then the extension
/// definition `ext` (the official order).
fn method_definitions(
    side: Side,
    notifications: bool,
    results: bool,
    ext: Option<&str>,
) -> Vec<Value> {
    super::methods::DEFINITIONS
        .iter()
        .filter(|d| d.side == side && d.is_notification() == notifications)
        .filter_map(|d| if results { d.result } else { Some(d.params) })
        .chain(ext)
        .map(|name| serde_json::json!({ "allOf": [{ "$ref": format!("#/$defs/{name}") }] }))
        .collect()
}

/// Gives an envelope's `params` the official schema: the params of the methods of its
/// direction, or `null`.
fn params_schema(
    object: &mut Map<String, Value>,
    side: Side,
    notifications: bool,
    ext: Option<&str>,
) {
    let branches = method_definitions(side, notifications, false, ext);
    if let Some(params) = object
        .get_mut("properties")
        .and_then(|p| p.get_mut("params"))
        .and_then(Value::as_object_mut)
    {
        params.insert(
            "anyOf".into(),
            serde_json::json!([{ "anyOf": branches }, { "type": "null" }]),
        );
    }
}

/// The schema of [`AgentRequest`]: params of the methods the client serves.
fn schema_agent_request(object: &mut Map<String, Value>) {
    params_schema(object, Side::Client, false, Some("ExtRequest"));
}

/// The schema of [`ClientRequest`]: params of the methods the agent serves.
fn schema_client_request(object: &mut Map<String, Value>) {
    params_schema(object, Side::Agent, false, Some("ExtRequest"));
}

/// The schema of [`AgentNotification`]: params of the notifications the client receives.
fn schema_agent_notification(object: &mut Map<String, Value>) {
    params_schema(object, Side::Client, true, Some("ExtNotification"));
}

/// The schema of [`ClientNotification`]: params of the notifications the agent receives.
fn schema_client_notification(object: &mut Map<String, Value>) {
    params_schema(object, Side::Agent, true, Some("ExtNotification"));
}

/// The schema of [`ProxyRequest`]: params of the proxy methods.
#[cfg(feature = "unstable_proxy_chains")]
fn schema_proxy_request(object: &mut Map<String, Value>) {
    params_schema(object, Side::Proxy, false, None);
}

/// The schema of [`ProxyNotification`]: params of the proxy notifications.
#[cfg(feature = "unstable_proxy_chains")]
fn schema_proxy_notification(object: &mut Map<String, Value>) {
    params_schema(object, Side::Proxy, true, None);
}

#[cfg(feature = "unstable_proxy_chains")]
wire_object! {
    /// A request between a proxy and its conductor (`proxy/initialize`, `proxy/successor`;
    /// draft `unstable_proxy_chains`): its id, method and params.
    #[schema_extend(schema_proxy_request)]
    #[new(id: impl Into<RequestId>, method: impl Into<String>)]
    pub struct ProxyRequest {
        /// The request's id, echoed by its response.
        req id: RequestId = "id";
        /// The method name.
        req method: String = "method";
        /// The params, as JSON (see [`methods`](super::methods) for their type).
        raw params = "params";
    }
}

#[cfg(feature = "unstable_proxy_chains")]
wire_object! {
    /// A notification between a proxy and its conductor (`proxy/successor` without an id;
    /// draft `unstable_proxy_chains`): its method and params.
    #[schema_extend(schema_proxy_notification)]
    #[new(method: impl Into<String>)]
    pub struct ProxyNotification {
        /// The method name.
        req method: String = "method";
        /// The params, as JSON (see [`methods`](super::methods) for their type).
        raw params = "params";
    }
}

wire_object! {
    /// A request the agent sends (`session/request_permission`, `elicitation/create`, an
    /// extension method): its id, method and params.
    #[schema_extend(schema_agent_request)]
    #[new(id: impl Into<RequestId>, method: impl Into<String>)]
    pub struct AgentRequest {
        /// The request's id, echoed by its response.
        req id: RequestId = "id";
        /// The method name.
        req method: String = "method";
        /// The params, as JSON (see [`methods`](super::methods) for their type).
        raw params = "params";
    }
}

wire_object! {
    /// A request the client sends (`initialize`, `session/prompt`, ...): its id, method and
    /// params.
    #[schema_extend(schema_client_request)]
    #[new(id: impl Into<RequestId>, method: impl Into<String>)]
    pub struct ClientRequest {
        /// The request's id, echoed by its response.
        req id: RequestId = "id";
        /// The method name.
        req method: String = "method";
        /// The params, as JSON (see [`methods`](super::methods) for their type).
        raw params = "params";
    }
}

wire_object! {
    /// A notification the agent sends (`session/update`, ...): its method and params.
    #[schema_extend(schema_agent_notification)]
    #[new(method: impl Into<String>)]
    pub struct AgentNotification {
        /// The method name.
        req method: String = "method";
        /// The params, as JSON (see [`methods`](super::methods) for their type).
        raw params = "params";
    }
}

wire_object! {
    /// A notification the client sends (`session/cancel`, ...): its method and params.
    #[schema_extend(schema_client_notification)]
    #[new(method: impl Into<String>)]
    pub struct ClientNotification {
        /// The method name.
        req method: String = "method";
        /// The params, as JSON (see [`methods`](super::methods) for their type).
        raw params = "params";
    }
}

/// Declares a response envelope: a result or an error, told apart by which member it has.
macro_rules! response_envelope {
    ($(#[doc = $doc:literal])* $name:ident, $results:literal, $side:ident, $ext:expr) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $name {
            /// A result: the id of the request it answers and the result, as JSON.
            Result {
                /// The id of the request.
                id: RequestId,
                /// The result (see [`methods`](super::methods) for its type).
                result: serde_json::Value,
                /// Members this crate does not model, written back unchanged.
                extras: Extras,
            },
            /// An error: the id of the request it answers (`None` when that id could not be
            /// read, written as `null`) and the error.
            Error {
                /// The id of the request, if it could be read.
                id: Option<RequestId>,
                /// The error.
                error: Error,
                /// Members this crate does not model, written back unchanged.
                extras: Extras,
            },
        }

        impl $name {
            /// A result response.
            pub fn result(id: impl Into<RequestId>, result: impl Into<serde_json::Value>) -> Self {
                Self::Result { id: id.into(), result: result.into(), extras: Extras::default() }
            }

            /// An error response.
            pub fn error(id: Option<RequestId>, error: Error) -> Self {
                Self::Error { id, error, extras: Extras::default() }
            }

            /// The id of the request answered, if known.
            pub fn id(&self) -> Option<&RequestId> {
                match self {
                    Self::Result { id, .. } => Some(id),
                    Self::Error { id, .. } => id.as_ref(),
                }
            }

            fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
                use serde::de::Error as _;
                let mut parts = Parts::from_value(value, concat!("a ", stringify!($name), " object"))?;
                match (parts.has("result"), parts.has("error")) {
                    (true, false) => {
                        let id = parts.req::<RequestId, 0>("id")?;
                        let result = parts.take_raw("result").unwrap_or_default();
                        Ok(Self::Result { id, result, extras: parts.finish() })
                    }
                    (false, true) => {
                        let id = match parts.take_raw("id") {
                            None => return Err(serde_json::Error::missing_field("id")),
                            Some(serde_json::Value::Null) => None,
                            Some(id) => Some(
                                RequestId::deserialize(id)
                                    .map_err(|e| crate::wire::error_at::<serde_json::Error>("id", e))?,
                            ),
                        };
                        let error = parts.req::<Error, 0>("error")?;
                        Ok(Self::Error { id, error, extras: parts.finish() })
                    }
                    (true, true) => Err(serde_json::Error::custom(
                        "a response has a `result` or an `error`, not both",
                    )),
                    (false, false) => Err(serde_json::Error::custom(
                        "a response needs a `result` or an `error`",
                    )),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                match self {
                    Self::Result { id, result, extras } => {
                        map.serialize_entry("id", id)?;
                        map.serialize_entry("result", result)?;
                        extras.serialize_unknown(&mut map)?;
                    }
                    Self::Error { id, error, extras } => {
                        map.serialize_entry("id", id)?;
                        map.serialize_entry("error", error)?;
                        extras.serialize_unknown(&mut map)?;
                    }
                }
                map.end()
            }
        }

        crate::wire::deserialize_via_value!($name, $name::decode);

        impl schemars::JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let id = generator.subschema_for::<RequestId>();
                let error = generator.subschema_for::<Error>();
                schemars::json_schema!({
                    "description": crate::wire::doc_text(&[$($doc),*]),
                    "anyOf": [
                        {
                            "title": "Result",
                            "type": "object",
                            "properties": {
                                "id": { "allOf": [id] },
                                "result": {
                                    "description": $results,
                                    "anyOf": method_definitions(Side::$side, false, true, $ext),
                                },
                            },
                            "required": ["id", "result"],
                        },
                        {
                            "title": "Error",
                            "type": "object",
                            "properties": {
                                "id": {
                                    "anyOf": [
                                        { "title": "Number", "type": "integer", "format": "int64" },
                                        { "title": "Str", "type": "string" },
                                        { "type": "null" },
                                    ],
                                },
                                "error": { "allOf": [error] },
                            },
                            "required": ["id", "error"],
                        },
                    ],
                })
            }
        }
    };
}

response_envelope!(
    /// The agent's response to a client request: a result or an error.
    AgentResponse,
    "The result of the method (see the method's result definition).",
    Agent,
    Some("ExtResponse")
);
response_envelope!(
    /// The client's response to an agent request: a result or an error.
    ClientResponse,
    "The result of the method (see the method's result definition).",
    Client,
    Some("ExtResponse")
);
#[cfg(feature = "unstable_proxy_chains")]
response_envelope!(
    /// The answer to a request between a proxy and its conductor: a result or an error
    /// (draft `unstable_proxy_chains`).
    ProxyResponse,
    "The result of the method (see the method's result definition).",
    Proxy,
    None
);
