//! `kill -9` of a process writing to the store, at a random point, twenty times in a row on
//! one file: every reopen finds the file sound, every session there, each history a run of
//! consecutive updates holding at least everything the writer had flushed.
//!
//! The writing process is this test executable again, running [`writer`] with
//! [`CHILD_DB`] set: it writes until it is killed.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use acp_agent::{DurableOptions, HistoryLimits, SessionStore, StoreLimits};
use acp_types::*;

use crate::common::{Note, bounded, chunk, list_all, texts};
use crate::scratch::{Scratch, open};

/// The variable that makes [`writer`] the child of [`kill_9_at_random_points`].
const CHILD_DB: &str = "ACP_SQLITE_CRASH_DB";

/// Large enough that no update of a round is dropped by the history's bound.
fn options() -> DurableOptions {
    let limits = StoreLimits::DEFAULT.history(HistoryLimits::new(1_000_000, usize::MAX));
    DurableOptions::DEFAULT
        .limits(limits)
        .window(Duration::from_millis(5))
}

/// Writes updates `0..` into a new session of `store`, flushing every ten and printing
/// `durable SESSION N` once update N is committed; stops after `count` (never for `None`).
async fn write(store: &SessionStore<Note>, count: Option<u64>) -> SessionId {
    let id = store.create_async(Note::new("/crash")).await.unwrap();
    let mut i = 0u64;
    while count.is_none_or(|count| i < count) {
        store.ready().await;
        assert!(store.record(&id, &chunk(&format!("u{i}"))));
        if i % 10 == 9 {
            store.flush().await.unwrap();
            // The child's report to its parent, on purpose on stdout.
            #[allow(clippy::print_stdout)]
            {
                println!("durable {id} {i}");
            }
        }
        if i % 50 == 0 {
            tokio::task::yield_now().await;
        }
        i += 1;
    }
    id
}

/// The child's part: with [`CHILD_DB`], writes to that file until killed. Without it (a plain
/// test run), writes a bounded round and checks it is all there after a reopen.
#[test]
fn writer() {
    let child_db = std::env::var_os(CHILD_DB);
    // The child is killed: it makes no directory it could not remove.
    let dir = child_db.is_none().then(|| Scratch::new("crash-writer"));
    let path = match (&child_db, &dir) {
        (Some(path), _) => path.into(),
        (None, Some(dir)) => dir.file("sessions.db"),
        (None, None) => unreachable!("a directory without a child's file"),
    };
    bounded(async {
        let store = open(&path, options()).await;
        if child_db.is_some() {
            write(&store, None).await;
            return;
        }
        let id = write(&store, Some(200)).await;
        drop(store);
        let store = open(&path, options()).await;
        store.fetch(&id).await.unwrap();
        assert_eq!(texts(&store.history(&id).unwrap()).len(), 200);
    });
}

/// A number in `0..n` that differs from run to run.
fn random_below(n: u64) -> u64 {
    RandomState::new().hash_one(std::time::SystemTime::now()) % n
}

/// Starts the writer on `db`, kills it with SIGKILL after it reported `after` flushed updates
/// and a random pause more; returns the session and the last update it reported durable.
fn kill_a_writer(db: &Path, after: u64) -> (String, u64) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "crash::writer",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DB, db)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the writer");
    let (lines, reported) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(rest) = line.strip_prefix("durable ")
                && let Some((id, n)) = rest.split_once(' ')
                && let Ok(n) = n.parse::<u64>()
                && lines.send((id.to_owned(), n)).is_err()
            {
                break;
            }
        }
    });
    let mut last = None;
    while last.as_ref().is_none_or(|(_, n)| *n < after) {
        let report = reported
            .recv_timeout(Duration::from_secs(30))
            .expect("the writer reports its progress");
        last = Some(report);
    }
    std::thread::sleep(Duration::from_micros(random_below(20_000)));
    child.kill().expect("kill -9 the writer");
    let _ = child.wait();
    // What it reported up to the kill.
    while let Ok(report) = reported.try_recv() {
        last = Some(report);
    }
    last.expect("a report")
}

#[test]
fn kill_9_at_random_points() {
    let dir = Scratch::new("crash");
    let path = dir.file("sessions.db");
    let mut rounds: Vec<(String, u64)> = Vec::new();
    for round in 0..20 {
        let after = 10 + 10 * random_below(20);
        rounds.push(kill_a_writer(&path, after));
        bounded(async {
            let store = open(&path, options()).await;
            let (listed, _) = list_all(&store, Some("/crash"), 100).await;
            assert_eq!(
                listed.len(),
                round + 1,
                "a session of an earlier round is gone"
            );
            for (id, durable) in &rounds {
                let id = SessionId::from(id.clone());
                store.fetch(&id).await.unwrap();
                let history = texts(&store.history(&id).unwrap());
                let expected: Vec<String> = (0..history.len()).map(|i| format!("u{i}")).collect();
                assert_eq!(
                    history, expected,
                    "round {round}: not a run of consecutive updates"
                );
                assert!(
                    history.len() as u64 > *durable,
                    "round {round}: update {durable} was flushed, {} are there",
                    history.len()
                );
            }
        });
    }
}
