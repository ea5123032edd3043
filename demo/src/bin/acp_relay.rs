//! The relay of `acp check client` (what its `{agent}` becomes), as a program of this package
//! so that its tests can run the client check on the demo client without the `acp` binary
//! (which only acp-cli's own tests get built): `acp_relay SOCKET` connects to the checker's
//! socket and relays stdio to it.

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
