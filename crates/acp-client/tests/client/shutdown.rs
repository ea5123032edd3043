//! Closing a spawned agent gracefully (`AgentProcess::shutdown`: stdin closed, then SIGTERM,
//! then SIGKILL, to its whole process group) and stopping a `ProcessGroup`.
#![cfg(unix)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use acp_client::{
    AgentProcess, ProcessGroup, SpawnOptions, SpawnedAgent, Stderr, StopStage, spawn,
};
use acp_types::*;
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

use common::{DEADLINE, Quiet, alive};

/// The grace period for agents that are expected to ignore a step.
const SHORT_GRACE: Duration = Duration::from_millis(200);

async fn wait_until_gone(pid: i32) {
    // Killing is asynchronous, and the helper's reaper is not us: poll until it is gone.
    for _ in 0..1000 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("process {pid} survived");
}

/// Spawns `sh -c script` as an agent; its stderr lines arrive on the receiver.
fn agent(script: &str) -> (SpawnedAgent, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let lines = Arc::new(move |line: &str| {
        let _ = tx.send(line.to_owned());
    });
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(script);
    let spawned = spawn(
        command,
        |_agent| Quiet,
        SpawnOptions::default().stderr(Stderr::Lines(lines)),
    )
    .expect("sh starts");
    (spawned, rx)
}

async fn line(rx: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(DEADLINE, rx.recv())
        .await
        .expect("the agent writes on stderr")
        .expect("its stderr is forwarded")
}

async fn shutdown(process: &mut AgentProcess, grace: Duration) -> acp_client::Stopped {
    tokio::time::timeout(DEADLINE, process.shutdown(grace))
        .await
        .expect("shutdown ends")
        .expect("shutdown works")
}

fn signal(stopped: &acp_client::Stopped) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&stopped.status)
}

#[tokio::test(flavor = "current_thread")]
async fn an_agent_that_exits_at_the_end_of_its_input_exits_when_stdin_closes() {
    let (spawned, mut rx) = agent("echo ready >&2; cat >/dev/null; echo bye >&2");
    let driver = tokio::spawn(spawned.driver);
    assert_eq!(line(&mut rx).await, "ready");
    let mut process = spawned.process;
    let stopped = shutdown(&mut process, DEADLINE).await;
    assert_eq!(stopped.stage, StopStage::Exited);
    assert!(stopped.status.success(), "{stopped}");
    assert_eq!(stopped.to_string(), "exited with code 0");
    assert_eq!(line(&mut rx).await, "bye");
    // The agent closed its stdout by exiting: the connection ended cleanly.
    let ended = tokio::time::timeout(DEADLINE, driver)
        .await
        .expect("the driver ends with the agent")
        .expect("the driver task");
    assert!(ended.is_ok(), "{ended:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn an_agent_ignoring_its_input_gets_sigterm() {
    let (spawned, mut rx) = agent("echo ready >&2; exec sleep 1000");
    let driver = tokio::spawn(spawned.driver);
    assert_eq!(line(&mut rx).await, "ready");
    let mut process = spawned.process;
    let stopped = shutdown(&mut process, SHORT_GRACE).await;
    assert_eq!(stopped.stage, StopStage::Terminated);
    assert_eq!(signal(&stopped), Some(15), "{stopped}");
    assert_eq!(stopped.to_string(), "ended by signal 15 (after SIGTERM)");
    let _ = tokio::time::timeout(DEADLINE, driver)
        .await
        .expect("the driver ends");
}

#[tokio::test(flavor = "current_thread")]
async fn an_agent_ignoring_sigterm_is_killed_with_its_whole_group() {
    // Ignored signals stay ignored in children: the helper ignores SIGTERM too.
    let (spawned, mut rx) = agent("trap '' TERM; sleep 1000 & echo $! >&2; wait");
    let driver = tokio::spawn(spawned.driver);
    let helper: i32 = line(&mut rx).await.trim().parse().expect("a pid");
    assert!(alive(helper));
    let mut process = spawned.process;
    let stopped = shutdown(&mut process, SHORT_GRACE).await;
    assert_eq!(stopped.stage, StopStage::Killed);
    assert_eq!(signal(&stopped), Some(9), "{stopped}");
    wait_until_gone(helper).await;
    let _ = tokio::time::timeout(DEADLINE, driver)
        .await
        .expect("the driver ends");
}

#[tokio::test(flavor = "current_thread")]
async fn helpers_left_behind_by_an_agent_that_exited_are_killed() {
    let (spawned, mut rx) = agent("sleep 1000 & echo $! >&2; cat >/dev/null");
    let driver = tokio::spawn(spawned.driver);
    let helper: i32 = line(&mut rx).await.trim().parse().expect("a pid");
    let mut process = spawned.process;
    let stopped = shutdown(&mut process, DEADLINE).await;
    assert_eq!(stopped.stage, StopStage::Exited);
    wait_until_gone(helper).await;
    driver.abort();
}

#[tokio::test(flavor = "current_thread")]
async fn calls_after_stdin_closed_fail_instead_of_hanging() {
    let (spawned, mut rx) = agent("echo ready >&2; exec sleep 1000");
    let driver = tokio::spawn(spawned.driver);
    assert_eq!(line(&mut rx).await, "ready");
    let mut process = spawned.process;
    process.close_stdin();
    let result = tokio::time::timeout(
        DEADLINE,
        spawned
            .agent
            .initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .expect("the call fails in time");
    assert!(result.is_err(), "{result:?}");
    let ended = tokio::time::timeout(DEADLINE, driver)
        .await
        .expect("the driver ends")
        .expect("the driver task");
    assert!(ended.is_err(), "the write failed: {ended:?}");
    let stopped = shutdown(&mut process, SHORT_GRACE).await;
    assert_eq!(stopped.stage, StopStage::Terminated);
}

#[tokio::test(flavor = "current_thread")]
async fn shutting_down_an_agent_that_already_exited_reports_its_status() {
    let (spawned, _rx) = agent("exit 3");
    let driver = tokio::spawn(spawned.driver);
    let mut process = spawned.process;
    let status = tokio::time::timeout(DEADLINE, process.wait())
        .await
        .expect("exits")
        .expect("status");
    assert_eq!(status.code(), Some(3));
    let stopped = shutdown(&mut process, DEADLINE).await;
    assert_eq!(stopped.stage, StopStage::Exited);
    assert_eq!(stopped.to_string(), "exited with code 3");
    let _ = tokio::time::timeout(DEADLINE, driver)
        .await
        .expect("the driver ends");
}

#[tokio::test(flavor = "current_thread")]
async fn stopping_a_process_group_terminates_its_helpers_too() {
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg("sleep 1000 & echo $!; exec sleep 1000")
        .stdout(std::process::Stdio::piped());
    let mut group = ProcessGroup::spawn(&mut command).expect("sh starts");
    let stdout = group.child().stdout.take().expect("piped");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let helper: i32 = tokio::time::timeout(DEADLINE, lines.next_line())
        .await
        .expect("the helper's pid")
        .expect("read")
        .expect("a line")
        .parse()
        .expect("a pid");
    assert_eq!(group.group_id(), group.id());
    let stopped = tokio::time::timeout(DEADLINE, group.stop(DEADLINE))
        .await
        .expect("stops")
        .expect("stop works");
    assert_eq!(stopped.stage, StopStage::Terminated);
    assert_eq!(signal(&stopped), Some(15));
    wait_until_gone(helper).await;
}
