//! The group-commit writer of a durable store: gathers the queued changes for a window, turns
//! them into one batch of [`Write`]s and commits it; when the database fails, keeps the batch
//! (folded to what memory holds) and tries again with backoff.

use std::any::Any;
use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Weak};
use std::time::Duration;

use acp_types::SessionId;
use futures::FutureExt;
use tokio::time::{Instant, sleep, sleep_until};

use super::backend::{Backend, Write};
use super::durable::{Durable, lookup, now_ms};
use super::queue::{Channel, Pending, Work};
use super::{DurableOptions, Sessions, Shared};

/// The first wait after a failed commit; it doubles up to [`DurableOptions::max_backoff`].
const FIRST_BACKOFF: Duration = Duration::from_millis(50);

/// The longest time between two sweeps of expired sessions from the database.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// Runs [`run`], and tells the store when the writer stops for good before the store is
/// dropped: a panic (a runtime without timers panics at the first wait, a backend may panic),
/// or its runtime dropping the task. Without this the producers waiting for room, and the
/// flushes, would wait forever for a writer that is gone.
pub(super) async fn supervised<S: Send + 'static>(
    shared: Weak<Shared<S>>,
    channel: Arc<Channel>,
    backend: Arc<dyn Backend>,
    options: DurableOptions,
) {
    let mut stop = Stop {
        channel: Arc::clone(&channel),
        reason: Some(RUNTIME_GONE.to_owned()),
    };
    let ended = AssertUnwindSafe(run(shared, channel, backend, options))
        .catch_unwind()
        .await;
    stop.reason = ended
        .err()
        .map(|panic| format!("its writer panicked: {}", panic_message(&*panic)));
}

/// Why the writer stopped when its runtime dropped it.
const RUNTIME_GONE: &str = "its runtime shut down";

/// Stops the store's channel, when dropped with a reason (but for a runtime that shuts down
/// after the store was dropped: the process ends as it should).
struct Stop {
    channel: Arc<Channel>,
    reason: Option<String>,
}

impl Drop for Stop {
    fn drop(&mut self) {
        if let Some(reason) = self.reason.take() {
            if reason == RUNTIME_GONE && self.channel.is_closed() {
                return;
            }
            tracing::error!(%reason, "the session store's writer stopped: nothing more is saved");
            self.channel.stop(reason);
        }
    }
}

/// What a panic said.
fn panic_message(panic: &(dyn Any + Send)) -> &str {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(message), _) => message,
        (_, Some(message)) => message,
        _ => "(no message)",
    }
}

/// Runs until the store is dropped and its queue written.
async fn run<S: Send + 'static>(
    shared: Weak<Shared<S>>,
    channel: Arc<Channel>,
    backend: Arc<dyn Backend>,
    options: DurableOptions,
) {
    let sweep_every = options
        .limits
        .idle_expiry
        .map_or(SWEEP_EVERY, |expiry| SWEEP_EVERY.min(expiry / 2));
    let mut next_sweep = Instant::now();
    let mut carried: Option<Work> = None;
    let mut backoff = FIRST_BACKOFF;
    loop {
        if carried.is_none() {
            loop {
                let notified = channel.wake.notified();
                if channel.has_work() {
                    break;
                }
                tokio::select! {
                    () = notified => {}
                    () = sleep_until(next_sweep), if options.limits.idle_expiry.is_some() => break,
                }
            }
            // The window: what comes within it goes in the same transaction; it ends early
            // when the queue is half full or someone flushes.
            if !channel
                .urgent
                .swap(false, std::sync::atomic::Ordering::Relaxed)
            {
                tokio::select! {
                    () = sleep(options.window) => {}
                    () = channel.hurry.notified() => {}
                }
            }
        }
        let Some(fresh) = channel.take() else {
            return;
        };
        let mut work = match carried.take() {
            Some(mut old) => {
                old.merge(fresh);
                old
            }
            None => fresh,
        };
        let sweep = options
            .limits
            .idle_expiry
            .filter(|_| Instant::now() >= next_sweep);
        let batch = {
            let Some(shared) = shared.upgrade() else {
                tracing::debug!("a durable session store was dropped: its writer ends");
                return;
            };
            let Some(durable) = &shared.durable else {
                return;
            };
            let (sessions, _) = shared.lock();
            let mut batch = build(durable, &sessions, &mut work);
            if let Some(expiry) = sweep {
                let expiry = i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX);
                batch.push(Write::Expire {
                    updated_before_ms: now_ms().saturating_sub(expiry),
                });
            }
            batch
        };
        if batch.is_empty() {
            channel.report(Some(work.upto), true);
            continue;
        }
        match backend.commit(batch).await {
            Ok(()) => {
                if backoff > FIRST_BACKOFF {
                    tracing::info!("the session storage answers again");
                }
                backoff = FIRST_BACKOFF;
                if sweep.is_some() {
                    next_sweep = Instant::now() + sweep_every;
                }
                channel.report(Some(work.upto), true);
            }
            Err(error) => {
                tracing::warn!(%error, retry_in = ?backoff, "the session storage failed a commit");
                channel.report(None, false);
                work.fold();
                carried = Some(work);
                sleep(backoff).await;
                backoff = (backoff * 2).min(options.max_backoff.max(FIRST_BACKOFF));
            }
        }
    }
}

