//! A coding agent's turn, written on the `acp-agent` toolkit (the goal program of issue 12).
//!
//! Asked to "fix the TODOs in FILE", one turn publishes a plan, streams a thought and
//! messages, reads FILE through the client as a `read` tool call, proposes the edit as an
//! `edit` tool call with a diff, asks permission (in the `ask` mode; `code` edits at once),
//! writes the file through the client, runs a check in a client terminal embedded in an
//! `execute` tool call, finishes each call with text (and the diff), and updates the plan as
//! it goes. Each tool call carries its tool's programmatic `name`; a client that advertised
//! `session.notices` gets a notice when the file is written, and one that advertised
//! `session.compaction` sees the turn's context compacted into a summary at the end.
//! `session/cancel` stops the turn at whatever it awaits; `session/load` replays the
//! session's history first. The library refuses a relative `cwd` before it gets here.
//!
//! Built with the feature `unstable_protocol_v2` it serves v2 clients too. v2 has no client
//! file system or terminals, so on a v2 connection the agent reads and writes the file itself
//! and runs the check itself, shown in a display terminal of the `execute` tool call; its
//! opening "Working on FILE…" message is replaced by the outcome when the turn ends.
//!
//! ```text
//! cargo run -p acp-examples --example toolkit_client -- target/debug/examples/toolkit_agent
//! ```

use std::path::{Path, PathBuf};

use acp_agent::{
    Agent, AgentOptions, Cancelled, ClientHandle, Modes, Permission, PromptContext, SessionStore,
    ToolCallHandle, ToolOutput, async_trait, permission_options, serve_stdio,
};
use acp_types::PlanEntryPriority::{High, Medium};
use acp_types::*;
use serde_json::json;

struct CodingAgent {
    client: ClientHandle,
    /// Each session's directory (the store keeps the history too).
    sessions: SessionStore<PathBuf>,
    modes: Modes,
}

#[async_trait]
impl Agent for CodingAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse> {
        let info = Implementation::new("toolkit-agent", env!("CARGO_PKG_VERSION"));
        Ok(InitializeResponse::new(ProtocolVersion::LATEST)
            .agent_capabilities(AgentCapabilities::new().load_session(true))
            .agent_info(info))
    }

    async fn new_session(&self, request: NewSessionRequest) -> Result<NewSessionResponse> {
        let id = self.sessions.create(request.cwd.into())?;
        let modes = self.modes.open(&id)?;
        Ok(NewSessionResponse::new(id).modes(modes))
    }

    async fn load_session(&self, request: LoadSessionRequest) -> Result<LoadSessionResponse> {
        // The history goes to the client first, then the answer.
        let (id, cwd) = (&request.session_id, PathBuf::from(&request.cwd));
        self.sessions.load(&self.client, id, |s| *s = cwd).await?;
        Ok(LoadSessionResponse::new().modes(self.modes.open(id)?))
    }

    async fn set_session_mode(&self, r: SetSessionModeRequest) -> Result<SetSessionModeResponse> {
        // An unknown mode is refused; the change is announced to the client.
        let mode = &r.mode_id;
        self.modes.set(&self.client, &r.session_id, mode).await?;
        Ok(SetSessionModeResponse::new())
    }

    async fn prompt(&self, request: PromptRequest, cx: PromptContext) -> Result<PromptResponse> {
        // One turn at a time in the session (-32600), -32002 for an unknown one.
        let id = &request.session_id;
        let _turn = self.sessions.begin_turn(id)?;
        let cwd = self.sessions.with(id, |s| s.clone())?;
        let ask = self.modes.current(id).is_none_or(|m| m.as_str() == "ask");
        let cx = self.sessions.recording(cx);
        cx.record_prompt(&request.prompt);
        let text = request.prompt.iter().filter_map(|b| b.as_text());
        let file = text
            .flat_map(str::split_whitespace)
            .find(|w| w.contains('.'));
        let Some(file) = file else {
            cx.message("Tell me which file to fix, e.g. `fix the TODOs in notes.txt`.")
                .await?;
            return Ok(PromptResponse::new(StopReason::EndTurn));
        };
        // The turn is dropped at whichever await it is when the client cancels: a terminal it
        // holds is released, and the client gets `stopReason: "cancelled"`.
        match cx.or_cancelled(fix(&cx, &cwd, file, ask)).await {
            Ok(done) => done,
            Err(Cancelled) => Ok(PromptResponse::new(StopReason::Cancelled)),
        }
    }
}

