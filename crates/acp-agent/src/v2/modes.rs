//! Session modes on a v2 connection. v2 has no modes: as its migration guide asks of agents,
//! a v1 agent's modes are offered as a config option of category `mode` (config id `mode`),
//! `session/set_config_option` on it switches the mode through
//! [`Agent::set_session_mode`](crate::Agent::set_session_mode), and a `current_mode_update`
//! becomes a `config_option_update`.

use serde_json::{Map, Value, json};

/// The config id the modes are offered under.
pub(crate) const MODE_OPTION: &str = "mode";

/// A session's modes, and the agent's own config options they are listed with (a
/// `config_option_update` carries the whole list).
#[derive(Debug, Clone)]
pub(crate) struct Modes {
    current: Value,
    /// The select's options: `{value, name, description}`.
    available: Vec<Value>,
    /// The agent's own config options, in their v2 JSON form.
    others: Vec<Value>,
}

impl Modes {
    /// Takes the `modes` out of a v1 session answer (`session/new`, `session/load`,
    /// `session/resume`) and puts them among its `configOptions`; `None` when it has none. An
    /// agent whose own config option is already called `mode` keeps it, and its modes are left
    /// out with a warning.
    pub(crate) fn take(answer: &mut Map<String, Value>) -> Option<Modes> {
        let modes = answer.remove("modes")?;
        let modes = modes.as_object()?;
        let others = match answer.get("configOptions") {
            Some(Value::Array(options)) => options.clone(),
            _ => Vec::new(),
        };
        // v1 asks agents moving to config options to offer both for a while, the option
        // mirroring the modes: nothing is lost by leaving the modes out then.
        if others.iter().any(|o| o["configId"] == MODE_OPTION) {
            tracing::debug!(
                "the agent's modes are left out of a v2 answer: it has a config option `mode` \
                 of its own"
            );
            return None;
        }
        let available = modes
            .get("availableModes")
            .and_then(Value::as_array)
            .map(|modes| {
                modes
                    .iter()
                    .map(|mode| {
                        let mut option = json!({"value": mode["id"], "name": mode["name"]});
                        if let Some(description) = mode.get("description").filter(|d| !d.is_null())
                        {
                            option["description"] = description.clone();
                        }
                        option
                    })
                    .collect()
            })
            .unwrap_or_default();
        let modes = Modes {
            current: modes.get("currentModeId").cloned().unwrap_or_default(),
            available,
            others,
        };
        answer.insert("configOptions".into(), modes.options());
        Some(modes)
    }

    /// Every config option: the agent's, then the modes'.
    pub(crate) fn options(&self) -> Value {
        let mut options = self.others.clone();
        options.push(json!({
            "configId": MODE_OPTION,
            "name": "Mode",
            "category": "mode",
            "type": "select",
            "currentValue": self.current,
            "options": self.available,
        }));
        Value::Array(options)
    }

    /// True when `mode` is one of the session's modes.
    pub(crate) fn offers(&self, mode: &str) -> bool {
        self.available.iter().any(|o| o["value"] == mode)
    }

    /// The mode is now `mode`.
    pub(crate) fn set_current(&mut self, mode: &str) {
        self.current = Value::from(mode);
    }

    /// The agent's own config options are now `options` (v2 JSON).
    pub(crate) fn set_others(&mut self, options: Vec<Value>) {
        self.others = options;
    }
}
