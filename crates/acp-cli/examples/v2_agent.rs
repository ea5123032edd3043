//! An agent of the `acp-agent` library for the tests of `acp check agent --protocol 2`: it
//! speaks v1 and v2 (the library negotiates per connection), correct by default, with one
//! deliberate v2 defect chosen by `--defect NAME`.
//!
//! A prompt whose text is `slow` streams a message chunk every 50 ms for two seconds
//! (something to cancel); any other prompt publishes a plan, a thought, a tool call that asks
//! permission, and a message, and ends `end_turn`. Sessions are kept in a `SessionStore`, so
//! `session/resume` with `replayFrom` replays them; listing and closing are served.
//!
//! The defects rewrite what the library writes on a v2 connection, on its way to stdout:
//! `v1-tool-call` (the tool call is created with a version 1 `tool_call` update) and `no-idle`
//! (the `idle` state updates are dropped).

#![allow(clippy::print_stderr)] // Usage errors go to stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acp_agent::{
    Agent, AgentOptions, Cancelled, ClientHandle, PromptContext, SessionStore, async_trait,
    permission_options, serve,
};
use acp_types::*;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// What the agent gets wrong on purpose.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Defect {
    None,
    V1ToolCall,
    NoIdle,
}

struct TestAgent {
    client: ClientHandle,
    /// Each session's working directory (the store keeps the history too).
    sessions: SessionStore<PathBuf>,
}

#[async_trait]
impl Agent for TestAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse> {
        let sessions = SessionCapabilities::new()
            .list(SessionListCapabilities::new())
            .resume(SessionResumeCapabilities::new())
            .close(SessionCloseCapabilities::new());
        let capabilities = AgentCapabilities::new()
            .load_session(true)
            .session_capabilities(sessions);
        Ok(InitializeResponse::new(ProtocolVersion::LATEST)
            .agent_capabilities(capabilities)
            .agent_info(Implementation::new("v2-test-agent", "1.0.0")))
    }

    async fn new_session(&self, request: NewSessionRequest) -> Result<NewSessionResponse> {
        Ok(NewSessionResponse::new(
            self.sessions.create(request.cwd.into())?,
        ))
    }

    async fn load_session(&self, request: LoadSessionRequest) -> Result<LoadSessionResponse> {
        let cwd = PathBuf::from(&request.cwd);
        self.sessions
            .load(&self.client, &request.session_id, |s| *s = cwd)
            .await?;
        Ok(LoadSessionResponse::new())
    }

    async fn resume_session(&self, request: ResumeSessionRequest) -> Result<ResumeSessionResponse> {
        let cwd = PathBuf::from(&request.cwd);
        self.sessions.with(&request.session_id, |s| *s = cwd)?;
        Ok(ResumeSessionResponse::new())
    }

    async fn list_sessions(&self, request: ListSessionsRequest) -> Result<ListSessionsResponse> {
        self.sessions
            .list(request.cursor.as_deref(), 50, |id, cwd| {
                Some(SessionInfo::new(id.clone(), cwd))
            })
    }

    async fn close_session(&self, request: CloseSessionRequest) -> Result<CloseSessionResponse> {
        self.sessions
            .remove(&request.session_id)
            .ok_or_else(|| ErrorObject::resource_not_found(request.session_id.to_string()))?;
        Ok(CloseSessionResponse::new())
    }

    async fn prompt(&self, request: PromptRequest, cx: PromptContext) -> Result<PromptResponse> {
        let _turn = self.sessions.begin_turn(&request.session_id)?;
        let cx = self.sessions.recording(cx);
        cx.record_prompt(&request.prompt);
        let slow = request.prompt.iter().any(|b| b.as_text() == Some("slow"));
        let turn = async {
            if slow {
                for _ in 0..40 {
                    cx.message(".").await?;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                return Ok(PromptResponse::new(StopReason::EndTurn));
            }
            turn(&cx).await
        };
        match cx.or_cancelled(turn).await {
            Ok(done) => done,
            Err(Cancelled) => Ok(PromptResponse::new(StopReason::Cancelled)),
        }
    }
}

/// The ordinary turn: a plan, a thought, a tool call with permission, a message.
async fn turn(cx: &PromptContext) -> Result<PromptResponse> {
    let plan = cx.plan([("Look around", PlanEntryPriority::High)]).await?;
    plan.start(0).await?;
    cx.thought("Let me look around first.").await?;
    let call = cx.new_tool_call("Look around", ToolKind::Read);
    let call = cx.start_tool_call(call).await?;
    match call.ask(permission_options::allow_reject()).await? {
        decision if decision.is_allowed() => {
            call.in_progress().await?;
            call.completed_with("Nothing unusual.").await?;
        }
        acp_agent::Permission::Cancelled => return Ok(PromptResponse::new(StopReason::Cancelled)),
        _ => call.failed_with("Rejected.").await?,
    }
    plan.complete(0).await?;
    cx.message("Hello from the v2 test agent.").await?;
    Ok(PromptResponse::new(StopReason::EndTurn))
}

/// `line` as the defect makes it: `None` to drop it.
fn rewrite(defect: Defect, line: String) -> Option<String> {
    if defect == Defect::None {
        return Some(line);
    }
    let Ok(mut message) = serde_json::from_str::<Value>(&line) else {
        return Some(line);
    };
    let update = &mut message["params"]["update"];
    match defect {
        Defect::NoIdle
            if update["sessionUpdate"] == "state_update" && update["state"] == "idle" =>
        {
            None
        }
        Defect::V1ToolCall
            if update["sessionUpdate"] == "tool_call_update" && update.get("title").is_some() =>
        {
            update["sessionUpdate"] = Value::from("tool_call");
            Some(message.to_string())
        }
        _ => Some(line),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let defect = match std::env::args().nth(1).as_deref() {
        None => Defect::None,
        Some("--defect") => match std::env::args().nth(2).as_deref() {
            Some("v1-tool-call") => Defect::V1ToolCall,
            Some("no-idle") => Defect::NoIdle,
            other => {
                eprintln!("v2_agent: unknown defect {other:?}");
                return ExitCode::from(2);
            }
        },
        Some(other) => {
            eprintln!("v2_agent: unexpected argument {other}");
            return ExitCode::from(2);
        }
    };
    // The library writes into a pipe; the relay rewrites its lines onto stdout.
    let (library_out, relay_in) = tokio::io::duplex(1 << 16);
    let relay = tokio::spawn(async move {
        let mut lines = BufReader::new(relay_in).lines();
        let mut stdout = tokio::io::stdout();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(line) = rewrite(defect, line) {
                let written = async {
                    stdout.write_all(line.as_bytes()).await?;
                    stdout.write_all(b"\n").await?;
                    stdout.flush().await
                };
                if written.await.is_err() {
                    return;
                }
            }
        }
    });
    let (_client, driver) = serve(
        |client| TestAgent {
            client,
            sessions: SessionStore::new(),
        },
        tokio::io::stdin(),
        library_out,
        AgentOptions::default(),
    );
    let result = driver.await;
    let _ = relay.await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("v2_agent: connection failed: {error}");
            ExitCode::FAILURE
        }
    }
}
