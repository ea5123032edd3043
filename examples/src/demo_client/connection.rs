//! Connecting to the agent: a spawned command ([`acp_client::spawn`]), or the example agent in
//! this process over an in-memory duplex pipe ([`acp_agent::serve`] on one end,
//! [`acp_client::connect`] on the other); and closing it again.

use std::io;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use acp_agent::AgentOptions;
use acp_client::{AgentHandle, AgentProcess, ClientOptions, SpawnOptions, Stderr, Stopped};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use super::{Editor, Options, Shared};
use crate::demo_agent::DemoAgent;
use crate::wire_log::{self, Tap};

/// How long a spawned agent gets at each step of closing it: to exit by itself once its stdin
/// is closed, then to exit after SIGTERM, before SIGKILL.
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The bytes the in-process pipe buffers in each direction.
const DUPLEX_BUFFER_BYTES: usize = 1024 * 1024;

/// A live connection to the agent.
pub(crate) struct Connection {
    pub(crate) agent: AgentHandle,
    /// The tasks driving the connection (and, in process, the agent).
    tasks: Vec<JoinHandle<()>>,
    /// The spawned agent's process, watched by a task of its own.
    process: Option<Watcher>,
}

/// The task that owns a spawned agent's process: it notes when the agent exits, and closes it
/// when asked. Dropping the connection drops the task's request channel, and a closing
/// interrupted half way drops the process: either way its process group is killed.
struct Watcher {
    exit: watch::Receiver<Option<ExitStatus>>,
    close: Option<oneshot::Sender<oneshot::Sender<io::Result<Stopped>>>>,
    task: JoinHandle<()>,
}

/// Connects as the options say.
pub(crate) fn open(options: &Options, shared: &Arc<Shared>) -> Result<Connection, String> {
    let editor = Editor::new(shared.clone());
    let client_options = ClientOptions::default().framing(options.framing);
    let Some((program, args)) = &options.agent else {
        return in_process(options, editor, client_options);
    };
    if options.wire_log.is_some() {
        return Err(
            "--wire-log records the in-process connection only; a spawned agent can \
                    log its own traffic (the example agent takes --wire-log too)"
                .into(),
        );
    }
    let mut command = tokio::process::Command::new(program);
    command.args(args).current_dir(shared.workspace.root());
    let spawn_options = SpawnOptions::default()
        .client(client_options)
        .stderr(Stderr::Inherit);
    let spawned = acp_client::spawn(command, |_agent| editor, spawn_options).map_err(|e| {
        let why = std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string);
        format!("cannot start the agent `{program}`: {why}")
    })?;
    let driver = spawned.driver;
    Ok(Connection {
        agent: spawned.agent,
        tasks: vec![tokio::spawn(async move {
            let _ = driver.await;
        })],
        process: Some(watch_process(spawned.process)),
    })
}

fn watch_process(mut process: AgentProcess) -> Watcher {
    let (exit_tx, exit) = watch::channel(None);
    let (close, mut close_rx) = oneshot::channel::<oneshot::Sender<io::Result<Stopped>>>();
    let task = tokio::spawn(async move {
        let mut waiting = true;
        let reply = loop {
            tokio::select! {
                status = process.wait(), if waiting => match status {
                    Ok(status) => {
                        exit_tx.send_replace(Some(status));
                        waiting = false;
                    }
                    // Unreadable: stop watching; closing still works.
                    Err(_) => waiting = false,
                },
                request = &mut close_rx => match request {
                    Ok(reply) => break reply,
                    // The connection was dropped: dropping the process kills its group.
                    Err(_) => return,
                },
            }
        };
        let mut reply = reply;
        let stopped = tokio::select! {
            stopped = process.shutdown(EXIT_GRACE) => stopped,
            // The closer gave up (a second signal): dropping the process kills its group.
            () = reply.closed() => return,
        };
        if let Ok(stopped) = &stopped {
            exit_tx.send_replace(Some(stopped.status));
        }
        let _ = reply.send(stopped);
    });
    Watcher {
        exit,
        close: Some(close),
        task,
    }
}

fn in_process(
    options: &Options,
    editor: Editor,
    client_options: ClientOptions,
) -> Result<Connection, String> {
    let (client_io, agent_io) = tokio::io::duplex(DUPLEX_BUFFER_BYTES);
    let (reader, writer) = tokio::io::split(agent_io);
    let agent_options = AgentOptions::default().framing(options.framing);
    let (_client, agent_driver) = acp_agent::serve(DemoAgent::new, reader, writer, agent_options);
    let (reader, writer) = tokio::io::split(client_io);
    let log = match &options.wire_log {
        Some(prefix) => {
            Some(wire_log::open(prefix).map_err(|e| format!("cannot create the wire log: {e}"))?)
        }
        None => None,
    };
    let (agent, client_driver) = match log {
        Some((recv, sent)) => acp_client::connect(
            |_agent| editor,
            Tap::new(reader, recv),
            Tap::new(writer, sent),
            client_options,
        ),
        None => acp_client::connect(|_agent| editor, reader, writer, client_options),
    };
    Ok(Connection {
        agent,
        tasks: vec![
            tokio::spawn(async move {
                let _ = agent_driver.await;
            }),
            tokio::spawn(async move {
                let _ = client_driver.await;
            }),
        ],
        process: None,
    })
}

impl Connection {
    /// The spawned agent's exit status once it exited (`None` in process).
    pub(crate) fn exit(&self) -> Option<watch::Receiver<Option<ExitStatus>>> {
        self.process.as_ref().map(|p| p.exit.clone())
    }

    /// Ends the connection. A spawned agent is closed gracefully: its stdin is closed, then its
    /// process group gets SIGTERM and SIGKILL, [`EXIT_GRACE`] apart; how it ended is returned
    /// (`None` in process, or when that could not be learnt).
    ///
    /// Dropped half way, the agent's process group is killed at once.
    pub(crate) async fn close(mut self) -> Option<Stopped> {
        let stopped = match self.process.as_mut().and_then(|p| p.close.take()) {
            Some(close) => {
                let (reply, stopped) = oneshot::channel();
                let _ = close.send(reply);
                stopped.await.ok().and_then(Result::ok)
            }
            None => None,
        };
        // The agent has exited: what is left of the connection goes.
        for task in &self.tasks {
            task.abort();
        }
        for task in std::mem::take(&mut self.tasks) {
            let _ = task.await;
        }
        stopped
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        if let Some(process) = &self.process {
            // Dropping the process kills its group.
            process.task.abort();
        }
    }
}
