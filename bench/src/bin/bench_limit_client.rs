//! The "physical limit" client of the benchmarks: the same scenarios and checks as
//! `bench_client`, through the same pipes, with a minimal hand-written loop and no RPC layer.
//!
//! ```text
//! bench_limit_client s1 [N] | s2 [M] | s3 [SESSIONS N M] -- AGENT_COMMAND [ARGS...]
//! ```
//!
//! One thread and blocking I/O. Messages in the canonical form of `BENCH.md` (what
//! `bench_limit_agent` and `bench_agent` write) take a fast path that checks them by byte
//! prefix, without parsing; anything else is parsed with `serde_json`, so other agents work too.
//! It prints the same JSON line as `bench_client`.

// The report line goes to stdout, problems to stderr: this is a command-line program.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{self, BufRead, BufReader, Write};
use std::process::{ChildStdin, ExitCode, Stdio};
use std::time::Instant;

use acp_bench::scenarios::{self, ChunkCheck, ClientArgs, ProcStats, Report};
use serde_json::{Value, json};

fn main() -> ExitCode {
    scenarios::blocking_client_main("bench_limit_client", |args, _| run(&args))
}

const UPDATE_HEAD: &[u8] = br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":""#;
const UPDATE_MID: &[u8] =
    br#"","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""#;
const REQUEST_HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
const PERMISSION_METHOD: &[u8] = br#","method":"session/request_permission","params":"#;
const ALLOW_OPTION: &[u8] = br#"{"optionId":"allow","name":"Allow","kind":"allow_once"}"#;

struct Client {
    to_agent: ChildStdin,
    sessions: Vec<(String, ChunkCheck)>,
    notifications: u64,
    round_trips: u64,
    problems: Vec<String>,
}

impl Client {
    fn problem(&mut self, problem: String) {
        if self.problems.len() < 10 {
            self.problems.push(problem);
        }
    }

    /// The fast path of a canonical chunk; false when the line is not one.
    fn canonical_chunk(&mut self, line: &[u8]) -> bool {
        let Some(rest) = line.strip_prefix(UPDATE_HEAD) else {
            return false;
        };
        let Some(end) = rest.iter().position(|&b| b == b'"') else {
            return false;
        };
        let (session, rest) = rest.split_at(end);
        let Some(text) = rest.strip_prefix(UPDATE_MID) else {
            return false;
        };
        let Some(text) = text
            .get(..scenarios::CHUNK_LEN)
            .and_then(|t| std::str::from_utf8(t).ok())
        else {
            return false;
        };
        self.notifications += 1;
        match self
            .sessions
            .iter_mut()
            .find(|(id, _)| id.as_bytes() == session)
        {
            Some((_, check)) => check.check(text),
            None => {
                let session = String::from_utf8_lossy(session).into_owned();
                self.problem(format!("update for unknown session {session}"));
            }
        }
        true
    }

    /// The fast path of a canonical permission request; false when the line is not one.
    fn canonical_permission(&mut self, line: &[u8]) -> io::Result<bool> {
        let Some(rest) = line.strip_prefix(REQUEST_HEAD) else {
            return Ok(false);
        };
        let Some(end) = rest.iter().position(|&b| b == b',') else {
            return Ok(false);
        };
        let (id, rest) = rest.split_at(end);
        if !rest.starts_with(PERMISSION_METHOD)
            || memchr::memmem::find(rest, ALLOW_OPTION).is_none()
        {
            return Ok(false);
        }
        self.answer(id, "allow")?;
        Ok(true)
    }

    fn answer(&mut self, id: &[u8], option: &str) -> io::Result<()> {
        let mut reply = Vec::with_capacity(128);
        reply.extend_from_slice(REQUEST_HEAD);
        reply.extend_from_slice(id);
        write!(
            reply,
            r#","result":{{"outcome":{{"outcome":"selected","optionId":"{option}"}}}}}}"#
        )?;
        reply.push(b'\n');
        self.round_trips += 1;
        // One write, one system call: the agent waits for this answer.
        self.to_agent.write_all(&reply)
    }

