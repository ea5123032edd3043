//! Helpers shared by the integration tests: decoding a document as a named definition through
//! every public API, and writing JSON with union tags first or last.

#![allow(dead_code)] // Each test binary uses a different part.

use std::fmt::Debug;

use acp_types::{
    AgentMessage, AgentNotification, AgentRequest, AgentResponse, ClientMessage,
    ClientNotification, ClientRequest, ClientResponse, DecodeErrorKind, Message, RequestId,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

macro_rules! names {
    ($($name:ident),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}

/// Every definition decoded as a plain value.
pub(crate) const VALUE_DEFS: &[&str] = acp_types::for_each_value_definition!(names);

/// Every definition the draft features add (all plain values).
#[cfg(feature = "unstable")]
pub(crate) const UNSTABLE_VALUE_DEFS: &[&str] = acp_types::for_each_unstable_definition!(names);

/// The JSON-RPC envelope definitions, decoded through the message decoders.
pub(crate) const ENVELOPE_DEFS: &[&str] = &[
    "AgentRequest",
    "AgentResponse",
    "AgentNotification",
    "ClientRequest",
    "ClientResponse",
    "ClientNotification",
    #[cfg(feature = "unstable")]
    "ProxyRequest",
    #[cfg(feature = "unstable")]
    "ProxyResponse",
    #[cfg(feature = "unstable")]
    "ProxyNotification",
];

/// What decoding a document gave, the same through every API.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// Decoded; this is the re-encoded JSON.
    Decoded(Value),
    /// Rejected at this field path (`""` for the document as a whole).
    Rejected { path: String, message: String },
}

/// Decodes `doc` as the definition `def` through every decoding API, checks that they agree,
/// and returns the common outcome. `Err` describes a disagreement (a bug in itself).
///
/// Envelope definitions go through the message decoders; responses need `request_method`.
pub(crate) fn decode_def(
    def: &str,
    doc: &Value,
    request_method: Option<&str>,
) -> Result<Outcome, String> {
    macro_rules! dispatch {
        ($($name:ident),* $(,)?) => {
            match def {
                $( stringify!($name) => decode_value::<acp_types::$name>(doc), )*
                envelope if ENVELOPE_DEFS.contains(&envelope) => {
                    decode_envelope(def, doc, request_method)
                }
                other => decode_unstable(other, doc),
            }
        };
    }
    acp_types::for_each_value_definition!(dispatch)
}

/// Decodes `doc` as the draft definition `def`.
#[cfg(feature = "unstable")]
fn decode_unstable(def: &str, doc: &Value) -> Result<Outcome, String> {
    macro_rules! dispatch {
        ($($name:ident),* $(,)?) => {
            match def {
                $( stringify!($name) => decode_value::<acp_types::$name>(doc), )*
                other => Err(format!("no Rust type for definition {other}")),
            }
        };
    }
    acp_types::for_each_unstable_definition!(dispatch)
}

/// Without the draft features, no other definition has a Rust type.
#[cfg(not(feature = "unstable"))]
fn decode_unstable(def: &str, _doc: &Value) -> Result<Outcome, String> {
    Err(format!("no Rust type for definition {def}"))
}

/// The JSON texts a document is decoded from: union tags first (the fast path of every
/// decoder), union tags last (every entry before the tag is buffered), and keys sorted by name
/// (tags often in the middle: some entries buffered, the rest read live).
pub(crate) fn texts(doc: &Value) -> [String; 3] {
    [
        write_ordered(doc, true),
        write_ordered(doc, false),
        serde_json::to_string(doc).expect("a value serializes"),
    ]
}

/// Keys that select a union branch or an envelope kind.
const TAG_KEYS: &[&str] = &[
    "jsonrpc",
    "id",
    "method",
    "type",
    "sessionUpdate",
    "outcome",
    "mode",
    "action",
];

/// Writes `value` as JSON text with the tag keys of every object first (or last).
pub(crate) fn write_ordered(value: &Value, tags_first: bool) -> String {
    let mut out = String::new();
    write_into(value, tags_first, &mut out);
    out
}

fn write_into(value: &Value, tags_first: bool, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|k| {
                let is_tag = TAG_KEYS.contains(&k.as_str());
                (is_tag != tags_first, TAG_KEYS.iter().position(|t| t == k))
            });
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key).expect("a string serializes"));
                out.push(':');
                write_into(&map[key.as_str()], tags_first, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_into(item, tags_first, out);
            }
            out.push(']');
        }
        other => out.push_str(&serde_json::to_string(other).expect("a value serializes")),
    }
}

