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

/// The log filter when `RUST_LOG` is unset or empty: warnings and errors only, so that the
/// programs' own stderr (and the tests reading it) is not flooded.
pub const DEFAULT_LOG_FILTER: &str = "warn";

/// Sends the `tracing` events of the libraries and of the program to stderr, one line each,
/// filtered by `RUST_LOG` (e.g. `RUST_LOG=acp_http=debug,info`; [`DEFAULT_LOG_FILTER`] when it
/// is unset). Colours only when stderr is a terminal. A `RUST_LOG` that does not parse is
/// reported on stderr and the default used instead; a second call does nothing.
pub fn init_tracing() {
    use std::io::IsTerminal as _;
    use tracing_subscriber::EnvFilter;

    let default = || EnvFilter::new(DEFAULT_LOG_FILTER);
    let filter = match std::env::var("RUST_LOG") {
        Ok(text) if !text.trim().is_empty() => EnvFilter::try_new(&text).unwrap_or_else(|error| {
            report_bad_filter(&format!("`{text}`: {error}"));
            default()
        }),
        Ok(_) | Err(std::env::VarError::NotPresent) => default(),
        Err(std::env::VarError::NotUnicode(_)) => {
            report_bad_filter("not UTF-8");
            default()
        }
    };
    // Already set (a second call): keep the first.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        // A stderr that went away (its terminal closed) must not turn a log line into a panic:
        // the subscriber would report the failed write with `eprintln!`.
        .log_internal_errors(false)
        .try_init();
}

#[allow(clippy::print_stderr)] // Before any subscriber exists: stderr is the log.
fn report_bad_filter(why: &str) {
    eprintln!("ignoring RUST_LOG ({why}); logging with `{DEFAULT_LOG_FILTER}`");
}
