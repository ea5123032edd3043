//! The store on tokio's current-thread runtime, where the writer runs only while the producer
//! waits: a producer faster than the database finishes, and a runtime the writer cannot run on
//! (no timers) fails with a clear error instead of stalling the turns.

use std::future::Future;
use std::sync::mpsc;
use std::time::Duration;

use acp_agent::{DurableOptions, HistoryLimits};

use crate::common::{DEADLINE, Note, chunk, texts};
use crate::scratch::{Scratch, open};

/// Runs `test` on a current-thread runtime (with timers or not) on a thread of its own,
/// failing it past [`DEADLINE`]: the deadline is kept by this thread, so it holds even when
/// the runtime cannot run a timer or the test never yields.
fn on_current_thread<F>(timers: bool, test: impl FnOnce() -> F + Send + 'static)
where
    F: Future<Output = ()>,
{
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let mut builder = tokio::runtime::Builder::new_current_thread();
        builder.enable_io();
        if timers {
            builder.enable_time();
        }
        let runtime = builder.build().unwrap();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            runtime.block_on(test());
        }));
        let _ = done.send(outcome);
    });
    match finished.recv_timeout(DEADLINE) {
        Ok(Ok(())) => {}
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("the test ran past its deadline: the producer stalled"),
    }
}

#[test]
fn a_current_thread_producer_faster_than_the_writer_finishes_and_loses_nothing() {
    let dir = Scratch::new("current-thread");
    let path = dir.file("sessions.db");
    let options = DurableOptions::DEFAULT
        .max_queued(16)
        .window(Duration::from_millis(1));
    let updates = 3_000;
    on_current_thread(true, move || async move {
        let store = open(&path, options).await;
        let id = store.create(Note::new("/c")).unwrap();
        // The producer never yields but for room: the writer runs only while it waits.
        for i in 0..updates {
            assert!(store.record(&id, &chunk(&i.to_string())));
            store.ready().await;
        }
        store.flush().await.unwrap();
        drop(store);
        let store = open(&path, options).await;
        store.fetch(&id).await.unwrap();
        let kept = HistoryLimits::DEFAULT_MAX_UPDATES;
        let expected: Vec<String> = (updates - kept..updates).map(|i| i.to_string()).collect();
        assert_eq!(texts(&store.history(&id).unwrap()), expected);
    });
}

#[test]
fn a_runtime_without_timers_fails_with_a_clear_error_instead_of_stalling() {
    let dir = Scratch::new("no-timers");
    let path = dir.file("sessions.db");
    let options = DurableOptions::DEFAULT.max_queued(16);
    on_current_thread(false, move || async move {
        let store = open(&path, options).await;
        let id = store.create(Note::new("/t")).unwrap();
        // Far past the queue's bound: the writer cannot run, and no producer waits for it.
        for i in 0..200 {
            assert!(store.record(&id, &chunk(&i.to_string())));
            store.ready().await;
        }
        assert!(!store.is_available());
        let error = store.flush().await.unwrap_err();
        assert!(error.message.contains("timers"), "{error:?}");
        let refused = store.create(Note::new("/t")).unwrap_err();
        assert!(refused.message.contains("timers"), "{refused:?}");
        // The turn's updates are still served from memory.
        assert_eq!(store.history(&id).unwrap().len(), 200);
    });
}
