//! The `acp-types` targets: decoding arbitrary bytes as every envelope and every definition.
//!
//! Both targets check that decoding never panics and that a decoded value is stable:
//! encode → decode → encode gives the same bytes the second time, and the value decoded from
//! its own encoding equals it. They also check that the decoding APIs agree with each other
//! where the crate documents that they do.

use std::fmt::Debug;

use acp_types::methods::{agent, client, protocol};
use acp_types::{
    AgentMessage, AgentNotification, AgentNotificationParams, AgentRequest, AgentRequestParams,
    AgentResponse, ClientMessage, ClientNotification, ClientNotificationParams, ClientRequest,
    ClientRequestParams, ClientResponse, Message, MethodUnion, RawMessage, RequestId,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

/// The method the answered request had, for response decoding: every method of the protocol,
/// an extension method, and (past the end of the list) no pending request at all.
const RESPONSE_METHODS: &[&str] = &[
    agent::INITIALIZE,
    agent::AUTHENTICATE,
    agent::LOGOUT,
    agent::SESSION_NEW,
    agent::SESSION_LOAD,
    agent::SESSION_LIST,
    agent::SESSION_DELETE,
    agent::SESSION_RESUME,
    agent::SESSION_CLOSE,
    agent::SESSION_SET_MODE,
    agent::SESSION_SET_CONFIG_OPTION,
    agent::SESSION_PROMPT,
    agent::SESSION_CANCEL,
    client::SESSION_REQUEST_PERMISSION,
    client::SESSION_UPDATE,
    client::FS_READ_TEXT_FILE,
    client::FS_WRITE_TEXT_FILE,
    client::TERMINAL_CREATE,
    client::TERMINAL_OUTPUT,
    client::TERMINAL_RELEASE,
    client::TERMINAL_WAIT_FOR_EXIT,
    client::TERMINAL_KILL,
    client::ELICITATION_CREATE,
    client::ELICITATION_COMPLETE,
    protocol::CANCEL_REQUEST,
    "_vendor/method",
];

/// The `types_envelopes` target.
///
/// The first byte picks the method of the request a response answers (see
/// `RESPONSE_METHODS`; values past the end mean "no such request"); the rest is one message.
/// It is decoded with [`RawMessage::parse`] (then its params with
/// [`RawMessage::decode_params`] for each params union), with [`ClientMessage::decode`] and
/// [`AgentMessage::decode`], and with the typed decoders of each envelope ([`ClientRequest`],
/// [`AgentResponse`], ...). Checks:
///
/// - no decoder panics;
/// - [`RawMessage::parse`] gives exactly one kind (request, notification or response);
/// - every decoded message (and params union) is stable: encode → decode → encode;
/// - a typed decoder succeeds exactly when the message decoder gives a message of its kind,
///   and then with the same value.
pub fn envelopes(data: &[u8]) {
    let [selector, json @ ..] = data else {
        return;
    };
    let method = RESPONSE_METHODS.get(usize::from(*selector) % (RESPONSE_METHODS.len() + 1));
    let method_of = |_: &RequestId| method.copied();

    if let Ok(raw) = RawMessage::parse(json) {
        let kinds = [raw.is_request(), raw.is_notification(), raw.is_response()];
        assert_eq!(
            kinds.iter().filter(|k| **k).count(),
            1,
            "{raw:?} has kinds {kinds:?}"
        );
        if raw.method.is_some() {
            params_round_trip::<ClientRequestParams>(&raw);
            params_round_trip::<AgentRequestParams>(&raw);
            params_round_trip::<ClientNotificationParams>(&raw);
            params_round_trip::<AgentNotificationParams>(&raw);
        }
    }

    let client_message = ClientMessage::decode(json, method_of).ok();
    if let Some(message) = &client_message {
        round_trip("ClientMessage", message, |j| {
            ClientMessage::decode(j, method_of)
        });
    }
    let agent_message = AgentMessage::decode(json, method_of).ok();
    if let Some(message) = &agent_message {
        round_trip("AgentMessage", message, |j| {
            AgentMessage::decode(j, method_of)
        });
    }

    typed(
        "ClientRequest",
        ClientRequest::decode(json).ok(),
        Some(match &client_message {
            Some(Message::Request(r)) => Some(r),
            _ => None,
        }),
        ClientRequest::decode,
    );
    typed(
        "ClientNotification",
        ClientNotification::decode(json).ok(),
        Some(match &client_message {
            Some(Message::Notification(n)) => Some(n),
            _ => None,
        }),
        ClientNotification::decode,
    );
    typed(
        "AgentRequest",
        AgentRequest::decode(json).ok(),
        Some(match &agent_message {
            Some(Message::Request(r)) => Some(r),
            _ => None,
        }),
        AgentRequest::decode,
    );
    typed(
        "AgentNotification",
        AgentNotification::decode(json).ok(),
        Some(match &agent_message {
            Some(Message::Notification(n)) => Some(n),
            _ => None,
        }),
        AgentNotification::decode,
    );

    // The typed response decoders are always told a method; the message decoders only when
    // the selector named one, so they are compared only then.
    let response_method = method.copied().unwrap_or_default();
    let compare = method.is_some();
    typed(
        "ClientResponse",
        ClientResponse::decode(json, response_method).ok(),
        compare.then_some(match &client_message {
            Some(Message::Response(r)) => Some(r),
            _ => None,
        }),
        |j| ClientResponse::decode(j, response_method),
    );
    typed(
        "AgentResponse",
        AgentResponse::decode(json, response_method).ok(),
        compare.then_some(match &agent_message {
            Some(Message::Response(r)) => Some(r),
            _ => None,
        }),
        |j| AgentResponse::decode(j, response_method),
    );
}

/// Checks a typed decoder against the message decoder of its side (`by_message`, when it is
/// comparable: `None` otherwise), then its round trip.
fn typed<T, E>(
    name: &str,
    by_type: Option<T>,
    by_message: Option<Option<&T>>,
    decode: impl Fn(&[u8]) -> Result<T, E>,
) where
    T: Serialize + PartialEq + Debug,
    E: Debug,
{
    if let Some(by_message) = by_message {
        assert_eq!(
            by_type.as_ref(),
            by_message,
            "{name}: the typed decoder and the message decoder disagree"
        );
    }
    if let Some(value) = &by_type {
        round_trip(name, value, decode);
    }
}

/// Decodes the params of `raw` as the union `U` and, when that works, checks the round trip
/// of the params through [`RawMessage::decode_params`] again.
fn params_round_trip<U>(raw: &RawMessage<'_>)
where
    U: MethodUnion + PartialEq + Debug,
{
    let Ok(params) = raw.decode_params::<U>() else {
        return;
    };
    round_trip(std::any::type_name::<U>(), &params, |json| {
        let text = std::str::from_utf8(json).expect("serde_json writes UTF-8");
        let params = RawValue::from_string(text.to_owned()).expect("serde_json writes JSON");
        let mut again = RawMessage::default();
        again.method.clone_from(&raw.method);
        again.params = Some(&params);
        again.decode_params::<U>()
    });
}

/// Encodes `value`, decodes the encoding with `decode`, encodes again: the second value must
/// equal the first and the second encoding the first.
pub(crate) fn round_trip<T, E>(name: &str, value: &T, decode: impl Fn(&[u8]) -> Result<T, E>)
where
    T: Serialize + PartialEq + Debug,
    E: Debug,
{
    let first = serde_json::to_vec(value)
        .unwrap_or_else(|e| panic!("{name}: a decoded value does not encode: {e}: {value:?}"));
    let again = decode(&first).unwrap_or_else(|e| {
        panic!(
            "{name}: the encoding of a decoded value does not decode: {e:?}\n{}",
            String::from_utf8_lossy(&first)
        )
    });
    let second = serde_json::to_vec(&again)
        .unwrap_or_else(|e| panic!("{name}: a decoded value does not encode: {e}: {again:?}"));
    assert_eq!(
        String::from_utf8_lossy(&first),
        String::from_utf8_lossy(&second),
        "{name}: encoding is not stable"
    );
    assert_eq!(
        &again, value,
        "{name}: decoding the encoding changed the value"
    );
}

/// Checks one definition: [`acp_types::from_slice`] agrees with plain `serde_json`, and a
/// decoded value round-trips.
fn definition<T>(name: &str, json: &[u8])
where
    T: DeserializeOwned + Serialize + PartialEq + Debug,
{
    let ours = acp_types::from_slice::<T>(json);
    let plain = serde_json::from_slice::<T>(json);
    match (&ours, &plain) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}: acp_types and serde_json decode differently"),
        (Err(_), Err(_)) => {}
        _ => panic!(
            "{name}: acp_types gave {:?}, serde_json gave {:?}",
            ours.as_ref().map(|_| "a value"),
            plain.as_ref().map(|_| "a value"),
        ),
    }
    if let Ok(value) = &ours {
        round_trip(name, value, acp_types::from_slice::<T>);
    }
}

