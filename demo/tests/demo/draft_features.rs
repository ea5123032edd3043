//! The draft (unstable) protocol features of the demo agent and client, end to end as real
//! processes: the client drives the agent through session fork, LLM providers, plan operations,
//! compaction, notices, token usage and tool call names; the tests assert on the client's
//! `--json` transcript, and every message on the wire (the agent's `--wire-log`) is checked
//! against the official draft schema (`schema.unstable.json`, or the repository's generated
//! `schema/acp.unstable.schema.json` without it).
#![cfg(feature = "unstable")]

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::common::program;
use serde_json::Value;

/// How long one client run may take before the test gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A finished client run: its exit code, `--json` transcript and the agent's wire log.
struct Run {
    code: Option<i32>,
    events: Vec<Value>,
    stderr: String,
    /// What the agent received, and what it sent: one JSON message per line each.
    received: Vec<Value>,
    sent: Vec<Value>,
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
fn run(name: &str, flags: &[&str], steps: &[&str]) -> Run {
    let dir = std::env::temp_dir().join(format!("acp-draft-{name}-{}", std::process::id()));
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
    fn of(&self, name: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["event"] == name).collect()
    }

    /// The live (not replayed) updates of one kind.
    fn updates(&self, kind: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["event"] == "update" && e["replay"].is_null())
            .map(|e| &e["update"])
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }

    /// Checks every message of the wire log against the draft schema (a request's params and
    /// a response's result against the definitions of its method) and returns the methods.
    fn check_wire(&self) -> BTreeSet<String> {
        let spec = acp_testkit::Spec::load_unstable();
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

#[test]
fn the_client_drives_every_draft_feature_of_the_agent() {
    let run = run(
        "all",
        &["--yes", "--draft"],
        &[
            "edit notes.txt",
            "compact",
            "notice warning Disk almost full",
            ":fork",
            "hello from the fork",
            ":load #2",
            ":providers",
            ":providers set main openai https://llm.example/v1",
            ":providers disable embeddings",
            ":providers disable main",
            ":providers",
        ],
    );
    // `:providers disable main` fails (a required provider), so the client reports a failure.
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    let methods = run.check_wire();
    for method in [
        "session/fork",
        "providers/list",
        "providers/set",
        "providers/disable",
    ] {
        assert!(methods.contains(method), "{method} not on the wire");
    }

    // Capabilities, both ways.
    let caps = &run.received[0]["params"]["clientCapabilities"];
    assert!(caps["plan"].is_object(), "{caps}");
    assert!(caps["session"]["compaction"].is_object(), "{caps}");
    let agent = &run.of("initialized")[0]["agentCapabilities"];
    assert!(agent["sessionCapabilities"]["fork"].is_object(), "{agent}");
    assert!(agent["providers"].is_object(), "{agent}");

    // Plan operations: the edit's plan by id, step by step, then removed; no stable `plan`.
    assert!(run.updates("plan").is_empty());
    let plans = run.updates("plan_update");
    assert!(plans.len() >= 3, "{plans:?}");
    assert!(plans.iter().all(|p| p["plan"]["planId"] == "plan-1"));
    let last = &plans.last().unwrap()["plan"]["entries"];
    assert!(
        last.as_array()
            .unwrap()
            .iter()
            .all(|e| e["status"] == "completed")
    );
    assert_eq!(run.updates("plan_removed")[0]["planId"], "plan-1");

    // Tool call names.
    let names: Vec<&str> = run
        .updates("tool_call")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["read_file", "edit_file"]);

    // Compaction: in progress, the summary in chunks, completed with the whole summary.
    let states: Vec<&str> = run
        .updates("compaction_update")
        .iter()
        .map(|u| u["status"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["in_progress", "completed"]);
    let chunks: String = run
        .updates("compaction_summary_chunk")
        .iter()
        .map(|c| c["content"]["text"].as_str().unwrap())
        .collect();
    let completed = run.updates("compaction_update")[1];
    assert_eq!(completed["summary"][0]["text"], chunks.as_str());
    assert!(chunks.starts_with("Summary of 2 turn(s)"), "{chunks}");

    // The notice.
    let notice = run.updates("notice")[0];
    assert_eq!(notice["severity"], "warning");
    assert_eq!(notice["title"], "Disk almost full");

    // Token usage on every prompt answer, consistent.
    let results = run.of("prompt_result");
    assert_eq!(results.len(), 4);
    for result in &results {
        let usage = &result["usage"];
        let (total, input, output) = (
            usage["totalTokens"].as_u64().unwrap(),
            usage["inputTokens"].as_u64().unwrap(),
            usage["outputTokens"].as_u64().unwrap(),
        );
        assert_eq!(total, input + output, "{usage}");
        assert!(output > 0, "{usage}");
    }

    // The fork: a new session, current for the next prompt, with the original's history.
    let fork = run.of("session_fork")[0];
    let first = &run.of("session_new")[0]["sessionId"];
    assert_eq!(fork["sessionId"], *first);
    assert_ne!(fork["forkId"], *first);
    assert!(
        fork["forkId"].as_str().unwrap().starts_with("sess-"),
        "{fork}"
    );
    assert_eq!(results[3]["sessionId"], fork["forkId"]);
    assert_eq!(run.of("session_load")[0]["sessionId"], fork["forkId"]);
    let replayed: Vec<&str> = run
        .events
        .iter()
        .filter(|e| e["replay"] == true && e["update"]["sessionUpdate"] == "user_message_chunk")
        .filter_map(|e| e["update"]["content"]["text"].as_str())
        .collect();
    assert_eq!(
        replayed,
        [
            "edit notes.txt",
            "compact",
            "notice warning Disk almost full",
            "hello from the fork"
        ]
    );

    // Providers: listed, set, disabled; a required one cannot be disabled.
    let lists = run.of("providers");
    assert_eq!(lists.len(), 2);
    let provider = |list: &Value, id: &str| {
        list["providers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["providerId"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(
        provider(lists[0], "main")["current"]["apiType"],
        "anthropic"
    );
    assert_eq!(provider(lists[0], "main")["required"], true);
    assert!(provider(lists[0], "embeddings")["current"].is_null());
    let main = provider(lists[1], "main");
    assert_eq!(main["current"]["apiType"], "openai");
    assert_eq!(main["current"]["baseUrl"], "https://llm.example/v1");
    assert_eq!(run.of("provider_set").len(), 1);
    assert_eq!(run.of("provider_disabled").len(), 1);
    let error = run.of("error");
    assert_eq!(error.len(), 1, "{error:?}");
    assert_eq!(error[0]["during"], "providers/disable");
    assert!(
        error[0]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be disabled")
    );
}

#[test]
fn without_draft_capabilities_the_agent_sends_only_what_the_client_advertised() {
    let run = run(
        "stable-client",
        &["--yes"],
        &["edit notes.txt", "compact", "notice Hello"],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    run.check_wire();
    let caps = &run.received[0]["params"]["clientCapabilities"];
    assert!(caps.get("plan").is_none(), "{caps}");
    assert!(caps["session"].get("compaction").is_none(), "{caps}");
    // The stable `plan` instead of plan operations; compaction not reported.
    assert!(!run.updates("plan").is_empty());
    assert!(run.updates("plan_update").is_empty());
    assert!(run.updates("plan_removed").is_empty());
    assert!(run.updates("compaction_update").is_empty());
    assert!(run.updates("compaction_summary_chunk").is_empty());
    // No notices without `session.notices`: the agent says it in a message instead. Usage
    // and tool names need no capability.
    assert!(run.updates("notice").is_empty());
    assert!(caps["session"].get("notices").is_none(), "{caps}");
    assert!(
        run.of("prompt_result")
            .iter()
            .all(|r| r["usage"].is_object())
    );
}

#[test]
fn fork_and_providers_fail_cleanly_on_bad_input() {
    let run = run(
        "bad-input",
        &[],
        &[
            ":fork sess-404",
            ":providers set nobody openai https://x.example",
            ":providers set embeddings anthropic https://x.example",
            "notice",
        ],
    );
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    run.check_wire();
    let during: Vec<&str> = run
        .of("error")
        .iter()
        .map(|e| e["during"].as_str().unwrap())
        .collect();
    assert_eq!(during, ["session/fork", "providers/set", "providers/set"]);
    // `notice` without text is a usage message, not a notice with an empty title.
    assert!(run.updates("notice").is_empty());
}
