//! One prompt turn of the demo agent: parse the command, stream the work, end the turn.
//!
//! Every await goes through [`Turn::guard`] ([`PromptContext::or_cancelled`]), which gives way
//! to `session/cancel`: the turn then stops where it is (a terminal it was running is killed and
//! released when its handle drops), and ends with `stopReason: "cancelled"`. What the turn sends
//! through its context is recorded in the session's history for `session/load`.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use acp_agent::{Cancelled, Error as CallError, PromptContext, ToolCallHandle};
use acp_types::*;

use super::DemoAgent;
use super::commands::{self, COMMANDS_HELP, Command};
use super::session::{Session, now_iso8601};

mod compaction;
#[cfg(feature = "unstable_protocol_v2")]
mod display;
#[cfg(feature = "unstable")]
mod draft;
mod tools;

/// The `outputByteLimit` the agent asks terminals to keep.
const TERMINAL_OUTPUT_LIMIT_BYTES: u64 = 16 * 1024;

/// Why a turn stopped early.
enum Stop {
    /// The client cancelled the turn.
    Cancelled,
    /// The turn fails with this error.
    Failed(ErrorObject),
}

impl From<ErrorObject> for Stop {
    fn from(error: ErrorObject) -> Self {
        Stop::Failed(error)
    }
}

impl From<CallError> for Stop {
    fn from(error: CallError) -> Self {
        Stop::Failed(error.into())
    }
}

impl From<Cancelled> for Stop {
    fn from(_: Cancelled) -> Self {
        Stop::Cancelled
    }
}

/// Runs one turn.
pub(super) async fn run(
    agent: &DemoAgent,
    request: PromptRequest,
    cx: PromptContext,
) -> Result<PromptResponse, ErrorObject> {
    let mut turn = Turn {
        agent,
        session_id: request.session_id.clone(),
        cx: agent.sessions.0.recording(cx),
        turn: 0,
        calls: 0,
        reply_chars: 0,
        #[cfg(feature = "unstable")]
        prompt_chars: 0,
    };
    let result = turn.run(request).await;
    match result {
        #[cfg(not(feature = "unstable"))]
        Ok(reason) => Ok(PromptResponse::new(reason)),
        #[cfg(feature = "unstable")]
        Ok(reason) => Ok(PromptResponse::new(reason).usage(turn.usage())),
        Err(stop) => {
            turn.clean_up().await;
            match stop {
                Stop::Cancelled => Ok(PromptResponse::new(StopReason::Cancelled)),
                Stop::Failed(error) => Err(error),
            }
        }
    }
}

struct Turn<'a> {
    agent: &'a DemoAgent,
    session_id: SessionId,
    cx: PromptContext,
    /// The number of this turn in its session (tool call ids use it).
    turn: u64,
    calls: u32,
    reply_chars: usize,
    /// The length of the prompt's text (for the turn's token usage).
    #[cfg(feature = "unstable")]
    prompt_chars: usize,
}

