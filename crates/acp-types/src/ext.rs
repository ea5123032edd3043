//! Extension methods: requests and notifications whose method name starts with `_`.
//!
//! Their params and results are opaque to the protocol, so they are kept as raw JSON text and
//! never parsed by this crate.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::wire::lenient_no_default;

/// True for an extension method name (it starts with `_`).
pub fn is_extension_method(method: &str) -> bool {
    method.starts_with('_')
}

/// Declares a raw-JSON extension payload type.
macro_rules! raw_payload {
    ($(#[doc = $doc:literal])* $name:ident) => {
        $(#[doc = $doc])*
        #[derive(Clone)]
        #[non_exhaustive]
        pub struct $name {
            /// The extension method name (with its leading `_`). Filled in by the envelope
            /// decoders; empty when the value was decoded on its own.
            pub method: String,
            /// The raw JSON, exactly as received (or as built); `None` when the message had none.
            pub raw: Option<Box<RawValue>>,
        }

        impl $name {
            /// The raw JSON text, `null` when there is none.
            pub fn get(&self) -> &str {
                self.raw.as_deref().map_or("null", RawValue::get)
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

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.method == other.method && self.get() == other.get()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut s = f.debug_struct(stringify!($name));
                s.field("method", &self.method).field("raw", &self.get()).finish()
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match &self.raw {
                    Some(raw) => raw.serialize(serializer),
                    None => serializer.serialize_unit(),
                }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = Box::<RawValue>::deserialize(deserializer)?;
                Ok(Self {
                    method: String::new(),
                    raw: Some(raw),
                })
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "description": crate::wire::doc_text(&[$($doc),*]),
                })
            }
        }

        lenient_no_default!($name);
    };
}

raw_payload!(
    /// The params of an extension request (a method whose name starts with `_`), kept raw.
    ExtRequest
);

raw_payload!(
    /// The result of an extension request, kept raw.
    ExtResponse
);

raw_payload!(
    /// The params of an extension notification (a method whose name starts with `_`), kept raw.
    ExtNotification
);

impl ExtRequest {
    /// An extension request for `method` with `params` (any serializable value).
    ///
    /// # Errors
    ///
    /// When `params` cannot be serialized.
    pub fn new(
        method: impl Into<String>,
        params: &impl Serialize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            method: method.into(),
            raw: Some(serde_json::value::to_raw_value(params)?),
        })
    }

    /// An extension request for `method` carrying already serialized params (or none).
    pub fn from_raw(method: impl Into<String>, raw: Option<Box<RawValue>>) -> Self {
        Self {
            method: method.into(),
            raw,
        }
    }
}

impl ExtNotification {
    /// An extension notification for `method` with `params` (any serializable value).
    ///
    /// # Errors
    ///
    /// When `params` cannot be serialized.
    pub fn new(
        method: impl Into<String>,
        params: &impl Serialize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            method: method.into(),
            raw: Some(serde_json::value::to_raw_value(params)?),
        })
    }

    /// An extension notification for `method` carrying already serialized params (or none).
    pub fn from_raw(method: impl Into<String>, raw: Option<Box<RawValue>>) -> Self {
        Self {
            method: method.into(),
            raw,
        }
    }
}

impl ExtResponse {
    /// The result of extension method `method`, holding `value` (any serializable value).
    ///
    /// # Errors
    ///
    /// When `value` cannot be serialized.
    pub fn new(
        method: impl Into<String>,
        value: &impl Serialize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            method: method.into(),
            raw: Some(serde_json::value::to_raw_value(value)?),
        })
    }

    /// The result of extension method `method`, carrying already serialized JSON.
    pub fn from_raw(method: impl Into<String>, raw: Option<Box<RawValue>>) -> Self {
        Self {
            method: method.into(),
            raw,
        }
    }
}
