//! The client's driver: initialize, open a session, then run prompts and client commands.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use acp_client::AgentHandle;
use acp_types::*;
use serde_json::json;
use tokio::sync::mpsc;

use super::output::options_line;
use super::{Options, Shared};

/// Whether to go on after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Quit,
}

/// When to cancel a prompt turn.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CancelWhen {
    Never,
    After(Duration),
    /// After this many message chunks (the demo tour: deterministic).
    AfterChunks(u64),
}

pub(crate) struct Runner {
    agent: AgentHandle,
    shared: Arc<Shared>,
    session: Option<SessionId>,
    failures: u32,
    cancel_after: Option<Duration>,
    /// Keyboard lines, in interactive mode.
    input: Option<mpsc::Receiver<String>>,
}

impl Runner {
    pub(crate) fn new(agent: AgentHandle, shared: Arc<Shared>, options: &Options) -> Self {
        Self {
            agent,
            shared,
            session: None,
            failures: 0,
            cancel_after: options.cancel_after,
            input: None,
        }
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }

    fn cwd(&self) -> String {
        self.shared.workspace.root().display().to_string()
    }

    /// `initialize`, `session/new`, and `--mode`; false if the session could not start.
    pub(crate) async fn start(&mut self, options: &Options) -> bool {
        let caps = ClientCapabilities::new()
            .fs(FileSystemCapabilities::new()
                .read_text_file(!options.no_fs)
                .write_text_file(!options.no_fs))
            .terminal(!options.no_terminal)
            .session(
                ClientSessionCapabilities::new().config_options(
                    SessionConfigOptionsCapabilities::new()
                        .boolean(BooleanConfigOptionCapabilities::new()),
                ),
            );
        let request = InitializeRequest::new(ProtocolVersion::LATEST)
            .client_capabilities(caps)
            .client_info(
                Implementation::new("acp-demo-client", env!("CARGO_PKG_VERSION"))
                    .title("ACP example client"),
            );
        let response = match self.agent.initialize(request).await {
            Ok(response) => response,
            Err(error) => {
                self.fail("initialize", &error);
                return false;
            }
        };
        let out = &self.shared.output;
        let name = response.agent_info.as_ref().map_or_else(
            || "the agent".to_owned(),
            |i| format!("{} {}", i.title.as_deref().unwrap_or(&i.name), i.version),
        );
        out.event(
            json!({
                "event": "initialized",
                "protocolVersion": response.protocol_version,
                "agentInfo": response.agent_info,
                "agentCapabilities": response.agent_capabilities,
                "authMethods": response.auth_methods,
            }),
            Some(format!(
                "Connected to {} (protocol version {}).\n  It offers: {}.",
                out.style().bold(&name),
                response.protocol_version,
                offers(response.agent_capabilities.as_ref())
            )),
        );
        if !self.new_session().await {
            return false;
        }
        if let Some(mode) = &options.mode {
            return self.command(&format!(":mode {mode}")).await == Some(true);
        }
        true
    }

    /// Emits the final event; true when every step succeeded.
    pub(crate) fn finish(&self) -> bool {
        let ok = self.failures == 0;
        self.shared.output.event(
            json!({ "event": "done", "ok": ok, "failures": self.failures }),
            None,
        );
        ok
    }

    /// One step: a client command (`:...`) or a prompt.
    pub(crate) async fn step(&mut self, text: &str) -> Flow {
        self.step_with(text, CancelWhen::Never).await
    }

