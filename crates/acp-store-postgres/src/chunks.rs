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
use bytes::BytesMut;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};

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
/// numbers, its updates joined into one value ([`Joined`]), and, for a chunk that cannot be
/// joined, where its updates start (1-based) in `odd`.
///
/// Each chunk is one value of the statement's arrays, so PostgreSQL splits each on its own (a
/// pass over its bytes) instead of slicing one array of the whole stretch's updates, which
/// walks the array from its start for every chunk.
#[derive(Default)]
pub(crate) struct Chunks<'a> {
    pub(crate) ids: Vec<&'a str>,
    pub(crate) firsts: Vec<i64>,
    pub(crate) lasts: Vec<i64>,
    pub(crate) joined: Joined<'a>,
    /// Per chunk not joined: where its updates start in `odd` (1-based); 0 for the others.
    pub(crate) starts: Vec<i32>,
    /// The updates of the chunks not joined, in order.
    pub(crate) odd: Vec<&'a str>,
}

impl<'a> Chunks<'a> {
    /// The parameters of the append statement.
    pub(crate) fn params(&self) -> [&(dyn ToSql + Sync); 6] {
        [
            &self.ids,
            &self.firsts,
            &self.lasts,
            &self.joined,
            &self.starts,
            &self.odd,
        ]
    }

    /// Adds session `id`'s `updates` (in order) as chunks: a new one at each number that does
    /// not follow the one before, and every [`MAX_UPDATES`].
    pub(crate) fn add(&mut self, id: &'a str, updates: impl Iterator<Item = (u64, &'a str)>) {
        // (last number, updates in the chunk, whether one cannot be joined)
        let mut open: Option<(u64, usize, bool)> = None;
        for (seq, update) in updates {
            match &mut open {
                Some((last, len, _)) if last.checked_add(1) == Some(seq) && *len < MAX_UPDATES => {
                    *last = seq;
                    *len += 1;
                    if let Some(top) = self.lasts.last_mut() {
                        *top = big(seq);
                    }
                }
                _ => {
                    if let Some((_, len, odd)) = open {
                        self.close(len, odd);
                    }
                    open = Some((seq, 1, false));
                    self.ids.push(id);
                    self.firsts.push(big(seq));
                    self.lasts.push(big(seq));
                }
            }
            if let Some((_, _, odd)) = &mut open {
                *odd |= !joinable(update);
            }
            self.joined.updates.push(update);
        }
        if let Some((_, len, odd)) = open {
            self.close(len, odd);
        }
    }

    /// Ends the last chunk, whose `len` updates are the last of `joined`: joined, or moved to
    /// `odd` when one of them cannot be (`odd`).
    fn close(&mut self, len: usize, odd: bool) {
        let from = self.joined.updates.len() - len;
        if odd {
            // Past 2^31 updates in one batch the statement would be refused anyway.
            self.starts
                .push(i32::try_from(self.odd.len() + 1).unwrap_or(i32::MAX));
            self.odd.extend(self.joined.updates.drain(from..));
            self.joined.ends.push(None);
        } else {
            self.starts.push(0);
            self.joined.ends.push(Some(self.joined.updates.len()));
        }
    }
}

/// What separates the updates of a joined chunk: the record separator, a control character,
/// which JSON text never holds raw (a string escapes it, and it is no whitespace).
pub(crate) const SEPARATOR: u8 = 0x1E;

/// True when `update` can be joined: split back, it comes out the same. Anything JSON is; an
/// update that is not (holding the separator, or empty, which splits to no element at all)
/// is stored as it is the slower way.
fn joinable(update: &str) -> bool {
    !update.is_empty() && !update.as_bytes().contains(&SEPARATOR)
}

/// The chunks' updates as one `text[]` value per chunk: its updates joined with
/// [`SEPARATOR`] (which `string_to_array` splits in SQL), or NULL for a chunk not joined.
/// Written straight into the statement's message, with no joined string built first.
#[derive(Default, Debug)]
pub(crate) struct Joined<'a> {
    /// The updates of the joined chunks, in order.
    updates: Vec<&'a str>,
    /// Per chunk: where its updates end in `updates`, or none for a chunk not joined.
    ends: Vec<Option<usize>>,
}

