//! The chunked layout: a commit writes one history row per session it recorded into, a
//! bounded history trims whole and cut chunks, and a database of the first layout (one row
//! per update) moves to chunks when a backend opens it, losing nothing.

use acp_agent::backend::{Backend, Write};
use acp_store_postgres::PostgresBackend;
use acp_testkit::services::Postgres;
use tokio_postgres::NoTls;

use crate::common::bounded;
use crate::model::row;

/// A client of the database at `url`, to look at (or make) the tables underneath.
async fn client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .expect("connect to the database");
    tokio::spawn(connection);
    client
}

/// `n` appends to session `id` from number `from`, the JSON naming its number.
fn appends(id: &str, from: u64, n: u64) -> impl Iterator<Item = Write> {
    (from..from + n).map(move |seq| Write::Append {
        id: id.into(),
        seq,
        update: format!("{{\"n\":{seq}}}"),
    })
}

/// Session `id`'s history as the backend reads it back: the numbers and the JSON.
async fn history(backend: &PostgresBackend, id: &str) -> Vec<(u64, String)> {
    backend
        .load(id)
        .await
        .expect("load")
        .expect("the session is there")
        .history
}

#[test]
fn a_commit_writes_one_row_per_session_and_trims_cut_chunks() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("layout");
    bounded(async {
        let backend = PostgresBackend::open(&url).await.expect("open");
        // Two sessions' updates interleaved, as many connections record them.
        let mut batch = vec![Write::Upsert(row("a", "{}")), Write::Upsert(row("b", "{}"))];
        for seq in 0..10 {
            batch.extend(appends("a", seq, 1));
            batch.extend(appends("b", seq, 1));
        }
        backend.commit(batch).await.expect("commit");
        backend
            .commit(appends("a", 10, 5).collect())
            .await
            .expect("commit");
        let db = client(&url).await;
        let rows: i64 = db
            .query_one("SELECT count(*) FROM acp_history_chunks", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(rows, 3, "one row per session and commit");
        // Chunks are kept as they are: never compressed (pglz cost half the server's CPU).
        let storage: i8 = db
            .query_one(
                "SELECT attstorage FROM pg_attribute
                 WHERE attrelid = 'acp_history_chunks'::regclass AND attname = 'updates'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(storage, b'e' as i8, "STORAGE EXTERNAL");

        // A trim across the first chunk cuts it; one past it drops it whole.
        let trim = |keep_from| Write::Trim {
            id: "a".into(),
            keep_from,
        };
        backend.commit(vec![trim(4)]).await.expect("trim");
        let a = history(&backend, "a").await;
        assert_eq!(a.first(), Some(&(4, "{\"n\":4}".to_owned())));
        assert_eq!(a.len(), 11);
        backend.commit(vec![trim(12)]).await.expect("trim");
        let a = history(&backend, "a").await;
        assert_eq!(a.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [12, 13, 14]);

        // An append that replaces a kept update (the slow path) reads back in place.
        backend
            .commit(vec![Write::Append {
                id: "a".into(),
                seq: 13,
                update: "\"again\"".into(),
            }])
            .await
            .expect("replace");
        let a = history(&backend, "a").await;
        assert_eq!(a[1], (13, "\"again\"".to_owned()));
        assert_eq!(a.len(), 3);
        assert_eq!(history(&backend, "b").await.len(), 10);
    });
}

#[test]
fn updates_that_cannot_be_joined_read_back_unchanged() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("odd");
    bounded(async {
        let backend = PostgresBackend::open(&url).await.expect("open");
        // A chunk travels as its updates joined by a record separator; an update that holds
        // one, or is empty, cannot be (a backend is handed any string), and must come back
        // as it went, beside joined chunks in the same statement.
        let odd = ["", "a\u{1e}b", "\u{1e}", "\u{1e}\u{1e}"];
        let mut batch = vec![Write::Upsert(row("a", "{}")), Write::Upsert(row("b", "{}"))];
        for (seq, update) in (0..).zip(odd) {
            batch.extend(appends("a", seq, 1));
            batch.push(Write::Append {
                id: "b".into(),
                seq,
                update: update.into(),
            });
        }
        backend.commit(batch).await.expect("commit");
        let b: Vec<(u64, String)> = (0..).zip(odd.map(String::from)).collect();
        assert_eq!(history(&backend, "b").await, b);
        let a = history(&backend, "a").await;
        assert_eq!(a.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(a[3].1, "{\"n\":3}");
    });
}

#[test]
fn a_database_of_the_first_layout_moves_to_chunks() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("first_layout");
    bounded(async {
        // The first layout's tables, as its backend made them, with a session of 3 updates.
        let db = client(&url).await;
        db.batch_execute(
            "CREATE TABLE acp_sessions (id TEXT PRIMARY KEY, owner TEXT, cwd TEXT NOT NULL,
                 title TEXT, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
                 state TEXT NOT NULL);
             CREATE INDEX acp_sessions_by_use ON acp_sessions (updated_ms);
             CREATE TABLE acp_history (session TEXT NOT NULL, seq BIGINT NOT NULL,
                 update_json TEXT NOT NULL, PRIMARY KEY (session, seq));
             INSERT INTO acp_sessions VALUES ('s', 'alice', '/w', NULL, 1, 2, '{}');
             INSERT INTO acp_history VALUES ('s', 5, '{\"n\":5}'), ('s', 6, '{\"n\":6}'),
                 ('s', 8, '{\"n\":8}');",
        )
        .await
        .expect("make the first layout");

        let backend = PostgresBackend::open(&url).await.expect("open and move");
        let expected: Vec<(u64, String)> = [5, 6, 8]
            .into_iter()
            .map(|n| (n, format!("{{\"n\":{n}}}")))
            .collect();
        assert_eq!(history(&backend, "s").await, expected);
        let old: Option<String> = db
            .query_one("SELECT to_regclass('acp_history')::text", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(old, None, "the old table is gone");
        let index: Option<String> = db
            .query_one("SELECT to_regclass('acp_sessions_by_use')::text", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(
            index, None,
            "the index on the last use is gone (HOT upserts)"
        );

        // It goes on as any session: new updates after the moved ones, then a reopen.
        backend
            .commit(appends("s", 9, 2).collect())
            .await
            .expect("commit");
        drop(backend);
        let again = PostgresBackend::open(&url).await.expect("reopen");
        assert_eq!(history(&again, "s").await.len(), 5);
    });
}
