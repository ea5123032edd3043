//! The scripted agent as a real child process, started with `acp_client::spawn` through the
//! recording relay (`e2e_relay`), whose log of both directions is checked by the tap's
//! splitter once the process is gone.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use acp_client::{AgentHandle, AgentProcess, ClientOptions, SpawnOptions, Stderr};
use tokio::sync::mpsc;
use tokio::task::{JoinError, JoinHandle};

use crate::duplex::{Wiring, within};
use crate::wire::{Checker, Direction, Wire};
use crate::{ClientEvent, PermissionPolicy, TestClient};

/// The relay's log of what the client sent.
pub const CLIENT_TO_AGENT_LOG: &str = "client-to-agent.bin";
/// The relay's log of what the agent sent.
pub const AGENT_TO_CLIENT_LOG: &str = "agent-to-client.bin";
/// The agent's events, one `Debug`-formatted [`AgentEvent`](crate::AgentEvent) a line.
pub const EVENTS_LOG: &str = "events.log";

/// What to start.
#[derive(Debug, Clone)]
pub struct ChildOptions {
    /// The `e2e_relay` program.
    pub relay: PathBuf,
    /// The `e2e_agent` program.
    pub agent: PathBuf,
    /// The framings (the agent gets `--framing` with the agent's mode).
    pub wiring: Wiring,
    /// More arguments for the agent.
    pub agent_args: Vec<String>,
    /// How the test client answers permission requests.
    pub permission: PermissionPolicy,
}

/// A spawned agent process and the client connected to it.
#[derive(Debug)]
pub struct ChildAgent {
    /// The client's handle to the agent.
    pub agent: AgentHandle,
    /// The test client.
    pub editor: TestClient,
    /// What the client reported.
    pub client_events: mpsc::UnboundedReceiver<ClientEvent>,
    /// The agent process.
    pub process: AgentProcess,
    driver: JoinHandle<Result<(), acp_rpc::Error>>,
    dir: PathBuf,
    wiring: Wiring,
    stderr: Arc<Mutex<Vec<String>>>,
}

/// How a child ended.
#[derive(Debug)]
pub struct ChildEnded {
    /// The process's exit status.
    pub status: ExitStatus,
    /// The client's driver (`Err` if it was aborted).
    pub driver: Result<Result<(), acp_rpc::Error>, JoinError>,
    /// The relay's record of the wire, split and checked.
    pub wire: Wire,
    /// The agent's events.
    pub events: Vec<String>,
    /// The agent's stderr lines (while the client read them).
    pub stderr: Vec<String>,
}

fn scratch_dir() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "acp-e2e-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("creating a scratch directory");
    dir
}

impl ChildAgent {
    /// Starts `relay --log DIR -- agent --framing MODE --events DIR/events.log ARGS...` with
    /// `acp_client::spawn`, and spawns the connection's driver.
    ///
    /// # Panics
    ///
    /// When the process cannot be started.
    pub fn spawn(options: ChildOptions) -> Self {
        let dir = scratch_dir();
        let mut command = tokio::process::Command::new(&options.relay);
        command
            .arg("--log")
            .arg(&dir)
            .arg("--")
            .arg(&options.agent)
            .arg("--framing")
            .arg(options.wiring.agent.as_str())
            .arg("--events")
            .arg(dir.join(EVENTS_LOG))
            .args(&options.agent_args);
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = stderr.clone();
        let spawn_options = SpawnOptions::default()
            .client(ClientOptions::default().framing(options.wiring.client))
            .stderr(Stderr::Lines(Arc::new(move |line: &str| {
                lines
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(line.to_owned());
            })));
        let (editor, client_events) = TestClient::new(options.permission);
        let connected = editor.clone();
        let spawned = acp_client::spawn(command, move |_| connected, spawn_options)
            .expect("starting the agent");
        Self {
            agent: spawned.agent,
            editor,
            client_events,
            process: spawned.process,
            driver: tokio::spawn(spawned.driver),
            dir,
            wiring: options.wiring,
            stderr,
        }
    }

    /// The next event of the client.
    ///
    /// # Panics
    ///
    /// When none comes.
    pub async fn client_event(&mut self) -> ClientEvent {
        within("a client event", self.client_events.recv())
            .await
            .expect("the client's event stream is open")
    }

    /// Drops the client's side of the connection (its driver, and so the agent's stdin and
    /// stdout pipes) without a word.
    pub fn drop_client(&self) {
        self.driver.abort();
    }

    /// Waits for the process to exit and the driver to end, then reads the relay's record.
    ///
    /// # Panics
    ///
    /// When either hangs, or the record cannot be read.
    pub async fn ended(mut self, check: Checker) -> ChildEnded {
        let status = within("the agent process", self.process.wait())
            .await
            .expect("reading the agent's exit status");
        let driver = within("the client's driver", self.driver).await;
        let wire = Wire::new(self.wiring.framing(), check);
        for (name, direction) in [
            (CLIENT_TO_AGENT_LOG, Direction::ClientToAgent),
            (AGENT_TO_CLIENT_LOG, Direction::AgentToClient),
        ] {
            let bytes = std::fs::read(self.dir.join(name))
                .unwrap_or_else(|e| panic!("reading the relay's {name}: {e}"));
            wire.record(direction, &bytes);
        }
        let events = std::fs::read_to_string(self.dir.join(EVENTS_LOG))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect();
        let _ = std::fs::remove_dir_all(&self.dir);
        let stderr =
            std::mem::take(&mut *self.stderr.lock().unwrap_or_else(PoisonError::into_inner));
        ChildEnded {
            status,
            driver,
            wire,
            events,
            stderr,
        }
    }

    /// The scratch directory of this child (the relay's logs, the events file).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