impl ToSql for Joined<'_> {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        let too_large = || "a chunk of updates is too large to send";
        let count = i32::try_from(self.ends.len()).map_err(|_| too_large())?;
        let has_null = self.ends.iter().any(Option::is_none);
        // One growth of the message for the whole array (its header, each element's length
        // and the updates with their separators), not a doubling copy every few updates.
        let bytes: usize = self.updates.iter().map(|u| u.len() + 1).sum();
        out.reserve(20 + 4 * self.ends.len() + bytes);
        // PostgreSQL's binary array: dimensions, NULL flag, element type, then per dimension
        // its length and lower bound, then each element's length (-1: NULL) and bytes.
        out.extend_from_slice(&1i32.to_be_bytes());
        out.extend_from_slice(&i32::from(has_null).to_be_bytes());
        out.extend_from_slice(&Type::TEXT.oid().to_be_bytes());
        out.extend_from_slice(&count.to_be_bytes());
        out.extend_from_slice(&1i32.to_be_bytes());
        let mut from = 0;
        for end in &self.ends {
            let Some(end) = *end else {
                out.extend_from_slice(&(-1i32).to_be_bytes());
                continue;
            };
            let updates = &self.updates[from..end];
            from = end;
            let len: usize = updates.iter().map(|u| u.len()).sum::<usize>() + updates.len() - 1;
            out.extend_from_slice(&i32::try_from(len).map_err(|_| too_large())?.to_be_bytes());
            for (i, update) in updates.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(&[SEPARATOR]);
                }
                out.extend_from_slice(update.as_bytes());
            }
        }
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::TEXT_ARRAY
    }

    to_sql_checked!();
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
        assert_eq!(chunks.starts, [0; 4]);
        let ends = [
            Some(2),
            Some(3),
            Some(3 + MAX_UPDATES),
            Some(4 + MAX_UPDATES),
        ];
        assert_eq!(chunks.joined.ends, ends);
        assert_eq!(&chunks.joined.updates[..4], ["a0", "a1'", "a3", "b7"]);
        assert_eq!(chunks.joined.updates.len(), 3 + 1 + MAX_UPDATES);
        assert!(chunks.odd.is_empty());
        assert_eq!(appends.of("a"), [(0, "a0"), (1, "a1'"), (3, "a3")]);
        assert!(appends.of("c").is_empty());
    }

    /// The `text[]` value PostgreSQL receives for `joined`: its elements, NULL as none.
    fn decode(joined: &Joined<'_>) -> Vec<Option<Vec<u8>>> {
        let mut out = BytesMut::new();
        let is_null = joined.to_sql(&Type::TEXT_ARRAY, &mut out).expect("encodes");
        assert!(matches!(is_null, IsNull::No));
        let int = |at: usize| i32::from_be_bytes(out[at..at + 4].try_into().expect("4 bytes"));
        assert_eq!(
            (int(0), int(8), int(16)),
            (1, 25, 1),
            "1 dimension of text from 1"
        );
        let mut at = 20;
        let mut elements = Vec::new();
        for _ in 0..int(12) {
            let len = int(at);
            at += 4;
            elements.push(usize::try_from(len).ok().map(|len| {
                at += len;
                out[at - len..at].to_vec()
            }));
        }
        assert_eq!(at, out.len(), "nothing after the elements");
        assert_eq!(int(4) == 1, elements.contains(&None), "the NULL flag");
        elements
    }

    #[test]
    fn chunks_that_cannot_be_joined_go_whole_to_the_odd_updates() {
        let mut chunks = Chunks::default();
        chunks.add("a", [(0, "{}"), (1, "[1]")].into_iter());
        chunks.add("b", [(0, "x"), (1, ""), (2, "y"), (5, "z")].into_iter());
        chunks.add("c", [(3, "p\u{1e}q"), (4, "r")].into_iter());
        assert_eq!(chunks.ids, ["a", "b", "b", "c"]);
        assert_eq!(chunks.firsts, [0, 0, 5, 3]);
        assert_eq!(chunks.lasts, [1, 2, 5, 4]);
        assert_eq!(chunks.starts, [0, 1, 0, 4]);
        assert_eq!(chunks.odd, ["x", "", "y", "p\u{1e}q", "r"]);
        assert_eq!(
            decode(&chunks.joined),
            [Some(b"{}\x1e[1]".to_vec()), None, Some(b"z".to_vec()), None]
        );
        // Nothing odd: no NULL, and the flag says so.
        let mut plain = Chunks::default();
        plain.add("a", [(7, "1")].into_iter());
        assert_eq!(decode(&plain.joined), [Some(b"1".to_vec())]);
        assert!(Joined::accepts(&Type::TEXT_ARRAY) && !Joined::accepts(&Type::TEXT));
    }
}
