//! A shared durable session store for `acp-agent` in PostgreSQL: several agent processes,
//! on several machines behind a load balancer, serve the same sessions; any of them lists,
//! loads and resumes a session another one made, and a session outlives the process that
//! served it.
//!
//! ```no_run
//! use acp_agent::{DurableOptions, SessionState, SessionStore};
//! use acp_store_postgres::PostgresBackend;
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
//! // The tables are made (or checked) when the backend opens.
//! let backend = PostgresBackend::open("postgres://acp@127.0.0.1/acp").await?;
//! let store: SessionStore<Session> = SessionStore::durable(backend, DurableOptions::DEFAULT)?;
//! // Each user's view, on every node: the owner is kept with the session.
//! let alice = store.owned_by("alice");
//! let id = alice.create_async(Session { cwd: "/home/alice".into() }).await?;
//! alice.flush().await?;
//! // Another node with the same database: `alice.fetch(&id)` takes the session up there.
//! # let _ = id;
//! # Ok(()) }
//! ```
//!
//! # Why a crate of its own
//!
//! The PostgreSQL client and its dependencies are built only by agents that share sessions
//! between processes: `acp-agent` defines the [`Backend`] trait, this crate implements it.
//!
//! # Connections
//!
//! A small pool ([`MAX_CONNECTIONS`]) of connections made on demand, each with its
//! statements prepared once; the queries of a batch are pipelined in one transaction, the
//! batch's upserts and appends as one multi-row statement each (arrays through `unnest`).
//!
//! # Layout
//!
//! One row per session (`acp_sessions`), and its history in chunks (`acp_history_chunks`): one
//! row per stretch of consecutive updates that one commit wrote, so a commit adds a row per
//! session it recorded into, not a row per update. The session rows have no index on their
//! last use, so the upsert of each commit is a HOT update (no index touched). A database of
//! the first layout (one row per update in `acp_history`) moves to chunks when a backend opens
//! it.
//!
//! # Failures
//!
//! A connection that fails is dropped and made again on the next call: the store's writer
//! retries with backoff while the server is down, so it reconnects by itself. Every value is a
//! bound parameter. No TLS: put the server on a private network or a local socket. A stored
//! chunk whose updates are not as many as its numbers say is a permanent error, never read
//! as something else.

mod chunks;
mod statements;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use acp_agent::backend::{Backend, BackendError, ListQuery, SessionRow, StoredSession, Write};
use async_trait::async_trait;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, NoTls};

use chunks::{Appends, Chunks, big};
use statements::Statements;

/// The most connections a backend keeps open.
pub const MAX_CONNECTIONS: usize = 4;

/// One connection and its prepared statements.
struct Conn {
    client: Client,
    statements: Statements,
}

/// The sessions of a durable [`SessionStore`](acp_agent::SessionStore) in a PostgreSQL
/// database, shared by every process that opens it.
pub struct PostgresBackend {
    config: Config,
    idle: Mutex<Vec<Conn>>,
}

impl fmt::Debug for PostgresBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresBackend")
            .field("hosts", &self.config.get_hosts())
            .field("dbname", &self.config.get_dbname())
            .finish_non_exhaustive()
    }
}

impl PostgresBackend {
    /// Connects to the database at `url` (`postgres://user:password@host:port/dbname`, or the
    /// `key=value` form) and makes its tables when they are not there.
    ///
    /// # Errors
    ///
    /// A malformed `url`, a server that does not answer or refuses, tables that cannot be made.
    pub async fn open(url: &str) -> Result<Self, BackendError> {
        let config: Config = url
            .parse()
            .map_err(|e| BackendError::permanent(format_args!("invalid PostgreSQL url: {e}")))?;
        let backend = Self {
            config,
            idle: Mutex::new(Vec::new()),
        };
        let (client, connection) = backend.config.connect(NoTls).await.map_err(transient)?;
        let task = tokio::spawn(connection);
        client
            .batch_execute(statements::TABLES)
            .await
            .map_err(permanent)?;
        drop(client);
        let _ = task.await;
        let conn = backend.connect().await?;
        backend.give_back(conn);
        Ok(backend)
    }

    /// A new connection, its statements prepared.
    async fn connect(&self) -> Result<Conn, BackendError> {
        let (client, connection) = self.config.connect(NoTls).await.map_err(transient)?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::warn!(%error, "a connection to the session database ended");
            }
        });
        let statements = Statements::prepare(&client).await.map_err(transient)?;
        Ok(Conn { client, statements })
    }

    /// An idle connection, or a new one.
    async fn take(&self) -> Result<Conn, BackendError> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        match idle {
            Some(conn) if !conn.client.is_closed() => Ok(conn),
            _ => self.connect().await,
        }
    }

    /// Keeps `conn` for the next call (unless it broke, or the pool is full).
    fn give_back(&self, conn: Conn) {
        if conn.client.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < MAX_CONNECTIONS {
            idle.push(conn);
        }
    }
}

