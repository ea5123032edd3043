//! What a durable [`SessionStore`](super::SessionStore) keeps in a database, and the trait a
//! database engine implements to keep it ([`Backend`]).
//!
//! The engines live in crates of their own (`acp-store-sqlite`, `acp-store-postgres`), so that
//! an agent that keeps its sessions in memory builds no database client.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;

mod steps;

pub use steps::{Appended, Step, steps};

/// The longest session id a durable store looks up: ours are 37 bytes; anything much longer
/// from the wire is refused (`-32602`) before it reaches a query.
pub const MAX_ID_LEN: usize = 128;

/// The longest cwd a durable store keeps or filters by, in bytes (`-32602` past it).
pub const MAX_CWD_LEN: usize = 4096;

/// One session's row: everything but its history.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionRow {
    /// The session id.
    pub id: String,
    /// Whose session it is (see [`SessionStore::owned_by`](super::SessionStore::owned_by));
    /// `None` for one made through an unscoped store.
    pub owner: Option<String>,
    /// The session's working directory (what `session/list` filters by).
    pub cwd: String,
    /// The session's title, if it has one.
    pub title: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch (orders `session/list`).
    pub created_ms: i64,
    /// When it was last used, in milliseconds since the Unix epoch (the idle expiry's clock).
    pub updated_ms: i64,
    /// The agent's state of the session, as JSON (serialized by the agent's type).
    pub state: String,
}

impl SessionRow {
    /// A row of the given fields.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: String,
        owner: Option<String>,
        cwd: String,
        title: Option<String>,
        created_ms: i64,
        updated_ms: i64,
        state: String,
    ) -> Self {
        Self {
            id,
            owner,
            cwd,
            title,
            created_ms,
            updated_ms,
            state,
        }
    }
}

/// A session as [`Backend::load`] reads it back: its row and its history.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredSession {
    /// The session's row.
    pub row: SessionRow,
    /// Its recorded updates as `(sequence number, JSON)`, oldest first.
    pub history: Vec<(u64, String)>,
}

impl StoredSession {
    /// A session of `row` and `history` (oldest first).
    pub fn new(row: SessionRow, history: Vec<(u64, String)>) -> Self {
        Self { row, history }
    }
}

/// One change in a batch that [`Backend::commit`] applies, in order, in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Write {
    /// Inserts the session, or replaces its row (owner and creation time included).
    Upsert(SessionRow),
    /// Keeps update `seq` (JSON) in session `id`'s history, replacing one of the same number.
    Append {
        /// The session (shared with the store's [`SessionId`](acp_types::SessionId): one per
        /// recorded update, not copied for each).
        id: Arc<str>,
        /// The update's sequence number in the session (one more than the one before).
        seq: u64,
        /// The update, as JSON.
        update: String,
    },
    /// Forgets session `id`'s updates numbered below `keep_from` (the oldest, dropped by the
    /// history's bounds).
    Trim {
        /// The session.
        id: String,
        /// The oldest sequence number kept.
        keep_from: u64,
    },
    /// Forgets every update of session `id`.
    ClearHistory {
        /// The session.
        id: String,
    },
    /// Removes session `id` and its history.
    Delete {
        /// The session.
        id: String,
    },
    /// Removes every session last used before `updated_before_ms` (the idle expiry).
    Expire {
        /// The cutoff, in milliseconds since the Unix epoch.
        updated_before_ms: i64,
    },
}

/// One page of a listing: the sessions of `owner` (every session for `None`), in `cwd` (any
/// for `None`), used at or after `updated_since_ms`, in the order of `(created_ms, id)`
/// after `after`, at most `limit` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListQuery<'a> {
    /// Only this owner's sessions; `None`: anyone's.
    pub owner: Option<&'a str>,
    /// Only the sessions of this cwd; `None`: any.
    pub cwd: Option<&'a str>,
    /// Only the sessions after this `(created_ms, id)`; `None`: from the first.
    pub after: Option<(i64, &'a str)>,
    /// Only the sessions used at or after this time (the others have expired).
    pub updated_since_ms: i64,
    /// The most rows to return.
    pub limit: usize,
}

/// A database that failed: what went wrong, and whether trying again may help.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct BackendError {
    message: String,
    transient: bool,
}

impl BackendError {
    /// A failure that may pass (the server is down or restarting, the connection broke): the
    /// store retries with backoff.
    pub fn transient(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
            transient: true,
        }
    }

    /// A failure that trying again does not mend (a corrupt or foreign file, a refused query).
    pub fn permanent(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
            transient: false,
        }
    }

    /// True when trying again may help.
    pub fn is_transient(&self) -> bool {
        self.transient
    }
}

/// A database that keeps the sessions of a durable [`SessionStore`](super::SessionStore).
///
/// The store calls it from its own tasks: batches of [`Write`]s from its group-commit writer,
/// and reads when a session is looked up that this process does not hold. Every value comes
/// from a client and is untrusted: an engine binds them as query parameters, never into the
/// query's text. An engine makes its tables when it opens, and its blocking work (if any) runs
/// off the runtime's threads.
#[async_trait]
pub trait Backend: Send + Sync + fmt::Debug + 'static {
    /// Applies `batch` in order, all or nothing (one transaction). The batch is the engine's
    /// to keep (a thread of its own may take it without a copy).
    async fn commit(&self, batch: Vec<Write>) -> Result<(), BackendError>;

    /// Session `id` with its history, `None` when there is none.
    async fn load(&self, id: &str) -> Result<Option<StoredSession>, BackendError>;

    /// One page of sessions (see [`ListQuery`]).
    async fn list(&self, query: &ListQuery<'_>) -> Result<Vec<SessionRow>, BackendError>;

    /// How many sessions `owner` has (every session for `None`) used at or after
    /// `updated_since_ms`.
    async fn count(&self, owner: Option<&str>, updated_since_ms: i64) -> Result<u64, BackendError>;
}
