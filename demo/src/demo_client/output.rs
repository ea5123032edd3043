//! What the client shows: a human rendering of the session as it streams, or a
//! machine-readable transcript (`--json`: one JSON object per line).

#[cfg(feature = "unstable_protocol_v2")]
mod v2;

#[cfg(feature = "unstable_protocol_v2")]
pub(crate) use v2::options_line as options_line_v2;

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Mutex, MutexGuard, PoisonError};

use acp_types::*;
use serde_json::{Value, json};

use acp_client::Terminals;
use acp_client::Workspace;

/// ANSI styling, on only when stdout is a terminal.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    color: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Dimmed (thoughts, protocol notes).
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Bold (headings, prompts).
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Green (success).
    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Red (failure).
    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Yellow (questions).
    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Cyan (the demo's narration).
    pub fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    None,
    Message,
    Thought,
    /// A compaction's summary.
    Summary,
}

#[derive(Debug)]
struct Inner {
    out: std::io::Stdout,
    /// The cursor is not at the start of a line.
    line_open: bool,
    stream: Stream,
    /// Tool call titles, to name them in updates that do not repeat the title.
    titles: HashMap<ToolCallId, String>,
    /// While a `session/load` replays history: the number of updates so far.
    replayed: Option<u64>,
    /// The sessions of a v2 connection, as their updates built them: what v2's upserts and
    /// patches render from.
    #[cfg(feature = "unstable_protocol_v2")]
    models: HashMap<SessionId, acp_client::model::SessionModel>,
}

/// The client's output, shared by the protocol handlers and the driver.
#[derive(Debug)]
pub struct Output {
    json: bool,
    style: Style,
    workspace: Workspace,
    inner: Mutex<Inner>,
}

impl Output {
    /// Human output (colored when stdout is a terminal), or the JSON transcript.
    pub fn new(json: bool, workspace: Workspace) -> Self {
        use std::io::IsTerminal;
        let out = std::io::stdout();
        let color = !json && out.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Self {
            json,
            style: Style { color },
            workspace,
            inner: Mutex::new(Inner {
                out,
                line_open: false,
                stream: Stream::None,
                titles: HashMap::new(),
                replayed: None,
                #[cfg(feature = "unstable_protocol_v2")]
                models: HashMap::new(),
            }),
        }
    }

    /// True for the JSON transcript.
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// The styling of human output.
    pub fn style(&self) -> Style {
        self.style
    }

