//! `acp check agent` against the deliberately broken agents of `examples/broken_agent.rs`:
//! the correct one passes every case, and each defect is caught by the right case and only
//! by it.

use crate::common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use acp_cli::check_agent::{AgentCheck, check_agent};
use acp_cli::conn::PeerCommand;
use acp_cli::report::{Report, Status};

fn broken_agent() -> PathBuf {
    common::example("broken_agent")
}

/// The check's settings for the broken agent with `defect`: the defaults, and `slow` (a
/// two-second turn) as the long prompt.
fn options(defect: Option<&str>) -> AgentCheck {
    let mut argv = vec![broken_agent().to_string_lossy().into_owned()];
    if let Some(defect) = defect {
        argv.extend(["--defect".to_owned(), defect.to_owned()]);
    }
    let mut opts = AgentCheck::new(PeerCommand::from_argv(&argv).unwrap());
    opts.timeout = Duration::from_secs(10);
    opts.long_prompt = Some("slow".into());
    opts
}

async fn check(defect: Option<&str>) -> Report {
    check_agent(options(defect)).await
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
    // Advertised `session.notices` (and compaction), the turn has its notice.
    let advertised = report.case("compaction-and-notices").unwrap();
    assert_eq!(advertised.status, Status::Pass, "{}", report.table(false));
    assert!(
        advertised
            .detail
            .contains("0 compaction update(s) and 1 notice(s)"),
        "{}",
        report.table(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notice_to_a_client_that_did_not_advertise_notices_fails_client_capabilities_only() {
    caught_only_by("unadvertised-notice", "client-capabilities").await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_that_ends_before_the_cancel_is_a_skip_not_a_failure() {
    // The default options: the ordinary prompt is also the one to cancel, and the broken agent
    // answers it at once (as the example agent does): the turn is over before the cancel.
    let mut opts = options(None);
    opts.long_prompt = None;
    let report = check_agent(opts).await;
    let cancel = report.case("cancel").unwrap();
    assert_eq!(cancel.status, Status::Skip, "{}", report.table(false));
    assert!(
        cancel.detail.contains("--long-prompt"),
        "{}",
        report.table(false)
    );
    assert!(report.passed(), "{}", report.table(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_after_the_cancelled_answer_fail_cancel_only() {
    let report = check(Some("updates-after-cancel")).await;
    assert_eq!(
        report.names(Status::Fail),
        vec!["cancel"],
        "{}",
        report.table(false)
    );
    let detail = &report.case("cancel").unwrap().detail;
    assert!(
        detail.contains("after its \"cancelled\" answer"),
        "{detail}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_with_a_wrong_id_fail_at_once_saying_so() {
    // Waiting out the 10 s timeout in each case would take minutes; the wrong answer is the
    // answer, and each case fails as it comes.
    let started = Instant::now();
    let report = tokio::time::timeout(Duration::from_secs(60), check(Some("wrong-id")))
        .await
        .expect("the check of an agent answering with wrong ids finishes in a minute");
    let initialize = report.case("initialize").unwrap();
    assert_eq!(initialize.status, Status::Fail, "{}", report.table(false));
    assert!(
        initialize.detail.contains("no answer to request 0")
            && initialize.detail.contains("\"wrong-0\""),
        "{}",
        report.table(false)
    );
    assert_eq!(
        report.case("one-answer-per-request").unwrap().status,
        Status::Fail
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}
