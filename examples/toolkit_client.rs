//! An editor driving a coding agent, written on the `acp-client` toolkit (the goal program of
//! issue 12, the other side of `toolkit_agent`).
//!
//! It starts the agent, offers it the workspace's files and terminals, prompts it to fix the
//! TODOs of a file, answers its permission request, prints every update, loads the session
//! again (printing the replay), and closes the agent gracefully. With `--wire-log PREFIX` every
//! message goes, one JSON per line, to `PREFIX.recv` and `PREFIX.sent`.
//!
//! ```text
//! toolkit_client [--workdir DIR] [--file NAME] [--reject | --cancel] [--wire-log PREFIX] AGENT [ARGS...]
//! ```

// A command-line program: it reports on stdout and stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acp_client::{
    AgentHandle, Client, ClientOptions, Observer, SpawnOptions, Stderr, Terminals, Workspace,
    async_trait,
};
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

/// The editor: a workspace directory, the terminals it runs for the agent, and how it
/// answers.
struct Editor {
    agent: AgentHandle,
    workspace: Workspace,
    answer: Answer,
    terminals: Terminals,
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
                return Ok(RequestPermissionResponse::new(
                    RequestPermissionOutcome::cancelled(),
                ));
            }
        };
        let option = request.options.iter().find(|o| o.kind == wanted);
        let Some(option) = option else {
            return Err(ErrorObject::invalid_params(
                "no option of the kind to choose",
            ));
        };
        println!("permission: {title}? {}", option.name);
        let outcome = RequestPermissionOutcome::selected(option.option_id.clone());
        Ok(RequestPermissionResponse::new(outcome))
    }

    async fn session_notification(&self, notification: SessionNotification) -> Result<()> {
        println!("{}", describe(&notification.update));
        Ok(())
    }

    async fn read_text_file(&self, request: ReadTextFileRequest) -> Result<ReadTextFileResponse> {
        self.workspace.read(&request).await
    }

    async fn write_text_file(
        &self,
        request: WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse> {
        self.workspace.write(&request).await
    }

    async fn create_terminal(
        &self,
        request: CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse> {
        let cwd = match &request.cwd {
            Some(cwd) => self.workspace.resolve_existing(cwd)?,
            None => self.workspace.root().to_path_buf(),
        };
        self.terminals.create(&request, &cwd)
    }

    async fn terminal_output(
        &self,
        request: TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse> {
        self.terminals.output(&request)
    }

    async fn wait_for_terminal_exit(
        &self,
        request: WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse> {
        self.terminals.wait_for_exit(&request).await
    }

    async fn kill_terminal(&self, request: KillTerminalRequest) -> Result<KillTerminalResponse> {
        self.terminals.kill(&request)
    }

    async fn release_terminal(
        &self,
        request: ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse> {
        self.terminals.release(&request)
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
    let status =
        |s: &Option<ToolCallStatus>| s.as_ref().map_or("", ToolCallStatus::as_str).to_owned();
    match update {
        SessionUpdate::UserMessageChunk(c) => format!("user: {}", text(&c.content)),
        SessionUpdate::AgentMessageChunk(c) => format!("agent: {}", text(&c.content)),
        SessionUpdate::AgentThoughtChunk(c) => format!("thought: {}", text(&c.content)),
        SessionUpdate::ToolCall(call) => {
            format!(
                "tool {} started: {} {} {}",
                call.tool_call_id,
                call.title,
                status(&call.status),
                shown(&call.content)
            )
        }
        SessionUpdate::ToolCallUpdate(call) => {
            format!(
                "tool {} {} {}",
                call.tool_call_id,
                status(&call.status),
                shown(&call.content)
            )
        }
        SessionUpdate::Plan(plan) => {
            let entries = plan
                .entries
                .iter()
                .map(|e| format!("[{}] {}", e.status.as_str(), e.content));
            format!("plan: {}", entries.collect::<Vec<_>>().join(", "))
        }
        other => format!("update: {}", other.tag().unwrap_or("unknown")),
    }
}

/// The command line.
struct Args {
    workdir: PathBuf,
    file: String,
    answer: Answer,
    wire_log: Option<PathBuf>,
    agent: Vec<String>,
}

fn parse_args() -> std::result::Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let mut parsed = Args {
        workdir: cwd,
        file: "notes.txt".into(),
        answer: Answer::Allow,
        wire_log: None,
        agent: Vec::new(),
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--workdir" => parsed.workdir = value()?.into(),
            "--file" => parsed.file = value()?,
            "--wire-log" => parsed.wire_log = Some(value()?.into()),
            "--reject" => parsed.answer = Answer::Reject,
            "--cancel" => parsed.answer = Answer::Cancel,
            _ => {
                parsed.agent.push(arg);
                parsed.agent.extend(args.by_ref());
            }
        }
    }
    if parsed.agent.is_empty() {
        return Err("usage: toolkit_client [--workdir DIR] [--file NAME] [--reject | --cancel] [--wire-log PREFIX] AGENT [ARGS...]".into());
    }
    parsed.workdir = parsed
        .workdir
        .canonicalize()
        .map_err(|e| format!("--workdir: {e}"))?;
    Ok(parsed)
}

async fn run(args: Args) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut options = ClientOptions::default();
    if let Some(prefix) = &args.wire_log {
        let log = |ext: &str| std::fs::File::create(format!("{}.{ext}", prefix.display()));
        options.rpc.observer = Some(Observer::write_lines(log("recv")?, log("sent")?));
    }
    let mut command = Command::new(&args.agent[0]);
    command.args(&args.agent[1..]);
    let (workspace, answer) = (Workspace::new(&args.workdir)?, args.answer);
    let make = move |agent| Editor {
        agent,
        workspace,
        answer,
        terminals: Terminals::new(),
    };
    let spawn_options = SpawnOptions::default()
        .client(options)
        .stderr(Stderr::Inherit);
    let mut spawned = acp_client::spawn(command, make, spawn_options)?;
    let driver = tokio::spawn(spawned.driver);
    let agent = spawned.agent;

    let fs = FileSystemCapabilities::new()
        .read_text_file(true)
        .write_text_file(true);
    let capabilities = ClientCapabilities::new().fs(fs).terminal(true);
    let client_info = Implementation::new("toolkit-client", env!("CARGO_PKG_VERSION"));
    let init = InitializeRequest::new(ProtocolVersion::LATEST)
        .client_capabilities(capabilities)
        .client_info(client_info);
    let info = agent.initialize(init).await?.agent_info;
    println!("agent: {}", info.map_or("(unnamed)".into(), |i| i.name));

    let no_servers = Vec::<McpServer>::new();
    let session = agent
        .new_session(NewSessionRequest::new(&args.workdir, no_servers.clone()))
        .await?;
    let id = session.session_id;
    let prompt = format!("Please fix the TODOs in {}", args.file);
    let done = agent
        .prompt(PromptRequest::new(id.clone(), vec![prompt.into()]))
        .await?;
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

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    acp_examples::init_tracing();
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("toolkit_client: {message}");
            return ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("toolkit_client: {error}");
            ExitCode::FAILURE
        }
    }
}
