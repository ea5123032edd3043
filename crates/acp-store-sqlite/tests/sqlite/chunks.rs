//! The chunked history against a model of one row per update (see `model`), and a file of the
//! first layout, which opens with its histories moved.

use acp_agent::backend::Backend;
use acp_store_sqlite::SqliteBackend;

use crate::common::bounded;
use crate::model::{batches_read_back_as_the_model_says, row};
use crate::scratch::Scratch;

#[test]
fn random_batches_read_back_as_one_row_per_update_would() {
    let dir = Scratch::new("chunks-model");
    let path = dir.file("model.db");
    bounded(batches_read_back_as_the_model_says(|| async {
        SqliteBackend::open(&path).await.expect("open the database")
    }));
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
            let mut r = row("one", "{\"x\":1}");
            r.cwd = "/a".into();
            r.title = Some("T".into());
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
