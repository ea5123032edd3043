//! The scripted agent and the test client wired together in one process, over two in-memory
//! pipes with the validating tap on both.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use acp_agent::{AgentOptions, ClientHandle};
use acp_client::{AgentHandle, ClientOptions};
use acp_codec::{Framing, FramingMode};
use acp_types::*;
use tokio::io::DuplexStream;
use tokio::sync::mpsc;
use tokio::task::{JoinError, JoinHandle};

use crate::wire::{Checker, Direction, Hangup, TapRead, Wire, hangup_writer};
use crate::{AgentConfig, AgentEvent, ClientEvent, PermissionPolicy, ScriptedAgent, TestClient};

/// How long a test waits for anything before declaring a hang. Only a guard: nothing waits
/// for it to pass.
pub const HANG_GUARD: Duration = Duration::from_secs(10);

/// The capacity of each in-memory pipe, small enough that large messages need several reads.
pub const PIPE_BYTES: usize = 16 * 1024;

/// Awaits `future`, failing the test if it takes longer than [`HANG_GUARD`].
///
/// # Panics
///
/// On a hang, naming `what`.
#[track_caller]
pub fn within<F: Future>(what: &str, future: F) -> impl Future<Output = F::Output> {
    let location = std::panic::Location::caller();
    async move {
        match tokio::time::timeout(HANG_GUARD, future).await {
            Ok(output) => output,
            Err(_) => panic!("hang: {what} did not finish within {HANG_GUARD:?} ({location})"),
        }
    }
}

/// The framing each end is configured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wiring {
    /// The client's framing (never auto: the client speaks first).
    pub client: FramingMode,
    /// The agent's framing.
    pub agent: FramingMode,
}

impl Wiring {
    /// NDJSON on both ends, as the spec says.
    pub const NDJSON: Self = Self {
        client: FramingMode::Ndjson,
        agent: FramingMode::Ndjson,
    };
    /// Content-Length on both ends.
    pub const CONTENT_LENGTH: Self = Self {
        client: FramingMode::ContentLength,
        agent: FramingMode::ContentLength,
    };
    /// An NDJSON client and an auto-detecting agent.
    pub const AUTO_NDJSON: Self = Self {
        client: FramingMode::Ndjson,
        agent: FramingMode::Auto,
    };
    /// A Content-Length client and an auto-detecting agent.
    pub const AUTO_CONTENT_LENGTH: Self = Self {
        client: FramingMode::ContentLength,
        agent: FramingMode::Auto,
    };
    /// Every wiring.
    pub const ALL: [Self; 4] = [
        Self::NDJSON,
        Self::CONTENT_LENGTH,
        Self::AUTO_NDJSON,
        Self::AUTO_CONTENT_LENGTH,
    ];

    /// The framing on the wire both ways: the client's (an auto-detecting agent answers in
    /// kind).
    pub fn framing(&self) -> Framing {
        match self.client {
            FramingMode::ContentLength => Framing::ContentLength,
            _ => Framing::Ndjson,
        }
    }
}

impl fmt::Display for Wiring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "client {} / agent {}", self.client, self.agent)
    }
}

/// What to start.
#[derive(Debug, Clone)]
pub struct DuplexOptions {
    /// The framings.
    pub wiring: Wiring,
    /// The scripted agent's behaviour (its `events` and `crash` are replaced by the harness).
    pub agent: AgentConfig,
    /// The agent library's rules.
    pub agent_options: AgentOptions,
    /// The client library's rules.
    pub client_options: ClientOptions,
    /// How the test client answers permission requests.
    pub permission: PermissionPolicy,
    /// Checks every message on the wire.
    pub check: CheckerBox,
}

/// A [`Checker`] that can be printed.
#[derive(Clone)]
pub struct CheckerBox(pub Checker);

impl fmt::Debug for CheckerBox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Checker")
    }
}

