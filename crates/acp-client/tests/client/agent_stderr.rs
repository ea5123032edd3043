//! A spawned agent's stderr is read to its end whatever it holds: a line without a newline is
//! delivered in bounded pieces, bytes that are not UTF-8 are replaced, and the pipe stays open
//! after the connection ends, so the agent never gets `EPIPE` for logging.
#![cfg(unix)]

use crate::common;

use std::sync::Arc;

use acp_client::{MAX_STDERR_LINE, SpawnOptions, Stderr, spawn};
use acp_types::*;
use tokio::sync::mpsc;

use common::{DEADLINE, Quiet};

/// A fake agent in `sh`: it logs a 3 MiB line without a newline, ended by bytes that are not
/// UTF-8, logs more, answers `initialize`, logs again, then reads its input to the end and
/// says goodbye on stderr (after the connection is over).
const NOISY_AGENT: &str = r#"
head -c 3145728 /dev/zero | tr '\0' x >&2
printf '\377\376 not utf-8\n' >&2
echo after >&2
IFS= read -r line
id=$(printf '%s' "$line" | sed 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1}}\n' "$id"
echo answered >&2
cat >/dev/null
echo bye >&2
"#;

async fn next_line(rx: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(DEADLINE, rx.recv())
        .await
        .expect("the agent's stderr goes on")
        .expect("the stderr callback lives")
}

#[tokio::test(flavor = "current_thread")]
async fn long_and_invalid_stderr_lines_are_bounded_and_reading_goes_on() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let lines = Arc::new(move |line: &str| {
        let _ = tx.send(line.to_owned());
    });
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(NOISY_AGENT);
    let spawned = spawn(
        command,
        |_agent| Quiet,
        SpawnOptions::default().stderr(Stderr::Lines(lines)),
    )
    .expect("sh starts");
    let driver = tokio::spawn(spawned.driver);
    let agent = spawned.agent;
    let mut process = spawned.process;

    // The protocol works beside the noise.
    let init = tokio::time::timeout(
        DEADLINE,
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .expect("initialize is answered in time");
    assert!(init.is_ok(), "initialize failed: {init:?}");

    // Everything up to `answered` was delivered, in pieces of bounded length.
    let mut xs = 0;
    let mut longest = 0;
    let mut seen = Vec::new();
    loop {
        let line = next_line(&mut rx).await;
        longest = longest.max(line.len());
        xs += line.bytes().filter(|&b| b == b'x').count();
        if line == "answered" {
            break;
        }
        if !line.bytes().all(|b| b == b'x') {
            seen.push(line);
        }
    }
    assert!(
        longest <= MAX_STDERR_LINE,
        "a stderr line of {longest} bytes was delivered (the bound is {MAX_STDERR_LINE})"
    );
    assert_eq!(xs, 3 * 1024 * 1024, "every byte of the long line arrived");
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(
        seen[0].ends_with("\u{FFFD}\u{FFFD} not utf-8"),
        "invalid bytes are replaced: {:?}",
        &seen[0][seen[0].len().saturating_sub(40)..]
    );
    assert_eq!(seen[1], "after");

    // The connection ends (its driver is dropped, which closes the agent's stdin); the agent's
    // last words still arrive, and it exits normally instead of dying of SIGPIPE.
    driver.abort();
    let _ = driver.await;
    assert_eq!(next_line(&mut rx).await, "bye");
    let status = tokio::time::timeout(DEADLINE, process.wait())
        .await
        .expect("the agent exits")
        .expect("its status");
    assert!(status.success(), "the agent ended with {status}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_panicking_stderr_callback_does_not_stop_the_reading() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let lines = Arc::new(move |line: &str| {
        assert_ne!(line, "boom", "the callback fails on this line");
        let _ = tx.send(line.to_owned());
    });
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg("echo one >&2; echo boom >&2; echo two >&2; exec cat >/dev/null");
    let spawned = spawn(
        command,
        |_agent| Quiet,
        SpawnOptions::default().stderr(Stderr::Lines(lines)),
    )
    .expect("sh starts");
    let driver = tokio::spawn(spawned.driver);
    assert_eq!(next_line(&mut rx).await, "one");
    assert_eq!(next_line(&mut rx).await, "two");
    driver.abort();
    let _ = driver.await;
    let mut process = spawned.process;
    let status = tokio::time::timeout(DEADLINE, process.wait())
        .await
        .expect("the agent exits")
        .expect("its status");
    assert!(status.success(), "the agent ended with {status}");
}
