//! The write queue between a durable store and its group-commit writer: bounded, ordered, and
//! folding into per-session "write it whole" marks while the database is down.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use acp_types::{ErrorObject, SessionId};
use tokio::sync::{Notify, watch};

/// One change waiting for the writer.
#[derive(Debug)]
pub(super) enum Pending {
    /// Write the session's row (its state as it is when the batch is made).
    State(SessionId),
    /// Keep update `seq` (JSON) in the session's history.
    Append {
        id: SessionId,
        seq: u64,
        json: String,
    },
    /// Forget the session's updates numbered below `keep_from` (kept aside in
    /// [`Work::trims`], not in the queue's order).
    Trim { id: SessionId, keep_from: u64 },
    /// Forget the session's history.
    Clear(SessionId),
    /// Remove the session.
    Delete(SessionId),
}

impl Pending {
    fn id(&self) -> &SessionId {
        match self {
            Self::State(id) | Self::Clear(id) | Self::Delete(id) => id,
            Self::Append { id, .. } | Self::Trim { id, .. } => id,
        }
    }
}

/// What the writer takes in one go.
#[derive(Debug, Default)]
pub(super) struct Work {
    /// Sessions to remove, before anything else.
    pub(super) deletes: Vec<SessionId>,
    /// Sessions to write whole (row and history), as memory holds them.
    pub(super) whole: HashSet<SessionId>,
    /// The changes, in order.
    pub(super) items: Vec<Pending>,
    /// Each session's last trim (see [`Pending::Trim`]): only the last counts, written after
    /// the changes (one per session, not one per recorded update past the history's bound).
    /// A clear or delete of the session drops the trims queued before it.
    pub(super) trims: HashMap<SessionId, u64>,
    /// The number of the last change taken (see [`Channel::flushed`]).
    pub(super) upto: u64,
}

impl Work {
    /// True when there is nothing to write.
    pub(super) fn is_empty(&self) -> bool {
        self.deletes.is_empty()
            && self.whole.is_empty()
            && self.items.is_empty()
            && self.trims.is_empty()
    }

    /// Folds the ordered changes into deletes and whole-session marks: what a batch that
    /// failed becomes, and a queue past its bound while the database is down. A session
    /// written whole after a delete of it is written only if memory still holds it, so the
    /// order of the two is kept.
    pub(super) fn fold(&mut self) {
        self.whole.extend(self.trims.drain().map(|(id, _)| id));
        for item in self.items.drain(..) {
            match item {
                Pending::Delete(id) => {
                    self.whole.remove(&id);
                    self.deletes.push(id);
                }
                other => {
                    self.whole.insert(other.id().clone());
                }
            }
        }
    }

    /// Adds `newer` (taken after this) to this work.
    pub(super) fn merge(&mut self, mut newer: Work) {
        self.fold();
        newer.fold();
        for id in newer.deletes {
            self.whole.remove(&id);
            self.deletes.push(id);
        }
        self.whole.extend(newer.whole);
        self.upto = newer.upto;
    }
}

#[derive(Debug, Default)]
struct Queue {
    work: Work,
    /// The sessions with a [`Pending::State`] in `work.items`.
    dirty: HashSet<SessionId>,
    /// How many changes were ever queued.
    pushed: u64,
    /// The bytes of the updates' JSON in `work.items`.
    bytes: usize,
    /// How many changes the writer took and has not committed yet: they count toward the
    /// bound (memory holds them until the commit).
    in_flight: usize,
    /// The bytes of the updates' JSON the writer took and has not committed yet.
    in_flight_bytes: usize,
    /// The store is gone: the writer ends.
    closed: bool,
    /// Why the writer stopped for good (it panicked, or its runtime dropped it): nothing is
    /// written any more, and nothing waits for it.
    stopped: Option<String>,
}

/// Where the writer stands: what it committed, and whether the database answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Progress {
    /// The number of the last change committed.
    pub(super) committed: u64,
    /// False since a commit failed, until one succeeds.
    pub(super) healthy: bool,
}

/// The queue, the writer's wake-up call, and the producers' wait for room.
#[derive(Debug)]
pub(super) struct Channel {
    queue: Mutex<Queue>,
    max_queued: usize,
    max_queued_bytes: usize,
    /// Wakes the writer.
    pub(super) wake: Notify,
    /// Commit right away, without waiting for the window (someone flushes).
    pub(super) urgent: AtomicBool,
    /// Ends the writer's window early: someone flushes, or the queue is half full (the
    /// writer commits that half while producers fill the other, instead of producers waiting
    /// out the window at the bound).
    pub(super) hurry: Notify,
    /// Wakes producers waiting for room.
    room: Notify,
    progress: watch::Sender<Progress>,
}