impl DuplexOptions {
    /// NDJSON, an agent advertising everything, default rules, permissions allowed.
    pub fn new(check: Checker) -> Self {
        Self {
            wiring: Wiring::NDJSON,
            agent: AgentConfig::full(),
            agent_options: AgentOptions::default(),
            client_options: ClientOptions::default(),
            permission: PermissionPolicy::Allow,
            check: CheckerBox(check),
        }
    }

    /// Sets the wiring.
    #[must_use]
    pub fn wiring(mut self, wiring: Wiring) -> Self {
        self.wiring = wiring;
        self
    }

    /// Sets the agent's behaviour.
    #[must_use]
    pub fn agent(mut self, agent: AgentConfig) -> Self {
        self.agent = agent;
        self
    }

    /// Sets the permission policy.
    #[must_use]
    pub fn permission(mut self, permission: PermissionPolicy) -> Self {
        self.permission = permission;
        self
    }
}

type DriverTask = JoinHandle<Result<(), acp_rpc::Error>>;

/// How the two drivers ended.
#[derive(Debug)]
pub struct Ended {
    /// The agent's driver (`Err` if its task was aborted).
    pub agent: Result<Result<(), acp_rpc::Error>, JoinError>,
    /// The client's driver (`Err` if its task was aborted).
    pub client: Result<Result<(), acp_rpc::Error>, JoinError>,
    /// Everything that went over the wire.
    pub wire: Wire,
}

/// A running agent-client pair.
#[derive(Debug)]
pub struct Duplex {
    /// The client's handle to the agent.
    pub agent: AgentHandle,
    /// The agent's handle to the client.
    pub client: ClientHandle,
    /// The test client (shares its state with the one connected).
    pub editor: TestClient,
    /// What the agent reported.
    pub agent_events: mpsc::UnboundedReceiver<AgentEvent>,
    /// What the client reported.
    pub client_events: mpsc::UnboundedReceiver<ClientEvent>,
    /// The tap's record.
    pub wire: Wire,
    /// The wiring in use.
    pub wiring: Wiring,
    agent_driver: DriverTask,
    client_driver: DriverTask,
    hangup: Hangup<DuplexStream>,
}

impl Duplex {
    /// Starts both ends and spawns their drivers on the current runtime.
    pub fn start(options: DuplexOptions) -> Self {
        let wiring = options.wiring;
        let wire = Wire::new(wiring.framing(), options.check.0);
        let (client_out, agent_in) = tokio::io::duplex(PIPE_BYTES);
        let (agent_out, client_in) = tokio::io::duplex(PIPE_BYTES);
        let (client_out, hangup) = hangup_writer(client_out);
        let agent_in = TapRead::new(agent_in, wire.clone(), Direction::ClientToAgent);
        let client_in = TapRead::new(client_in, wire.clone(), Direction::AgentToClient);

        let (events_tx, agent_events) = mpsc::unbounded_channel();
        let abort = Arc::new(OnceLock::<tokio::task::AbortHandle>::new());
        let mut config = options.agent;
        config.events = Arc::new(move |event| {
            let _ = events_tx.send(event);
        });
        let crash = abort.clone();
        // In process, crashing means the agent's connection dies on the spot.
        config.crash = Arc::new(move || {
            if let Some(handle) = crash.get() {
                handle.abort();
            }
        });
        let (client, agent_driver) = acp_agent::serve(
            |client| ScriptedAgent::new(client, config),
            agent_in,
            agent_out,
            options.agent_options.framing(wiring.agent),
        );
        let agent_driver = tokio::spawn(agent_driver);
        let _ = abort.set(agent_driver.abort_handle());

        let (editor, client_events) = TestClient::new(options.permission);
        let connected = editor.clone();
        let (agent, client_driver) = acp_client::connect(
            move |_agent| connected,
            client_in,
            client_out,
            options.client_options.framing(wiring.client),
        );
        let client_driver = tokio::spawn(client_driver);
        Self {
            agent,
            client,
            editor,
            agent_events,
            client_events,
            wire,
            wiring,
            agent_driver,
            client_driver,
            hangup,
        }
    }

