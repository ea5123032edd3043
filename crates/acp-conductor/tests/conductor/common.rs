//! What the tests share: the programs of the chain, an editor driving a conductor in process,
//! and the schema check of every hop.

#![allow(dead_code)] // Each test file uses a part.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use acp_conductor::{Component, Conductor, Direction, Link};
use acp_rpc::{Config, Peer, Router};
use acp_testkit::Spec;
use acp_types::methods::{Initialize, SessionNew, SessionRequestPermission, SessionUpdate};
use acp_types::{
    InitializeRequest, McpServer, NewSessionRequest, ProtocolVersion, RequestPermissionOutcome,
    RequestPermissionResponse, SessionId, SessionNotification,
};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// The longest any one step of a test may take.
pub(crate) const STEP: Duration = Duration::from_secs(20);

/// Awaits `f` for at most [`STEP`].
pub(crate) async fn within<T>(what: &str, f: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, f)
        .await
        .unwrap_or_else(|_| panic!("{what} took longer than {STEP:?}"))
}

/// `target/<profile>`, where cargo puts the programs.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test executable lives in target/<profile>/deps")
        .to_path_buf()
}

/// The demo agent (`acp-demo`'s `agent` program), built once per test run.
pub(crate) fn demo_agent() -> PathBuf {
    demo_program("agent")
}

/// A program of the demo (`agent`, `bridge`), built once per test run.
pub(crate) fn demo_program(name: &str) -> PathBuf {
    acp_testkit::cargo_build(&["-p", "acp-demo", "--bin", "agent", "--bin", "bridge"]);
    let path = target_dir().join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.is_file(), "{} is not built", path.display());
    path
}

/// The scripted proxy of `examples/chain_proxy.rs` (`cargo test` builds it).
pub(crate) fn chain_proxy() -> PathBuf {
    let path = target_dir()
        .join("examples")
        .join(format!("chain_proxy{}", std::env::consts::EXE_SUFFIX));
    assert!(path.is_file(), "{} is not built", path.display());
    path
}

/// The demo agent as a component, its processes marked with `token` in their environment.
pub(crate) fn agent(token: &str) -> Component {
    Component::new(
        "env",
        [
            format!("ACP_CONDUCTOR_TEST={token}"),
            demo_agent().display().to_string(),
        ],
    )
}

/// A scripted proxy in `mode` (`pass`, `inject TEXT`, `die-mid-turn`), marked with `token`.
pub(crate) fn proxy(token: &str, mode: &[&str]) -> Component {
    let mut args = vec![
        format!("ACP_CONDUCTOR_TEST={token}"),
        chain_proxy().display().to_string(),
    ];
    args.extend(mode.iter().map(|s| (*s).to_owned()));
    Component::new("env", args)
}

/// A token for the processes of one test.
pub(crate) fn token(test: &str) -> String {
    format!("{test}-{}", std::process::id())
}

/// The processes still running (not zombies) whose environment holds `token`.
#[cfg(target_os = "linux")]
pub(crate) fn alive(token: &str) -> Vec<u32> {
    let needle = format!("ACP_CONDUCTOR_TEST={token}");
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}

/// Checks every message of every hop against the schema (the draft one: the hops between
/// the conductor and its proxies carry `proxy/*` messages), remembering each request's method
/// to check its answer.
#[derive(Clone, Default)]
pub(crate) struct Checker {
    state: Arc<Mutex<CheckerState>>,
}

#[derive(Default)]
struct CheckerState {
    /// Requests seen, by hop, direction and id: the method whose result answers them.
    open: HashMap<(Link, Direction, String), String>,
    /// Every message, by hop and direction.
    log: Vec<(Link, Direction, Value)>,
    problems: Vec<String>,
}

fn reverse(direction: Direction) -> Direction {
    match direction {
        Direction::Sent => Direction::Received,
        _ => Direction::Sent,
    }
}

impl Checker {
    /// The observer to give [`Conductor::observe`].
    pub(crate) fn observer(&self) -> impl Fn(Link, Direction, &[u8]) + Send + Sync + 'static {
        let state = self.state.clone();
        move |link, direction, body| {
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            state.check(link, direction, body);
        }
    }

    /// Every message seen on `link` in `direction`.
    pub(crate) fn messages(&self, link: Link, direction: Direction) -> Vec<Value> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .log
            .iter()
            .filter(|(l, d, _)| *l == link && *d == direction)
            .map(|(_, _, v)| v.clone())
            .collect()
    }

    /// Fails the test if any message broke the schema.
    pub(crate) fn assert_clean(&self) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        assert!(
            state.problems.is_empty(),
            "messages the schema rejects:\n{}",
            state.problems.join("\n")
        );
        assert!(!state.log.is_empty(), "no message was observed");
    }
}

