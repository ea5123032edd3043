//! The "physical limit" agent of the benchmarks: the same bytes as `bench_agent`, through the
//! same pipes, written by a minimal hand-written loop with no RPC layer.
//!
//! One thread, blocking reads of stdin, writes batched in a 64 KiB buffer flushed after each
//! incoming line, messages formatted from byte templates. It speaks enough of `BENCH.md` that
//! any bench client can drive it, but it is no general ACP agent: it trusts the client to send
//! well-formed messages. It exists to put the RPC layer's figures in proportion:
//!
//! ```text
//! target/release/bench_limit_client s1 -- target/release/bench_limit_agent
//! target/release/bench_client s1 -- target/release/bench_agent
//! ```

use std::fs::File;
use std::io::{self, BufRead, BufWriter, Write};
use std::os::fd::AsFd;
use std::time::Instant;

use acp_bench::scenarios::{self, Command};
use serde_json::{Value, json};

fn main() -> std::process::ExitCode {
    match serve() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // Stdout is the transport: errors go to stderr.
            #[allow(clippy::print_stderr)]
            {
                eprintln!("bench_limit_agent: {error}");
            }
            std::process::ExitCode::FAILURE
        }
    }
}

fn serve() -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    // Stdout's own handle flushes at every newline; write through a plain buffer instead.
    let stdout = File::from(io::stdout().as_fd().try_clone_to_owned()?);
    let mut out = BufWriter::with_capacity(64 * 1024, stdout);
    let mut agent = Agent::default();
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        agent.on_line(&line, &mut out)?;
        out.flush()?;
    }
}

/// A running prompt turn.
struct Turn {
    /// The prompt request's id, as JSON text.
    prompt_id: String,
    session: String,
    command: Command,
    next_chunk: u64,
    next_request: u64,
    /// The permission request awaiting its answer: its id and when it was sent.
    waiting: Option<(u64, Instant)>,
    latencies: Vec<u64>,
    problem: Option<String>,
}

#[derive(Default)]
struct Agent {
    sessions: u64,
    turns: Vec<Turn>,
    next_id: u64,
}

const UPDATE_HEAD: &[u8] = br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":""#;
const UPDATE_MID: &[u8] =
    br#"","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""#;
const UPDATE_TAIL: &[u8] = b"\"}}}}\n";
const ASK_OPTIONS: &[u8] = br#"","kind":"edit","status":"pending","title":"Write src/main.rs"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}"#;

impl Agent {
    fn on_line(&mut self, line: &[u8], out: &mut impl Write) -> io::Result<()> {
        let line = line.trim_ascii();
        if line.is_empty() {
            return Ok(());
        }
        // Answers to our permission requests are the hot path of S2 and S3: no parsing.
        if memchr::memmem::find(line, br#""method""#).is_none() {
            return self.on_answer(line, out);
        }
        let message: Value = serde_json::from_slice(line).map_err(io::Error::other)?;
        let id = &message["id"];
        let params = &message["params"];
        let reply = |out: &mut dyn Write, result: Value| -> io::Result<()> {
            serde_json::to_writer(
                &mut *out,
                &json!({"jsonrpc": "2.0", "id": id, "result": result}),
            )?;
            out.write_all(b"\n")
        };
        match message["method"].as_str().unwrap_or_default() {
            "initialize" => reply(
                out,
                json!({"protocolVersion": params["protocolVersion"], "agentCapabilities": {}}),
            ),
            "session/new" => {
                let session = format!("sess-{}", self.sessions);
                self.sessions += 1;
                reply(out, json!({"sessionId": session}))
            }
            "session/prompt" => {
                let text = params["prompt"][0]["text"].as_str().unwrap_or_default();
                let Some(command) = Command::parse(text) else {
                    return reply(out, json!({"stopReason": "refusal"}));
                };
                self.turns.push(Turn {
                    prompt_id: id.to_string(),
                    session: params["sessionId"].as_str().unwrap_or_default().to_owned(),
                    command,
                    next_chunk: 0,
                    next_request: 0,
                    waiting: None,
                    latencies: Vec::with_capacity(command.requests() as usize),
                    problem: None,
                });
                self.run(self.turns.len() - 1, out)
            }
            _ if id.is_null() => Ok(()),
            method => {
                let error =
                    json!({"code": -32601, "message": format!("Method not found: {method}")});
                serde_json::to_writer(
                    &mut *out,
                    &json!({"jsonrpc": "2.0", "id": id, "error": error}),
                )?;
                out.write_all(b"\n")
            }
        }
    }

