//! How many sessions a [`SessionStore`] holds, and for how long an idle one is kept.

use std::time::Duration;

use super::HistoryLimits;
#[cfg(doc)]
use super::SessionStore;

/// The bounds of a [`SessionStore`]: how many sessions it holds (in all, and per owner), how
/// long a session nobody uses is kept, and how much history each keeps.
///
/// Without them, any client could grow the agent's memory without end by creating sessions.
/// At a bound, [`SessionStore::create`] (and an [`insert`](SessionStore::insert) of a new
/// session) is **refused** with an error telling the client to delete a session first: a live
/// session is never evicted to make room. What makes room on its own is the idle expiry: a
/// session not used for [`idle_expiry`](Self::idle_expiry) is dropped (with its history) the
/// next time the store is used.
///
/// ```
/// use std::time::Duration;
/// use acp_agent::{SessionStore, StoreLimits};
///
/// let limits = StoreLimits::DEFAULT
///     .max_sessions_per_owner(50)
///     .idle_expiry(Some(Duration::from_secs(3600)));
/// let store: SessionStore<()> = SessionStore::with_store_limits(limits);
/// assert_eq!(store.store_limits().max_sessions_per_owner, 50);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreLimits {
    /// The most sessions in the store, whoever owns them.
    pub max_sessions: usize,
    /// The most sessions one owner (see [`SessionStore::owned_by`]) holds. Sessions made
    /// through an unscoped store have no owner, and count only toward
    /// [`max_sessions`](Self::max_sessions).
    pub max_sessions_per_owner: usize,
    /// How long a session stays after its last use (a prompt turn, a load, anything recorded,
    /// any call that reads or changes it); `None` keeps sessions until they are removed. A
    /// session whose turn is running does not expire.
    pub idle_expiry: Option<Duration>,
    /// How much history each session keeps.
    pub history: HistoryLimits,
}

impl StoreLimits {
    /// The default bounds: [`DEFAULT_MAX_SESSIONS`](Self::DEFAULT_MAX_SESSIONS) sessions,
    /// [`DEFAULT_MAX_SESSIONS_PER_OWNER`](Self::DEFAULT_MAX_SESSIONS_PER_OWNER) per owner,
    /// [`DEFAULT_IDLE_EXPIRY`](Self::DEFAULT_IDLE_EXPIRY), and the default [`HistoryLimits`].
    pub const DEFAULT: Self = Self {
        max_sessions: Self::DEFAULT_MAX_SESSIONS,
        max_sessions_per_owner: Self::DEFAULT_MAX_SESSIONS_PER_OWNER,
        idle_expiry: Some(Self::DEFAULT_IDLE_EXPIRY),
        history: HistoryLimits::DEFAULT,
    };
    /// The default bound on the sessions of the store.
    pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
    /// The default bound on the sessions of one owner.
    pub const DEFAULT_MAX_SESSIONS_PER_OWNER: usize = 1_000;
    /// The default idle expiry: 24 hours.
    pub const DEFAULT_IDLE_EXPIRY: Duration = Duration::from_secs(24 * 60 * 60);

    /// These bounds with at most `max` sessions in the store.
    pub const fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// These bounds with at most `max` sessions per owner.
    pub const fn max_sessions_per_owner(mut self, max: usize) -> Self {
        self.max_sessions_per_owner = max;
        self
    }

    /// These bounds with sessions dropped after `expiry` without use (`None`: never).
    pub const fn idle_expiry(mut self, expiry: Option<Duration>) -> Self {
        self.idle_expiry = expiry;
        self
    }

    /// These bounds with `history` kept per session.
    pub const fn history(mut self, history: HistoryLimits) -> Self {
        self.history = history;
        self
    }
}

impl Default for StoreLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
