//! Support code shared by the example programs of the workspace (not published).
//!
//! - [`bench`](mod@bench): what the benchmark agents and clients of `BENCH.md` (scenarios S1-S3) share: the
//!   prompt commands, the chunk texts, latency summaries, `/proc` figures and the report line.
//! - [`demo_agent`]: the example coding agent served by the `agent` example.
//! - [`demo_client`]: the terminal editor stand-in of the `client` example.
//! - [`wire_log`]: a tap recording a transport's raw bytes, for tests and debugging.

pub mod bench;
pub mod demo_agent;
pub mod demo_client;
pub mod wire_log;

/// Prints `text` and a newline on stdout for `--help` and `--version`. A closed stdout (`agent
/// --help | head -1`) is not an error: unlike `println!`, this does not panic then.
pub fn print_text(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    // Nothing to do about a reader that went away.
    let _ = writeln!(out, "{text}").and_then(|()| out.flush());
}
