//! The ACP bridge: serves any stdio agent program over Streamable HTTP and WebSocket.
//!
//! `bridge --listen ADDR -- CMD ARGS...` serves `http://ADDR/acp` and `ws://ADDR/acp` with
//! [`acp_http::server::AcpServer::bridge`]: every connection gets its own `CMD ARGS...`
//! process (in a process group of its own), whose stdio messages are relayed as they are; the
//! process is stopped when its connection ends, and every process when the bridge gets SIGINT
//! or SIGTERM. Try it with the example agent:
//!
//! ```text
//! cargo build --release --examples
//! target/release/examples/bridge --listen 127.0.0.1:8123 -- target/release/examples/agent &
//! target/release/examples/client --url http://127.0.0.1:8123/acp --prompt help
//! ```

// A command-line program: `--help` goes to stdout, messages to stderr.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;

use acp_client::{FramingMode, Stderr};
use acp_examples::demo_agent::listen::{self, LISTEN_HELP, ListenArgs};
use acp_http::server::{AcpServer, BridgeOptions};

const USAGE: &str = "\
Serves a stdio ACP agent program over Streamable HTTP and WebSocket: every connection gets its
own process of the program, stopped (with the process group it started) when the connection
ends.

Usage: bridge --listen ADDR [OPTIONS] -- AGENT_COMMAND [ARGS...]

Options:
  --framing MODE       How the program frames messages on its stdio: `ndjson` (the default, as
                       the spec says), `content-length` or `auto`.
";

const USAGE_END: &str = "
  -h, --help           Show this help.
  -V, --version        Show the version.

The program's stderr is the bridge's. Example:
  bridge --listen 127.0.0.1:8123 -- agent
  client --url ws://127.0.0.1:8123/acp --prompt help";

struct Args {
    listen: ListenArgs,
    framing: FramingMode,
    wire_log: Option<std::path::PathBuf>,
    program: String,
    program_args: Vec<String>,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut listen = ListenArgs::default();
    let mut framing = FramingMode::Ndjson;
    let mut wire_log = None;
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        if listen.take(&arg, &mut argv)? {
            continue;
        }
        let mut value = |name: &str| argv.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => {
                acp_examples::print_text(&format!("{USAGE}{LISTEN_HELP}{USAGE_END}"));
                return Ok(None);
            }
            "-V" | "--version" => {
                acp_examples::print_text(concat!(
                    "bridge (acp-examples) ",
                    env!("CARGO_PKG_VERSION")
                ));
                return Ok(None);
            }
            "--framing" => {
                let mode = value("--framing")?;
                framing = mode
                    .parse()
                    .map_err(|_| format!("unknown framing `{mode}`"))?;
            }
            // Hidden, for tests: every message relayed, one per line, to PREFIX.recv (to the
            // program) and PREFIX.sent (to the clients).
            "--wire-log" => wire_log = Some(value("--wire-log")?.into()),
            "--" => {
                let Some(program) = argv.next() else {
                    return Err("`--` must be followed by the agent command".into());
                };
                if listen.addr.is_none() {
                    return Err("--listen ADDR is required (see --help)".into());
                }
                return Ok(Some(Args {
                    listen,
                    framing,
                    wire_log,
                    program,
                    program_args: argv.collect(),
                }));
            }
            other => return Err(format!("unexpected argument `{other}` (see --help)")),
        }
    }
    Err("no agent command: `bridge --listen ADDR -- AGENT_COMMAND [ARGS...]`".into())
}

#[tokio::main]
async fn main() -> ExitCode {
    acp_examples::init_tracing();
    let args = match parse_args() {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bridge: {message}");
            return ExitCode::from(2);
        }
    };
    let mut options = match args.listen.server_options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("bridge: {error}");
            return ExitCode::from(2);
        }
    };
    if let Some(prefix) = &args.wire_log {
        match listen::wire_tap(prefix) {
            Ok(tap) => options = options.observe(tap),
            Err(error) => {
                eprintln!("bridge: cannot create the wire log: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let (program, program_args) = (args.program.clone(), args.program_args.clone());
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
