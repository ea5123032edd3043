//! The v2 unions told apart by shape rather than by a tag: resource contents, the values of a
//! select option, form values and error data.

use std::borrow::Cow;

use serde::Serialize;
use serde::de::Error as _;
use serde_json::Value;

use super::prelude::*;
use crate::wire::{decode_buffered, unexpected};

/// The contents of an embedded resource: text (a `text` member) or binary (a `blob` member).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EmbeddedResourceResource {
    /// Text contents.
    TextResourceContents(TextResourceContents),
    /// Binary contents, base64-encoded.
    BlobResourceContents(BlobResourceContents),
}

impl crate::ConvertibleField for EmbeddedResourceResource {}

impl From<TextResourceContents> for EmbeddedResourceResource {
    fn from(value: TextResourceContents) -> Self {
        Self::TextResourceContents(value)
    }
}

impl From<BlobResourceContents> for EmbeddedResourceResource {
    fn from(value: BlobResourceContents) -> Self {
        Self::BlobResourceContents(value)
    }
}

impl EmbeddedResourceResource {
    /// The URI of the resource.
    pub fn uri(&self) -> &str {
        match self {
            Self::TextResourceContents(contents) => &contents.uri,
            Self::BlobResourceContents(contents) => &contents.uri,
        }
    }

    fn decode(value: Value) -> Result<Self, serde_json::Error> {
        let Value::Object(map) = &value else {
            return Err(serde_json::Error::invalid_type(
                unexpected(&value),
                &"an object",
            ));
        };
        match (map.contains_key("text"), map.contains_key("blob")) {
            (true, _) => decode_buffered(&value).map(Self::TextResourceContents),
            (false, true) => decode_buffered(&value).map(Self::BlobResourceContents),
            (false, false) => Err(serde_json::Error::custom(
                "resource contents need a `text` or a `blob` member",
            )),
        }
    }
}

impl Serialize for EmbeddedResourceResource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::TextResourceContents(contents) => contents.serialize(serializer),
            Self::BlobResourceContents(contents) => contents.serialize(serializer),
        }
    }
}

crate::wire::deserialize_via_value!(EmbeddedResourceResource, EmbeddedResourceResource::decode);

impl schemars::JsonSchema for EmbeddedResourceResource {
    fn schema_name() -> Cow<'static, str> {
        "EmbeddedResourceResource".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let text = generator.subschema_for::<TextResourceContents>();
        let blob = generator.subschema_for::<BlobResourceContents>();
        schemars::json_schema!({
            "description": "The contents of an embedded resource: text or binary.",
            "anyOf": [
                { "title": "TextResourceContents", "allOf": [text] },
                { "title": "BlobResourceContents", "allOf": [blob] },
            ],
        })
    }
}

/// The values of a select option: a flat list, or named groups (items with a `groupId`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionConfigSelectOptions {
    /// A flat list of values.
    Ungrouped(Vec<SessionConfigSelectOption>),
    /// Values in named groups.
    Grouped(Vec<SessionConfigSelectGroup>),
}

impl crate::ConvertibleField for SessionConfigSelectOptions {}

impl From<Vec<SessionConfigSelectOption>> for SessionConfigSelectOptions {
    fn from(value: Vec<SessionConfigSelectOption>) -> Self {
        Self::Ungrouped(value)
    }
}

impl From<Vec<SessionConfigSelectGroup>> for SessionConfigSelectOptions {
    fn from(value: Vec<SessionConfigSelectGroup>) -> Self {
        Self::Grouped(value)
    }
}

impl SessionConfigSelectOptions {
    fn decode(value: Value) -> Result<Self, serde_json::Error> {
        let Value::Array(items) = &value else {
            return Err(serde_json::Error::invalid_type(
                unexpected(&value),
                &"an array of options or of groups",
            ));
        };
        // The schema's `minItems: 1`: a select offers at least one value.
        if items.is_empty() {
            return Err(serde_json::Error::invalid_length(
                0,
                &"at least one option or group",
            ));
        }
        // A group names itself with `groupId` and has no `value` of its own.
        let grouped = items
            .first()
            .is_some_and(|item| item.get("groupId").is_some() && item.get("value").is_none());
        if grouped {
            decode_buffered(&value).map(Self::Grouped)
        } else {
            decode_buffered(&value).map(Self::Ungrouped)
        }
    }
}

impl Serialize for SessionConfigSelectOptions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Ungrouped(options) => options.serialize(serializer),
            Self::Grouped(groups) => groups.serialize(serializer),
        }
    }
}

crate::wire::deserialize_via_value!(
    SessionConfigSelectOptions,
    SessionConfigSelectOptions::decode
);

impl schemars::JsonSchema for SessionConfigSelectOptions {
    fn schema_name() -> Cow<'static, str> {
        "SessionConfigSelectOptions".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let option = generator.subschema_for::<SessionConfigSelectOption>();
        let group = generator.subschema_for::<SessionConfigSelectGroup>();
        schemars::json_schema!({
            "description": "The values of a select option, flat or in groups.",
            "anyOf": [
                { "title": "Ungrouped", "type": "array", "items": option, "minItems": 1 },
                { "title": "Grouped", "type": "array", "items": group, "minItems": 1 },
            ],
        })
    }
}

