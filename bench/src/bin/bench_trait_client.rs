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
//!
//! With `--protocol 2` (feature `unstable_protocol_v2`) it negotiates ACP v2 instead
//! (`acp_client::AgentHandle::negotiate`, failing when the agent answers 1), runs the same scenario with
//! the v2 calls, and checks the `agent_message_chunk` upserts (each with its `messageId`) as
//! the v1 chunks; a turn ends at its `idle` state update, whose `_meta` carries the agent's
//! figures as the v1 answer does.
//!
//! ```text
//! cargo build --release -p acp-bench --features unstable_protocol_v2
//! target/release/bench_trait_client --protocol 2 s1 -- target/release/bench_trait_agent
//! ```

// The report line goes to stdout, problems to stderr: this is a command-line program.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use acp_bench::scenarios::{self, ClientArgs, ProcStats, Report, Scenario, Seen};
use acp_client::{AgentHandle, Client, SpawnOptions, Stderr, async_trait, spawn};
use acp_types::{
    ClientCapabilities, ContentBlock, ErrorObject, FileSystemCapabilities, InitializeRequest,
    NewSessionRequest, PromptRequest, PromptResponse, RequestPermissionRequest,
    RequestPermissionResponse, SessionNotification,
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

    #[cfg(feature = "unstable_protocol_v2")]
    async fn request_permission_v2(
        &self,
        request: acp_types::v2::RequestPermissionRequest,
    ) -> Result<acp_types::v2::RequestPermissionResponse, ErrorObject> {
        self.seen.on_permission_v2(&request)
    }

    #[cfg(feature = "unstable_protocol_v2")]
    async fn session_notification_v2(
        &self,
        update: acp_types::v2::UpdateSessionNotification,
    ) -> Result<(), ErrorObject> {
        self.seen.on_update_v2(&update);
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

    let (mut ok, answers, elapsed) = match args.protocol {
        #[cfg(feature = "unstable_protocol_v2")]
        2 => v2::run(&agent, scenario, &seen).await?,
        1 => run_v1(&agent, scenario, &seen).await?,
        other => {
            return Err(format!(
                "protocol version {other}: this build speaks 1 only (build with the feature \
                 unstable_protocol_v2 for 2)"
            )
            .into());
        }
    };

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

/// Whether the handshake went as expected, each session's answer (in session order), and the
/// time from sending every prompt (t0) to having every answer in hand (t1).
type Turns = (bool, Vec<Result<PromptResponse, String>>, Duration);

/// The v1 handshake (initialize, then the sessions one after the other) and every prompt at
/// once; returns once every answer is in hand, so every update was handled.
async fn run_v1(
    agent: &AgentHandle,
    scenario: Scenario,
    seen: &Seen,
) -> Result<Turns, Box<dyn std::error::Error>> {
    let capabilities = ClientCapabilities::new()
        .fs(FileSystemCapabilities::new()
            .read_text_file(false)
            .write_text_file(false))
        .terminal(false);
    let init = agent
        .initialize(InitializeRequest::new(1).client_capabilities(capabilities))
        .await?;
    let ok = init.protocol_version.0 == 1;
    let mut ids = Vec::new();
    for _ in 0..scenario.sessions() {
        let session = agent
            .new_session(NewSessionRequest::new("/tmp", vec![]))
            .await?;
        ids.push(session.session_id.clone());
        seen.add_session(session.session_id);
    }

    let text = scenario.command().to_string();
    let prompts: Vec<PromptRequest> = ids
        .iter()
        .map(|id| PromptRequest::new(id.clone(), vec![ContentBlock::from(text.as_str())]))
        .collect();
    // t0: every prompt at once; t1: every answer in hand, so every update handled.
    let t0 = Instant::now();
    let answers = join_all(prompts.into_iter().map(|prompt| agent.prompt(prompt))).await;
    let elapsed = t0.elapsed();
    let answers = answers
        .into_iter()
        .map(|answer| answer.map_err(|e| e.to_string()))
        .collect();
    Ok((ok, answers, elapsed))
}

/// The scenarios on a v2 connection.
#[cfg(feature = "unstable_protocol_v2")]
mod v2 {
    use super::{Scenario, Seen, Turns};
    use acp_client::AgentHandle;
    use acp_types::{Implementation, InitializeRequest, PromptResponse, StopReason, v2};
    use futures::future::join_all;
    use std::time::Instant;

    /// The v2 handshake (negotiated: an agent that answers 1 fails the run), the sessions one
    /// after the other, then every prompt at once; a turn's answer is its `idle` state, read
    /// as the v1 answer (stop reason `end_turn` and the agent's `_meta`).
    pub(super) async fn run(
        agent: &AgentHandle,
        scenario: Scenario,
        seen: &Seen,
    ) -> Result<Turns, Box<dyn std::error::Error>> {
        let request =
            v2::InitializeRequest::new(2u16, Implementation::new("bench_trait_client", "1"));
        agent.negotiate(request, InitializeRequest::new(1)).await?;
        let handle = agent
            .v2()
            .ok_or("the agent answered protocol version 1 to a v2 initialize")?;
        let mut ids = Vec::new();
        for _ in 0..scenario.sessions() {
            let session = handle
                .new_session(v2::NewSessionRequest::new("/tmp"))
                .await?;
            ids.push(session.session_id.clone());
            seen.add_session(session.session_id);
        }

        let text = scenario.command().to_string();
        let prompts: Vec<v2::PromptRequest> = ids
            .iter()
            .map(|id| {
                let block = v2::ContentBlock::from(v2::TextContent::new(text.as_str()));
                v2::PromptRequest::new(id.clone(), vec![block])
            })
            .collect();
        // t0: every prompt at once; t1: every turn's `idle` handled, so every update before it.
        let t0 = Instant::now();
        let ends = join_all(prompts.into_iter().map(|prompt| handle.prompt(prompt))).await;
        let elapsed = t0.elapsed();
        let answers = ends
            .into_iter()
            .map(|end| match end {
                Ok(end) if end.stop_reason() == Some(&v2::StopReason::EndTurn) => {
                    let mut answer = PromptResponse::new(StopReason::EndTurn);
                    answer.meta = end.idle.meta;
                    Ok(answer)
                }
                Ok(end) => Err(format!("the turn stopped with {:?}", end.stop_reason())),
                Err(error) => Err(error.to_string()),
            })
            .collect();
        Ok((true, answers, elapsed))
    }
}