/// The batch that writes `work`, with the sessions' rows as memory holds them now. The
/// updates' JSON moves into the batch: `work` keeps which sessions it changed (enough to
/// [fold](Work::fold) it when the commit fails).
///
/// A session's row goes in once (every recorded update asks for it): all would be the same
/// snapshot, and encoding a state is the costly part of this, done under the sessions' lock.
/// Only a delete of the session in between makes it go in again.
fn build<S>(durable: &Durable<S>, sessions: &Sessions<S>, work: &mut Work) -> Vec<Write> {
    let mut batch = Vec::with_capacity(work.items.len() + work.deletes.len());
    // The sessions whose row is in the batch (since their last delete in it).
    let mut in_batch: HashSet<SessionId> = HashSet::new();
    let row = |batch: &mut Vec<Write>, in_batch: &mut HashSet<SessionId>, id: &SessionId| {
        let stored = lookup(sessions, id)?;
        if in_batch.contains(id) {
            return Some(stored);
        }
        in_batch.insert(id.clone());
        match durable.row(stored) {
            Ok(row) => batch.push(Write::Upsert(row)),
            Err(error) => {
                tracing::error!(session = %id, %error, "cannot encode a session's state: not written")
            }
        }
        Some(stored)
    };
    for id in &work.deletes {
        batch.push(Write::Delete {
            id: id.as_str().to_owned(),
        });
    }
    for id in &work.whole {
        let Some(stored) = row(&mut batch, &mut in_batch, id) else {
            continue;
        };
        batch.push(Write::ClearHistory {
            id: id.as_str().to_owned(),
        });
        let first = stored.seq.saturating_sub(stored.history.len() as u64);
        for (seq, update) in (first..).zip(stored.history.iter()) {
            match serde_json::to_string(update) {
                Ok(update) => batch.push(Write::Append {
                    id: Arc::clone(&id.0),
                    seq,
                    update,
                }),
                Err(error) => tracing::error!(session = %id, %error, "cannot encode an update"),
            }
        }
    }
    for item in &mut work.items {
        match item {
            Pending::State(id) => {
                row(&mut batch, &mut in_batch, id);
            }
            Pending::Append { id, seq, json } => batch.push(Write::Append {
                id: Arc::clone(&id.0),
                seq: *seq,
                update: std::mem::take(json),
            }),
            // Kept aside by the queue (see `Work::trims`).
            Pending::Trim { .. } => {}
            Pending::Clear(id) => {
                batch.push(Write::ClearHistory {
                    id: id.as_str().to_owned(),
                });
            }
            Pending::Delete(id) => {
                in_batch.remove(id);
                batch.push(Write::Delete {
                    id: id.as_str().to_owned(),
                });
            }
        }
    }
    // Only a session's last trim counts: written once, after its appends.
    for (id, keep_from) in &work.trims {
        batch.push(Write::Trim {
            id: id.as_str().to_owned(),
            keep_from: *keep_from,
        });
    }
    batch
}