/// The turn: read, edit (with permission when `ask`), check, reporting each step.
async fn fix(cx: &PromptContext, cwd: &Path, name: &str, ask: bool) -> Result<PromptResponse> {
    let path = cwd.join(name);
    let end = |stop| Ok(PromptResponse::new(stop));
    let steps = [
        format!("Read {name}"),
        format!("Edit {name}"),
        "Check".into(),
    ];
    let plan = cx.plan(steps.into_iter().zip([High, High, Medium])).await?;
    cx.thought(format!("To fix {name} I read it first."))
        .await?;
    #[cfg(feature = "unstable_protocol_v2")]
    let status = v2::status(cx, name).await?;

    // 1. Read the file through the client (it sees unsaved editor buffers).
    plan.start(0).await?;
    let read = cx
        .new_tool_call(format!("Read {name}"), ToolKind::Read)
        .name("read_file")
        .locations(vec![ToolCallLocation::new(&path)])
        .raw_input(json!({ "path": path }));
    let read = cx.start_tool_call(read).await?;
    read.in_progress().await?;
    let old = match read_file(cx, &path).await {
        Ok(text) => text,
        Err(error) => {
            read.failed_with(format!("Cannot read it: {error}")).await?;
            return end(StopReason::EndTurn);
        }
    };
    let (lines, todos) = (old.lines().count(), old.matches("TODO").count());
    let counted = ToolOutput::new([format!("{lines} lines, {todos} TODO(s)")])
        .raw_output(json!({ "lines": lines, "todos": todos }));
    read.completed_with(counted).await?;
    plan.complete(0).await?;
    if todos == 0 {
        cx.message("No TODO: nothing to do.").await?;
        return end(StopReason::EndTurn);
    }

    // 2. Propose the edit as a diff and ask before writing.
    plan.start(1).await?;
    let new = old.replace("TODO", "DONE");
    let line = old.lines().position(|l| l.contains("TODO")).unwrap_or(0) + 1;
    let at = ToolCallLocation::new(&path).line(u32::try_from(line).unwrap_or(u32::MAX));
    let edit = cx
        .new_tool_call(format!("Edit {name}"), ToolKind::Edit)
        .name("edit_file")
        .locations(vec![at])
        .raw_input(json!({ "path": path, "replace": "TODO", "with": "DONE" }));
    let edit = cx.start_tool_call(edit).await?;
    edit.diff(&path, Some(&old), &new).await?;
    if ask {
        match edit.ask(permission_options::allow_reject()).await? {
            decision if decision.is_allowed() => {}
            Permission::Cancelled => return end(StopReason::Cancelled),
            _ => {
                edit.failed_with("Rejected by the user.").await?;
                cx.message(format!("OK, I left {name} as it was.")).await?;
                return end(StopReason::EndTurn);
            }
        }
    }
    edit.in_progress().await?;
    write_file(cx, &path, &new).await?;
    if cx.client_supports_notices() {
        cx.notice(NoticeSeverity::Info, format!("{name} was written"))
            .await?;
    }
    // The call ends showing the diff and what was done.
    edit.completed_with(format!("Replaced {todos} TODO(s)."))
        .await?;
    plan.complete(1).await?;

    // 3. Check in a client terminal, which the user watches live inside the tool call.
    plan.start(2).await?;
    let check = cx
        .new_tool_call("Check", ToolKind::Execute)
        .name("run_command");
    let check = cx.start_tool_call(check).await?;
    #[cfg(feature = "unstable_protocol_v2")]
    let (exit, output) = if cx.client().is_v2() {
        v2::check(&check, cwd, name).await?
    } else {
        client_check(cx, &check, cwd, name).await?
    };
    #[cfg(not(feature = "unstable_protocol_v2"))]
    let (exit, output) = client_check(cx, &check, cwd, name).await?;
    let left = format!("{} TODO(s) left.", output.trim());
    // `grep -c` prints the count, and exits with 1 when it found none: what we want.
    if exit == Some(1) {
        check.completed_with(left).await?;
    } else {
        check.failed_with(left).await?;
    }
    plan.complete(2).await?;
    let done = format!("Done: {todos} TODO(s) now DONE.");
    #[cfg(feature = "unstable_protocol_v2")]
    if let Some(status) = status {
        // v2: the status message becomes the outcome.
        status.replace([done.as_str()]).await?;
    } else {
        cx.message(done).await?;
    }
    #[cfg(not(feature = "unstable_protocol_v2"))]
    cx.message(done).await?;

    // 4. Compact the turn's context into a summary (dropped before it ends, `cancelled`).
    if cx.client_supports_compaction() {
        let compaction = cx.compaction().await?;
        compaction
            .summary_chunk(format!("Fixed {todos} TODO(s) in {name}; "))
            .await?;
        compaction.summary_chunk("the check passed.").await?;
        compaction.completed().await?;
    }
    end(StopReason::EndTurn)
}

