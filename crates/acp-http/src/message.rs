//! A shallow read of one JSON-RPC message: what routing needs (its id, its method, the session
//! it names) without decoding its params or result.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The routing-relevant parts of a JSON-RPC message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The JSON text of `id` (`1`, `"a"`, `null`), as a key that tells `1` and `"1"` apart.
    pub(crate) id: Option<String>,
    /// `method`, for requests and notifications.
    pub(crate) method: Option<String>,
    /// `params.sessionId`, when the params are an object with a string `sessionId`.
    pub(crate) params_session: Option<String>,
    /// `result.sessionId`, when the result is an object with a string `sessionId`.
    pub(crate) result_session: Option<String>,
    /// True when the message has an `error` member.
    pub(crate) error: bool,
}

impl Shape {
    /// A request: a method and an id.
    pub(crate) fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    /// A response: an id and no method.
    pub(crate) fn is_response(&self) -> bool {
        self.method.is_none() && self.id.is_some()
    }
}

/// Why a body is not one JSON-RPC message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotAMessage {
    /// Not JSON at all.
    NotJson,
    /// A JSON array: a batch, which the transport does not carry.
    Batch,
    /// JSON, but not an object.
    NotObject,
}

impl fmt::Display for NotAMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NotAMessage::NotJson => "the body is not a readable JSON-RPC message",
            NotAMessage::Batch => "JSON-RPC batches are not supported",
            NotAMessage::NotObject => "the body is not a JSON-RPC message object",
        })
    }
}

/// Reads the shape of one message.
pub(crate) fn shape(bytes: &[u8]) -> Result<Shape, NotAMessage> {
    let first = bytes
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    match first {
        Some(b'{') => {}
        Some(b'[') => return Err(NotAMessage::Batch),
        _ => {
            return Err(if serde_json::from_slice::<IgnoredAny>(bytes).is_ok() {
                NotAMessage::NotObject
            } else {
                NotAMessage::NotJson
            });
        }
    }
    let envelope: Envelope<'_> = serde_json::from_slice(bytes).map_err(|_| NotAMessage::NotJson)?;
    Ok(Shape {
        id: envelope.id.0.map(|id| id.get().to_owned()),
        method: envelope.method,
        params_session: envelope.params.and_then(|s| s.0),
        result_session: envelope.result.and_then(|s| s.0),
        error: envelope.error.is_some(),
    })
}

/// Reads the shape of a message that `acp-rpc` wrote, without parsing what routing does not
/// need: the agent served in process writes every envelope in one layout
/// (`{"jsonrpc":"2.0","id":…,"method":…,"params":…}`, members in that order, the payload last,
/// and the typed params and results with their `sessionId` first), so its prefix says it all.
/// Anything else in that prefix (escapes, a `sessionId` that is not the first member, another
/// layout) falls back to [`shape`]. Only for messages of that writer: a foreign program may put
/// `id` after `params`.
#[cfg(feature = "server")]
pub(crate) fn shape_of_ours(bytes: &[u8]) -> Result<Shape, NotAMessage> {
    prefix_shape(bytes).map_or_else(|| shape(bytes), Ok)
}