/// A failure that trying again may mend (the server is down, the connection broke).
fn transient(error: tokio_postgres::Error) -> BackendError {
    BackendError::transient(format_args!("the session database failed: {error}"))
}

/// A failure of the tables themselves.
fn permanent(error: tokio_postgres::Error) -> BackendError {
    BackendError::permanent(format_args!("the session database refused: {error}"))
}

#[async_trait]
impl Backend for PostgresBackend {
    async fn commit(&self, batch: Vec<Write>) -> Result<(), BackendError> {
        let mut conn = self.take().await?;
        let result = commit(&mut conn, &batch).await;
        self.give_back(conn);
        result
    }

    async fn load(&self, id: &str) -> Result<Option<StoredSession>, BackendError> {
        let conn = self.take().await?;
        let s = &conn.statements;
        let result = async {
            let Some(found) = conn
                .client
                .query_opt(&s.load, &[&id])
                .await
                .map_err(transient)?
            else {
                return Ok(None);
            };
            let mut history = Vec::new();
            for chunk in conn
                .client
                .query(&s.history, &[&id])
                .await
                .map_err(transient)?
            {
                chunks::read_chunk(&chunk, |seq, update| history.push((seq, update)))?;
            }
            Ok(Some(StoredSession::new(
                row(&found).map_err(transient)?,
                history,
            )))
        }
        .await;
        self.give_back(conn);
        result
    }

    async fn list(&self, query: &ListQuery<'_>) -> Result<Vec<SessionRow>, BackendError> {
        let conn = self.take().await?;
        let (after_ms, after_id) = match query.after {
            Some((ms, id)) => (Some(ms), Some(id)),
            None => (None, None),
        };
        let limit = big(query.limit as u64);
        let result = conn
            .client
            .query(
                &conn.statements.list,
                &[
                    &query.owner,
                    &query.cwd,
                    &after_ms,
                    &after_id,
                    &query.updated_since_ms,
                    &limit,
                ],
            )
            .await
            .and_then(|rows| rows.iter().map(row).collect());
        self.give_back(conn);
        result.map_err(transient)
    }

    async fn count(&self, owner: Option<&str>, updated_since_ms: i64) -> Result<u64, BackendError> {
        let conn = self.take().await?;
        let result = conn
            .client
            .query_one(&conn.statements.count, &[&owner, &updated_since_ms])
            .await
            .and_then(|r| r.try_get::<_, i64>(0));
        self.give_back(conn);
        result
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(transient)
    }
}

/// A session's row from a `SELECT id, owner, cwd, title, created_ms, updated_ms, state`.
fn row(r: &tokio_postgres::Row) -> Result<SessionRow, tokio_postgres::Error> {
    Ok(SessionRow::new(
        r.try_get(0)?,
        r.try_get(1)?,
        r.try_get(2)?,
        r.try_get(3)?,
        r.try_get(4)?,
        r.try_get(5)?,
        r.try_get(6)?,
    ))
}

/// The rows of the upserts of a stretch of a batch, as the arrays their statement binds: one
/// per session (its last upsert of the stretch).
#[derive(Default)]
struct Rows<'a> {
    at: HashMap<&'a str, usize>,
    ids: Vec<&'a str>,
    owners: Vec<Option<&'a str>>,
    cwds: Vec<&'a str>,
    titles: Vec<Option<&'a str>>,
    created: Vec<i64>,
    updated: Vec<i64>,
    states: Vec<&'a str>,
}

impl<'a> Rows<'a> {
    fn push(&mut self, r: &'a SessionRow) {
        if let Some(&i) = self.at.get(r.id.as_str()) {
            self.owners[i] = r.owner.as_deref();
            self.cwds[i] = &r.cwd;
            self.titles[i] = r.title.as_deref();
            self.created[i] = r.created_ms;
            self.updated[i] = r.updated_ms;
            self.states[i] = &r.state;
            return;
        }
        self.at.insert(&r.id, self.ids.len());
        self.ids.push(&r.id);
        self.owners.push(r.owner.as_deref());
        self.cwds.push(&r.cwd);
        self.titles.push(r.title.as_deref());
        self.created.push(r.created_ms);
        self.updated.push(r.updated_ms);
        self.states.push(&r.state);
    }
}

/// A batch as its statements: the upserts and appends between two other writes each gathered
/// into one statement (an upsert touches only the sessions' table, an append only the
/// histories', so they commute; the writes that touch both, or trim, stay where they were).
enum Planned<'a> {
    Upserts(Rows<'a>),
    Appends(Appends<'a>),
    One(&'a Write, i64),
}

/// Ends a stretch: its upserts, then its appends, as one statement each.
fn flush<'a>(plan: &mut Vec<Planned<'a>>, rows: &mut Rows<'a>, appends: &mut Appends<'a>) {
    if !rows.ids.is_empty() {
        plan.push(Planned::Upserts(std::mem::take(rows)));
    }
    if !appends.is_empty() {
        plan.push(Planned::Appends(std::mem::take(appends)));
    }
}

/// `batch` as [`Planned`] statements, in an order with the same result.
fn plan(batch: &[Write]) -> Vec<Planned<'_>> {
    let mut plan = Vec::new();
    let mut rows = Rows::default();
    let mut appends = Appends::default();
    for write in batch {
        match write {
            Write::Upsert(r) => rows.push(r),
            Write::Append { id, seq, update } => appends.push(id, *seq, update),
            other => {
                flush(&mut plan, &mut rows, &mut appends);
                let n = match other {
                    Write::Trim { keep_from, .. } => big(*keep_from),
                    _ => 0,
                };
                plan.push(Planned::One(other, n));
            }
        }
    }
    flush(&mut plan, &mut rows, &mut appends);
    plan
}

