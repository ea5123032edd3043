//! The example client: a terminal stand-in for an editor.
//!
//! It connects to an agent (a spawned command, or the [`demo_agent`](crate::demo_agent) in
//! process over `tokio::io::duplex`), then runs prompts and client commands from the command
//! line, from the keyboard, or from the scripted demo tour. It renders the session as it streams
//! (or prints a JSON transcript), answers permission requests by policy or at the keyboard, and
//! serves the agent's file system and terminal requests confined to its working directory.
//!
//! [`run`] is the whole program; the `client` example only parses the command line and calls it.

mod args;
mod connection;
mod editor;
mod output;
mod runner;
mod terminals;
mod tour;
mod workspace;

use std::sync::Arc;

pub use args::{Options, Parsed, USAGE, parse};
pub use editor::{Editor, Policy, Shared};
pub use output::Output;
pub use terminals::Terminals;
pub use workspace::Workspace;

use runner::Runner;

/// Runs the client as the options say and returns the process exit code: 0 when every step
/// succeeded, 1 when one failed, 2 when the client could not start.
pub async fn run(options: Options) -> u8 {
    let tour = options.agent.is_none() && options.steps.is_empty() && !options.interactive;
    let demo_dir = if tour {
        match tour::DemoDir::create() {
            Ok(dir) => Some(dir),
            Err(error) => {
                return startup_error(&format!("cannot create the demo directory: {error}"));
            }
        }
    } else {
        None
    };
    let root = match (&demo_dir, &options.cwd) {
        (Some(dir), _) => dir.path().to_path_buf(),
        (None, Some(cwd)) => cwd.clone(),
        (None, None) => match std::env::current_dir() {
            Ok(dir) => dir,
            Err(error) => return startup_error(&format!("no current directory: {error}")),
        },
    };
    let workspace = match Workspace::new(&root, options.read_only) {
        Ok(workspace) => workspace,
        Err(error) => {
            return startup_error(&format!("cannot serve {}: {error}", root.display()));
        }
    };
    let policy = match (tour, options.allow, options.interactive) {
        (true, _, _) => Policy::Allow("the demo"),
        (false, Some(true), _) => Policy::Allow("--yes"),
        (false, Some(false), _) => Policy::Reject("--no"),
        (false, None, true) => Policy::Ask,
        (false, None, false) => Policy::Reject("default: pass --yes to allow"),
    };
    let output = Output::new(options.json, workspace.clone());
    let shared = Arc::new(Shared::new(output, workspace, policy));
    if let Some(dir) = &demo_dir {
        tour::introduce(&shared, dir.path());
    }
    let connection = match connection::open(&options, &shared) {
        Ok(connection) => connection,
        Err(message) => return startup_error(&message),
    };
    let mut runner = Runner::new(connection.agent.clone(), shared.clone(), &options);
    let mut started = runner.start(&options).await;
    if started && tour {
        tour::run(&mut runner).await;
    } else if started {
        for step in &options.steps {
            if runner.step(step).await == runner::Flow::Quit {
                started = false;
                break;
            }
        }
        if started && options.interactive {
            runner.interactive().await;
        }
    }
    connection.close().await;
    if let Some(dir) = demo_dir {
        tour::conclude(&shared, dir);
    }
    u8::from(!runner.finish())
}

#[allow(clippy::print_stderr)] // The client could not start: say why on stderr.
fn startup_error(message: &str) -> u8 {
    eprintln!("client: {message}");
    2
}
