//! Both ends over the network transports: the [`ScriptedAgent`] served by `acp-http`'s server
//! on 127.0.0.1 (one agent per connection, sessions shared so that they outlive connections),
//! and the [`TestClient`] connected with `acp-http`'s client, over Streamable HTTP or
//! WebSocket. The server's tap checks every message both ways against the [`Checker`].

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use acp_client::{AgentHandle, ClientOptions};
use acp_http::client::{ConnectOptions, Connection};
use acp_http::server::{AcpServer, BridgeOptions, Direction as Way, ServerOptions};
use acp_types::*;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::{
    AgentConfig, AgentEvent, Checker, ClientEvent, PermissionPolicy, ScriptedAgent, SharedState,
    TestClient, within,
};

/// A network transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Streamable HTTP: POST, and SSE streams.
    Sse,
    /// WebSocket.
    WebSocket,
}

impl Transport {
    /// Both.
    pub const ALL: [Transport; 2] = [Transport::Sse, Transport::WebSocket];
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Transport::Sse => "sse",
            Transport::WebSocket => "ws",
        })
    }
}

/// What the server's tap saw: every message, and each problem the checker found.
#[derive(Debug, Default)]
struct TapLog {
    /// Messages checked, per direction (to the agent, to the client).
    checked: [usize; 2],
    problems: Vec<String>,
    /// The method of each request, by direction and id, to check the result that answers it.
    methods: HashMap<(usize, String), String>,
}

/// A server of scripted agents on 127.0.0.1.
pub struct RemoteServer {
    /// The server.
    pub server: AcpServer,
    /// `http://127.0.0.1:PORT/acp`.
    pub url: String,
    /// What every connection's agent reports.
    pub agent_events: mpsc::UnboundedReceiver<AgentEvent>,
    log: Arc<Mutex<TapLog>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl fmt::Debug for RemoteServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteServer")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

fn tap(log: &Arc<Mutex<TapLog>>, check: &Checker, way: Way, bytes: &[u8]) {
    let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
    let side = usize::from(way == Way::Sent);
    log.checked[side] += 1;
    let message: Value = match serde_json::from_slice(bytes) {
        Ok(message) => message,
        Err(e) => {
            log.problems.push(format!("{way:?}: not JSON ({e})"));
            return;
        }
    };
    let id = message.get("id").map(Value::to_string);
    let answers = match (&id, message.get("method").and_then(Value::as_str)) {
        (Some(id), Some(method)) => {
            log.methods.insert((side, id.clone()), method.to_owned());
            None
        }
        // A response answers a request that went the other way.
        (Some(id), None) => log.methods.remove(&(1 - side, id.clone())),
        _ => None,
    };
    if let Err(problem) = check(&message, answers.as_deref()) {
        log.problems
            .push(format!("{way:?}: {problem}\n  {message}"));
    }
}

impl RemoteServer {
    /// Starts a server of scripted agents configured by `config`, all sharing their sessions,
    /// with `options`; the tap checks every message with `check`.
    pub async fn start(config: AgentConfig, options: ServerOptions, check: Checker) -> Self {
        let (events_tx, agent_events) = mpsc::unbounded_channel();
        let mut config = config;
        config.events = Arc::new(move |event| {
            let _ = events_tx.send(event);
        });
        let shared = SharedState::default();
        Self::serve(
            |options| {
                AcpServer::new(
                    move |client| ScriptedAgent::with_state(client, config.clone(), shared.clone()),
                    options,
                )
            },
            options,
            check,
            agent_events,
        )
        .await
    }

    /// Starts a server of the agents `factory` makes, one per connection, with `options`; the
    /// tap checks every message with `check`. The agents report no [`AgentEvent`]s.
    pub async fn serve_agents<A: acp_agent::Agent>(
        factory: impl Fn(acp_agent::ClientHandle) -> A + Send + Sync + 'static,
        options: ServerOptions,
        check: Checker,
    ) -> Self {
        let (_, agent_events) = mpsc::unbounded_channel();
        Self::serve(
            |options| AcpServer::new(factory, options),
            options,
            check,
            agent_events,
        )
        .await
    }

