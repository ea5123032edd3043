//! What the client shows of a v2 connection (feature `unstable_protocol_v2`): each session's
//! updates are folded into a [`SessionModel`], and shown from it, so that an upsert that leaves
//! a field out (a tool call's title, a plan's entries) still shows the whole thing.

use std::io::Write;

use acp_client::model::SessionModel;
use acp_types::v2;
use serde_json::json;

use super::{Inner, Output, Stream, paint_diff_line};

impl Output {
    /// A v2 `session/update`: folded into its session's model, then rendered as it arrives (or
    /// written to the transcript, with the model's complaint if it refused the update).
    pub fn update_v2(&self, notification: &v2::UpdateSessionNotification) {
        let mut inner = self.inner();
        let replay = inner.replayed.is_some();
        if let Some(count) = &mut inner.replayed {
            *count += 1;
        }
        let model = inner
            .models
            .entry(notification.session_id.clone())
            .or_default();
        // What a whole-message upsert replaces: shown again only when it changed.
        let before = match &notification.update {
            v2::SessionUpdate::AgentMessage(v2::AgentMessage { message_id, .. })
            | v2::SessionUpdate::AgentThought(v2::AgentThought { message_id, .. }) => model
                .message(message_id)
                .map(acp_client::model::Message::text),
            _ => None,
        };
        let applied = model.apply_v2(notification.update.clone());
        if self.json {
            let mut event = json!({
                "event": "update",
                "sessionId": notification.session_id,
                "update": notification.update,
            });
            if replay {
                event["replay"] = json!(true);
            }
            if let Err(error) = &applied {
                event["modelError"] = json!(error.to_string());
            }
            let _ = writeln!(inner.out, "{event}");
            let _ = inner.out.flush();
            return;
        }
        if let Err(error) = applied {
            let text = self
                .style
                .red(&format!("  (an update this client cannot apply: {error})"));
            inner.line(&text);
        } else if !replay {
            self.render_v2(
                &mut inner,
                &notification.session_id,
                &notification.update,
                before.as_deref(),
            );
        }
        let _ = inner.out.flush();
    }

    /// A v2 permission request is shown while the session waits for it: the model says
    /// `requires_action` (the agent's `state_update` may come just before or after it).
    pub fn permission_v2(&self, request: &v2::RequestPermissionRequest) {
        self.inner()
            .models
            .entry(request.session_id.clone())
            .or_default()
            .apply_permission_request(request);
    }

    /// The config options of a session answer (`session/new`, `session/resume`,
    /// `session/set_config_option`): the whole list, as a `config_option_update` would say it.
    pub fn options_v2(&self, session: &acp_types::SessionId, options: &[v2::SessionConfigOption]) {
        let update = v2::ConfigOptionUpdate::new(options.to_vec());
        // A whole list replaces the stored one: nothing the model can refuse.
        let _ = self
            .inner()
            .models
            .entry(session.clone())
            .or_default()
            .apply_v2(v2::SessionUpdate::ConfigOptionUpdate(update));
    }

    /// The model of a session (a copy), for the driver's questions.
    pub fn model(&self, session: &acp_types::SessionId) -> Option<SessionModel> {
        self.inner().models.get(session).cloned()
    }