impl Channel {
    /// A queue of at most `max_queued` changes holding at most `max_queued_bytes` of updates'
    /// JSON (both at least 1).
    pub(super) fn new(max_queued: usize, max_queued_bytes: usize) -> Self {
        Self {
            queue: Mutex::new(Queue::default()),
            max_queued: max_queued.max(1),
            max_queued_bytes: max_queued_bytes.max(1),
            wake: Notify::new(),
            urgent: AtomicBool::new(false),
            hurry: Notify::new(),
            room: Notify::new(),
            progress: watch::Sender::new(Progress {
                committed: 0,
                healthy: true,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True when what is queued and in flight reaches either bound (changes or bytes).
    fn at_bound(&self, queue: &Queue) -> bool {
        queue.work.items.len() + queue.in_flight >= self.max_queued
            || queue.bytes + queue.in_flight_bytes >= self.max_queued_bytes
    }

    /// True when what is queued (not in flight) reaches half of either bound: the writer
    /// should not wait out its window.
    fn half_full(&self, queue: &Queue) -> bool {
        queue.work.items.len() >= self.max_queued.div_ceil(2)
            || queue.bytes >= self.max_queued_bytes.div_ceil(2)
    }

    /// True unless the last commit failed.
    pub(super) fn healthy(&self) -> bool {
        self.progress.borrow().healthy
    }

    /// Queues `item`. Never waits (see [`room`](Self::room)); past the bound while the
    /// database is down, the queue folds (see [`Work::fold`]).
    pub(super) fn push(&self, item: Pending) {
        self.push_all([item]);
    }

    /// Queues `items` in order, under one lock. Returns true when the queue is then at its
    /// bound and the database answers (see [`full`](Self::full)): the producer should wait
    /// for [`room`](Self::room).
    pub(super) fn push_all(&self, items: impl IntoIterator<Item = Pending>) -> bool {
        let mut queue = self.lock();
        let first = queue.work.items.is_empty();
        for item in items {
            match &item {
                // Already queued: the batch writes the row as it is then.
                Pending::State(id) if queue.dirty.contains(id) => continue,
                Pending::State(id) => {
                    queue.dirty.insert(id.clone());
                }
                Pending::Delete(id) => {
                    // A later change of the session must come after the delete.
                    queue.dirty.remove(id);
                    queue.work.trims.remove(id);
                }
                Pending::Clear(id) => {
                    queue.work.trims.remove(id);
                }
                Pending::Trim { id, keep_from } => {
                    let trim = queue.work.trims.entry(id.clone()).or_insert(0);
                    *trim = (*trim).max(*keep_from);
                    queue.pushed += 1;
                    queue.work.upto = queue.pushed;
                    continue;
                }
                Pending::Append { json, .. } => queue.bytes += json.len(),
            }
            queue.pushed += 1;
            queue.work.upto = queue.pushed;
            queue.work.items.push(item);
        }
        let healthy = self.healthy();
        if !healthy && self.at_bound(&queue) {
            queue.work.fold();
            queue.dirty.clear();
            queue.bytes = 0;
        }
        let hurry = healthy && self.half_full(&queue);
        let full = healthy && self.at_bound(&queue);
        drop(queue);
        if first {
            self.wake.notify_one();
        }
        if hurry {
            self.hurry.notify_one();
        }
        full
    }

    /// Takes everything queued; `None` once the store is gone and nothing is left.
    pub(super) fn take(&self) -> Option<Work> {
        let mut queue = self.lock();
        let work = std::mem::take(&mut queue.work);
        queue.work.upto = work.upto;
        queue.in_flight = work.items.len();
        queue.in_flight_bytes = std::mem::take(&mut queue.bytes);
        queue.dirty.clear();
        let closed = queue.closed;
        drop(queue);
        self.room.notify_waiters();
        (!closed || !work.is_empty()).then_some(work)
    }

    /// True when the queue is at its bound and the database answers: a producer should wait
    /// for [`room`](Self::room).
    pub(super) fn full(&self) -> bool {
        let queue = self.lock();
        self.at_bound(&queue) && self.healthy()
    }

    /// True when something waits for the writer.
    pub(super) fn has_work(&self) -> bool {
        let queue = self.lock();
        !queue.work.is_empty() || queue.closed
    }

    /// True once the store is gone (see [`close`](Self::close)).
    pub(super) fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Ends the writer once the queue is written.
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_one();
    }

    /// Waits while the queue is at its bound and the database answers.
    pub(super) async fn room(&self) {
        loop {
            let notified = self.room.notified();
            {
                let queue = self.lock();
                if !self.at_bound(&queue) || !self.healthy() {
                    return;
                }
            }
            notified.await;
        }
    }

    /// The writer's report: changes up to `upto` committed (or, with `healthy` false, a
    /// commit failed).
    pub(super) fn report(&self, upto: Option<u64>, healthy: bool) {
        let stopped = {
            let mut queue = self.lock();
            if upto.is_some() {
                queue.in_flight = 0;
                queue.in_flight_bytes = 0;
            }
            queue.stopped.is_some()
        };
        self.progress.send_modify(|progress| {
            if let Some(upto) = upto {
                progress.committed = progress.committed.max(upto);
            }
            progress.healthy = healthy && !stopped;
        });
        self.room.notify_waiters();
    }

    /// The writer stopped for good, for `reason`: the store is unavailable from now on, and
    /// the producers waiting for room and the flushes waiting for a commit are let go (they
    /// would wait forever).
    pub(super) fn stop(&self, reason: String) {
        self.lock().stopped = Some(reason);
        self.progress
            .send_modify(|progress| progress.healthy = false);
        self.room.notify_waiters();
    }

    /// The error of a store that cannot write now: the database fails (the writer retries), or
    /// the writer stopped (and why).
    pub(super) fn failure(&self) -> ErrorObject {
        match &self.lock().stopped {
            Some(reason) => ErrorObject::internal_error(format_args!(
                "the session storage stopped, nothing more is saved: {reason}"
            )),
            None => unavailable(),
        }
    }

    /// Waits until every change queued before the call is committed.
    ///
    /// # Errors
    ///
    /// An internal error while the database does not answer.
    pub(super) async fn flushed(&self) -> Result<(), ErrorObject> {
        let target = self.lock().pushed;
        let mut progress = self.progress.subscribe();
        if progress.borrow().committed >= target {
            return Ok(());
        }
        self.urgent.store(true, Ordering::Relaxed);
        self.wake.notify_one();
        self.hurry.notify_one();
        loop {
            let now = *progress.borrow_and_update();
            if now.committed >= target {
                return Ok(());
            }
            if !now.healthy {
                return Err(self.failure());
            }
            if progress.changed().await.is_err() {
                return Err(self.failure());
            }
        }
    }
}

/// The error of a store whose database does not answer.
pub(super) fn unavailable() -> ErrorObject {
    ErrorObject::internal_error(
        "the session storage is unavailable: try again later (the agent reconnects by itself)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(id: &str, seq: u64, len: usize) -> Pending {
        Pending::Append {
            id: SessionId::from(id),
            seq,
            json: "x".repeat(len),
        }
    }

    /// The bytes bound holds like the count bound: queued and in-flight bytes count until the
    /// commit, and half of it ends the writer's window.
    #[test]
    fn the_bytes_of_queued_updates_are_bounded_until_committed() {
        let channel = Channel::new(1000, 100);
        assert!(!channel.push_all([append("a", 0, 40)]));
        assert!(channel.lock().bytes == 40 && !channel.half_full(&channel.lock()));
        assert!(!channel.push_all([append("a", 1, 40)]));
        assert!(channel.half_full(&channel.lock()));
        assert!(channel.push_all([append("b", 0, 30)]), "110 bytes > 100");
        assert!(channel.full());
        let work = channel.take().expect("work");
        assert_eq!(work.items.len(), 3);
        assert!(channel.full(), "the batch in flight still counts");
        assert!(
            channel.push_all([Pending::State(SessionId::from("a"))]),
            "a change pushed meanwhile is told to wait"
        );
        channel.report(Some(work.upto), true);
        assert!(!channel.full());
        assert_eq!(channel.lock().in_flight_bytes, 0);
    }

    /// The count bound is unchanged by the bytes bound: many small changes still reach it.
    #[test]
    fn the_count_bound_still_holds_for_small_updates() {
        let channel = Channel::new(4, 1 << 20);
        assert!(!channel.push_all((0..3).map(|i| append("a", i, 1))));
        assert!(channel.push_all([append("a", 3, 1)]));
    }
}
