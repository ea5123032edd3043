//! Proxy chains (`unstable_proxy_chains`): the messages between a conductor and the proxies
//! it chains in front of an agent (`proxy/initialize`, `proxy/successor`).
//!
//! Types and method tables only: a proxy runs as both a client (toward its successor) and an
//! agent (toward its predecessor); its runtime is not part of this crate.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::prelude::*;
use crate::wire::lenient_no_default;

/// The room a conductor and its proxies allow beyond their frame limit on the connections
/// between them: a message of the largest size the editor may send still fits once wrapped in
/// `proxy/successor` (the method names and members the envelope adds, for a few levels of
/// nesting).
pub const PROXY_ENVELOPE_HEADROOM: usize = 64 * 1024;

/// Declares a newtype whose wire form and schema are those of another definition (`allOf`
/// the inner one), under a name of its own.
macro_rules! same_as {
    ($(#[doc = $doc:literal])* pub struct $name:ident($inner:ty);) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct $name(pub $inner);

        impl $name {
            /// Wraps the inner value.
            pub fn new(inner: impl Into<$inner>) -> Self {
                Self(inner.into())
            }

            /// The inner value.
            pub fn into_inner(self) -> $inner {
                self.0
            }
        }

        impl From<$inner> for $name {
            fn from(inner: $inner) -> Self {
                Self(inner)
            }
        }

        impl ::std::ops::Deref for $name {
            type Target = $inner;

            fn deref(&self) -> &$inner {
                &self.0
            }
        }

        impl ::std::ops::DerefMut for $name {
            fn deref_mut(&mut self) -> &mut $inner {
                &mut self.0
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(&self.0, serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <$inner as ::serde::Deserialize>::deserialize(deserializer).map(Self)
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                let inner = generator.subschema_for::<$inner>();
                ::schemars::json_schema!({
                    "description": crate::wire::doc_text(&[$($doc),*]),
                    "allOf": [inner],
                })
            }
        }

        $crate::wire::lenient_no_default!($name);
    };
}
#[cfg(feature = "unstable_protocol_v2")]
pub(crate) use same_as;

same_as! {
    /// Starts a proxy (`proxy/initialize`, conductor to a component that has a successor):
    /// the params of `initialize`, with the protocol version the conductor selected.
    ///
    /// Before answering, the proxy forwards an `initialize` to its successor through
    /// `proxy/successor`.
    pub struct InitializeProxyRequest(InitializeRequest);
}

same_as! {
    /// The proxy's answer to `proxy/initialize`: the result of `initialize`.
    pub struct InitializeProxyResponse(InitializeResponse);
}

wire_object! {
    /// Forwards one request to the successor, or delivers one from it
    /// (`proxy/successor` with an id): the wrapped request's method and params.
    ///
    /// The params are kept as raw JSON, exactly as received. The wrapped request's result or
    /// error comes back unchanged as this request's ([`ProxySuccessorResponse`]).
    #[new(method: impl Into<String>)]
    pub struct ProxySuccessorRequest {
        /// The wrapped request's method.
        req method: String = "method";
        /// The wrapped request's params, unchanged (absent and `null` mean none).
        opt params: RawJson = "params" [NULLABLE];
        /// Extension data, opaque to the protocol (the wrapped request's own `_meta` stays
        /// in its params).
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Forwards one notification to the successor, or delivers one from it
    /// (`proxy/successor` without an id): the wrapped notification's method and params.
    #[new(method: impl Into<String>)]
    pub struct ProxySuccessorNotification {
        /// The wrapped notification's method.
        req method: String = "method";
        /// The wrapped notification's params, unchanged (absent and `null` mean none).
        opt params: RawJson = "params" [NULLABLE];
        /// Extension data, opaque to the protocol (the wrapped notification's own `_meta`
        /// stays in its params).
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// The result of a `proxy/successor` request: the wrapped request's result, any JSON value,
/// forwarded unchanged as raw JSON.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProxySuccessorResponse(pub RawJson);

impl ProxySuccessorResponse {
    /// The result `raw`, unchanged.
    pub fn new(raw: impl Into<RawJson>) -> Self {
        Self(raw.into())
    }
}

impl Serialize for ProxySuccessorResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ProxySuccessorResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RawJson::deserialize(deserializer).map(Self)
    }
}

impl schemars::JsonSchema for ProxySuccessorResponse {
    fn schema_name() -> Cow<'static, str> {
        "ProxySuccessorResponse".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The result of a `proxy/successor` request: the wrapped request's result, forwarded unchanged.",
        })
    }
}

lenient_no_default!(ProxySuccessorResponse);
