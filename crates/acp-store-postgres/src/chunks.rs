//! Histories in chunks: consecutive updates of one session in one row (`acp_history_chunks`:
//! the session, the first and last sequence numbers, the updates' JSON as a `text[]`), so that
//! a commit writes one row and one index entry per session and stretch of updates instead of
//! one per update (the rows and B-tree inserts that dominated the database's CPU in S5 with
//! every update recorded).
//!
//! The chunks of a session never overlap. A trim deletes the chunks wholly below its number
//! and cuts the one that straddles it (an array slice, in SQL); an append that lands inside a
//! kept chunk (it replaces a kept update) takes the slow path: the session's chunks are read,
//! the new updates laid over them, and the session's history written back whole.

use std::collections::{BTreeMap, HashMap};

use acp_agent::backend::BackendError;
use tokio_postgres::types::ToSql;

/// The most updates one chunk holds: a chunk stays a few tens of KiB for typical updates, and
/// a trim that cuts one copies at most this many.
pub(crate) const MAX_UPDATES: usize = 256;

/// The appends of a stretch of a batch, by session, in the order they came: one per
/// `(session, seq)` (the last one).
#[derive(Default)]
pub(crate) struct Appends<'a> {
    /// Where each session's appends are in `sessions`.
    at: HashMap<&'a str, usize>,
    sessions: Vec<(&'a str, Vec<(u64, &'a str)>)>,
}

impl<'a> Appends<'a> {
    /// Adds update `seq` of session `id`; it replaces one of the same number in the stretch.
    pub(crate) fn push(&mut self, id: &'a str, seq: u64, update: &'a str) {
        let slot = *self.at.entry(id).or_insert_with(|| {
            self.sessions.push((id, Vec::new()));
            self.sessions.len() - 1
        });
        let updates = &mut self.sessions[slot].1;
        // A session's numbers rise: only a number not above the last can be a repeat.
        if updates.last().is_some_and(|&(last, _)| seq <= last)
            && let Some(kept) = updates.iter_mut().find(|(n, _)| *n == seq)
        {
            kept.1 = update;
            return;
        }
        updates.push((seq, update));
    }

    /// True when the stretch has no append.
    pub(crate) fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Session `id`'s appends in this stretch.
    pub(crate) fn of(&self, id: &str) -> &[(u64, &'a str)] {
        self.at.get(id).map_or(&[], |&slot| &self.sessions[slot].1)
    }

    /// The stretch as chunks.
    pub(crate) fn chunks(&self) -> Chunks<'a> {
        let mut chunks = Chunks::default();
        for (id, updates) in &self.sessions {
            chunks.add(id, updates.iter().copied());
        }
        chunks
    }
}

/// Chunks as the arrays the append statement binds: per chunk its session, first and last
/// numbers and where its updates start (1-based) in the flat `updates`.
#[derive(Default)]
pub(crate) struct Chunks<'a> {
    pub(crate) ids: Vec<&'a str>,
    pub(crate) firsts: Vec<i64>,
    pub(crate) lasts: Vec<i64>,
    pub(crate) starts: Vec<i32>,
    pub(crate) updates: Vec<&'a str>,
}

impl<'a> Chunks<'a> {
    /// The parameters of the append statement.
    pub(crate) fn params(&self) -> [&(dyn ToSql + Sync); 5] {
        [
            &self.ids,
            &self.firsts,
            &self.lasts,
            &self.starts,
            &self.updates,
        ]
    }