/// The shape read from the envelope's prefix, or `None` when the prefix does not settle it.
#[cfg(feature = "server")]
fn prefix_shape(bytes: &[u8]) -> Option<Shape> {
    let mut rest = bytes.strip_prefix(br#"{"jsonrpc":"2.0","#)?;
    let mut shape = Shape::default();
    if let Some(after) = rest.strip_prefix(br#""id":"#) {
        let (id, after) = id_text(after)?;
        shape.id = Some(id.to_owned());
        rest = after.strip_prefix(b",")?;
    }
    if let Some(after) = rest.strip_prefix(br#""method":"#) {
        let (method, after) = plain_string(after)?;
        shape.method = Some(method.to_owned());
        shape.params_session = leading_session(after.strip_prefix(br#","params":"#)?)?;
    } else if let Some(result) = rest.strip_prefix(br#""result":"#) {
        shape.id.as_ref()?;
        shape.result_session = leading_session(result)?;
    } else if rest.starts_with(br#""error":"#) {
        shape.id.as_ref()?;
        shape.error = true;
    } else {
        return None;
    }
    Some(shape)
}

/// The text of an id (an integer, `null`, or a string without escapes, quotes included) and
/// what follows it.
#[cfg(feature = "server")]
fn id_text(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let len = match bytes.first()? {
        b'"' => plain_string(bytes)?.0.len() + 2,
        b'n' => bytes.starts_with(b"null").then_some(4)?,
        _ => {
            let digits = usize::from(bytes[0] == b'-');
            let len = digits
                + bytes[digits..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
            // A fraction or an exponent: not an integer literal, left to the full read.
            (len > digits && bytes.get(len) == Some(&b',')).then_some(len)?
        }
    };
    let (id, rest) = bytes.split_at(len);
    Some((std::str::from_utf8(id).ok()?, rest))
}

/// A JSON string without escapes at the start of `bytes` (its text, and what follows it).
#[cfg(feature = "server")]
fn plain_string(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let body = bytes.strip_prefix(b"\"")?;
    let end = body.iter().position(|&b| b == b'"' || b == b'\\')?;
    if body[end] != b'"' {
        return None;
    }
    Some((std::str::from_utf8(&body[..end]).ok()?, &body[end + 1..]))
}

/// The session of a payload, if its start settles it: `Some(Some(id))` for an object whose
/// first member is a string `sessionId`, `Some(None)` for a value that is not an object or an
/// empty object, `None` when only reading further would tell.
#[cfg(feature = "server")]
fn leading_session(value: &[u8]) -> Option<Option<String>> {
    match value.first()? {
        b'{' => {
            let members = &value[1..];
            if members.starts_with(b"}") {
                return Some(None);
            }
            let (session, _) = plain_string(members.strip_prefix(br#""sessionId":"#)?)?;
            Some(Some(session.to_owned()))
        }
        b'[' | b'"' | b'n' | b't' | b'f' | b'-' | b'0'..=b'9' => Some(None),
        _ => None,
    }
}

/// The protocol version an `initialize` answer negotiated (`result.protocolVersion`), when it
/// is a successful answer with a version that fits in 16 bits (as the schema's `uint16`).
pub(crate) fn negotiated_version(answer: &[u8]) -> Option<u16> {
    #[derive(Deserialize)]
    struct Answer {
        result: Option<Negotiated>,
    }
    #[derive(Deserialize)]
    struct Negotiated {
        #[serde(rename = "protocolVersion")]
        protocol_version: Option<u16>,
    }
    serde_json::from_slice::<Answer>(answer)
        .ok()?
        .result?
        .protocol_version
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Present<'a>,
    method: Option<String>,
    params: Option<Scope>,
    result: Option<Scope>,
    error: Option<IgnoredAny>,
}

/// A member's raw text when it is present, `null` included (an `Option` would read `null` as
/// absent, and a null id is an id).
#[derive(Default)]
struct Present<'a>(Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Present<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(deserializer).map(|raw| Present(Some(raw)))
    }
}

/// The `sessionId` of an object, if it has a string one; anything else is skipped.
struct Scope(Option<String>);

impl<'de> Deserialize<'de> for Scope {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScopeVisitor;

        impl<'de> Visitor<'de> for ScopeVisitor {
            type Value = Scope;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scope, A::Error> {
                let mut session = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "sessionId" && session.is_none() {
                        session = map.next_value::<Option<SessionText>>()?.and_then(|s| s.0);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Scope(session))
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scope, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scope(None))
            }

            fn visit_unit<E>(self) -> Result<Scope, E> {
                Ok(Scope(None))
            }

            fn visit_bool<E>(self, _: bool) -> Result<Scope, E> {
                Ok(Scope(None))
            }

            fn visit_i64<E>(self, _: i64) -> Result<Scope, E> {
                Ok(Scope(None))
            }

            fn visit_u64<E>(self, _: u64) -> Result<Scope, E> {
                Ok(Scope(None))
            }

            fn visit_f64<E>(self, _: f64) -> Result<Scope, E> {
                Ok(Scope(None))
            }

            fn visit_str<E>(self, _: &str) -> Result<Scope, E> {
                Ok(Scope(None))
            }
        }

        deserializer.deserialize_any(ScopeVisitor)
    }
}

/// A session id: a string, or anything else (ignored).
struct SessionText(Option<String>);

impl<'de> Deserialize<'de> for SessionText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Ok(SessionText(match value {
            serde_json::Value::String(s) => Some(s),
            _ => None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ids_methods_and_sessions() {
        let s = shape(br#"{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"prompt":[{"x":[1]}],"sessionId":"s1"}}"#)
            .unwrap();
        assert_eq!(s.id.as_deref(), Some("7"));
        assert_eq!(s.method.as_deref(), Some("session/prompt"));
        assert_eq!(s.params_session.as_deref(), Some("s1"));
        assert!(s.is_request());
        let s = shape(br#"{"jsonrpc":"2.0","id":"7","result":{"sessionId":"s2","modes":null}}"#)
            .unwrap();
        assert_eq!(s.id.as_deref(), Some("\"7\""));
        assert_eq!(s.result_session.as_deref(), Some("s2"));
        assert!(s.is_response());
        let s =
            shape(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap();
        assert_eq!(s.id.as_deref(), Some("null"));
        assert!(s.error);
        let s = shape(br#"{"jsonrpc":"2.0","method":"n","params":[1,2]}"#).unwrap();
        assert_eq!(s.params_session, None);
        let s = shape(br#"{"jsonrpc":"2.0","method":"n","params":{"sessionId":5}}"#).unwrap();
        assert_eq!(s.params_session, None);
    }

    /// Messages in acp-rpc's layout, and near misses of it: wherever the prefix read answers,
    /// it answers as the full read does.
    #[cfg(feature = "server")]
    #[test]
    fn the_prefix_read_agrees_with_the_full_read() {
        let ids = [
            "7",
            "-3",
            "0",
            "null",
            r#""a""#,
            r#""a\"b""#,
            r#""""#,
            "1.5",
            "1e3",
            "-",
        ];
        let payloads = [
            r#"{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk"}}"#,
            r#"{"sessionId":"s\"1","x":1}"#,
            r#"{"sessionId":"é","x":1}"#,
            r#"{"sessionId":5,"sessionId":"late"}"#,
            r#"{"prompt":[],"sessionId":"late"}"#,
            r#"{}"#,
            r#"[1,2]"#,
            "null",
            "42",
            r#""text""#,
            "true",
        ];
        let mut answered = 0;
        for id in ids {
            for payload in payloads {
                for message in [
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"session/prompt","params":{payload}}}"#
                    ),
                    format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{payload}}}"#),
                    format!(r#"{{"jsonrpc":"2.0","method":"a\"b","params":{payload}}}"#),
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{payload}}}"#),
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"m"}}}}"#
                    ),
                    format!(r#"{{"jsonrpc":"2.0","result":{payload},"id":{id}}}"#),
                    format!(r#"{{"id":{id},"jsonrpc":"2.0","result":{payload}}}"#),
                ] {
                    let full = shape(message.as_bytes());
                    if let Some(prefix) = prefix_shape(message.as_bytes()) {
                        answered += 1;
                        assert_eq!(Ok(prefix), full, "{message}");
                    }
                    assert_eq!(shape_of_ours(message.as_bytes()), full, "{message}");
                }
            }
        }
        // The common messages take the short way.
        assert!(answered > 150, "{answered}");
        for message in [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}"#,
            r#"{"jsonrpc":"2.0","id":"x","result":{"sessionId":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#,
        ] {
            assert!(prefix_shape(message.as_bytes()).is_some(), "{message}");
        }
    }

    #[test]
    fn reads_the_negotiated_version_of_an_initialize_answer() {
        let answer = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"a","version":"1"}}}"#;
        assert_eq!(negotiated_version(answer), Some(2));
        let answer =
            br#"{"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":{},"protocolVersion":1}}"#;
        assert_eq!(negotiated_version(answer), Some(1));
        for answer in [
            &br#"{"jsonrpc":"2.0","id":0,"error":{"code":-32603,"message":"m"}}"#[..],
            br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":70000}}"#,
            br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2"}}"#,
            br#"{"jsonrpc":"2.0","id":0,"result":{}}"#,
            b"not json",
        ] {
            assert_eq!(
                negotiated_version(answer),
                None,
                "{}",
                String::from_utf8_lossy(answer)
            );
        }
    }

    #[test]
    fn tells_what_is_not_a_message() {
        assert_eq!(shape(b"[{}]"), Err(NotAMessage::Batch));
        assert_eq!(shape(b" 42"), Err(NotAMessage::NotObject));
        assert_eq!(shape(b"\"x\""), Err(NotAMessage::NotObject));
        assert_eq!(shape(b"{nope"), Err(NotAMessage::NotJson));
        assert_eq!(shape(b""), Err(NotAMessage::NotJson));
    }
}

