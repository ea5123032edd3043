//! JSON-RPC 2.0 building blocks: request ids, error objects and codes, the protocol version.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::wire::{LenientValue, integer_from_number, lenient_no_default, wire_object};

/// The value of the `jsonrpc` member of every message.
pub const JSONRPC_VERSION: &str = "2.0";

/// A JSON-RPC request id.
///
/// Ids we send are numbers; ids we receive are echoed verbatim, whatever their form. `Null`
/// appears in error responses to messages whose id could not be read (JSON-RPC 2.0 §5), and,
/// rarely, as the id of a request: JSON-RPC discourages it but the schema allows it, and such a
/// request is answered like any other, with `"id": null` (as the reference SDKs do). Like any
/// id, `null` names at most one running request at a time on a connection.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RequestId {
    /// `null`: in error responses to unreadable messages, and in the (discouraged) requests
    /// that use it.
    Null,
    /// A numeric id.
    Number(i64),
    /// A string id.
    Str(String),
}

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for RequestId {}

impl RequestId {
    /// True for the `null` id.
    pub fn is_null(&self) -> bool {
        matches!(self, RequestId::Null)
    }
}

impl fmt::Display for RequestId {
    /// Numbers print bare and strings quoted, so `1` and `"1"` stay distinguishable in logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Null => f.write_str("null"),
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
    /// Lets integer literals (`RequestId::from(7)`, `ClientRequest::new(7, ..)`) be ids.
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

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Null => serializer.serialize_unit(),
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
                f.write_str("a request id (an integer, a string or null)")
            }

            fn visit_unit<E: de::Error>(self) -> Result<RequestId, E> {
                Ok(RequestId::Null)
            }

            fn visit_none<E: de::Error>(self) -> Result<RequestId, E> {
                Ok(RequestId::Null)
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

lenient_no_default!(RequestId);

/// Fields of these types keep the form of their number literal (see
/// [`Extras::number_form_kept`]).
impl LenientValue for ErrorCode {
    fn from_lenient(value: serde_json::Value, _flags: u8) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn lenient_default() -> Option<Self> {
        None
    }

    const NUMBER: bool = true;
    const EXPECTED: &'static str = "an error code (a 32-bit integer)";

    fn from_number(number: &serde_json::Number) -> Option<(Self, bool)> {
        integer_from_number::<i32>(number).map(|(code, other_form)| (Self(code), other_form))
    }

    fn other_form(&self) -> Option<serde_json::Number> {
        serde_json::Number::from_f64(f64::from(self.0))
    }
}

impl LenientValue for ProtocolVersion {
    fn from_lenient(value: serde_json::Value, _flags: u8) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn lenient_default() -> Option<Self> {
        None
    }

    const NUMBER: bool = true;
    const EXPECTED: &'static str = "a protocol version (an integer from 0 to 65535)";

    fn from_number(number: &serde_json::Number) -> Option<(Self, bool)> {
        integer_from_number::<u16>(number).map(|(version, other_form)| (Self(version), other_form))
    }

    fn other_form(&self) -> Option<serde_json::Number> {
        serde_json::Number::from_f64(f64::from(self.0))
    }
}

impl schemars::JsonSchema for RequestId {
    fn schema_name() -> Cow<'static, str> {
        "RequestId".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A JSON-RPC request id: an integer, a string, or null (in error responses to unreadable messages; discouraged in requests).",
            "anyOf": [
                { "type": "null" },
                { "type": "integer", "format": "int64" },
                { "type": "string" },
            ],
        })
    }
}

/// A JSON-RPC error code: an open set. The codes JSON-RPC and ACP define have constants; any
/// other integer is allowed (for example, an agent's own application errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
#[allow(clippy::exhaustive_structs)] // An open set of codes: any i32 is valid.
pub struct ErrorCode(pub i32);

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for ErrorCode {}

