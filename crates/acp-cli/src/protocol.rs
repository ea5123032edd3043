//! Which protocol versions a check speaks, and the v1 shapes that are mistakes on a connection
//! that negotiated v2: one table for the checkers and the transcript validator.

use serde_json::Value;

/// The protocol versions `acp check` runs its cases in (v2 only in a build with the feature
/// `unstable_protocol_v2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// Version 1 only (the default).
    #[default]
    V1,
    /// The ACP v2 draft only.
    #[cfg(feature = "unstable_protocol_v2")]
    V2,
    /// Version 1, then v2, each on connections of its own, in one report.
    #[cfg(feature = "unstable_protocol_v2")]
    Both,
}

impl Protocol {
    /// `1`, `2` or `both`.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::V1 => "1",
            #[cfg(feature = "unstable_protocol_v2")]
            Protocol::V2 => "2",
            #[cfg(feature = "unstable_protocol_v2")]
            Protocol::Both => "both",
        }
    }

    /// Whether the version 1 cases run.
    pub fn v1(self) -> bool {
        #[cfg(feature = "unstable_protocol_v2")]
        if self == Protocol::V2 {
            return false;
        }
        true
    }

    /// Whether the v2 cases run.
    pub fn v2(self) -> bool {
        self != Protocol::V1
    }

    /// `cases` (a check's table of version 1) when the version 1 cases run, else none.
    pub(crate) fn v1_cases<T>(self, cases: &'static [T]) -> &'static [T] {
        if self.v1() { cases } else { &[] }
    }

    /// `cases` (a check's table of v2) when the v2 cases run, else none.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn v2_cases<T>(self, cases: &'static [T]) -> &'static [T] {
        if self.v2() { cases } else { &[] }
    }
}

/// The `session/update` kinds of version 1 that v2 replaced, with what v2 sends instead. The
/// v2 schema's open unions take any kind, so the schema alone lets these through.
const V1_ONLY_UPDATES: &[(&str, &str)] = &[
    (
        "tool_call",
        "v2 creates and patches tool calls with `tool_call_update`",
    ),
    ("plan", "v2 sends plans as `plan_update` with a `planId`"),
    (
        "current_mode_update",
        "v2 has no session modes (config options instead)",
    ),
];

/// The reason a `session/update` `message` of a v2 connection is a version 1 shape; `None`
/// when it is not.
pub(crate) fn v1_update_on_v2(message: &Value) -> Option<String> {
    let kind = message["params"]["update"]["sessionUpdate"].as_str()?;
    let (_, instead) = V1_ONLY_UPDATES.iter().find(|(old, _)| *old == kind)?;
    Some(format!(
        "a version 1 `{kind}` update on a v2 connection ({instead})"
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_replaced_update_kinds_are_v1_shapes() {
        let update = |kind: &str| json!({"params": {"update": {"sessionUpdate": kind}}});
        let found = v1_update_on_v2(&update("tool_call")).unwrap();
        assert!(found.contains("`tool_call_update`"), "{found}");
        assert!(v1_update_on_v2(&update("plan")).is_some());
        assert_eq!(v1_update_on_v2(&update("tool_call_update")), None);
        assert_eq!(v1_update_on_v2(&update("plan_update")), None);
        assert_eq!(v1_update_on_v2(&json!({"params": {}})), None);
    }
}