    /// A path for people: relative to the working directory when inside it.
    pub fn path(&self, path: &str) -> String {
        self.workspace.display(path)
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One event: `json` in the transcript, or the `human` lines (if any) on their own lines.
    pub fn event(&self, json: Value, human: Option<String>) {
        let mut inner = self.inner();
        if self.json {
            let _ = writeln!(inner.out, "{json}");
        } else if let Some(text) = human {
            inner.start_line();
            let _ = writeln!(inner.out, "{text}");
        }
        let _ = inner.out.flush();
    }

    /// An error: the `json` event in the transcript, and `text` on stderr (`client: text`),
    /// in both modes, so that scripts and people see why something failed.
    pub fn error(&self, json: Value, text: &str) {
        use std::io::IsTerminal;
        let mut inner = self.inner();
        if self.json {
            let _ = writeln!(inner.out, "{json}");
        } else {
            inner.start_line();
        }
        let _ = inner.out.flush();
        let mut err = std::io::stderr().lock();
        let style = Style {
            color: self.style.color && err.is_terminal(),
        };
        let _ = writeln!(err, "{}", style.red(&format!("client: {text}")));
    }

    /// A note about the client itself (signals, how the agent ended) on stderr.
    pub fn notice(&self, text: &str) {
        let mut inner = self.inner();
        if !self.json {
            inner.start_line();
        }
        let _ = inner.out.flush();
        let _ = writeln!(std::io::stderr().lock(), "client: {text}");
    }

    /// Human text without a newline (a question waiting for an answer on the same line).
    pub fn ask(&self, text: &str) {
        if self.json {
            return;
        }
        let mut inner = self.inner();
        inner.start_line();
        let _ = write!(inner.out, "{text}");
        let _ = inner.out.flush();
        inner.line_open = true;
    }

    /// The user answered the question on its line (a terminal echoed the newline; for piped
    /// input, one is written).
    pub fn answered(&self) {
        use std::io::IsTerminal;
        let mut inner = self.inner();
        if inner.line_open && !std::io::stdin().is_terminal() {
            let _ = writeln!(inner.out);
        }
        inner.line_open = false;
        inner.stream = Stream::None;
    }

    /// From now on, updates are a `session/load` replay: counted, not shown (human output).
    pub fn start_replay(&self) {
        self.inner().replayed = Some(0);
    }

    /// The replay is over; how many updates it had.
    pub fn end_replay(&self) -> u64 {
        self.inner().replayed.take().unwrap_or(0)
    }

    /// A `session/update`, rendered as it arrives.
    pub fn update(&self, notification: &SessionNotification, terminals: &Terminals) {
        let mut inner = self.inner();
        let replay = inner.replayed.is_some();
        if let Some(count) = &mut inner.replayed {
            *count += 1;
        }
        if self.json {
            let mut event = json!({
                "event": "update",
                "sessionId": notification.session_id,
                "update": notification.update,
            });
            if replay {
                event["replay"] = json!(true);
            }
            let _ = writeln!(inner.out, "{event}");
            let _ = inner.out.flush();
            return;
        }
        if replay {
            return;
        }
        self.render(&mut inner, &notification.update, terminals);
        let _ = inner.out.flush();
    }

    fn render(&self, inner: &mut Inner, update: &SessionUpdate, terminals: &Terminals) {
        let s = self.style;
        match update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                inner.stream_to(Stream::Message, "");
                let _ = write!(inner.out, "{}", block_text(&chunk.content));
                inner.after_text(&block_text(&chunk.content));
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                inner.stream_to(Stream::Thought, &s.dim("(thinking) "));
                let text = block_text(&chunk.content);
                let _ = write!(inner.out, "{}", s.dim(&text));
                inner.after_text(&text);
            }
            SessionUpdate::UserMessageChunk(chunk) => {
                inner.line(&format!("you: {}", block_text(&chunk.content)));
            }
            SessionUpdate::ToolCall(call) => {
                inner
                    .titles
                    .insert(call.tool_call_id.clone(), call.title.clone());
                let kind = call.kind.as_ref().map_or("other", ToolKind::as_str);
                // The tool's programmatic name, after its kind.
                let kind = match &call.name {
                    Some(name) => format!("{kind} {name}"),
                    None => kind.to_owned(),
                };
                let status = call.status.as_ref().unwrap_or(&ToolCallStatus::Pending);
                inner.line(&format!(
                    "  \u{2699} {} {} {}",
                    s.bold(&call.title),
                    s.dim(&format!("[{kind}]")),
                    self.status(status)
                ));
                for location in call.locations.iter().flatten() {
                    let line = location.line.map(|l| format!(":{l}")).unwrap_or_default();
                    inner.line(&s.dim(&format!("      at {}{line}", self.path(&location.path))));
                }
                self.contents(inner, call.content.as_deref(), Some(status), terminals);
            }
            SessionUpdate::ToolCallUpdate(call) => {
                if let Some(title) = &call.title {
                    inner
                        .titles
                        .insert(call.tool_call_id.clone(), title.clone());
                }
                let title = inner
                    .titles
                    .get(&call.tool_call_id)
                    .cloned()
                    .unwrap_or_else(|| call.tool_call_id.to_string());
                if let Some(status) = &call.status {
                    inner.line(&format!("  \u{2699} {title}: {}", self.status(status)));
                }
                self.contents(
                    inner,
                    call.content.as_deref(),
                    call.status.as_ref(),
                    terminals,
                );
            }
            SessionUpdate::Plan(plan) => {
                inner.line(&s.bold("  Plan:"));
                self.plan_entries(inner, &plan.entries);
            }
            #[cfg(feature = "unstable")]
            SessionUpdate::PlanUpdate(update) => match &update.plan {
                PlanUpdateContent::Items(items) => {
                    inner.line(&s.bold(&format!("  Plan {}:", items.plan_id)));
                    self.plan_entries(inner, &items.entries);
                }
                PlanUpdateContent::File(file) => inner.line(&format!(
                    "  {} in {}",
                    s.bold(&format!("Plan {}", file.plan_id)),
                    file.uri
                )),
                PlanUpdateContent::Markdown(markdown) => {
                    inner.line(&s.bold(&format!("  Plan {}:", markdown.plan_id)));
                    for line in markdown.content.lines() {
                        inner.line(&format!("    {line}"));
                    }
                }
                _ => inner.line(&s.dim("  (a plan of a kind this client does not know)")),
            },
            #[cfg(feature = "unstable")]
            SessionUpdate::PlanRemoved(removed) => {
                inner.line(&s.dim(&format!("  Plan {} removed", removed.plan_id)));
            }
            SessionUpdate::CompactionUpdate(update) => {
                let status = match update.status {
                    CompactionStatus::InProgress => "compacting the context\u{2026}".to_owned(),
                    CompactionStatus::Completed => s.green("context compacted"),
                    CompactionStatus::Cancelled => s.yellow("compaction cancelled"),
                    ref other => s.red(&format!("compaction {}", other.as_str())),
                };
                let error = update
                    .error
                    .as_ref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default();
                inner.line(&format!("  \u{21bb} {status}{error}"));
                // A summary given whole (it replaces what the chunks streamed).
                if let Some(summary) = update.summary.as_deref().filter(|s| !s.is_empty()) {
                    let text: Vec<String> = summary.iter().map(block_text).collect();
                    inner.line(&s.dim(&format!("  (summary) {}", text.concat())));
                }
            }
            SessionUpdate::CompactionSummaryChunk(chunk) => {
                inner.stream_to(Stream::Summary, &s.dim("  (summary) "));
                let text = block_text(&chunk.content);
                let _ = write!(inner.out, "{}", s.dim(&text));
                inner.after_text(&text);
            }
            SessionUpdate::Notice(notice) => {
                let label = match notice.severity {
                    NoticeSeverity::Info => s.cyan("info"),
                    NoticeSeverity::Warning => s.yellow("warning"),
                    ref other => s.red(other.as_str()),
                };
                let description = notice
                    .description
                    .as_ref()
                    .map(|d| format!(" \u{2014} {d}"))
                    .unwrap_or_default();
                inner.line(&format!("  [{label}] {}{description}", notice.title));
            }
            SessionUpdate::AvailableCommandsUpdate(update) => {
                let names: Vec<String> = update
                    .available_commands
                    .iter()
                    .map(|c| format!("/{}", c.name))
                    .collect();
                inner.line(&s.dim(&format!("  Slash commands: {}", names.join(" "))));
            }
            SessionUpdate::CurrentModeUpdate(update) => {
                inner.line(&format!(
                    "  Mode is now {}",
                    s.bold(update.current_mode_id.as_str())
                ));
            }
            SessionUpdate::ConfigOptionUpdate(update) => {
                inner.line(&s.dim(&format!(
                    "  Options: {}",
                    options_line(&update.config_options)
                )));
            }
            SessionUpdate::SessionInfoUpdate(info) => {
                if let Some(title) = &info.title {
                    inner.line(&s.dim(&format!("  Session title: \u{201c}{title}\u{201d}")));
                }
            }
            SessionUpdate::UsageUpdate(usage) => {
                let cost = usage
                    .cost
                    .as_ref()
                    .map(|c| format!(", {:.6} {}", c.amount, c.currency))
                    .unwrap_or_default();
                inner.line(&s.dim(&format!(
                    "  Usage: {} of {} tokens{cost}",
                    usage.used, usage.size
                )));
            }
            _ => inner.line(&s.dim("  (an update of a kind this client does not know)")),
        }
    }

    /// The entries of a plan, one line each, marked by status.
    fn plan_entries(&self, inner: &mut Inner, entries: &[PlanEntry]) {
        let s = self.style;
        for entry in entries {
            let mark = match entry.status {
                PlanEntryStatus::Completed => s.green("[x]"),
                PlanEntryStatus::InProgress => s.yellow("[~]"),
                _ => "[ ]".to_owned(),
            };
            inner.line(&format!("    {mark} {}", entry.content));
        }
    }

    fn status(&self, status: &ToolCallStatus) -> String {
        let s = self.style;
        match status {
            ToolCallStatus::Completed => s.green("completed"),
            ToolCallStatus::Failed => s.red("failed"),
            ToolCallStatus::InProgress => s.yellow("in progress"),
            ToolCallStatus::Pending => s.dim("pending"),
            other => other.as_str().to_owned(),
        }
    }

    fn contents(
        &self,
        inner: &mut Inner,
        contents: Option<&[ToolCallContent]>,
        status: Option<&ToolCallStatus>,
        terminals: &Terminals,
    ) {
        let s = self.style;
        for content in contents.unwrap_or_default() {
            match content {
                ToolCallContent::Content(c) => {
                    for line in block_text(&c.content).lines() {
                        inner.line(&format!("      \u{2502} {line}"));
                    }
                }
                ToolCallContent::Diff(diff) => {
                    for line in diff_lines(diff, &self.path(&diff.path)) {
                        inner.line(&format!("      {}", paint_diff_line(s, &line)));
                    }
                }
                ToolCallContent::Terminal(t) => {
                    let done = matches!(
                        status,
                        Some(ToolCallStatus::Completed | ToolCallStatus::Failed)
                    );
                    if done {
                        let output = terminals.display_output(&t.terminal_id);
                        for line in output.unwrap_or_default().lines() {
                            inner.line(&format!("      \u{2502} {line}"));
                        }
                    } else {
                        inner.line(&s.dim(&format!(
                            "      (terminal {} attached; its output shows when it ends)",
                            t.terminal_id
                        )));
                    }
                }
                _ => inner.line("      (content of a kind this client does not know)"),
            }
        }
    }
}

