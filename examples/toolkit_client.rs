//! An editor driving a coding agent, written on the `acp-client` toolkit (the goal program of
//! issue 12, the other side of `toolkit_agent`).
//!
//! It starts the agent, serves it the workspace's files and terminals (`Local`, which logs
//! each call), advertises that it shows notices and compactions, picks the session's mode,
//! prompts it to fix the TODOs of a file, answers its permission request, prints every update
//! (tool calls with their tool's name, notices by severity, compactions and their summaries),
//! loads the session again (printing the replay), and closes the agent gracefully. With `--wire-log PREFIX` every message goes, one JSON per
//! line, to `PREFIX.recv` and `PREFIX.sent`.
//!
//! It prints the protocol version `initialize` negotiated first (`protocol: ACP v1`). Built
//! with the feature `unstable_protocol_v2` it asks for v2 and falls back to v1 (`--protocol 1`
//! asks for v1 only): on v2 the agent works on the files itself (v2 has no client file system
//! or terminals), the mode is set as the config option `mode`, replaced messages and display
//! terminals are shown, and `session/resume` replays the history instead of `session/load`.
//!
//! ```text
//! toolkit_client [--workdir DIR] [--file NAME] [--mode ID] [--reject | --cancel] [--protocol 1|2] [--wire-log PREFIX] AGENT [ARGS...]
//! ```

// A command-line program: it reports on stdout and stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;
#[cfg(feature = "unstable_protocol_v2")]
use std::sync::PoisonError;
use std::time::Duration;

use acp_client::{AgentHandle, Client, ClientOptions, Local, Observer, SpawnOptions, Stderr};
use acp_client::{Workspace, async_trait};
use acp_types::*;
use tokio::process::Command;

/// What to answer when the agent asks permission.
#[derive(Clone, Copy, PartialEq)]
enum Answer {
    Allow,
    Reject,
    /// Cancel the turn instead of answering.
    Cancel,
}

/// The editor's own part: asking the user and showing updates (`Local` serves the rest).
struct Editor {
    agent: AgentHandle,
    answer: Answer,
    /// On v2, the session as the updates built it (display terminals fold their output
    /// chunks here).
    #[cfg(feature = "unstable_protocol_v2")]
    model: std::sync::Mutex<acp_client::model::SessionModel>,
}

#[async_trait]
impl Client for Editor {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse> {
        let title = request.tool_call.title.as_deref().unwrap_or("a tool call");
        let wanted = match self.answer {
            Answer::Allow => PermissionOptionKind::AllowOnce,
            Answer::Reject => PermissionOptionKind::RejectOnce,
            Answer::Cancel => {
                println!("permission: {title}? cancelling the turn");
                // The library then answers this request `cancelled`, as the spec asks.
                let cancel = CancelNotification::new(request.session_id.clone());
                self.agent.cancel(cancel).await?;
                return Ok(RequestPermissionResponse::cancelled());
            }
        };
        let Some(option) = request.options.iter().find(|o| o.kind == wanted) else {
            return Err(ErrorObject::invalid_params(
                "no option of the kind to choose",
            ));
        };
        println!("permission: {title}? {}", option.name);
        Ok(RequestPermissionResponse::selected(
            option.option_id.clone(),
        ))
    }

    async fn session_notification(&self, notification: SessionNotification) -> Result<()> {
        println!("{}", describe(&notification.update));
        Ok(())
    }

    #[cfg(feature = "unstable_protocol_v2")]
    async fn request_permission_v2(
        &self,
        request: acp_types::v2::RequestPermissionRequest,
    ) -> Result<acp_types::v2::RequestPermissionResponse> {
        v2::permission(&self.agent, self.answer, request)
    }

    #[cfg(feature = "unstable_protocol_v2")]
    async fn session_notification_v2(
        &self,
        notification: acp_types::v2::UpdateSessionNotification,
    ) -> Result<()> {
        let mut model = self.model.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(line) = v2::describe(&mut model, notification.update) {
            println!("{line}");
        }
        Ok(())
    }
}

