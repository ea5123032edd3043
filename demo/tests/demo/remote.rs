//! End-to-end tests of remote ACP with the demo programs as real processes, on 127.0.0.1:
//! `agent --listen` (the demo agent over Streamable HTTP and WebSocket) and `bridge --listen
//! -- agent` (the stdio agent behind the bridge), driven by `client --url` over `http://` and
//! `ws://`. The tests assert on the client's `--json` transcript, check every message the
//! server passed against the official schema, and stop every process (SIGTERM, then SIGKILL
//! when a deadline passes).

#![cfg(unix)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{
    Run, Workdir, of, program, run_client, start_client, stop_reasons, updates, wait,
};
use serde_json::Value;

/// How long a server has to say where it listens, and to exit after SIGTERM.
const SERVER_TIMEOUT: Duration = Duration::from_secs(20);

pub(crate) fn signal(pid: u32, name: &str) {
    let _ = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status();
}

/// The live (not zombie) children of process `pid`, from `/proc`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let child: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).ok()?;
            // `pid (comm) state ppid ...`: the command may hold spaces and parentheses.
            let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
            let state = fields.next()?;
            let ppid: u32 = fields.next()?.parse().ok()?;
            (ppid == pid && state != "Z").then_some(child)
        })
        .collect()
}

/// Waits until `pid` has no live children; false when `within` passed first.
fn children_gone(pid: u32, within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if children(pid).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// A fresh directory with the file the scripts use.
fn workdir(name: &str) -> Workdir {
    Workdir::new("remote", name)
}

/// A running `agent --listen` or `bridge --listen`: SIGTERM and SIGKILL when dropped.
pub(crate) struct Server {
    child: Option<Child>,
    /// `http://127.0.0.1:PORT/acp` (`https://` with TLS), as the server printed it.
    pub(crate) url: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `name args`, which must add `--listen 127.0.0.1:0` themselves, and waits for
    /// the line saying where it serves.
    pub(crate) fn start(name: &str, args: &[&str]) -> Self {
        let mut child = Command::new(program(name))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the server");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (url_tx, url_rx) = std::sync::mpsc::channel();
        let lines = BufReader::new(child.stderr.take().unwrap());
        let log = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.lines() {
                let Ok(line) = line else { break };
                if let Some(at) = line.find("https://").or_else(|| line.find("http://")) {
                    let url = line[at..]
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_owned();
                    let _ = url_tx.send(url);
                }
                log.lock().unwrap().push_str(&format!("{line}\n"));
            }
        });
        let mut server = Server {
            child: Some(child),
            url: String::new(),
            stderr,
        };
        match url_rx.recv_timeout(SERVER_TIMEOUT) {
            Ok(url) => server.url = url,
            Err(_) => panic!(
                "{name} did not say where it listens within {SERVER_TIMEOUT:?}; stderr:\n{}",
                server.stderr()
            ),
        }
        server
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// The WebSocket URL of the same endpoint.
    fn ws_url(&self) -> String {
        self.url.replacen("http", "ws", 1)
    }

    /// The server's base URL, for the `client_id` profile.
    fn base_url(&self) -> String {
        self.url.trim_end_matches("/acp").to_owned()
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// SIGTERM, and the exit status once it exited (SIGKILL and a panic past the deadline).
    pub(crate) fn stop(mut self) -> ExitStatus {
        let mut child = self.child.take().unwrap();
        signal(child.id(), "TERM");
        let start = Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if start.elapsed() > SERVER_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "the server did not exit within {SERVER_TIMEOUT:?} of SIGTERM; stderr:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // The server stops its bridged programs when it exits; SIGKILL would leave them.
            signal(child.id(), "TERM");
            let start = Instant::now();
            while start.elapsed() < SERVER_TIMEOUT {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Checks every message of a server's wire log (`PREFIX.recv`, `PREFIX.sent`: one message per
/// line) against the official schema; returns the methods seen, or `None` without the
/// specification.
fn check_wire(prefix: &Path) -> Option<BTreeSet<String>> {
    let spec = acp_testkit::Spec::load_or_skip()?;
    let mut methods = BTreeSet::new();
    for ext in [".recv", ".sent"] {
        let mut name = prefix.as_os_str().to_owned();
        name.push(ext);
        let text = std::fs::read_to_string(PathBuf::from(name)).expect("the wire log");
        assert!(!text.is_empty(), "an empty wire log ({ext})");
        for line in text.lines() {
            let message: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("a logged message is not JSON ({e}): {line}"));
            spec.assert_valid_message(&message);
            if let Some(method) = message["method"].as_str() {
                methods.insert(method.to_owned());
            }
        }
    }
    Some(methods)
}

/// The script of a whole session: chat, a read, an edit with a permission request, a command
/// in a terminal, a turn cancelled by `--cancel-after`, the session list.
const SCRIPT: [&str; 6] = [
    "hello",
    "read notes.txt",
    "edit notes.txt",
    "run sh -c 'echo out; exit 3'",
    "stream 100 100",
    ":list",
];

fn script_args<'a>(url: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--url", url, "--json", "--yes", "--cancel-after", "4s"];
    args.extend_from_slice(extra);
    for step in SCRIPT {
        args.extend(["--prompt", step]);
    }
    args
}

/// Asserts that the transcript of [`SCRIPT`] shows the whole session working.
fn assert_whole_session(run: &Run, dir: &Workdir, what: &str) {
    assert_eq!(run.code, Some(0), "{what}: stderr: {}", run.stderr);
    let events = run.events();
    let init = &of(&events, "initialized")[0];
    assert_eq!(init["protocolVersion"], 1, "{what}");
    assert_eq!(init["agentInfo"]["name"], "acp-demo-agent", "{what}");
    assert_eq!(of(&events, "session_new").len(), 1, "{what}");
    assert!(updates(&events, "agent_message_chunk").len() > 10, "{what}");
    assert!(
        !updates(&events, "agent_thought_chunk").is_empty(),
        "{what}"
    );
    assert_eq!(of(&events, "fs_read").len(), 2, "{what}: read, then edit");
    // The permission request of the edit, answered by --yes, and the write.
    let asked = of(&events, "permission_request");
    assert_eq!(asked.len(), 2, "{what}: the edit and the command");
    assert_eq!(of(&events, "permission_response")[0]["optionId"], "allow");
    assert_eq!(of(&events, "fs_write")[0]["ok"], true, "{what}");
    assert_eq!(dir.read("notes.txt"), "# Notes\n- DONE: one\n- DONE: two\n");
    // The command ran in a client terminal.
    assert_eq!(of(&events, "terminal_exit")[0]["exitCode"], 3, "{what}");
    // The slow turn was cancelled.
    assert_eq!(of(&events, "cancel").len(), 1, "{what}");
    assert_eq!(
        stop_reasons(&events),
        ["end_turn", "end_turn", "end_turn", "end_turn", "cancelled"],
        "{what}"
    );
    assert!(!of(&events, "sessions").is_empty(), "{what}");
    assert_eq!(of(&events, "done")[0]["ok"], true, "{what}");
}

#[test]
fn the_demo_agent_serves_a_whole_session_over_http_and_websocket() {
    let logs = workdir("agent-logs");
    let wire = logs.path().join("wire");
    let wire_arg = wire.display().to_string();
    let server = Server::start(
        "agent",
        &["--listen", "127.0.0.1:0", "--wire-log", &wire_arg],
    );
    for url in [server.url.clone(), server.ws_url()] {
        let dir = workdir(if url.starts_with("ws") { "ws" } else { "http" });
        let run = run_client(dir.path(), &script_args(&url, &[]));
        assert_whole_session(&run, &dir, &url);
    }
    let stderr = server.stderr();
    let status = server.stop();
    assert!(status.success(), "SIGTERM: {status}; stderr:\n{stderr}");

    if let Some(methods) = check_wire(&wire) {
        for method in [
            "initialize",
            "session/new",
            "session/prompt",
            "session/update",
            "session/request_permission",
            "session/cancel",
            "session/list",
            "fs/read_text_file",
            "fs/write_text_file",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/release",
        ] {
            assert!(methods.contains(method), "{method} not on the wire");
        }
    }
}

#[cfg(feature = "tls")]
#[test]
fn the_demo_agent_serves_https_and_wss_with_the_certificate_it_is_given() {
    let keys = workdir("tls-keys");
    let key = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    keys.write("cert.pem", key.cert.pem());
    keys.write("key.pem", key.signing_key.serialize_pem());
    let cert = keys.path().join("cert.pem").display().to_string();
    let private = keys.path().join("key.pem").display().to_string();
    let server = Server::start(
        "agent",
        &[
            "--listen",
            "127.0.0.1:0",
            "--tls-cert",
            &cert,
            "--tls-key",
            &private,
        ],
    );
    assert!(server.url.starts_with("https://"), "{}", server.url);
    // The certificate is for `localhost`.
    let https = server.url.replacen("127.0.0.1", "localhost", 1);
    let wss = https.replacen("https", "wss", 1);
    for url in [&https, &wss] {
        let dir = workdir(if url.starts_with("wss") {
            "wss"
        } else {
            "https"
        });
        let run = run_client(dir.path(), &script_args(url, &["--tls-ca", &cert]));
        assert_whole_session(&run, &dir, url);
    }
    // Trusting the system's authorities only, the client refuses the certificate, saying so.
    let dir = workdir("untrusted");
    let refused = run_client(dir.path(), &["--url", &https, "--json", "--prompt", "hi"]);
    assert_ne!(refused.code, Some(0));
    assert!(refused.stderr.contains("certificate"), "{}", refused.stderr);
    assert!(server.stop().success());
}

#[test]
fn a_session_outlives_its_connection_and_loads_over_the_other_transport_for_its_user() {
    // One token, one user: every connection that presents it owns the same sessions.
    let server = Server::start("agent", &["--listen", "127.0.0.1:0", "--token", "s3cret"]);
    let dir = workdir("reconnect");
    let first = run_client(
        dir.path(),
        &[
            "--url",
            &server.url,
            "--token",
            "s3cret",
            "--json",
            "--prompt",
            "title Remote",
        ],
    );
    assert_eq!(first.code, Some(0), "stderr: {}", first.stderr);
    let events = first.events();
    let session = of(&events, "session_new")[0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();

    let load = format!(":load {session}");
    let second = run_client(
        dir.path(),
        &[
            "--url",
            &server.ws_url(),
            "--token",
            "s3cret",
            "--json",
            "--prompt",
            &load,
        ],
    );
    assert_eq!(second.code, Some(0), "stderr: {}", second.stderr);
    let events = second.events();
    let loaded = &of(&events, "session_load")[0];
    assert!(loaded["replayed"].as_u64().unwrap() > 0, "{loaded}");
    let replayed: Vec<&Value> = events.iter().filter(|e| e["replay"] == true).collect();
    assert_eq!(replayed[0]["update"]["content"]["text"], "title Remote");
    assert!(server.stop().success());
}

#[test]
fn a_session_runs_one_turn_at_a_time_across_connections() {
    let server = Server::start("agent", &["--listen", "127.0.0.1:0", "--token", "s3cret"]);
    let dir = workdir("one-turn");
    let child = start_client(
        dir.path(),
        &[
            "--url",
            &server.url,
            "--token",
            "s3cret",
            "--json",
            "--prompt",
            "stream 1000 100",
        ],
    );
    let streaming = child.id();
    let (lines, seen) = std::sync::mpsc::channel::<String>();
    let first = std::thread::spawn(move || {
        wait(child, move |line| {
            let _ = lines.send(line.to_owned());
        })
    });
    // The session's id, then its turn streaming.
    let deadline = Instant::now() + SERVER_TIMEOUT;
    let mut session = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = seen
            .recv_timeout(left)
            .expect("the first turn streams in time");
        let event: Value = serde_json::from_str(&line).unwrap_or_default();
        if event["event"] == "session_new" {
            session = event["sessionId"].as_str().map(str::to_owned);
        }
        if event["update"]["sessionUpdate"] == "agent_message_chunk" {
            break;
        }
    }
    let session = session.expect("a session_new event");

    // The same user on another connection: the session is theirs, but busy.
    let resume = format!(":resume {session}");
    let second = run_client(
        dir.path(),
        &[
            "--url",
            &server.ws_url(),
            "--token",
            "s3cret",
            "--json",
            "--prompt",
            &resume,
            "--prompt",
            "hello",
        ],
    );
    signal(streaming, "INT");
    let first = first.join().unwrap();
    assert_eq!(stop_reasons(&first.events()), ["cancelled"]);
    let events = second.events();
    assert_eq!(of(&events, "session_resume").len(), 1, "{}", second.stdout);
    let errors = of(&events, "error");
    let error = errors
        .first()
        .unwrap_or_else(|| panic!("the second turn ran alongside: {}", second.stdout));
    assert_eq!(error["during"], "session/prompt", "{error}");
    assert_eq!(error["code"], -32600, "{error}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("already running")),
        "{error}"
    );
    assert!(server.stop().success());
}

#[test]
fn without_authentication_a_connection_sees_only_its_own_sessions() {
    let server = Server::start("agent", &["--listen", "127.0.0.1:0"]);
    let dir = workdir("strangers");
    let first = run_client(
        dir.path(),
        &["--url", &server.url, "--json", "--prompt", "my secret"],
    );
    assert_eq!(first.code, Some(0), "stderr: {}", first.stderr);
    let events = first.events();
    let session = of(&events, "session_new")[0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();

    // Another connection: its list holds only its own session, and loading the first one's
    // is "not found" (-32002), with nothing replayed.
    let load = format!(":load {session}");
    let second = run_client(
        dir.path(),
        &[
            "--url",
            &server.ws_url(),
            "--json",
            "--prompt",
            ":list",
            "--prompt",
            &load,
        ],
    );
    assert_eq!(second.code, Some(1), "stderr: {}", second.stderr);
    let events = second.events();
    let own = &of(&events, "session_new")[0]["sessionId"];
    let listed = &of(&events, "sessions")[0]["sessions"];
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["sessionId"], *own);
    let error = &of(&events, "error")[0];
    assert_eq!(error["during"], "session/load");
    assert_eq!(error["code"], -32002, "{error}");
    assert!(events.iter().all(|e| e["replay"] != true));
    assert!(server.stop().success());
}

#[test]
fn a_bearer_token_is_required_and_the_client_id_profile_is_served() {
    let server = Server::start(
        "agent",
        &[
            "--listen",
            "127.0.0.1:0",
            "--token",
            "s3cret",
            "--client-id-profile",
        ],
    );
    let dir = workdir("token");

    // Without the token: 401, and the client says so.
    let refused = run_client(dir.path(), &["--url", &server.url, "--json"]);
    assert_eq!(refused.code, Some(1), "stderr: {}", refused.stderr);
    let events = refused.events();
    let error = &of(&events, "error")[0];
    assert_eq!(error["during"], "initialize");
    assert_eq!(error["data"]["status"], 401, "{error}");

    // With it, over each transport and the client_id profile.
    let base = server.base_url();
    for (url, extra) in [
        (server.url.clone(), None),
        (server.ws_url(), None),
        (base, Some("--client-id-profile")),
    ] {
        let mut args = vec!["--url", &url, "--token", "s3cret", "--json"];
        args.extend(extra);
        args.extend(["--prompt", "hello"]);
        let run = run_client(dir.path(), &args);
        assert_eq!(run.code, Some(0), "{url} {extra:?}: stderr: {}", run.stderr);
        let events = run.events();
        assert_eq!(stop_reasons(&events), ["end_turn"], "{url} {extra:?}");
    }
    assert!(server.stop().success());
}

#[test]
fn the_bridge_serves_the_stdio_agent_over_http_and_websocket_and_stops_it() {
    let agent = program("agent").display().to_string();
    let logs = workdir("bridge-logs");
    let wire = logs.path().join("wire");
    let wire_arg = wire.display().to_string();
    let server = Server::start(
        "bridge",
        &[
            "--listen",
            "127.0.0.1:0",
            "--wire-log",
            &wire_arg,
            "--",
            &agent,
        ],
    );
    for url in [server.url.clone(), server.ws_url()] {
        let dir = workdir(if url.starts_with("ws") {
            "bridge-ws"
        } else {
            "bridge-http"
        });
        let run = run_client(dir.path(), &script_args(&url, &[]));
        assert_whole_session(&run, &dir, &url);
        // The client closed its connection (DELETE, or a close frame): the agent process of
        // that connection is stopped.
        assert!(
            children_gone(server.pid(), SERVER_TIMEOUT),
            "{url}: the bridged agent still runs: {:?}",
            children(server.pid())
        );
    }
    assert!(server.stop().success());
}

#[test]
fn sigint_cancels_the_remote_turn_and_closes_the_connection() {
    let agent = program("agent").display().to_string();
    let server = Server::start("bridge", &["--listen", "127.0.0.1:0", "--", &agent]);
    let bridge = server.pid();
    for url in [server.url.clone(), server.ws_url()] {
        let dir = workdir("sigint");
        let child = start_client(
            dir.path(),
            &["--url", &url, "--json", "--prompt", "stream 1000 100"],
        );
        let client = child.id();
        // SIGINT once the turn streams.
        let sent = Arc::new(Mutex::new(false));
        let flag = sent.clone();
        let run = wait(child, move |line| {
            let mut sent = flag.lock().unwrap();
            if !*sent && line.contains("agent_message_chunk") {
                signal(client, "INT");
                *sent = true;
            }
        });
        assert!(*sent.lock().unwrap(), "{url}: the turn never streamed");
        assert_eq!(run.code, Some(130), "{url}: stderr: {}", run.stderr);
        let events = run.events();
        assert_eq!(of(&events, "cancel").len(), 1, "{url}");
        assert_eq!(stop_reasons(&events), ["cancelled"], "{url}");
        assert!(
            children_gone(bridge, SERVER_TIMEOUT),
            "{url}: the bridged agent still runs after the client's SIGINT"
        );
    }
    assert!(server.stop().success());
}
