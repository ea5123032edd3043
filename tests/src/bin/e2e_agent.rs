//! The scripted test agent on stdin/stdout, for the child-process tests.
//!
//! ```text
//! e2e_agent [--framing ndjson|content-length|auto] [--events FILE] [--bare] [--require-auth]
//!           [--max-protocol-version N]
//! ```
//!
//! `--events` appends each agent event to FILE, one `Debug` line each; `--bare` advertises no
//! capability; `--max-protocol-version 1` makes a v1-only agent of a build with
//! `unstable_protocol_v2` (`AgentOptions::max_protocol_version`). The crash script aborts the
//! process.

// A program, not a library: exiting (and, for the crash script, aborting) is how it ends.
#![allow(clippy::disallowed_methods)]

use std::io::Write as _;
use std::sync::{Arc, Mutex};

use acp_agent::{AgentOptions, FramingMode, serve_stdio};
use acp_e2e::{AgentConfig, AgentEvent, ScriptedAgent};

fn usage(problem: &str) -> ! {
    let _ = writeln!(
        std::io::stderr(),
        "e2e_agent: {problem}\nusage: e2e_agent [--framing ndjson|content-length|auto] \
         [--events FILE] [--bare] [--require-auth] [--max-protocol-version N]"
    );
    std::process::exit(2)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut framing = FramingMode::Ndjson;
    let mut max_version: Option<u16> = None;
    let mut config = AgentConfig::full();
    let mut events_file = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--framing" => {
                let value = args
                    .next()
                    .unwrap_or_else(|| usage("--framing needs a value"));
                framing = value.parse().unwrap_or_else(|_| usage("unknown framing"));
            }
            "--events" => {
                let path = args
                    .next()
                    .unwrap_or_else(|| usage("--events needs a file"));
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .unwrap_or_else(|e| usage(&format!("cannot open {path}: {e}")));
                events_file = Some(Arc::new(Mutex::new(file)));
            }
            "--bare" => {
                let events = config.events.clone();
                config = AgentConfig::bare();
                config.events = events;
            }
            "--require-auth" => config.require_auth = true,
            "--max-protocol-version" => {
                let value = args
                    .next()
                    .unwrap_or_else(|| usage("--max-protocol-version needs a number"));
                max_version = Some(value.parse().unwrap_or_else(|_| usage("not a version")));
            }
            other => usage(&format!("unknown argument {other}")),
        }
    }
    let log = move |event: &AgentEvent| {
        if let Some(file) = &events_file {
            let mut file = file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // One write per line, so that a crash never leaves half a line.
            let _ = file.write_all(format!("{event:?}\n").as_bytes());
        }
    };
    let log = Arc::new(log);
    let sink = log.clone();
    config.events = Arc::new(move |event| sink(&event));
    config.crash = Arc::new(|| std::process::abort());

    let mut agent = None;
    let (_client, driver) = serve_stdio(
        |client| {
            let scripted = Arc::new(ScriptedAgent::new(client, config));
            agent = Some(scripted.clone());
            scripted
        },
        options(framing, max_version),
    );
    let result = driver.await;
    // Calls the agent made from tasks of its own see the end of the connection too.
    if let Some(agent) = agent {
        agent.join_detached().await;
    }
    let code = match result {
        Ok(()) => 0,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "e2e_agent: connection failed: {error}");
            1
        }
    };
    // Exit at once: the runtime would otherwise wait for the thread blocked reading stdin.
    std::process::exit(code)
}

/// The agent's options: `framing`, and the highest protocol version offered when given.
fn options(framing: FramingMode, max_version: Option<u16>) -> AgentOptions {
    let options = AgentOptions::default().framing(framing);
    match max_version {
        #[cfg(feature = "unstable_protocol_v2")]
        Some(version) => options.max_protocol_version(acp_types::ProtocolVersion(version)),
        // Without v2 the agent speaks v1 only: any cap at or above 1 changes nothing.
        #[cfg(not(feature = "unstable_protocol_v2"))]
        Some(version) if version >= 1 => options,
        #[cfg(not(feature = "unstable_protocol_v2"))]
        Some(_) => usage("this build speaks protocol version 1 only"),
        None => options,
    }
}
