//! The bridge: serves any stdio ACP agent program over Streamable HTTP and WebSocket, with
//! [`AcpServer::bridge`]. Every connection gets a process of the program of its own (in a
//! process group of its own), whose messages are relayed as they are, without being decoded
//! into types; the process is stopped when its connection ends, and every process when the
//! bridge gets ctrl-c or SIGTERM.
//!
//! ```text
//! cargo build -p acp-examples --examples
//! target/debug/examples/bridge --listen 127.0.0.1:8124 -- target/debug/examples/toolkit_agent &
//! target/debug/examples/remote_client ws://127.0.0.1:8124/acp fix the TODOs in notes.txt
//! ```

// A command-line program: `--help` goes to stdout, where it listens and problems to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use acp_client::Stderr;
use acp_http::server::{AcpServer, BridgeOptions, ServerOptions, bind, serve};
use tokio::process::Command;

const USAGE: &str = "\
Serves a stdio ACP agent program over Streamable HTTP (http://ADDR/acp) and WebSocket
(ws://ADDR/acp): every connection gets its own process of the program, stopped (with the
process group it started) when the connection ends. The program's stderr is the bridge's.

Usage: bridge --listen ADDR -- AGENT_COMMAND [ARGS...]
       bridge --help | --version";

/// The address and the agent command of the command line; `None` when `--help` or
/// `--version` was answered.
fn parse_args() -> Result<Option<(String, Vec<String>)>, String> {
    let mut args = std::env::args().skip(1);
    let mut listen = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return print(USAGE),
            "-V" | "--version" => return print(concat!("bridge ", env!("CARGO_PKG_VERSION"))),
            "--listen" => listen = Some(args.next().ok_or("--listen needs an address")?),
            "--" => {
                let command: Vec<String> = args.collect();
                return match (listen, command.is_empty()) {
                    (Some(addr), false) => Ok(Some((addr, command))),
                    (None, _) => Err("--listen ADDR is required".into()),
                    (_, true) => Err("`--` must be followed by the agent command".into()),
                };
            }
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    Err("no agent command: `bridge --listen ADDR -- AGENT_COMMAND [ARGS...]`".into())
}

/// Prints `text` on stdout; a reader that went away (`bridge --help | head -1`) is no error.
fn print(text: &str) -> Result<Option<(String, Vec<String>)>, String> {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{text}");
    Ok(None)
}

/// Resolves on ctrl-c, or on SIGTERM (what service managers and `kill` send).
async fn stop_signal() {
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => drop(terminate.recv().await),
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    acp_examples::init_tracing();
    let (addr, command) = match parse_args() {
        Ok(Some(parsed)) => parsed,
        Ok(None) => return ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("bridge: {problem}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let listener = match bind(addr.as_str())
        .await
        .and_then(|l| Ok((l.local_addr()?, l)))
    {
        Ok((local, listener)) => {
            eprintln!("listening on http://{local}/acp and ws://{local}/acp");
            listener
        }
        Err(error) => {
            eprintln!("bridge: cannot listen on {addr}: {error}");
            return ExitCode::from(2);
        }
    };
    let program = move || {
        let mut program = Command::new(&command[0]);
        program.args(&command[1..]);
        program
    };
    let bridge = BridgeOptions::default().stderr(Stderr::Inherit);
    let server = AcpServer::bridge(program, ServerOptions::default(), bridge);
    // `serve` returns once every connection closed and every program stopped.
    match serve(listener, server, stop_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bridge: {error}");
            ExitCode::FAILURE
        }
    }
}
