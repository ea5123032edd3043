//! End-to-end tests of the `agent` and `client` demo programs as real processes: the client drives
//! the agent through scripted sessions (over NDJSON and Content-Length), the tests assert on the
//! client's `--json` transcript, and every message on the wire is checked against the official
//! schema (the whole message, and its params or result against the definition of its method).

use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::common::program;
use serde_json::Value;

use crate::common::{RUN_TIMEOUT, of, run_client, stop_reasons, updates};

/// A fresh directory with the files the scripts use (text, an image, a sound, binary data).
fn workdir(name: &str) -> crate::common::Workdir {
    let dir = crate::common::Workdir::new("session", name);
    dir.write("pixel.png", [0x89, b'P', b'N', b'G', 0, 1, 2]);
    dir.write("sound.wav", b"RIFF\0\0\0\0WAVE");
    dir.write("blob.bin", [0xff, 0xfe, 0x00, 0x80]);
    dir
}

// --- The wire: an independent splitter, and the schema checks. ---

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Framing {
    Ndjson,
    ContentLength,
}

/// Splits a recorded byte stream into messages, strictly.
fn split(bytes: &[u8], framing: Framing) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let body = match framing {
            Framing::Ndjson => {
                let end = rest
                    .iter()
                    .position(|&b| b == b'\n')
                    .expect("an NDJSON message without its newline");
                let body = &rest[..end];
                rest = &rest[end + 1..];
                body
            }
            Framing::ContentLength => {
                let end = rest
                    .windows(4)
                    .position(|w| w == b"\r\n\r\n")
                    .expect("a header section without its blank line");
                let headers = std::str::from_utf8(&rest[..end]).unwrap();
                let len: usize = headers
                    .lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .expect("a Content-Length header")
                    .trim()
                    .parse()
                    .unwrap();
                let body = &rest[end + 4..end + 4 + len];
                rest = &rest[end + 4 + len..];
                body
            }
        };
        messages.push(serde_json::from_slice(body).unwrap_or_else(|e| {
            panic!(
                "a framed body is not JSON ({e}): {}",
                String::from_utf8_lossy(body)
            )
        }));
    }
    messages
}

/// The definitions of a method's params and result, by their official names.
fn defs(method: &str) -> (&'static str, Option<&'static str>) {
    let definition = acp_types::methods::definitions(method)
        .next()
        .unwrap_or_else(|| panic!("unexpected method on the wire: {method}"));
    (definition.params, definition.result)
}

/// Checks every message of a wire log (`PREFIX.recv` and `PREFIX.sent`) against the official
/// schema and returns the methods seen. Skips (returns `None`) without the specification.
pub(crate) fn check_wire(prefix: &Path, framing: Framing) -> Option<BTreeSet<String>> {
    let spec = acp_testkit::Spec::load_or_skip()?;
    let read = |ext: &str| {
        let mut name = prefix.as_os_str().to_owned();
        name.push(ext);
        std::fs::read(PathBuf::from(name)).expect("the wire log")
    };
    let received = split(&read(".recv"), framing);
    let sent = split(&read(".sent"), framing);
    assert!(
        !received.is_empty() && !sent.is_empty(),
        "an empty wire log"
    );
    let mut methods = BTreeSet::new();
    for (incoming, outgoing) in [(&received, &sent), (&sent, &received)] {
        // Requests of one direction, answered in the other.
        let mut asked: HashMap<String, String> = HashMap::new();
        for message in incoming.iter() {
            spec.assert_valid_message(message);
            if let Some(method) = message["method"].as_str() {
                methods.insert(method.to_owned());
                let (params, _) = defs(method);
                if let Err(e) = spec.check_def(params, &message["params"]) {
                    panic!("{method} params rejected by {params}: {e}\n{message}");
                }
                if !message["id"].is_null() {
                    asked.insert(message["id"].to_string(), method.to_owned());
                }
            }
        }
        for message in outgoing.iter() {
            if message["method"].is_null() {
                let method = asked
                    .get(&message["id"].to_string())
                    .unwrap_or_else(|| panic!("a response to no request: {message}"));
                if let (Some(result), (_, Some(def))) = (message.get("result"), defs(method)) {
                    if let Err(e) = spec.check_def(def, result) {
                        panic!("{method} result rejected by {def}: {e}\n{message}");
                    }
                }
            }
        }
    }
    Some(methods)
}

