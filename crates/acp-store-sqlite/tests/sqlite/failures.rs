//! A slow database (the write queue's bound and backpressure) and one that fails (new sessions
//! refused, recording goes on, the writer reconnects and writes what memory holds).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use acp_agent::backend::{Backend, BackendError, ListQuery, SessionRow, StoredSession, Write};
use acp_agent::{DurableOptions, SessionStore};
use acp_store_sqlite::SqliteBackend;
use tokio::sync::watch;

use crate::common::{Note, bounded, chunk, texts};
use crate::scratch::{Scratch, open};

/// What the test does to the database.
#[derive(Debug)]
struct Controls {
    /// Commits wait while false.
    open: watch::Sender<bool>,
    /// Every call fails while true.
    down: AtomicBool,
    /// The commits handed to the database, and the session rows (upserts) they held.
    commits: AtomicUsize,
    upserts: AtomicUsize,
}

/// A real SQLite backend that the test slows down or takes down.
#[derive(Debug)]
struct Controlled {
    inner: SqliteBackend,
    controls: Arc<Controls>,
}

impl Controlled {
    fn check(&self) -> Result<(), BackendError> {
        match self.controls.down.load(Ordering::SeqCst) {
            true => Err(BackendError::transient("the test took the database down")),
            false => Ok(()),
        }
    }
}

#[acp_agent::async_trait]
impl Backend for Controlled {
    async fn commit(&self, batch: Vec<Write>) -> Result<(), BackendError> {
        let mut open = self.controls.open.subscribe();
        let _ = open.wait_for(|open| *open).await;
        self.check()?;
        let upserts = batch
            .iter()
            .filter(|w| matches!(w, Write::Upsert(_)))
            .count();
        self.controls.commits.fetch_add(1, Ordering::SeqCst);
        self.controls.upserts.fetch_add(upserts, Ordering::SeqCst);
        self.inner.commit(batch).await
    }
    async fn load(&self, id: &str) -> Result<Option<StoredSession>, BackendError> {
        self.check()?;
        self.inner.load(id).await
    }
    async fn list(&self, query: &ListQuery<'_>) -> Result<Vec<SessionRow>, BackendError> {
        self.check()?;
        self.inner.list(query).await
    }
    async fn count(&self, owner: Option<&str>, since: i64) -> Result<u64, BackendError> {
        self.check()?;
        self.inner.count(owner, since).await
    }
}

async fn controlled(
    path: &std::path::Path,
    options: DurableOptions,
) -> (SessionStore<Note>, Arc<Controls>) {
    let controls = Arc::new(Controls {
        open: watch::Sender::new(true),
        down: AtomicBool::new(false),
        commits: AtomicUsize::new(0),
        upserts: AtomicUsize::new(0),
    });
    let backend = Controlled {
        inner: SqliteBackend::open(path).await.unwrap(),
        controls: Arc::clone(&controls),
    };
    (SessionStore::durable(backend, options).unwrap(), controls)
}

