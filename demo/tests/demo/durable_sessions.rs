//! `agent --sessions PATH`: a session made by one agent process is listed and loaded, with its
//! history replayed, by the next agent process on the same SQLite file.

use serde_json::Value;

use crate::common::{Workdir, of, program, run_client};
use crate::session::{Framing, check_wire};

/// The client runs `steps` against `agent --sessions DB` (its wire logged to `wire`) and exits
/// 0; returns its transcript.
fn run(dir: &Workdir, db: &str, wire: &str, steps: &[&str]) -> Vec<Value> {
    let agent = program("agent").display().to_string();
    let mut args = vec!["--json", "--yes"];
    for step in steps {
        args.extend(["--prompt", step]);
    }
    args.extend(["--", &agent, "--sessions", db, "--wire-log", wire]);
    let run = run_client(dir.path(), &args);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    run.events()
}

#[test]
fn a_session_survives_a_restart_of_the_agent() {
    let dir = Workdir::new("durable", "restart");
    let db = dir.path().join("sessions.db").display().to_string();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));

    // The first agent process: a session with one turn, then the agent exits.
    let events = run(
        &dir,
        &db,
        &first.display().to_string(),
        &["hello", "title Kept"],
    );
    let made = of(&events, "session_new")[0]["sessionId"].clone();
    assert!(made.as_str().unwrap().starts_with("sess-"));

    // The second process, on the same file: the session is listed (with its title) and loads,
    // replaying the first turn before the answer.
    let load = format!(":load {}", made.as_str().unwrap());
    let events = run(&dir, &db, &second.display().to_string(), &[":list", &load]);
    let listed = &of(&events, "sessions")[0]["sessions"];
    let kept = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == made)
        .unwrap_or_else(|| panic!("the first session is not listed: {listed}"));
    assert_eq!(kept["title"], "Kept");
    assert_eq!(of(&events, "session_load")[0]["sessionId"], made);
    let replayed: Vec<&Value> = events.iter().filter(|e| e["replay"] == true).collect();
    assert!(replayed.len() > 2, "{replayed:?}");
    assert_eq!(replayed[0]["update"]["sessionUpdate"], "user_message_chunk");
    assert_eq!(replayed[0]["update"]["content"]["text"], "hello");
    assert!(
        replayed
            .iter()
            .any(|e| e["update"]["sessionUpdate"] == "agent_message_chunk")
    );

    for wire in [first, second] {
        if let Some(methods) = check_wire(&wire, Framing::Ndjson) {
            assert!(methods.contains("session/new"));
        }
    }
}

#[test]
fn an_unreadable_sessions_file_is_a_clear_error() {
    let dir = Workdir::new("durable", "foreign");
    dir.write("junk.db", vec![0x5a_u8; 8192]);
    let db = dir.path().join("junk.db");
    let run = run_client(
        dir.path(),
        &[
            "--json",
            "--prompt",
            "hello",
            "--",
            &program("agent").display().to_string(),
            "--sessions",
            &db.display().to_string(),
        ],
    );
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr.contains("cannot open the sessions") && run.stderr.contains("junk.db"),
        "stderr: {}",
        run.stderr
    );
    // Nothing was written over it.
    assert_eq!(std::fs::read(&db).unwrap(), vec![0x5a_u8; 8192]);
}
