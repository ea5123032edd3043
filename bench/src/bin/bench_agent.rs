//! The benchmark agent of `BENCH.md` (scenarios S1-S3), built on `acp-rpc`: a stdio ACP agent
//! that answers `initialize` and `session/new`, and runs the prompt commands `stream N`,
//! `permission M` and `mixed N M`.
//!
//! It shows the library used the way an agent uses it: a [`Router`] of typed handlers, and a
//! prompt handler that streams with [`Peer::notify`] in a plain loop, awaiting each call, and
//! asks with [`Peer::request`]. Run it under `bench_client` (or any client of `BENCH.md`):
//!
//! ```text
//! cargo build --release -p acp-bench
//! target/release/bench_client s1 -- target/release/bench_agent
//! ```
//!
//! It runs on tokio's current-thread runtime, which measured faster than the multi-thread one
//! for this single connection (set `ACP_BENCH_RUNTIME=multi` to compare). `ACP_BENCH_BURST=BYTES`
//! sets `Config::max_burst_bytes` instead of its default.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use acp_bench::scenarios::{self, Command};
use acp_rpc::{Config, Peer, Router, connect};
use acp_types::methods::{
    Initialize, SessionNew, SessionPrompt, SessionRequestPermission, SessionUpdate,
};
use acp_types::{
    AgentCapabilities, ContentBlock, ContentChunk, ErrorObject, InitializeResponse,
    NewSessionResponse, PermissionOption, PermissionOptionKind, PromptRequest, PromptResponse,
    RequestPermissionOutcome, RequestPermissionRequest, SessionId, SessionNotification, StopReason,
    ToolCallStatus, ToolCallUpdate, ToolKind,
};

fn main() -> std::process::ExitCode {
    acp_bench::scenarios::agent_main("bench_agent", serve())
}

/// Serves one client on stdin/stdout until it closes stdin.
async fn serve() -> Result<(), acp_rpc::Error> {
    let sessions = Arc::new(AtomicU64::new(0));
    // Non-blocking pipes when stdin/stdout are pipes, as when a client spawns the agent.
    let (stdin, stdout) = acp_rpc::stdio();
    let (_client, driver) = connect(|client| agent(client, sessions), stdin, stdout, config());
    driver.await
}

/// The default [`Config`], but for `ACP_BENCH_BURST=BYTES`, which sets
/// [`Config::max_burst_bytes`] (to compare settings with one binary).
fn config() -> Config {
    let config = Config::default();
    match scenarios::burst_from_env() {
        Some(bytes) => config.max_burst_bytes(bytes),
        None => config,
    }
}

fn agent(client: Peer, sessions: Arc<AtomicU64>) -> Router {
    Router::new()
        .request::<Initialize, _, _>(|req| async move {
            Ok(InitializeResponse::new(req.protocol_version)
                .agent_capabilities(AgentCapabilities::new()))
        })
        .request::<SessionNew, _, _>(move |_req| {
            let k = sessions.fetch_add(1, Ordering::Relaxed);
            async move { Ok(NewSessionResponse::new(format!("sess-{k}"))) }
        })
        .request::<SessionPrompt, _, _>(move |req| {
            let client = client.clone();
            async move { prompt(&client, req).await }
        })
}

/// Runs the command of one prompt turn.
async fn prompt(client: &Peer, req: PromptRequest) -> Result<PromptResponse, ErrorObject> {
    let text = match req.prompt.first() {
        Some(ContentBlock::Text(text)) => text.text.as_str(),
        _ => {
            return Err(ErrorObject::invalid_params(
                "the prompt must be one text block",
            ));
        }
    };
    let command = Command::parse(text)
        .ok_or_else(|| ErrorObject::invalid_params(format_args!("unknown command {text:?}")))?;
    let session = req.session_id;
    let mut latencies = Vec::with_capacity(command.requests() as usize);
    match command {
        Command::Stream { chunks } => {
            for i in 0..chunks {
                send_chunk(client, &session, i).await?;
            }
        }
        Command::Permission { requests } => {
            for j in 0..requests {
                latencies.push(ask(client, &session, j).await?);
            }
        }
        Command::Mixed { chunks, .. } => {
            let mut j = 0;
            for i in 0..chunks {
                send_chunk(client, &session, i).await?;
                if command.asks_after_chunk(i) {
                    latencies.push(ask(client, &session, j).await?);
                    j += 1;
                }
            }
        }
    }
    let figures = scenarios::latency_meta(&latencies, matches!(command, Command::Mixed { .. }));
    let mut meta = acp_types::Meta::new();
    meta.insert("bench".into(), figures);
    Ok(PromptResponse::new(StopReason::EndTurn).meta(meta))
}

/// Sends chunk `i` of `session`.
async fn send_chunk(client: &Peer, session: &SessionId, i: u64) -> Result<(), ErrorObject> {
    let chunk = ContentChunk::new(scenarios::chunk_text(i));
    let update = SessionNotification::new(
        session.clone(),
        acp_types::SessionUpdate::AgentMessageChunk(chunk),
    );
    client
        .notify::<SessionUpdate>(&update)
        .await
        .map_err(|e| e.to_error_object())
}

/// Makes permission request `j` of `session`; returns its latency in microseconds.
async fn ask(client: &Peer, session: &SessionId, j: u64) -> Result<u64, ErrorObject> {
    let tool_call = ToolCallUpdate::new(format!("call-{j}"))
        .kind(ToolKind::Edit)
        .status(ToolCallStatus::Pending)
        .title(scenarios::PERMISSION_TITLE);
    let options = vec![
        PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
        PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
    ];
    let params = RequestPermissionRequest::new(session.clone(), tool_call, options);
    let start = Instant::now();
    let answer = client
        .request::<SessionRequestPermission>(&params)
        .await
        .map_err(|e| e.to_error_object())?;
    let latency = start.elapsed().as_micros() as u64;
    if answer.outcome != RequestPermissionOutcome::selected("allow") {
        return Err(ErrorObject::internal_error(format_args!(
            "permission {j}: unexpected outcome {:?}",
            answer.outcome
        )));
    }
    Ok(latency)
}
