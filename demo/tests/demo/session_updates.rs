//! The session updates that became stable in November 2026, end to end as real processes:
//! the demo client advertises `session.compaction` and `session.notices` and shows what the
//! demo agent sends for `compact` and `notice` (and the tool names of its tool calls); without
//! the capabilities (`--no-compaction`, `--no-notices`) the agent sends neither and says so
//! in its reply. Every message on the wire (the agent's `--wire-log`) is checked against the
//! stable schema.

use acp_testkit::Spec;

use crate::common::{Workdir, program, run_client};
use crate::wired::run;

#[test]
fn the_agent_reports_compactions_notices_and_tool_names_to_a_client_that_takes_them() {
    let run = run(
        "stable-updates",
        &["--yes"],
        &[
            "edit notes.txt",
            "compact",
            "notice warning Disk almost full",
            "notice",
        ],
    );
    // `notice` without text is a usage message, not a notice with an empty title.
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(run.of("prompt_result").len(), 4);
    run.check_wire(Spec::load());
    let caps = &run.received[0]["params"]["clientCapabilities"]["session"];
    assert!(caps["compaction"].is_object(), "{caps}");
    assert!(caps["notices"].is_object(), "{caps}");

    // Tool call names.
    let names: Vec<&str> = run
        .updates("tool_call")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["read_file", "edit_file"]);

    // Compaction: in progress, the summary in chunks, completed; one id throughout.
    let updates = run.updates("compaction_update");
    let states: Vec<&str> = updates
        .iter()
        .map(|u| u["status"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["in_progress", "completed"]);
    let chunks = run.updates("compaction_summary_chunk");
    let summary: String = chunks
        .iter()
        .map(|c| c["content"]["text"].as_str().unwrap())
        .collect();
    assert!(summary.starts_with("Summary of 2 turn(s)"), "{summary}");
    let id = &updates[0]["compactionId"];
    assert!(
        chunks
            .iter()
            .chain(&updates)
            .all(|u| u["compactionId"] == *id)
    );

    // One notice, as asked.
    let notices = run.updates("notice");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["severity"], "warning");
    assert_eq!(notices[0]["title"], "Disk almost full");
}

#[test]
fn without_the_capabilities_the_agent_sends_neither_and_says_so() {
    let run = run(
        "no-updates",
        &["--yes", "--no-compaction", "--no-notices"],
        &["compact", "notice error Out of quota"],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    run.check_wire(Spec::load());
    let caps = &run.received[0]["params"]["clientCapabilities"];
    assert!(caps["session"].get("compaction").is_none(), "{caps}");
    assert!(caps["session"].get("notices").is_none(), "{caps}");
    for kind in ["compaction_update", "compaction_summary_chunk", "notice"] {
        assert!(run.updates(kind).is_empty(), "{kind} sent anyway");
    }
    let said: String = run
        .updates("agent_message_chunk")
        .iter()
        .filter_map(|c| c["content"]["text"].as_str())
        .collect();
    assert!(
        said.contains("did not advertise `session.compaction`, so without reporting it"),
        "{said}"
    );
    assert!(
        said.contains(
            "Notice (error): Out of quota (the client did not advertise `session.notices`"
        ),
        "{said}"
    );
}

#[test]
fn the_client_shows_notices_by_severity_compactions_and_tool_names() {
    let dir = Workdir::new("session-updates", "human");
    let agent = program("agent");
    let run = run_client(
        dir.path(),
        &[
            "--yes",
            "--prompt",
            "read notes.txt",
            "--prompt",
            "compact",
            "--prompt",
            "notice warning Disk almost full",
            "--",
            agent.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let out = &run.stdout;
    assert!(out.contains("[read read_file]"), "{out}");
    assert!(out.contains("compacting the context\u{2026}"), "{out}");
    assert!(out.contains("(summary) Summary of 2 turn(s)"), "{out}");
    assert!(out.contains("context compacted"), "{out}");
    assert!(out.contains("[warning] Disk almost full"), "{out}");
}