    /// Adds session `id`'s `updates` (in order) as chunks: a new one at each number that does
    /// not follow the one before, and every [`MAX_UPDATES`].
    pub(crate) fn add(&mut self, id: &'a str, updates: impl Iterator<Item = (u64, &'a str)>) {
        let mut open: Option<(u64, usize)> = None; // (last number, updates in the chunk)
        for (seq, update) in updates {
            match &mut open {
                Some((last, len)) if last.checked_add(1) == Some(seq) && *len < MAX_UPDATES => {
                    *last = seq;
                    *len += 1;
                    if let Some(top) = self.lasts.last_mut() {
                        *top = big(seq);
                    }
                }
                _ => {
                    open = Some((seq, 1));
                    self.ids.push(id);
                    self.firsts.push(big(seq));
                    self.lasts.push(big(seq));
                    // Past 2^31 updates in one batch the statement would be refused anyway.
                    self.starts
                        .push(i32::try_from(self.updates.len() + 1).unwrap_or(i32::MAX));
                }
            }
            self.updates.push(update);
        }
    }
}

/// Session `id`'s history read back from its chunks (`first_seq, last_seq, updates`, in
/// order), with `laid_over` replacing or adding updates: what the slow path writes back.
pub(crate) fn merged(
    rows: &[tokio_postgres::Row],
    laid_over: &[(u64, &str)],
) -> Result<BTreeMap<u64, String>, BackendError> {
    let mut all = BTreeMap::new();
    for row in rows {
        read_chunk(row, |seq, update| {
            all.insert(seq, update);
        })?;
    }
    for &(seq, update) in laid_over {
        all.insert(seq, update.to_owned());
    }
    Ok(all)
}

/// Hands each update of a chunk row (`first_seq, last_seq, updates`) to `keep` with its number.
///
/// # Errors
///
/// A row whose updates are not as many as its numbers say (an altered table): the history is
/// corrupt, and the caller reports it rather than guessing.
pub(crate) fn read_chunk(
    row: &tokio_postgres::Row,
    mut keep: impl FnMut(u64, String),
) -> Result<(), BackendError> {
    let unreadable = |e: tokio_postgres::Error| {
        BackendError::transient(format_args!("the session database failed: {e}"))
    };
    let first = row.try_get::<_, i64>(0).map_err(unreadable)?;
    let last = row.try_get::<_, i64>(1).map_err(unreadable)?;
    let updates: Vec<String> = row.try_get(2).map_err(unreadable)?;
    let first = u64::try_from(first).ok();
    let span = first.and_then(|first| u64::try_from(last).ok()?.checked_sub(first)?.checked_add(1));
    let (Some(first), true) = (first, span == Some(updates.len() as u64)) else {
        return Err(BackendError::permanent(format_args!(
            "a stored history is corrupt: its chunk of updates {first:?}..={last} holds {} updates",
            updates.len()
        )));
    };
    for (seq, update) in (first..).zip(updates) {
        keep(seq, update);
    }
    Ok(())
}

/// A number as PostgreSQL's `bigint`.
pub(crate) fn big(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stretch_splits_at_gaps_sessions_and_the_chunk_bound() {
        let mut appends = Appends::default();
        appends.push("a", 0, "a0");
        appends.push("b", 7, "b7");
        appends.push("a", 1, "a1");
        appends.push("a", 1, "a1'"); // replaces the one before
        appends.push("a", 3, "a3"); // a gap: a chunk of its own
        for seq in 8..8 + MAX_UPDATES as u64 {
            appends.push("b", seq, "b");
        }
        let chunks = appends.chunks();
        assert_eq!(chunks.ids, ["a", "a", "b", "b"]);
        assert_eq!(chunks.firsts, [0, 3, 7, 7 + MAX_UPDATES as i64]);
        assert_eq!(
            chunks.lasts,
            [1, 3, 6 + MAX_UPDATES as i64, 7 + MAX_UPDATES as i64]
        );
        assert_eq!(chunks.starts, [1, 3, 4, 4 + MAX_UPDATES as i32]);
        assert_eq!(&chunks.updates[..4], ["a0", "a1'", "a3", "b7"]);
        assert_eq!(chunks.updates.len(), 3 + 1 + MAX_UPDATES);
        assert_eq!(appends.of("a"), [(0, "a0"), (1, "a1'"), (3, "a3")]);
        assert!(appends.of("c").is_empty());
    }
}
