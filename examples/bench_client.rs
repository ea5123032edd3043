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
//! [`Peer::request`]; the ordering contract means a prompt's answer arrives only after its
//! updates were handled. It relies on nothing but the wire protocol, so it can measure other
//! implementations' agents too. Exit status 0 when every check passed.
//!
//! It runs on tokio's current-thread runtime, which measured faster than the multi-thread one
//! for this single connection (set `ACP_BENCH_RUNTIME=multi` to compare).

// The report line goes to stdout, problems to stderr: this is a command-line program.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use acp_examples::bench::{self, ChunkCheck, ClientArgs, ProcStats, Report, Scenario};
use acp_rpc::{Config, Router, connect};
use acp_types::methods::{
    Initialize, SessionNew, SessionPrompt, SessionRequestPermission, SessionUpdate,
};
use acp_types::{
    ClientCapabilities, ContentBlock, FileSystemCapabilities, InitializeRequest, NewSessionRequest,
    PermissionOptionKind, PromptRequest, RequestPermissionOutcome, RequestPermissionResponse,
    SessionId, SessionNotification, StopReason,
};
use futures::future::join_all;

fn main() -> ExitCode {
    let started = Instant::now();
    let args = match ClientArgs::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(problem) => {
            eprintln!("bench_client: {problem}\n{}", bench::CLIENT_USAGE);
            return ExitCode::from(2);
        }
    };
    let runtime = match std::env::var("ACP_BENCH_RUNTIME").as_deref() {
        Ok("multi") => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    }
    .enable_io()
    .build()
    .expect("a tokio runtime");
    match runtime.block_on(run(&args, started)) {
        Ok(mut report) => {
            report.total = started.elapsed();
            println!("{report}");
            if report.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("bench_client: {error}");
            ExitCode::FAILURE
        }
    }
}

/// What the client's handlers see, checked as it arrives.
#[derive(Debug, Default)]
struct Seen {
    /// The sessions created, with the check of their chunks.
    sessions: Mutex<Vec<(SessionId, ChunkCheck)>>,
    notifications: AtomicU64,
    round_trips: AtomicU64,
    /// Problems outside any one session's chunks.
    problems: Mutex<Vec<String>>,
}

impl Seen {
    fn problem(&self, problem: String) {
        let mut problems = self.problems.lock().unwrap();
        if problems.len() < 10 {
            problems.push(problem);
        }
    }

    fn on_update(&self, update: &SessionNotification) {
        self.notifications.fetch_add(1, Ordering::Relaxed);
        let mut sessions = self.sessions.lock().unwrap();
        let Some((_, check)) = sessions.iter_mut().find(|(id, _)| *id == update.session_id) else {
            drop(sessions);
            return self.problem(format!("update for unknown session {}", update.session_id));
        };
        match &update.update {
            acp_types::SessionUpdate::AgentMessageChunk(chunk) => match &chunk.content {
                ContentBlock::Text(text) => check.check(&text.text),
                other => check.problem = Some(format!("chunk is not text: {other:?}")),
            },
            other => check.problem = Some(format!("unexpected update {other:?}")),
        }
    }
}

fn client(seen: Arc<Seen>) -> Router {
    let updates = seen.clone();
    Router::new()
        .notification::<SessionUpdate, _, _>(move |update| {
            updates.on_update(&update);
            async {}
        })
        .request::<SessionRequestPermission, _, _>(move |req| {
            let allow = req
                .options
                .iter()
                .find(|option| option.kind == PermissionOptionKind::AllowOnce)
                .map(|option| option.option_id.clone());
            seen.round_trips.fetch_add(1, Ordering::Relaxed);
            async move {
                let allow = allow.ok_or_else(|| {
                    acp_types::ErrorObject::invalid_params("no allow_once option")
                })?;
                Ok(RequestPermissionResponse::new(
                    RequestPermissionOutcome::selected(allow),
                ))
            }
        })
}

async fn run(args: &ClientArgs, started: Instant) -> Result<Report, Box<dyn std::error::Error>> {
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
        seen.sessions
            .lock()
            .unwrap()
            .push((session.session_id, ChunkCheck::default()));
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

    let mut latencies = Vec::new();
    let mut agent_percentiles = None;
    for (k, answer) in answers.into_iter().enumerate() {
        match answer {
            Ok(answer) if answer.stop_reason == StopReason::EndTurn => {
                let figures = answer.meta.as_ref().and_then(|meta| meta.get("bench"));
                if let Some(list) = figures.and_then(|f| f["lat_us"].as_array()) {
                    latencies.extend(list.iter().filter_map(serde_json::Value::as_u64));
                } else if let Some(f) = figures {
                    agent_percentiles = f["p50_us"].as_u64().zip(f["p99_us"].as_u64());
                }
            }
            Ok(answer) => {
                eprintln!(
                    "bench_client: session {k} ended with {:?}",
                    answer.stop_reason
                );
                ok = false;
            }
            Err(error) => {
                eprintln!("bench_client: the prompt of session {k} failed: {error}");
                ok = false;
            }
        }
    }
    latencies.sort_unstable();
    let latency = if scenario.command().requests() == 0 {
        None
    } else if latencies.is_empty() {
        agent_percentiles
    } else {
        Some((
            bench::percentile(&latencies, 50.0),
            bench::percentile(&latencies, 99.0),
        ))
    };

    let expected_chunks = command.chunks();
    for (id, check) in seen.sessions.lock().unwrap().iter() {
        if let Some(problem) = &check.problem {
            eprintln!("bench_client: {id}: {problem}");
            ok = false;
        } else if check.next != expected_chunks {
            eprintln!(
                "bench_client: {id}: {} chunks, {expected_chunks} expected",
                check.next
            );
            ok = false;
        }
    }
    for problem in seen.problems.lock().unwrap().iter() {
        eprintln!("bench_client: {problem}");
        ok = false;
    }
    let notifications = seen.notifications.load(Ordering::Relaxed);
    let round_trips = seen.round_trips.load(Ordering::Relaxed);
    let expected_round_trips = command.requests() * scenario.sessions();
    if round_trips != expected_round_trips {
        eprintln!(
            "bench_client: {round_trips} permission requests, {expected_round_trips} expected"
        );
        ok = false;
    }
    if matches!(scenario, Scenario::S2 { .. } | Scenario::S3 { .. }) && latency.is_none() {
        eprintln!("bench_client: the agent reported no latency figures");
    }
    Ok(Report {
        scenario: scenario.name(),
        ok,
        elapsed,
        notifications,
        round_trips,
        agent: agent_stats,
        client: client_stats,
        total: started.elapsed(),
        latency,
    })
}
