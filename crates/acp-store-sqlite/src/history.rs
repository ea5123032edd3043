//! The sessions' histories in chunks (see [`chunk`](crate::chunk)): appending, trimming,
//! clearing and reading back, with the same results as one row per update.
//!
//! Two tables: `history_chunks` (one row per stretch of consecutive updates of a session; the
//! stretches of a session never overlap) and `history_floor` (per session, the oldest number
//! a trim kept). A trim deletes the chunks wholly below its number and raises the floor; the
//! updates below the floor in the chunk that straddles it are skipped when the history is
//! read, so a bounded history reads back exactly as bounded.

use std::collections::{BTreeMap, HashMap};

use acp_agent::backend::Appended;
use rusqlite::{OptionalExtension, Transaction, params};

use crate::chunk;

/// A sequence number as SQLite keeps it (a signed 64-bit integer).
pub(crate) fn seq(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A sequence number read back from SQLite.
fn unseq(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Keeps a run of appends (no `(session, seq)` twice in it, see `backend::steps`): each
/// session's updates of the run as chunks of consecutive numbers. An update that replaces a
/// kept one, or comes below the session's floor, takes the slow path that rewrites the
/// session's chunks.
pub(crate) fn append(tx: &Transaction<'_>, run: &[Appended<'_>]) -> rusqlite::Result<()> {
    // Each session's updates, in the order of the run (sessions in order of first update).
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut sessions: Vec<(&str, Vec<(u64, &str)>)> = Vec::new();
    for a in run {
        // Most runs are long stretches of one session: no lookup while it stays the same.
        let at = match sessions.last() {
            Some((id, _)) if *id == a.id => sessions.len() - 1,
            _ => *index.entry(a.id).or_insert_with(|| {
                sessions.push((a.id, Vec::new()));
                sessions.len() - 1
            }),
        };
        sessions[at].1.push((a.seq, a.update));
    }
    let mut tail = tx.prepare_cached(
        "SELECT (SELECT last_seq FROM history_chunks WHERE session = ?1
                 ORDER BY last_seq DESC LIMIT 1),
                (SELECT keep_from FROM history_floor WHERE session = ?1)",
    )?;
    for (id, updates) in &sessions {
        let (last, floor): (Option<i64>, Option<i64>) =
            tail.query_row(params![id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let first = updates[0].0;
        let rising = updates.windows(2).all(|w| w[0].0 < w[1].0);
        let after_last = last.is_none_or(|last| seq(first) > last);
        let above_floor = floor.is_none_or(|floor| seq(first) >= floor);
        if rising && after_last && above_floor {
            insert_runs(tx, id, updates)?;
        } else {
            rewrite(tx, id, updates)?;
        }
    }
    Ok(())
}

/// Inserts `updates` (rising numbers) as chunks, a new chunk at each gap in the numbers and
/// every [`chunk::MAX_UPDATES`].
pub(crate) fn insert_runs<S: AsRef<str>>(
    tx: &Transaction<'_>,
    id: &str,
    updates: &[(u64, S)],
) -> rusqlite::Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO history_chunks (session, first_seq, last_seq, updates) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let mut start = 0;
    while start < updates.len() {
        let mut end = start + 1;
        while end < updates.len()
            && end - start < chunk::MAX_UPDATES
            && updates[end - 1].0.checked_add(1) == Some(updates[end].0)
        {
            end += 1;
        }
        let stretch = &updates[start..end];
        let blob = chunk::encode(stretch.iter().map(|(_, u)| u.as_ref()))?;
        insert.execute(params![
            id,
            seq(stretch[0].0),
            seq(stretch[stretch.len() - 1].0),
            blob
        ])?;
        start = end;
    }
    Ok(())
}

/// The slow path: the session's kept updates with `updates` laid over them (a later update of
/// a number replaces the earlier one, as a row per update did), written back as fresh chunks
/// with no floor.
fn rewrite(tx: &Transaction<'_>, id: &str, updates: &[(u64, &str)]) -> rusqlite::Result<()> {
    let mut all: BTreeMap<u64, String> = read(tx, id)?.into_iter().collect();
    for (n, update) in updates {
        all.insert(*n, (*update).to_owned());
    }
    clear(tx, id)?;
    let all: Vec<(u64, String)> = all.into_iter().collect();
    insert_runs(tx, id, &all)
}

/// Forgets the session's updates numbered below `keep_from`.
pub(crate) fn trim(tx: &Transaction<'_>, id: &str, keep_from: u64) -> rusqlite::Result<()> {
    tx.prepare_cached("DELETE FROM history_chunks WHERE session = ?1 AND last_seq < ?2")?
        .execute(params![id, seq(keep_from)])?;
    tx.prepare_cached(
        "INSERT INTO history_floor (session, keep_from) VALUES (?1, ?2)
         ON CONFLICT (session) DO UPDATE SET keep_from = max(keep_from, excluded.keep_from)",
    )?
    .execute(params![id, seq(keep_from)])?;
    Ok(())
}

/// Forgets every update of the session.
pub(crate) fn clear(tx: &Transaction<'_>, id: &str) -> rusqlite::Result<()> {
    tx.prepare_cached("DELETE FROM history_chunks WHERE session = ?1")?
        .execute(params![id])?;
    tx.prepare_cached("DELETE FROM history_floor WHERE session = ?1")?
        .execute(params![id])?;
    Ok(())
}

/// Forgets the histories of the sessions last used before `updated_before_ms`.
pub(crate) fn expire(tx: &Transaction<'_>, updated_before_ms: i64) -> rusqlite::Result<()> {
    for table in [
        "DELETE FROM history_chunks WHERE session IN
           (SELECT id FROM sessions WHERE updated_ms < ?1)",
        "DELETE FROM history_floor WHERE session IN
           (SELECT id FROM sessions WHERE updated_ms < ?1)",
    ] {
        tx.prepare_cached(table)?
            .execute(params![updated_before_ms])?;
    }
    Ok(())
}

/// The session's kept updates as `(seq, JSON)`, oldest first.
pub(crate) fn read(tx: &Transaction<'_>, id: &str) -> rusqlite::Result<Vec<(u64, String)>> {
    let floor: Option<i64> = tx
        .prepare_cached("SELECT keep_from FROM history_floor WHERE session = ?1")?
        .query_row(params![id], |r| r.get(0))
        .optional()?;
    let from = floor.map_or(0, unseq);
    let mut statement = tx.prepare_cached(
        "SELECT first_seq, last_seq, updates FROM history_chunks WHERE session = ?1
         ORDER BY last_seq",
    )?;
    let mut rows = statement.query(params![id])?;
    let mut history = Vec::new();
    while let Some(row) = rows.next()? {
        let first = unseq(row.get(0)?);
        let last = unseq(row.get(1)?);
        let blob = row.get_ref(2)?.as_blob()?;
        chunk::decode(first, last, blob, from, |n, update| {
            history.push((n, update))
        })?;
    }
    Ok(history)
}
