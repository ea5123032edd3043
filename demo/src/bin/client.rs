//! The example ACP client: a terminal stand-in for an editor.
//!
//! `cargo run --example client` alone runs a scripted demo session against the example agent
//! in this process. With `-- CMD ARGS` it drives any ACP agent on stdio, with `--url URL` any
//! remote one (`http://…/acp` for Streamable HTTP, `ws://…/acp` for WebSocket); `--prompt`, `--yes`/`--no`,
//! `--cancel-after`, `--mode` and `--json` script it, `--interactive` takes prompts from the
//! keyboard, `--timeout` bounds the waits for the agent, `--auth` signs in with one of the
//! agent's methods. SIGINT (Ctrl-C), SIGTERM or SIGHUP cancels the turn and closes the agent and
//! the commands it started; a second one kills them at once. Logs (`tracing`) go to stderr,
//! filtered by `RUST_LOG`.
//! `client --help` lists everything; the logic lives in [`acp_examples::demo_client`].

use std::process::ExitCode;

use acp_examples::demo_client::{self, Parsed, USAGE};

#[tokio::main]
async fn main() -> ExitCode {
    acp_examples::init_tracing();
    match demo_client::parse(std::env::args().skip(1)) {
        Ok(Parsed::Help) => {
            #[cfg(not(feature = "unstable"))]
            acp_examples::print_text(USAGE);
            #[cfg(feature = "unstable")]
            acp_examples::print_text(&format!("{USAGE}\n\n{}", demo_client::DRAFT_USAGE));
            ExitCode::SUCCESS
        }
        Ok(Parsed::Run(options)) => ExitCode::from(demo_client::run(*options).await),
        Err(message) => {
            #[allow(clippy::print_stderr)] // A usage error.
            {
                eprintln!("client: {message}");
            }
            ExitCode::from(2)
        }
    }
}
