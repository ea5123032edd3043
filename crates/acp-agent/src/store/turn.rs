//! One prompt turn at a time per session, across every connection that shares a store.

use std::fmt;
use std::sync::Arc;

use acp_types::SessionId;

#[cfg(doc)]
use super::SessionStore;

/// What a [`TurnGuard`] tells its store when it is dropped.
pub(super) trait EndTurn: Send + Sync {
    /// The turn of the session with creation number `number` is over.
    fn end_turn(&self, number: u64);
}

/// A prompt turn running in a session of a [`SessionStore`], from
/// [`begin_turn`](SessionStore::begin_turn) until the guard is dropped.
///
/// While it lives, another `begin_turn` for the session fails, whichever connection (and
/// store view) asks, and the session does not expire. Dropping it ends the turn and counts as
/// a use of the session.
#[must_use = "the turn ends when the guard is dropped: keep it until the prompt is answered"]
pub struct TurnGuard {
    store: Arc<dyn EndTurn>,
    number: u64,
    session_id: SessionId,
}

impl TurnGuard {
    pub(super) fn new(store: Arc<dyn EndTurn>, number: u64, session_id: SessionId) -> Self {
        Self {
            store,
            number,
            session_id,
        }
    }

    /// The session of the turn.
    pub fn session_id(&self) -> &SessionId {
        &self.session_id
    }
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        self.store.end_turn(self.number);
    }
}

impl fmt::Debug for TurnGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TurnGuard")
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}
