//! The demo programs of the workspace (not published): a full-featured ACP agent, client and
//! bridge, run by the README's first command (`cargo run --bin client`).
//!
//! The `agent`, `client` and `bridge` programs (`src/bin/`) only read their command line; the
//! logic lives here, so that tests can drive it in process:
//!
//! - [`demo_agent`]: the deterministic, offline coding agent of the `agent` program, and the
//!   `--listen` server ([`demo_agent::listen`]) of `agent` and `bridge`.
//! - [`demo_client`]: the terminal editor stand-in of the `client` program.
//! - [`cli`]: what the programs' command lines share.
//! - [`wire_log`]: a reader/writer wrapper recording a transport's raw bytes, for tests and
//!   debugging.
//!
//! Every program calls [`init_tracing`] first, so that what the libraries log (a peer refused, a
//! connection closed after an error, a stalled reader) reaches stderr.
//!
//! ```
//! use acp_demo::demo_client;
//!
//! // The command line of `client --prompt help --yes -- agent --framing auto`.
//! let argv = ["client", "--prompt", "help", "--yes", "--", "agent", "--framing", "auto"];
//! let options = demo_client::parse(argv)?;
//! assert_eq!(options.steps, ["help"]);
//! assert_eq!(options.allow(), Some(true));
//! let (program, args) = options.agent_command().expect("an agent command");
//! assert_eq!((program.as_str(), args), ("agent", &["--framing".into(), "auto".into()][..]));
//!
//! // `--token` is for a remote agent: a usage error that says so.
//! let error = demo_client::parse(["client", "--token", "t"]).unwrap_err();
//! assert!(error.to_string().contains("--token needs --url"));
//! # Ok::<(), clap::Error>(())
//! ```

pub mod cli;
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

/// Sends the `tracing` events of the libraries and of the program to stderr, filtered by
/// `RUST_LOG`: the examples' setup, shared (see [`acp_examples::init_tracing`]).
pub use acp_examples::init_tracing;