impl Turn<'_> {
    async fn run(&mut self, request: PromptRequest) -> Result<StopReason, Stop> {
        let (turn, announce) = self.session(|s| {
            s.turns += 1;
            let announce = !s.commands_announced;
            s.commands_announced = true;
            (s.turns, announce.then(|| s.commands()))
        })?;
        self.turn = turn;
        self.cx.record_prompt(&request.prompt);
        if let Some(commands) = announce {
            self.notify(SessionUpdate::AvailableCommandsUpdate(
                AvailableCommandsUpdate::new(commands),
            ))
            .await?;
        }

        let text: Vec<&str> = request.prompt.iter().filter_map(|b| b.as_text()).collect();
        // The command is in the last text block: context put before the user's words (the
        // project line of a proxy chain's context proxy) is read, not obeyed.
        let command = text.last().copied().unwrap_or_default();
        let text = text.join("\n");
        #[cfg(feature = "unstable")]
        {
            self.prompt_chars = text.len();
        }
        let attachments: Vec<String> = request.prompt.iter().filter_map(describe).collect();
        let reason = match commands::parse(command) {
            Ok(command) => {
                self.think(&thought(&command)).await?;
                if !attachments.is_empty() {
                    let list = attachments.join("\n- ");
                    self.say(&format!("You attached:\n- {list}")).await?;
                }
                self.execute(command, &text, attachments.is_empty()).await?
            }
            Err(usage) => {
                self.say(&format!("That command needs other arguments: {usage}."))
                    .await?;
                StopReason::EndTurn
            }
        };
        self.end(&text).await?;
        Ok(reason)
    }

    async fn execute(
        &mut self,
        command: Command,
        text: &str,
        no_attachments: bool,
    ) -> Result<StopReason, Stop> {
        match command {
            Command::Help => {
                self.say(COMMANDS_HELP).await?;
                #[cfg(feature = "unstable")]
                self.say(commands::DRAFT_COMMANDS_HELP).await?;
            }
            Command::Chat if text.trim().is_empty() && !no_attachments => {
                self.say("That is all I can tell about them.").await?;
            }
            Command::Chat => {
                let reply = format!(
                    "You said: \u{201c}{}\u{201d}. I am a scripted demo agent: I follow \
                     commands such as `edit notes.txt` or `run ls`, and `help` lists them all.",
                    text.trim()
                );
                self.say(&reply).await?;
            }
            Command::Read { path, line, limit } => {
                if let Some((_, content)) = self.read(&path, line, limit).await? {
                    let lines = content.lines().count();
                    self.say(&format!("`{path}` has {lines} line(s) in that range."))
                        .await?;
                }
            }
            Command::Edit { path, replace } => self.edit(&path, replace).await?,
            Command::Run { command, args } => self.run_command(&command, &args).await?,
            Command::Mode(mode) => self.switch_mode(&mode).await?,
            Command::Title(title) => {
                self.session(|s| {
                    s.title = Some(title.clone());
                    s.updated_at = now_iso8601();
                })?;
                self.notify(SessionUpdate::SessionInfoUpdate(
                    SessionInfoUpdate::new()
                        .title(title.as_str())
                        .updated_at(now_iso8601()),
                ))
                .await?;
                self.say(&format!("Renamed the session to \u{201c}{title}\u{201d}."))
                    .await?;
            }
            Command::Stream { chunks, delay_ms } => {
                self.message(format!("Streaming {chunks} chunks:\n"))
                    .await?;
                for i in 1..=chunks {
                    let pause = tokio::time::sleep(Duration::from_millis(delay_ms));
                    self.cx.or_cancelled(pause).await?;
                    self.message(format!("chunk {i} of {chunks}\n")).await?;
                }
            }
            Command::Refuse => {
                self.say("I will not do that (this is what `refuse` does).")
                    .await?;
                return Ok(StopReason::Refusal);
            }
            Command::Fail => {
                return Err(Stop::Failed(ErrorObject::internal_error(
                    "the `fail` command fails the prompt on purpose",
                )));
            }
            Command::Compact => self.compact().await?,
            Command::Notice { severity, title } => self.notice(severity, title).await?,
        }
        Ok(StopReason::EndTurn)
    }

    /// Closes the turn: usage, and a title after the first prompt.
    async fn end(&mut self, text: &str) -> Result<(), Stop> {
        let spent = (text.len() + self.reply_chars) as u64 / 4 + 1;
        let (used, size, title) = self.session(|s| {
            s.tokens_used += spent;
            s.updated_at = now_iso8601();
            let title = (s.title.is_none() && s.auto_title).then(|| title_of(text));
            if let Some(title) = &title {
                s.title = Some(title.clone());
            }
            (s.tokens_used, s.context_size(), title)
        })?;
        if let Some(title) = title {
            self.notify(SessionUpdate::SessionInfoUpdate(
                SessionInfoUpdate::new()
                    .title(title)
                    .updated_at(now_iso8601()),
            ))
            .await?;
        }
        // A made-up price: two dollars per million tokens.
        let cost = Cost::new((used * 2) as f64 / 1e6, "USD");
        self.notify(SessionUpdate::UsageUpdate(
            UsageUpdate::new(used, size).cost(cost),
        ))
        .await
    }

    /// After a cancellation or failure (a terminal the turn held is already released).
    async fn clean_up(&mut self) {
        if self.cx.is_cancelled() {
            // Updates after `session/cancel` are allowed, as long as they precede the answer.
            let _ = self
                .cx
                .message("(Stopped: the turn was cancelled.)\n")
                .await;
        }
    }

    // Plumbing.

    /// Awaits a call unless the turn is cancelled first; its failure fails the turn.
    async fn guard<T>(&self, call: impl Future<Output = Result<T, CallError>>) -> Result<T, Stop> {
        Ok(self.cx.or_cancelled(call).await??)
    }

    fn session<T>(&self, f: impl FnOnce(&mut Session) -> T) -> Result<T, Stop> {
        Ok(self.agent.with_session(&self.session_id, f)?)
    }

    /// Sends an update; the store keeps it in the session's history if it is conversation
    /// (session-level updates, like commands, usage or info, are not replayed).
    async fn send(&mut self, update: impl Into<SessionUpdate>) -> Result<(), Stop> {
        self.guard(self.cx.update(update)).await
    }

    /// Sends a session-level update (commands, usage, info).
    async fn notify(&mut self, update: SessionUpdate) -> Result<(), Stop> {
        self.send(update).await
    }

    async fn message(&mut self, text: String) -> Result<(), Stop> {
        self.reply_chars += text.len();
        self.send(SessionUpdate::AgentMessageChunk(ContentChunk::new(text)))
            .await
    }

    /// True when the connection speaks ACP v2, where the client has no file system and no
    /// terminals (the tools that need them say so instead).
    fn v2(&self) -> bool {
        #[cfg(feature = "unstable_protocol_v2")]
        return self.agent.client.is_v2();
        #[cfg(not(feature = "unstable_protocol_v2"))]
        false
    }

    /// Streams `text` as message chunks of a few words each.
    async fn say(&mut self, text: &str) -> Result<(), Stop> {
        for chunk in word_chunks(text) {
            self.message(chunk).await?;
        }
        self.message("\n".to_owned()).await
    }

    /// Streams `text` as thought chunks, unless the user turned thoughts off.
    async fn think(&mut self, text: &str) -> Result<(), Stop> {
        if !self.session(|s| s.thoughts)? {
            return Ok(());
        }
        for chunk in word_chunks(text) {
            self.send(SessionUpdate::AgentThoughtChunk(ContentChunk::new(chunk)))
                .await?;
        }
        Ok(())
    }

    /// Publishes the plan with `done` steps completed and the next one in progress.
    /// With the draft plan operations, and a client that advertised them, the plan goes out as
    /// `plan_update` with the id of this turn's plan, and is removed (`plan_removed`) once every
    /// step is done.
    async fn plan(&mut self, steps: &[String], done: usize) -> Result<(), Stop> {
        let entries: Vec<PlanEntry> = steps
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let status = match i.cmp(&done) {
                    std::cmp::Ordering::Less => PlanEntryStatus::Completed,
                    std::cmp::Ordering::Equal => PlanEntryStatus::InProgress,
                    std::cmp::Ordering::Greater => PlanEntryStatus::Pending,
                };
                PlanEntry::new(step.as_str(), PlanEntryPriority::High, status)
            })
            .collect();
        #[cfg(feature = "unstable")]
        if self.cx.client_supports_plan_operations() {
            return self.plan_operations(entries, done >= steps.len()).await;
        }
        self.send(Plan::new(entries)).await
    }

    /// Starts a tool call (`call`, with this turn's next id; `pending` unless it says).
    async fn start(&mut self, mut call: ToolCall) -> Result<ToolCallHandle, Stop> {
        self.calls += 1;
        call.status.get_or_insert(ToolCallStatus::Pending);
        call.tool_call_id = format!("call-{}-{}", self.turn, self.calls).into();
        self.guard(self.cx.start_tool_call(call)).await
    }

    /// Fails a tool call, saying why (in place of what it showed).
    async fn fail_call(&mut self, call: &ToolCallHandle, why: &str) -> Result<(), Stop> {
        let update = ToolCallUpdate::new(call.id().clone())
            .status(ToolCallStatus::Failed)
            .content(vec![ToolCallContent::from(why)]);
        self.guard(call.update(update)).await
    }

    /// Fails a tool call and tells the user why.
    async fn give_up(&mut self, call: &ToolCallHandle, why: &str) -> Result<(), Stop> {
        self.fail_call(call, why).await?;
        self.say(why).await
    }

    /// `path` made absolute against the session's directory (the client checks the rest).
    fn absolute(&self, path: &str) -> Result<String, Stop> {
        let cwd = self.session(|s| s.cwd.clone())?;
        Ok(Path::new(&cwd).join(path).to_string_lossy().into_owned())
    }
}