impl ErrorCode {
    /// The message was not valid JSON.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// The message was JSON but not a valid JSON-RPC request.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// The params were invalid for the method.
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// An internal error of the peer.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// The request was cancelled (`$/cancel_request`).
    pub const REQUEST_CANCELLED: Self = Self(-32800);
    /// ACP: the agent requires authentication first.
    pub const AUTH_REQUIRED: Self = Self(-32000);
    /// ACP: a resource, such as a file, was not found.
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);

    const KNOWN: [(Self, &'static str); 8] = [
        (Self::PARSE_ERROR, "Parse error"),
        (Self::INVALID_REQUEST, "Invalid request"),
        (Self::METHOD_NOT_FOUND, "Method not found"),
        (Self::INVALID_PARAMS, "Invalid params"),
        (Self::INTERNAL_ERROR, "Internal error"),
        (Self::REQUEST_CANCELLED, "Request cancelled"),
        (Self::AUTH_REQUIRED, "Authentication required"),
        (Self::RESOURCE_NOT_FOUND, "Resource not found"),
    ];

    /// The standard message of a predefined code, if this is one.
    pub fn standard_message(self) -> Option<&'static str> {
        Self::KNOWN
            .iter()
            .find(|(code, _)| *code == self)
            .map(|(_, m)| *m)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<i32> for ErrorCode {
    fn from(value: i32) -> Self {
        Self(value)
    }
}

impl schemars::JsonSchema for ErrorCode {
    fn schema_name() -> Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut branches: Vec<serde_json::Value> = Self::KNOWN
            .iter()
            .map(|(code, message)| {
                serde_json::json!({
                    "type": "integer", "format": "int32", "const": code.0, "description": message,
                })
            })
            .collect();
        branches.push(serde_json::json!({
            "type": "integer", "format": "int32", "description": "Any other code.",
        }));
        schemars::json_schema!({
            "description": "A JSON-RPC error code: the predefined ones have constants, any other integer is allowed.",
            "anyOf": branches,
        })
    }
}

wire_object! {
    /// A JSON-RPC error object: a code, a message and optional data.
    ///
    /// Handlers return it to choose exactly what goes on the wire; it implements
    /// [`std::error::Error`].
    #[new(code: impl Into<ErrorCode>, message: impl Into<String>)]
    pub struct Error {
        /// The error code.
        req code: ErrorCode = "code";
        /// A short description of the error.
        req message: String = "message";
        /// Additional information about the error.
        raw data = "data" [DOE];
    }
}

/// The wire error object under the name JSON-RPC libraries usually give it.
pub type ErrorObject = Error;

/// What the methods of the `Agent` and `Client` traits return: their result, or the
/// [`ErrorObject`] to answer with. With `use acp_types::*`, `Result<PromptResponse>` is
/// enough; `Result<T, E>` is still the standard result.
pub type Result<T, E = ErrorObject> = std::result::Result<T, E>;

impl Error {
    /// Attaches `data`.
    #[must_use]
    pub fn with_data(mut self, data: impl Into<serde_json::Value>) -> Self {
        self.data = Some(data.into());
        self
    }

