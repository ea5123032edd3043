//! How a durable [`SessionStore`](super::SessionStore) writes: its group-commit window and
//! the bound of its write queue.

use std::time::Duration;

use super::StoreLimits;

/// The options of a durable [`SessionStore`](super::SessionStore) (see
/// [`SessionStore::durable`](super::SessionStore::durable)).
///
/// # The group-commit window
///
/// Changes (a recorded update, a new session, a changed state) are not written one by one: a
/// writer task gathers them for [`window`](Self::window) after the first one (or until half
/// of either queue bound waits: under load it commits one half while producers fill the
/// other), then commits them in one transaction. A process killed at any moment (`kill -9`)
/// loses at most the changes of the window being gathered and of the commit in flight; the
/// database is never left half-written. A shorter window loses less and commits more often.
///
/// # The queue bound
///
/// At most [`max_queued`](Self::max_queued) changes, holding at most
/// [`max_queued_bytes`](Self::max_queued_bytes) of updates' JSON, wait for the writer or are
/// being committed (the batch in flight counts: memory holds it until the commit). Past
/// either bound, a recording [`PromptContext`](crate::PromptContext) waits for room at its next update (a slow database
/// slows the turns that write to it, memory does not grow). While the database is unreachable
/// nothing waits: running turns go on in memory, the queue folds into "write this session
/// whole" marks (one per session, so it stays bounded), and the writer retries with backoff
/// up to [`max_backoff`](Self::max_backoff) until the database is back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DurableOptions {
    /// The store's bounds (sessions, owners, histories, idle expiry).
    pub limits: StoreLimits,
    /// How long the writer gathers changes before it commits them: the most a `kill -9` loses.
    pub window: Duration,
    /// The most changes waiting for the writer (or in its commit) before producers wait.
    pub max_queued: usize,
    /// The most bytes of updates' JSON waiting for the writer (or in its commit) before
    /// producers wait: what bounds the queue's memory when updates are large.
    pub max_queued_bytes: usize,
    /// The longest wait between two tries of a database that failed.
    pub max_backoff: Duration,
}

impl DurableOptions {
    /// The defaults: [`StoreLimits::DEFAULT`], a window of
    /// [`DEFAULT_WINDOW`](Self::DEFAULT_WINDOW), [`DEFAULT_MAX_QUEUED`](Self::DEFAULT_MAX_QUEUED)
    /// queued changes of at most [`DEFAULT_MAX_QUEUED_BYTES`](Self::DEFAULT_MAX_QUEUED_BYTES)
    /// and a backoff of at most [`DEFAULT_MAX_BACKOFF`](Self::DEFAULT_MAX_BACKOFF).
    pub const DEFAULT: Self = Self {
        limits: StoreLimits::DEFAULT,
        window: Self::DEFAULT_WINDOW,
        max_queued: Self::DEFAULT_MAX_QUEUED,
        max_queued_bytes: Self::DEFAULT_MAX_QUEUED_BYTES,
        max_backoff: Self::DEFAULT_MAX_BACKOFF,
    };
    /// The default group-commit window: 20 ms.
    pub const DEFAULT_WINDOW: Duration = Duration::from_millis(20);
    /// The default queue bound: 65,536 changes. Enough for a server whose thousand sessions
    /// stream at once to commit tens of updates per session in one transaction (a smaller
    /// queue makes the producers wait for commits of a few updates each).
    pub const DEFAULT_MAX_QUEUED: usize = 65_536;
    /// The default bound of the queue's bytes: 16 MiB of updates' JSON.
    pub const DEFAULT_MAX_QUEUED_BYTES: usize = 16 << 20;
    /// The default longest backoff: 5 s.
    pub const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(5);

    /// These options with the store's bounds `limits`.
    pub const fn limits(mut self, limits: StoreLimits) -> Self {
        self.limits = limits;
        self
    }

    /// These options with a group-commit window of `window`.
    pub const fn window(mut self, window: Duration) -> Self {
        self.window = window;
        self
    }

    /// These options with at most `max` queued changes (at least 1).
    pub const fn max_queued(mut self, max: usize) -> Self {
        self.max_queued = if max == 0 { 1 } else { max };
        self
    }

    /// These options with at most `max` bytes of updates' JSON queued (at least 1).
    pub const fn max_queued_bytes(mut self, max: usize) -> Self {
        self.max_queued_bytes = if max == 0 { 1 } else { max };
        self
    }

    /// These options with at most `max` between two tries of a failed database.
    pub const fn max_backoff(mut self, max: Duration) -> Self {
        self.max_backoff = max;
        self
    }
}

impl Default for DurableOptions {
    fn default() -> Self {
        Self::DEFAULT
    }
}