    fn on_answer(&mut self, line: &[u8], out: &mut impl Write) -> io::Result<()> {
        let id = memchr::memmem::find(line, br#""id":"#).and_then(|at| {
            let digits = &line[at + 5..];
            let end = digits.iter().position(|b| !b.is_ascii_digit())?;
            std::str::from_utf8(&digits[..end])
                .ok()?
                .parse::<u64>()
                .ok()
        });
        let Some(k) = self
            .turns
            .iter()
            .position(|turn| matches!((turn.waiting, id), (Some((w, _)), Some(id)) if w == id))
        else {
            return Ok(());
        };
        let turn = &mut self.turns[k];
        let (_, sent) = turn.waiting.take().expect("the turn was waiting");
        turn.latencies.push(sent.elapsed().as_micros() as u64);
        if memchr::memmem::find(line, br#""optionId":"allow""#).is_none() && turn.problem.is_none()
        {
            turn.problem = Some(format!(
                "unexpected answer {}",
                String::from_utf8_lossy(line)
            ));
        }
        self.run(k, out)
    }

    /// Runs turn `k` until it waits for an answer or ends.
    fn run(&mut self, k: usize, out: &mut impl Write) -> io::Result<()> {
        let turn = &mut self.turns[k];
        let command = turn.command;
        while turn.next_chunk < command.chunks() {
            let i = turn.next_chunk;
            turn.next_chunk += 1;
            write_chunk(out, &turn.session, i)?;
            if command.asks_after_chunk(i) {
                return ask(out, turn, &mut self.next_id);
            }
        }
        if matches!(command, Command::Permission { requests } if turn.next_request < requests) {
            return ask(out, turn, &mut self.next_id);
        }
        let turn = self.turns.swap_remove(k);
        let figures =
            scenarios::latency_meta(&turn.latencies, matches!(command, Command::Mixed { .. }));
        let result = match turn.problem {
            None => json!({"stopReason": "end_turn", "_meta": {"bench": figures}}),
            Some(problem) => json!({"stopReason": "refusal", "_meta": {"problem": problem}}),
        };
        write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{},"result":"#,
            turn.prompt_id
        )?;
        serde_json::to_writer(&mut *out, &result)?;
        out.write_all(b"}\n")
    }
}

fn write_chunk(out: &mut impl Write, session: &str, i: u64) -> io::Result<()> {
    let mut digits = [b'0'; 10];
    let mut n = i;
    for d in digits.iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    out.write_all(UPDATE_HEAD)?;
    out.write_all(session.as_bytes())?;
    out.write_all(UPDATE_MID)?;
    out.write_all(&digits)?;
    out.write_all(scenarios::CHUNK_TAIL.as_bytes())?;
    out.write_all(UPDATE_TAIL)
}

fn ask(out: &mut impl Write, turn: &mut Turn, next_id: &mut u64) -> io::Result<()> {
    let id = *next_id;
    *next_id += 1;
    let j = turn.next_request;
    turn.next_request += 1;
    turn.waiting = Some((id, Instant::now()));
    write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"session/request_permission","params":{{"sessionId":"{}","toolCall":{{"toolCallId":"call-{j}"#,
        turn.session
    )?;
    out.write_all(ASK_OPTIONS)?;
    out.write_all(b"\n")
}
