//! The demo ACP client: a terminal stand-in for an editor.
//!
//! `cargo run --bin client` alone runs a scripted demo session against the demo agent
//! in this process. With `-- CMD ARGS` it drives any ACP agent on stdio, with `--url URL` any
//! remote one (`http://…/acp` for Streamable HTTP, `ws://…/acp` for WebSocket); `--prompt`, `--yes`/`--no`,
//! `--cancel-after`, `--mode` and `--json` script it, `--interactive` takes prompts from the
//! keyboard, `--timeout` bounds the waits for the agent, `--auth` signs in with one of the
//! agent's methods. SIGINT (Ctrl-C), SIGTERM or SIGHUP cancels the turn and closes the agent and
//! the commands it started; a second one kills them at once. Logs (`tracing`) go to stderr,
//! filtered by `RUST_LOG`.
//! `client --help` lists everything; the logic lives in [`acp_demo::demo_client`].

use std::process::ExitCode;

use acp_demo::demo_client;

#[tokio::main]
async fn main() -> ExitCode {
    acp_demo::init_tracing();
    // The help (on stdout, exit code 0) or a usage error (on stderr, exit code 2).
    let options = demo_client::parse(std::env::args_os()).unwrap_or_else(|e| e.exit());
    ExitCode::from(demo_client::run(options).await)
}
