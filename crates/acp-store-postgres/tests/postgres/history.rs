//! Histories written in runs (one statement per run of appends): the updates of many
//! sessions interleaved in one batch, the history's bound and a removed session, read back as
//! memory held them.

use std::time::Duration;

use acp_agent::{DurableOptions, HistoryLimits, SessionStore, StoreLimits};
use acp_store_postgres::PostgresBackend;
use acp_testkit::services::Postgres;

use crate::common::{Note, bounded, chunk, texts};

async fn node(url: &str, options: DurableOptions) -> SessionStore<Note> {
    let backend = PostgresBackend::open(url).await.expect("open the database");
    SessionStore::durable(backend, options).expect("a durable store")
}

#[test]
fn interleaved_sessions_bounded_histories_and_removals_read_back_as_memory_held_them() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("runs");
    let limits = StoreLimits::DEFAULT.history(HistoryLimits::new(25, usize::MAX));
    // A long window: the whole test's changes go in a few batches.
    let options = DurableOptions::DEFAULT
        .limits(limits)
        .window(Duration::from_millis(200));
    bounded(async {
        let store = node(&url, options).await;
        let ids: Vec<_> = (0..8)
            .map(|_| store.create(Note::new("/r")).unwrap())
            .collect();
        for i in 0..40 {
            for (k, id) in ids.iter().enumerate() {
                assert!(store.record(id, &chunk(&format!("{k}:{i}"))));
            }
        }
        assert!(store.remove(&ids[7]).is_some());
        store.flush().await.unwrap();
        let held: Vec<Vec<String>> = ids[..7]
            .iter()
            .map(|id| texts(&store.history(id).unwrap()))
            .collect();
        drop(store);

        let store = node(&url, options).await;
        for (id, held) in ids.iter().zip(&held) {
            store.fetch(id).await.unwrap();
            assert_eq!(&texts(&store.history(id).unwrap()), held);
            assert_eq!(held.len(), 25);
        }
        assert!(store.fetch(&ids[7]).await.is_err());
    });
}