/// One line about an update.
fn describe(update: &SessionUpdate) -> String {
    let text = |c: &ContentBlock| c.as_text().unwrap_or("[non-text content]").to_owned();
    let shown = |content: &Option<Vec<ToolCallContent>>| -> String {
        let items = content.iter().flatten().map(|c| match c {
            ToolCallContent::Content(c) => text(&c.content),
            ToolCallContent::Diff(d) => format!("[diff of {}]", d.path),
            ToolCallContent::Terminal(t) => format!("[terminal {}]", t.terminal_id),
            _ => "[other content]".to_owned(),
        });
        items.collect::<Vec<_>>().join(" ")
    };
    let status = |s: &Option<ToolCallStatus>| s.as_ref().map_or("", |s| s.as_str()).to_owned();
    match update {
        SessionUpdate::UserMessageChunk(c) => format!("user: {}", text(&c.content)),
        SessionUpdate::AgentMessageChunk(c) => format!("agent: {}", text(&c.content)),
        SessionUpdate::AgentThoughtChunk(c) => format!("thought: {}", text(&c.content)),
        SessionUpdate::ToolCall(call) => format!(
            "tool {} started: {} ({}) {} {}",
            call.tool_call_id,
            call.title,
            call.name.as_deref().unwrap_or("unnamed"),
            status(&call.status),
            shown(&call.content)
        ),
        SessionUpdate::ToolCallUpdate(call) => format!(
            "tool {} {} {}",
            call.tool_call_id,
            status(&call.status),
            shown(&call.content)
        ),
        SessionUpdate::Plan(plan) => {
            let entries = plan.entries.iter().map(|e| {
                let (status, priority) = (e.status.as_str(), e.priority.as_str());
                format!("[{status}] {} ({priority})", e.content)
            });
            format!("plan: {}", entries.collect::<Vec<_>>().join(", "))
        }
        SessionUpdate::CurrentModeUpdate(mode) => format!("mode: {}", mode.current_mode_id),
        SessionUpdate::Notice(notice) => format!(
            "notice [{}]: {}{}",
            notice.severity.as_str(),
            notice.title,
            notice
                .description
                .as_ref()
                .map_or(String::new(), |d| format!(" ({d})"))
        ),
        SessionUpdate::CompactionUpdate(c) => {
            let summary = c.summary.iter().flatten().map(text);
            let summary = summary.collect::<Vec<_>>().concat();
            format!(
                "compaction {} {} {summary}",
                c.compaction_id,
                c.status.as_str()
            )
        }
        SessionUpdate::CompactionSummaryChunk(c) => {
            format!(
                "compaction {} summary: {}",
                c.compaction_id,
                text(&c.content)
            )
        }
        other => format!("update: {}", other.tag().unwrap_or("unknown")),
    }
}

/// The command line.
struct Args {
    workdir: PathBuf,
    file: String,
    mode: Option<String>,
    answer: Answer,
    /// The protocol version to ask for: 2 (with the feature `unstable_protocol_v2`, the
    /// default there) falls back to 1.
    protocol: u16,
    wire_log: Option<PathBuf>,
    agent: Vec<String>,
}

const USAGE: &str = "usage: toolkit_client [--workdir DIR] [--file NAME] [--mode ID] [--reject | --cancel] [--protocol 1|2] [--wire-log PREFIX] AGENT [ARGS...]";

fn parse_args() -> std::result::Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        workdir: ".".into(),
        file: "notes.txt".into(),
        mode: None,
        answer: Answer::Allow,
        protocol: if cfg!(feature = "unstable_protocol_v2") {
            2
        } else {
            1
        },
        wire_log: None,
        agent: Vec::new(),
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--workdir" => parsed.workdir = value()?.into(),
            "--file" => parsed.file = value()?,
            "--mode" => parsed.mode = Some(value()?),
            "--wire-log" => parsed.wire_log = Some(value()?.into()),
            "--reject" => parsed.answer = Answer::Reject,
            "--cancel" => parsed.answer = Answer::Cancel,
            "--protocol" => {
                parsed.protocol = match value()?.as_str() {
                    "1" => 1,
                    "2" if cfg!(feature = "unstable_protocol_v2") => 2,
                    "2" => return Err("--protocol 2 needs the feature unstable_protocol_v2".into()),
                    other => return Err(format!("--protocol: 1 or 2, not {other}")),
                }
            }
            _ => parsed
                .agent
                .extend(std::iter::once(arg).chain(args.by_ref())),
        }
    }
    if parsed.agent.is_empty() {
        return Err(USAGE.into());
    }
    let workdir = parsed.workdir.canonicalize();
    parsed.workdir = workdir.map_err(|e| format!("--workdir: {e}"))?;
    Ok(parsed)
}

