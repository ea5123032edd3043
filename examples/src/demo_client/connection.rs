//! Connecting to the agent: a spawned command ([`acp_client::spawn`]), or the example agent in
//! this process over an in-memory duplex pipe ([`acp_agent::serve`] on one end,
//! [`acp_client::connect`] on the other).

use std::sync::Arc;
use std::time::Duration;

use acp_agent::AgentOptions;
use acp_client::{AgentHandle, AgentProcess, ClientOptions, SpawnOptions, Stderr};
use tokio::task::JoinHandle;

use super::{Editor, Options, Shared};
use crate::demo_agent::DemoAgent;
use crate::wire_log::{self, Tap};

/// How long a spawned agent gets to exit by itself once its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The bytes the in-process pipe buffers in each direction.
const DUPLEX_BUFFER_BYTES: usize = 1024 * 1024;

/// A live connection to the agent.
pub(crate) struct Connection {
    pub(crate) agent: AgentHandle,
    /// The tasks driving the connection (and, in process, the agent).
    tasks: Vec<JoinHandle<()>>,
    process: Option<AgentProcess>,
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
        process: Some(spawned.process),
    })
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
    /// Ends the connection; a spawned agent sees its stdin close, and is killed if it does not
    /// exit soon after.
    pub(crate) async fn close(self) {
        for task in &self.tasks {
            task.abort();
        }
        for task in self.tasks {
            let _ = task.await;
        }
        if let Some(mut process) = self.process {
            if tokio::time::timeout(EXIT_GRACE, process.wait())
                .await
                .is_err()
            {
                let _ = process.kill();
                let _ = process.wait().await;
            }
        }
    }
}