/// Applies `batch` in one transaction, its statements pipelined: a handful of statements for
/// a batch of upserts and appends, however many sessions it touches. The statements up to a
/// stretch of appends go out together with it; the stretch's answer (the sessions whose new
/// updates overlap kept ones) is awaited, and those sessions take the slow path, before the
/// rest of the batch.
async fn commit(conn: &mut Conn, batch: &[Write]) -> Result<(), BackendError> {
    let s = &conn.statements;
    // The values the queries borrow, living as long as them.
    let plan = plan(batch);
    let chunks: Vec<Option<Chunks<'_>>> = plan
        .iter()
        .map(|planned| match planned {
            Planned::Appends(appends) => Some(appends.chunks()),
            _ => None,
        })
        .collect();
    let tx = conn.client.transaction().await.map_err(transient)?;
    let mut pending = Vec::with_capacity(plan.len() + 1);
    for (planned, chunked) in plan.iter().zip(&chunks) {
        let write = match (planned, chunked) {
            (Planned::Upserts(r), _) => {
                pending.push(tx.execute_raw(
                    &s.upsert,
                    params([
                        &r.ids, &r.owners, &r.cwds, &r.titles, &r.created, &r.updated, &r.states,
                    ]),
                ));
                continue;
            }
            (Planned::Appends(appends), Some(c)) => {
                // In order on the one connection: what came before, then the stretch.
                let values = c.params();
                let (_, clashes) = futures::try_join!(
                    futures::future::try_join_all(std::mem::take(&mut pending)),
                    tx.query(&s.append, &values),
                )
                .map_err(transient)?;
                for clash in &clashes {
                    let id: &str = clash.try_get(0).map_err(transient)?;
                    rewrite(&tx, s, id, appends.of(id)).await?;
                }
                continue;
            }
            (Planned::Appends(_), None) => continue,
            (Planned::One(write, n), _) => (*write, n),
        };
        match write {
            (Write::Trim { id, .. }, n) => {
                pending.push(tx.execute_raw(&s.trim, params([id, n])));
                pending.push(tx.execute_raw(&s.cut, params([id, n])));
            }
            (Write::ClearHistory { id }, _) => {
                pending.push(tx.execute_raw(&s.clear, params([id])));
            }
            (Write::Delete { id }, _) => {
                pending.push(tx.execute_raw(&s.clear, params([id])));
                pending.push(tx.execute_raw(&s.delete, params([id])));
            }
            (Write::Expire { updated_before_ms }, _) => {
                pending.push(tx.execute_raw(&s.expire_history, params([updated_before_ms])));
                pending.push(tx.execute_raw(&s.expire, params([updated_before_ms])));
            }
            (write, _) => {
                tracing::error!(?write, "a change this backend does not know: not written");
            }
        }
    }
    // Sent in order on the one connection, answered in order: one round trip for the rest.
    futures::future::try_join_all(pending)
        .await
        .map_err(transient)?;
    tx.commit().await.map_err(transient)
}

/// The slow path of session `id`, whose `appends` overlap its kept chunks (they replace kept
/// updates): its history read, the appends laid over it, and written back as fresh chunks.
async fn rewrite(
    tx: &tokio_postgres::Transaction<'_>,
    s: &Statements,
    id: &str,
    appends: &[(u64, &str)],
) -> Result<(), BackendError> {
    let kept = tx.query(&s.history, &[&id]).await.map_err(transient)?;
    let all = chunks::merged(&kept, appends)?;
    let mut fresh = Chunks::default();
    fresh.add(id, all.iter().map(|(seq, update)| (*seq, update.as_str())));
    let (key, values) = ([&id as &(dyn ToSql + Sync)], fresh.params());
    let (_, clashes) = futures::try_join!(tx.execute(&s.clear, &key), tx.query(&s.append, &values))
        .map_err(transient)?;
    if clashes.is_empty() {
        Ok(())
    } else {
        Err(BackendError::permanent(format_args!(
            "the history of session {id} could not be written back"
        )))
    }
}

/// A statement's parameters, moved into its query (one type for every statement, so that the
/// queries of a batch wait together).
fn params<const N: usize>(values: [&(dyn ToSql + Sync); N]) -> Vec<&(dyn ToSql + Sync)> {
    values.to_vec()
}
