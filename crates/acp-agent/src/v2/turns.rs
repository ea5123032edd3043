//! The turns of a v2 connection's sessions: which session has one, and the prompts held until
//! it ends.
//!
//! v2 answers `session/prompt` once the prompt is inserted, so a prompt sent while a turn runs
//! is held unanswered, not refused. A session's turn lasts from the acceptance of its prompt
//! until its `idle` is sent, so the next held prompt's answer always follows that `idle` (a
//! client takes the first `idle` after a prompt's answer as that prompt's end). The schema's
//! `CancelSessionNotification` and `CloseSessionRequest` cancel the prompts not yet inserted:
//! [`Turns::cancel`] flags every held prompt of the session, which then answers `-32800`
//! without running, and [`Turns::close`] also refuses every prompt that would start later.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use acp_types::SessionId;
use tokio::sync::Notify;

use crate::signal::Signal;

/// The turns of one connection's sessions (cheap to clone: the clones share them).
#[derive(Debug, Default, Clone)]
pub(crate) struct Turns(Arc<Inner>);

/// What [`Turns`] share.
#[derive(Debug, Default)]
struct Inner {
    sessions: Mutex<HashMap<SessionId, Session>>,
    /// Wakes the held prompts (and the closes waiting for an `idle`) when a turn ends or a
    /// session is cancelled.
    changed: Notify,
}

/// One session's turn and held prompts. An entry lives while either exists (or while the
/// session closes).
#[derive(Debug, Default)]
struct Session {
    /// The cancellation flag of the prompt whose turn runs: a cancel that comes after its
    /// acceptance but before its registration among the running prompts still reaches it.
    turn: Option<Signal>,
    /// The cancellation flags of the held prompts.
    held: Vec<Signal>,
    /// `session/close` is under way: no prompt starts any more.
    closing: bool,
}

impl Session {
    fn is_unused(&self) -> bool {
        self.turn.is_none() && self.held.is_empty() && !self.closing
    }
}

/// What [`Turns::begin`] decided for a held prompt.
pub(crate) enum Begin {
    /// The prompt's turn started: it runs until the guard is dropped.
    Started(TurnGuard),
    /// A turn runs: wait for [`Turns::changed`] and try again.
    Wait,
    /// The prompt was cancelled (`session/cancel`, `session/close`) before it was inserted.
    Cancelled,
}

impl Turns {
    fn sessions(&self) -> MutexGuard<'_, HashMap<SessionId, Session>> {
        self.0
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds a prompt of `session` flagged by `signal` until [`begin`](Self::begin) starts it
    /// or the returned guard is dropped.
    pub(crate) fn hold(&self, session: &SessionId, signal: &Signal) -> Held {
        self.sessions()
            .entry(session.clone())
            .or_default()
            .held
            .push(signal.clone());
        Held {
            turns: self.clone(),
            session: session.clone(),
            signal: signal.clone(),
        }
    }

    /// Starts the turn of the held prompt `held` when its session has none running.
    pub(crate) fn begin(&self, held: &Held) -> Begin {
        let mut sessions = self.sessions();
        let Some(session) = sessions.get_mut(&held.session) else {
            return Begin::Cancelled;
        };
        if held.signal.is_set() || session.closing {
            return Begin::Cancelled;
        }
        // Held prompts start in the order they came (a cancelled one no longer counts).
        let next = session.held.iter().find(|s| !s.is_set());
        if session.turn.is_some() || next.is_some_and(|next| !next.ptr_eq(&held.signal)) {
            return Begin::Wait;
        }
        session.held.retain(|s| !s.ptr_eq(&held.signal));
        session.turn = Some(held.signal.clone());
        Begin::Started(TurnGuard {
            turns: self.clone(),
            session: held.session.clone(),
        })
    }

