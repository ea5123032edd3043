//! A process group is stopped with everything it started: dropping it kills the whole group,
//! even when its leader has exited, and `wait_or_stop` ends at the step the program calls for.
#![cfg(unix)]

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use acp_process::{ProcessGroup, Stderr, StopStage, forward_stderr};
use tokio::sync::mpsc;

/// Bounds every wait of these tests, so that a regression fails instead of hanging.
const DEADLINE: Duration = Duration::from_secs(30);

/// The grace period for programs that are expected to ignore a step.
const SHORT_GRACE: Duration = Duration::from_millis(200);

/// True while `pid` runs (a zombie waiting for its reaper counts as gone).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => rustix::process::Pid::from_raw(pid)
            .is_some_and(|pid| rustix::process::test_kill_process(pid).is_ok()),
    }
}

async fn wait_until_gone(pid: i32) {
    // Killing is asynchronous, and the helper's reaper is not us: poll until it is gone.
    for _ in 0..1000 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the helper {pid} survived its process group being killed");
}

/// Starts `sh -c script` in a group of its own with stdin piped; the script's first stderr
/// line is the pid of a helper it started (`sleep 300 &`), returned after checking it runs.
async fn program_with_helper(script: &str) -> (ProcessGroup, i32) {
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!("sleep 300 & echo $! >&2; {script}"))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped());
    let mut group = ProcessGroup::spawn(&mut command).expect("sh starts");
    assert_eq!(group.group_id(), group.id(), "the program leads its group");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let lines = Stderr::Lines(Arc::new(move |line: &str| {
        let _ = tx.send(line.to_owned());
    }));
    let stderr = group.child().stderr.take().expect("piped");
    tokio::spawn(forward_stderr(stderr, lines));
    let pid: i32 = tokio::time::timeout(DEADLINE, rx.recv())
        .await
        .expect("the helper's pid arrives")
        .expect("stderr is forwarded")
        .trim()
        .parse()
        .expect("a pid");
    assert!(alive(pid), "the helper runs");
    (group, pid)
}

#[tokio::test(flavor = "current_thread")]
async fn dropping_the_group_kills_the_programs_helpers() {
    let (group, helper) = program_with_helper("exec cat").await;
    drop(group);
    wait_until_gone(helper).await;
}

#[tokio::test(flavor = "current_thread")]
async fn helpers_die_even_after_the_program_itself_exited() {
    let (mut group, helper) = program_with_helper("exit 0").await;
    let status = tokio::time::timeout(DEADLINE, group.wait())
        .await
        .expect("the program exits")
        .expect("its status");
    assert!(status.success());
    assert!(alive(helper), "the helper outlived the program");
    drop(group);
    wait_until_gone(helper).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_program_that_ends_with_its_input_exits_and_its_helpers_are_killed() {
    let (mut group, helper) = program_with_helper("cat >/dev/null; exit 4").await;
    drop(group.child().stdin.take());
    let stopped = tokio::time::timeout(DEADLINE, group.wait_or_stop(DEADLINE))
        .await
        .expect("it stops")
        .expect("stopping works");
    assert_eq!(stopped.stage, StopStage::Exited);
    assert_eq!(stopped.to_string(), "exited with code 4");
    // The group is still held: the leftovers were killed by `wait_or_stop` itself.
    wait_until_gone(helper).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_program_that_ignores_its_input_gets_sigterm() {
    let (mut group, helper) = program_with_helper("exec sleep 300").await;
    drop(group.child().stdin.take());
    let stopped = tokio::time::timeout(DEADLINE, group.wait_or_stop(SHORT_GRACE))
        .await
        .expect("it stops")
        .expect("stopping works");
    assert_eq!(stopped.stage, StopStage::Terminated);
    assert_eq!(stopped.to_string(), "ended by signal 15 (after SIGTERM)");
    wait_until_gone(helper).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_program_that_ignores_sigterm_is_killed_with_its_group() {
    // `trap '' TERM` is inherited by the helper started after it: both ignore SIGTERM.
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg("trap '' TERM; sleep 300 & echo $!; while :; do sleep 1; done")
        .stdout(Stdio::piped());
    let mut group = ProcessGroup::spawn(&mut command).expect("sh starts");
    let stdout = group.child().stdout.take().expect("piped");
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let helper: i32 = tokio::time::timeout(DEADLINE, lines.next_line())
        .await
        .expect("the helper's pid")
        .expect("read")
        .expect("a line")
        .parse()
        .expect("a pid");
    let stopped = tokio::time::timeout(DEADLINE, group.stop(SHORT_GRACE))
        .await
        .expect("it stops")
        .expect("stopping works");
    assert_eq!(stopped.stage, StopStage::Killed);
    assert_eq!(
        stopped.to_string(),
        "ended by signal 9 (killed after ignoring SIGTERM)"
    );
    wait_until_gone(helper).await;
}