    pub(crate) async fn step_with(&mut self, text: &str, cancel: CancelWhen) -> Flow {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Flow::Continue;
        }
        if let Some(literal) = trimmed.strip_prefix("::") {
            self.prompt(&format!(":{literal}"), cancel).await;
        } else if trimmed.starts_with(':') {
            if matches!(trimmed, ":quit" | ":q" | ":exit") {
                return Flow::Quit;
            }
            if self.input.is_none() {
                // Scripted: show the command, as a prompt is shown.
                let out = &self.shared.output;
                out.event(
                    json!({ "event": "command", "text": trimmed }),
                    Some(format!("\n{}", out.style().bold(&format!("> {trimmed}")))),
                );
            }
            self.command(trimmed).await;
        } else {
            self.prompt(text, cancel).await;
        }
        Flow::Continue
    }

    /// Reads prompts from the keyboard until `:quit` or the end of input.
    pub(crate) async fn interactive(&mut self) {
        let (tx, rx) = mpsc::channel(16);
        // Standard input blocks; a plain thread reads it (and ends with the process).
        std::thread::spawn(move || {
            for line in std::io::stdin().lines() {
                let Ok(line) = line else { break };
                if tx.blocking_send(line).is_err() {
                    break;
                }
            }
        });
        self.input = Some(rx);
        let out = &self.shared.output;
        out.event(
            json!({ "event": "interactive" }),
            Some(out.style().dim(
                "Type a prompt (`help` asks the agent what it can do), `:help` for client \
                 commands, `:quit` to leave. `:cancel` stops a running turn.",
            )),
        );
        loop {
            self.shared
                .output
                .ask(&self.shared.output.style().bold("> "));
            let line = match self.input.as_mut() {
                Some(input) => input.recv().await,
                None => None,
            };
            self.shared.output.answered();
            let Some(line) = line else { break };
            if self.step(&line).await == Flow::Quit {
                break;
            }
        }
    }

    async fn new_session(&mut self) -> bool {
        let request = NewSessionRequest::new(self.cwd(), Vec::<McpServer>::new());
        match self.agent.new_session(request).await {
            Ok(response) => {
                let id = response.session_id.clone();
                self.remember(&id, response.config_options.clone());
                self.session = Some(id.clone());
                let out = &self.shared.output;
                let mut human = format!(
                    "Session {} started in {}.",
                    out.style().bold(id.as_str()),
                    self.cwd()
                );
                if let Some(modes) = &response.modes {
                    let ids: Vec<String> = modes
                        .available_modes
                        .iter()
                        .map(|m| {
                            if m.id == modes.current_mode_id {
                                format!("{} (current)", m.id)
                            } else {
                                m.id.to_string()
                            }
                        })
                        .collect();
                    human.push_str(&format!("\n  Modes: {}", ids.join(", ")));
                }
                if let Some(options) = &response.config_options {
                    human.push_str(&format!("\n  Options: {}", options_line(options)));
                }
                out.event(
                    json!({
                        "event": "session_new",
                        "sessionId": id,
                        "modes": response.modes,
                        "configOptions": response.config_options,
                    }),
                    Some(human),
                );
                true
            }
            Err(error) => {
                self.fail("session/new", &error);
                false
            }
        }
    }

    fn remember(&self, id: &SessionId, options: Option<Vec<SessionConfigOption>>) {
        if let Some(options) = options {
            self.shared.set_options(id, options);
        }
    }

    /// A client command; `Some(true)` when it succeeded, `None` for an unknown one.
    pub(crate) async fn command(&mut self, line: &str) -> Option<bool> {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or_default();
        let args: Vec<&str> = words.collect();
        let arg = args.first().map(|a| (*a).to_owned());
        let out = &self.shared.output;
        let s = out.style();
        let current = self.session.clone();
        let need = |what: Option<String>| what.or(current.as_ref().map(ToString::to_string));
        let ok = match (name, need(arg.clone())) {
            (":help", _) => {
                let help = super::USAGE
                    .split_once("Client commands")
                    .map_or("", |(_, rest)| rest);
                let help = help
                    .split_once("\n\n")
                    .map_or(help, |(commands, _)| commands);
                out.event(
                    json!({ "event": "help" }),
                    Some(format!("Client commands{help}")),
                );
                true
            }
            (":new", _) => self.new_session().await,
            (":list", _) => self.list().await,
            (":cancel", _) => {
                out.event(
                    json!({ "event": "note", "text": "no turn is running" }),
                    Some(s.dim("  (no turn is running)")),
                );
                true
            }
            (":load", Some(id)) if arg.is_some() => {
                out.start_replay();
                let request =
                    LoadSessionRequest::new(Vec::<McpServer>::new(), self.cwd(), id.as_str());
                let result = self.agent.load_session(request).await;
                let replayed = out.end_replay();
                match result {
                    Ok(response) => {
                        self.remember(&id.as_str().into(), response.config_options);
                        self.session = Some(id.as_str().into());
                        out.event(
                            json!({ "event": "session_load", "sessionId": id, "replayed": replayed }),
                            Some(format!(
                                "  Loaded {id}: the agent replayed its history as {replayed} \
                                 session/update notifications (not shown again)."
                            )),
                        );
                        true
                    }
                    Err(error) => self.fail("session/load", &error),
                }
            }
            (":resume", Some(id)) if arg.is_some() => {
                let request = ResumeSessionRequest::new(id.as_str(), self.cwd());
                match self.agent.resume_session(request).await {
                    Ok(response) => {
                        self.remember(&id.as_str().into(), response.config_options);
                        self.session = Some(id.as_str().into());
                        out.event(
                            json!({ "event": "session_resume", "sessionId": id }),
                            Some(format!(
                                "  Resumed {id} (no replay); it is the current session."
                            )),
                        );
                        true
                    }
                    Err(error) => self.fail("session/resume", &error),
                }
            }
            (":close", Some(id)) => {
                match self
                    .agent
                    .close_session(CloseSessionRequest::new(id.as_str()))
                    .await
                {
                    Ok(_) => {
                        out.event(
                            json!({ "event": "session_close", "sessionId": id }),
                            Some(format!("  Closed {id}.")),
                        );
                        true
                    }
                    Err(error) => self.fail("session/close", &error),
                }
            }
            (":delete", Some(id)) if arg.is_some() => {
                match self
                    .agent
                    .delete_session(DeleteSessionRequest::new(id.as_str()))
                    .await
                {
                    Ok(_) => {
                        if current.as_ref().is_some_and(|c| c.as_str() == id) {
                            self.session = None;
                        }
                        out.event(
                            json!({ "event": "session_delete", "sessionId": id }),
                            Some(format!("  Deleted {id}.")),
                        );
                        true
                    }
                    Err(error) => self.fail("session/delete", &error),
                }
            }
            (":mode", _) if arg.is_some() && current.is_some() => {
                let (Some(mode), Some(session)) = (arg, current) else {
                    return Some(false);
                };
                let request = SetSessionModeRequest::new(session.clone(), mode.as_str());
                match self.agent.set_session_mode(request).await {
                    Ok(_) => {
                        out.event(
                            json!({ "event": "mode_set", "sessionId": session, "modeId": mode }),
                            Some(format!(
                                "  Asked for mode {} (session/set_mode).",
                                s.bold(&mode)
                            )),
                        );
                        true
                    }
                    Err(error) => self.fail("session/set_mode", &error),
                }
            }
            (":config", _) if args.len() == 2 && current.is_some() => {
                let (id, value) = (args[0], args[1]);
                let Some(session) = current else {
                    return Some(false);
                };
                let value = if self.shared.is_boolean_option(&session, id)
                    && matches!(value, "true" | "false")
                {
                    SessionConfigOptionValue::Boolean(value == "true")
                } else {
                    SessionConfigOptionValue::ValueId(value.into())
                };
                let request = SetSessionConfigOptionRequest::new(session.clone(), id, value);
                match self.agent.set_session_config_option(request).await {
                    Ok(response) => {
                        let line = options_line(&response.config_options);
                        out.event(
                            json!({
                                "event": "config_set",
                                "sessionId": session,
                                "configId": id,
                                "configOptions": response.config_options,
                            }),
                            Some(format!(
                                "  Set {id} (session/set_config_option). Options: {line}"
                            )),
                        );
                        self.remember(&session, Some(response.config_options));
                        true
                    }
                    Err(error) => self.fail("session/set_config_option", &error),
                }
            }
            _ => {
                let message = format!(
                    "`{line}` is not a client command, or lacks an argument (:help lists them)"
                );
                self.failures += 1;
                out.event(
                    json!({ "event": "error", "during": "client command", "message": message }),
                    Some(s.red(&format!("error: {message}"))),
                );
                return None;
            }
        };
        Some(ok)
    }

    async fn list(&mut self) -> bool {
        let mut sessions = Vec::new();
        let mut cursor = None;
        loop {
            let mut request = ListSessionsRequest::new();
            request.cursor = cursor.take();
            match self.agent.list_sessions(request).await {
                Ok(page) => {
                    sessions.extend(page.sessions);
                    match page.next_cursor {
                        Some(next) => cursor = Some(next),
                        None => break,
                    }
                }
                Err(error) => return self.fail("session/list", &error),
            }
        }
        let out = &self.shared.output;
        let mut human = format!("  Sessions ({}):", sessions.len());
        for info in &sessions {
            let title = info.title.as_deref().unwrap_or("(untitled)");
            let current = if self.session.as_ref() == Some(&info.session_id) {
                "  <- current"
            } else {
                ""
            };
            human.push_str(&format!(
                "\n    {}  \u{201c}{title}\u{201d}{current}",
                info.session_id
            ));
        }
        out.event(
            json!({ "event": "sessions", "sessions": sessions }),
            Some(human),
        );
        true
    }

    /// Sends a prompt and waits for the turn to end, cancelling it as `cancel` (or
    /// `--cancel-after`, or `:cancel` at the keyboard) says.
    async fn prompt(&mut self, text: &str, cancel: CancelWhen) {
        let Some(session) = self.session.clone() else {
            let message = "no current session (:new creates one)";
            self.failures += 1;
            self.shared.output.event(
                json!({ "event": "error", "during": "session/prompt", "message": message }),
                Some(self.shared.output.style().red(&format!("error: {message}"))),
            );
            return;
        };
        let blocks = self.blocks(text);
        let out = &self.shared.output;
        let s = out.style();
        let kinds: Vec<&str> = blocks.iter().map(kind_of).collect();
        let mut human = format!("\n{}", s.bold(&format!("> {text}")));
        for block in blocks.iter().skip(1) {
            human.push_str(&s.dim(&format!("\n  + attached {}", attachment(block))));
        }
        out.event(
            json!({ "event": "prompt", "sessionId": session, "text": text, "blocks": kinds }),
            Some(human),
        );
        let cancel = match (cancel, self.cancel_after) {
            (CancelWhen::Never, Some(after)) => CancelWhen::After(after),
            (cancel, _) => cancel,
        };
        self.shared.reset_chunks();
        let agent = self.agent.clone();
        let shared = self.shared.clone();
        let mut input = self.input.take();
        let prompt = agent.prompt(PromptRequest::new(session.clone(), blocks));
        tokio::pin!(prompt);
        let mut cancelled = false;
        let result = loop {
            let trigger = async {
                match cancel {
                    _ if cancelled => std::future::pending().await,
                    CancelWhen::Never => std::future::pending().await,
                    CancelWhen::After(after) => tokio::time::sleep(after).await,
                    CancelWhen::AfterChunks(n) => shared.chunks_reached(n).await,
                }
            };
            tokio::select! {
                result = &mut prompt => break result,
                () = trigger => {
                    cancelled = true;
                    send_cancel(&agent, &shared, &session).await;
                }
                line = next_line(&mut input) => match line {
                    Some(line) => {
                        if shared.answer(line.clone()) {
                            continue;
                        }
                        if line.trim() == ":cancel" && !cancelled {
                            cancelled = true;
                            send_cancel(&agent, &shared, &session).await;
                        } else {
                            shared.output.event(
                                json!({ "event": "note", "text": "a turn is running" }),
                                Some(s.dim("  (a turn is running: `:cancel` stops it)")),
                            );
                        }
                    }
                    // The keyboard is gone: stop the turn rather than wait for answers.
                    None => {
                        input = None;
                        if !cancelled {
                            cancelled = true;
                            send_cancel(&agent, &shared, &session).await;
                        }
                    }
                },
            }
        };
        self.input = input;
        match result {
            Ok(response) => {
                let reason = response.stop_reason.as_str().to_owned();
                self.shared.output.event(
                    json!({ "event": "prompt_result", "sessionId": session, "stopReason": reason }),
                    Some(s.dim(&format!("  [turn ended: {reason}]"))),
                );
            }
            Err(error) => {
                self.fail("session/prompt", &error);
            }
        }
    }

    /// The prompt's content: its text, then a block per `@mention`, as the agent accepts them.
    fn blocks(&self, text: &str) -> Vec<ContentBlock> {
        let mut blocks = vec![ContentBlock::from(text)];
        let prompt = self
            .agent
            .agent_capabilities()
            .and_then(|c| c.prompt_capabilities.clone())
            .unwrap_or_default();
        let accepts = |flag: Option<bool>| flag == Some(true);
        for word in text.split_whitespace() {
            let Some(target) = word.strip_prefix('@') else {
                continue;
            };
            let target = target.trim_end_matches([',', '.', '?', '!', ')', ';', ':']);
            if target.is_empty() {
                continue;
            }
            if target.contains("://") {
                let name = target.rsplit('/').find(|s| !s.is_empty()).unwrap_or(target);
                blocks.push(ResourceLink::new(name, target).into());
                continue;
            }
            let root = self.shared.workspace.root();
            let path = root.join(target).display().to_string();
            let file = self
                .shared
                .workspace
                .resolve_existing(&path)
                .and_then(|real| {
                    std::fs::read(&real)
                        .map(|bytes| (real, bytes))
                        .map_err(ErrorObject::internal_error)
                });
            let (real, bytes) = match file {
                Ok(file) => file,
                Err(error) => {
                    let out = &self.shared.output;
                    out.event(
                        json!({ "event": "note", "text": format!("cannot attach {target}: {error}") }),
                        Some(out.style().dim(&format!("  (cannot attach {target}: {error})"))),
                    );
                    continue;
                }
            };
            let uri = format!("file://{}", real.display());
            let name = file_name(&real);
            let mime = mime_type(&real);
            let block: ContentBlock = if mime.starts_with("image/") && accepts(prompt.image) {
                ImageContent::from_bytes(&bytes, mime).uri(uri).into()
            } else if mime.starts_with("audio/") && accepts(prompt.audio) {
                AudioContent::from_bytes(&bytes, mime).into()
            } else if accepts(prompt.embedded_context) {
                match String::from_utf8(bytes) {
                    Ok(text) => {
                        EmbeddedResource::new(TextResourceContents::new(text, uri).mime_type(mime))
                            .into()
                    }
                    Err(e) => EmbeddedResource::new(
                        BlobResourceContents::from_bytes(uri, e.as_bytes()).mime_type(mime),
                    )
                    .into(),
                }
            } else {
                // The agent takes neither the kind nor embedded context: a link it can follow.
                let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
                ResourceLink::new(name, uri)
                    .mime_type(mime)
                    .size(size)
                    .into()
            };
            blocks.push(block);
        }
        blocks
    }

    /// Reports a failed call; returns false (for `?`-less chaining).
    fn fail(&mut self, during: &str, error: &acp_client::Error) -> bool {
        self.failures += 1;
        let (code, message, data, shown) = match error.remote() {
            Some(remote) => (
                Some(remote.code),
                remote.message.clone(),
                remote.data.clone(),
                remote.to_string(),
            ),
            None => (None, error.to_string(), None, error.to_string()),
        };
        let out = &self.shared.output;
        out.event(
            json!({ "event": "error", "during": during, "code": code, "message": message, "data": data }),
            Some(out.style().red(&format!("error: {during} failed: {shown}"))),
        );
        false
    }
}

