//! Wire order through the proxy: what it forwards goes out in the order it came in.
//!
//! Requests are handled concurrently, notifications in a lane of their own; left alone, a
//! request from the agent could overtake the updates received before it while they wait for
//! room in the outgoing buffer (a permission request before the tool call it is about). Each
//! message takes a [`Turn`] when it is read: it sends only once every message read before it
//! was queued for sending.

use std::sync::Mutex;

use tokio::sync::oneshot;

/// Hands out turns in the order messages are read.
#[derive(Debug, Default)]
pub(crate) struct Sequencer {
    /// Resolves when the last turn handed out is over.
    last: Mutex<Option<oneshot::Receiver<()>>>,
}

impl Sequencer {
    /// The next turn. Called on the reading loop, in arrival order.
    pub(crate) fn next(&self) -> Turn {
        let (over, next) = oneshot::channel();
        let previous = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .replace(next);
        Turn {
            previous,
            _over: over,
        }
    }
}

/// One message's place in the order: [`wait`](Self::wait) for the messages before it, send,
/// then drop the turn to let the next one go (dropping it early, as a cancelled handler
/// does, lets it go too).
#[derive(Debug)]
pub(crate) struct Turn {
    previous: Option<oneshot::Receiver<()>>,
    /// Dropped when the turn is over: wakes the next one.
    _over: oneshot::Sender<()>,
}

impl Turn {
    /// Waits until every message read before this one was queued for sending (or given up).
    pub(crate) async fn wait(&mut self) {
        if let Some(previous) = self.previous.take() {
            // The sender is never used: its drop is the signal.
            let _ = previous.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn turns_pass_in_order_and_on_drop() {
        let seq = Sequencer::default();
        let mut first = seq.next();
        let mut second = seq.next();
        let mut third = seq.next();
        first.wait().await; // The first waits for nobody.
        let blocked =
            tokio::time::timeout(std::time::Duration::from_millis(50), second.wait()).await;
        assert!(blocked.is_err(), "the second waits for the first");
        drop(first);
        second.wait().await;
        drop(second); // Given up without sending: the third goes on.
        tokio::time::timeout(std::time::Duration::from_secs(5), third.wait())
            .await
            .expect("the third's turn came");
    }
}
