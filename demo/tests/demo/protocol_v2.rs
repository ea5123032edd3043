//! The demo client and agent on ACP v2 (feature `unstable_protocol_v2`), as processes over
//! stdio: a v2 session end to end, `--protocol 1` forcing v1, the v2 client falling back to v1
//! against an agent capped at v1 (`agent --max-protocol 1`), and a session resumed with its
//! history replayed on v2 from the agent's `--sessions` store. Every message of the agent's
//! wire log is checked against the schema of the version the connection negotiated (the
//! negotiating `initialize`, which a v1 agent reads too, against both).

#![cfg(feature = "unstable_protocol_v2")]

use std::collections::HashMap;
use std::path::Path;

use acp_testkit::Spec;
use serde_json::Value;

use crate::common::{Run, Workdir, of, program, run_client, stop_reasons};

/// The specification of protocol `version`.
fn spec(version: u64) -> &'static Spec {
    if version == 2 {
        Spec::load_v2()
    } else {
        Spec::load()
    }
}

/// The messages of one direction of the agent's wire log (`PREFIX.recv` or `PREFIX.sent`).
fn messages(prefix: &Path, ext: &str) -> Vec<Value> {
    let mut name = prefix.as_os_str().to_owned();
    name.push(ext);
    let bytes = std::fs::read(&name).expect("the wire log");
    String::from_utf8(bytes)
        .expect("UTF-8 on the wire")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Checks every message of the agent's wire log `prefix` against the schema of `version`,
/// the version its `initialize` answer must name; a `negotiating` client's `initialize`
/// request is checked against both schemas. Returns the methods seen, with their counts.
fn check_wire(prefix: &Path, version: u64, negotiating: bool) -> HashMap<String, usize> {
    let received = messages(prefix, ".recv");
    let sent = messages(prefix, ".sent");
    assert!(
        !received.is_empty() && !sent.is_empty(),
        "an empty wire log"
    );
    let mut methods = HashMap::new();
    for (incoming, outgoing) in [(&received, &sent), (&sent, &received)] {
        let mut asked: HashMap<String, String> = HashMap::new();
        for message in incoming.iter() {
            let Some(method) = message["method"].as_str() else {
                continue;
            };
            *methods.entry(method.to_owned()).or_insert(0) += 1;
            if method == "initialize" && negotiating {
                spec(1)
                    .check_message(message)
                    .unwrap_or_else(|e| panic!("v1 rejects the negotiating initialize: {e}"));
            }
            spec(version)
                .check_message(message)
                .unwrap_or_else(|e| panic!("v{version} rejects {message}: {e}"));
            if !message["id"].is_null() {
                asked.insert(message["id"].to_string(), method.to_owned());
            }
        }
        for message in outgoing.iter().filter(|m| m["method"].is_null()) {
            let method = asked
                .get(&message["id"].to_string())
                .unwrap_or_else(|| panic!("an answer to no request: {message}"));
            if method == "initialize" {
                assert_eq!(
                    message["result"]["protocolVersion"], version,
                    "the agent negotiated another version: {message}"
                );
            }
            spec(version)
                .check_response(message, method)
                .unwrap_or_else(|e| panic!("v{version} rejects the answer to {method}: {e}"));
        }
    }
    methods
}

/// Runs the client with `flags`, `steps` as prompts, against `agent ARGS --wire-log PREFIX`;
/// asserts it exited 0.
fn run(dir: &Workdir, flags: &[&str], steps: &[&str], agent_args: &[&str], wire: &Path) -> Run {
    let agent = program("agent").display().to_string();
    let wire = wire.display().to_string();
    let mut args: Vec<&str> = vec!["--json", "--yes"];
    args.extend_from_slice(flags);
    for step in steps {
        args.extend(["--prompt", step]);
    }
    args.extend(["--", &agent]);
    args.extend_from_slice(agent_args);
    args.extend(["--wire-log", &wire]);
    let run = run_client(dir.path(), &args);
    assert_eq!(
        run.code,
        Some(0),
        "stdout: {}\nstderr: {}",
        run.stdout,
        run.stderr
    );
    run
}

/// The protocol version the transcript says was negotiated.
fn negotiated(events: &[Value]) -> u64 {
    let said = of(events, "negotiated");
    assert_eq!(said.len(), 1, "one negotiation: {said:?}");
    said[0]["protocolVersion"].as_u64().expect("a version")
}

/// The kinds of the live updates, in order.
fn kinds(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .filter(|e| e["event"] == "update" && e["replay"].is_null())
        .filter_map(|e| e["update"]["sessionUpdate"].as_str())
        .collect()
}

#[test]
fn the_v2_client_and_agent_speak_v2() {
    let dir = Workdir::new("v2", "both");
    let wire = dir.path().join("wire");
    let run = run(
        &dir,
        &[],
        &[
            "hello",
            "edit notes.txt",
            ":mode auto",
            ":config model demo-smart",
        ],
        &[],
        &wire,
    );
    let events = run.events();
    assert_eq!(negotiated(&events), 2);
    assert_eq!(stop_reasons(&events), ["end_turn"; 2]);
    // Every config option of the agent's, its modes among them as the option `mode`.
    let options = &of(&events, "session_new")[0]["configOptions"];
    let ids: Vec<&str> = options
        .as_array()
        .expect("config options")
        .iter()
        .filter_map(|o| o["configId"].as_str())
        .collect();
    // A boolean option too: v2 has no client capability for them, every client takes them.
    for id in ["mode", "model", "thoughts", "auto_title"] {
        assert!(ids.contains(&id), "{id} is offered: {options}");
    }
    // The v2 lifecycle, and no v1-only shape.
    let kinds = kinds(&events);
    for kind in [
        "user_message",
        "state_update",
        "agent_message_chunk",
        "tool_call_update",
    ] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    for kind in ["tool_call", "plan", "current_mode_update"] {
        assert!(!kinds.contains(&kind), "a v1 update on v2: {kind}");
    }
    // No client file system on v2: the agent says so instead of asking.
    assert!(
        run.stdout.contains("ACP v2 has no client file system"),
        "{}",
        run.stdout
    );
    assert!(notes_unchanged(&dir), "nothing wrote to notes.txt");
    // `:mode` and `:config` went through session/set_config_option.
    let set: Vec<&Value> = of(&events, "config_set");
    assert_eq!(set.len(), 2, "{set:?}");
    assert_eq!(set[0]["configId"], "mode");
    let methods = check_wire(&wire, 2, true);
    assert_eq!(methods.get("session/set_config_option"), Some(&2));
    assert!(!methods.contains_key("fs/read_text_file"), "{methods:?}");
    assert_eq!(methods.get("session/prompt"), Some(&2));
}

/// The demo's notes file as the work directory made it: nothing wrote to it.
fn notes_unchanged(dir: &Workdir) -> bool {
    dir.read("notes.txt") == "# Notes\n- TODO: one\n- TODO: two\n"
}

#[test]
fn a_v2_turn_is_cancelled_and_ends_at_the_idle_that_confirms_it() {
    let dir = Workdir::new("v2", "cancel");
    let wire = dir.path().join("wire");
    let run = run(
        &dir,
        &["--cancel-after", "300ms"],
        &["stream 200 20", "hello"],
        &[],
        &wire,
    );
    let events = run.events();
    assert_eq!(stop_reasons(&events), ["cancelled", "end_turn"]);
    let methods = check_wire(&wire, 2, true);
    assert_eq!(methods.get("session/cancel"), Some(&1));
}

#[test]
fn a_v2_run_streams_the_command_into_a_display_terminal_of_the_tool_call() {
    let dir = Workdir::new("v2", "display-terminal");
    let wire = dir.path().join("wire");
    let run = run(
        &dir,
        &[],
        &["run sh -c 'echo out; echo err >&2; exit 3'"],
        &[],
        &wire,
    );
    let events = run.events();
    assert_eq!(negotiated(&events), 2);
    assert_eq!(stop_reasons(&events), ["end_turn"]);
    let updates: Vec<acp_types::v2::SessionUpdate> = events
        .iter()
        .filter(|e| e["event"] == "update")
        .map(|e| serde_json::from_value(e["update"].clone()).expect("a v2 update"))
        .collect();
    use acp_types::v2::SessionUpdate as U;
    // The terminal is announced with its command, streamed, and exits with the code.
    let terminals: Vec<&acp_types::v2::TerminalUpdate> = updates
        .iter()
        .filter_map(|u| match u {
            U::TerminalUpdate(t) => Some(&**t),
            _ => None,
        })
        .collect();
    assert!(!terminals.is_empty(), "a display terminal: {updates:?}");
    let id = &terminals[0].terminal_id;
    assert!(
        terminals[0]
            .command
            .as_set()
            .is_some_and(|c| c.contains("echo out")),
        "{terminals:?}"
    );
    let exit = terminals
        .iter()
        .find_map(|t| t.exit_status.as_set())
        .expect("the exit status");
    assert_eq!(exit.exit_code, Some(3));
    let mut output = Vec::new();
    for update in &updates {
        if let U::TerminalOutputChunk(chunk) = update {
            assert_eq!(&chunk.terminal_id, id);
            output.extend(chunk.bytes().expect("base64"));
        }
    }
    let output = String::from_utf8(output).expect("the command printed UTF-8");
    assert!(
        output.contains("out\n") && output.contains("err\n"),
        "stdout and stderr streamed: {output:?}"
    );
    // The tool call shows the terminal, and fails with the exit code.
    assert!(
        updates.iter().any(|u| matches!(
            u,
            U::ToolCallUpdate(c) if c.content.as_set().is_some_and(|items| items.iter().any(
                |i| matches!(i, acp_types::v2::ToolCallContent::Terminal(t) if &t.terminal_id == id)
            ))
        )),
        "the terminal in the tool call's content"
    );
    assert!(run.stdout.contains("exited with code 3"), "{}", run.stdout);
    let methods = check_wire(&wire, 2, true);
    assert!(
        !methods.keys().any(|m| m.starts_with("terminal/")),
        "no client terminal on v2: {methods:?}"
    );
}

#[test]
fn protocol_1_forces_v1() {
    let dir = Workdir::new("v2", "forced-v1");
    let wire = dir.path().join("wire");
    let run = run(
        &dir,
        &["--protocol", "1"],
        &["hello", "edit notes.txt"],
        &[],
        &wire,
    );
    let events = run.events();
    assert_eq!(negotiated(&events), 1);
    assert_eq!(stop_reasons(&events), ["end_turn"; 2]);
    let kinds = kinds(&events);
    assert!(
        kinds.contains(&"tool_call") && !kinds.contains(&"state_update"),
        "{kinds:?}"
    );
    // v1 has the client's file system: the edit was written.
    assert!(!notes_unchanged(&dir));
    let methods = check_wire(&wire, 1, false);
    assert!(methods.contains_key("fs/read_text_file"), "{methods:?}");
}

#[test]
fn the_v2_client_falls_back_to_v1_against_an_agent_capped_at_v1() {
    let dir = Workdir::new("v2", "fallback");
    let wire = dir.path().join("wire");
    let run = run(
        &dir,
        &[],
        &["hello", "edit notes.txt"],
        &["--max-protocol", "1"],
        &wire,
    );
    let events = run.events();
    assert_eq!(negotiated(&events), 1);
    assert!(run.stdout.contains("\"protocolVersion\":1"));
    assert_eq!(stop_reasons(&events), ["end_turn"; 2]);
    // The whole session is v1, with what v1 offers (the client's file system).
    assert!(!kinds(&events).contains(&"state_update"));
    assert!(!notes_unchanged(&dir));
    let methods = check_wire(&wire, 1, true);
    assert!(methods.contains_key("fs/write_text_file"), "{methods:?}");
}

#[test]
fn a_stored_session_is_resumed_with_its_history_replayed_on_v2() {
    let dir = Workdir::new("v2", "replay");
    let db = dir.path().join("sessions.db").display().to_string();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let events = run(
        &dir,
        &[],
        &["hello", "title Kept"],
        &["--sessions", &db],
        &first,
    )
    .events();
    assert_eq!(negotiated(&events), 2);
    let made = of(&events, "session_new")[0]["sessionId"]
        .as_str()
        .expect("a session id")
        .to_owned();

    // A second agent process on the same store: listed, resumed with replay, prompted again.
    let load = format!(":load {made}");
    let events = run(
        &dir,
        &[],
        &[":list", &load, "hello again"],
        &["--sessions", &db],
        &second,
    )
    .events();
    let listed = &of(&events, "sessions")[0]["sessions"];
    assert!(
        listed
            .as_array()
            .expect("sessions")
            .iter()
            .any(|s| s["sessionId"] == made.as_str() && s["title"] == "Kept"),
        "{listed}"
    );
    assert_eq!(of(&events, "session_load")[0]["sessionId"], made.as_str());
    let replayed: Vec<&Value> = events.iter().filter(|e| e["replay"] == true).collect();
    assert!(replayed.len() > 2, "{replayed:?}");
    // The user's prompts, whole (`user_message`) or in chunks, each with its `messageId`.
    let mut texts: Vec<(String, String)> = Vec::new();
    for update in replayed.iter().map(|e| &e["update"]) {
        let text = match update["sessionUpdate"].as_str() {
            Some("user_message") => update["content"][0]["text"].as_str(),
            Some("user_message_chunk") => update["content"]["text"].as_str(),
            _ => continue,
        };
        let id = update["messageId"]
            .as_str()
            .expect("a messageId")
            .to_owned();
        match texts.last_mut() {
            Some((last, joined)) if *last == id => joined.push_str(text.unwrap_or("")),
            _ => texts.push((id, text.unwrap_or("").to_owned())),
        }
    }
    let texts: Vec<&str> = texts.iter().map(|(_, text)| text.as_str()).collect();
    assert_eq!(texts, ["hello", "title Kept"], "the user messages replayed");
    assert!(
        replayed.iter().all(|e| e["modelError"].is_null()),
        "the replay folds into the model: {replayed:?}"
    );
    assert_eq!(stop_reasons(&events), ["end_turn"]);
    for (wire, resumed) in [(first, false), (second, true)] {
        let methods = check_wire(&wire, 2, true);
        assert_eq!(
            methods.contains_key("session/resume"),
            resumed,
            "{methods:?}"
        );
        assert!(!methods.contains_key("session/load"));
    }
}
