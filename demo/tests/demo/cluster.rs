//! What the scale-out and kill tests share: demo agent nodes (`agent --listen` with a durable
//! session store and a connection-id prefix), the README's HAProxy recipe, and an in-process
//! editor (acp-client over Streamable HTTP) that timestamps every update it receives and keeps
//! every message it exchanged, to check them all against the schema at the end.

#![cfg(unix)]
#![allow(clippy::print_stdout)] // The seed of the kill points is printed, to replay a failed run.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acp_client::{AgentHandle, Client, ClientOptions};
use acp_http::client::{ConnectOptions, Connection, connect};
use acp_rpc::Direction;
use acp_types::{
    ErrorObject, InitializeRequest, ListSessionsRequest, LoadSessionRequest, McpServer,
    NewSessionRequest, ProtocolVersion, RequestPermissionRequest, RequestPermissionResponse,
    SessionId, SessionInfo, SessionNotification, SessionUpdate,
};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::remote::Server;

/// The bearer token of every node: one user, whose sessions are theirs on every node.
pub(crate) const TOKEN: &str = "scale-out-s3cret";

/// What a `kill -9` may lose: the updates of the store's last group-commit window (20 ms by
/// default) and of the commit in flight, plus scheduling slack on a loaded machine.
pub(crate) const COMMIT_WINDOW: Duration = Duration::from_millis(500);

/// How long any one step (a connection, a call, a wait for an update) may take before the test
/// fails instead of hanging.
pub(crate) const STEP: Duration = Duration::from_secs(30);

/// Starts a demo agent node on a free port: `agent --listen 127.0.0.1:0 --token TOKEN
/// --sessions STORE`, with `--connection-id-prefix PREFIX` when one is given.
pub(crate) fn node(store: &str, prefix: Option<&str>) -> Server {
    let mut args = vec![
        "--listen",
        "127.0.0.1:0",
        "--token",
        TOKEN,
        "--sessions",
        store,
    ];
    if let Some(prefix) = prefix {
        args.extend(["--connection-id-prefix", prefix]);
    }
    Server::start("agent", &args)
}

/// The port of a node's `http://127.0.0.1:PORT/acp`.
pub(crate) fn port_of(server: &Server) -> u16 {
    server
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/acp")
        .parse()
        .unwrap_or_else(|_| panic!("not a loopback URL: {}", server.url))
}

/// The README's HAProxy recipe ("Scaling out") for two nodes at `127.0.0.1:{a}` (prefix `a.`)
/// and `127.0.0.1:{b}` (prefix `b.`), the balancer on `127.0.0.1:{port}`: requests of a
/// connection go to the node its `Acp-Connection-Id` names, and a new connection goes to a
/// node that is up (health checks, and a connection refused by a dead node is tried on the
/// other one).
pub(crate) fn haproxy_recipe(port: u16, a: u16, b: u16) -> String {
    format!(
        "\
defaults
    mode http
    timeout connect 500ms
    timeout client 1h
    timeout server 1h
    retries 2
    option redispatch 1
    retry-on conn-failure

frontend acp
    bind 127.0.0.1:{port}
    use_backend node_a if {{ req.hdr(acp-connection-id) -m beg a. }}
    use_backend node_b if {{ req.hdr(acp-connection-id) -m beg b. }}
    default_backend any_node

backend any_node
    balance roundrobin
    default-server check inter 500ms fall 1 rise 1
    server a 127.0.0.1:{a}
    server b 127.0.0.1:{b}

backend node_a
    server a 127.0.0.1:{a}

backend node_b
    server b 127.0.0.1:{b}
"
    )
}

/// An update as the editor received it.
pub(crate) struct Received {
    /// When it arrived.
    pub(crate) at: Instant,
    /// The notification.
    pub(crate) notification: SessionNotification,
}

impl Received {
    /// The text of an `agent_message_chunk`, `None` for other updates.
    pub(crate) fn agent_text(&self) -> Option<String> {
        match &self.notification.update {
            SessionUpdate::AgentMessageChunk(chunk) => chunk.content.as_text().map(str::to_owned),
            _ => None,
        }
    }

    /// The text of a `user_message_chunk` (a replayed prompt), `None` for other updates.
    pub(crate) fn user_text(&self) -> Option<String> {
        match &self.notification.update {
            SessionUpdate::UserMessageChunk(chunk) => chunk.content.as_text().map(str::to_owned),
            _ => None,
        }
    }
}