/// Reads `path`: through the client on v1 (it sees unsaved editor buffers), itself on v2,
/// which has no client file system.
async fn read_file(cx: &PromptContext, path: &Path) -> std::result::Result<String, String> {
    #[cfg(feature = "unstable_protocol_v2")]
    if cx.client().is_v2() {
        return tokio::fs::read_to_string(path)
            .await
            .map_err(|e| e.to_string());
    }
    cx.read_text_file(path).await.map_err(|e| e.to_string())
}

/// Writes `path`: through the client on v1, itself on v2.
async fn write_file(cx: &PromptContext, path: &Path, text: &str) -> Result<()> {
    #[cfg(feature = "unstable_protocol_v2")]
    if cx.client().is_v2() {
        return tokio::fs::write(path, text)
            .await
            .map_err(|e| ErrorObject::internal_error(format_args!("cannot write it: {e}")));
    }
    Ok(cx.write_text_file(path, text).await?)
}

/// Runs `grep -c TODO name` in a client terminal the user watches live inside `check`: its
/// exit code and output.
async fn client_check(
    cx: &PromptContext,
    check: &ToolCallHandle,
    cwd: &Path,
    name: &str,
) -> Result<(Option<u32>, String)> {
    let terminal = cx
        .new_terminal("grep")
        .args(["-c", "TODO", name])
        .cwd(cwd)
        .output_byte_limit(4096)
        .await?;
    check.terminal(&terminal).await?;
    let exit = terminal.wait_for_exit().await?;
    let output = terminal.output().await?.output;
    terminal.release().await?;
    Ok((exit.exit_code, output))
}

/// What the turn does its own way on a v2 connection.
#[cfg(feature = "unstable_protocol_v2")]
mod v2 {
    use std::path::Path;

    use acp_agent::{MessageHandle, PromptContext, ToolCallHandle};
    use acp_types::v2::TerminalExitStatus;
    use acp_types::*;

    /// On v2, a "Working on…" message to replace with the outcome; `None` on v1.
    pub(crate) async fn status(cx: &PromptContext, name: &str) -> Result<Option<MessageHandle>> {
        if !cx.client().is_v2() {
            return Ok(None);
        }
        let status = cx.new_message();
        status.chunk(format!("Working on {name}\u{2026}")).await?;
        Ok(Some(status))
    }

    /// Runs `grep -c TODO name` here, shown in a display terminal of `check`: its exit code
    /// and output.
    pub(crate) async fn check(
        check: &ToolCallHandle,
        cwd: &Path,
        name: &str,
    ) -> Result<(Option<u32>, String)> {
        let terminal = check
            .display_terminal(format!("grep -c TODO {name}"))
            .cwd(cwd)
            .await?;
        let ran = tokio::process::Command::new("grep")
            .args(["-c", "TODO", name])
            .current_dir(cwd)
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .map_err(|e| ErrorObject::internal_error(format_args!("cannot run grep: {e}")))?;
        terminal.output(&ran.stdout).await?;
        terminal.output(&ran.stderr).await?;
        let code = ran.status.code();
        let mut exit = TerminalExitStatus::new();
        if let Some(code) = code {
            exit = exit.exit_code(i64::from(code));
        }
        terminal.exit(exit).await?;
        let output = String::from_utf8_lossy(&ran.stdout).into_owned();
        Ok((code.and_then(|c| u32::try_from(c).ok()), output))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::result::Result<(), acp_rpc::Error> {
    acp_examples::init_tracing();
    // One client on stdio: every session is its own.
    let sessions = SessionStore::new().owned_by("local");
    let modes = Modes::new([
        SessionMode::new("ask", "Ask before editing"),
        SessionMode::new("code", "Edit without asking"),
    ]);
    let make = move |client| CodingAgent {
        client,
        sessions,
        modes,
    };
    serve_stdio(make, AgentOptions::default()).1.await
}
