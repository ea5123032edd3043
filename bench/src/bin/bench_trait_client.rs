//! The benchmark client of `BENCH.md` (scenarios S1-S3), built on the `acp-client` role crate:
//! the same command line, checks and JSON report line as `bench_client` (which uses `acp-rpc`
//! directly), written the natural way on the [`Client`] trait.
//!
//! ```text
//! bench_trait_client s1 [N] | s2 [M] | s3 [SESSIONS N M] -- AGENT_COMMAND [ARGS...]
//! ```
//!
//! [`Client::session_notification`] checks each update's order, [`Client::request_permission`]
//! answers with the `allow_once` option, and the agent is started with [`acp_client::spawn`]
//! and called through the typed methods of [`AgentHandle`]. Exit status 0 when every check
//! passed. Like `bench_client`, it runs on tokio's current-thread runtime
//! (`ACP_BENCH_RUNTIME=multi` for the multi-thread one).

// The report line goes to stdout, problems to stderr: this is a command-line program.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use acp_bench::scenarios::{self, ClientArgs, ProcStats, Report, Seen};
use acp_client::{AgentHandle, Client, SpawnOptions, Stderr, async_trait, spawn};
use acp_types::{
    ClientCapabilities, ContentBlock, ErrorObject, FileSystemCapabilities, InitializeRequest,
    NewSessionRequest, PromptRequest, RequestPermissionRequest, RequestPermissionResponse,
    SessionNotification,
};
use futures::future::join_all;

fn main() -> ExitCode {
    scenarios::client_main("bench_trait_client", |args, started| async move {
        run(&args, started).await
    })
}

/// The client: everything it receives goes to the shared checks.
struct BenchClient {
    seen: Arc<Seen>,
}

#[async_trait]
impl Client for BenchClient {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        self.seen.on_permission(&request)
    }

    async fn session_notification(&self, update: SessionNotification) -> Result<(), ErrorObject> {
        self.seen.on_update(&update);
        Ok(())
    }
}

async fn run(args: &ClientArgs, started: Instant) -> Result<Report, Box<dyn std::error::Error>> {
    let scenario = args.scenario;
    let mut command = tokio::process::Command::new(&args.agent[0]);
    command.args(&args.agent[1..]);
    let seen = Arc::new(Seen::default());
    let client = BenchClient { seen: seen.clone() };
    let spawned = spawn(
        command,
        |_agent: AgentHandle| client,
        SpawnOptions::default().stderr(Stderr::Inherit),
    )
    .map_err(|e| format!("spawning {:?}: {e}", args.agent[0]))?;
    let agent = spawned.agent;
    let mut process = spawned.process;
    let pid = process.id();
    let driver = tokio::spawn(spawned.driver);

    // Handshake: initialize, then the sessions one after the other.
    let capabilities = ClientCapabilities::new()
        .fs(FileSystemCapabilities::new()
            .read_text_file(false)
            .write_text_file(false))
        .terminal(false);
    let init = agent
        .initialize(InitializeRequest::new(1).client_capabilities(capabilities))
        .await?;
    let mut ok = init.protocol_version.0 == 1;
    let mut ids = Vec::new();
    for _ in 0..scenario.sessions() {
        let session = agent
            .new_session(NewSessionRequest::new("/tmp", vec![]))
            .await?;
        ids.push(session.session_id.clone());
        seen.add_session(session.session_id);
    }

    // t0: every prompt at once; t1: every answer in hand, so every update handled.
    let text = scenario.command().to_string();
    let prompts: Vec<PromptRequest> = ids
        .iter()
        .map(|id| PromptRequest::new(id.clone(), vec![ContentBlock::from(text.as_str())]))
        .collect();
    let t0 = Instant::now();
    let answers = join_all(prompts.into_iter().map(|prompt| agent.prompt(prompt))).await;
    let elapsed = t0.elapsed();

    let agent_stats = ProcStats::read(pid).unwrap_or_default();
    let client_stats = ProcStats::read(None).unwrap_or_default();

    // Close the agent's stdin (by dropping our end of the connection) and wait for it to exit.
    driver.abort();
    let _ = driver.await;
    drop(agent);
    let status = process.wait().await?;
    if !status.success() {
        eprintln!("bench_trait_client: the agent exited with {status}");
        ok = false;
    }

    let answers = answers
        .into_iter()
        .map(|answer| answer.map_err(|e| e.to_string()))
        .collect();
    let checked = seen.finish("bench_trait_client", scenario, answers);
    Ok(Report {
        scenario: scenario.name(),
        ok: ok && checked.ok,
        elapsed,
        notifications: checked.notifications,
        round_trips: checked.round_trips,
        agent: agent_stats,
        client: client_stats,
        total: started.elapsed(),
        latency: checked.latency,
    })
}
