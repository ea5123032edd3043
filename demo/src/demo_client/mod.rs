//! The demo client: a terminal stand-in for an editor.
//!
//! It connects to an agent (a spawned command, a remote agent over Streamable HTTP or WebSocket,
//! or the [`demo_agent`](crate::demo_agent) in process over `tokio::io::duplex`), then runs prompts and client commands from the command
//! line, from the keyboard, or from the scripted demo tour. It renders the session as it streams
//! (or prints a JSON transcript), answers permission requests by policy or at the keyboard, and
//! serves the agent's file system and terminal requests confined to its working directory.
//!
//! [`run`] is the whole program; the `client` program only parses the command line and calls it.

mod args;
mod auth;
mod connection;
mod editor;
mod output;
mod runner;
pub(crate) mod signals;
mod tour;

use std::sync::Arc;

use acp_client::{StopStage, Stopped};
use auth::Login;

pub use acp_client::{Terminals, Workspace};
#[cfg(feature = "unstable")]
pub use args::DRAFT_USAGE;
pub use args::{CLIENT_COMMANDS, DEFAULT_TIMEOUT, Options, after_help, parse};
pub use editor::{Editor, Policy, Shared};
pub use output::Output;

use connection::{Connection, EXIT_GRACE};
use runner::Runner;
use signals::{Signals, Stop};