/// Waits (within the test's deadline) until `f` holds.
async fn until(f: impl Fn() -> bool) {
    while !f() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[test]
fn a_batch_writes_a_sessions_row_once_however_many_updates_it_records() {
    let dir = Scratch::new("rows");
    let path = dir.file("sessions.db");
    // A window far longer than the test: the flush ends it, so the updates share a batch.
    let options = DurableOptions::DEFAULT.window(Duration::from_secs(30));
    bounded(async {
        let (store, controls) = controlled(&path, options).await;
        let id = store.create(Note::new("/rows")).unwrap();
        for i in 0..6 {
            store.record(&id, &chunk(&i.to_string()));
        }
        store.flush().await.unwrap();
        // Each update asks for the row; one per batch is written (at most one batch for the
        // creation and one for the updates).
        let commits = controls.commits.load(Ordering::SeqCst);
        let upserts = controls.upserts.load(Ordering::SeqCst);
        assert!(
            (1..=2).contains(&commits) && upserts <= commits,
            "{upserts} session rows in {commits} commits"
        );
        drop(store);
        let store = open(&path, options).await;
        store.fetch(&id).await.unwrap();
        let expected: Vec<String> = (0..6).map(|i| i.to_string()).collect();
        assert_eq!(texts(&store.history(&id).unwrap()), expected);
    });
}

#[test]
fn a_full_queue_makes_producers_wait_and_loses_nothing() {
    let dir = Scratch::new("queue");
    let path = dir.file("sessions.db");
    let options = DurableOptions::DEFAULT
        .max_queued(8)
        .window(Duration::from_millis(1));
    bounded(async {
        let (store, controls) = controlled(&path, options).await;
        controls.open.send_replace(false);
        let id = store.create(Note::new("/q")).unwrap();
        for i in 0..40 {
            store.record(&id, &chunk(&i.to_string()));
        }
        // The writer holds a batch the database does not take: the queue is past its bound,
        // and a producer waits for room.
        let waited = tokio::time::timeout(Duration::from_millis(300), store.ready()).await;
        assert!(waited.is_err(), "a producer went on past the queue's bound");
        controls.open.send_replace(true);
        store.ready().await;
        store.flush().await.unwrap();
        drop(store);
        let store = open(&path, options).await;
        store.fetch(&id).await.unwrap();
        let expected: Vec<String> = (0..40).map(|i| i.to_string()).collect();
        assert_eq!(texts(&store.history(&id).unwrap()), expected);
    });
}

#[test]
fn a_half_full_queue_is_committed_without_waiting_out_the_window() {
    let dir = Scratch::new("half");
    let path = dir.file("sessions.db");
    // A window far longer than the test waits: only the queue's filling ends it.
    let options = DurableOptions::DEFAULT
        .max_queued(8)
        .window(Duration::from_secs(600));
    bounded(async {
        let store = open(&path, options).await;
        let id = store.create(Note::new("/h")).unwrap();
        // The session's row and three updates: half the bound.
        for i in 0..3 {
            store.record(&id, &chunk(&i.to_string()));
        }
        // Another process reads the database: the three updates are there within seconds.
        let reader = open(&path, options).await;
        let written = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                if reader.refresh(&id).await.is_ok()
                    && reader.history(&id).is_some_and(|h| h.len() == 3)
                {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        assert!(
            written.is_ok(),
            "the writer waited out its window with a half-full queue"
        );
    });
}

#[test]
fn a_database_that_is_down_refuses_new_sessions_and_is_caught_up_when_back() {
    let dir = Scratch::new("down");
    let path = dir.file("sessions.db");
    let options = DurableOptions::DEFAULT
        .max_queued(16)
        .window(Duration::from_millis(1))
        .max_backoff(Duration::from_millis(100));
    bounded(async {
        let (store, controls) = controlled(&path, options).await;
        let alice = store.owned_by("alice");
        let id = alice.create_async(Note::new("/d")).await.unwrap();
        alice.record(&id, &chunk("before"));
        alice.flush().await.unwrap();

        controls.down.store(true, Ordering::SeqCst);
        // A running turn goes on: its updates are kept in memory, past the queue's bound
        // too (no producer waits on a database that is down).
        for i in 0..100 {
            assert!(alice.record(&id, &chunk(&format!("down {i}"))));
        }
        until(|| !alice.is_available()).await;
        tokio::time::timeout(Duration::from_secs(5), alice.ready())
            .await
            .expect("no producer waits while the database is down");
        let refused = alice.create(Note::new("/d")).unwrap_err();
        assert!(refused.message.contains("unavailable"), "{refused:?}");
        let refused = alice.create_async(Note::new("/d")).await.unwrap_err();
        assert!(refused.message.contains("unavailable"), "{refused:?}");
        assert!(alice.flush().await.is_err());
        // What memory holds is still served.
        alice.fetch(&id).await.unwrap();

        // Back up: the writer reconnects by itself and writes the session whole.
        controls.down.store(false, Ordering::SeqCst);
        until(|| alice.is_available()).await;
        alice.record(&id, &chunk("after"));
        alice.flush().await.unwrap();
        assert!(alice.create_async(Note::new("/d")).await.is_ok());
        drop((store, alice));

        let store = open(&path, options).await;
        store.fetch(&id).await.unwrap();
        let history = texts(&store.history(&id).unwrap());
        assert_eq!(history.len(), 102);
        assert_eq!(history[0], "before");
        assert_eq!(history[1], "down 0");
        assert_eq!(history[101], "after");
    });
}
