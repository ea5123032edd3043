//! The cost of one S1 notification line (BENCH.md), decoded the ways a client can decode it,
//! in nanoseconds per line: the `IgnoredAny` floor, the envelope scan `RawMessage::parse`, that
//! scan plus the params decoded from their raw slice (what `acp-rpc`'s driver does), and the
//! single-pass `AgentMessage::decode`.
//!
//! Usage: `s1_line [ITERATIONS]` (default 2,000,000). Prints one JSON line per variant.
//!
//! The S1 "physical limit" pair spends the whole of a notification's budget (about 85-100 ns
//! on the reference machine) on reading and checking bytes; these figures show how much of
//! that budget parsing the same line with serde_json takes before any RPC work.

// Results go to stdout and errors to stderr: this is a benchmark program, not a library.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use acp_bench::report::Floor;
use acp_types::{AgentMessage, AgentNotificationParams, DecodeError, RawMessage};

/// The canonical S1 line of BENCH.md (without its newline).
const LINE: &[u8] = br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-0","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"0000000000 The quick brown fox jumps over the lazy dog. Lorem ip"}}}}"#;

/// Runs `f` once per iteration after a warm-up pass and prints the mean time per line.
fn measure<T>(
    name: &str,
    iterations: u32,
    f: impl Fn(&[u8]) -> Result<T, String>,
) -> Result<(), String> {
    for _ in 0..iterations / 10 {
        black_box(f(black_box(LINE))?);
    }
    let start = Instant::now();
    for _ in 0..iterations {
        black_box(f(black_box(LINE))?);
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / f64::from(iterations);
    println!(
        "{}",
        serde_json::json!({
            "scenario": "s1_line",
            "variant": name,
            "bytes": LINE.len() + 1,
            "iterations": iterations,
            "ns_per_line": (ns * 10.0).round() / 10.0,
        })
    );
    Ok(())
}

fn text(e: DecodeError) -> String {
    e.to_string()
}

fn run(iterations: u32) -> Result<(), String> {
    measure("ignored_any_floor", iterations, |l| {
        serde_json::from_slice::<Floor>(l).map_err(|e| e.to_string())
    })?;
    measure("raw_message_parse", iterations, |l| {
        RawMessage::parse(l)
            .map(|m| m.params.is_some())
            .map_err(text)
    })?;
    measure("raw_message_then_params", iterations, |l| {
        RawMessage::parse(l)
            .and_then(|m| m.decode_params::<AgentNotificationParams>())
            .map_err(text)
    })?;
    measure("agent_message_decode", iterations, |l| {
        AgentMessage::decode(l, |_| None::<&str>).map_err(text)
    })
}

fn main() -> ExitCode {
    let iterations = match std::env::args().nth(1).map(|a| a.parse::<u32>()) {
        None => Ok(2_000_000),
        Some(Ok(n)) if n > 0 => Ok(n),
        Some(_) => Err("usage: s1_line [ITERATIONS]".to_owned()),
    };
    match iterations.and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("s1_line: {e}");
            ExitCode::FAILURE
        }
    }
}
