//! `acp conduct`: the checker sees the same agent through the conductor as without it; usage
//! errors; the end of stdin ends the chain.

use crate::common;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use acp_cli::check_agent::{AgentCheck, check_agent};
use acp_cli::conn::PeerCommand;
use acp_cli::report::Status;

/// Runs `command` (stdin empty) to its end, for at most `limit`: past it, it is killed and the
/// test fails. Its output is small: the pipes cannot fill.
fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start acp");
    let start = Instant::now();
    while child.try_wait().expect("wait for acp").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("acp did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("acp's output")
}

/// `acp check agent`'s settings for `acp conduct -- <broken_agent [--defect D]>`.
fn through_conductor(defect: Option<&str>) -> AgentCheck {
    let mut agent = common::example("broken_agent").display().to_string();
    if let Some(defect) = defect {
        agent.push_str(" --defect ");
        agent.push_str(defect);
    }
    let acp = env!("CARGO_BIN_EXE_acp").to_owned();
    let argv = [acp, "conduct".to_owned(), "--".to_owned(), agent];
    let mut opts = AgentCheck::new(PeerCommand::from_argv(&argv).unwrap());
    opts.timeout = Duration::from_secs(10);
    opts.long_prompt = Some("slow".into());
    opts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_behind_the_conductor_passes_every_case() {
    let report = check_agent(through_conductor(None)).await;
    assert!(report.passed(), "{}", report.table(false));
    assert_eq!(report.count(Status::Skip), 0, "{}", report.table(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_defect_behind_the_conductor_is_still_caught_by_its_case() {
    let report = check_agent(through_conductor(Some("early-response"))).await;
    assert_eq!(
        report.names(Status::Fail),
        vec!["prompt-turn"],
        "{}",
        report.table(false)
    );
}

#[test]
fn usage_errors_exit_2_saying_what_is_wrong() {
    let limit = Duration::from_secs(20);
    let out = output_within(
        common::acp().args(["conduct", "--", "agent 'unclosed"]),
        limit,
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unclosed ' quote"), "{stderr}");

    let out = output_within(
        common::acp().args(["conduct", "--", "/nonexistent/agent --acp"]),
        limit,
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot start `/nonexistent/agent --acp`"),
        "{stderr}"
    );

    let out = output_within(common::acp().args(["conduct"]), limit);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_end_of_stdin_ends_the_chain() {
    // `output_with_deadline` gives an empty stdin: the conductor closes the agent's input,
    // the agent exits, the conductor exits 0.
    let agent = common::example("broken_agent").display().to_string();
    let out = output_within(
        common::acp().args(["conduct", "--grace", "1", "--", &agent]),
        Duration::from_secs(20),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
