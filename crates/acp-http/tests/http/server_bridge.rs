//! The bridge (`AcpServer::bridge`) on real sockets and real child processes: a connection's
//! end stops its program gracefully (stdin closed, then `SIGTERM`, then `SIGKILL`, never an
//! immediate kill), the server's shutdown waits for that, and only JSON-RPC lines of the
//! program's output reach the client.
//!
//! The agent program is a small Python script (`python3`) that notes what happened to it in a
//! file: its pid, the end of its input, `SIGTERM`, its exit.

#![cfg(unix)]

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use acp_http::server::{AcpServer, BridgeOptions, ServerOptions, Stderr, serve};
use common::{Raw, check, request, within};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// The agent program. `argv`: the mode, then the file it notes what happens in.
///
/// - `polite`: answers `initialize` and `session/new`, exits at the end of its input.
/// - `stubborn`: ignores the end of its input and `SIGTERM` (noting both).
/// - `wrapper`: starts a helper in a session (and process group) of its own, as a wrapper
///   such as `acp tap -- agent` does, and stops it at the end of its input.
/// - `garbage`: answers `session/new` with lines that are not JSON-RPC around its messages.
/// - `flood`: after `initialize`, writes 20,000 lines that are not JSON-RPC.
const AGENT: &str = r#"
import json, os, signal, subprocess, sys, time

mode, marker = sys.argv[1], sys.argv[2]

def note(what):
    with open(marker, "a") as f:
        f.write(what + "\n")

def on_term(signum, frame):
    note("sigterm")
    if mode != "stubborn":
        note("exit")
        os._exit(0)

signal.signal(signal.SIGTERM, on_term)
note("pid %d" % os.getpid())
helper = None
if mode == "wrapper":
    helper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    note("helper %d" % helper.pid)

out = sys.stdout.buffer

def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()

GARBAGE = [
    b"Starting the agent, version 1.2.3...",
    b'{"id": 1}',
    b'[{"jsonrpc":"2.0","method":"session/update"}]',
    b'"2.0"',
    b'{"jsonrpc":"1.0","id":1,"result":{"sessionId":"s1"}}',
    b'{"jsonrpc":2.0,"id":1,"result":{"sessionId":"s1"}}',
    b'{"jsonrpc":"2.0","id":1,"result":',
    b'{"jsonrpc":"2.0","id":1,"result":{}} trailing',
    b'\xff\xfe{"jsonrpc":"2.0","id":1,"result":{}}',
    b'{"jsonrpc":"2.0","method":"session/update","params":{"s":"\xff"}}',
    b"",
]

for line in sys.stdin.buffer:
    message = json.loads(line)
    method = message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": 1}})
        if mode == "flood":
            out.write(b"not json\n" * 20000)
            out.flush()
    elif method == "session/new":
        update = {"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "s1",
            "update": {"sessionUpdate": "agent_message_chunk",
                       "content": {"type": "text", "text": "hello"}}}}
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"sessionId": "s1"}}
        if mode == "garbage":
            for g in GARBAGE:
                out.write(g + b"\n")
            send(update)
            for g in GARBAGE:
                out.write(g + b"\n")
            # The version written with an escape: still "2.0" to a JSON reader.
            text = json.dumps(answer).replace('"2.0"', '"2\\u002e0"')
            out.write(text.encode() + b"\n")
            out.flush()
        else:
            send(update)
            send(answer)

note("eof")
if helper is not None:
    helper.terminate()
    helper.wait()
    note("helper stopped")
if mode == "stubborn":
    while True:
        time.sleep(0.05)
note("exit")
"#;

/// A directory of its own for each test, with the agent script in it; removed when dropped.
struct Workdir(PathBuf);