/// Decodes a plain value with `acp_types::from_value`, `acp_types::from_str` (both key
/// orders) and plain serde (`serde_json::from_value`, `serde_json::from_str`).
pub(crate) fn decode_value<T>(doc: &Value) -> Result<Outcome, String>
where
    T: DeserializeOwned + Serialize + PartialEq + Debug,
{
    let texts = texts(doc);
    let ours: Vec<(&str, Result<T, acp_types::DecodeError>)> = vec![
        (
            "acp_types::from_value",
            acp_types::from_value::<T>(doc.clone()),
        ),
        (
            "acp_types::from_str (tags first)",
            acp_types::from_str::<T>(&texts[0]),
        ),
        (
            "acp_types::from_str (tags last)",
            acp_types::from_str::<T>(&texts[1]),
        ),
        (
            "acp_types::from_slice (tags first)",
            acp_types::from_slice::<T>(texts[0].as_bytes()),
        ),
        (
            "acp_types::from_str (sorted keys)",
            acp_types::from_str::<T>(&texts[2]),
        ),
    ];
    let plain: Vec<(&str, Result<T, serde_json::Error>)> = vec![
        (
            "serde_json::from_value",
            serde_json::from_value::<T>(doc.clone()),
        ),
        (
            "serde_json::from_str (tags first)",
            serde_json::from_str::<T>(&texts[0]),
        ),
        (
            "serde_json::from_str (tags last)",
            serde_json::from_str::<T>(&texts[1]),
        ),
    ];
    let mut outcomes: Vec<(&str, Outcome)> = Vec::new();
    let mut decoded: Vec<(&str, T)> = Vec::new();
    for (api, result) in ours {
        match result {
            Ok(value) => {
                outcomes.push((api, Outcome::Decoded(encode(&value)?)));
                decoded.push((api, value));
            }
            Err(e) => {
                if e.kind() != DecodeErrorKind::InvalidData {
                    return Err(format!("{api}: unexpected error kind {:?}: {e}", e.kind()));
                }
                outcomes.push((
                    api,
                    Outcome::Rejected {
                        path: e.path().to_owned(),
                        message: e.message().to_owned(),
                    },
                ));
            }
        }
    }
    for (api, result) in plain {
        match result {
            Ok(value) => {
                outcomes.push((api, Outcome::Decoded(encode(&value)?)));
                decoded.push((api, value));
            }
            // Plain serde has no path; only the verdict is compared.
            Err(e) => outcomes.push((
                api,
                Outcome::Rejected {
                    path: outcomes[0].1.path().unwrap_or_default().to_owned(),
                    message: e.to_string(),
                },
            )),
        }
    }
    let first = agree(&outcomes)?;
    // Decoded values are equal, and re-decoding the encoding gives them back.
    if let Some((_, value)) = decoded.first() {
        for (api, other) in &decoded[1..] {
            if other != value {
                return Err(format!(
                    "{api} decoded a different value: {other:?} vs {value:?}"
                ));
            }
        }
        let Outcome::Decoded(json) = &first else {
            unreachable!("decoded values exist only when decoding succeeded")
        };
        let again: T = acp_types::from_value(json.clone())
            .map_err(|e| format!("the re-encoding does not decode: {e}: {json}"))?;
        if &again != value {
            return Err(format!(
                "value -> JSON -> value changed the value: {again:?} vs {value:?}"
            ));
        }
        if encode(&again)? != *json {
            return Err(format!("encoding is not stable: {json}"));
        }
    }
    Ok(first)
}

impl Outcome {
    fn path(&self) -> Option<&str> {
        match self {
            Outcome::Decoded(_) => None,
            Outcome::Rejected { path, .. } => Some(path),
        }
    }
}

/// Checks that every API reached the same outcome (same JSON, or rejection at the same path).
fn agree<L: std::fmt::Display>(outcomes: &[(L, Outcome)]) -> Result<Outcome, String> {
    let (first_api, first) = &outcomes[0];
    for (api, outcome) in &outcomes[1..] {
        let same = match (first, outcome) {
            (Outcome::Decoded(a), Outcome::Decoded(b)) => a == b,
            (Outcome::Rejected { path: a, .. }, Outcome::Rejected { path: b, .. }) => a == b,
            _ => false,
        };
        if !same {
            return Err(format!(
                "APIs disagree: {first_api} gave {first:?}, {api} gave {outcome:?}"
            ));
        }
    }
    Ok(first.clone())
}

