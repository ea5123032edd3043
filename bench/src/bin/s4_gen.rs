//! Writes S4 benchmark traffic (deterministic NDJSON ACP messages) to a file.
//!
//! Usage: `s4_gen [OUT] [--bytes N] [--seed S]`; defaults `s4.ndjson`, 100,000,000 bytes, seed 1.

// The summary goes to stdout and usage errors to stderr: this is a command-line tool, not a library.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut out = String::from("s4.ndjson");
    let mut bytes: usize = 100_000_000;
    let mut seed: u64 = 1;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let parsed = match arg.as_str() {
            "--bytes" => args.next().and_then(|v| v.parse().ok()).map(|v| bytes = v),
            "--seed" => args.next().and_then(|v| v.parse().ok()).map(|v| seed = v),
            _ if !arg.starts_with('-') => {
                out = arg;
                Some(())
            }
            _ => None,
        };
        if parsed.is_none() {
            eprintln!("usage: s4_gen [OUT] [--bytes N] [--seed S]");
            return ExitCode::FAILURE;
        }
    }
    let traffic = acp_bench::s4::traffic(seed, bytes);
    if let Err(e) = std::fs::write(&out, &traffic.bytes) {
        eprintln!("s4_gen: writing {out}: {e}");
        return ExitCode::FAILURE;
    }
    println!(
        "{}",
        serde_json::json!({
            "file": out,
            "seed": seed,
            "bytes": traffic.bytes.len(),
            "lines": traffic.lines.len(),
        })
    );
    ExitCode::SUCCESS
}
