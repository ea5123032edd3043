//! The tables and the statements, prepared once per connection. Every value from a client is
//! a bound parameter.

use tokio_postgres::{Client, Error, Statement};

/// The tables, made when missing when a backend opens; under a lock, so that nodes starting
/// together do not race to make them.
pub(crate) const TABLES: &str = "
BEGIN;
SELECT pg_advisory_xact_lock(4708526393851625473);
CREATE TABLE IF NOT EXISTS acp_sessions (
    id TEXT PRIMARY KEY,
    owner TEXT,
    cwd TEXT NOT NULL,
    title TEXT,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    state TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS acp_sessions_by_owner ON acp_sessions (owner, created_ms, id);
CREATE INDEX IF NOT EXISTS acp_sessions_by_cwd ON acp_sessions (owner, cwd, created_ms, id);
CREATE INDEX IF NOT EXISTS acp_sessions_by_use ON acp_sessions (updated_ms);
CREATE TABLE IF NOT EXISTS acp_history (
    session TEXT NOT NULL,
    seq BIGINT NOT NULL,
    update_json TEXT NOT NULL,
    PRIMARY KEY (session, seq)
);
COMMIT;
";

/// The prepared statements of one connection.
pub(crate) struct Statements {
    /// Inserts or replaces sessions' rows: the arrays of their columns.
    pub(crate) upsert: Statement,
    /// Appends a run of updates: the arrays of their sessions, seqs and JSON.
    pub(crate) append: Statement,
    pub(crate) trim: Statement,
    pub(crate) clear: Statement,
    pub(crate) delete: Statement,
    pub(crate) expire_history: Statement,
    pub(crate) expire: Statement,
    pub(crate) load: Statement,
    pub(crate) history: Statement,
    pub(crate) list: Statement,
    pub(crate) count: Statement,
}

impl Statements {
    /// Prepares them on `client` (pipelined).
    pub(crate) async fn prepare(client: &Client) -> Result<Self, Error> {
        let (upsert, append, trim, clear, delete, expire_history) = futures::try_join!(
            // Many sessions' rows in one statement: the arrays of their columns, no session
            // twice (one statement may not update a row twice).
            client.prepare(
                "INSERT INTO acp_sessions (id, owner, cwd, title, created_ms, updated_ms, state)
                 SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],
                                      $5::bigint[], $6::bigint[], $7::text[])
                 ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, cwd = excluded.cwd,
                   title = excluded.title, created_ms = excluded.created_ms,
                   updated_ms = excluded.updated_ms, state = excluded.state"
            ),
            // A run of appends in one statement (one execution for the batch's updates, not
            // one per update); no (session, seq) twice in it (see `backend::steps`).
            client.prepare(
                "INSERT INTO acp_history (session, seq, update_json)
                 SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
                 ON CONFLICT (session, seq) DO UPDATE SET update_json = excluded.update_json"
            ),
            client.prepare("DELETE FROM acp_history WHERE session = $1 AND seq < $2"),
            client.prepare("DELETE FROM acp_history WHERE session = $1"),
            client.prepare("DELETE FROM acp_sessions WHERE id = $1"),
            client.prepare(
                "DELETE FROM acp_history WHERE session IN
                   (SELECT id FROM acp_sessions WHERE updated_ms < $1)"
            ),
        )?;
        let (expire, load, history, list, count) = futures::try_join!(
            client.prepare("DELETE FROM acp_sessions WHERE updated_ms < $1"),
            client.prepare(
                "SELECT id, owner, cwd, title, created_ms, updated_ms, state FROM acp_sessions
                 WHERE id = $1"
            ),
            client.prepare(
                "SELECT seq, update_json FROM acp_history WHERE session = $1 ORDER BY seq"
            ),
            client.prepare(
                "SELECT id, owner, cwd, title, created_ms, updated_ms, state FROM acp_sessions
                 WHERE ($1::text IS NULL OR owner = $1)
                   AND ($2::text IS NULL OR cwd = $2)
                   AND ($3::bigint IS NULL OR (created_ms, id) > ($3, $4::text))
                   AND updated_ms >= $5
                 ORDER BY created_ms, id LIMIT $6"
            ),
            client.prepare(
                "SELECT count(*) FROM acp_sessions
                 WHERE ($1::text IS NULL OR owner = $1) AND updated_ms >= $2"
            ),
        )?;
        Ok(Self {
            upsert,
            append,
            trim,
            clear,
            delete,
            expire_history,
            expire,
            load,
            history,
            list,
            count,
        })
    }
}
