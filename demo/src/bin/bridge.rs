//! The ACP bridge: serves any stdio agent program over Streamable HTTP and WebSocket.
//!
//! `bridge --listen ADDR -- CMD ARGS...` serves `http://ADDR/acp` and `ws://ADDR/acp` with
//! [`acp_http::server::AcpServer::bridge`]: every connection gets its own `CMD ARGS...`
//! process (in a process group of its own), whose stdio messages are relayed as they are; the
//! process is stopped when its connection ends, and every process when the bridge gets SIGINT
//! or SIGTERM. It takes the server flags of `agent --listen` (origins, hosts, token, TLS). Try
//! it with the demo agent:
//!
//! ```text
//! cargo build --release --bin agent --bin client --bin bridge
//! target/release/bridge --listen 127.0.0.1:8123 -- target/release/agent &
//! target/release/client --url http://127.0.0.1:8123/acp --prompt help
//! ```

// A command-line program: messages go to stderr.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;

use acp_client::{FramingMode, Stderr};
use acp_demo::cli;
use acp_demo::demo_agent::listen::{self, ListenArgs};
use acp_http::server::{AcpServer, BridgeOptions};
use clap::{CommandFactory as _, Parser};

const ABOUT: &str = "\
Serves a stdio ACP agent program over Streamable HTTP and WebSocket: every connection gets its
own process of the program, stopped (with the process group it started) when the connection
ends.";

const AFTER_HELP: &str = "\
The program's stderr is the bridge's. Example:
  bridge --listen 127.0.0.1:8123 -- agent
  client --url ws://127.0.0.1:8123/acp --prompt help";

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "bridge",
    version = concat!("(acp-demo) ", env!("CARGO_PKG_VERSION")),
    about = ABOUT,
    override_usage = "bridge --listen ADDR [OPTIONS] -- AGENT_COMMAND [ARGS...]",
    after_help = AFTER_HELP,
)]
struct Args {
    /// How the program frames messages on its stdio: `ndjson` (the default, as
    /// the spec says), `content-length` or `auto`.
    #[arg(long, value_name = "MODE", default_value_t = FramingMode::Ndjson, verbatim_doc_comment)]
    framing: FramingMode,
    /// Hidden, for tests: every message relayed, one per line, to PREFIX.recv (to the
    /// program) and PREFIX.sent (to the clients).
    #[arg(long, value_name = "PREFIX", hide = true)]
    wire_log: Option<std::path::PathBuf>,
    #[command(flatten)]
    listen: ListenArgs,
    /// The agent program and its arguments, after `--`.
    #[arg(
        last = true,
        required = true,
        value_name = "AGENT_COMMAND",
        verbatim_doc_comment
    )]
    program: Vec<String>,
}

impl Args {
    /// Parses the command line; prints the help, the version or a usage error (exit code 2)
    /// and exits when that is what it holds.
    fn parse_or_exit() -> Self {
        let check = |args: &Self| match args.listen.check() {
            Ok(()) if args.listen.addr.is_none() => Err("--listen ADDR is required".to_owned()),
            other => other,
        };
        cli::parse(Self::command(), std::env::args_os(), check).unwrap_or_else(|e| e.exit())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    acp_demo::init_tracing();
    let args = Args::parse_or_exit();
    let mut options = match args.listen.server_options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("bridge: {error}");
            return ExitCode::from(2);
        }
    };
    if let Some(prefix) = &args.wire_log {
        match listen::wire_tap(prefix) {
            Ok(observer) => options.observer = Some(observer),
            Err(error) => {
                eprintln!("bridge: cannot create the wire log: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let Some((program, program_args)) = args.program.split_first() else {
        eprintln!("bridge: no agent command after `--`");
        return ExitCode::from(2);
    };
    let (program, program_args) = (program.clone(), program_args.to_vec());
    let server = AcpServer::bridge(
        move || {
            let mut command = tokio::process::Command::new(&program);
            command.args(&program_args);
            command
        },
        options,
        BridgeOptions::default()
            .framing(args.framing)
            .stderr(Stderr::Inherit),
    );
    let listener = match listen::bind("bridge", &args.listen).await {
        Ok(listener) => listener,
        Err(message) => {
            eprintln!("bridge: {message}");
            return ExitCode::from(2);
        }
    };
    ExitCode::from(listen::serve_until_signal("bridge", listener, server).await)
}