/// The fast path and the writer it relies on: every kind of message an agent served in process
/// sends, written by acp-rpc's own writer from acp-types' own types, is read as the full read
/// reads it, and by the prefix read (not the fallback) wherever its prefix settles it: every
/// request, notification and error, and every result that starts with its `sessionId` (a
/// result that starts otherwise, `{"protocolVersion":1}`, could still name a session later on:
/// only the full read tells). A change of acp-rpc's envelope layout, or of the order of a
/// type's members, fails here instead of silently sending every message the slow way.
#[cfg(all(test, feature = "server"))]
mod acp_rpc_layout {
    use std::time::Duration;

    use acp_rpc::{Config, Router, connect_messages};
    use acp_types::ErrorObject;
    use acp_types::methods::{
        FsReadTextFile, Initialize, SessionNew, SessionPrompt, SessionRequestPermission,
        SessionUpdate,
    };
    use bytes::Bytes;
    use serde::de::DeserializeOwned;
    use tokio::sync::mpsc;

    use super::{Shape, prefix_shape, shape};

    /// A typed value from JSON text: the test writes members in an order of its own (`sessionId`
    /// last), so that only the types' own order can put it first on the wire.
    fn typed<T: DeserializeOwned>(json: &str) -> T {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
    }

    /// What routing reads of a message: id (requests' own ids are acp-rpc's to choose, so only
    /// their presence), method, sessions, error.
    fn routing(shape: &Shape) -> String {
        let id = match (&shape.method, &shape.id) {
            (Some(_), Some(_)) => "its id",
            (_, Some(id)) => id,
            (_, None) => "no id",
        };
        format!(
            "{id} {:?} params:{:?} result:{:?} error:{}",
            shape.method, shape.params_session, shape.result_session, shape.error
        )
    }

