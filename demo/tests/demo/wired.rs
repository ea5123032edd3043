//! A run of the demo client against the demo agent as real processes, with the agent's wire
//! log: the client's `--json` transcript, and every message both ways, to check against a
//! schema (the stable one or the draft one, by the test).

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::process::{Command, Stdio};
use std::thread::JoinHandle;

use acp_testkit::Spec;
use serde_json::Value;

use crate::common::{RUN_TIMEOUT, program};

/// A finished client run: its exit code, `--json` transcript and the agent's wire log.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) events: Vec<Value>,
    pub(crate) stderr: String,
    /// What the agent received, and what it sent: one JSON message per line each.
    pub(crate) received: Vec<Value>,
    pub(crate) sent: Vec<Value>,
}

fn drain(mut from: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        from.read_to_string(&mut text).unwrap();
        text
    })
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

/// Runs the client with `flags` and the `steps` against the demo agent (NDJSON, with a wire
/// log), in a fresh directory holding `notes.txt`.
pub(crate) fn run(name: &str, flags: &[&str], steps: &[&str]) -> Run {
    let dir = std::env::temp_dir().join(format!("acp-wired-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "# Notes\n- TODO: one\n").unwrap();
    let mut command = Command::new(program("client"));
    command.arg("--json").args(flags);
    for step in steps {
        command.args(["--prompt", step]);
    }
    let mut child = command
        .arg("--")
        .arg(program("agent"))
        .arg("--wire-log")
        .arg(dir.join("wire"))
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the client");
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    let status = acp_testkit::wait_with_deadline(&mut child, RUN_TIMEOUT);
    let log = |ext: &str| json_lines(&std::fs::read_to_string(dir.join(ext)).expect("wire log"));
    let run = Run {
        code: status.code(),
        events: json_lines(&out.join().unwrap()),
        stderr: err.join().unwrap(),
        received: log("wire.recv"),
        sent: log("wire.sent"),
    };
    let _ = std::fs::remove_dir_all(&dir);
    run
}

impl Run {
    pub(crate) fn of(&self, name: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["event"] == name).collect()
    }

    /// The live (not replayed) updates of one kind.
    pub(crate) fn updates(&self, kind: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["event"] == "update" && e["replay"].is_null())
            .map(|e| &e["update"])
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }

    /// Checks every message of the wire log against `spec` (a request's params and a
    /// response's result against the definitions of its method) and returns the methods.
    pub(crate) fn check_wire(&self, spec: &Spec) -> BTreeSet<String> {
        assert!(!self.received.is_empty() && !self.sent.is_empty());
        let mut methods = BTreeSet::new();
        for (requests, answers) in [(&self.received, &self.sent), (&self.sent, &self.received)] {
            let mut asked: HashMap<String, &str> = HashMap::new();
            for message in requests.iter() {
                spec.check_message(message)
                    .unwrap_or_else(|e| panic!("{e}\n{message}"));
                if let Some(method) = message["method"].as_str() {
                    methods.insert(method.to_owned());
                    if !message["id"].is_null() {
                        asked.insert(message["id"].to_string(), method);
                    }
                }
            }
            for message in answers.iter().filter(|m| m["method"].is_null()) {
                let method = asked
                    .get(&message["id"].to_string())
                    .unwrap_or_else(|| panic!("a response to no request: {message}"));
                spec.check_response(message, method)
                    .unwrap_or_else(|e| panic!("{e}\n{message}"));
            }
        }
        methods
    }
}
