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
//! ```text
//! toolkit_client [--workdir DIR] [--file NAME] [--mode ID] [--reject | --cancel] [--wire-log PREFIX] AGENT [ARGS...]
//! ```

// A command-line program: it reports on stdout and stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;
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
    wire_log: Option<PathBuf>,
    agent: Vec<String>,
}

const USAGE: &str = "usage: toolkit_client [--workdir DIR] [--file NAME] [--mode ID] [--reject | --cancel] [--wire-log PREFIX] AGENT [ARGS...]";

fn parse_args() -> std::result::Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        workdir: ".".into(),
        file: "notes.txt".into(),
        mode: None,
        answer: Answer::Allow,
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
    let make = move |agent| local.serve(Editor { agent, answer });
    let spawn_options = SpawnOptions::default()
        .client(options)
        .stderr(Stderr::Inherit);
    let mut spawned = acp_client::spawn(command, make, spawn_options)?;
    let driver = tokio::spawn(spawned.driver);
    let agent = spawned.agent;

    let client_info = Implementation::new("toolkit-client", env!("CARGO_PKG_VERSION"));
    let init = InitializeRequest::new(ProtocolVersion::LATEST)
        .client_capabilities(capabilities)
        .client_info(client_info);
    let info = agent.initialize(init).await?.agent_info;
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
    drop(agent);
    let stopped = spawned.process.shutdown(Duration::from_secs(5)).await?;
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