    #[tokio::test(flavor = "current_thread")]
    async fn acp_rpc_writes_what_the_fast_path_reads() {
        let (to_agent, from_client) = mpsc::channel::<Bytes>(16);
        let (to_client, mut written) = mpsc::channel::<Bytes>(64);
        let incoming = Box::pin(futures::stream::unfold(from_client, |mut rx| async move {
            rx.recv().await.map(|message| (Ok(message), rx))
        }));
        let outgoing = Box::pin(futures::sink::unfold(
            to_client,
            |tx, message: Bytes| async move {
                tx.send(message)
                    .await
                    .map_err(|_| std::io::Error::other("the test stopped reading"))?;
                Ok::<_, std::io::Error>(tx)
            },
        ));
        let router = Router::new()
            .request::<Initialize, _, _>(|_| async { Ok(typed(r#"{"protocolVersion":1}"#)) })
            .request::<SessionNew, _, _>(|_| async {
                Ok(typed(r#"{"modes":null,"sessionId":"s-1"}"#))
            })
            .request::<SessionPrompt, _, _>(|_| async {
                Err(ErrorObject::internal_error("no model"))
            });
        let (agent, driver) =
            connect_messages(move |_| router, incoming, outgoing, Config::default());
        let driver = tokio::spawn(driver);

        // The client's requests (ids of both kinds), answered by acp-rpc: results with and
        // without a session, a handler's error, an unknown method's error.
        for request in [
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
            r#"{"jsonrpc":"2.0","id":"n-1","method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[]}}"#,
            r#"{"jsonrpc":"2.0","id":"u","method":"no/such/method","params":{}}"#,
        ] {
            to_agent
                .send(Bytes::from_static(request.as_bytes()))
                .await
                .expect("the connection reads");
        }
        // The agent's own messages: a notification and requests of a session.
        agent
            .notify::<SessionUpdate>(&typed(
                r#"{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}},"sessionId":"s-1"}"#,
            ))
            .await
            .expect("the notification is sent");
        agent
            .request_detached::<FsReadTextFile>(&typed(r#"{"path":"/a","sessionId":"s-1"}"#))
            .expect("the request is sent");
        agent
            .request_detached::<SessionRequestPermission>(&typed(
                r#"{"toolCall":{"toolCallId":"t-1"},"options":[],"sessionId":"s-1"}"#,
            ))
            .expect("the request is sent");

        let mut read = Vec::new();
        while read.len() < 7 {
            let message = tokio::time::timeout(Duration::from_secs(10), written.recv())
                .await
                .expect("acp-rpc writes every message within the deadline")
                .expect("the connection lives");
            let text = String::from_utf8_lossy(&message).into_owned();
            let full = shape(&message).unwrap_or_else(|e| panic!("{text}: {e}"));
            let fast = prefix_shape(&message);
            if let Some(fast) = &fast {
                assert_eq!(fast, &full, "{text}");
            }
            let path = if fast.is_some() { "fast" } else { "full" };
            read.push(format!("{path} {}", routing(&full)));
        }
        driver.abort();
        // Answers come as their handlers finish: in any order.
        read.sort();
        let mut expected = [
            r#"fast "n-1" None params:None result:Some("s-1") error:false"#,
            r#"fast "u" None params:None result:None error:true"#,
            r#"full 0 None params:None result:None error:false"#,
            r#"fast 2 None params:None result:None error:true"#,
            r#"fast its id Some("fs/read_text_file") params:Some("s-1") result:None error:false"#,
            r#"fast its id Some("session/request_permission") params:Some("s-1") result:None error:false"#,
            r#"fast no id Some("session/update") params:Some("s-1") result:None error:false"#,
        ];
        expected.sort_unstable();
        assert_eq!(read, expected);
    }
}