/// Runs the client as the options say and returns the process exit code: 0 when every step
/// succeeded, 1 when one failed, 2 when the client could not start, 130, 143 or 129 when
/// stopped by SIGINT, SIGTERM or SIGHUP.
///
/// On the first SIGINT, SIGTERM or SIGHUP (the terminal closed) the running turn is cancelled
/// (`session/cancel`) and given a grace period to end, then the agent is closed (its stdin,
/// then SIGTERM and SIGKILL to its process group) and the terminal commands are stopped
/// likewise; a second signal kills them all at once. The agent and the terminal commands are
/// closed the same way when the client is done.
pub async fn run(options: Options) -> u8 {
    let tour = options.agent.is_empty()
        && options.url.is_none()
        && options.steps.is_empty()
        && !options.interactive;
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
    let workspace = match Workspace::new(&root) {
        Ok(workspace) => workspace.read_only(options.read_only),
        Err(error) => {
            return startup_error(&format!("cannot serve {}: {error}", root.display()));
        }
    };
    let policy = match (tour, options.allow(), options.interactive) {
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
    // From now on a signal stops the client in order instead of killing it (which would leave
    // the agent and the terminal commands running).
    let mut signals = Signals::new();
    // A remote agent's WebSocket handshake may take a while: a signal meanwhile gives up.
    let opened = tokio::select! {
        opened = connection::open(&options, &shared) => opened,
        signal = signals.recv() => return signal.exit_code(),
    };
    let connection = match opened {
        Ok(connection) => connection,
        Err(message) => return startup_error(&message),
    };
    let mut runner = Runner::new(
        connection.agent.clone(),
        shared.clone(),
        &options,
        connection.exit(),
    );
    let mut connection = connection;
    // The exit status when stopped by a signal. A terminal login (`--auth` with a `terminal`
    // method) ends the first round: the agent is closed, the login runs, and the client
    // connects again for a second.
    let stopped_by = loop {
        let mut work = Box::pin(drive(&mut runner, &options, tour));
        let signal = tokio::select! {
            () = &mut work => None,
            signal = signals.recv() => Some(signal),
        };
        let Some(signal) = signal else {
            drop(work);
            if let Some(login) = runner.take_login() {
                match relogin(connection, &login, &options, &shared, &mut signals).await {
                    Relogin::Reconnected(next) => {
                        runner.reconnect(next.agent.clone(), next.exit());
                        connection = next;
                        continue;
                    }
                    Relogin::Failed(message) => {
                        runner.refuse("terminal login", message).await;
                        break None;
                    }
                    Relogin::Stopped(signal) => break Some(signal),
                }
            }
            break tokio::select! {
                () = close(connection, &shared) => None,
                // Closing takes a while when the agent ignores its input closing: a signal
                // meanwhile kills everything at once.
                signal = signals.recv() => Some(kill_all(signal, &shared)),
            };
        };
        break match stop(signal, work, &mut signals, connection, &shared).await {
            Ok(()) => Some(signal),
            Err(second) => Some(second),
        };
    };
    if let Some(dir) = demo_dir {
        tour::conclude(&shared, dir);
    }
    let ok = runner.finish();
    match stopped_by {
        Some(signal) => signal.exit_code(),
        None => u8::from(!ok),
    }
}

/// The client's work on one connection: start the session (initialize, sign in, session/new),
/// then the tour, or the steps and the keyboard.
async fn drive(runner: &mut Runner, options: &Options, tour: bool) {
    let mut started = runner.start(options).await;
    if started && tour {
        tour::run(runner).await;
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
}

/// How a terminal login ended.
enum Relogin {
    /// It succeeded, and this is the new connection to the agent.
    Reconnected(Connection),
    /// It failed (why); the agent is closed.
    Failed(String),
    /// A signal stopped the client on the way; everything is stopped.
    Stopped(Stop),
}

/// A terminal login (spec: "Terminal authentication"): closes the agent, runs its command with
/// the method's arguments and environment in the user's terminal, and once that exits with
/// status 0 starts the agent again. A signal on the way stops the login and the agent.
async fn relogin(
    connection: Connection,
    login: &Login,
    options: &Options,
    shared: &Arc<Shared>,
    signals: &mut Signals,
) -> Relogin {
    tokio::select! {
        () = close(connection, shared) => {}
        signal = signals.recv() => return Relogin::Stopped(kill_all(signal, shared)),
    }
    shared.output.notice(&format!(
        "signing in with `{}`: running `{}` here; the agent starts again once it succeeds",
        login.method,
        login.command_line()
    ));
    let cwd = shared.workspace.root();
    tokio::select! {
        ran = login.run(cwd, options.json) => {
            if let Err(message) = ran {
                return Relogin::Failed(message);
            }
        }
        // Dropping the login's future kills it.
        signal = signals.recv() => {
            shared.output.notice(&format!("{}: stopping the login", signal.name()));
            return Relogin::Stopped(signal);
        }
    }
    tokio::select! {
        opened = connection::open(options, shared) => match opened {
            Ok(connection) => Relogin::Reconnected(connection),
            Err(message) => Relogin::Failed(message),
        },
        signal = signals.recv() => Relogin::Stopped(signal),
    }
}

/// Closes the agent (gracefully: see [`Connection::close`]) and stops the terminal commands
/// still running, saying how the agent ended if it did not end well.
async fn close(connection: Connection, shared: &Shared) {
    let (stopped, ()) = tokio::join!(connection.close(), shared.terminals.shutdown());
    if let Some(stopped) = stopped {
        report(shared, &stopped);
    }
}

fn report(shared: &Shared, stopped: &Stopped) {
    match stopped.stage {
        StopStage::Exited if stopped.status.success() => {}
        StopStage::Exited => shared.output.notice(&format!("the agent {stopped}")),
        _ => shared.output.notice(&format!(
            "the agent did not exit when its input closed; it {stopped}"
        )),
    }
}

/// Stops on the first `signal`: the running turn is cancelled and gets a grace period to end,
/// then the agent is closed and the terminal commands stopped. A second signal on the way
/// kills them all at once (`Err` with that signal).
async fn stop(
    signal: Stop,
    mut work: std::pin::Pin<Box<impl Future<Output = ()>>>,
    signals: &mut Signals,
    connection: Connection,
    shared: &Shared,
) -> Result<(), Stop> {
    shared.output.notice(&format!(
        "{}: cancelling the running turn and closing the agent (a second signal kills it at \
         once)",
        signal.name()
    ));
    shared.request_stop();
    let second = tokio::select! {
        // The turn ends (it was cancelled), or the grace period does.
        _ = tokio::time::timeout(EXIT_GRACE, &mut work) => None,
        second = signals.recv() => Some(second),
    };
    drop(work);
    let second = match second {
        Some(second) => Some(second),
        None => tokio::select! {
            () = close(connection, shared) => return Ok(()),
            second = signals.recv() => Some(second),
        },
    };
    Err(kill_all(second.unwrap_or(signal), shared))
}

/// Kills the terminal commands' process groups; the caller drops the connection, which kills
/// the agent's.
fn kill_all(signal: Stop, shared: &Shared) -> Stop {
    shared.output.notice(&format!(
        "{}: killing the agent and the terminal commands",
        signal.name()
    ));
    shared.terminals.kill_all();
    signal
}

#[allow(clippy::print_stderr)] // The client could not start: say why on stderr.
fn startup_error(message: &str) -> u8 {
    eprintln!("client: {message}");
    2
}
