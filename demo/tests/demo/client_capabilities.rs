//! The demo client advertises only what it will serve: `--read-only` takes away
//! `fs.writeTextFile`, `--no-fs` the whole file system, `--no-terminal` the terminals. Checked
//! on the wire, in what the demo agent received.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::program;
use serde_json::Value;

/// How long one client run may take before the test gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs the client against the demo agent with `flags`, and returns the `initialize`
/// request the agent received.
fn initialize_sent_with(name: &str, flags: &[&str]) -> Value {
    let dir = std::env::temp_dir().join(format!("acp-caps-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let wire = dir.join("wire");
    let mut child = Command::new(program("client"))
        .args(flags)
        .args(["--json", "--prompt", "hello", "--"])
        .arg(program("agent"))
        .arg("--wire-log")
        .arg(&wire)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the client");
    let status = acp_testkit::wait_with_deadline(&mut child, RUN_TIMEOUT);
    assert!(status.success(), "the client failed: {status}");
    let received = std::fs::read_to_string(dir.join("wire.recv")).expect("the agent's wire log");
    let _ = std::fs::remove_dir_all(&dir);
    let first = received.lines().next().expect("a first message");
    let message: Value = serde_json::from_str(first).expect("JSON");
    assert_eq!(message["method"], "initialize");
    message["params"]["clientCapabilities"].clone()
}

/// True when the capability flag is advertised as supported.
fn offered(flag: &Value) -> bool {
    flag.as_bool() == Some(true)
}

#[test]
fn by_default_the_client_offers_files_and_terminals() {
    let caps = initialize_sent_with("default", &[]);
    assert!(offered(&caps["fs"]["readTextFile"]), "{caps}");
    assert!(offered(&caps["fs"]["writeTextFile"]), "{caps}");
    assert!(offered(&caps["terminal"]), "{caps}");
}

#[test]
fn read_only_does_not_offer_writing_files() {
    let caps = initialize_sent_with("read-only", &["--read-only"]);
    assert!(offered(&caps["fs"]["readTextFile"]), "{caps}");
    assert!(!offered(&caps["fs"]["writeTextFile"]), "{caps}");
    assert!(offered(&caps["terminal"]), "{caps}");
}

#[test]
fn no_fs_and_no_terminal_offer_neither() {
    let caps = initialize_sent_with("none", &["--no-fs", "--no-terminal"]);
    assert!(!offered(&caps["fs"]["readTextFile"]), "{caps}");
    assert!(!offered(&caps["fs"]["writeTextFile"]), "{caps}");
    assert!(!offered(&caps["terminal"]), "{caps}");
}
