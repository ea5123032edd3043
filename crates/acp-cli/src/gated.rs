//! The session updates an agent may send only to a client that advertised a capability for
//! them (`compaction_update` and `compaction_summary_chunk` need `session.compaction`, `notice`
//! needs `session.notices`), and what a client's `initialize` advertised: one table for the
//! checkers and the transcript validator.

use serde_json::Value;

/// The update kinds that need a client capability, with it (a path in `clientCapabilities`).
const GATED: &[(&str, &str)] = &[
    ("compaction_update", "session.compaction"),
    ("compaction_summary_chunk", "session.compaction"),
    ("notice", "session.notices"),
];

/// The client capability a `session/update` of kind `update_kind` needs, if any.
pub(crate) fn capability_of(update_kind: &str) -> Option<&'static str> {
    GATED
        .iter()
        .find(|(kind, _)| *kind == update_kind)
        .map(|(_, capability)| *capability)
}

/// True when `client_capabilities` (the `clientCapabilities` of an `initialize`) advertises
/// `capability` (a dotted path): present and not `null` (the schema's "omitted or `null`
/// means unsupported").
pub(crate) fn advertised(client_capabilities: &Value, capability: &str) -> bool {
    let mut at = client_capabilities;
    for key in capability.split('.') {
        match at.get(key) {
            Some(next) => at = next,
            None => return false,
        }
    }
    !at.is_null()
}

/// The reason a `session/update` `message` is one the client did not advertise, given the
/// `clientCapabilities` it advertised; `None` when it may be sent.
pub(crate) fn unadvertised_update(client_capabilities: &Value, message: &Value) -> Option<String> {
    let kind = message["params"]["update"]["sessionUpdate"].as_str()?;
    let capability = capability_of(kind)?;
    (!advertised(client_capabilities, capability))
        .then(|| format!("a `{kind}` update, but the client did not advertise `{capability}`"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_a_present_non_null_capability_is_advertised() {
        let caps = json!({"session": {"compaction": {}, "notices": null}});
        assert!(advertised(&caps, "session.compaction"));
        assert!(!advertised(&caps, "session.notices"));
        assert!(!advertised(&json!({}), "session.compaction"));
        assert!(!advertised(&Value::Null, "session.compaction"));
    }

    #[test]
    fn gated_updates_name_their_capability() {
        let update = |kind: &str| json!({"params": {"update": {"sessionUpdate": kind}}});
        let caps = json!({"session": {"compaction": {}}});
        assert_eq!(
            unadvertised_update(&caps, &update("compaction_update")),
            None
        );
        assert_eq!(
            unadvertised_update(&caps, &update("agent_message_chunk")),
            None
        );
        let refused = unadvertised_update(&caps, &update("notice")).unwrap();
        assert!(refused.contains("`session.notices`"), "{refused}");
    }
}