fn encode<T: Serialize>(value: &T) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|e| format!("encoding failed: {e}"))
}

/// Decodes an envelope definition with the message decoders of its side, from every key
/// order, and cross-checks the typed decoders of its kind.
fn decode_envelope(def: &str, doc: &Value, method: Option<&str>) -> Result<Outcome, String> {
    let texts = texts(doc);
    let mut outcomes: Vec<(String, Outcome)> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let bytes = text.as_bytes();
        let method_of = |_: &RequestId| method;
        let (by_message, by_kind) = match def {
            "AgentRequest" => (
                kind_of(AgentMessage::decode(bytes, method_of), Kind::Request)?,
                typed(AgentRequest::decode(bytes))?,
            ),
            "AgentResponse" => (
                kind_of(AgentMessage::decode(bytes, method_of), Kind::Response)?,
                typed(AgentResponse::decode(bytes, method.unwrap_or_default()))?,
            ),
            "AgentNotification" => (
                kind_of(AgentMessage::decode(bytes, method_of), Kind::Notification)?,
                typed(AgentNotification::decode(bytes))?,
            ),
            "ClientRequest" => (
                kind_of(ClientMessage::decode(bytes, method_of), Kind::Request)?,
                typed(ClientRequest::decode(bytes))?,
            ),
            "ClientResponse" => (
                kind_of(ClientMessage::decode(bytes, method_of), Kind::Response)?,
                typed(ClientResponse::decode(bytes, method.unwrap_or_default()))?,
            ),
            "ClientNotification" => (
                kind_of(ClientMessage::decode(bytes, method_of), Kind::Notification)?,
                typed(ClientNotification::decode(bytes))?,
            ),
            // The proxy envelopes have no message union of their own: the typed decoders.
            #[cfg(feature = "unstable")]
            "ProxyRequest" => (
                typed(acp_types::ProxyRequest::decode(bytes))?,
                typed(acp_types::ProxyRequest::decode(bytes))?,
            ),
            #[cfg(feature = "unstable")]
            "ProxyResponse" => (
                typed(acp_types::ProxyResponse::decode(
                    bytes,
                    method.unwrap_or_default(),
                ))?,
                typed(acp_types::ProxyResponse::decode(
                    bytes,
                    method.unwrap_or_default(),
                ))?,
            ),
            #[cfg(feature = "unstable")]
            "ProxyNotification" => (
                typed(acp_types::ProxyNotification::decode(bytes))?,
                typed(acp_types::ProxyNotification::decode(bytes))?,
            ),
            other => return Err(format!("{other} is not an envelope")),
        };
        const ORDERS: [&str; 3] = ["tags first", "tags last", "sorted keys"];
        outcomes.push((format!("Message::decode ({})", ORDERS[i]), by_message));
        outcomes.push((format!("typed decode ({})", ORDERS[i]), by_kind));
    }
    agree(&outcomes)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Request,
    Response,
    Notification,
}

fn kind_of<Req, Res, Not>(
    result: Result<Message<Req, Res, Not>, acp_types::DecodeError>,
    want: Kind,
) -> Result<Outcome, String>
where
    Req: acp_types::MethodUnion,
    Res: acp_types::MethodUnion,
    Not: acp_types::MethodUnion,
{
    match result {
        Ok(message) => {
            let got = match &message {
                Message::Request(_) => Kind::Request,
                Message::Response(_) => Kind::Response,
                Message::Notification(_) => Kind::Notification,
                _ => return Err("a message of an unknown kind".into()),
            };
            if got == want {
                Ok(Outcome::Decoded(encode(&message)?))
            } else {
                Ok(Outcome::Rejected {
                    path: String::new(),
                    message: format!("decoded as a {got:?}, not a {want:?}"),
                })
            }
        }
        Err(e) => Ok(Outcome::Rejected {
            path: e.path().to_owned(),
            message: e.to_string(),
        }),
    }
}

fn typed<T: Serialize>(result: Result<T, acp_types::DecodeError>) -> Result<Outcome, String> {
    match result {
        Ok(value) => Ok(Outcome::Decoded(encode(&value)?)),
        Err(e) => Ok(Outcome::Rejected {
            path: e.path().to_owned(),
            message: e.to_string(),
        }),
    }
}
