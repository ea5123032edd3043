//! The `acp` binary itself: its exit status, its table and its JSON report.

use crate::common;

use std::path::PathBuf;

use common::{acp, example};

fn broken_agent() -> PathBuf {
    example("broken_agent")
}

#[test]
fn schema_prints_the_repository_schema() {
    let out = acp().arg("schema").output().unwrap();
    assert!(out.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The crate's link to the repository's `schema/acp.schema.json` (a copy in a package).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("acp.schema.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root).unwrap()).unwrap();
    assert_eq!(printed, file);
}

#[test]
fn check_agent_exits_zero_prints_a_table_and_writes_a_json_report() {
    let json = std::env::temp_dir().join(format!("acp-cli-report-{}.json", std::process::id()));
    let out = acp()
        .args(["check", "agent", "--long-prompt", "slow", "--json"])
        .arg(&json)
        .arg("--")
        .arg(broken_agent())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("CASE"), "{stdout}");
    assert!(
        stdout.contains("cases: 22 passed, 0 failed, 0 skipped"),
        "{stdout}"
    );
    assert!(
        !stdout.contains('\x1b'),
        "no colours off a terminal: {stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["summary"]["failed"], 0);
    assert!(
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "pass")
    );
}

#[test]
fn check_agent_exits_one_when_a_case_fails() {
    let out = acp()
        .args(["check", "agent", "--long-prompt", "slow", "--"])
        .arg(broken_agent())
        .args(["--defect", "die-on-invalid-json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("invalid-json"), "{stdout}");
    assert!(stdout.contains("1 failed"), "{stdout}");
}

#[test]
fn a_missing_command_is_a_usage_error() {
    let out = acp().args(["check", "agent"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