    /// Renders one update, the model already holding it; `before` is the text a whole-message
    /// upsert replaced.
    fn render_v2(
        &self,
        inner: &mut Inner,
        session: &acp_types::SessionId,
        update: &v2::SessionUpdate,
        before: Option<&str>,
    ) {
        use v2::SessionUpdate as U;
        let s = self.style;
        match update {
            U::AgentMessageChunk(chunk) => {
                inner.stream_to(Stream::Message, "");
                let text = block_text(&chunk.content);
                let _ = write!(inner.out, "{text}");
                inner.after_text(&text);
            }
            U::AgentThoughtChunk(chunk) => {
                inner.stream_to(Stream::Thought, &s.dim("(thinking) "));
                let text = block_text(&chunk.content);
                let _ = write!(inner.out, "{}", s.dim(&text));
                inner.after_text(&text);
            }
            // The acknowledgement of the prompt just shown (`> text`): nothing new to show.
            U::UserMessage(_) | U::UserMessageChunk(_) => {}
            // A snapshot of what the chunks already showed is not shown twice.
            U::AgentMessage(message) => {
                let text = self.message_text(inner, session, &message.message_id);
                if before != Some(text.as_str()) {
                    inner.line(&format!("(message replaced) {text}"));
                }
            }
            U::AgentThought(thought) => {
                let text = self.message_text(inner, session, &thought.message_id);
                if before != Some(text.as_str()) {
                    inner.line(&s.dim(&format!("(thinking, replaced) {text}")));
                }
            }
            U::StateUpdate(v2::StateUpdate::RequiresAction(_)) => {
                inner.line(&s.dim("  [waiting for you: requires_action]"));
            }
            // `running` and `idle`: the prompt and its `[turn ended]` line say it.
            U::StateUpdate(_) => {}
            U::ToolCallUpdate(update) => self.tool_call(inner, session, update),
            U::ToolCallContentChunk(chunk) => {
                self.contents_v2(inner, std::slice::from_ref(&chunk.content));
            }
            U::PlanUpdate(update) => match &update.plan {
                v2::PlanUpdateContent::Items(items) => {
                    inner.line(&s.bold("  Plan:"));
                    for entry in &items.entries {
                        let mark = match entry.status {
                            v2::PlanEntryStatus::Completed => s.green("[x]"),
                            v2::PlanEntryStatus::InProgress => s.yellow("[~]"),
                            _ => "[ ]".to_owned(),
                        };
                        inner.line(&format!("    {mark} {}", entry.content));
                    }
                }
                _ => inner.line(&s.dim("  (a plan of a kind this client does not show)")),
            },
            U::TerminalUpdate(update) => {
                // The whole output once it exited (chunks and snapshots folded in the model).
                let exited = inner
                    .models
                    .get(session)
                    .and_then(|m| m.terminal(&update.terminal_id))
                    .filter(|t| t.exited() && update.exit_status.as_set().is_some())
                    .map(|t| t.output_lossy().into_owned());
                if let Some(command) = update.command.as_set() {
                    inner.line(&s.dim(&format!(
                        "  (terminal {}: `{command}`; its output shows when it ends)",
                        update.terminal_id
                    )));
                }
                for line in exited.as_deref().unwrap_or_default().lines() {
                    inner.line(&format!("      \u{2502} {line}"));
                }
            }
            // Shown whole when the terminal exits.
            U::TerminalOutputChunk(_) => {}
            U::AvailableCommandsUpdate(update) => {
                let names: Vec<String> = update
                    .available_commands
                    .iter()
                    .map(|c| match c {
                        v2::AvailableCommand::Command(c) => format!("/{}", c.name),
                        _ => "/?".to_owned(),
                    })
                    .collect();
                inner.line(&s.dim(&format!("  Slash commands: {}", names.join(" "))));
            }
            U::ConfigOptionUpdate(update) => {
                inner.line(&s.dim(&format!(
                    "  Options: {}",
                    options_line(&update.config_options)
                )));
            }
            U::SessionInfoUpdate(info) => {
                if let Some(title) = info.title.as_set() {
                    inner.line(&s.dim(&format!("  Session title: \u{201c}{title}\u{201d}")));
                }
            }
            U::UsageUpdate(usage) => {
                inner.line(&s.dim(&format!("  Usage: {} of {} tokens", usage.used, usage.size)));
            }
            U::Notice(notice) => {
                inner.line(&format!(
                    "  [{}] {}",
                    notice.severity.as_str(),
                    notice.title
                ));
            }
            _ => inner.line(&s.dim("  (an update of a kind this client does not show)")),
        }
    }

    /// The whole text of a message of the session's model.
    fn message_text(
        &self,
        inner: &Inner,
        session: &acp_types::SessionId,
        id: &acp_types::MessageId,
    ) -> String {
        inner
            .models
            .get(session)
            .and_then(|m| m.message(id))
            .map(acp_client::model::Message::text)
            .unwrap_or_default()
    }