async fn send_cancel(agent: &AgentHandle, shared: &Shared, session: &SessionId) {
    let out = &shared.output;
    out.event(
        json!({ "event": "cancel", "sessionId": session }),
        Some(
            out.style()
                .yellow("  [cancelling the turn: session/cancel]"),
        ),
    );
    // A pending keyboard question is answered `cancelled` by the library; drop ours.
    let _ = shared.answer(String::new());
    let _ = agent.cancel(CancelNotification::new(session.clone())).await;
}

async fn next_line(input: &mut Option<mpsc::Receiver<String>>) -> Option<String> {
    match input {
        Some(input) => input.recv().await,
        None => std::future::pending().await,
    }
}

/// What the agent offers, in a few words.
fn offers(caps: Option<&AgentCapabilities>) -> String {
    let Some(caps) = caps else {
        return "nothing beyond the basics".to_owned();
    };
    let mut offers = Vec::new();
    let prompt = caps.prompt_capabilities.clone().unwrap_or_default();
    for (flag, name) in [
        (prompt.image, "images"),
        (prompt.audio, "audio"),
        (prompt.embedded_context, "embedded files"),
    ] {
        if flag == Some(true) {
            offers.push(format!("{name} in prompts"));
        }
    }
    if caps.load_session == Some(true) {
        offers.push("session/load".to_owned());
    }
    if let Some(session) = &caps.session_capabilities {
        for (present, name) in [
            (session.list.is_some(), "list"),
            (session.resume.is_some(), "resume"),
            (session.close.is_some(), "close"),
            (session.delete.is_some(), "delete"),
        ] {
            if present {
                offers.push(format!("session/{name}"));
            }
        }
    }
    if offers.is_empty() {
        "nothing beyond the basics".to_owned()
    } else {
        offers.join(", ")
    }
}

fn kind_of(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text(_) => "text",
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::ResourceLink(_) => "resource_link",
        ContentBlock::Resource(_) => "resource",
        _ => "unknown",
    }
}

fn attachment(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Image(i) => format!("an image ({})", i.mime_type),
        ContentBlock::Audio(a) => format!("audio ({})", a.mime_type),
        ContentBlock::ResourceLink(l) => format!("a link to {}", l.uri),
        ContentBlock::Resource(r) => match &r.resource {
            EmbeddedResourceResource::TextResourceContents(t) => {
                format!("the text of {}", file_uri_name(&t.uri))
            }
            EmbeddedResourceResource::BlobResourceContents(b) => {
                format!("the bytes of {}", file_uri_name(&b.uri))
            }
            _ => "a resource".to_owned(),
        },
        other => kind_of(other).to_owned(),
    }
}

fn file_uri_name(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or(uri)
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A MIME type from the file extension (enough for an example).
fn mime_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "wav" => "audio/wav",
        "mp3" => "audio/mpeg",
        "ogg" => "audio/ogg",
        "md" => "text/markdown",
        "rs" => "text/x-rust",
        "json" => "application/json",
        "txt" | "" => "text/plain",
        _ => "application/octet-stream",
    }
}
