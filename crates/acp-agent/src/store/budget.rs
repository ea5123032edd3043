//! The history budgets: how many bytes of history the sessions of one owner, and of the whole
//! store, keep together, and which updates make room past them (see
//! [`StoreLimits`](super::StoreLimits#history-budgets)).
//!
//! Every count is kept up to date as updates come and go, and the sessions holding history are
//! kept in least-recently-used order (per owner and in all), so recording stays `O(log n)`:
//! making room never scans the sessions, and each update is dropped at most once.

use std::collections::BTreeSet;
use std::time::Instant;

use acp_types::SessionUpdate;

use super::history::cost_of;
use super::{Sessions, StoreLimits};

#[cfg(test)]
mod tests;

/// What one owner holds in the store.
#[derive(Debug, Default)]
pub(super) struct Owned {
    /// How many sessions.
    pub(super) sessions: usize,
    /// The history bytes of its sessions ([`History::cost`](super::History)).
    pub(super) bytes: usize,
    /// Its sessions with history, least recently used first.
    pub(super) holding: BTreeSet<(Instant, u64)>,
}

impl<S> Sessions<S> {
    /// Keeps `update`, whose JSON is `size` bytes, in session `number`'s history, marking the
    /// session used at `now`. Makes room first: the session's own oldest updates past its
    /// [`HistoryLimits`](super::HistoryLimits), then, past the owner's budget and then the
    /// store's, the oldest updates of the least recently used sessions other than this one,
    /// and of this one last. Returns false (dropping nothing) when `update` alone is over a
    /// bound, or the session is gone.
    pub(super) fn record(
        &mut self,
        number: u64,
        now: Instant,
        update: SessionUpdate,
        size: usize,
        limits: &StoreLimits,
    ) -> bool {
        let Some(stored) = self.touch(number, now) else {
            return false;
        };
        let cost = cost_of(size);
        let owner_max = match stored.owner {
            Some(_) => limits.max_history_bytes_per_owner,
            None => usize::MAX,
        };
        if !stored.history.fits(size) || cost > owner_max || cost > limits.max_history_bytes {
            return false;
        }
        let freed = stored.history.make_room(size);
        let owner = stored.owner.clone();
        self.bytes -= freed;
        if let Some(held) = owner.as_ref().and_then(|owner| self.owned.get_mut(owner)) {
            held.bytes -= freed;
        }

        loop {
            let held = owner.as_ref().and_then(|owner| self.owned.get(owner));
            let (victim, need) = match held {
                Some(held) if held.bytes + cost > owner_max => (
                    least_used(&held.holding, number),
                    held.bytes + cost - owner_max,
                ),
                _ if self.bytes + cost > limits.max_history_bytes => (
                    least_used(&self.holding, number),
                    self.bytes + cost - limits.max_history_bytes,
                ),
                _ => break,
            };
            // Nothing left to drop: never the case while the counts are right, but never loop.
            if self.evict(victim, need) == 0 {
                break;
            }
        }

        let Some(stored) = self.by_number.get_mut(&number) else {
            return false;
        };
        stored.history.push_sized(update, size);
        let key = (stored.used, number);
        self.bytes += cost;
        // Already there unless the history was empty (or emptied to make room).
        let added = self.holding.insert(key);
        if let Some(held) = owner.as_ref().and_then(|owner| self.owned.get_mut(owner)) {
            held.bytes += cost;
            if added {
                held.holding.insert(key);
            }
        }
        true
    }

    /// Drops session `number`'s oldest updates until `need` bytes are freed (or none is left);
    /// returns the bytes freed.
    pub(super) fn evict(&mut self, number: u64, need: usize) -> usize {
        let Some(stored) = self.by_number.get_mut(&number) else {
            return 0;
        };
        let (mut freed, mut dropped) = (0, 0_usize);
        while freed < need {
            match stored.history.pop_oldest() {
                Some(cost) => {
                    freed += cost;
                    dropped += 1;
                }
                None => break,
            }
        }
        stored.history.shrink();
        let key = (stored.used, number);
        let emptied = stored.history.is_empty();
        self.bytes -= freed;
        if emptied {
            self.holding.remove(&key);
        }
        if let Some(held) = stored
            .owner
            .as_ref()
            .and_then(|owner| self.owned.get_mut(owner))
        {
            held.bytes -= freed;
            if emptied {
                held.holding.remove(&key);
            }
        }
        if dropped > 0 {
            tracing::debug!(
                session = %stored.id,
                dropped,
                freed,
                "history budget: dropped the oldest updates of a session"
            );
        }
        freed
    }

    /// Forgets session `number`'s history.
    pub(super) fn clear_history(&mut self, number: u64) {
        self.evict(number, usize::MAX);
    }
}

/// The least recently used session in `holding` other than `except`; `except` when it is the
/// only one (or none is there).
fn least_used(holding: &BTreeSet<(Instant, u64)>, except: u64) -> u64 {
    // Numbers are unique: at most one entry is skipped.
    holding
        .iter()
        .map(|&(_, number)| number)
        .find(|&number| number != except)
        .unwrap_or(except)
}