/// The check of one definition: its name (for messages) and the JSON document.
pub type DefinitionCheck = fn(&str, &[u8]);

macro_rules! table {
    ($($name:ident),* $(,)?) => {
        &[$((stringify!($name), definition::<acp_types::$name> as DefinitionCheck)),*]
    };
}

/// Every definition of the schema that is a plain value, with its check.
pub const DEFINITIONS: &[(&str, DefinitionCheck)] = acp_types::for_each_value_definition!(table);

/// The `types_definitions` target.
///
/// The first byte picks the definition (of the ~164 in [`DEFINITIONS`], modulo their number),
/// the rest is the JSON document. Checks:
///
/// - decoding never panics;
/// - [`acp_types::from_slice`] succeeds exactly when plain `serde_json` does, with the same
///   value (as `acp_types::decode` documents);
/// - a decoded value is stable: encode → decode → encode.
pub fn definitions(data: &[u8]) {
    let [selector, json @ ..] = data else {
        return;
    };
    let (name, check) = DEFINITIONS[usize::from(*selector) % DEFINITIONS.len()];
    check(name, json);
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_definition_is_reachable() {
        assert!(super::DEFINITIONS.len() > 160);
        assert!(
            super::DEFINITIONS.len() <= 256,
            "one selector byte picks the definition"
        );
    }
}