    /// Starts a server relaying each connection to a new agent program made by `command`
    /// (`AcpServer::bridge`), with `options`; the tap checks every message with `check`. The
    /// programs report no [`AgentEvent`]s.
    pub async fn bridge(
        command: impl Fn() -> tokio::process::Command + Send + Sync + 'static,
        options: ServerOptions,
        check: Checker,
    ) -> Self {
        let (_, agent_events) = mpsc::unbounded_channel();
        Self::serve(
            |options| AcpServer::bridge(command, options, BridgeOptions::default()),
            options,
            check,
            agent_events,
        )
        .await
    }

    /// Serves the server `make` builds from `options` (with the tap added) on 127.0.0.1.
    async fn serve(
        make: impl FnOnce(ServerOptions) -> AcpServer,
        options: ServerOptions,
        check: Checker,
        agent_events: mpsc::UnboundedReceiver<AgentEvent>,
    ) -> Self {
        let log = Arc::new(Mutex::new(TapLog::default()));
        let tapped = log.clone();
        let server = make(options.observe(move |way, bytes| tap(&tapped, &check, way, bytes)));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port on 127.0.0.1");
        let addr = listener.local_addr().expect("the port");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(acp_http::server::serve(
            listener,
            server.clone(),
            async move {
                let _ = stopped.await;
            },
        ));
        Self {
            server,
            url: format!("http://{addr}/acp"),
            agent_events,
            log,
            stop: Some(stop),
            task,
        }
    }

    /// The URL to reach the server with `transport`.
    pub fn url(&self, transport: Transport) -> String {
        match transport {
            Transport::Sse => self.url.clone(),
            Transport::WebSocket => self.url.replacen("http://", "ws://", 1),
        }
    }

    /// Connects a [`TestClient`] over `transport`.
    ///
    /// # Panics
    ///
    /// When the connection cannot be made.
    pub async fn connect(
        &self,
        transport: Transport,
        permission: PermissionPolicy,
        options: ClientOptions,
    ) -> RemoteClient {
        let (editor, client_events) = TestClient::new(permission);
        let connected = editor.clone();
        let (agent, driver) = within(
            "connecting",
            acp_http::client::connect(
                &self.url(transport),
                move |_| connected,
                ConnectOptions::default().client(options),
            ),
        )
        .await
        .unwrap_or_else(|e| panic!("connecting over {transport}: {e}"));
        RemoteClient {
            agent,
            editor,
            client_events,
            connection: driver.connection(),
            driver: tokio::spawn(driver),
        }
    }

    /// The next event of any of the server's agents.
    ///
    /// # Panics
    ///
    /// When none comes.
    pub async fn agent_event(&mut self) -> AgentEvent {
        within("an agent event", self.agent_events.recv())
            .await
            .expect("the agents' event stream is open")
    }

    /// Stops the server, and fails if any message was invalid or fewer than `min_messages`
    /// went each way.
    ///
    /// # Panics
    ///
    /// On a problem found by the tap.
    pub async fn finish(mut self, min_messages: usize) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        within("the server's end", &mut self.task)
            .await
            .expect("the server task")
            .expect("the server");
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        assert!(
            log.problems.is_empty(),
            "invalid messages on the wire:\n{}",
            log.problems.join("\n")
        );
        assert!(
            log.checked.iter().all(|&n| n >= min_messages),
            "too few messages checked: {:?}",
            log.checked
        );
    }
}

/// One remote editor connection.
pub struct RemoteClient {
    /// The handle to call the agent.
    pub agent: AgentHandle,
    /// The editor behind the connection.
    pub editor: TestClient,
    /// What the editor reports.
    pub client_events: mpsc::UnboundedReceiver<ClientEvent>,
    /// The connection (to close it).
    pub connection: Connection,
    /// The running driver.
    pub driver: JoinHandle<Result<(), acp_http::client::Error>>,
}

impl fmt::Debug for RemoteClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteClient").finish_non_exhaustive()
    }
}

impl RemoteClient {
    /// Initializes with `capabilities`.
    ///
    /// # Panics
    ///
    /// When `initialize` fails.
    pub async fn initialize(&self, capabilities: ClientCapabilities) -> InitializeResponse {
        let request = InitializeRequest::new(ProtocolVersion::LATEST)
            .client_capabilities(capabilities)
            .client_info(Implementation::new("e2e-remote-client", "0.1.0"));
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

    /// Closes the connection (DELETE, or the WebSocket's close) and waits for the driver.
    pub async fn close(self) {
        self.connection.close();
        let _ = within("the client driver's end", self.driver).await;
    }
}