impl Inner {
    fn start_line(&mut self) {
        if self.line_open {
            let _ = writeln!(self.out);
            self.line_open = false;
        }
        self.stream = Stream::None;
    }

    fn line(&mut self, text: &str) {
        self.start_line();
        let _ = writeln!(self.out, "{text}");
    }

    /// Continues a stream of message or thought text, starting a new line when the kind
    /// changes (with `prefix` at the start of a thought).
    fn stream_to(&mut self, stream: Stream, prefix: &str) {
        if self.stream != stream {
            self.start_line();
            let _ = write!(self.out, "{prefix}");
            self.line_open = !prefix.is_empty();
            self.stream = stream;
        }
    }

    fn after_text(&mut self, text: &str) {
        if !text.is_empty() {
            self.line_open = !text.ends_with('\n');
        }
    }
}

/// The text of a content block, or a short description of other kinds.
pub(crate) fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => format!("[image {}]", i.mime_type),
        ContentBlock::Audio(a) => format!("[audio {}]", a.mime_type),
        ContentBlock::ResourceLink(l) => format!("[link {}]", l.uri),
        ContentBlock::Resource(_) => "[embedded resource]".to_owned(),
        _ => "[content]".to_owned(),
    }
}

/// A line of a diff, green where added, red where removed, dimmed for the headers.
fn paint_diff_line(s: Style, line: &str) -> String {
    match line.chars().next() {
        Some('+') if !line.starts_with("+++") => s.green(line),
        Some('-') if !line.starts_with("---") => s.red(line),
        _ => s.dim(line),
    }
}