impl Workdir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "acp-http-bridge-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("agent.py"), AGENT).unwrap();
        Self(dir)
    }

    fn script(&self) -> PathBuf {
        self.0.join("agent.py")
    }

    /// The notes of the agent started as number `n` (from 0).
    fn marker(&self, n: usize) -> PathBuf {
        self.0.join(format!("agent-{n}.log"))
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What an agent noted so far.
fn notes(marker: &Path) -> Vec<String> {
    std::fs::read_to_string(marker)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The number an agent noted after `label ` (its pid, its helper's).
fn noted_pid(marker: &Path, label: &str) -> u32 {
    notes(marker)
        .iter()
        .find_map(|line| line.strip_prefix(label)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no `{label}` in {:?}", notes(marker)))
}

/// Whether process `pid` exists (and is not a zombie waiting to be reaped).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| !s.trim_start().starts_with('Z'))
    })
}

/// Waits (bounded) until `done` holds.
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    within(what, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

/// A bridge on 127.0.0.1 running the agent script in `mode`, one notes file per agent.
struct Bridge {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Bridge {
    async fn start(work: &Workdir, mode: &'static str, grace: Duration) -> Self {
        let script = work.script();
        let dir = work.0.clone();
        let started = AtomicUsize::new(0);
        let server = AcpServer::bridge(
            move || {
                let n = started.fetch_add(1, Ordering::Relaxed);
                let mut command = tokio::process::Command::new("python3");
                command
                    .arg(&script)
                    .arg(mode)
                    .arg(dir.join(format!("agent-{n}.log")));
                command
            },
            ServerOptions::default(),
            BridgeOptions::default()
                .exit_timeout(grace)
                .stderr(Stderr::Inherit),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, server, async move {
            let _ = stopped.await;
        }));
        Self {
            url: format!("http://{addr}/acp"),
            stop: Some(stop),
            task,
        }
    }

    /// Shuts the server down and waits for `serve` to return.
    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        within("the server to stop", &mut self.task)
            .await
            .unwrap()
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_connection_closes_the_programs_input_and_lets_it_exit() {
    let work = Workdir::new();
    let bridge = Bridge::start(&work, "polite", Duration::from_secs(5)).await;
    let mut raw = Raw::new(&bridge.url);
    raw.initialize().await;
    let marker = work.marker(0);
    let pid = noted_pid(&marker, "pid");
    assert!(alive(pid));

    let deleted = Instant::now();
    assert_eq!(raw.delete().await, 202);
    eventually("the program to exit", || !alive(pid)).await;
    // It saw the end of its input and exited by itself, well within the grace: no signal.
    assert_eq!(notes(&marker)[1..], ["eof", "exit"], "{:?}", notes(&marker));
    assert!(deleted.elapsed() < Duration::from_secs(5));
    bridge.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_ignores_its_input_and_sigterm_is_killed_after_the_grace() {
    let work = Workdir::new();
    let grace = Duration::from_millis(400);
    let bridge = Bridge::start(&work, "stubborn", grace).await;
    let mut raw = Raw::new(&bridge.url);
    raw.initialize().await;
    let marker = work.marker(0);
    let pid = noted_pid(&marker, "pid");

    let deleted = Instant::now();
    assert_eq!(raw.delete().await, 202);
    eventually("the program to be killed", || !alive(pid)).await;
    let took = deleted.elapsed();
    // Input closed, a grace, SIGTERM (noted, ignored), another grace, SIGKILL.
    assert_eq!(
        notes(&marker)[1..],
        ["eof", "sigterm"],
        "{:?}",
        notes(&marker)
    );
    assert!(took >= grace * 2 - Duration::from_millis(50), "{took:?}");
    bridge.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrapper_program_stops_its_own_helper_when_the_websocket_closes() {
    let work = Workdir::new();
    let bridge = Bridge::start(&work, "wrapper", Duration::from_secs(5)).await;
    let url = bridge.url.replace("http://", "ws://");
    let (mut socket, _) = within("the upgrade", tokio_tungstenite::connect_async(url))
        .await
        .unwrap();
    let initialize = request(0, "initialize", json!({"protocolVersion": 1}));
    check(&initialize);
    within("a send", socket.send(Message::text(initialize.to_string())))
        .await
        .unwrap();
    let Some(Ok(Message::Text(answer))) = within("the answer", socket.next()).await else {
        panic!("no answer to initialize");
    };
    let answer: Value = serde_json::from_str(&answer).unwrap();
    check(&answer);
    let marker = work.marker(0);
    let pid = noted_pid(&marker, "pid");
    let helper = noted_pid(&marker, "helper");

    within("the close", socket.close(None)).await.unwrap();
    eventually("the wrapper to exit", || !alive(pid)).await;
    let helper_left = alive(helper);
    if helper_left {
        // Not left behind by this test either.
        let _ = std::process::Command::new("kill")
            .arg(helper.to_string())
            .status();
    }
    assert!(!helper_left, "the wrapper's helper still runs");
    assert_eq!(
        notes(&marker)[2..],
        ["eof", "helper stopped", "exit"],
        "{:?}",
        notes(&marker)
    );
    bridge.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_returns_once_the_bridged_programs_have_stopped() {
    let work = Workdir::new();
    let bridge = Bridge::start(&work, "polite", Duration::from_secs(5)).await;
    let mut first = Raw::new(&bridge.url);
    first.initialize().await;
    let mut second = Raw::new(&bridge.url);
    second.initialize().await;
    let pids = [
        noted_pid(&work.marker(0), "pid"),
        noted_pid(&work.marker(1), "pid"),
    ];

    bridge.stop().await;
    // Already done when `serve` returned: nothing to wait for.
    for (n, pid) in pids.into_iter().enumerate() {
        assert!(!alive(pid), "agent {n} still runs after serve returned");
        let notes = notes(&work.marker(n));
        assert_eq!(notes[1..], ["eof", "exit"], "agent {n}: {notes:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_json_rpc_lines_of_the_program_reach_the_client_in_order() {
    let work = Workdir::new();
    let bridge = Bridge::start(&work, "garbage", Duration::from_secs(5)).await;
    let mut raw = Raw::new(&bridge.url);
    raw.initialize().await;
    let mut stream = raw.stream(None).await.expect("the connection stream");

    for id in [1, 2] {
        let answer = raw
            .post(
                request(id, "session/new", json!({"cwd": "/work", "mcpServers": []})),
                &[],
            )
            .await;
        assert_eq!(answer.status, 202, "{answer:?}");
        // Each message is checked against the schema as it is read: a relayed garbage line
        // fails here.
        let update = stream.expect().await;
        assert_eq!(update["method"], "session/update", "{update}");
        assert_eq!(update["params"]["update"]["content"]["text"], "hello");
        let created = stream.expect().await;
        assert_eq!(created["id"], id, "{created}");
        assert_eq!(created["jsonrpc"], "2.0");
        assert_eq!(created["result"]["sessionId"], "s1");
    }
    assert_eq!(raw.delete().await, 202);
    assert!(stream.next().await.is_none(), "more after the messages");
    bridge.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_writing_only_garbage_loses_its_connection_and_is_stopped() {
    let work = Workdir::new();
    let bridge = Bridge::start(&work, "flood", Duration::from_secs(5)).await;
    let mut raw = Raw::new(&bridge.url);
    raw.initialize().await;
    let marker = work.marker(0);
    let pid = noted_pid(&marker, "pid");

    // The connection ends: its stream ends (or is gone before it is opened) ...
    match raw.stream(None).await {
        Ok(mut stream) => assert!(stream.next().await.is_none(), "a message from the flood"),
        Err(answer) => assert_eq!(answer.status, 404, "{answer:?}"),
    }
    // ... and the program is stopped (its output closed, it cannot write on).
    eventually("the program to exit", || !alive(pid)).await;
    bridge.stop().await;
}
