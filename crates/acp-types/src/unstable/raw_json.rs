//! Raw JSON kept exactly as received: the opaque payloads that the drafts forward without
//! looking inside (an inner MCP result, the params of a message a proxy forwards).

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::wire::lenient_no_default;

/// Any JSON value, held as its exact text and written back unchanged: never parsed into a
/// [`serde_json::Value`] and never re-serialized, so numbers, key order and spacing survive a
/// trip through this crate.
#[derive(Clone)]
#[non_exhaustive]
pub struct RawJson {
    /// The JSON text, exactly as received (or as built).
    pub raw: Box<RawValue>,
}

impl RawJson {
    /// The JSON of `value` (any serializable value).
    ///
    /// # Errors
    ///
    /// When `value` cannot be serialized.
    pub fn new(value: &impl Serialize) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(Self::from_raw)
    }

    /// Already serialized JSON.
    pub fn from_raw(raw: Box<RawValue>) -> Self {
        Self { raw }
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.raw.get()
    }

    /// True for the JSON `null`.
    pub fn is_null(&self) -> bool {
        self.get() == "null"
    }

    /// Parses the JSON into `T`.
    ///
    /// # Errors
    ///
    /// When the JSON does not fit `T`.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.get())
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> Self {
        Self::from_raw(raw)
    }
}

impl PartialEq for RawJson {
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

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RawJson").field(&self.get()).finish()
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Self::from_raw)
    }
}

impl schemars::JsonSchema for RawJson {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "RawJson".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({})
    }
}

impl crate::ConvertibleField for RawJson {}

lenient_no_default!(RawJson);
