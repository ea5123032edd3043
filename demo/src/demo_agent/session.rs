//! The demo agent's sessions: their state, modes, configuration options, slash commands and
//! bounded history.

use acp_types::*;

use acp_agent::HistoryLimits;

/// The most updates a session's history keeps for `session/load` to replay. Past it, the
/// oldest updates are dropped: a long session must not grow the agent's memory without end.
pub const HISTORY_MAX_UPDATES: usize = HistoryLimits::DEFAULT_MAX_UPDATES;

/// The most bytes (of the updates' JSON) a session's history keeps; past it, the oldest updates
/// are dropped. A single update larger than this is not kept at all.
pub const HISTORY_MAX_BYTES: usize = HistoryLimits::DEFAULT_MAX_BYTES;

/// The modes a session offers, in the order they are advertised.
pub(crate) const MODES: [(&str, &str, &str); 3] = [
    ("ask", "Ask", "Asks before every file edit and command"),
    (
        "auto",
        "Auto",
        "Edits files and runs commands without asking",
    ),
    (
        "read-only",
        "Read-only",
        "Reads and proposes edits; never writes or runs anything",
    ),
];

/// The models of the `model` option (they only change the usage figures).
const MODELS: [(&str, &str, u64); 2] = [
    ("demo-fast", "Demo fast", 128_000),
    ("demo-smart", "Demo smart", 200_000),
];

/// One session (its history is kept by the [`SessionStore`](acp_agent::SessionStore)): alive
/// for as long as the agent process, or with `--sessions` serialized into the database.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Session {
    pub(crate) cwd: String,
    pub(crate) title: Option<String>,
    pub(crate) updated_at: String,
    pub(crate) mode: String,
    pub(crate) model: String,
    pub(crate) thoughts: bool,
    pub(crate) auto_title: bool,
    /// Set once the user answered "always allow" for edits or commands.
    pub(crate) always_allow: bool,
    pub(crate) commands_announced: bool,
    /// False once closed, until loaded or resumed again.
    pub(crate) open: bool,
    pub(crate) tokens_used: u64,
    pub(crate) turns: u64,
}

impl Session {
    pub(crate) fn new(cwd: String) -> Self {
        Self {
            cwd,
            title: None,
            updated_at: now_iso8601(),
            mode: MODES[0].0.into(),
            model: MODELS[0].0.into(),
            thoughts: true,
            auto_title: true,
            always_allow: false,
            commands_announced: false,
            open: true,
            tokens_used: 0,
            turns: 0,
        }
    }

    pub(crate) fn modes(&self) -> SessionModeState {
        let modes: Vec<SessionMode> = MODES
            .iter()
            .map(|(id, name, description)| SessionMode::new(*id, *name).description(*description))
            .collect();
        SessionModeState::new(self.mode.as_str(), modes)
    }

    /// The configuration options; the boolean one only for clients that support booleans.
    pub(crate) fn config_options(&self, booleans: bool) -> Vec<SessionConfigOption> {
        let select = |values: &[(&str, &str)]| -> Vec<SessionConfigSelectOption> {
            values
                .iter()
                .map(|(id, name)| SessionConfigSelectOption::new(*id, *name))
                .collect()
        };
        let modes: Vec<(&str, &str)> = MODES.iter().map(|(id, name, _)| (*id, *name)).collect();
        let models: Vec<(&str, &str)> = MODELS.iter().map(|(id, name, _)| (*id, *name)).collect();
        let thoughts = if self.thoughts { "on" } else { "off" };
        let mut options = vec![
            SessionConfigOption::select("mode", "Mode", self.mode.as_str(), select(&modes))
                .category(SessionConfigOptionCategory::Mode)
                .description("The session mode (kept in sync with session/set_mode)"),
            SessionConfigOption::select("model", "Model", self.model.as_str(), select(&models))
                .category(SessionConfigOptionCategory::Model),
            SessionConfigOption::select(
                "thoughts",
                "Show thoughts",
                thoughts,
                select(&[("on", "On"), ("off", "Off")]),
            )
            .category(SessionConfigOptionCategory::ThoughtLevel),
        ];
        if booleans {
            options.push(
                SessionConfigOption::boolean("auto_title", "Auto title", self.auto_title)
                    .description("Title the session after its first prompt"),
            );
        }
        options
    }