/// The editor: refuses every permission (the tests' commands ask none) and hands every update,
/// timestamped, to its connection's receiver.
struct Editor {
    updates: mpsc::UnboundedSender<Received>,
}

#[acp_client::async_trait]
impl Client for Editor {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        Err(ErrorObject::invalid_request(format!(
            "the test asked for no permission ({})",
            request.tool_call.tool_call_id
        )))
    }

    async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
        let _ = self.updates.send(Received {
            at: Instant::now(),
            notification: n,
        });
        Ok(())
    }
}

/// Every message of a connection, both ways, as it passed (kept to be checked at the end).
type Traffic = Arc<Mutex<Vec<(Direction, Vec<u8>)>>>;

/// One editor connection to an agent over Streamable HTTP, initialized (protocol v1).
pub(crate) struct Remote {
    /// The agent.
    pub(crate) agent: AgentHandle,
    /// The connection (its id names the node that serves it).
    pub(crate) connection: Connection,
    /// The updates received so far, in order.
    pub(crate) updates: mpsc::UnboundedReceiver<Received>,
    traffic: Traffic,
    driver: tokio::task::JoinHandle<()>,
}

impl Remote {
    /// Connects to `url` with the nodes' token and initializes.
    pub(crate) async fn open(url: &str) -> Self {
        let traffic = Traffic::default();
        let tap = traffic.clone();
        let client = ClientOptions::default().observe(move |direction, body: &[u8]| {
            tap.lock().unwrap().push((direction, body.to_vec()));
        });
        let options = ConnectOptions::default()
            .bearer_token(TOKEN)
            .unwrap()
            .client(client)
            .connect_timeout(Some(STEP))
            .post_timeout(Some(STEP));
        let (tx, updates) = mpsc::unbounded_channel();
        let (agent, driver) = connect(url, move |_| Editor { updates: tx }, options)
            .await
            .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
        let connection = driver.connection();
        // The driver ends with an error when the node dies: that is a test's point, not a
        // failure.
        let driver = tokio::spawn(async move {
            let _ = driver.await;
        });
        let remote = Self {
            agent,
            connection,
            updates,
            traffic,
            driver,
        };
        within(
            "initialize",
            remote
                .agent
                .initialize(InitializeRequest::new(ProtocolVersion::V1)),
        )
        .await
        .unwrap_or_else(|e| panic!("initialize through {url}: {e}"));
        remote
    }

    /// The connection id the serving node gave (it starts with the node's prefix).
    pub(crate) fn connection_id(&self) -> String {
        self.connection
            .connection_id()
            .expect("an initialized connection has an id")
    }

    /// `session/new` in `cwd`.
    pub(crate) async fn new_session(&self, cwd: &Path) -> SessionId {
        within(
            "session/new",
            self.agent
                .new_session(NewSessionRequest::new(cwd, no_mcp())),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e}"))
        .session_id
    }

    /// `session/load`: the updates it replayed (the first one's arrival time is when the
    /// history started to come back).
    pub(crate) async fn load(&mut self, session: &SessionId, cwd: &Path) -> Vec<Received> {
        while self.updates.try_recv().is_ok() {}
        within(
            "session/load",
            self.agent
                .load_session(LoadSessionRequest::new(session.clone(), cwd, no_mcp())),
        )
        .await
        .unwrap_or_else(|e| panic!("session/load {session}: {e}"));
        // The replay comes before the answer, in order, on the session's stream.
        let mut replay = Vec::new();
        while let Ok(update) = self.updates.try_recv() {
            assert_eq!(&update.notification.session_id, session);
            replay.push(update);
        }
        replay
    }

    /// Every session `session/list` gives, page after page.
    pub(crate) async fn list_all(&self) -> Vec<SessionInfo> {
        let mut sessions = Vec::new();
        let mut cursor = None;
        loop {
            let mut request = ListSessionsRequest::new();
            request.cursor = cursor;
            let page = within("session/list", self.agent.list_sessions(request))
                .await
                .unwrap_or_else(|e| panic!("session/list: {e}"));
            sessions.extend(page.sessions);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return sessions,
            }
        }
    }

    /// The next update, waiting at most [`STEP`].
    pub(crate) async fn next_update(&mut self) -> Received {
        within("an update", self.updates.recv())
            .await
            .expect("the connection's updates ended")
    }

    /// Closes the connection and checks every message it exchanged against the schema.
    pub(crate) async fn close(self) {
        self.connection.close();
        let _ = tokio::time::timeout(STEP, self.driver).await;
        check_traffic(&self.traffic.lock().unwrap());
    }

    /// For a connection whose node was killed: stops it and checks what it exchanged.
    pub(crate) fn abandon(self) {
        self.driver.abort();
        check_traffic(&self.traffic.lock().unwrap());
    }
}