    /// A future that completes at the next change; create it before looking, so that a change
    /// between the look and the wait is not missed.
    pub(crate) fn changed(&self) -> tokio::sync::futures::Notified<'_> {
        self.0.changed.notified()
    }

    /// `session/cancel`: flags the held prompts of `session` (they answer `-32800` and never
    /// run) and the prompt whose turn just started.
    pub(crate) fn cancel(&self, session: &SessionId) {
        if let Some(session) = self.sessions().get(session) {
            for signal in session.held.iter().chain(&session.turn) {
                signal.set();
            }
        }
        self.0.changed.notify_waiters();
    }

    /// `session/close`: cancels as [`cancel`](Self::cancel) does, and no prompt of `session`
    /// starts until [`closed`](Self::closed).
    pub(crate) fn close(&self, session: &SessionId) {
        self.sessions().entry(session.clone()).or_default().closing = true;
        self.cancel(session);
    }

    /// Waits until `session` has no turn: its `idle` was sent.
    pub(crate) async fn idle(&self, session: &SessionId) {
        loop {
            let changed = self.0.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self
                .sessions()
                .get(session)
                .is_none_or(|s| s.turn.is_none())
            {
                return;
            }
            changed.await;
        }
    }

    /// Ends the close of `session` begun by [`close`](Self::close).
    pub(crate) fn closed(&self, session: &SessionId) {
        self.update(session, |entry| entry.closing = false);
        self.0.changed.notify_waiters();
    }

    /// Changes the entry of `session` (if any) with `f`, and forgets it once unused.
    fn update(&self, session: &SessionId, f: impl FnOnce(&mut Session)) {
        let mut sessions = self.sessions();
        if let Some(entry) = sessions.get_mut(session) {
            f(entry);
            if entry.is_unused() {
                sessions.remove(session);
            }
        }
    }
}

/// A held prompt: removed from its session's held prompts when dropped.
pub(crate) struct Held {
    turns: Turns,
    session: SessionId,
    signal: Signal,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.turns.update(&self.session, |session| {
            session.held.retain(|s| !s.ptr_eq(&self.signal));
        });
        // The prompt held after this one may be next now.
        self.turns.0.changed.notify_waiters();
    }
}

/// A running turn: the session's next held prompt may start once it is dropped (after the
/// turn's `idle` was sent).
pub(crate) struct TurnGuard {
    turns: Turns,
    session: SessionId,
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        self.turns
            .update(&self.session, |session| session.turn = None);
        self.turns.0.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> SessionId {
        SessionId::from(s)
    }

    #[test]
    fn a_held_prompt_starts_after_the_turn_and_not_after_a_cancel() {
        let turns = Turns::default();
        let (first, second, third) = (Signal::default(), Signal::default(), Signal::default());
        let a = turns.hold(&id("s"), &first);
        let Begin::Started(turn) = turns.begin(&a) else {
            panic!("the first prompt starts at once");
        };
        let b = turns.hold(&id("s"), &second);
        assert!(
            matches!(turns.begin(&b), Begin::Wait),
            "held while a turn runs"
        );
        turns.cancel(&id("s"));
        assert!(first.is_set(), "the running turn's prompt is flagged too");
        assert!(matches!(turns.begin(&b), Begin::Cancelled));
        drop(b);
        drop(turn);
        drop(a);
        let c = turns.hold(&id("s"), &third);
        assert!(
            matches!(turns.begin(&c), Begin::Started(_)),
            "a prompt after the cancel runs"
        );
        drop(c);
        assert!(
            turns.sessions().is_empty(),
            "nothing kept for an idle session"
        );
    }

    #[test]
    fn held_prompts_start_in_the_order_they_came() {
        let turns = Turns::default();
        let signals: Vec<Signal> = (0..4).map(|_| Signal::default()).collect();
        let first = turns.hold(&id("s"), &signals[0]);
        let Begin::Started(turn) = turns.begin(&first) else {
            panic!("the first prompt starts at once");
        };
        drop(first);
        let held: Vec<Held> = signals[1..]
            .iter()
            .map(|s| turns.hold(&id("s"), s))
            .collect();
        drop(turn);
        // The turn ended: only the earliest held prompt may start, whichever asks first.
        assert!(matches!(turns.begin(&held[2]), Begin::Wait));
        assert!(matches!(turns.begin(&held[1]), Begin::Wait));
        let Begin::Started(second) = turns.begin(&held[0]) else {
            panic!("the earliest held prompt starts");
        };
        drop(second);
        // A held prompt that goes away (its request cancelled) lets the next one start.
        let mut held = held.into_iter().skip(1);
        let (third, fourth) = (held.next().expect("third"), held.next().expect("fourth"));
        assert!(matches!(turns.begin(&fourth), Begin::Wait));
        drop(third);
        assert!(matches!(turns.begin(&fourth), Begin::Started(_)));
    }

    #[test]
    fn no_prompt_starts_while_the_session_closes() {
        let turns = Turns::default();
        let signal = Signal::default();
        turns.close(&id("s"));
        let held = turns.hold(&id("s"), &signal);
        assert!(matches!(turns.begin(&held), Begin::Cancelled));
        drop(held);
        turns.closed(&id("s"));
        assert!(turns.sessions().is_empty());
    }
}