/// "id=value" for each option.
pub(crate) fn options_line(options: &[SessionConfigOption]) -> String {
    let parts: Vec<String> = options
        .iter()
        .map(|o| match &o.kind {
            SessionConfigKind::Select(select) => format!("{}={}", o.id, select.current_value),
            SessionConfigKind::Boolean(b) => format!("{}={}", o.id, b.current_value),
            _ => format!("{}=?", o.id),
        })
        .collect();
    parts.join(", ")
}

/// A unified-style rendering of a diff: the changed lines between the common head and tail.
pub(crate) fn diff_lines(diff: &Diff, shown_path: &str) -> Vec<String> {
    let old: Vec<&str> = diff.old_text.as_deref().unwrap_or("").lines().collect();
    let new: Vec<&str> = diff.new_text.lines().collect();
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut lines = vec![
        format!("--- {shown_path}"),
        format!("+++ {shown_path}"),
        format!("@@ line {} @@", head + 1),
    ];
    lines.extend(old[head..old.len() - tail].iter().map(|l| format!("- {l}")));
    lines.extend(new[head..new.len() - tail].iter().map(|l| format!("+ {l}")));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_show_only_the_changed_lines() {
        let diff = Diff::new("/p", "a\nB\nc\n").old_text("a\nb\nc\n");
        assert_eq!(
            diff_lines(&diff, "p"),
            vec!["--- p", "+++ p", "@@ line 2 @@", "- b", "+ B"]
        );
        let added = Diff::new("/p", "a\nb\n").old_text("a\n");
        assert_eq!(diff_lines(&added, "p")[3..], ["+ b".to_owned()]);
    }
}
