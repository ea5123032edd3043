//! Support code shared by the example programs of the workspace (not published).
//!
//! Every example program calls [`init_tracing`] first, so that what the libraries log (a peer
//! refused, a connection closed after an error, a stalled reader) reaches stderr.

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
