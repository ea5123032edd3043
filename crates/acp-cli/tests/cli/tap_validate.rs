//! `acp tap` and `acp validate` as programs: the tap is byte-transparent in any framing, passes
//! the exit status and signals through, and its transcript validates; `acp validate` finds the
//! protocol problems of a transcript, with their line numbers.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use acp_cli::validate::validate_file;
use common::{acp, example};

use crate::common;

fn broken_agent() -> PathBuf {
    example("broken_agent")
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("acp-cli-{name}-{}", std::process::id()))
}

/// Runs `command` with `input` on stdin (kept open a moment so that the turn finishes);
/// returns its stdout and exit code.
fn run_with_input(mut command: Command, input: &[u8]) -> (Vec<u8>, Option<i32>) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (out.stdout, out.status.code())
}

const SESSION: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":"new","method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"_acp_cli/probe","params":{}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}"#,
    "\n",
);

#[test]
fn a_session_through_the_tap_is_the_session_without_it_and_its_transcript_validates() {
    let (direct, _) = run_with_input(Command::new(broken_agent()), SESSION.as_bytes());
    let log = temp("tap-log");
    let mut tap = acp();
    tap.args(["tap", "--validate", "--log"])
        .arg(&log)
        .arg("--")
        .arg(broken_agent());
    let (tapped, code) = run_with_input(tap, SESSION.as_bytes());
    assert_eq!(code, Some(0));
    assert_eq!(
        String::from_utf8_lossy(&tapped),
        String::from_utf8_lossy(&direct)
    );
    assert_eq!(tapped, direct);
    let validation = validate_file(&log, None).unwrap();
    let transcript = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).unwrap();
    assert!(
        validation.problems.is_empty(),
        "{:?}\n{transcript}",
        validation.problems
    );
    assert!(validation.both_sides);
    // 4 requests; 4 answers, 2 updates.
    assert_eq!(
        (validation.from_client, validation.from_agent),
        (4, 6),
        "{transcript}"
    );
    let first: serde_json::Value =
        serde_json::from_str(transcript.lines().next().unwrap()).unwrap();
    assert_eq!(first["from"], "client");
    assert!(first["ts"].as_str().unwrap().ends_with('Z'));
    assert_eq!(first["message"]["method"], "initialize");
}

#[test]
fn content_length_framed_bytes_pass_unchanged_and_are_recorded() {
    let body = r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#;
    let input = format!("Content-Length: {}\r\n\r\n{body}", body.len()).repeat(2);
    let log = temp("tap-cl-log");
    let mut tap = acp();
    tap.args(["tap", "--log"]).arg(&log).args(["--", "cat"]);
    let (output, code) = run_with_input(tap, input.as_bytes());
    assert_eq!(code, Some(0));
    assert_eq!(output, input.as_bytes());
    let transcript = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).unwrap();
    let froms: Vec<String> = transcript
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["from"].to_string())
        .collect();
    assert_eq!(froms.len(), 4, "{transcript}");
    assert_eq!(froms.iter().filter(|f| f.contains("client")).count(), 2);
}

#[test]
fn the_tap_exits_with_the_agent_s_status() {
    let status = acp()
        .args(["tap", "--", "sh", "-c", "exit 7"])
        .stdin(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(7));
}

#[cfg(unix)]
#[test]
fn a_signal_to_the_tap_reaches_the_agent() {
    let mut child = acp()
        .args(["tap", "--", "sleep", "30"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    // `sleep` ended by SIGTERM (15): 128 + 15.
    assert_eq!(status.code(), Some(143));
}

#[test]
fn validate_reports_each_protocol_problem_with_its_line() {
    let lines = [
        // 1-2: a turn, answered; 3: an update of it after the response.
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}}"#,
        // 4: a second answer to request 1.
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}}"#,
        // 5-9: a turn with a permission request, cancelled; the request is answered
        // `selected` and the turn ends `end_turn`.
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"a"}}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}}"#,
        // 10: a result that is not a valid answer to `session/new`; 11: never answered.
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":3,"result":{"session":"x"}}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}}"#,
    ];
    let path = temp("validate-problems");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let output = acp().arg("validate").arg(&path).output().unwrap();
    std::fs::remove_file(&path).unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    for expected in [
        "line 3: a `agent_message_chunk` update for session s after its turn's response (line 2)",
        "line 4: a second answer to request 1 (first on line 2)",
        "line 8: a permission request (line 6) pending when its turn was cancelled must be answered \"cancelled\"",
        "line 9: the turn of session s was cancelled (line 7) but ended \"end_turn\"",
        "line 11: from the agent: result of `session/new` is not a valid NewSessionResponse",
        "line 12: the client's `session/new` request 4 was never answered",
    ] {
        assert!(
            stdout.contains(expected),
            "missing `{expected}` in:\n{stdout}"
        );
    }
    assert!(stdout.contains("6 problem(s)"), "{stdout}");
}

#[test]
fn validate_knows_the_stable_notices_and_compactions_and_who_may_get_them() {
    let lines = [
        // 1-2: a client that takes compactions, not notices.
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"session":{"compaction":{}}}}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}"#,
        // 3-7: a turn with a compaction (valid) and a notice (not advertised).
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"compaction_update","compactionId":"c","status":"in_progress"}}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"compaction_summary_chunk","compactionId":"c","content":{"type":"text","text":"all"}}}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"info","title":"Hi"}}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}}"#,
    ];
    let path = temp("validate-gated-updates");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let output = acp().arg("validate").arg(&path).output().unwrap();
    std::fs::remove_file(&path).unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "line 6: from the agent: a `notice` update, but the client did not advertise `session.notices`"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("1 problem(s)"), "{stdout}");
}
