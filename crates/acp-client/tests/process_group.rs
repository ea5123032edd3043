//! A spawned agent runs in its own process group, and dropping its `AgentProcess` kills the
//! whole group: no helper the agent started survives, even when the agent itself has exited.
#![cfg(unix)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use acp_client::{SpawnOptions, Stderr, spawn};
use tokio::sync::mpsc;

use common::{Quiet, alive};

/// Starts a fake agent that leaves a helper running, and returns the helper's pid.
async fn agent_with_helper(exit_agent: bool) -> (acp_client::AgentProcess, i32) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let lines = Arc::new(move |line: &str| {
        let _ = tx.send(line.to_owned());
    });
    // The "agent" starts a long-lived helper, reports its pid on stderr, then either keeps
    // reading stdin or exits at once.
    let script = if exit_agent {
        "sleep 300 & echo $! >&2"
    } else {
        "sleep 300 & echo $! >&2; exec cat"
    };
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(script);
    let spawned = spawn(
        command,
        |_agent| Quiet,
        SpawnOptions::default().stderr(Stderr::Lines(lines)),
    )
    .expect("sh starts");
    let driver = tokio::spawn(spawned.driver);
    let pid: i32 = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("the helper's pid arrives")
        .expect("stderr is forwarded")
        .trim()
        .parse()
        .expect("a pid");
    assert!(alive(pid), "the helper runs");
    let mut process = spawned.process;
    if exit_agent {
        process.wait().await.expect("the agent exits");
    }
    driver.abort();
    (process, pid)
}

async fn wait_until_gone(pid: i32) {
    // Killing is asynchronous: poll until the helper is gone (bounded).
    for _ in 0..500 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the helper {pid} survived its agent's process group being killed");
}

#[tokio::test(flavor = "current_thread")]
async fn dropping_the_process_kills_the_agents_helpers() {
    let (process, helper) = agent_with_helper(false).await;
    drop(process);
    wait_until_gone(helper).await;
}

#[tokio::test(flavor = "current_thread")]
async fn helpers_die_even_after_the_agent_itself_exited() {
    let (process, helper) = agent_with_helper(true).await;
    assert!(alive(helper), "the helper outlived the agent");
    drop(process);
    wait_until_gone(helper).await;
}