/// What the agent thinks before acting on `command`.
fn thought(command: &Command) -> String {
    match command {
        Command::Help => "The user wants to know what I can do.".into(),
        Command::Read { path, .. } => {
            format!("I read `{path}` through the client, which also sees unsaved editor buffers.")
        }
        Command::Edit { path, .. } => format!(
            "To edit `{path}` I read it, show the change as a diff, and ask before writing."
        ),
        Command::Run { command, .. } => {
            format!("Running `{command}` in a client terminal lets the user watch its output live.")
        }
        Command::Mode(mode) => format!("The user wants the `{mode}` mode."),
        Command::Title(_) => "A new title for this session.".into(),
        Command::Stream { .. } => "Something slow, so that it can be cancelled.".into(),
        Command::Refuse => "This one I refuse.".into(),
        Command::Fail => "This one fails on purpose.".into(),
        Command::Compact => "The context is getting long: time to compact it.".into(),
        Command::Notice { .. } => "The user wants a notice shown.".into(),
        Command::Chat => "That is not one of my commands; a short reply will do.".into(),
    }
}

/// A line about a non-text prompt block; `None` for text.
fn describe(block: &ContentBlock) -> Option<String> {
    let bytes = |decoded: Result<Vec<u8>, _>| match decoded {
        Ok(bytes) => format!("{} bytes", bytes.len()),
        Err(_) => "data that is not valid base64".to_owned(),
    };
    Some(match block {
        ContentBlock::Text(_) => return None,
        ContentBlock::Image(image) => {
            format!("an image ({}, {})", image.mime_type, bytes(image.decode()))
        }
        ContentBlock::Audio(audio) => {
            format!("audio ({}, {})", audio.mime_type, bytes(audio.decode()))
        }
        ContentBlock::ResourceLink(link) => format!("a link to {} ({})", link.name, link.uri),
        ContentBlock::Resource(resource) => match &resource.resource {
            EmbeddedResourceResource::TextResourceContents(text) => format!(
                "the text of {} ({} line(s))",
                text.uri,
                text.text.lines().count()
            ),
            EmbeddedResourceResource::BlobResourceContents(blob) => {
                format!("the contents of {} ({})", blob.uri, bytes(blob.decode()))
            }
            _ => "an embedded resource of a kind I do not know".to_owned(),
        },
        _ => "a content block of a kind I do not know".to_owned(),
    })
}

