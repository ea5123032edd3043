//! Crash safety of the durable session stores, at random kill points: the demo agent
//! (`agent --listen --sessions STORE`) is `kill -9`ed at a random moment of a streaming turn,
//! 20 times in a row on the same store (SQLite, and PostgreSQL). After each kill the agent
//! starts again on the store, which must open clean and serve every session made so far, and
//! `session/load` of the killed turn's session must replay every update that reached the
//! client a commit window before the kill.
//!
//! The kill points come from a seed printed by the test; `ACP_KILL_SEED=N` replays a run.

#![cfg(unix)]
#![allow(clippy::print_stdout)] // Each kill point is reported in the test output.

use std::path::Path;
use std::time::{Duration, Instant};

use acp_testkit::services::Postgres;
use acp_types::{PromptRequest, SessionId};

use crate::cluster::{COMMIT_WINDOW, Dice, Remote, assert_replay_keeps, node, runtime, within};
use crate::common::Workdir;
use crate::remote::signal;

/// Kill points per store.
const ROUNDS: usize = 20;

/// Each round's turn: 100 chunks 5 ms apart (about half a second), killed at a random moment
/// between the prompt's send and a little past its natural end.
const PROMPT: &str = "stream 100 5";
const KILL_WITHIN_MS: u64 = 700;

/// Runs the rounds against `store` (a path or a `postgres://` URL).
fn kill_rounds(store: &str) {
    let mut dice = Dice::new();
    let cwd = std::env::temp_dir();
    // Every session made so far, and whether it must survive: its `session/new` was answered
    // a commit window before the kill that followed.
    let mut made: Vec<(SessionId, bool)> = Vec::new();
    let started = Instant::now();
    for round in 0..ROUNDS {
        let agent = node(store, None);
        let kill_after = Duration::from_millis(dice.below(KILL_WITHIN_MS));
        runtime().block_on(async {
            let mut remote = Remote::open(&agent.url).await;
            // The store opened clean: every session made (and acknowledged a window before
            // its kill) is listed.
            check_listed(&remote, &made, round).await;

            let session = remote.new_session(&cwd).await;
            let created = Instant::now();
            let handle = remote.agent.clone();
            let prompt = PromptRequest::new(session.clone(), vec![PROMPT.into()]);
            let turn = tokio::spawn(async move { handle.prompt(prompt).await });
            let mut live = Vec::new();
            let deadline = tokio::time::Instant::now() + kill_after;
            loop {
                tokio::select! {
                    update = remote.updates.recv() => match update {
                        Some(update) => live.push(update),
                        None => break,
                    },
                    () = tokio::time::sleep_until(deadline) => break,
                }
            }
            signal(agent.pid(), "KILL");
            let killed = Instant::now();
            let durable = killed.duration_since(created) >= COMMIT_WINDOW;
            made.push((session.clone(), durable));
            let _ = within("the killed turn", turn).await;
            while let Ok(update) = remote.updates.try_recv() {
                live.push(update);
            }
            remote.abandon();

            // Restarted on the same store, the agent replays what was acknowledged.
            let restarted = node(store, None);
            let mut remote = Remote::open(&restarted.url).await;
            let listed = remote.list_all().await;
            if durable || listed.iter().any(|info| info.session_id == session) {
                let replay = remote.load(&session, &cwd).await;
                let (replayed, streamed) = assert_replay_keeps(&live, &replay, PROMPT, killed);
                println!(
                    "round {round}: killed {kill_after:?} into the turn; {replayed} chunks \
                     replayed of {streamed} streamed"
                );
            } else {
                println!(
                    "round {round}: killed {kill_after:?} into the turn, within the commit \
                     window of the session's creation: the session was not stored yet"
                );
            }
            remote.close().await;
            assert!(restarted.stop().success(), "the restarted agent failed");
        });
        drop(agent);
    }
    // The last restart's view: every session is there, and each one loads.
    let agent = node(store, None);
    runtime().block_on(async {
        let mut remote = Remote::open(&agent.url).await;
        let listed = check_listed(&remote, &made, ROUNDS).await;
        for (session, _) in made.iter().filter(|(s, _)| listed.contains(s)) {
            let replay = remote.load(session, &cwd).await;
            assert!(
                replay.iter().all(|r| r.notification.session_id == *session),
                "a replay of another session"
            );
        }
        remote.close().await;
    });
    assert!(agent.stop().success());
    println!(
        "{ROUNDS} kill points on {} in {:.1} s",
        if store.starts_with("postgres") {
            "PostgreSQL"
        } else {
            "SQLite"
        },
        started.elapsed().as_secs_f64()
    );
}

/// Asserts that `session/list` holds every session of `made` that must have survived, and
/// returns the ids listed.
async fn check_listed(remote: &Remote, made: &[(SessionId, bool)], round: usize) -> Vec<SessionId> {
    let listed: Vec<SessionId> = remote
        .list_all()
        .await
        .into_iter()
        .map(|info| info.session_id)
        .collect();
    for (session, _) in made.iter().filter(|(_, durable)| *durable) {
        assert!(
            listed.contains(session),
            "before round {round}: session {session} is not listed after the restart \
             ({} listed)",
            listed.len()
        );
    }
    listed
}

#[test]
fn the_sqlite_store_survives_kill_9_at_20_random_points_of_a_turn() {
    let dir = Workdir::new("kill", "sqlite");
    let store = dir.path().join("sessions.db");
    kill_rounds(store.to_str().expect("a UTF-8 temporary path"));
    assert!(Path::new(&store).is_file());
}

#[test]
fn the_postgres_store_survives_kill_9_at_20_random_points_of_a_turn() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    kill_rounds(&postgres.create_database("kill_points"));
}
