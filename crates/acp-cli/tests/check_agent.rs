//! `acp check agent` against the deliberately broken agents of `examples/broken_agent.rs`:
//! the correct one passes every case, and each defect is caught by the right case and only
//! by it.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use acp_cli::check_agent::{AgentCheck, check_agent};
use acp_cli::conn::PeerCommand;
use acp_cli::report::{Report, Status};

fn broken_agent() -> PathBuf {
    common::example("broken_agent")
}

async fn check(defect: Option<&str>) -> Report {
    let mut argv = vec![broken_agent().to_string_lossy().into_owned()];
    if let Some(defect) = defect {
        argv.extend(["--defect".to_owned(), defect.to_owned()]);
    }
    let mut opts = AgentCheck::new(PeerCommand::from_argv(&argv).unwrap());
    opts.timeout = Duration::from_secs(10);
    opts.long_prompt = Some("slow".into());
    check_agent(opts).await
}

async fn caught_only_by(defect: &str, case: &str) {
    let report = check(Some(defect)).await;
    assert_eq!(
        report.names(Status::Fail),
        vec![case],
        "defect `{defect}`:\n{}",
        report.table(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correct_agent_passes_every_case() {
    let report = check(None).await;
    assert!(report.passed(), "{}", report.table(false));
    assert_eq!(report.count(Status::Skip), 0, "{}", report.table(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_full_profile_skips_what_an_agent_does_not_advertise() {
    let mut opts = AgentCheck::new(
        PeerCommand::from_argv(&[broken_agent().to_string_lossy().into_owned()]).unwrap(),
    );
    opts.profile = acp_cli::check_agent::Profile::Full;
    opts.long_prompt = Some("slow".into());
    let report = check_agent(opts).await;
    assert!(report.passed(), "{}", report.table(false));
    for case in [
        "load-session",
        "list-sessions",
        "resume-session",
        "close-session",
        "delete-session",
        "set-mode",
        "set-config-option",
    ] {
        let result = report.case(case).unwrap();
        assert_eq!(result.status, Status::Skip, "{}", report.table(false));
        assert!(!result.detail.is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_answered_before_its_updates_fails_prompt_turn_only() {
    caught_only_by("early-response", "prompt-turn").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_ignoring_cancel_fails_cancel_only() {
    caught_only_by("ignore-cancel", "cancel").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_dying_on_invalid_json_fails_invalid_json_only() {
    caught_only_by("die-on-invalid-json", "invalid-json").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_invalid_update_fails_messages_valid_only() {
    caught_only_by("invalid-update", "messages-valid").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_answered_twice_fails_one_answer_per_request_only() {
    caught_only_by("double-answer", "one-answer-per-request").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_outliving_its_stdin_fails_stdin_close_only() {
    caught_only_by("no-exit", "stdin-close").await;
}
