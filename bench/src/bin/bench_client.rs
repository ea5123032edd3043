//! The benchmark client of `BENCH.md` (scenarios S1-S3), built on `acp-rpc`: it spawns any
//! stdio ACP agent that follows `BENCH.md`, drives one scenario, checks every message, and
//! prints one JSON line of figures.
//!
//! ```text
//! bench_client s1 [N] | s2 [M] | s3 [SESSIONS N M] -- AGENT_COMMAND [ARGS...]
//! ```
//!
//! It shows the client side of the library: a [`Router`] that handles `session/update`
//! notifications and answers `session/request_permission`, and typed calls with
//! [`Peer::request`](acp_rpc::Peer::request); the ordering contract means a prompt's answer
//! arrives only after its updates were handled. It relies on nothing but the wire protocol, so it can measure other
//! implementations' agents too. Exit status 0 when every check passed.
//!
//! It runs on tokio's current-thread runtime, which measured faster than the multi-thread one
//! for this single connection (set `ACP_BENCH_RUNTIME=multi` to compare).

// The report line goes to stdout, problems to stderr: this is a command-line program.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::Instant;

use acp_bench::scenarios::{self, ClientArgs, ProcStats, Report, Seen};
use acp_rpc::{Config, Router, connect};
use acp_types::methods::{
    Initialize, SessionNew, SessionPrompt, SessionRequestPermission, SessionUpdate,
};
use acp_types::{
    ClientCapabilities, ContentBlock, FileSystemCapabilities, InitializeRequest, NewSessionRequest,
    PromptRequest,
};
use futures::future::join_all;

fn main() -> ExitCode {
    scenarios::client_main("bench_client", |args, started| async move {
        run(&args, started).await
    })
}

fn client(seen: Arc<Seen>) -> Router {
    let updates = seen.clone();
    Router::new()
        .notification::<SessionUpdate, _, _>(move |update| {
            updates.on_update(&update);
            async {}
        })
        .request::<SessionRequestPermission, _, _>(move |req| {
            let answer = seen.on_permission(&req);
            async move { answer }
        })
}

async fn run(args: &ClientArgs, started: Instant) -> Result<Report, Box<dyn std::error::Error>> {
    args.require_v1("bench_client")?;
    let scenario = args.scenario;
    let mut child = tokio::process::Command::new(&args.agent[0])
        .args(&args.agent[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("spawning {:?}: {e}", args.agent[0]))?;
    let pid = child.id();
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let seen = Arc::new(Seen::default());
    let (agent, driver) = connect(
        |_agent| client(seen.clone()),
        stdout,
        stdin,
        Config::default(),
    );
    let driver = tokio::spawn(driver);

    // Handshake: initialize, then the sessions one after the other.
    let capabilities = ClientCapabilities::new()
        .fs(FileSystemCapabilities::new()
            .read_text_file(false)
            .write_text_file(false))
        .terminal(false);
    let init = agent
        .request::<Initialize>(&InitializeRequest::new(1).client_capabilities(capabilities))
        .await?;
    let mut ok = init.protocol_version.0 == 1;
    let mut ids = Vec::new();
    for _ in 0..scenario.sessions() {
        let session = agent
            .request::<SessionNew>(&NewSessionRequest::new("/tmp", vec![]))
            .await?;
        ids.push(session.session_id.clone());
        seen.add_session(session.session_id);
    }

    // t0: every prompt at once; t1: every answer in hand, so every update handled.
    let command = scenario.command();
    let text = command.to_string();
    let prompts: Vec<PromptRequest> = ids
        .iter()
        .map(|id| PromptRequest::new(id.clone(), vec![ContentBlock::from(text.as_str())]))
        .collect();
    let t0 = Instant::now();
    let answers = join_all(
        prompts
            .iter()
            .map(|prompt| agent.request::<SessionPrompt>(prompt)),
    )
    .await;
    let elapsed = t0.elapsed();

    let agent_stats = ProcStats::read(pid).unwrap_or_default();
    let client_stats = ProcStats::read(None).unwrap_or_default();

    // Close the agent's stdin (by dropping our end of the connection) and wait for it to exit.
    driver.abort();
    let _ = driver.await;
    let status = child.wait().await?;
    if !status.success() {
        eprintln!("bench_client: the agent exited with {status}");
        ok = false;
    }

    let answers = answers
        .into_iter()
        .map(|answer| answer.map_err(|e| e.to_string()))
        .collect();
    let checked = seen.finish("bench_client", scenario, answers);
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
