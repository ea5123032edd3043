//! The relay of `acp check client` (what its `{agent}` becomes), as an example so that the
//! tests of this package can run the client check without the `acp` binary:
//! `acp_relay SOCKET` connects to the checker's socket and relays stdio to it.

// A command-line program: usage errors go to stderr.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(socket) = std::env::args_os().nth(1) else {
        eprintln!("usage: acp_relay SOCKET");
        return ExitCode::from(2);
    };
    match acp_cli::check_client::relay(std::path::Path::new(&socket)).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("acp_relay: {e}");
            ExitCode::FAILURE
        }
    }
}
