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
//! ```text
//! cargo run -p acp-examples --example toolkit_client -- target/debug/examples/toolkit_agent
//! ```

use std::path::{Path, PathBuf};

use acp_agent::{
    Agent, AgentOptions, Cancelled, ClientHandle, Modes, Permission, PromptContext, SessionStore,
    ToolOutput, async_trait, permission_options, serve_stdio,
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

    // 1. Read the file through the client (it sees unsaved editor buffers).
    plan.start(0).await?;
    let read = cx
        .new_tool_call(format!("Read {name}"), ToolKind::Read)
        .name("read_file")
        .locations(vec![ToolCallLocation::new(&path)])
        .raw_input(json!({ "path": path }));
    let read = cx.start_tool_call(read).await?;
    read.in_progress().await?;
    let old = match cx.read_text_file(&path).await {
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
    cx.write_text_file(&path, new.as_str()).await?;
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
    let terminal = cx
        .new_terminal("grep")
        .args(["-c", "TODO", name])
        .cwd(cwd)
        .output_byte_limit(4096)
        .await?;
    check.terminal(&terminal).await?;
    let exit = terminal.wait_for_exit().await?;
    let left = format!("{} TODO(s) left.", terminal.output().await?.output.trim());
    terminal.release().await?;
    // `grep -c` prints the count, and exits with 1 when it found none: what we want.
    if exit.exit_code == Some(1) {
        check.completed_with(left).await?;
    } else {
        check.failed_with(left).await?;
    }
    plan.complete(2).await?;
    cx.message(format!("Done: {todos} TODO(s) now DONE."))
        .await?;

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
