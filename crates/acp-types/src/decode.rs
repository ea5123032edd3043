//! Decoding with field paths in errors, and a fast path for valid documents.
//!
//! Every type here also implements `serde::Deserialize`, so `serde_json::from_slice` works. The
//! functions of this module are faster and say more when decoding fails:
//!
//! 1. They first decode in *strict* mode, where fields the schema lets fall back to a default
//!    (`x-deserialize-default-on-error`) decode straight into their type, without buffering,
//!    and the fields of a union read before its tag are parsed once rather than kept as text
//!    (a float among them, whose text only the lenient pass keeps, sends the document on).
//!    Valid documents, the overwhelming majority, succeed here.
//! 2. On failure they decode again in *lenient* mode (what plain serde does), which applies the
//!    schema's defaults and skips invalid array items where the schema says so. The result is
//!    the same as plain serde's.
//! 3. If that fails too, the document is invalid; one more pass finds the path of the offending
//!    field for the error message.

use std::fmt;

use serde::de::DeserializeOwned;

use crate::mode::{with_lenient, with_strict};

/// Why a document could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The bytes are not JSON (or end too early). JSON-RPC code `-32700`.
    Syntax,
    /// JSON, but not a valid JSON-RPC 2.0 message (wrong `jsonrpc`, a batch, both `result` and
    /// `error`, a member given twice, ...). JSON-RPC code `-32600`.
    InvalidMessage,
    /// A request or notification for a method this crate does not know (and not an extension
    /// method). JSON-RPC code `-32601`.
    UnknownMethod,
    /// A response whose request (and so whose result type) is not known.
    UnknownResponse,
    /// Valid JSON whose shape does not fit the type (for messages: the params or result do not
    /// fit the method). JSON-RPC code `-32602`.
    InvalidData,
}

/// A decoding failure, with the path of the offending field when it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    path: String,
    message: String,
}

impl DecodeError {
    pub(crate) fn new(
        kind: DecodeErrorKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            path: path.into(),
            message: plain_message(message.into()),
        }
    }

    /// Wraps a `serde_json` error found at `path`. Errors raised inside a value that was
    /// decoded on its own (a buffered union, a hand-decoded object) carry the rest of the path
    /// in their message; it is joined to `path` here.
    pub(crate) fn from_json(error: &serde_json::Error, path: String) -> Self {
        let kind = match error.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                DecodeErrorKind::Syntax
            }
            _ => DecodeErrorKind::InvalidData,
        };
        let message = error.to_string();
        let (inner, rest) = crate::wire::split_path(&message);
        let path = crate::wire::join_path(&path, inner.unwrap_or_default());
        Self::new(kind, path, rest)
    }

    /// Prefixes the path (used when a part is decoded on its own, e.g. `params`).
    #[must_use]
    pub(crate) fn within(mut self, prefix: &str) -> Self {
        self.path = if self.path.is_empty() || self.path == "." {
            prefix.to_owned()
        } else if self.path.starts_with('[') {
            format!("{prefix}{}", self.path)
        } else {
            format!("{prefix}.{}", self.path)
        };
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The path of the offending field (`toolCall.kind`, `prompt[2].text`, ...), or an empty
    /// string when the failure is about the document as a whole.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The underlying message, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// `serde_json`'s messages that name its parser's state rather than the problem in the input,
/// and what they mean.
const PLAIN_MESSAGES: [(&str, &str); 2] = [
    // A `\uD800`-`\uDBFF` escape not followed by a `\u` escape of the second half.
    ("unexpected end of hex escape", "lone surrogate in string"),
    // A second half without a first, or a first half followed by another escape.
    (
        "lone leading surrogate in hex escape",
        "lone surrogate in string",
    ),
];

/// Rewords the messages of [`PLAIN_MESSAGES`] (keeping the rest: the path, line and column).
fn plain_message(message: String) -> String {
    let mut message = message;
    for (from, to) in PLAIN_MESSAGES {
        if message.contains(from) {
            message = message.replace(from, to);
        }
    }
    message
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() || self.path == "." {
            f.write_str(&self.message)
        } else {
            write!(f, "at `{}`: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes `T` from JSON bytes (see the [module docs](self) for the strategy).
///
/// # Errors
///
/// When the bytes are not JSON or do not fit `T`; the error names the offending field.
pub fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T, DecodeError> {
    match utf8(json) {
        Some(text) => from_str(text),
        None => decode_read(|| serde_json::de::SliceRead::new(json)),
    }
}

/// The bytes as text when they are valid UTF-8, checked with SIMD where the CPU has it.
///
/// Decoders check a whole message once and then read it with serde_json's string reader,
/// which then skips the per-string check; invalid text takes serde_json's byte reader, whose
/// errors say where the bad byte is.
pub(crate) fn utf8(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

/// Decodes `T` from a JSON string (see [`from_slice`]).
///
/// # Errors
///
/// When the text does not fit `T`; the error names the offending field.
pub fn from_str<T: DeserializeOwned>(json: &str) -> Result<T, DecodeError> {
    decode_read(|| serde_json::de::StrRead::new(json))
}

/// The strategy of the module docs, over any of serde_json's readers.
fn decode_read<'a, T, R>(reader: impl Fn() -> R) -> Result<T, DecodeError>
where
    T: DeserializeOwned,
    R: serde_json::de::Read<'a>,
{
    let attempt = || -> Result<T, serde_json::Error> {
        let mut de = serde_json::Deserializer::new(reader());
        let value = T::deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    };
    if let Ok(value) = with_strict(attempt) {
        return Ok(value);
    }
    with_lenient(|| match attempt() {
        Ok(value) => Ok(value),
        Err(error) => {
            let mut de = serde_json::Deserializer::new(reader());
            let path = match serde_path_to_error::deserialize::<_, T>(&mut de) {
                Err(e) => e.path().to_string(),
                Ok(_) => String::new(),
            };
            Err(DecodeError::from_json(&error, path))
        }
    })
}

/// Decodes `T` from a JSON value, applying the schema's leniency rules.
///
/// # Errors
///
/// When the value does not fit `T`; the error names the offending field.
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, DecodeError> {
    with_lenient(|| match serde_path_to_error::deserialize::<_, T>(&value) {
        Ok(v) => Ok(v),
        Err(e) => {
            let path = e.path().to_string();
            Err(DecodeError::from_json(e.inner(), path))
        }
    })
}