// --- The tests. ---

/// A session that touches every feature, run client -> agent as two processes.
fn scripted_session(framing: Framing) {
    let dir = workdir(match framing {
        Framing::Ndjson => "ndjson",
        Framing::ContentLength => "content-length",
    });
    let name = match framing {
        Framing::Ndjson => "ndjson",
        Framing::ContentLength => "content-length",
    };
    let wire = dir.path().join("wire");
    let agent = program("agent");
    let wire_arg = wire.display().to_string();
    let agent_arg = agent.display().to_string();
    let mut args = vec!["--json", "--yes", "--framing", name, "--cancel-after", "3s"];
    for step in [
        "hello",
        "read notes.txt 2 1",
        "edit notes.txt",
        "run sh -c 'echo out; echo err >&2; exit 3'",
        "what? @notes.txt @pixel.png @sound.wav @blob.bin @https://example.com/spec",
        "run sleep 30",
        ":mode auto",
        ":config thoughts off",
        ":config auto_title false",
        "title Renamed",
        "mode read-only",
        "edit notes.txt DONE => FIXED",
        ":list",
        ":close",
        ":load #1",
        ":new",
        ":resume #1",
        ":delete #2",
        ":list",
        "refuse",
        "fail",
    ] {
        args.extend(["--prompt", step]);
    }
    args.extend(["--", &agent_arg, "--framing", name, "--wire-log", &wire_arg]);
    let run = run_client(dir.path(), &args);
    let events = run.events();
    // `fail` fails its prompt, so the client reports a failure.
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);

    // Initialization and the session.
    let init = &of(&events, "initialized")[0];
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    let new = of(&events, "session_new");
    assert_eq!(new[0]["modes"]["currentModeId"], "ask");
    let options: Vec<&str> = new[0]["configOptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["mode", "model", "thoughts", "auto_title"]);

    // Streaming, commands, title, usage.
    assert!(!updates(&events, "agent_thought_chunk").is_empty());
    assert!(updates(&events, "agent_message_chunk").len() > 10);
    // Announced on the first turn, and again on each mode change (read-only has no `run`).
    let commands = updates(&events, "available_commands_update");
    assert_eq!(commands.len(), 3);
    let names = |u: &Value| -> Vec<String> {
        u["availableCommands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(names(commands[0]).contains(&"run".to_owned()));
    assert!(!names(commands[2]).contains(&"run".to_owned()));
    let titles: Vec<&Value> = updates(&events, "session_info_update")
        .iter()
        .map(|u| &u["title"])
        .collect();
    assert_eq!(titles, [&Value::from("hello"), &Value::from("Renamed")]);
    assert!(updates(&events, "usage_update").len() >= 5);

    // Reading with line and limit.
    let reads = of(&events, "fs_read");
    assert_eq!(reads[0]["line"], 2);
    assert_eq!(reads[0]["limit"], 1);
    assert_eq!(reads[0]["lines"], 1);
    let calls = updates(&events, "tool_call");
    let read = calls.iter().find(|c| c["kind"] == "read").unwrap();
    assert!(
        read["locations"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("notes.txt")
    );
    assert_eq!(read["rawInput"]["line"], 2);

    // The edit: plan, diff, permission, write.
    let plans = updates(&events, "plan");
    assert!(plans.len() >= 4);
    let last_plan = &plans[3]["entries"];
    assert!(
        last_plan
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["status"] == "completed")
    );
    let edit = calls.iter().find(|c| c["kind"] == "edit").unwrap();
    assert_eq!(edit["content"][0]["type"], "diff");
    assert!(
        edit["content"][0]["oldText"]
            .as_str()
            .unwrap()
            .contains("TODO: one")
    );
    assert!(
        edit["content"][0]["newText"]
            .as_str()
            .unwrap()
            .contains("DONE: one")
    );
    let asked = of(&events, "permission_request");
    assert_eq!(asked[0]["toolCallId"], edit["toolCallId"]);
    let answered = of(&events, "permission_response");
    assert_eq!(answered[0]["optionId"], "allow");
    assert_eq!(answered[0]["by"], "--yes");
    assert_eq!(of(&events, "fs_write")[0]["ok"], true);
    assert_eq!(dir.read("notes.txt"), "# Notes\n- DONE: one\n- DONE: two\n");

    // The terminal: output with both streams, exit code 3, released; the tool call failed.
    let create = of(&events, "terminal_create");
    assert_eq!(create[0]["command"], "sh");
    assert_eq!(create[0]["outputByteLimit"], 16384);
    assert_eq!(of(&events, "terminal_exit")[0]["exitCode"], 3);
    assert_eq!(of(&events, "terminal_output")[0]["bytes"], 8);
    let run_call = calls.iter().find(|c| c["kind"] == "execute").unwrap();
    assert_eq!(run_call["rawInput"]["command"], "sh");
    let run_updates: Vec<&Value> = updates(&events, "tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == run_call["toolCallId"])
        .collect();
    assert!(
        run_updates
            .iter()
            .any(|u| u["content"][0]["type"] == "terminal")
    );
    assert_eq!(run_updates.last().unwrap()["status"], "failed");
    assert_eq!(run_updates.last().unwrap()["rawOutput"]["exitCode"], 3);

    // Every content block kind, as the agent advertised.
    let prompts = of(&events, "prompt");
    let kinds = &prompts[4]["blocks"];
    assert_eq!(
        kinds,
        &serde_json::json!([
            "text",
            "resource",
            "image",
            "audio",
            "resource",
            "resource_link"
        ])
    );

    // Cancellation while waiting for a terminal: killed, released, `cancelled`.
    assert_eq!(of(&events, "cancel").len(), 1);
    assert_eq!(of(&events, "terminal_kill").len(), 1);
    assert_eq!(of(&events, "terminal_release").len(), 2);
    let reasons = stop_reasons(&events);
    assert_eq!(reasons[5], "cancelled");

    // Modes and options, from both sides.
    let modes: Vec<&Value> = updates(&events, "current_mode_update")
        .iter()
        .map(|u| &u["currentModeId"])
        .collect();
    assert_eq!(modes, [&Value::from("auto"), &Value::from("read-only")]);
    assert!(updates(&events, "config_option_update").len() >= 2);
    assert!(calls.iter().any(|c| c["kind"] == "switch_mode"));
    let set = of(&events, "config_set");
    assert_eq!(set.len(), 2);
    let booleans = &set[1]["configOptions"][3];
    assert_eq!(
        (&booleans["type"], &booleans["currentValue"]),
        (&"boolean".into(), &false.into())
    );
    // With thoughts off, later turns think no more; in read-only mode, edits are proposals.
    let last_thought = events
        .iter()
        .rposition(|e| {
            e["update"]["sessionUpdate"] == "agent_thought_chunk" && e["replay"].is_null()
        })
        .unwrap();
    let thoughts_off = events
        .iter()
        .position(|e| e["event"] == "config_set")
        .unwrap();
    assert!(last_thought < thoughts_off);
    assert_eq!(of(&events, "fs_write").len(), 1);

    // Sessions: list, close, load with replay, new, resume, delete.
    let lists = of(&events, "sessions");
    assert_eq!(lists[0]["sessions"][0]["title"], "Renamed");
    assert_eq!(lists[1]["sessions"].as_array().unwrap().len(), 1);
    let load = &of(&events, "session_load")[0];
    assert!(load["replayed"].as_u64().unwrap() > 20);
    let replayed: Vec<&Value> = events.iter().filter(|e| e["replay"] == true).collect();
    assert_eq!(replayed.len() as u64, load["replayed"].as_u64().unwrap());
    assert_eq!(replayed[0]["update"]["sessionUpdate"], "user_message_chunk");
    assert_eq!(replayed[0]["update"]["content"]["text"], "hello");
    assert_eq!(of(&events, "session_resume").len(), 1);
    assert_eq!(of(&events, "session_close").len(), 1);
    // `#2`, the second session started: a random id, not the first's.
    let started: Vec<&Value> = new.iter().map(|n| &n["sessionId"]).collect();
    assert_eq!(started.len(), 2);
    assert_ne!(started[0], started[1]);
    assert_eq!(of(&events, "session_delete")[0]["sessionId"], *started[1]);
    assert_eq!(of(&events, "session_load")[0]["sessionId"], *started[0]);

    // The other stop reasons, and an error.
    assert_eq!(reasons[reasons.len() - 1], "refusal");
    let error = of(&events, "error");
    assert_eq!(error.len(), 1);
    assert_eq!(error[0]["during"], "session/prompt");
    assert_eq!(error[0]["code"], -32603);
    assert_eq!(of(&events, "done")[0]["ok"], false);

    // The wire: everything valid, and every method of the script was used.
    let wire_framing = framing;
    if let Some(methods) = check_wire(&wire, wire_framing) {
        for method in [
            "initialize",
            "session/new",
            "session/prompt",
            "session/update",
            "session/cancel",
            "session/request_permission",
            "fs/read_text_file",
            "fs/write_text_file",
            "terminal/create",
            "terminal/output",
            "terminal/wait_for_exit",
            "terminal/kill",
            "terminal/release",
            "session/set_mode",
            "session/set_config_option",
            "session/list",
            "session/close",
            "session/load",
            "session/resume",
            "session/delete",
        ] {
            assert!(
                methods.contains(method),
                "{method} never went over the wire"
            );
        }
    }
}

#[test]
fn scripted_session_over_ndjson() {
    scripted_session(Framing::Ndjson);
}

#[test]
fn scripted_session_over_content_length() {
    scripted_session(Framing::ContentLength);
}

#[test]
fn the_client_refuses_paths_outside_its_directory_and_offers_no_writes_when_read_only() {
    let dir = workdir("refusals");
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc", dir.path().join("etc-link")).unwrap();
    let agent = program("agent").display().to_string();
    let run = run_client(
        dir.path(),
        &[
            "--json",
            "--no",
            "--read-only",
            "--prompt",
            "read /etc/passwd",
            "--prompt",
            "read ../outside.txt",
            "--prompt",
            "read etc-link/passwd",
            "--prompt",
            "edit notes.txt",
            "--prompt",
            ":mode auto",
            "--prompt",
            "edit notes.txt",
            "--",
            &agent,
        ],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = run.events();
    let reads = of(&events, "fs_read");
    assert_eq!(reads.len(), 5);
    for read in &reads[..2] {
        assert_eq!(read["ok"], false);
    }
    assert!(
        reads[0]["error"]["data"]
            .as_str()
            .unwrap()
            .contains("outside the client's workspace")
    );
    #[cfg(unix)]
    assert!(
        reads[2]["error"]["data"]
            .as_str()
            .unwrap()
            .contains("outside")
    );
    // `--read-only` does not offer `fs/write_text_file`: the agent proposes both edits
    // without asking or writing (the client would refuse a write if asked anyway).
    assert!(of(&events, "permission_response").is_empty());
    assert!(of(&events, "fs_write").is_empty());
    assert_eq!(dir.read("notes.txt"), "# Notes\n- TODO: one\n- TODO: two\n");
    let failed: Vec<&Value> = updates(&events, "tool_call_update")
        .into_iter()
        .filter(|u| u["status"] == "failed")
        .collect();
    assert_eq!(
        failed.len(),
        5,
        "three refused reads, two edits not offered"
    );
    for edit in &failed[3..] {
        assert!(
            edit["content"][0]["content"]["text"]
                .as_str()
                .unwrap()
                .contains("does not offer `fs/write_text_file`"),
            "{edit}"
        );
    }
    assert!(stop_reasons(&events).iter().all(|r| *r == "end_turn"));
}

#[test]
fn the_agent_falls_back_when_the_client_has_no_fs_or_terminal() {
    let dir = workdir("fallbacks");
    let agent = program("agent").display().to_string();
    let run = run_client(
        dir.path(),
        &[
            "--json",
            "--yes",
            "--no-fs",
            "--no-terminal",
            "--prompt",
            "read notes.txt",
            "--prompt",
            "edit notes.txt",
            "--prompt",
            "run echo hi",
            "--",
            &agent,
        ],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = run.events();
    assert!(of(&events, "fs_read").is_empty());
    assert!(of(&events, "terminal_create").is_empty());
    let why: Vec<String> = updates(&events, "tool_call_update")
        .iter()
        .filter(|u| u["status"] == "failed")
        .map(|u| {
            u["content"][0]["content"]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(why.len(), 3);
    assert!(why[0].contains("fs/read_text_file"));
    assert!(why[2].contains("terminal"));
    assert_eq!(stop_reasons(&events), ["end_turn"; 3]);
}

#[test]
fn the_wire_log_of_a_spawned_agent_holds_every_message() {
    let dir = workdir("spawned-log");
    let wire = dir.path().join("wire");
    let wire_arg = wire.display().to_string();
    let agent = program("agent");
    let agent_arg = agent.display().to_string();
    let run = run_client(
        dir.path(),
        &["--json", "--wire-log", &wire_arg, "--", &agent_arg],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(of(&run.events(), "done")[0]["ok"], true);
    // One message per line, each valid (with no input, the client only opens a session).
    if let Some(methods) = check_wire(&wire, Framing::Ndjson) {
        for method in ["initialize", "session/new"] {
            assert!(methods.contains(method), "{method} was not logged");
        }
    }
}

#[test]
fn the_default_demo_runs_in_process_and_exits_0() {
    let dir = workdir("demo");
    let wire = dir.path().join("wire");
    let wire_arg = wire.display().to_string();
    let run = run_client(dir.path(), &["--json", "--wire-log", &wire_arg]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = run.events();
    assert_eq!(of(&events, "narration").len(), 9);
    assert_eq!(
        stop_reasons(&events),
        [
            "end_turn",
            "end_turn",
            "end_turn",
            "end_turn",
            "end_turn",
            "cancelled"
        ]
    );
    // The demo's permission answers are shown as such.
    assert!(
        of(&events, "permission_response")
            .iter()
            .all(|e| e["by"] == "the demo")
    );
    assert_eq!(of(&events, "fs_write").len(), 1);
    assert_eq!(of(&events, "terminal_release").len(), 1);
    assert_eq!(of(&events, "done")[0]["ok"], true);
    // Cancelled after the third streamed chunk (the header is the first).
    let cancelled_at = events.iter().position(|e| e["event"] == "cancel").unwrap();
    let last_chunk = events[..cancelled_at]
        .iter()
        .rev()
        .find(|e| e["update"]["sessionUpdate"] == "agent_message_chunk")
        .unwrap();
    assert_eq!(last_chunk["update"]["content"]["text"], "chunk 3 of 20\n");
    if let Some(methods) = check_wire(&wire, Framing::Ndjson) {
        assert!(methods.contains("session/load"));
    }
    // It cleans up after itself: the demo directory (in the temporary directory) is gone.
    let intro = &of(&events, "narration")[0]["text"];
    let demo_dir = intro.as_str().unwrap().rsplit(": ").next().unwrap();
    assert!(!Path::new(demo_dir).exists(), "{demo_dir} was left behind");

    // The human rendering, as `cargo run --bin client` shows it.
    let human = run_client(dir.path(), &[]);
    assert_eq!(human.code, Some(0), "stderr: {}", human.stderr);
    for expected in [
        "(thinking) ",
        "  Plan:",
        "[x] Apply the edit",
        "+ - [ ] DONE: handle empty files",
        "Allow once (answered by the demo)",
        "3:- [ ] DONE: handle empty files",
        "Mode is now read-only",
        "[turn ended: cancelled]",
        "replayed its history",
    ] {
        assert!(
            human.stdout.contains(expected),
            "missing {expected:?} in:\n{}",
            human.stdout
        );
    }
}

#[test]
fn interactive_mode_answers_permissions_at_the_keyboard() {
    let dir = workdir("interactive");
    let agent = program("agent").display().to_string();
    let mut child = Command::new(program("client"))
        .args(["--json", "--interactive", "--", &agent])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let start = Instant::now();
    let mut events = Vec::new();
    writeln!(stdin, "edit notes.txt").unwrap();
    for line in stdout.lines() {
        let event: Value = serde_json::from_str(&line.unwrap()).unwrap();
        match event["event"].as_str() {
            // Answer with the second option: always allow.
            Some("permission_request") => writeln!(stdin, "2").unwrap(),
            Some("prompt_result") if event["stopReason"] == "end_turn" => {
                writeln!(stdin, ":quit").unwrap();
            }
            _ => {}
        }
        assert!(
            start.elapsed() < RUN_TIMEOUT,
            "the interactive session hangs"
        );
        events.push(event);
    }
    assert!(child.wait().unwrap().success());
    let answered = of(&events, "permission_response");
    assert_eq!(answered[0]["optionId"], "allow-always");
    assert_eq!(answered[0]["by"], "user");
    assert_eq!(dir.read("notes.txt"), "# Notes\n- DONE: one\n- DONE: two\n");
}
