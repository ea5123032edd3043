//! The tables and the statements, prepared once per connection. Every value from a client is
//! a bound parameter.

use tokio_postgres::{Client, Error, Statement};

/// The tables, made when missing when a backend opens; under a lock, so that nodes starting
/// together do not race to make them.
pub(crate) const TABLES: &str = "
BEGIN;
SELECT pg_advisory_xact_lock(4708526393851625473);
-- Half of each page left free, and no index on `updated_ms`: the upsert that each commit makes
-- of a session it recorded into changes no indexed column, so PostgreSQL writes the new row
-- version on the same page without touching any index (a HOT update). The idle expiry, once a
-- minute, scans the table instead.
CREATE TABLE IF NOT EXISTS acp_sessions (
    id TEXT PRIMARY KEY,
    owner TEXT,
    cwd TEXT NOT NULL,
    title TEXT,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    state TEXT NOT NULL
) WITH (fillfactor = 50);
CREATE INDEX IF NOT EXISTS acp_sessions_by_owner ON acp_sessions (owner, created_ms, id);
CREATE INDEX IF NOT EXISTS acp_sessions_by_cwd ON acp_sessions (owner, cwd, created_ms, id);
DO $$
BEGIN
    -- The histories in chunks (see `chunks`): one row per stretch of consecutive updates. A
    -- chunk stays in its row, uncompressed, up to a page (the default compresses rows past
    -- 2 KiB: pglz then took half of the database's CPU under load); a larger one goes to the
    -- TOAST table as it is. Altered only when made: an open takes no table lock.
    IF to_regclass('acp_history_chunks') IS NULL THEN
        CREATE TABLE acp_history_chunks (
            session TEXT NOT NULL,
            first_seq BIGINT NOT NULL,
            last_seq BIGINT NOT NULL,
            updates TEXT[] NOT NULL,
            PRIMARY KEY (session, first_seq)
        ) WITH (toast_tuple_target = 8160);
        ALTER TABLE acp_history_chunks ALTER COLUMN updates SET STORAGE EXTERNAL;
    END IF;
    -- A database of the first layout (one row per update in `acp_history`, an index on the
    -- sessions' last use) moves to chunks of one update each, in this transaction; the nodes
    -- of a cluster upgrade together (an older node finds its table gone and fails its commits
    -- loudly, losing nothing already written).
    IF to_regclass('acp_history') IS NOT NULL THEN
        INSERT INTO acp_history_chunks (session, first_seq, last_seq, updates)
            SELECT session, seq, seq, ARRAY[update_json] FROM acp_history;
        DROP TABLE acp_history;
        DROP INDEX IF EXISTS acp_sessions_by_use;
        ALTER TABLE acp_sessions SET (fillfactor = 50);
    END IF;
END
$$;
COMMIT;
";

/// The prepared statements of one connection.
pub(crate) struct Statements {
    /// Inserts or replaces sessions' rows: the arrays of their columns.
    pub(crate) upsert: Statement,
    /// Writes a stretch's chunks; returns the sessions left for the slow path.
    pub(crate) append: Statement,
    /// Deletes a session's chunks wholly below a number.
    pub(crate) trim: Statement,
    /// Cuts a session's chunk across a number to start there.
    pub(crate) cut: Statement,
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
        let (upsert, append, trim, cut, clear) = futures::try_join!(
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
            // A stretch's chunks in one statement (see `chunks::Chunks` for the arrays: a
            // chunk's updates joined into one value, split here; a chunk that could not be
            // joined, a slice of `$6`), but for the sessions with a kept chunk that one of
            // theirs overlaps: those are not written, and returned for the slow path.
            client.prepare(
                "WITH c AS (
                   SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[],
                                        $5::int[])
                     AS c(session, first_seq, last_seq, joined, start)
                 ), clash AS (
                   SELECT DISTINCT c.session FROM c WHERE EXISTS (
                     SELECT 1 FROM (SELECT h.last_seq FROM acp_history_chunks h
                                    WHERE h.session = c.session AND h.first_seq <= c.last_seq
                                    ORDER BY h.first_seq DESC LIMIT 1) AS before
                     WHERE before.last_seq >= c.first_seq)
                 ), written AS (
                   INSERT INTO acp_history_chunks (session, first_seq, last_seq, updates)
                   SELECT c.session, c.first_seq, c.last_seq,
                          CASE WHEN c.joined IS NULL
                            THEN ($6::text[])[c.start : c.start + (c.last_seq - c.first_seq)::int]
                            ELSE string_to_array(c.joined, E'\\x1e') END -- chunks::SEPARATOR
                   FROM c WHERE c.session NOT IN (SELECT session FROM clash)
                 )
                 SELECT session FROM clash"
            ),
            // A trim: the chunks wholly below the number go, the one across it is cut.
            client.prepare("DELETE FROM acp_history_chunks WHERE session = $1 AND last_seq < $2"),
            client.prepare(
                "UPDATE acp_history_chunks SET first_seq = $2,
                   updates = updates[($2 - first_seq + 1)::int :]
                 WHERE session = $1 AND first_seq < $2 AND last_seq >= $2"
            ),
            client.prepare("DELETE FROM acp_history_chunks WHERE session = $1"),
        )?;
        let (delete, expire_history) = futures::try_join!(
            client.prepare("DELETE FROM acp_sessions WHERE id = $1"),
            client.prepare(
                "DELETE FROM acp_history_chunks WHERE session IN
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
                "SELECT first_seq, last_seq, updates FROM acp_history_chunks WHERE session = $1
                 ORDER BY first_seq"
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
            cut,
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
