//! Opening the file: the pragmas (WAL, `synchronous=NORMAL`), the check that it is ours, the
//! tables, and the move of a file of the first layout (one row per update) to the chunked one.

use std::path::Path;
use std::time::Duration;

use acp_agent::backend::BackendError;
use rusqlite::{Connection, OpenFlags};

use crate::history;
use crate::worker::classify;

/// The `application_id` our files carry (`ACPS`): a SQLite file of another program is refused
/// rather than written into.
const APPLICATION_ID: i32 = 0x4143_5053;

/// The version of the tables this crate makes (`user_version`): 2 keeps the histories in
/// chunks (see [`history`](crate::history)); 1 kept one row per update, and a file of it is
/// moved to 2 when opened.
const VERSION: i32 = 2;

/// How many pages the write-ahead log grows to before a commit copies them into the file (a
/// checkpoint, with its sync of the log): 4,096 pages of 4 KiB, 16 MiB of log at most
/// between checkpoints (SQLite's default is 1,000).
const WAL_PAGES: i64 = 4096;

/// How long a statement waits for another connection's lock before it fails (transient).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The tables: one row per session, one per chunk of a session's history, one per session
/// whose history was trimmed. Every value from a client is a bound parameter in the queries;
/// these are the only statements built as text.
const TABLES: &str = "
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY NOT NULL,
    owner TEXT,
    cwd TEXT NOT NULL,
    title TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    state TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner, created_ms, id);
CREATE INDEX IF NOT EXISTS sessions_by_cwd ON sessions (owner, cwd, created_ms, id);
CREATE INDEX IF NOT EXISTS sessions_by_use ON sessions (updated_ms);
CREATE TABLE IF NOT EXISTS history_chunks (
    session TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    updates BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS history_chunks_by_session ON history_chunks (session, last_seq);
CREATE TABLE IF NOT EXISTS history_floor (
    session TEXT PRIMARY KEY NOT NULL,
    keep_from INTEGER NOT NULL
) WITHOUT ROWID;
";

/// Opens (or makes) the store at `path`.
pub(crate) fn open(path: &Path) -> Result<Connection, BackendError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(path, flags).map_err(|e| {
        BackendError::permanent(format_args!(
            "cannot open the session database {}: {e}",
            path.display()
        ))
    })?;
    let refuse = |what: &str| {
        BackendError::permanent(format_args!(
            "{} is not a session database of acp-rs: {what}",
            path.display()
        ))
    };
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| classify(&e))?;
    // The first read of the file: a corrupt file or another kind of file fails here.
    let id: i32 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(|e| refuse(&e.to_string()))?;
    let version: i32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| refuse(&e.to_string()))?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(|e| refuse(&e.to_string()))?;
    match id {
        APPLICATION_ID if version > VERSION => {
            return Err(BackendError::permanent(format_args!(
                "{} was made by a newer version (tables version {version}; this one knows {VERSION})",
                path.display()
            )));
        }
        APPLICATION_ID => {}
        0 if tables == 0 => {}
        0 => return Err(refuse("it holds another program's tables")),
        other => return Err(refuse(&format!("its application id is {other:#x}"))),
    }
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "wal", |r| r.get(0))
        .map_err(|e| classify(&e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(BackendError::permanent(format_args!(
            "{}: cannot use a write-ahead log (journal mode {mode})",
            path.display()
        )));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(|e| classify(&e))?;
    // Fewer, larger checkpoints: a history rewrites the same few pages over and over (chunks
    // come and go), and a checkpoint copies each page once however often the log holds it.
    conn.pragma_update(None, "wal_autocheckpoint", WAL_PAGES)
        .map_err(|e| classify(&e))?;
    if id == APPLICATION_ID && version == 1 {
        migrate_from_rows(&mut conn).map_err(|e| {
            BackendError::permanent(format_args!(
                "{}: cannot move its history to the chunked layout: {e}",
                path.display()
            ))
        })?;
    }
    conn.execute_batch(TABLES)
        .map_err(|e| refuse(&e.to_string()))?;
    conn.pragma_update(None, "application_id", APPLICATION_ID)
        .map_err(|e| classify(&e))?;
    conn.pragma_update(None, "user_version", VERSION)
        .map_err(|e| classify(&e))?;
    Ok(conn)
}

/// Moves a file of the first layout (`history`: one row per update) to chunks, in one
/// transaction: a process killed during the move leaves the file as it was.
fn migrate_from_rows(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    tx.execute_batch(TABLES)?;
    let old: i64 = tx.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'history'",
        [],
        |r| r.get(0),
    )?;
    if old == 1 {
        {
            let mut statement =
                tx.prepare("SELECT session, seq, update_json FROM history ORDER BY session, seq")?;
            let mut found = statement.query([])?;
            // One session's updates at a time (a history is bounded).
            let mut session: Option<(String, Vec<(u64, String)>)> = None;
            while let Some(row) = found.next()? {
                let id: String = row.get(0)?;
                let n = u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0);
                let update: String = row.get(2)?;
                match &mut session {
                    Some((current, updates)) if *current == id => updates.push((n, update)),
                    _ => {
                        if let Some((done, updates)) = session.replace((id, vec![(n, update)])) {
                            history::insert_runs(&tx, &done, &updates)?;
                        }
                    }
                }
            }
            if let Some((done, updates)) = session {
                history::insert_runs(&tx, &done, &updates)?;
            }
        }
        tx.execute_batch("DROP TABLE history")?;
    }
    tx.pragma_update(None, "user_version", VERSION)?;
    tx.commit()
}
