//! `scripts/spec-update`, the report of what a newer official schema changes against ours:
//! its tests on small schemas (`scripts/spec-update-tests.py`) run here so that CI runs them,
//! and the report of our committed `schema/` against the official specification is empty.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use acp_testkit::{output_with_deadline, spec_dir, workspace_root};

/// Long enough for python3 to start and compare two schemas of a few hundred definitions on a
/// loaded machine; the script takes a fraction of a second.
const DEADLINE: Duration = Duration::from_secs(60);

fn script(name: &str) -> PathBuf {
    workspace_root().join("scripts").join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_report_names_each_kind_of_change_and_its_exit_status_tells() {
    let out = output_with_deadline(
        Command::new("python3").arg(script("spec-update-tests.py")),
        DEADLINE,
    );
    let log = text(&out.stderr);
    assert!(out.status.success(), "spec-update's tests failed:\n{log}");
    // unittest reports on stderr: `Ran N tests` and `OK`; none skipped or missing.
    let ran = log
        .lines()
        .find_map(|line| line.strip_prefix("Ran "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("no `Ran N tests` line:\n{log}"));
    assert!(ran >= 13, "only {ran} tests ran:\n{log}");
    assert!(log.trim_end().ends_with("OK"), "{log}");
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11, or ACP_SPEC_DIR); CI runs it"]
fn our_schema_is_the_official_one() {
    let dir = spec_dir();
    assert!(
        dir.join("v1").join("schema.json").is_file(),
        "the official specification is not at {} (v1/schema.json)",
        dir.display()
    );
    let out = output_with_deadline(
        // v1 only: our v2 schema is a draft in progress (issue 22), compared by its own tests.
        Command::new("python3")
            .arg(script("spec-update"))
            .args(["--protocol", "1"])
            .arg(&dir),
        DEADLINE,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "our schema/ differs from the official {}:\n{}{}",
        dir.display(),
        text(&out.stdout),
        text(&out.stderr)
    );
    let report = text(&out.stdout);
    assert_eq!(report.matches("   the same").count(), 2, "{report}");
}