    /// Initializes with `capabilities`, the client's latest protocol version and its info.
    ///
    /// # Panics
    ///
    /// When `initialize` fails.
    pub async fn initialize(&self, capabilities: ClientCapabilities) -> InitializeResponse {
        let request = InitializeRequest::new(ProtocolVersion::LATEST)
            .client_capabilities(capabilities)
            .client_info(Implementation::new("e2e-client", "0.1.0"));
        within("initialize", self.agent.initialize(request))
            .await
            .expect("initialize succeeds")
    }

    /// Creates a session in `/work`.
    ///
    /// # Panics
    ///
    /// When `session/new` fails.
    pub async fn new_session(&self) -> SessionId {
        within(
            "session/new",
            self.agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
        )
        .await
        .expect("session/new succeeds")
        .session_id
    }

    /// The next event of the agent.
    ///
    /// # Panics
    ///
    /// When none comes.
    pub async fn agent_event(&mut self) -> AgentEvent {
        within("an agent event", self.agent_events.recv())
            .await
            .expect("the agent's event stream is open")
    }

    /// Skips agent events until one matches `pick`, and returns what `pick` made of it.
    ///
    /// # Panics
    ///
    /// When none comes.
    pub async fn agent_event_where<T>(
        &mut self,
        mut pick: impl FnMut(AgentEvent) -> Option<T>,
    ) -> T {
        loop {
            if let Some(found) = pick(self.agent_event().await) {
                return found;
            }
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

    /// Kills the agent's connection on the spot, as a crash would.
    pub fn crash_agent(&self) {
        self.agent_driver.abort();
    }

    /// Makes the client vanish on the spot: its connection is dropped without a word, and
    /// its end of the pipes with it.
    pub fn drop_client(&self) {
        self.client_driver.abort();
        // The harness keeps a way to hang up the client's writer; a vanished client keeps
        // nothing.
        self.hangup.hang_up();
    }

    /// Closes the client's side of the pipe, the orderly way to end a connection: the agent
    /// reads end of file.
    pub fn hang_up(&self) {
        self.hangup.hang_up();
    }

    /// Waits for both drivers to end (after a hang-up, a crash, or a vanished client).
    ///
    /// # Panics
    ///
    /// When a driver does not end.
    pub async fn ended(self) -> Ended {
        let agent = within("the agent's driver", self.agent_driver).await;
        let client = within("the client's driver", self.client_driver).await;
        Ended {
            agent,
            client,
            wire: self.wire,
        }
    }

    /// Hangs up, checks that both drivers end cleanly and that the wire was clean with at
    /// least `min_messages` on it; returns the wire.
    ///
    /// # Panics
    ///
    /// When any of that does not hold.
    pub async fn shutdown(self, min_messages: usize) -> Wire {
        self.hang_up();
        let ended = self.ended().await;
        assert!(
            matches!(ended.agent, Ok(Ok(()))),
            "the agent's driver ended badly: {:?}",
            ended.agent
        );
        assert!(
            matches!(ended.client, Ok(Ok(()))),
            "the client's driver ended badly: {:?}",
            ended.client
        );
        ended.wire.assert_clean(min_messages);
        ended.wire
    }
}

/// Every client capability: files, terminals, both elicitation modes, boolean options.
pub fn all_client_capabilities() -> ClientCapabilities {
    ClientCapabilities::new()
        .fs(FileSystemCapabilities::new()
            .read_text_file(true)
            .write_text_file(true))
        .terminal(true)
        .elicitation(
            ElicitationCapabilities::new()
                .form(ElicitationFormCapabilities::new())
                .url(ElicitationUrlCapabilities::new()),
        )
        .session(ClientSessionCapabilities::new().config_options(
            SessionConfigOptionsCapabilities::new().boolean(BooleanConfigOptionCapabilities::new()),
        ))
}
