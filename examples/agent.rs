//! The example ACP agent: a small, deterministic, offline "coding agent", on stdio or over the
//! network.
//!
//! It serves [`acp_examples::demo_agent::DemoAgent`] with [`acp_agent::serve_stdio`], or, with
//! `--listen ADDR`, over Streamable HTTP and WebSocket on `http://ADDR/acp` and `ws://ADDR/acp`
//! with [`acp_http::server::serve`] (an agent per connection, each seeing only the sessions
//! of its owner: the connection, or with `--token` the one user who holds the token, who can
//! reconnect and load one). Its behaviour is driven by the
//! prompt's text (`agent --help` lists the commands); together the commands exercise the whole
//! agent side of the protocol. Try it under the example client:
//!
//! ```text
//! cargo build --release --examples
//! target/release/examples/client --prompt "edit notes.txt" --yes -- target/release/examples/agent
//! target/release/examples/agent --listen 127.0.0.1:8123 &
//! target/release/examples/client --url ws://127.0.0.1:8123/acp --prompt "edit notes.txt" --yes
//! ```

// A command-line program: `--help` goes to stdout (before any protocol traffic) and usage
// errors to stderr.
#![allow(clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;

use acp_agent::{AgentOptions, FramingMode, serve, serve_stdio};
use acp_examples::demo_agent::listen::{self, LISTEN_HELP, ListenArgs};
use acp_examples::demo_agent::{COMMANDS_HELP, DemoAgent, Sessions};
use acp_examples::wire_log::{self, Tap};
use acp_http::server::{AcpServer, Peer};

const USAGE: &str = "\
An example ACP agent: deterministic, offline, driven by the prompt's text. It speaks on
stdin/stdout, or over HTTP and WebSocket with --listen.

Usage: agent [--framing ndjson|content-length|auto]
       agent --listen ADDR [--allow-origin URL]... [--allow-host NAME]... [--token TOKEN]
             [--client-id-profile]

Options:
  --framing MODE       How messages are framed on stdio: `ndjson` (the default, as the spec
                       says), `content-length` (LSP-style headers) or `auto` (detect from the
                       client's first bytes and answer in kind). Not with --listen.
";

const USAGE_END: &str = "
  -h, --help           Show this help.
  -V, --version        Show the version.

Logs (what the libraries report: refused requests, failed connections) go to stderr, filtered
by RUST_LOG (default `warn`; e.g. RUST_LOG=acp_http=debug).

Run it under an ACP client, e.g. `client -- agent` (the example client), or serve it and
connect: `agent --listen 127.0.0.1:8123` and `client --url http://127.0.0.1:8123/acp`
(or ws://127.0.0.1:8123/acp). Over the network every connection gets an agent of its own, and
sees only its own sessions; with --token, the sessions of the token's holder (a client may
reconnect and :load one).

Prompt commands:
";

/// The owner of the sessions of whoever presents `--token`'s token.
const TOKEN_USER: &str = "token";

struct Args {
    framing: Option<FramingMode>,
    wire_log: Option<PathBuf>,
    listen: ListenArgs,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut args = Args {
        framing: None,
        wire_log: None,
        listen: ListenArgs::default(),
    };
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        if args.listen.take(&arg, &mut argv)? {
            continue;
        }
        let mut value = |name: &str| argv.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => {
                #[cfg(not(feature = "unstable"))]
                acp_examples::print_text(&format!(
                    "{USAGE}{LISTEN_HELP}{USAGE_END}{COMMANDS_HELP}"
                ));
                #[cfg(feature = "unstable")]
                acp_examples::print_text(&format!(
                    "{USAGE}{LISTEN_HELP}{USAGE_END}{COMMANDS_HELP}\n\n{}",
                    acp_examples::demo_agent::DRAFT_COMMANDS_HELP
                ));
                return Ok(None);
            }
            "-V" | "--version" => {
                acp_examples::print_text(concat!(
                    "agent (acp-examples) ",
                    env!("CARGO_PKG_VERSION")
                ));
                return Ok(None);
            }
            "--framing" => {
                let mode = value("--framing")?;
                args.framing = Some(
                    mode.parse()
                        .map_err(|_| format!("unknown framing `{mode}`"))?,
                );
            }
            // Hidden, for tests: record the raw traffic to PREFIX.recv and PREFIX.sent (with
            // --listen: every message of every connection, one per line).
            "--wire-log" => args.wire_log = Some(value("--wire-log")?.into()),
            other => return Err(format!("unexpected argument `{other}` (see --help)")),
        }
    }
    args.listen.check()?;
    if args.listen.addr.is_some() && args.framing.is_some() {
        return Err(
            "--framing sets the framing of stdio; over HTTP and WebSocket every \
                    message is framed by the transport"
                .into(),
        );
    }
    Ok(Some(args))
}

#[tokio::main]
async fn main() -> ExitCode {
    acp_examples::init_tracing();
    let args = match parse_args() {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("agent: {message}");
            return ExitCode::from(2);
        }
    };
    if args.listen.addr.is_some() {
        return ExitCode::from(listen_mode(&args).await);
    }
    let options = AgentOptions::default().framing(args.framing.unwrap_or(FramingMode::Ndjson));
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

/// `--listen`: an agent per connection, each with the view of the sessions its connection owns,
/// until SIGINT or SIGTERM.
async fn listen_mode(args: &Args) -> u8 {
    let mut options = match args.listen.server_options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("agent: {error}");
            return 2;
        }
    };
    if let Some(prefix) = &args.wire_log {
        match listen::wire_tap(prefix) {
            Ok(tap) => options = options.observe(tap),
            Err(error) => {
                eprintln!("agent: cannot create the wire log: {error}");
                return 1;
            }
        }
    }
    let sessions = Sessions::default();
    // Each connection sees the sessions of its owner: the principal the authentication named,
    // or else the connection itself. `--token` names no principal, but whoever holds the one
    // token is the one user: their sessions follow them from connection to connection.
    let token_user = args.listen.token.is_some();
    let server = AcpServer::with_peer(
        move |client, peer: &Peer| {
            match &peer.principal {
                Some(_) => DemoAgent::with_sessions(client, sessions.owned_by(peer.owner())),
                None if token_user => {
                    DemoAgent::with_sessions(client, sessions.owned_by(TOKEN_USER))
                }
                // Nobody can reach the connection's sessions once it ends: they go with it.
                None => {
                    DemoAgent::with_connection_sessions(client, sessions.owned_by(peer.owner()))
                }
            }
        },
        options,
    );
    let listener = match listen::bind("agent", &args.listen).await {
        Ok(listener) => listener,
        Err(message) => {
            eprintln!("agent: {message}");
            return 2;
        }
    };
    listen::serve_until_signal("agent", listener, server).await
}
