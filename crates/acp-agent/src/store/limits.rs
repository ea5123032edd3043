//! How many sessions a [`SessionStore`] holds, for how long an idle one is kept, and how much
//! history they keep together.

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
/// # History budgets
///
/// Each session's history is bounded by [`history`](Self::history), but that bound multiplies
/// with the session count (1,000 sessions of 2 MiB are 2 GB for one owner). Two budgets bound
/// the history of all sessions together: [`max_history_bytes_per_owner`] (64 MiB by default)
/// for the sessions of one owner, and [`max_history_bytes`] (512 MiB) for the whole store.
///
/// Recording never fails for them: the new update is kept, and to make room the store drops
/// the **oldest** recorded updates of the **least recently used** sessions (a session is used
/// by anything that reads or changes it: a record, a load, a turn's start and end), one session
/// after the other, as many as needed. Past the owner's budget they are the owner's sessions;
/// past the store's, any owner's. The session recorded into is taken from last, once no other
/// session has anything left to give: then its own oldest updates go, never the new one. A
/// session thinned out this way keeps its newest updates, and a replay of it starts later in
/// the conversation. An update that alone is over a budget is not kept (and drops nothing).
///
/// What the budgets count, per kept update: the length of its JSON (about what its text takes
/// in memory) and the fixed size of its slot in the history, the bytes
/// [`SessionStore::history_bytes`] reports. What they do not count: the state `S` of each
/// session, which is the agent's own (keep it small, or bound it yourself), and a few hundred
/// bytes per session of bookkeeping, bounded by [`max_sessions`](Self::max_sessions).
///
/// [`max_history_bytes_per_owner`]: Self::max_history_bytes_per_owner
/// [`max_history_bytes`]: Self::max_history_bytes
///
/// ```
/// use std::time::Duration;
/// use acp_agent::{SessionStore, StoreLimits};
///
/// let limits = StoreLimits::DEFAULT
///     .max_sessions_per_owner(50)
///     .idle_expiry(Some(Duration::from_secs(3600)))
///     .max_history_bytes_per_owner(16 * 1024 * 1024);
/// let store: SessionStore<()> = SessionStore::with_store_limits(limits);
/// assert_eq!(store.store_limits().max_sessions_per_owner, 50);
/// // Whatever alice records, her sessions keep at most 16 MiB of history together.
/// assert_eq!(store.owned_by("alice").history_bytes(), 0);
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
    /// The most history bytes the sessions of one owner keep together (see
    /// [History budgets](Self#history-budgets)); sessions without an owner count only toward
    /// [`max_history_bytes`](Self::max_history_bytes).
    pub max_history_bytes_per_owner: usize,
    /// The most history bytes the whole store keeps (see
    /// [History budgets](Self#history-budgets)).
    pub max_history_bytes: usize,
}

impl StoreLimits {
    /// The default bounds: [`DEFAULT_MAX_SESSIONS`](Self::DEFAULT_MAX_SESSIONS) sessions,
    /// [`DEFAULT_MAX_SESSIONS_PER_OWNER`](Self::DEFAULT_MAX_SESSIONS_PER_OWNER) per owner,
    /// [`DEFAULT_IDLE_EXPIRY`](Self::DEFAULT_IDLE_EXPIRY), the default [`HistoryLimits`],
    /// [`DEFAULT_MAX_HISTORY_BYTES_PER_OWNER`](Self::DEFAULT_MAX_HISTORY_BYTES_PER_OWNER) and
    /// [`DEFAULT_MAX_HISTORY_BYTES`](Self::DEFAULT_MAX_HISTORY_BYTES) of history.
    pub const DEFAULT: Self = Self {
        max_sessions: Self::DEFAULT_MAX_SESSIONS,
        max_sessions_per_owner: Self::DEFAULT_MAX_SESSIONS_PER_OWNER,
        idle_expiry: Some(Self::DEFAULT_IDLE_EXPIRY),
        history: HistoryLimits::DEFAULT,
        max_history_bytes_per_owner: Self::DEFAULT_MAX_HISTORY_BYTES_PER_OWNER,
        max_history_bytes: Self::DEFAULT_MAX_HISTORY_BYTES,
    };
    /// The default bound on the sessions of the store.
    pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
    /// The default bound on the sessions of one owner.
    pub const DEFAULT_MAX_SESSIONS_PER_OWNER: usize = 1_000;
    /// The default idle expiry: 24 hours.
    pub const DEFAULT_IDLE_EXPIRY: Duration = Duration::from_secs(24 * 60 * 60);
    /// The default history budget of one owner's sessions: 64 MiB.
    pub const DEFAULT_MAX_HISTORY_BYTES_PER_OWNER: usize = 64 * 1024 * 1024;
    /// The default history budget of the store: 512 MiB.
    pub const DEFAULT_MAX_HISTORY_BYTES: usize = 512 * 1024 * 1024;

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

    /// These bounds with at most `max` bytes of history for the sessions of one owner.
    pub const fn max_history_bytes_per_owner(mut self, max: usize) -> Self {
        self.max_history_bytes_per_owner = max;
        self
    }

    /// These bounds with at most `max` bytes of history in the store.
    pub const fn max_history_bytes(mut self, max: usize) -> Self {
        self.max_history_bytes = max;
        self
    }
}

impl Default for StoreLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
