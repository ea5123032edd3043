//! The demo ACP agent: a small, deterministic, offline "coding agent", on stdio or over the
//! network.
//!
//! It serves [`acp_demo::demo_agent::DemoAgent`] with [`acp_agent::serve_stdio`], or, with
//! `--listen ADDR`, over Streamable HTTP and WebSocket on `http://ADDR/acp` and `ws://ADDR/acp`
//! with [`acp_http::server::serve`] (an agent per connection, each seeing only the sessions
//! of its owner: the connection, or with `--token` the one user who holds the token, who can
//! reconnect and load one). Its behaviour is driven by the
//! prompt's text (`agent --help` lists the commands); together the commands exercise the whole
//! agent side of the protocol. Try it under the demo client:
//!
//! ```text
//! cargo build --release --bin agent --bin client
//! target/release/client --prompt "edit notes.txt" --yes -- target/release/agent
//! target/release/agent --listen 127.0.0.1:8123 &
//! target/release/client --url ws://127.0.0.1:8123/acp --prompt "edit notes.txt" --yes
//! ```

// A command-line program: usage errors go to stderr.
#![allow(clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;

use acp_agent::{AgentOptions, FramingMode, serve, serve_stdio};
use acp_demo::cli;
use acp_demo::demo_agent::listen::{self, ListenArgs};
use acp_demo::demo_agent::{COMMANDS_HELP, DemoAgent, Sessions};
use acp_demo::wire_log::{self, WireLog};
use acp_http::server::{AcpServer, Peer};
use clap::{CommandFactory as _, Parser};

const ABOUT: &str = "\
A demo ACP agent: deterministic, offline, driven by the prompt's text. It speaks on
stdin/stdout, or over HTTP and WebSocket with --listen.";

const USAGE: &str = "\
agent [--framing ndjson|content-length|auto] [--sessions PATH|postgres://...] [--max-protocol 1|2]
       agent --listen ADDR [--sessions PATH|postgres://...] [--allow-origin URL]... [--allow-host NAME]... [--token TOKEN]
             [--client-id-profile] [--connection-id-prefix PREFIX]
             [--tls-cert FILE --tls-key FILE]";

const AFTER_HELP: &str = "\
Logs (what the libraries report: refused requests, failed connections) go to stderr, filtered
by RUST_LOG (default `warn`; e.g. RUST_LOG=acp_http=debug).

Run it under an ACP client, e.g. `client -- agent` (the demo client), or serve it and
connect: `agent --listen 127.0.0.1:8123` and `client --url http://127.0.0.1:8123/acp`
(or ws://127.0.0.1:8123/acp). Over the network every connection gets an agent of its own, and
sees only its own sessions; with --token, the sessions of the token's holder (a client may
reconnect and :load one).

With --sessions the sessions are kept in a database and survive a restart: a SQLite file at
PATH, or the PostgreSQL database of a postgres:// URL (shared by several agents). Each is
kept for its owner: on stdio the local user, with --listen and --token the token's holder.
Without authentication the owner is the connection, which never comes back: its sessions are
removed when it closes, database or not.

Prompt commands:
";

/// The owner of the sessions of whoever presents `--token`'s token.
const TOKEN_USER: &str = "token";

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "agent",
    version = concat!("(acp-demo) ", env!("CARGO_PKG_VERSION")),
    about = ABOUT,
    override_usage = USAGE,
)]
struct Args {
    /// How messages are framed on stdio: `ndjson` (the default, as the spec
    /// says), `content-length` (LSP-style headers) or `auto` (detect from the
    /// client's first bytes and answer in kind). Not with --listen.
    #[arg(
        long,
        value_name = "MODE",
        conflicts_with = "addr",
        verbatim_doc_comment
    )]
    framing: Option<FramingMode>,
    /// Hidden, for tests: record the raw traffic to PREFIX.recv and PREFIX.sent (with
    /// --listen: every message of every connection, one per line).
    #[arg(long, value_name = "PREFIX", hide = true)]
    wire_log: Option<PathBuf>,
    /// Keep the sessions in a database, so that they survive a restart
    /// of the agent: a SQLite file at PATH (made when missing), or a
    /// PostgreSQL database for a postgres:// URL (agents sharing it serve
    /// the same sessions). Without it, sessions live in memory.
    #[arg(long, value_name = "PATH|URL", verbatim_doc_comment)]
    sessions: Option<String>,
    /// The highest ACP version to speak on stdio: 1, or 2 (the default in a
    /// build with `--features unstable_protocol_v2`, which serves v1 and v2
    /// clients alike). With 1 a client asking for v2 gets v1, as from an agent
    /// that predates v2.
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u16).range(1..=2), conflicts_with = "addr", verbatim_doc_comment)]
    max_protocol: Option<u16>,
    #[command(flatten)]
    listen: ListenArgs,
}

