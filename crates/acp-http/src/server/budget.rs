//! Server-wide memory budgets: the request bodies read but not yet taken by an agent, and the
//! agents' output waiting for slow readers. One client cannot use them up for the others: a
//! connection's own bounds come first, and what waits for the budget waits (backpressure), it
//! is never buffered beyond it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// Bytes of request bodies held by the server: each body holds its share from the moment it is
/// read until its agent took it.
#[derive(Debug, Clone)]
pub(crate) struct BodyBudget {
    bytes: Arc<Semaphore>,
    max: usize,
}

/// A body's share of the [`BodyBudget`], given back when dropped.
pub(crate) type BodyShare = OwnedSemaphorePermit;

impl BodyBudget {
    pub(crate) fn new(max: usize) -> Self {
        let max = max.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            bytes: Arc::new(Semaphore::new(max)),
            max,
        }
    }

    /// The share for `len` bytes, waiting until there is room. A body larger than the whole
    /// budget takes all of it.
    pub(crate) async fn take(&self, len: usize) -> BodyShare {
        let n = u32::try_from(len.clamp(1, self.max)).unwrap_or(u32::MAX);
        match self.bytes.clone().acquire_many_owned(n).await {
            Ok(share) => share,
            Err(_) => unreachable!("the body budget is never closed"),
        }
    }
}

/// Bytes of request bodies one connection holds (counted while they wait for its agent).
#[derive(Debug)]
pub(crate) struct HeldBodies {
    held: Arc<AtomicUsize>,
    len: usize,
}

impl HeldBodies {
    /// Counts `len` more bytes in `held`, until dropped.
    pub(crate) fn count(held: &Arc<AtomicUsize>, len: usize) -> Self {
        held.fetch_add(len, Ordering::Relaxed);
        Self {
            held: held.clone(),
            len,
        }
    }
}

impl Drop for HeldBodies {
    fn drop(&mut self) {
        self.held.fetch_sub(self.len, Ordering::Relaxed);
    }
}

/// Bytes of agents' output waiting for readers, across connections.
#[derive(Debug)]
pub(crate) struct OutputBudget {
    used: AtomicUsize,
    max: usize,
    /// Wakes the connections waiting for room when output leaves.
    room: Notify,
}

impl OutputBudget {
    /// Each connection may hold this much whatever the others hold: a slow reader slows the
    /// others down, it never stops them.
    pub(crate) const OWN_SHARE: usize = 64 * 1024;

    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            used: AtomicUsize::new(0),
            max: max.max(1),
            room: Notify::new(),
        })
    }

    /// Whether a connection holding `held` bytes may add more.
    pub(crate) fn has_room(&self, held: usize) -> bool {
        held < Self::OWN_SHARE || self.used.load(Ordering::Relaxed) < self.max
    }

    pub(crate) fn add(&self, len: usize) {
        self.used.fetch_add(len, Ordering::Relaxed);
    }

    /// Output left (read, or dropped with its connection).
    pub(crate) fn release(&self, len: usize) {
        if len == 0 {
            return;
        }
        let before = self.used.fetch_sub(len, Ordering::Relaxed);
        if before >= self.max {
            self.room.notify_waiters();
        }
    }

    /// Resolves when output left somewhere while the budget was full (enable it before
    /// checking [`has_room`](Self::has_room)).
    pub(crate) fn room(&self) -> tokio::sync::futures::Notified<'_> {
        self.room.notified()
    }
}
