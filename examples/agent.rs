//! The example ACP agent: a small, deterministic, offline "coding agent" on stdio.
//!
//! It serves [`acp_examples::demo_agent::DemoAgent`] with [`acp_agent::serve_stdio`]. Its
//! behaviour is driven by the prompt's text (`agent --help` lists the commands); together the
//! commands exercise the whole agent side of the protocol. Try it under the example client:
//!
//! ```text
//! cargo build --release --examples
//! target/release/examples/client --prompt "edit notes.txt" --yes -- target/release/examples/agent
//! ```

// A command-line program: `--help` goes to stdout (before any protocol traffic) and usage
// errors to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;

use acp_agent::{AgentOptions, FramingMode, serve, serve_stdio};
use acp_examples::demo_agent::{COMMANDS_HELP, DemoAgent};
use acp_examples::wire_log::{self, Tap};

const USAGE: &str = "\
An example ACP agent on stdin/stdout: deterministic, offline, driven by the prompt's text.

Usage: agent [--framing ndjson|content-length|auto]

Options:
  --framing MODE  How messages are framed on stdio: `ndjson` (the default, as the spec says),
                  `content-length` (LSP-style headers) or `auto` (detect from the client's
                  first bytes and answer in kind).
  -h, --help      Show this help.
  -V, --version   Show the version.

Run it under an ACP client, e.g. `client -- agent` (the example client).

Prompt commands:
";

struct Args {
    framing: FramingMode,
    wire_log: Option<PathBuf>,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut args = Args {
        framing: FramingMode::Ndjson,
        wire_log: None,
    };
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        let mut value = |name: &str| argv.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}{COMMANDS_HELP}");
                return Ok(None);
            }
            "-V" | "--version" => {
                println!("agent (acp-examples) {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--framing" => {
                let mode = value("--framing")?;
                args.framing = mode
                    .parse()
                    .map_err(|_| format!("unknown framing `{mode}`"))?;
            }
            // Hidden, for tests: record the raw traffic to PREFIX.recv and PREFIX.sent.
            "--wire-log" => args.wire_log = Some(value("--wire-log")?.into()),
            other => return Err(format!("unexpected argument `{other}` (see --help)")),
        }
    }
    Ok(Some(args))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("agent: {message}");
            return ExitCode::from(2);
        }
    };
    let options = AgentOptions::default().framing(args.framing);
    let driver = match args.wire_log {
        None => serve_stdio(DemoAgent::new, options).1,
        // The same as `serve_stdio`, with the stdio pipes tapped.
        Some(prefix) => match wire_log::open(&prefix) {
            Ok((recv, sent)) => {
                let stdin = Tap::new(tokio::io::stdin(), recv);
                let stdout = Tap::new(tokio::io::stdout(), sent);
                serve(DemoAgent::new, stdin, stdout, options).1
            }
            Err(error) => {
                eprintln!("agent: cannot create the wire log: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    match driver.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("agent: the connection failed: {error}");
            ExitCode::FAILURE
        }
    }
}