impl CheckerState {
    fn check(&mut self, link: Link, direction: Direction, body: &[u8]) {
        let spec = Spec::load_unstable();
        let message: Value = match serde_json::from_slice(body) {
            Ok(message) => message,
            Err(e) => {
                self.problems
                    .push(format!("{link:?} {direction}: not JSON ({e})"));
                return;
            }
        };
        let problem = self.problem(spec, link, direction, &message);
        if let Some(problem) = problem {
            self.problems
                .push(format!("{link:?} {direction}: {problem}\n  {message}"));
        }
        self.log.push((link, direction, message));
    }

    fn problem(
        &mut self,
        spec: &Spec,
        link: Link,
        direction: Direction,
        message: &Value,
    ) -> Option<String> {
        let id = message.get("id").map(Value::to_string);
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            let answered_by = match method {
                "proxy/successor" => {
                    let envelope = if id.is_some() {
                        "ProxyRequest"
                    } else {
                        "ProxyNotification"
                    };
                    let params = if id.is_some() {
                        "ProxySuccessorRequest"
                    } else {
                        "ProxySuccessorNotification"
                    };
                    if let Err(e) = spec.check_def(envelope, message) {
                        return Some(e);
                    }
                    if let Err(e) = spec.check_def(params, &message["params"]) {
                        return Some(e);
                    }
                    // The wrapped message is a message of its own.
                    let inner_method = message["params"]["method"].as_str()?;
                    let mut inner = json!({ "jsonrpc": "2.0", "method": inner_method });
                    if let Some(params) = message["params"].get("params") {
                        inner["params"] = params.clone();
                    }
                    if let Some(id) = message.get("id") {
                        inner["id"] = id.clone();
                    }
                    if let Err(e) = spec.check_message(&inner) {
                        return Some(format!("the wrapped message: {e}"));
                    }
                    inner_method.to_owned()
                }
                "proxy/initialize" => {
                    if let Err(e) = spec.check_def("ProxyRequest", message) {
                        return Some(e);
                    }
                    if let Err(e) = spec.check_def("InitializeProxyRequest", &message["params"]) {
                        return Some(e);
                    }
                    "initialize".to_owned()
                }
                _ => {
                    if let Err(e) = spec.check_message(message) {
                        return Some(e);
                    }
                    method.to_owned()
                }
            };
            if let Some(id) = id {
                self.open.insert((link, direction, id), answered_by);
            }
            return None;
        }
        let Some(id) = id else {
            return Some("neither a request, a notification nor a response".to_owned());
        };
        match self.open.remove(&(link, reverse(direction), id)) {
            Some(method) => spec.check_response(message, &method).err(),
            None => spec.check_message(message).err(),
        }
    }
}

/// An editor connected to a conductor running in process.
pub(crate) struct Editor {
    pub(crate) agent: Peer,
    pub(crate) updates: Arc<Mutex<Vec<SessionNotification>>>,
    pub(crate) conductor: JoinHandle<Result<(), acp_conductor::Error>>,
    pub(crate) driver: JoinHandle<Result<(), acp_rpc::Error>>,
    pub(crate) checker: Checker,
}

impl Editor {
    /// Starts `conductor` (observed by a [`Checker`]) and connects an editor to it.
    pub(crate) fn start(conductor: Conductor) -> Self {
        let checker = Checker::default();
        let conductor = conductor
            .grace(Duration::from_secs(2))
            .observe(checker.observer());
        let (editor_io, conductor_io) = tokio::io::duplex(1 << 20);
        let (reader, writer) = tokio::io::split(conductor_io);
        let conductor = tokio::spawn(conductor.run(reader, writer));
        let updates = Arc::new(Mutex::new(Vec::new()));
        let seen = updates.clone();
        let (editor_read, editor_write) = tokio::io::split(editor_io);
        let (agent, driver) = acp_rpc::connect(
            move |_agent| {
                Router::new()
                    .notification::<SessionUpdate, _, _>(move |update| {
                        seen.lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(update);
                        async {}
                    })
                    .request::<SessionRequestPermission, _, _>(|_request| async {
                        Ok(RequestPermissionResponse::new(
                            RequestPermissionOutcome::cancelled(),
                        ))
                    })
            },
            editor_read,
            editor_write,
            Config::default(),
        );
        let driver = tokio::spawn(driver);
        Self {
            agent,
            updates,
            conductor,
            driver,
            checker,
        }
    }

    /// `initialize` and `session/new`: the session's id.
    pub(crate) async fn open_session(&self) -> SessionId {
        let init = within(
            "initialize",
            self.agent
                .request::<Initialize>(&InitializeRequest::new(ProtocolVersion::LATEST)),
        )
        .await
        .expect("initialize through the chain");
        assert_eq!(init.protocol_version, ProtocolVersion::V1);
        let session = within(
            "session/new",
            self.agent
                .request::<SessionNew>(&NewSessionRequest::new("/tmp", Vec::<McpServer>::new())),
        )
        .await
        .expect("session/new through the chain");
        session.session_id
    }

    /// How many updates arrived.
    pub(crate) fn update_count(&self) -> usize {
        self.updates
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}
