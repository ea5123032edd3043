//! A one-shot cancellation signal that can be awaited or polled, by any number of holders.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

/// Set once, observed by everyone holding a clone.
#[derive(Clone, Debug, Default)]
pub(crate) struct Signal {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    set: AtomicBool,
    notify: Notify,
}

impl Signal {
    pub(crate) fn set(&self) {
        self.inner.set.store(true, Ordering::Release);
        self.inner.notify.notify_waiters();
    }

    /// True when both are clones of the same signal.
    pub(crate) fn ptr_eq(&self, other: &Signal) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    pub(crate) fn is_set(&self) -> bool {
        self.inner.set.load(Ordering::Acquire)
    }

    pub(crate) async fn wait(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_set() {
                return;
            }
            notified.await;
        }
    }
}
