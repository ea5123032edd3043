//! The wire layer: the `proxy/successor` envelope and the two spellings of the proxy methods.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use acp_types::ErrorObject;
use acp_types::methods::agent::{PROXY_INITIALIZE, PROXY_SUCCESSOR};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// `_proxy/initialize`: the official conductor's spelling of `proxy/initialize` (an extension
/// method name; the November schema and the design document say `proxy/initialize`).
pub const EXT_PROXY_INITIALIZE: &str = "_proxy/initialize";

/// `_proxy/successor`: the official conductor's spelling of `proxy/successor`.
pub const EXT_PROXY_SUCCESSOR: &str = "_proxy/successor";

/// Which spelling of the proxy methods the conductor speaks: the one of the schema
/// (`proxy/successor`) or the official conductor's (`_proxy/successor`).
///
/// A proxy learns it from the initialize request it gets and answers in kind; both spellings
/// are accepted on receipt at any time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dialect {
    /// `proxy/initialize`, `proxy/successor`: the November draft schema and the design document.
    Schema,
    /// `_proxy/initialize`, `_proxy/successor`: the official Rust conductor
    /// (`agent-client-protocol-conductor` 2.x).
    Extension,
}

impl Dialect {
    /// The method of the successor envelope in this dialect.
    pub fn successor_method(self) -> &'static str {
        match self {
            Dialect::Schema => PROXY_SUCCESSOR,
            Dialect::Extension => EXT_PROXY_SUCCESSOR,
        }
    }

    /// The method that starts a proxy in this dialect.
    pub fn initialize_method(self) -> &'static str {
        match self {
            Dialect::Schema => PROXY_INITIALIZE,
            Dialect::Extension => EXT_PROXY_INITIALIZE,
        }
    }

    /// The dialect whose initialize method is `method`, if it is one.
    pub fn of_initialize(method: &str) -> Option<Dialect> {
        match method {
            PROXY_INITIALIZE => Some(Dialect::Schema),
            EXT_PROXY_INITIALIZE => Some(Dialect::Extension),
            _ => None,
        }
    }

    /// True when `method` is the successor envelope in either dialect.
    pub fn is_successor(method: &str) -> bool {
        method == PROXY_SUCCESSOR || method == EXT_PROXY_SUCCESSOR
    }
}

/// The dialect a connection settled on; shared by the handler (which learns it) and the handles
/// (which send in it).
#[derive(Debug, Clone, Default)]
pub(crate) struct DialectCell(Arc<AtomicBool>);

impl DialectCell {
    pub(crate) fn get(&self) -> Dialect {
        if self.0.load(Ordering::Acquire) {
            Dialect::Extension
        } else {
            Dialect::Schema
        }
    }

    pub(crate) fn set(&self, dialect: Dialect) {
        self.0
            .store(dialect == Dialect::Extension, Ordering::Release);
    }
}

/// A received envelope, borrowing from the frame: the wrapped method and params. The envelope's
/// own `_meta` is hop-local and not read.
#[derive(Deserialize)]
pub(crate) struct Unwrapped<'a> {
    #[serde(borrow)]
    pub(crate) method: Cow<'a, str>,
    /// Absent and `null` both mean none.
    #[serde(borrow, default)]
    pub(crate) params: Option<&'a RawValue>,
}

impl<'a> Unwrapped<'a> {
    /// Reads the params of a `proxy/successor` message.
    pub(crate) fn parse(params: Option<&'a RawValue>) -> Result<Self, ErrorObject> {
        let params = params.ok_or_else(|| {
            ErrorObject::invalid_params("`proxy/successor` needs params naming the wrapped method")
        })?;
        let unwrapped: Unwrapped<'a> = serde_json::from_str(params.get()).map_err(|e| {
            ErrorObject::invalid_params(format_args!("malformed `proxy/successor` envelope: {e}"))
        })?;
        if let Some(inner) = unwrapped.params {
            if !matches!(
                inner.get().trim_start().as_bytes().first(),
                Some(b'{' | b'[')
            ) {
                return Err(ErrorObject::invalid_params(
                    "the wrapped params of `proxy/successor` must be an object or an array",
                ));
            }
        }
        Ok(unwrapped)
    }
}

/// An envelope to send: the wrapped method and its params, written verbatim.
#[derive(Serialize)]
pub(crate) struct Wrapped<'a, P: Serialize + ?Sized> {
    pub(crate) method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) params: Option<&'a P>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwraps_without_copying_and_refuses_scalars() {
        let raw = RawValue::from_string(
            r#"{"method":"session/prompt","params":{"b":1, "a" :2},"_meta":{"x":1}}"#.into(),
        )
        .expect("json");
        let env = Unwrapped::parse(Some(&raw)).expect("envelope");
        assert_eq!(env.method, "session/prompt");
        assert_eq!(env.params.map(RawValue::get), Some(r#"{"b":1, "a" :2}"#));

        let null = RawValue::from_string(r#"{"method":"x/y","params":null}"#.into()).expect("json");
        assert!(
            Unwrapped::parse(Some(&null))
                .expect("envelope")
                .params
                .is_none()
        );

        let scalar = RawValue::from_string(r#"{"method":"x/y","params":3}"#.into()).expect("json");
        assert!(Unwrapped::parse(Some(&scalar)).is_err());
        let no_method = RawValue::from_string(r#"{"params":{}}"#.into()).expect("json");
        assert!(Unwrapped::parse(Some(&no_method)).is_err());
        assert!(Unwrapped::parse(None).is_err());
    }

    #[test]
    fn wraps_params_verbatim() {
        let raw = RawValue::from_string(r#"{"z":1,"_meta":{"k":[1, 2]}}"#.into()).expect("json");
        let text = serde_json::to_string(&Wrapped {
            method: "_ext/thing",
            params: Some(&*raw),
        })
        .expect("serialize");
        assert_eq!(
            text,
            r#"{"method":"_ext/thing","params":{"z":1,"_meta":{"k":[1, 2]}}}"#
        );
    }

    #[test]
    fn dialects_name_their_methods() {
        assert_eq!(
            Dialect::of_initialize("_proxy/initialize"),
            Some(Dialect::Extension)
        );
        assert_eq!(
            Dialect::of_initialize("proxy/initialize"),
            Some(Dialect::Schema)
        );
        assert_eq!(Dialect::of_initialize("initialize"), None);
        assert!(
            Dialect::is_successor("_proxy/successor") && Dialect::is_successor("proxy/successor")
        );
        let cell = DialectCell::default();
        assert_eq!(cell.get().successor_method(), "proxy/successor");
        cell.set(Dialect::Extension);
        assert_eq!(cell.get().successor_method(), "_proxy/successor");
    }
}
