//! The chunked history against a model of one row per update: random batches of appends
//! (replacing ones included), trims, clears and deletes read back exactly as the model says;
//! and a file of the first layout opens with its histories moved.

use std::collections::BTreeMap;

use acp_agent::backend::{Backend, SessionRow, Write};
use acp_store_sqlite::SqliteBackend;

use crate::common::bounded;
use crate::scratch::Scratch;

/// A session's row with `id`.
fn row(id: &str) -> SessionRow {
    SessionRow::new(
        id.to_owned(),
        Some("alice".to_owned()),
        "/w".to_owned(),
        None,
        1,
        2,
        "{}".to_owned(),
    )
}

/// A small deterministic generator (xorshift), so that a failure is found again.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// What one row per update keeps: per session, its updates by number.
#[derive(Default)]
struct Model(BTreeMap<String, BTreeMap<u64, String>>);

impl Model {
    fn apply(&mut self, write: &Write) {
        match write {
            Write::Append { id, seq, update } => {
                self.0
                    .entry(id.clone())
                    .or_default()
                    .insert(*seq, update.clone());
            }
            Write::Trim { id, keep_from } => {
                if let Some(h) = self.0.get_mut(id) {
                    h.retain(|n, _| n >= keep_from);
                }
            }
            Write::ClearHistory { id } | Write::Delete { id } => {
                self.0.remove(id);
            }
            _ => {}
        }
    }

    fn history(&self, id: &str) -> Vec<(u64, String)> {
        self.0
            .get(id)
            .map(|h| h.iter().map(|(n, u)| (*n, u.clone())).collect())
            .unwrap_or_default()
    }
}

#[test]
fn random_batches_read_back_as_one_row_per_update_would() {
    let dir = Scratch::new("chunks-model");
    let path = dir.file("model.db");
    bounded(async {
        let mut backend = SqliteBackend::open(&path).await.unwrap();
        let sessions = ["a", "b", "c"];
        let mut next = [0u64; 3];
        let mut model = Model::default();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..300 {
            let mut batch: Vec<Write> = sessions.iter().map(|s| Write::Upsert(row(s))).collect();
            for _ in 0..rng.below(12) {
                let k = rng.below(3) as usize;
                let id = sessions[k].to_owned();
                let write = match rng.below(20) {
                    // Mostly the next update, sometimes past a gap.
                    0..=13 => {
                        next[k] += 1 + u64::from(rng.below(10) == 0) * rng.below(5);
                        Write::Append {
                            id,
                            seq: next[k],
                            update: format!("{{\"r\":{round},\"n\":{}}}", next[k]),
                        }
                    }
                    // An update that replaces a kept one, or lands below a trim.
                    14 | 15 => Write::Append {
                        id,
                        seq: rng.below(next[k] + 1),
                        update: format!("\"again {round}\nwith a line break\""),
                    },
                    16 | 17 => Write::Trim {
                        keep_from: next[k].saturating_sub(rng.below(8)),
                        id,
                    },
                    18 => Write::ClearHistory { id },
                    _ => {
                        next[k] = rng.below(3);
                        Write::Delete { id }
                    }
                };
                model.apply(&write);
                batch.push(write);
            }
            // Deleted sessions come back with the next batch's upsert: move the upserts last.
            batch.rotate_left(sessions.len());
            backend.commit(batch).await.unwrap();
            if round % 50 == 49 {
                // Read back from a fresh open as well as from the same one.
                drop(backend);
                backend = SqliteBackend::open(&path).await.unwrap();
            }
            for id in sessions {
                let stored = backend.load(id).await.unwrap().expect("the session");
                assert_eq!(
                    stored.history,
                    model.history(id),
                    "session {id}, round {round}"
                );
            }
        }
    });
}

#[test]
fn a_file_of_one_row_per_update_opens_with_its_histories() {
    let dir = Scratch::new("chunks-migrate");
    let path = dir.file("v1.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "PRAGMA application_id = 1094930515; PRAGMA user_version = 1;
         CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, owner TEXT, cwd TEXT NOT NULL,
           title TEXT, created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL,
           state TEXT NOT NULL) WITHOUT ROWID;
         CREATE TABLE history (session TEXT NOT NULL, seq INTEGER NOT NULL,
           update_json TEXT NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
         INSERT INTO sessions VALUES ('one', 'alice', '/a', 'T', 1, 2, '{\"x\":1}');
         INSERT INTO sessions VALUES ('two', NULL, '/b', NULL, 3, 4, '{}');",
    )
    .unwrap();
    // Session one: 600 updates from 100, a gap, then 3 more; session two: none.
    let mut expected = Vec::new();
    for n in (100..700).chain(800..803) {
        let update = format!("{{\"n\":{n}}}");
        conn.execute(
            "INSERT INTO history VALUES ('one', ?1, ?2)",
            rusqlite::params![n, update],
        )
        .unwrap();
        expected.push((n as u64, update));
    }
    drop(conn);
    bounded(async {
        let backend = SqliteBackend::open(&path).await.unwrap();
        let one = backend.load("one").await.unwrap().unwrap();
        assert_eq!(one.row, {
            let mut r = row("one");
            r.cwd = "/a".into();
            r.title = Some("T".into());
            r.state = "{\"x\":1}".into();
            r
        });
        assert_eq!(one.history, expected);
        assert!(
            backend
                .load("two")
                .await
                .unwrap()
                .unwrap()
                .history
                .is_empty()
        );
        drop(backend);
        // The file is of the new layout now, and opens again as such.
        let conn = rusqlite::Connection::open(&path).unwrap();
        let version: i32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, 2);
        let old: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'history'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(old, 0, "the old table is gone");
        drop(conn);
        let backend = SqliteBackend::open(&path).await.unwrap();
        assert_eq!(
            backend.load("one").await.unwrap().unwrap().history,
            expected
        );
    });
}