/// A runtime for a test that drives processes (two threads: the editor's connection and the
/// test's own waiting).
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The agent's message texts among `updates`, in order.
pub(crate) fn agent_texts<'a>(updates: impl IntoIterator<Item = &'a Received>) -> Vec<String> {
    updates
        .into_iter()
        .filter_map(Received::agent_text)
        .collect()
}

/// Asserts that `replay` (a `session/load` after a `kill -9` at `killed`) keeps the turn the
/// client saw `live`: the prompt `prompt`, then the agent's chunks in the order they streamed,
/// at least every one that reached the client [`COMMIT_WINDOW`] before the kill (the agent may
/// have stored a few more than reached the client). Returns the chunks replayed and streamed.
pub(crate) fn assert_replay_keeps(
    live: &[Received],
    replay: &[Received],
    prompt: &str,
    killed: Instant,
) -> (usize, usize) {
    let seen = agent_texts(live);
    let replayed = agent_texts(replay);
    let acknowledged = agent_texts(live.iter().filter(|r| r.at + COMMIT_WINDOW <= killed)).len();
    if acknowledged > 0 || !replayed.is_empty() {
        let replayed_prompt = replay.iter().find_map(Received::user_text);
        assert_eq!(
            replayed_prompt.as_deref(),
            Some(prompt),
            "the prompt is not replayed"
        );
    }
    let common = replayed.len().min(seen.len());
    assert_eq!(
        replayed[..common],
        seen[..common],
        "the replay differs from what was streamed"
    );
    assert!(
        replayed.len() >= acknowledged,
        "{} chunks replayed, but {acknowledged} had reached the client more than \
         {COMMIT_WINDOW:?} before the kill",
        replayed.len()
    );
    (replayed.len(), seen.len())
}

/// Awaits `future` for at most [`STEP`]; the test fails naming `what` past it.
pub(crate) async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, future)
        .await
        .unwrap_or_else(|_| panic!("{what} took more than {STEP:?}"))
}

/// No MCP servers (for `session/new` and `session/load`).
pub(crate) fn no_mcp() -> Vec<McpServer> {
    Vec::new()
}

/// Checks every message of a connection against the schema: requests and notifications by
/// their method's params, responses by the result of the request they answer (found by id).
fn check_traffic(traffic: &[(Direction, Vec<u8>)]) {
    let spec = acp_testkit::Spec::load();
    assert!(!traffic.is_empty(), "the connection exchanged nothing");
    let mut asked: [HashMap<String, String>; 2] = Default::default();
    let side = |direction: Direction| usize::from(direction == Direction::Sent);
    for (direction, body) in traffic {
        let message: Value = serde_json::from_slice(body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(body)));
        match message["method"].as_str() {
            Some(method) => {
                spec.check_message(&message)
                    .unwrap_or_else(|e| panic!("{e}\n{message}"));
                if !message["id"].is_null() {
                    asked[side(*direction)].insert(message["id"].to_string(), method.to_owned());
                }
            }
            None => {
                // An answer goes the other way from its request.
                let method = asked[1 - side(*direction)]
                    .get(&message["id"].to_string())
                    .unwrap_or_else(|| panic!("an answer to no request: {message}"));
                spec.check_response(&message, method)
                    .unwrap_or_else(|e| panic!("{e}\n{message}"));
            }
        }
    }
}

/// A small deterministic random number generator (xorshift64*), seeded from the clock unless
/// `ACP_KILL_SEED` gives the seed of a failed run to replay it.
pub(crate) struct Dice(u64);

impl Dice {
    /// Seeded from `ACP_KILL_SEED`, or else the clock; the seed is printed.
    pub(crate) fn new() -> Self {
        let seed = std::env::var("ACP_KILL_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            })
            .max(1);
        println!("random kill points: ACP_KILL_SEED={seed}");
        Self(seed)
    }

    /// A number in `0..bound`.
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound.max(1)
    }
}