async fn run(args: Args) -> std::result::Result<(), Box<dyn std::error::Error>> {
    // No call to the agent waits longer than this, and no turn longer than `TURN_LIMIT`.
    let mut options = ClientOptions::default().request_timeout(Duration::from_secs(30));
    if let Some(prefix) = &args.wire_log {
        let log = |ext: &str| std::fs::File::create(format!("{}.{ext}", prefix.display()));
        options.rpc.observer = Some(Observer::write_lines(log("recv")?, log("sent")?));
    }
    let local =
        Local::new(Workspace::new(&args.workdir)?).on_call(|call| println!("local: {call}"));
    // The files and terminals `Local` serves, and the session updates `describe` shows.
    let shows = ClientSessionCapabilities::new()
        .compaction(CompactionCapabilities::new())
        .notices(NoticeCapabilities::new());
    let capabilities = local.capabilities().session(shows);
    let mut command = Command::new(&args.agent[0]);
    command.args(&args.agent[1..]);
    let answer = args.answer;
    let make = move |agent| {
        local.serve(Editor {
            agent,
            answer,
            #[cfg(feature = "unstable_protocol_v2")]
            model: std::sync::Mutex::default(),
        })
    };
    let spawn_options = SpawnOptions::default()
        .client(options)
        .stderr(Stderr::Inherit);
    let spawned = acp_client::spawn(command, make, spawn_options)?;
    let driver = tokio::spawn(spawned.driver);
    let agent = spawned.agent;

    let client_info = Implementation::new("toolkit-client", env!("CARGO_PKG_VERSION"));
    let init = InitializeRequest::new(ProtocolVersion::V1)
        .client_capabilities(capabilities)
        .client_info(client_info.clone());
    #[cfg(feature = "unstable_protocol_v2")]
    let response = if args.protocol == 2 {
        let mut request = acp_types::v2::InitializeRequest::new(2u16, client_info);
        request.capabilities = Some(acp_types::v2::ClientCapabilities::new());
        match agent.negotiate(request, init).await? {
            acp_client::v2::Negotiated::V1(response) => response,
            negotiated => {
                println!("protocol: ACP v{}", negotiated.protocol_version());
                let v2 = agent.v2().ok_or("the connection did not negotiate v2")?;
                v2::session(&v2, &args).await?;
                return stop(agent, spawned.process, driver).await;
            }
        }
    } else {
        agent.initialize(init).await?
    };
    #[cfg(not(feature = "unstable_protocol_v2"))]
    let response = agent.initialize(init).await?;
    println!("protocol: ACP v{}", response.protocol_version);
    let info = response.agent_info;
    println!("agent: {}", info.map_or("(unnamed)".into(), |i| i.name));

    let no_servers = Vec::<McpServer>::new();
    let new = NewSessionRequest::new(&args.workdir, no_servers.clone());
    let session = agent.new_session(new).await?;
    let id = session.session_id;
    if let Some(modes) = &session.modes {
        let offered: Vec<&str> = modes
            .available_modes
            .iter()
            .map(|m| m.id.as_str())
            .collect();
        println!(
            "modes: {} (current {})",
            offered.join(", "),
            modes.current_mode_id
        );
    }
    if let Some(mode) = args.mode {
        agent
            .set_session_mode(SetSessionModeRequest::new(id.clone(), mode))
            .await?;
    }
    let prompt = PromptRequest::new(
        id.clone(),
        vec![format!("Please fix the TODOs in {}", args.file).into()],
    );
    let done = agent.prompt_with_timeout(prompt, TURN_LIMIT).await?;
    println!("stop: {}", done.stop_reason.as_str());

    if agent
        .agent_capabilities()
        .is_some_and(|c| c.load_session == Some(true))
    {
        println!("--- session/load replays the history:");
        agent
            .load_session(LoadSessionRequest::new(id, &args.workdir, no_servers))
            .await?;
        println!("--- loaded");
    }
    stop(agent, spawned.process, driver).await
}