    /// `-32700`: the message was not valid JSON.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::with_detail(ErrorCode::PARSE_ERROR, "Parse error", detail)
    }

    /// An error whose message carries `detail` after the standard text (for peers that show
    /// only the message), with `detail` also in `data` (for programs). A detail longer than
    /// [`MAX_ERROR_DETAIL_LEN`](Self::MAX_ERROR_DETAIL_LEN) is truncated with a marker: a
    /// detail often echoes the offending input, which may be many megabytes, and an answer
    /// must stay small enough to be sent.
    fn with_detail(code: ErrorCode, standard: &str, detail: impl fmt::Display) -> Self {
        let detail = bounded_detail(detail);
        Self::new(code, format!("{standard}: {detail}")).with_data(detail)
    }

    /// The longest detail, in bytes, that the constructors of this type put into an error's
    /// `message` and `data` (a longer one is cut at a character boundary and ends with
    /// `… (truncated, N bytes in all)`).
    pub const MAX_ERROR_DETAIL_LEN: usize = 4096;

    /// `-32600`: the message was not a valid JSON-RPC request.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::with_detail(ErrorCode::INVALID_REQUEST, "Invalid request", detail)
    }

    /// `-32601`: the method is not available; the message names it.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {}", bounded_detail(method)),
        )
    }

    /// `-32602`: the params did not fit the method; `detail` goes into the message and `data`.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::with_detail(ErrorCode::INVALID_PARAMS, "Invalid params", detail)
    }

    /// `-32602` with structured `data` (for programs: which field, what was expected...);
    /// `detail` goes into the message only.
    ///
    /// ```
    /// use acp_types::ErrorObject;
    ///
    /// let e = ErrorObject::invalid_params_with(
    ///     "`line` must be at least 1",
    ///     serde_json::json!({"field": "line", "min": 1}),
    /// );
    /// assert_eq!(e.message, "Invalid params: `line` must be at least 1");
    /// assert_eq!(e.data.unwrap()["field"], "line");
    /// ```
    pub fn invalid_params_with(
        detail: impl fmt::Display,
        data: impl Into<serde_json::Value>,
    ) -> Self {
        Self::new(
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params: {}", bounded_detail(detail)),
        )
        .with_data(data)
    }

    /// `-32603`: an internal error; `detail` goes into the message and `data`.
    pub fn internal_error(detail: impl fmt::Display) -> Self {
        Self::with_detail(ErrorCode::INTERNAL_ERROR, "Internal error", detail)
    }

    /// `-32800`: the request was cancelled.
    pub fn request_cancelled() -> Self {
        Self::new(ErrorCode::REQUEST_CANCELLED, "Request cancelled")
    }

    /// `-32000`: authentication is required first.
    pub fn auth_required() -> Self {
        Self::new(ErrorCode::AUTH_REQUIRED, "Authentication required")
    }

    /// `-32002`: a resource (a file, an embedded resource) was not found; `data` is
    /// `{"uri": …}`. For an unknown session use [`session_not_found`](Self::session_not_found),
    /// for an unknown terminal [`terminal_not_found`](Self::terminal_not_found).
    pub fn resource_not_found(uri: impl Into<String>) -> Self {
        Self::new(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found")
            .with_data(serde_json::json!({ "uri": uri.into() }))
    }

    /// `-32002`: the request names a session this side does not know (never created, loaded
    /// or resumed on this connection, or closed since); the message names it and `data` is
    /// `{"sessionId": …}`.
    pub fn session_not_found(session_id: &str) -> Self {
        Self::unknown("session", "sessionId", session_id)
    }

    /// `-32002`: the request names a terminal this side does not know (never created, or
    /// released since); the message names it and `data` is `{"terminalId": …}`.
    pub fn terminal_not_found(terminal_id: &str) -> Self {
        Self::unknown("terminal", "terminalId", terminal_id)
    }

    /// `-32002` (draft, feature `unstable_mcp_over_acp`): a request names an MCP server this
    /// side did not offer (as an `"acp"` server of a session); the message names it and
    /// `data` is `{"serverId": …}`.
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub fn mcp_server_not_found(server_id: &str) -> Self {
        Self::unknown("MCP server", "serverId", server_id)
    }

    /// `-32002` (draft, feature `unstable_mcp_over_acp`): the request names an MCP-over-ACP
    /// connection that is not open; the message names it and `data` is `{"connectionId": …}`.
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub fn mcp_connection_not_found(connection_id: &str) -> Self {
        Self::unknown("MCP connection", "connectionId", connection_id)
    }

    /// `-32002` for an unknown `what`: the message names the id, and `data` is `{key: id}`.
    fn unknown(what: &str, key: &str, id: &str) -> Self {
        let id = bounded_detail(id);
        Self::new(
            ErrorCode::RESOURCE_NOT_FOUND,
            format!("Resource not found: unknown {what} `{id}`"),
        )
        .with_data(serde_json::json!({ key: id }))
    }

    /// `-32601`: `method` exists but this side did not advertise the capability it needs, so
    /// it is not available; the message names both, and `data` is
    /// `{"method": …, "capability": …}`.
    pub fn capability_not_advertised(method: &str, capability: &str) -> Self {
        let method = bounded_detail(method);
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method} (capability `{capability}` was not advertised)"),
        )
        .with_data(serde_json::json!({ "method": method, "capability": capability }))
    }
}