    /// Any other message, parsed. Returns a response, if it is one.
    fn other(&mut self, line: &[u8]) -> io::Result<Option<Value>> {
        let message: Value = match serde_json::from_slice(line) {
            Ok(message) => message,
            Err(e) => {
                self.problem(format!("unreadable message ({e})"));
                return Ok(None);
            }
        };
        match message["method"].as_str() {
            None => Ok(Some(message)),
            Some("session/update") => {
                self.notifications += 1;
                let params = &message["params"];
                let session = params["sessionId"].as_str().unwrap_or_default();
                let text = params["update"]["content"]["text"].as_str();
                let kind = params["update"]["sessionUpdate"].as_str();
                match self.sessions.iter_mut().find(|(id, _)| id == session) {
                    Some((_, check)) if kind == Some("agent_message_chunk") && text.is_some() => {
                        check.check(text.unwrap_or_default());
                    }
                    Some((_, check)) => check.problem = Some(format!("unexpected update {params}")),
                    None => self.problem(format!("update for unknown session {session}")),
                }
                Ok(None)
            }
            Some("session/request_permission") => {
                let allow = message["params"]["options"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|option| option["kind"] == "allow_once")
                    .and_then(|option| option["optionId"].as_str())
                    .map(str::to_owned);
                let id = message["id"].to_string();
                match allow {
                    Some(option) => self.answer(id.as_bytes(), &option)?,
                    None => self.problem("a permission request without allow_once".into()),
                }
                Ok(None)
            }
            Some(method) => {
                self.problem(format!("unexpected message {method}"));
                Ok(None)
            }
        }
    }
}

fn send(to: &mut ChildStdin, message: &Value) -> io::Result<()> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    to.write_all(&line)
}

/// Reads lines until the response with id `id`; nothing else is expected during the handshake.
fn expect_response(from: &mut impl BufRead, id: u64) -> io::Result<Value> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if from.read_until(b'\n', &mut line)? == 0 {
            return Err(io::Error::other("the agent closed its output"));
        }
        let message: Value = serde_json::from_slice(&line).map_err(io::Error::other)?;
        if message["id"] == id && message.get("method").is_none() {
            return Ok(message);
        }
    }
}

