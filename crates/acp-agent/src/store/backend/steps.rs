//! A batch as an engine writes it: the writes in order, each run of consecutive appends
//! gathered, so that the engine writes a run with one statement (many rows) instead of one
//! statement per recorded update.

use std::collections::HashMap;

use super::Write;

/// One update of a run of appends (see [`Step::Appends`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Appended<'a> {
    /// The session.
    pub id: &'a str,
    /// The update's sequence number in the session.
    pub seq: u64,
    /// The update, as JSON.
    pub update: &'a str,
}

/// One step of a batch (see [`steps`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step<'a> {
    /// A write other than an append, on its own.
    One(&'a Write),
    /// Consecutive [`Write::Append`]s, in order; no `(id, seq)` comes twice in one run, so
    /// that one multi-row statement (`INSERT ... ON CONFLICT`) may write them all.
    Appends(Vec<Appended<'a>>),
}

/// `batch` in order, with each run of consecutive [`Write::Append`]s gathered into one
/// [`Step::Appends`]. A run is split where an `(id, seq)` comes again (a later append that
/// replaces an earlier one), so that the later one still wins.
///
/// ```
/// use acp_agent::backend::{Step, Write, steps};
///
/// let append = |seq| Write::Append { id: "s".into(), seq, update: "{}".into() };
/// let trim = Write::Trim { id: "s".into(), keep_from: 1 };
/// // A run ends at another write, and where an append replaces one of the run.
/// let batch = [append(0), append(1), trim, append(1), append(2), append(2)];
/// let sizes: Vec<usize> = steps(&batch)
///     .iter()
///     .map(|step| match step {
///         Step::Appends(run) => run.len(),
///         _ => 0,
///     })
///     .collect();
/// assert_eq!(sizes, [2, 0, 2, 1]);
/// ```
pub fn steps(batch: &[Write]) -> Vec<Step<'_>> {
    let mut steps = Vec::new();
    let mut run: Vec<Appended<'_>> = Vec::new();
    // The last seq of each session in the run: a session's seqs rise, so a repeat is a seq
    // not above its session's last.
    let mut last: HashMap<&str, u64> = HashMap::new();
    for write in batch {
        let Write::Append { id, seq, update } = write else {
            if !run.is_empty() {
                steps.push(Step::Appends(std::mem::take(&mut run)));
                last.clear();
            }
            steps.push(Step::One(write));
            continue;
        };
        if let Some(top) = last.insert(id, *seq)
            && top >= *seq
        {
            steps.push(Step::Appends(std::mem::take(&mut run)));
            last.clear();
            last.insert(id, *seq);
        }
        run.push(Appended {
            id,
            seq: *seq,
            update,
        });
    }
    if !run.is_empty() {
        steps.push(Step::Appends(run));
    }
    steps
}