/// `detail` as text, cut to at most [`Error::MAX_ERROR_DETAIL_LEN`] bytes (at a character
/// boundary) plus a marker saying how long it was.
fn bounded_detail(detail: impl fmt::Display) -> String {
    use fmt::Write as _;

    /// A writer that keeps the first bytes and only counts the rest, so that a huge detail is
    /// never materialised.
    struct Bounded {
        kept: String,
        total: usize,
    }

    impl fmt::Write for Bounded {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.total += s.len();
            let room = Error::MAX_ERROR_DETAIL_LEN.saturating_sub(self.kept.len());
            if room > 0 {
                let mut end = room.min(s.len());
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                self.kept.push_str(&s[..end]);
            }
            Ok(())
        }
    }

    let mut out = Bounded {
        kept: String::new(),
        total: 0,
    };
    let _ = write!(out, "{detail}");
    if out.total > out.kept.len() {
        let total = out.total;
        let _ = write!(out.kept, "… (truncated, {total} bytes in all)");
    }
    out.kept
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)?;
        match &self.data {
            // The constructors of this type put a text detail in the message already.
            Some(serde_json::Value::String(s)) if self.message.ends_with(s.as_str()) => Ok(()),
            Some(serde_json::Value::String(s)) => write!(f, ": {s}"),
            Some(other) => write!(f, ": {other}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for Error {}

/// An ACP protocol version. Only the major version is negotiated: the client sends the latest
/// it supports, and the agent answers with that one if it supports it, or its own latest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
#[allow(clippy::exhaustive_structs)] // A transparent newtype over the version number.
pub struct ProtocolVersion(pub u16);

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for ProtocolVersion {}

impl ProtocolVersion {
    /// Version 1, the version this crate implements.
    pub const V1: Self = Self(1);
    /// The latest version this crate implements.
    pub const LATEST: Self = Self::V1;
}

impl Default for ProtocolVersion {
    fn default() -> Self {
        Self::LATEST
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<u16> for ProtocolVersion {
    fn from(value: u16) -> Self {
        Self(value)
    }
}

impl schemars::JsonSchema for ProtocolVersion {
    fn schema_name() -> Cow<'static, str> {
        "ProtocolVersion".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An ACP protocol version number; only the major version is negotiated.",
            "type": "integer",
            "format": "uint16",
            "minimum": 0,
            "maximum": 65535,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_detail_is_truncated_with_a_marker_in_message_and_data() {
        let detail = "é".repeat(3 * 1024 * 1024);
        let error = Error::invalid_params(&detail);
        let data = error
            .data
            .as_ref()
            .and_then(|d| d.as_str())
            .expect("text data");
        assert!(
            data.len() < Error::MAX_ERROR_DETAIL_LEN + 64,
            "{}",
            data.len()
        );
        assert!(
            data.ends_with(&format!("… (truncated, {} bytes in all)", detail.len())),
            "{}",
            &data[data.len() - 60..]
        );
        assert!(error.message.starts_with("Invalid params: éé"));
        assert!(error.message.len() < Error::MAX_ERROR_DETAIL_LEN + 64);
        let method = Error::method_not_found(&"m".repeat(1 << 20));
        assert!(method.message.len() < Error::MAX_ERROR_DETAIL_LEN + 64);
    }

    #[test]
    fn a_short_detail_is_kept_whole() {
        let error = Error::internal_error("disk full");
        assert_eq!(error.message, "Internal error: disk full");
        assert_eq!(error.data, Some(serde_json::json!("disk full")));
    }

    #[test]
    fn session_and_capability_errors_name_what_is_missing() {
        let error = Error::session_not_found("s-9");
        assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
        assert_eq!(error.data, Some(serde_json::json!({ "sessionId": "s-9" })));
        let error = Error::capability_not_advertised("fs/read_text_file", "fs.readTextFile");
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
        assert!(error.message.contains("fs/read_text_file"));
        assert!(error.message.contains("fs.readTextFile"));
    }
}
