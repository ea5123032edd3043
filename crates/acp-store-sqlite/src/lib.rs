//! A durable session store for `acp-agent` in one SQLite file: an agent's sessions, their
//! owners and their histories survive its restart, and a `kill -9` loses at most the last
//! group-commit window.
//!
//! ```
//! use acp_agent::{DurableOptions, SessionState, SessionStore};
//! use acp_store_sqlite::SqliteBackend;
//!
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Session {
//!     cwd: String,
//! }
//!
//! impl SessionState for Session {
//!     fn cwd(&self) -> &str {
//!         &self.cwd
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let path = std::env::temp_dir().join(format!("acp-doc-{}.db", std::process::id()));
//! # let _ = std::fs::remove_file(&path);
//! let backend = SqliteBackend::open(&path).await?;
//! let store: SessionStore<Session> = SessionStore::durable(backend, DurableOptions::DEFAULT)?;
//! let alice = store.owned_by("alice");
//! let id = alice.create_async(Session { cwd: "/home/alice".into() }).await?;
//! alice.flush().await?;
//! drop((store, alice));
//!
//! // Another process, or the same after a restart: the session is there, still alice's.
//! let store: SessionStore<Session> =
//!     SessionStore::durable(SqliteBackend::open(&path).await?, DurableOptions::DEFAULT)?;
//! store.owned_by("alice").fetch(&id).await?;
//! assert!(store.owned_by("mallory").fetch(&id).await.is_err());
//! # drop(store);
//! # for suffix in ["", "-wal", "-shm"] { let _ = std::fs::remove_file(format!("{}{suffix}", path.display())); }
//! # Ok(()) }
//! ```
//!
//! # Why a crate of its own
//!
//! SQLite is a C library built from source (the bundled amalgamation, so every platform gets
//! the same engine): an agent that keeps its sessions in memory, or in PostgreSQL, does not
//! build it. `acp-agent` defines the [`Backend`] trait; this crate implements it.
//!
//! # Durability
//!
//! One file (and, while open, its `-wal` and `-shm` companions) in WAL mode with
//! `synchronous=NORMAL`: a transaction is in the write-ahead log when its commit returns, so a
//! process killed at any point (`kill -9`, a panic, an out-of-memory kill) loses nothing it
//! committed and never leaves the file corrupt; only a crash of the operating system or a
//! power cut may lose the last commits (never corrupt the file either): those since the log
//! was last synced, which happens at each checkpoint (every 16 MiB of log at most). `FULL`
//! would also
//! sync the log on every commit, a disk flush per group commit for a guarantee against power
//! loss that a session history does not need. What a `kill -9` does lose is what the store's
//! writer had not committed yet: at most the last window of
//! [`DurableOptions`](acp_agent::DurableOptions).
//!
//! # Layout
//!
//! One row per session, and its history in chunks: one row per stretch of consecutive
//! updates a commit wrote (at most 256 updates a row), with the oldest number a trim kept
//! alongside. A bounded history drops whole chunks as it moves on, and reads back exactly as
//! bounded (the part of a chunk below the kept number is skipped). The file's `user_version`
//! says the layout: 2. A file of layout 1 (one row per update, before 0.1 shipped chunks) is
//! moved to layout 2 when it is opened, in one transaction (a process killed during the move
//! leaves it as it was); a file of a layout newer than this crate knows is refused with an
//! error that says so.
//!
//! # Threads
//!
//! SQLite's calls block: they run on a thread of this backend's own, never on the runtime's
//! threads; the async methods send it work through a bounded channel.

mod chunk;
mod history;
mod schema;
mod worker;

use std::fmt;
use std::path::{Path, PathBuf};

use acp_agent::backend::{
    Backend, BackendError, ListQuery, SessionRow, Step, StoredSession, Write, steps,
};
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use worker::Worker;

/// The sessions of a durable [`SessionStore`](acp_agent::SessionStore) in one SQLite file.
pub struct SqliteBackend {
    path: PathBuf,
    worker: Worker,
}

impl fmt::Debug for SqliteBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteBackend")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteBackend {
    /// Opens the store at `path`, making the file and its tables when there are none.
    ///
    /// # Errors
    ///
    /// When the file cannot be opened or made, is not a SQLite database (corrupt, or some
    /// other kind of file), is another program's database, or was made by a newer version of
    /// this crate. Never a panic.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, BackendError> {
        let path = path.as_ref().to_path_buf();
        let opened = path.clone();
        let worker = Worker::start(move || schema::open(&opened)).await?;
        Ok(Self { path, worker })
    }

    /// The file the sessions are in.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[async_trait]
