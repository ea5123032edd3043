//! Wire order through the proxy: what it forwards goes out in the order it came in.
//!
//! Requests are handled concurrently, notifications in a lane of their own; left alone, a
//! request from the agent could overtake the updates received before it while they wait for
//! room in the outgoing buffer (a permission request before the tool call it is about). Each
//! message takes a [`Turn`] when it is read: it sends only once every message read before it
//! was queued for sending.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

/// Hands out turns in the order messages are read.
#[derive(Debug, Default)]
pub(crate) struct Sequencer {
    /// The next ticket to hand out.
    next: AtomicU64,
    state: Mutex<Progress>,
    /// `Progress::low`, readable without the lock.
    low: AtomicU64,
    /// Woken whenever `Progress::low` moves.
    moved: Notify,
}

#[derive(Debug, Default)]
struct Progress {
    /// Every turn below it is over.
    low: u64,
    /// Turns above `low` already over (given up early, such as a cancelled handler's).
    over: BTreeSet<u64>,
}

impl Sequencer {
    /// The next turn. Called on the reading loop, in arrival order.
    pub(crate) fn next(self: &Arc<Self>) -> Turn {
        Turn {
            order: self.clone(),
            ticket: self.next.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// True when every turn handed out is over: a message read now has nobody to wait for.
    /// Called on the reading loop (the only place turns are handed out).
    pub(crate) fn is_idle(&self) -> bool {
        self.low.load(Ordering::Acquire) == self.next.load(Ordering::Relaxed)
    }

    fn progress(&self) -> MutexGuard<'_, Progress> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// One message's place in the order: [`wait`](Self::wait) for the messages before it, send,
/// then drop the turn to let the next one go. A turn dropped before the ones ahead of it are
/// over (a cancelled handler's) lets nobody overtake them.
#[derive(Debug)]
pub(crate) struct Turn {
    order: Arc<Sequencer>,
    ticket: u64,
}

impl Turn {
    /// Waits until every message read before this one was queued for sending (or given up).
    pub(crate) async fn wait(&self) {
        loop {
            let moved = self.order.moved.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            if self.order.progress().low >= self.ticket {
                return;
            }
            moved.await;
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut progress = self.order.progress();
        if progress.low != self.ticket {
            progress.over.insert(self.ticket);
            return;
        }
        let Progress { low, over } = &mut *progress;
        *low += 1;
        while over.remove(low) {
            *low += 1;
        }
        self.order.low.store(*low, Ordering::Release);
        drop(progress);
        self.order.moved.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    async fn passes(turn: &Turn) -> bool {
        tokio::time::timeout(Duration::from_millis(50), turn.wait())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn turns_pass_in_order_and_a_turn_given_up_early_lets_nobody_overtake() {
        let order = Arc::new(Sequencer::default());
        assert!(order.is_idle(), "no turn handed out yet");
        let first = order.next();
        let second = order.next();
        let third = order.next();
        assert!(passes(&first).await, "the first waits for nobody");
        assert!(!passes(&second).await, "the second waits for the first");
        drop(second); // Given up early: the third still waits for the first.
        assert!(!passes(&third).await);
        assert!(!order.is_idle(), "turns are still out");
        drop(first);
        assert!(passes(&third).await);
        assert!(!order.is_idle(), "the third is still out");
        drop(third);
        assert!(order.is_idle(), "every turn is over");
        let fourth = order.next();
        assert!(!order.is_idle());
        assert!(passes(&fourth).await);
    }
}
