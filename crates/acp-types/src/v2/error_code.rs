//! The error codes of v2: v1's, and `-32022` for an unsupported protocol version.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A JSON-RPC error code of v2: an open set. The codes JSON-RPC and ACP define have constants;
/// any other integer is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
#[allow(clippy::exhaustive_structs)] // An open set of codes: any i32 is valid.
pub struct ErrorCode(pub i32);

impl crate::ConvertibleField for ErrorCode {}

impl ErrorCode {
    /// The message was not valid JSON.
    pub const PARSE_ERROR: Self = Self(crate::ErrorCode::PARSE_ERROR.0);
    /// The message was JSON but not a valid request.
    pub const INVALID_REQUEST: Self = Self(crate::ErrorCode::INVALID_REQUEST.0);
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: Self = Self(crate::ErrorCode::METHOD_NOT_FOUND.0);
    /// The params were invalid for the method.
    pub const INVALID_PARAMS: Self = Self(crate::ErrorCode::INVALID_PARAMS.0);
    /// An internal error of the peer.
    pub const INTERNAL_ERROR: Self = Self(crate::ErrorCode::INTERNAL_ERROR.0);
    /// The request was cancelled (`$/cancel_request`).
    pub const REQUEST_CANCELLED: Self = Self(crate::ErrorCode::REQUEST_CANCELLED.0);
    /// The agent requires authentication first.
    pub const AUTH_REQUIRED: Self = Self(crate::ErrorCode::AUTH_REQUIRED.0);
    /// A resource, such as a session, was not found.
    pub const RESOURCE_NOT_FOUND: Self = Self(crate::ErrorCode::RESOURCE_NOT_FOUND.0);
    /// `initialize` asked for a version at or below which the agent supports none; the data is
    /// an [`UnsupportedProtocolVersionErrorData`](super::UnsupportedProtocolVersionErrorData).
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);

    const KNOWN: [(Self, &'static str); 9] = [
        (Self::PARSE_ERROR, "Parse error"),
        (Self::INVALID_REQUEST, "Invalid request"),
        (Self::METHOD_NOT_FOUND, "Method not found"),
        (Self::INVALID_PARAMS, "Invalid params"),
        (Self::INTERNAL_ERROR, "Internal error"),
        (Self::REQUEST_CANCELLED, "Request cancelled"),
        (Self::AUTH_REQUIRED, "Authentication required"),
        (Self::RESOURCE_NOT_FOUND, "Resource not found"),
        (
            Self::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        ),
    ];

    /// The standard message of a predefined code, if this is one.
    pub fn standard_message(self) -> Option<&'static str> {
        Self::KNOWN
            .iter()
            .find(|(code, _)| *code == self)
            .map(|(_, message)| *message)
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

impl From<crate::ErrorCode> for ErrorCode {
    fn from(value: crate::ErrorCode) -> Self {
        Self(value.0)
    }
}

impl crate::wire::LenientValue for ErrorCode {
    fn from_lenient(value: serde_json::Value, _flags: u8) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn lenient_default() -> Option<Self> {
        None
    }

    const NUMBER: bool = true;
    const EXPECTED: &'static str = "an error code (a 32-bit integer)";

    fn from_number(number: &serde_json::Number) -> Option<(Self, bool)> {
        crate::wire::integer_from_number::<i32>(number).map(|(code, other)| (Self(code), other))
    }

    fn other_form(&self) -> Option<serde_json::Number> {
        serde_json::Number::from_f64(f64::from(self.0))
    }
}

impl schemars::JsonSchema for ErrorCode {
    fn schema_name() -> Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut branches: Vec<serde_json::Value> = Self::KNOWN
            .iter()
            .map(|(code, title)| {
                serde_json::json!({ "title": title, "type": "integer", "format": "int32", "const": code.0 })
            })
            .collect();
        branches
            .push(serde_json::json!({ "title": "Other", "type": "integer", "format": "int32" }));
        schemars::json_schema!({
            "description": "A JSON-RPC error code: the predefined ones have constants, any other integer is allowed.",
            "anyOf": branches,
        })
    }
}