/// A chunking of `text` into pieces of a few words, whitespace kept.
fn word_chunks(text: &str) -> Vec<String> {
    const WORDS_PER_CHUNK: usize = 4;
    let mut chunks = Vec::new();
    let mut current = String::new();
    for (i, word) in text.split_inclusive(' ').enumerate() {
        current.push_str(word);
        if (i + 1) % WORDS_PER_CHUNK == 0 {
            chunks.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

fn fenced(text: &str) -> String {
    format!("```\n{text}{}```", newline_if_needed(text))
}

fn newline_if_needed(text: &str) -> &'static str {
    if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        "\n"
    }
}

/// A session title from its first prompt.
fn title_of(text: &str) -> String {
    const MAX_TITLE_CHARS: usize = 40;
    let first = text.lines().next().unwrap_or("").trim();
    if first.is_empty() {
        return "Untitled session".to_owned();
    }
    let mut title: String = first.chars().take(MAX_TITLE_CHARS).collect();
    if first.chars().count() > MAX_TITLE_CHARS {
        title.push('\u{2026}');
    }
    title
}

fn describe_error(error: &CallError) -> String {
    match error.remote() {
        Some(remote) => remote.to_string(),
        None => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_every_character() {
        let text = "one two three four five six\nseven";
        assert_eq!(word_chunks(text).concat(), text);
        assert_eq!(word_chunks(text).len(), 2);
    }

    #[test]
    fn titles_are_short() {
        assert_eq!(title_of("hello"), "hello");
        assert_eq!(title_of(&"x".repeat(50)).chars().count(), 41);
        assert_eq!(title_of(""), "Untitled session");
    }
}