/// Closes the connection and stops the agent gracefully.
async fn stop(
    agent: AgentHandle,
    mut process: acp_client::AgentProcess,
    driver: tokio::task::JoinHandle<impl Sized>,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    drop(agent);
    let stopped = process.shutdown(Duration::from_secs(5)).await?;
    println!("agent stopped: {stopped:?}");
    let _ = driver.await;
    Ok(())
}

/// The longest a turn may run before it is cancelled.
const TURN_LIMIT: Duration = Duration::from_secs(120);

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    acp_examples::init_tracing();
    let result = match parse_args() {
        Ok(args) => run(args).await,
        Err(message) => {
            eprintln!("toolkit_client: {message}");
            return ExitCode::from(2);
        }
    };
    if let Err(error) = result {
        eprintln!("toolkit_client: {error}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The session on a v2 connection.
#[cfg(feature = "unstable_protocol_v2")]
mod v2 {
    use acp_client::AgentHandle;
    use acp_client::model::SessionModel;
    use acp_types::v2::{self, SessionUpdate as U};
    use acp_types::{ErrorObject, Result};

    use super::{Answer, Args, TURN_LIMIT};

    /// Opens the session, sets `--mode` (the config option `mode`), runs the prompt, and
    /// resumes the session with its history replayed.
    pub(super) async fn session(
        agent: &acp_client::v2::AgentHandle,
        args: &Args,
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let info = &agent.initialize_response().info;
        println!("agent: {}", info.name);
        let cwd = args.workdir.to_string_lossy().into_owned();
        let id = agent
            .new_session(v2::NewSessionRequest::new(cwd.clone()))
            .await?
            .session_id;
        if let Some(mode) = &args.mode {
            let mut request = v2::SetSessionConfigOptionRequest::new(
                v2::SessionConfigValueKind::Id,
                id.clone(),
                "mode",
            );
            request.value = Some(serde_json::Value::from(mode.as_str()));
            agent.set_session_config_option(request).await?;
            println!("mode: {mode}");
        }
        let text = format!("Please fix the TODOs in {}", args.file);
        let prompt = v2::PromptRequest::new(id.clone(), vec![v2::ContentBlock::from(text)]);
        let end = agent.prompt_with_timeout(prompt, TURN_LIMIT).await?;
        let stop = end.stop_reason().map_or("none", v2::StopReason::as_str);
        println!("stop: {stop}");
        println!("--- session/resume replays the history:");
        let mut resume = v2::ResumeSessionRequest::new(id, cwd);
        resume.replay_from = Some(v2::ReplayFrom::from(v2::ReplayFromStart::new()));
        agent.resume_session(resume).await?;
        println!("--- resumed");
        Ok(())
    }

    /// Answers a permission request as `--reject` / `--cancel` say.
    pub(super) fn permission(
        agent: &AgentHandle,
        answer: Answer,
        request: v2::RequestPermissionRequest,
    ) -> Result<v2::RequestPermissionResponse> {
        let title = &request.title;
        let wanted = match answer {
            Answer::Allow => v2::PermissionOptionKind::AllowOnce,
            Answer::Reject => v2::PermissionOptionKind::RejectOnce,
            Answer::Cancel => {
                println!("permission: {title}? cancelling the turn");
                // The cancel waits for the turn's `idle`, which comes after this answer.
                if let Some(v2) = agent.v2() {
                    let cancel = v2::CancelSessionNotification::new(request.session_id.clone());
                    tokio::spawn(async move { v2.cancel(cancel).await });
                }
                return Ok(v2::RequestPermissionResponse::new(
                    v2::CancelledPermissionOutcome::new(),
                ));
            }
        };
        let Some(option) = request.options.iter().find(|o| o.kind == wanted) else {
            return Err(ErrorObject::invalid_params(
                "no option of the kind to choose",
            ));
        };
        println!("permission: {title}? {}", option.name);
        Ok(v2::RequestPermissionResponse::new(
            v2::SelectedPermissionOutcome::new(option.option_id.clone()),
        ))
    }

    /// Applies `update` to the session model; the line to show about it, if any.
    pub(super) fn describe(model: &mut SessionModel, update: U) -> Option<String> {
        let line = match &update {
            U::UserMessageChunk(c) => format!("user: {}", text(&c.content)),
            U::AgentMessageChunk(c) => format!("agent: {}", text(&c.content)),
            U::AgentThoughtChunk(c) => format!("thought: {}", text(&c.content)),
            U::UserMessage(m) => format!("user: {}", texts(m.content.as_set())),
            U::AgentMessage(m) => format!("agent (replaced): {}", texts(m.content.as_set())),
            U::ToolCallUpdate(call) => {
                let title = call.title.as_set().map_or("", String::as_str);
                let status = call.status.as_set().map_or("", v2::ToolCallStatus::as_str);
                let shown = call
                    .content
                    .as_set()
                    .map(|c| contents(c))
                    .unwrap_or_default();
                format!("tool {} {title} {status} {shown}", call.tool_call_id)
            }
            U::ToolCallContentChunk(chunk) => format!(
                "tool {} + {}",
                chunk.tool_call_id,
                contents(std::slice::from_ref(&chunk.content))
            ),
            U::PlanUpdate(update) => match &update.plan {
                v2::PlanUpdateContent::Items(items) => {
                    let entries = items.entries.iter().map(|e| {
                        format!(
                            "[{}] {} ({})",
                            e.status.as_str(),
                            e.content,
                            e.priority.as_str()
                        )
                    });
                    format!("plan: {}", entries.collect::<Vec<_>>().join(", "))
                }
                _ => "plan: (of a kind this client does not show)".to_owned(),
            },
            U::TerminalUpdate(t) => match t.command.as_set() {
                Some(command) => format!("terminal {}: `{command}`", t.terminal_id),
                None => String::new(),
            },
            // Folded into the model; shown whole when the terminal exits.
            U::TerminalOutputChunk(_) | U::StateUpdate(_) => String::new(),
            other => format!("update: {}", other.tag().unwrap_or("unknown")),
        };
        let exited = match &update {
            U::TerminalUpdate(t) => t
                .exit_status
                .as_set()
                .map(|e| (t.terminal_id.clone(), e.exit_code)),
            _ => None,
        };
        if let Err(error) = model.apply_v2(update) {
            return Some(format!("refused update: {error}"));
        }
        let mut lines: Vec<String> = Vec::new();
        if !line.is_empty() {
            lines.push(line);
        }
        if let Some((id, code)) = exited {
            let output = model
                .terminal(&id)
                .map(|t| t.output_lossy().trim_end().to_owned())
                .unwrap_or_default();
            let code = code.map_or_else(|| "no code".to_owned(), |c| c.to_string());
            lines.push(format!("terminal {id} exited ({code}): {output}"));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }

    fn text(block: &v2::ContentBlock) -> String {
        match block {
            v2::ContentBlock::Text(t) => t.text.clone(),
            _ => "[non-text content]".to_owned(),
        }
    }

    fn texts(blocks: Option<&Vec<v2::ContentBlock>>) -> String {
        blocks.into_iter().flatten().map(text).collect()
    }

    fn contents(items: &[v2::ToolCallContent]) -> String {
        let shown = items.iter().map(|c| match c {
            v2::ToolCallContent::Content(c) => text(&c.content),
            v2::ToolCallContent::Diff(d) => {
                let paths = d
                    .changes
                    .iter()
                    .flat_map(|c| c.path.as_ref().map(ToString::to_string));
                format!("[diff of {}]", paths.collect::<Vec<_>>().join(", "))
            }
            v2::ToolCallContent::Terminal(t) => format!("[terminal {}]", t.terminal_id),
            _ => "[other content]".to_owned(),
        });
        shown.collect::<Vec<_>>().join(" ")
    }
}