impl Backend for SqliteBackend {
    async fn commit(&self, batch: Vec<Write>) -> Result<(), BackendError> {
        // The batch moves to the worker thread, without a copy.
        self.worker.run(move |conn| commit(conn, &batch)).await
    }

    async fn load(&self, id: &str) -> Result<Option<StoredSession>, BackendError> {
        let id = id.to_owned();
        self.worker.run(move |conn| load(conn, &id)).await
    }

    async fn list(&self, query: &ListQuery<'_>) -> Result<Vec<SessionRow>, BackendError> {
        let owner = query.owner.map(str::to_owned);
        let cwd = query.cwd.map(str::to_owned);
        let (after_ms, after_id) = match query.after {
            Some((ms, id)) => (Some(ms), Some(id.to_owned())),
            None => (None, None),
        };
        let since = query.updated_since_ms;
        let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
        self.worker
            .run(move |conn| {
                let mut statement = conn.prepare_cached(
                    "SELECT id, owner, cwd, title, created_ms, updated_ms, state FROM sessions
                     WHERE (?1 IS NULL OR owner = ?1)
                       AND (?2 IS NULL OR cwd = ?2)
                       AND (?3 IS NULL OR (created_ms, id) > (?3, ?4))
                       AND updated_ms >= ?5
                     ORDER BY created_ms, id LIMIT ?6",
                )?;
                let rows = statement
                    .query_map(params![owner, cwd, after_ms, after_id, since, limit], row)?;
                rows.collect::<Result<Vec<_>, _>>()
            })
            .await
    }

    async fn count(&self, owner: Option<&str>, updated_since_ms: i64) -> Result<u64, BackendError> {
        let owner = owner.map(str::to_owned);
        self.worker
            .run(move |conn| {
                let count: i64 = conn
                    .prepare_cached(
                        "SELECT count(*) FROM sessions
                         WHERE (?1 IS NULL OR owner = ?1) AND updated_ms >= ?2",
                    )?
                    .query_row(params![owner, updated_since_ms], |r| r.get(0))?;
                Ok(u64::try_from(count).unwrap_or(0))
            })
            .await
    }
}

/// A session's row from a `SELECT id, owner, cwd, title, created_ms, updated_ms, state`.
fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow::new(
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
    ))
}

/// Applies `batch` in one transaction, each run of appends as chunks.
fn commit(conn: &mut Connection, batch: &[Write]) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    for step in steps(batch) {
        match step {
            Step::Appends(run) => history::append(&tx, &run)?,
            Step::One(write) => write_one(&tx, write)?,
            _ => {}
        }
    }
    tx.commit()
}

/// Applies one write other than an append.
fn write_one(tx: &rusqlite::Transaction<'_>, write: &Write) -> rusqlite::Result<()> {
    match write {
        Write::Upsert(r) => {
            tx.prepare_cached(
                "INSERT INTO sessions (id, owner, cwd, title, created_ms, updated_ms, state)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, cwd = excluded.cwd,
                   title = excluded.title, created_ms = excluded.created_ms,
                   updated_ms = excluded.updated_ms, state = excluded.state",
            )?
            .execute(params![
                r.id,
                r.owner,
                r.cwd,
                r.title,
                r.created_ms,
                r.updated_ms,
                r.state
            ])?;
        }
        Write::Trim { id, keep_from } => history::trim(tx, id, *keep_from)?,
        Write::ClearHistory { id } => history::clear(tx, id)?,
        Write::Delete { id } => {
            history::clear(tx, id)?;
            tx.prepare_cached("DELETE FROM sessions WHERE id = ?1")?
                .execute(params![id])?;
        }
        Write::Expire { updated_before_ms } => {
            history::expire(tx, *updated_before_ms)?;
            tx.prepare_cached("DELETE FROM sessions WHERE updated_ms < ?1")?
                .execute(params![updated_before_ms])?;
        }
        _ => {
            tracing::error!(?write, "a change this backend does not know: not written");
        }
    }
    Ok(())
}

/// Session `id` and its history.
fn load(conn: &mut Connection, id: &str) -> rusqlite::Result<Option<StoredSession>> {
    let tx = conn.transaction()?;
    let found = tx
        .prepare_cached(
            "SELECT id, owner, cwd, title, created_ms, updated_ms, state FROM sessions
             WHERE id = ?1",
        )?
        .query_row(params![id], row)
        .optional()?;
    let Some(found) = found else {
        return Ok(None);
    };
    let history = history::read(&tx, id)?;
    tx.commit()?;
    Ok(Some(StoredSession::new(found, history)))
}
