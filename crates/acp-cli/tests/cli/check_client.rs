//! `acp check client` against the deliberately broken clients of `examples/broken_client.rs`
//! (the checker's `{agent}` relayed through `acp relay`): the correct one passes, and each
//! defect is caught by the right case and only by it.

use crate::common;

use std::time::Duration;

use acp_cli::check_client::{ClientCheck, check_client};
use acp_cli::report::{Report, Status};

fn broken_client() -> String {
    common::example("broken_client")
        .to_string_lossy()
        .into_owned()
}

async fn check(defect: Option<&str>) -> Report {
    match defect {
        Some(defect) => check_with(&["--defect", defect]).await,
        None => check_with(&[]).await,
    }
}

/// The check of the broken client with `flags`.
async fn check_with(flags: &[&str]) -> Report {
    let mut argv = vec![broken_client()];
    argv.extend(flags.iter().map(|flag| (*flag).to_owned()));
    argv.extend(["--".to_owned(), "{agent}".to_owned()]);
    check_client(ClientCheck {
        argv,
        relay: vec![env!("CARGO_BIN_EXE_acp").to_owned(), "relay".to_owned()],
        timeout: Duration::from_secs(5),
        long_turn: Duration::from_secs(3),
        progress: false,
        protocol: acp_cli::protocol::Protocol::V1,
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correct_client_passes_every_case_it_offers() {
    let report = check(None).await;
    assert!(report.passed(), "{}", report.table(false));
    // It offers no terminals.
    assert_eq!(
        report.names(Status::Skip),
        ["terminal"],
        "{}",
        report.table(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_quitting_on_a_notice_it_advertised_fails_compaction_and_notices_only() {
    let report = check(Some("quit-on-notice")).await;
    assert_eq!(
        report.names(Status::Fail),
        ["compaction-and-notices"],
        "{}",
        report.table(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_rejecting_an_unknown_update_kind_fails_unknown_update_only() {
    let report = check(Some("reject-unknown-update")).await;
    assert_eq!(
        report.names(Status::Fail),
        ["unknown-update"],
        "{}",
        report.table(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_writing_outside_the_sandbox_fails_fs_write_only() {
    let report = check(Some("write-outside")).await;
    assert_eq!(
        report.names(Status::Fail),
        ["fs-write"],
        "{}",
        report.table(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_permission_requests_unanswered_at_cancel_is_caught() {
    let report = check(Some("forget-pending")).await;
    // Like a user who does not answer, the client holds permission requests until it cancels:
    // in both cases a request is pending at the cancel, and never answered.
    assert_eq!(
        report.names(Status::Fail),
        ["permission", "cancel-pending-permission"],
        "{}",
        report.table(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_confining_its_agent_to_the_session_cwd_passes_the_file_and_terminal_cases() {
    // Its session's cwd is a directory of its own, not its working directory; it refuses any
    // file or terminal outside it.
    let report = check_with(&["--confine"]).await;
    assert!(report.passed(), "{}", report.table(false));
    for case in ["fs-read", "fs-write", "terminal"] {
        assert_eq!(
            report.case(case).unwrap().status,
            Status::Pass,
            "{}",
            report.table(false)
        );
    }
}
