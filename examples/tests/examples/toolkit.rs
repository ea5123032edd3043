//! The goal programs of issue 12 against each other: `toolkit_client` spawns `toolkit_agent`
//! and drives a whole coding turn (plan, thought, read, diff, permission, write, terminal,
//! notice, compaction, replay on `session/load`), allowed, rejected, and cancelled at the
//! permission request.
//! Every message both ways is checked against the ACP schema (responses against their
//! method's result), from the client's traffic log.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use acp_testkit::{Spec, example_binary as example};
use serde_json::Value;

/// Bounds each run, so that a regression fails instead of hanging.
const DEADLINE: Duration = Duration::from_secs(60);

const NOTES: &str = "# Notes\n- TODO: one\n- TODO: two\n";

struct Run {
    stdout: String,
    notes: String,
    /// Every message, as (`"sent"` or `"recv"`, message), per direction in order.
    wire: Vec<(&'static str, Value)>,
}

/// Runs the client against the agent in a fresh directory holding `notes.txt`.
fn run(name: &str, flags: &[&str]) -> Run {
    let dir = std::env::temp_dir().join(format!("acp-toolkit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), NOTES).unwrap();
    let wire = dir.join("wire");
    let mut all = vec!["--wire-log".as_ref(), wire.as_os_str()];
    all.extend(flags.iter().map(OsStr::new));
    let output = client(&dir, &all);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the client failed:\n{stdout}\n{stderr}"
    );
    let mut messages = Vec::new();
    for direction in ["sent", "recv"] {
        let log = std::fs::read_to_string(format!("{}.{direction}", wire.display())).unwrap();
        for line in log.lines() {
            let message: Value = serde_json::from_str(line).expect("one JSON message per line");
            messages.push((direction, message));
        }
    }
    let notes = std::fs::read_to_string(dir.join("notes.txt")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    Run {
        stdout,
        notes,
        wire: messages,
    }
}

/// Runs the client in `dir` with `flags` against the agent, bounded; stderr is captured.
///
/// Built with `unstable_protocol_v2` the client asks for v2 unless told otherwise: the tests of
/// the v1 session ask for v1 (`--protocol 1`) unless `flags` name a version.
fn client(dir: &Path, flags: &[&OsStr]) -> std::process::Output {
    let v1_only: &[&str] =
        if cfg!(feature = "unstable_protocol_v2") && !flags.contains(&OsStr::new("--protocol")) {
            &["--protocol", "1"]
        } else {
            &[]
        };
    let mut child = Command::new(example("toolkit_client"))
        .args(["--workdir".as_ref(), dir.as_os_str()])
        .args(v1_only)
        .args(flags)
        .arg(example("toolkit_agent"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the client");
    acp_testkit::wait_with_deadline(&mut child, DEADLINE);
    child.wait_with_output().unwrap()
}

/// Checks every message against the v1 schema, and each response against its request's
/// method.
fn check_wire(run: &Run) -> Vec<String> {
    check_wire_with(run, Spec::load())
}

/// Checks every message against `spec`, and each response against its request's method.
fn check_wire_with(run: &Run, spec: &Spec) -> Vec<String> {
    // Requests by direction and id: a response goes the other way.
    let mut methods = HashMap::new();
    for (direction, message) in &run.wire {
        if let (Some(method), Some(id)) = (message["method"].as_str(), message.get("id")) {
            methods.insert((*direction, id.to_string()), method.to_owned());
        }
    }
    let mut seen = Vec::new();
    for (direction, message) in &run.wire {
        let checked = match message.get("method").and_then(Value::as_str) {
            Some(method) => {
                seen.push(format!("{direction} {method}"));
                spec.check_message(message)
            }
            None => {
                let other = if *direction == "sent" { "recv" } else { "sent" };
                let key = (other, message["id"].to_string());
                let method = methods.get(&key).expect("a response answers a request");
                spec.check_response(message, method)
            }
        };
        if let Err(error) = checked {
            panic!("{direction}: invalid message: {error}\n{message}");
        }
    }
    seen
}

fn lines_starting<'a>(stdout: &'a str, prefix: &str) -> Vec<&'a str> {
    stdout.lines().filter(|l| l.starts_with(prefix)).collect()
}

#[test]
fn allowed_turn_edits_runs_and_replays() {
    let run = run("allow", &[]);
    assert_eq!(run.notes, "# Notes\n- DONE: one\n- DONE: two\n");
    let out = &run.stdout;
    let (live, replay) = out.split_once("--- session/load").expect("a load");
    assert!(live.contains("thought: To fix notes.txt"), "{out}");
    assert!(
        live.contains("permission: Edit notes.txt? Allow once"),
        "{out}"
    );
    // The edit ends showing its diff and what was done; the check embeds its terminal.
    assert!(live.contains("tool call-2 completed [diff of "), "{out}");
    assert!(live.contains("Replaced 2 TODO(s)."), "{out}");
    assert!(
        live.contains("tool call-3 completed [terminal term-1] 0 TODO(s) left."),
        "{out}"
    );
    let last_plan = lines_starting(live, "plan:").pop().unwrap();
    assert_eq!(last_plan.matches("[completed]").count(), 3, "{last_plan}");
    assert!(
        last_plan.contains("[completed] Read notes.txt (high)"),
        "{last_plan}"
    );
    // The session starts in the first mode offered; `Local` served the files and the
    // terminal, and its hook reported each call.
    assert!(live.contains("modes: ask, code (current ask)"), "{out}");
    for call in [
        "local: fs/read_text_file ",
        "local: fs/write_text_file ",
        "local: terminal/create grep -c TODO notes.txt: ok",
        "local: terminal/wait_for_exit term-1: ok",
        "local: terminal/release term-1: ok",
    ] {
        assert!(live.contains(call), "{call} missing: {out}");
    }
    // The newly stable session updates: tool names, a notice, a compaction and its summary.
    assert!(
        live.contains("tool call-1 started: Read notes.txt (read_file) pending"),
        "{out}"
    );
    assert!(live.contains("(edit_file)") && live.contains("Check (run_command)"));
    assert!(
        live.contains("notice [info]: notes.txt was written"),
        "{out}"
    );
    let compaction: Vec<&str> = lines_starting(live, "compaction ");
    assert_eq!(compaction.len(), 4, "{out}");
    assert!(compaction[0].ends_with(" in_progress "), "{out}");
    let id = compaction[0].split(' ').nth(1).unwrap();
    assert!(compaction.iter().all(|l| l.split(' ').nth(1) == Some(id)));
    assert!(compaction[1].ends_with("summary: Fixed 2 TODO(s) in notes.txt; "));
    assert!(compaction[2].ends_with("summary: the check passed."));
    assert!(compaction[3].ends_with(" completed "), "{out}");
    assert!(live.contains("stop: end_turn"), "{out}");
    // The replay: the user's prompt, then the same conversation (the compaction too: it is
    // conversation), terminals and the notice (live only) left out.
    let replayed: Vec<&str> = replay
        .lines()
        .skip(1)
        .take_while(|l| *l != "--- loaded")
        .collect();
    assert_eq!(replayed[0], "user: Please fix the TODOs in notes.txt");
    assert!(
        replayed.contains(&"tool call-3 completed 0 TODO(s) left."),
        "{replay}"
    );
    assert!(!replay.contains("notice"), "{replay}");
    assert!(replayed.contains(&compaction[3]), "{replay}");
    let live_updates = live.lines().filter(|l| is_update(l)).count();
    assert_eq!(
        replayed.len(),
        live_updates + 1,
        "every update, and the prompt"
    );
    assert!(
        out.contains("agent stopped: Stopped"),
        "a graceful close: {out}"
    );

    let seen = check_wire(&run);
    for method in [
        "sent initialize",
        "sent session/new",
        "sent session/prompt",
        "recv session/update",
        "recv fs/read_text_file",
        "recv session/request_permission",
        "recv fs/write_text_file",
        "recv terminal/create",
        "recv terminal/wait_for_exit",
        "recv terminal/output",
        "recv terminal/release",
        "sent session/load",
    ] {
        assert!(
            seen.iter().any(|s| s == method),
            "{method} never went over the wire"
        );
    }
}

#[test]
fn the_code_mode_edits_without_asking() {
    let run = run("mode", &["--mode", "code"]);
    assert_eq!(run.notes, "# Notes\n- DONE: one\n- DONE: two\n");
    let out = &run.stdout;
    assert!(out.contains("mode: code"), "the switch is announced: {out}");
    assert!(!out.contains("permission:"), "{out}");
    assert!(out.contains("stop: end_turn"), "{out}");
    let seen = check_wire(&run);
    assert!(seen.iter().any(|s| s == "sent session/set_mode"));
    assert!(!seen.iter().any(|s| s == "recv session/request_permission"));
}

#[test]
fn an_unknown_mode_is_refused() {
    let dir = std::env::temp_dir().join(format!("acp-toolkit-badmode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let output = client(&dir, &["--mode".as_ref(), "yolo".as_ref()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("unknown mode `yolo`; offered: ask, code"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn is_update(line: &str) -> bool {
    ["plan:", "thought:", "agent:", "tool ", "compaction "]
        .iter()
        .any(|p| line.starts_with(p))
        && !line.starts_with("agent: toolkit-agent")
}

#[test]
fn rejected_edit_leaves_the_file_and_runs_nothing() {
    let run = run("reject", &["--reject"]);
    assert_eq!(run.notes, NOTES);
    let out = &run.stdout;
    assert!(out.contains("permission: Edit notes.txt? Reject"), "{out}");
    assert!(out.contains("tool call-2 failed [diff of "), "{out}");
    assert!(out.contains("Rejected by the user."), "{out}");
    assert!(out.contains("stop: end_turn"), "{out}");
    let seen = check_wire(&run);
    assert!(!seen.iter().any(|s| s == "recv fs/write_text_file"));
    assert!(!seen.iter().any(|s| s == "recv terminal/create"));
}

#[test]
fn cancel_at_the_permission_request_ends_the_turn_cancelled() {
    let run = run("cancel", &["--cancel"]);
    assert_eq!(run.notes, NOTES);
    let out = &run.stdout;
    assert!(
        out.contains("permission: Edit notes.txt? cancelling the turn"),
        "{out}"
    );
    assert!(out.contains("stop: cancelled"), "{out}");
    let seen = check_wire(&run);
    assert!(seen.iter().any(|s| s == "sent session/cancel"));
    assert!(!seen.iter().any(|s| s == "recv fs/write_text_file"));
    // The permission request was answered `cancelled`, as the spec asks.
    let answer = run
        .wire
        .iter()
        .find(|(d, m)| *d == "sent" && m["result"]["outcome"]["outcome"].is_string())
        .expect("the permission answer");
    assert_eq!(answer.1["result"]["outcome"]["outcome"], "cancelled");
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn on_v2_the_agent_works_itself_shows_a_display_terminal_and_replaces_its_status() {
    let run = run("v2", &["--protocol", "2"]);
    assert_eq!(run.notes, "# Notes\n- DONE: one\n- DONE: two\n");
    let out = &run.stdout;
    let (live, replay) = out.split_once("--- session/resume").expect("a resume");
    assert!(live.contains("protocol: ACP v2"), "{out}");
    assert!(
        live.contains("permission: Edit notes.txt? Allow once"),
        "{out}"
    );
    // The status message, replaced by the outcome under the same id.
    assert!(
        live.contains("agent: Working on notes.txt\u{2026}"),
        "{out}"
    );
    assert!(
        live.contains("agent (replaced): Done: 2 TODO(s) now DONE."),
        "{out}"
    );
    // The diff and the terminal came as content chunks; the terminal shows the check's output.
    assert!(live.contains("tool call-2 + [diff of "), "{out}");
    let terminal = lines_starting(live, "tool call-3 + [terminal ")
        .pop()
        .expect("the terminal in the check's content")
        .trim_start_matches("tool call-3 + [terminal ")
        .trim_end_matches(']')
        .to_owned();
    assert!(
        live.contains(&format!("terminal {terminal}: `grep -c TODO notes.txt`")),
        "{out}"
    );
    assert!(
        live.contains(&format!("terminal {terminal} exited (1): 0")),
        "{out}"
    );
    assert!(live.contains("stop: end_turn"), "{out}");
    // The replay opens with the user's prompt.
    assert!(
        replay.contains("user: Please fix the TODOs in notes.txt"),
        "{replay}"
    );
    assert!(out.contains("--- resumed"), "{out}");

    let seen = check_wire_with(&run, Spec::load_v2());
    for method in [
        "sent session/new",
        "sent session/prompt",
        "sent session/resume",
    ] {
        assert!(
            seen.iter().any(|s| s == method),
            "{method} never went over the wire"
        );
    }
    assert!(
        !seen
            .iter()
            .any(|s| s.starts_with("recv fs/") || s.starts_with("recv terminal/")),
        "no client file system or terminal on v2: {seen:?}"
    );
}