    /// Applies `session/set_config_option`; `Err` explains an unknown option or value.
    pub(crate) fn set_option(
        &mut self,
        id: &str,
        value: &SessionConfigOptionValue,
        booleans: bool,
    ) -> Result<(), String> {
        let text = match value {
            SessionConfigOptionValue::ValueId(v) => Some(v.as_str()),
            SessionConfigOptionValue::Boolean(_) => None,
            _ => None,
        };
        let flag = match value {
            SessionConfigOptionValue::Boolean(b) => Some(*b),
            _ => None,
        };
        let allowed = |ids: &[&str], v: Option<&str>| -> Result<String, String> {
            match v {
                Some(v) if ids.contains(&v) => Ok(v.to_owned()),
                Some(v) => Err(format!("`{v}` is not a value of option `{id}`")),
                None => Err(format!("option `{id}` takes a value id, not a boolean")),
            }
        };
        match id {
            "mode" => self.mode = allowed(&MODES.map(|m| m.0), text)?,
            "model" => self.model = allowed(&MODELS.map(|m| m.0), text)?,
            "thoughts" => self.thoughts = allowed(&["on", "off"], text)? == "on",
            "auto_title" if booleans => match flag {
                Some(b) => self.auto_title = b,
                None => return Err("option `auto_title` takes a boolean".into()),
            },
            _ => return Err(format!("unknown configuration option `{id}`")),
        }
        Ok(())
    }

    /// The context window of the session's model.
    pub(crate) fn context_size(&self) -> u64 {
        MODELS
            .iter()
            .find(|m| m.0 == self.model)
            .map_or(MODELS[0].2, |m| m.2)
    }

    /// The slash commands of the current mode (read-only mode does not run commands).
    pub(crate) fn commands(&self) -> Vec<AvailableCommand> {
        let hint = |h: &str| AvailableCommandInput::from(UnstructuredCommandInput::new(h));
        let mut commands = vec![
            AvailableCommand::new("help", "List what the demo agent understands"),
            AvailableCommand::new("read", "Read a file through the client")
                .input(hint("PATH [LINE [LIMIT]]")),
            AvailableCommand::new("edit", "Propose an edit, ask, then write it")
                .input(hint("PATH [OLD => NEW]")),
        ];
        if self.mode != "read-only" {
            commands.push(
                AvailableCommand::new("run", "Run a command in a client terminal")
                    .input(hint("CMD [ARGS...]")),
            );
        }
        commands.extend([
            AvailableCommand::new("mode", "Switch mode from the agent's side")
                .input(hint("ask|auto|read-only")),
            AvailableCommand::new("title", "Rename the session").input(hint("TEXT")),
            AvailableCommand::new("stream", "Stream slowly (something to cancel)")
                .input(hint("[N [MS]]")),
        ]);
        commands
    }

    pub(crate) fn info(&self, id: &SessionId) -> SessionInfo {
        let mut info =
            SessionInfo::new(id.clone(), self.cwd.as_str()).updated_at(self.updated_at.as_str());
        if let Some(title) = &self.title {
            info = info.title(title.as_str());
        }
        info
    }
}

/// The current UTC time as an ISO 8601 timestamp (second precision).
pub(crate) fn now_iso8601() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl acp_agent::SessionState for Session {
    fn cwd(&self) -> &str {
        &self.cwd
    }

    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_look_like_iso_8601() {
        let now = now_iso8601();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.starts_with("20") && now.ends_with('Z'), "{now}");
    }

    #[test]
    fn options_validate_their_values() {
        let mut s = Session::new("/tmp".into());
        assert!(
            s.set_option(
                "mode",
                &SessionConfigOptionValue::ValueId("auto".into()),
                false
            )
            .is_ok()
        );
        assert_eq!(s.mode, "auto");
        assert!(
            s.set_option(
                "mode",
                &SessionConfigOptionValue::ValueId("x".into()),
                false
            )
            .is_err()
        );
        assert!(
            s.set_option(
                "auto_title",
                &SessionConfigOptionValue::Boolean(false),
                false
            )
            .is_err()
        );
        assert!(
            s.set_option(
                "auto_title",
                &SessionConfigOptionValue::Boolean(false),
                true
            )
            .is_ok()
        );
    }
}
