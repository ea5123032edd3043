//! `acp conduct`: run a chain of ACP proxies in front of an agent, as one agent on stdio (or,
//! with `--proxy`, as one proxy inside a larger chain). The work is `acp-conductor`'s; this is
//! its command line.

// A command: its messages go to stderr.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;
use std::time::Duration;

use acp_conductor::{Component, Conductor, Error, Mode};

/// The help text after the options.
pub const CONDUCT_AFTER_HELP: &str = "\
Each COMPONENT is one argument holding a whole command line, split into words as a shell
would (quotes, backslashes; no variables or globs). The last is the agent, the others are
proxies, in order:

  acp conduct -- \"context-proxy --line 'British spelling'\" policy-proxy \"my-agent --acp\"

Editors start it where they would start the agent. With --proxy every COMPONENT is a proxy
and the conductor is itself one, to nest inside another conductor's chain:

  acp conduct -- \"acp conduct --proxy -- proxy-a proxy-b\" my-agent

With one COMPONENT (no proxy) the editor's and the agent's bytes are relayed unchanged.
When a component exits, the open requests are answered with an error saying which one and
how, every process is stopped, and the exit status is 1. When stdin closes, every
component's input is closed; each gets --grace seconds to exit, then SIGTERM and as long
again, then SIGKILL. The components' stderr is the conductor's.

Over HTTP and WebSocket: `bridge --listen 127.0.0.1:8123 -- acp conduct -- …` (the demo's
bridge, or the acp-http bridge example) runs one chain per connection.";

/// The command line of `acp conduct`.
#[derive(Debug, clap::Args)]
pub struct ConductArgs {
    /// Run as a proxy (the outer conductor sends `proxy/initialize`): every COMPONENT is a
    /// proxy.
    #[arg(long)]
    pub proxy: bool,
    /// Seconds each component gets to exit when the chain stops, before SIGTERM and again
    /// before SIGKILL.
    #[arg(long, value_name = "SECS", default_value_t = 2.0)]
    pub grace: f64,
    /// The components (after `--`): proxies in order, then the agent; one argument each.
    #[arg(last = true, required = true, value_name = "COMPONENT")]
    pub components: Vec<String>,
}

/// Runs `acp conduct` on stdio; the exit code: 0 when the editor hung up, 1 when a component
/// ended the chain, 2 for a usage error or a component that cannot start.
pub async fn conduct(args: ConductArgs) -> ExitCode {
    let grace = match Duration::try_from_secs_f64(args.grace) {
        Ok(grace) if args.grace.is_finite() => grace,
        _ => return usage("--grace must be a number of seconds, 0 or more"),
    };
    let mut components = Vec::with_capacity(args.components.len());
    for command in &args.components {
        match Component::parse(command) {
            Ok(component) => components.push(component),
            Err(e) => return usage(&format!("component `{command}`: {e}")),
        }
    }
    let mode = if args.proxy { Mode::Proxy } else { Mode::Agent };
    let run = Conductor::new(mode, components).grace(grace).run_stdio();
    let ended = tokio::select! {
        ended = run => ended,
        signal = termination() => {
            // Dropping the run kills every component's process group.
            eprintln!("acp conduct: {signal}: stopping the chain");
            return ExitCode::from(1);
        }
    };
    match ended {
        Ok(()) => ExitCode::SUCCESS,
        Err(e @ (Error::Chain(_) | Error::Spawn { .. })) => usage(&e.to_string()),
        Err(e) => {
            eprintln!("acp conduct: {e}");
            ExitCode::from(1)
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("acp conduct: {message}");
    ExitCode::from(2)
}

/// Resolves with the name of the first of SIGINT, SIGTERM or SIGHUP received.
#[cfg(unix)]
async fn termination() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let wait = |kind: SignalKind, name: &'static str| async move {
        match signal(kind) {
            Ok(mut stream) => {
                stream.recv().await;
                name
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        name = wait(SignalKind::interrupt(), "SIGINT") => name,
        name = wait(SignalKind::terminate(), "SIGTERM") => name,
        name = wait(SignalKind::hangup(), "SIGHUP") => name,
    }
}

/// Resolves on ctrl-c.
#[cfg(not(unix))]
async fn termination() -> &'static str {
    let _ = tokio::signal::ctrl_c().await;
    "ctrl-c"
}