    /// A tool call upsert: a new tool call is shown whole (from the model, which knows what
    /// the upsert left out); a known one by its changed status, then any new content.
    fn tool_call(
        &self,
        inner: &mut Inner,
        session: &acp_types::SessionId,
        update: &v2::ToolCallUpdate,
    ) {
        let s = self.style;
        let Some(call) = inner
            .models
            .get(session)
            .and_then(|m| m.tool_call(&update.tool_call_id))
            .cloned()
        else {
            return;
        };
        let title = call.title.clone().unwrap_or_else(|| call.id.to_string());
        let new = inner
            .titles
            .insert(call.id.clone(), title.clone())
            .is_none();
        if new {
            let kind = match &call.name {
                Some(name) => format!("{} {name}", call.kind.as_str()),
                None => call.kind.as_str().to_owned(),
            };
            inner.line(&format!(
                "  \u{2699} {} {} {}",
                s.bold(&title),
                s.dim(&format!("[{kind}]")),
                self.status_v2(&call.status)
            ));
            for location in &call.locations {
                let line = location.line.map(|l| format!(":{l}")).unwrap_or_default();
                inner.line(&s.dim(&format!(
                    "      at {}{line}",
                    self.path(location.path.as_str())
                )));
            }
        } else if let Some(status) = update.status.as_set() {
            inner.line(&format!("  \u{2699} {title}: {}", self.status_v2(status)));
        }
        if let Some(content) = update.content.as_set() {
            self.contents_v2(inner, content);
        }
    }

    fn status_v2(&self, status: &v2::ToolCallStatus) -> String {
        let s = self.style;
        match status {
            v2::ToolCallStatus::Completed => s.green("completed"),
            v2::ToolCallStatus::Failed => s.red("failed"),
            v2::ToolCallStatus::InProgress => s.yellow("in progress"),
            v2::ToolCallStatus::Pending => s.dim("pending"),
            other => other.as_str().to_owned(),
        }
    }

    fn contents_v2(&self, inner: &mut Inner, contents: &[v2::ToolCallContent]) {
        let s = self.style;
        for content in contents {
            match content {
                v2::ToolCallContent::Content(c) => {
                    for line in block_text(&c.content).lines() {
                        inner.line(&format!("      \u{2502} {line}"));
                    }
                }
                v2::ToolCallContent::Diff(diff) => match &diff.patch {
                    Some(patch) => {
                        for line in patch.text.lines() {
                            inner.line(&format!("      {}", paint_diff_line(s, line)));
                        }
                    }
                    None => inner.line(&s.dim(&format!(
                        "      (a change to {} file(s))",
                        diff.changes.len()
                    ))),
                },
                v2::ToolCallContent::Terminal(t) => {
                    inner.line(&s.dim(&format!("      (terminal {} attached)", t.terminal_id)))
                }
                _ => inner.line("      (content of a kind this client does not know)"),
            }
        }
    }
}

/// The text of a v2 content block, or a short description of other kinds.
pub(crate) fn block_text(block: &v2::ContentBlock) -> String {
    match block {
        v2::ContentBlock::Text(t) => t.text.clone(),
        v2::ContentBlock::Image(i) => format!("[image {}]", i.mime_type),
        v2::ContentBlock::Audio(a) => format!("[audio {}]", a.mime_type),
        v2::ContentBlock::ResourceLink(l) => format!("[link {}]", l.uri),
        v2::ContentBlock::Resource(_) => "[embedded resource]".to_owned(),
        _ => "[content]".to_owned(),
    }
}

/// "id=value" for each v2 option.
pub(crate) fn options_line(options: &[v2::SessionConfigOption]) -> String {
    let parts: Vec<String> = options
        .iter()
        .map(|o| match &o.current_value {
            Some(serde_json::Value::String(value)) => format!("{}={value}", o.config_id),
            Some(value) => format!("{}={value}", o.config_id),
            None => format!("{}=?", o.config_id),
        })
        .collect();
    parts.join(", ")
}