fn run(args: &ClientArgs) -> io::Result<Report> {
    args.require_v1("bench_limit_client")
        .map_err(io::Error::other)?;
    let scenario = args.scenario;
    let mut child = std::process::Command::new(&args.agent[0])
        .args(&args.agent[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let pid = child.id();
    let mut to_agent = child.stdin.take().expect("stdin is piped");
    let mut from_agent = BufReader::with_capacity(64 * 1024, child.stdout.take().expect("piped"));

    let capabilities =
        json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false});
    send(
        &mut to_agent,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": 1, "clientCapabilities": capabilities}}),
    )?;
    let init = expect_response(&mut from_agent, 0)?;
    let mut ok = init["result"]["protocolVersion"] == 1;
    let mut sessions = Vec::new();
    for k in 0..scenario.sessions() {
        send(
            &mut to_agent,
            &json!({"jsonrpc": "2.0", "id": k + 1, "method": "session/new",
                    "params": {"cwd": "/tmp", "mcpServers": []}}),
        )?;
        let created = expect_response(&mut from_agent, k + 1)?;
        let id = created["result"]["sessionId"].as_str().unwrap_or_default();
        sessions.push((id.to_owned(), ChunkCheck::default()));
    }
    let mut client = Client {
        to_agent,
        sessions,
        notifications: 0,
        round_trips: 0,
        problems: Vec::new(),
    };

    // t0: every prompt in one write.
    let command = scenario.command().to_string();
    let first_prompt = 1000;
    let mut prompts = Vec::new();
    for (k, (session, _)) in client.sessions.iter().enumerate() {
        let prompt = json!({"jsonrpc": "2.0", "id": first_prompt + k, "method": "session/prompt",
                            "params": {"sessionId": session, "prompt": [{"type": "text", "text": command}]}});
        serde_json::to_writer(&mut prompts, &prompt)?;
        prompts.push(b'\n');
    }
    let t0 = Instant::now();
    client.to_agent.write_all(&prompts)?;
    let mut answers = vec![None; client.sessions.len()];
    let mut open = answers.len();
    let mut line = Vec::with_capacity(1024);
    while open > 0 {
        line.clear();
        if from_agent.read_until(b'\n', &mut line)? == 0 {
            return Err(io::Error::other("the agent closed its output mid-turn"));
        }
        let trimmed = line.trim_ascii();
        if trimmed.is_empty()
            || client.canonical_chunk(trimmed)
            || client.canonical_permission(trimmed)?
        {
            continue;
        }
        if let Some(response) = client.other(trimmed)? {
            let k = response["id"]
                .as_u64()
                .and_then(|id| id.checked_sub(first_prompt as u64));
            match k.and_then(|k| answers.get_mut(k as usize)) {
                Some(slot @ None) => {
                    *slot = Some(response);
                    open -= 1;
                }
                _ => client.problem(format!("unexpected response {response}")),
            }
        }
    }
    let elapsed = t0.elapsed();
    let agent_stats = ProcStats::read(Some(pid)).unwrap_or_default();
    let client_stats = ProcStats::read(None).unwrap_or_default();

    // Close the agent's stdin and wait for it to exit.
    let Client {
        to_agent,
        sessions,
        notifications,
        round_trips,
        problems,
    } = client;
    drop(to_agent);
    let status = child.wait()?;
    if !status.success() {
        eprintln!("bench_limit_client: the agent exited with {status}");
        ok = false;
    }

    let mut latencies = Vec::new();
    let mut agent_percentiles = None;
    for (k, answer) in answers.iter().enumerate() {
        let result = &answer.as_ref().expect("every prompt was answered")["result"];
        if result["stopReason"] != "end_turn" {
            eprintln!("bench_limit_client: session {k} ended with {result}");
            ok = false;
        }
        let figures = &result["_meta"]["bench"];
        if let Some(list) = figures["lat_us"].as_array() {
            latencies.extend(list.iter().filter_map(Value::as_u64));
        } else {
            agent_percentiles = figures["p50_us"].as_u64().zip(figures["p99_us"].as_u64());
        }
    }
    latencies.sort_unstable();
    let latency = if scenario.command().requests() == 0 {
        None
    } else if latencies.is_empty() {
        agent_percentiles
    } else {
        Some((
            scenarios::percentile(&latencies, 50.0),
            scenarios::percentile(&latencies, 99.0),
        ))
    };
    let expected_chunks = scenario.command().chunks();
    for (id, check) in &sessions {
        if let Some(problem) = &check.problem {
            eprintln!("bench_limit_client: {id}: {problem}");
            ok = false;
        } else if check.next != expected_chunks {
            eprintln!(
                "bench_limit_client: {id}: {} chunks, {expected_chunks} expected",
                check.next
            );
            ok = false;
        }
    }
    for problem in &problems {
        eprintln!("bench_limit_client: {problem}");
        ok = false;
    }
    let expected_round_trips = scenario.command().requests() * scenario.sessions();
    if round_trips != expected_round_trips {
        eprintln!(
            "bench_limit_client: {round_trips} permission requests, {expected_round_trips} expected"
        );
        ok = false;
    }
    Ok(Report {
        scenario: scenario.name(),
        ok,
        elapsed,
        notifications,
        round_trips,
        agent: agent_stats,
        client: client_stats,
        total: Default::default(),
        latency,
    })
}