impl Args {
    /// Parses the command line; prints the help, the version or a usage error (exit code 2)
    /// and exits when that is what it holds.
    fn parse_or_exit() -> Self {
        #[cfg(not(feature = "unstable"))]
        let after_help = format!("{AFTER_HELP}{COMMANDS_HELP}");
        #[cfg(feature = "unstable")]
        let after_help = format!(
            "{AFTER_HELP}{COMMANDS_HELP}\n\n{}",
            acp_demo::demo_agent::DRAFT_COMMANDS_HELP
        );
        let command = Self::command().after_help(after_help);
        cli::parse(command, std::env::args_os(), |args: &Self| {
            if args.max_protocol == Some(2) && !cfg!(feature = "unstable_protocol_v2") {
                return Err(
                    "--max-protocol 2 needs the demo built with the ACP v2 draft: \
                            `--features unstable_protocol_v2`"
                        .into(),
                );
            }
            args.listen.check()
        })
        .unwrap_or_else(|e| e.exit())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    acp_demo::init_tracing();
    let args = Args::parse_or_exit();
    let sessions = match &args.sessions {
        Some(location) => match Sessions::open(location).await {
            Ok(sessions) => sessions,
            Err(error) => {
                eprintln!("agent: cannot open the sessions at {location}: {error}");
                return ExitCode::FAILURE;
            }
        },
        None => Sessions::default(),
    };
    if args.listen.addr.is_some() {
        let code = listen_mode(&args, sessions.clone()).await;
        return ExitCode::from(flushed(&sessions, code).await);
    }
    let options = AgentOptions::default().framing(args.framing.unwrap_or(FramingMode::Ndjson));
    #[cfg(feature = "unstable_protocol_v2")]
    let options = match args.max_protocol {
        Some(version) => options.max_protocol_version(acp_types::ProtocolVersion(version)),
        None => options,
    };
    let local = sessions.clone();
    let make = move |client| DemoAgent::local(client, &local);
    let driver = match args.wire_log {
        None => serve_stdio(make, options).1,
        // The same as `serve_stdio`, with the stdio pipes logged.
        Some(prefix) => match wire_log::open(&prefix) {
            Ok((recv, sent)) => {
                let stdin = WireLog::new(tokio::io::stdin(), recv);
                let stdout = WireLog::new(tokio::io::stdout(), sent);
                serve(make, stdin, stdout, options).1
            }
            Err(error) => {
                eprintln!("agent: cannot create the wire log: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    let code = match driver.await {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("agent: the connection failed: {error}");
            1
        }
    };
    ExitCode::from(flushed(&sessions, code).await)
}

/// `code`, once the last changes to the sessions are in their database (1 if they cannot be).
async fn flushed(sessions: &Sessions, code: u8) -> u8 {
    match sessions.flush().await {
        Ok(()) => code,
        Err(error) => {
            eprintln!(
                "agent: the last changes to the sessions are lost: {}",
                error.message
            );
            1
        }
    }
}

/// `--listen`: an agent per connection, each with the view of the sessions its connection owns,
/// until SIGINT or SIGTERM.
async fn listen_mode(args: &Args, sessions: Sessions) -> u8 {
    let mut options = match args.listen.server_options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("agent: {error}");
            return 2;
        }
    };
    if let Some(prefix) = &args.wire_log {
        match listen::wire_tap(prefix) {
            Ok(observer) => options.observer = Some(observer),
            Err(error) => {
                eprintln!("agent: cannot create the wire log: {error}");
                return 1;
            }
        }
    }
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