/// A value the user entered in an elicitation form; any other JSON is kept as it came.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationContentValue {
    /// Text.
    String(String),
    /// An integer (of 64 bits).
    Integer(i64),
    /// A floating point number.
    Number(f64),
    /// Yes or no.
    Boolean(bool),
    /// Several chosen values.
    StringArray(Vec<String>),
    /// Anything else (an object, `null`, a mixed array, an integer beyond 64 bits).
    Other(Value),
}

impl crate::ConvertibleField for ElicitationContentValue {}

impl ElicitationContentValue {
    #[allow(clippy::unnecessary_wraps)] // The signature `deserialize_via_value!` takes.
    fn decode(value: Value) -> Result<Self, serde_json::Error> {
        Ok(match value {
            Value::String(text) => Self::String(text),
            Value::Bool(b) => Self::Boolean(b),
            Value::Number(n) => match (n.as_i64(), n.is_f64()) {
                (Some(i), _) => Self::Integer(i),
                (None, true) => n
                    .as_f64()
                    .map_or(Self::Other(Value::Number(n.clone())), Self::Number),
                (None, false) => Self::Other(Value::Number(n)),
            },
            Value::Array(items) if items.iter().all(Value::is_string) => Self::StringArray(
                items
                    .into_iter()
                    .filter_map(|item| match item {
                        Value::String(text) => Some(text),
                        _ => None,
                    })
                    .collect(),
            ),
            other => Self::Other(other),
        })
    }
}

impl Serialize for ElicitationContentValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(text) => serializer.serialize_str(text),
            Self::Integer(i) => serializer.serialize_i64(*i),
            Self::Number(n) => serializer.serialize_f64(*n),
            Self::Boolean(b) => serializer.serialize_bool(*b),
            Self::StringArray(items) => items.serialize(serializer),
            Self::Other(value) => value.serialize(serializer),
        }
    }
}

crate::wire::deserialize_via_value!(ElicitationContentValue, ElicitationContentValue::decode);

impl schemars::JsonSchema for ElicitationContentValue {
    fn schema_name() -> Cow<'static, str> {
        "ElicitationContentValue".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A value the user entered in an elicitation form.",
            "anyOf": [
                { "title": "String", "type": "string" },
                { "title": "Integer", "type": "integer", "format": "int64" },
                { "title": "Number", "type": "number", "format": "double" },
                { "title": "Boolean", "type": "boolean" },
                { "title": "StringArray", "type": "array", "items": { "type": "string" } },
                { "title": "Other" },
            ],
        })
    }
}

/// The structured `data` of an error: the shape of a known error when it has one, any other
/// JSON otherwise (the schema accepts anything here, so nothing is refused).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorData {
    /// The data of `-32022`: the version asked for and the supported ones.
    UnsupportedProtocolVersion(UnsupportedProtocolVersionErrorData),
    /// The data of an error about an unknown session.
    SessionNotFound(SessionNotFoundErrorData),
    /// Any other data, as it came.
    Other(Value),
}

impl crate::ConvertibleField for ErrorData {}

impl From<UnsupportedProtocolVersionErrorData> for ErrorData {
    fn from(value: UnsupportedProtocolVersionErrorData) -> Self {
        Self::UnsupportedProtocolVersion(value)
    }
}

impl From<SessionNotFoundErrorData> for ErrorData {
    fn from(value: SessionNotFoundErrorData) -> Self {
        Self::SessionNotFound(value)
    }
}

impl ErrorData {
    fn decode(value: Value) -> Result<Self, serde_json::Error> {
        // The first known shape the value has; a value of neither shape is `Other`. On the
        // strict fast path a failure may only mean "decode again leniently" (see
        // `crate::decode`), so it is passed on rather than taken for "not this shape".
        let fallback = |e: serde_json::Error, value: Value| {
            if crate::mode::lenient_mode() {
                Ok(Self::Other(value))
            } else {
                Err(e)
            }
        };
        if value.get("requested").is_some() && value.get("supported").is_some() {
            return match decode_buffered(&value) {
                Ok(data) => Ok(Self::UnsupportedProtocolVersion(data)),
                Err(e) => fallback(e, value),
            };
        }
        if value.get("sessionId").is_some() {
            return match decode_buffered(&value) {
                Ok(data) => Ok(Self::SessionNotFound(data)),
                Err(e) => fallback(e, value),
            };
        }
        Ok(Self::Other(value))
    }
}

impl Serialize for ErrorData {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::UnsupportedProtocolVersion(data) => data.serialize(serializer),
            Self::SessionNotFound(data) => data.serialize(serializer),
            Self::Other(value) => value.serialize(serializer),
        }
    }
}

crate::wire::deserialize_via_value!(ErrorData, ErrorData::decode);

impl schemars::JsonSchema for ErrorData {
    fn schema_name() -> Cow<'static, str> {
        "ErrorData".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let version = generator.subschema_for::<UnsupportedProtocolVersionErrorData>();
        let session = generator.subschema_for::<SessionNotFoundErrorData>();
        schemars::json_schema!({
            "description": "The structured data of an error: a known shape, or any JSON.",
            "anyOf": [
                { "title": "UnsupportedProtocolVersion", "allOf": [version] },
                { "title": "SessionNotFound", "allOf": [session] },
                { "title": "Other" },
            ],
        })
    }
}
