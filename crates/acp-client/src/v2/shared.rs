//! What a connection knows about its v2 side: the negotiated version, the agent's answer, the
//! update streams, and the turns waiting for `idle`.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use acp_types::v2;
use acp_types::{ProtocolVersion, SessionId, TerminalId, ToolCallId};
use tokio::sync::{mpsc, oneshot};

use crate::lock;
use crate::model::TurnState;

/// The v2 part of a connection's state.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// The protocol version `initialize` negotiated; 0 before.
    version: AtomicU16,
    /// True once [`AgentHandle::negotiate`](crate::AgentHandle::negotiate) sent `initialize`.
    pub(crate) negotiating: std::sync::atomic::AtomicBool,
    /// The agent's answer to a v2 `initialize`.
    pub(crate) initialized: OnceLock<v2::InitializeResponse>,
    /// The capabilities the client sent in its v2 `initialize`.
    pub(crate) advertised: OnceLock<v2::ClientCapabilities>,
    /// Subscribers to each session's v2 updates; `None` once the connection is closed.
    subscribers: Mutex<
        Option<HashMap<SessionId, Vec<mpsc::UnboundedSender<v2::UpdateSessionNotification>>>>,
    >,
    /// How many sessions have subscribers (the length of `subscribers`, written under its
    /// lock): while none has, an update is published without taking the lock or hashing its
    /// session id.
    subscribed: AtomicUsize,
    /// Per session: the last foreground state and whoever waits for `idle`; `None` once the
    /// connection is closed (the waiters then fail).
    turns: Mutex<Option<HashMap<SessionId, Watch>>>,
    next_waiter: AtomicU64,
    /// The tool calls and display terminals whose latest update advertised `capabilities.cancel`
    /// (until another says otherwise, or they end): what `tool_call/cancel` and
    /// `terminal/cancel` may name.
    cancellable: Mutex<HashSet<(SessionId, Cancellable)>>,
}

/// The most cancellable tool calls and terminals a connection records.
const MAX_CANCELLABLE: usize = 16 * 1024;

/// Something the client may cancel, by id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Cancellable {
    ToolCall(ToolCallId),
    Terminal(TerminalId),
}

/// One session's foreground state, as the agent's `state_update`s tell it.
#[derive(Debug, Default)]
struct Watch {
    state: TurnState,
    waiters: Vec<Waiter>,
}

/// Someone waiting for the session's next `idle`.
#[derive(Debug)]
struct Waiter {
    key: u64,
    /// True once an `idle` may end the wait: the prompt was acknowledged, or foreground work
    /// was seen running since the wait began (an `idle` before either is an older state).
    armed: bool,
    tx: oneshot::Sender<v2::IdleStateUpdate>,
}

/// A registered wait for `idle`; see [`Shared::wait_idle`].
pub(crate) struct IdleWait {
    pub(crate) key: u64,
    pub(crate) rx: oneshot::Receiver<v2::IdleStateUpdate>,
}

impl Shared {
    pub(crate) fn new() -> Self {
        Self {
            subscribers: Mutex::new(Some(HashMap::new())),
            turns: Mutex::new(Some(HashMap::new())),
            ..Self::default()
        }
    }

    /// The negotiated protocol version, once `initialize` was answered.
    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        match self.version.load(Ordering::Acquire) {
            0 => None,
            v => Some(ProtocolVersion(v)),
        }
    }

    /// True once the connection negotiated version 2.
    pub(crate) fn is_v2(&self) -> bool {
        self.version.load(Ordering::Acquire) == 2
    }

    pub(crate) fn set_version(&self, version: u16) {
        let _ = self
            .version
            .compare_exchange(0, version, Ordering::AcqRel, Ordering::Acquire);
    }

    /// A stream of the session's v2 updates, from now on.
    pub(crate) fn subscribe(
        &self,
        session_id: SessionId,
    ) -> mpsc::UnboundedReceiver<v2::UpdateSessionNotification> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Some(subscribers) = lock(&self.subscribers).as_mut() {
            subscribers.entry(session_id).or_default().push(tx);
            self.subscribed.store(subscribers.len(), Ordering::Release);
        }
        rx
    }

    /// Takes an update in, before the [`Client`](crate::Client) sees it: records which tool
    /// calls and terminals may be cancelled, then pushes it to the session's subscribers.
    /// A `state_update` is recorded afterwards, by [`state_handled`](Self::state_handled).
    pub(crate) fn publish(&self, notification: &v2::UpdateSessionNotification) {
        match &notification.update {
            v2::SessionUpdate::ToolCallUpdate(update) => {
                let ended = matches!(
                    update.status,
                    v2::Patch::Set(
                        v2::ToolCallStatus::Completed
                            | v2::ToolCallStatus::Failed
                            | v2::ToolCallStatus::Cancelled
                    )
                );
                let cancel = update.capabilities.as_ref().map(|c| c.cancel.is_some());
                let id = || Cancellable::ToolCall(update.tool_call_id.clone());
                self.track_cancel(&notification.session_id, id, cancel, ended);
            }
            v2::SessionUpdate::TerminalUpdate(update) => {
                let ended = matches!(update.exit_status, v2::Patch::Set(_));
                let cancel = update.capabilities.as_ref().map(|c| c.cancel.is_some());
                let id = || Cancellable::Terminal(update.terminal_id.clone());
                self.track_cancel(&notification.session_id, id, cancel, ended);
            }
            _ => {}
        }
        // Nobody subscribed (the common case of a client that only implements `Client`): no
        // lock, no lookup. A subscription made before the update was read is seen here.
        if self.subscribed.load(Ordering::Acquire) == 0 {
            return;
        }
        if let Some(subscribers) = lock(&self.subscribers).as_mut() {
            if let Some(list) = subscribers.get_mut(&notification.session_id) {
                list.retain(|tx| tx.send(notification.clone()).is_ok());
                if list.is_empty() {
                    subscribers.remove(&notification.session_id);
                    self.subscribed.store(subscribers.len(), Ordering::Release);
                }
            }
        }
    }

    /// Records whether a tool call or terminal may be cancelled now: `cancel` is its
    /// capabilities patch (set with or without `cancel`, cleared, or unchanged), `ended` that
    /// it finished (nothing left to cancel).
    fn track_cancel(
        &self,
        session_id: &SessionId,
        id: impl FnOnce() -> Cancellable,
        cancel: v2::Patch<bool>,
        ended: bool,
    ) {
        let allowed = match cancel {
            _ if ended => false,
            v2::Patch::Unchanged => return,
            v2::Patch::Clear => false,
            v2::Patch::Set(cancel) => cancel,
        };
        let key = (session_id.clone(), id());
        let mut cancellable = lock(&self.cancellable);
        if !allowed {
            cancellable.remove(&key);
        } else if cancellable.len() < MAX_CANCELLABLE {
            cancellable.insert(key);
        } else {
            // An agent advertising without end does not grow the client without end: past the
            // bound, more are not recorded (their cancel is refused locally).
            tracing::warn!(
                session = %session_id,
                "more than {MAX_CANCELLABLE} cancellable tool calls and terminals: not recording more"
            );
        }
    }

    /// True when the agent said the client may cancel `id` (see [`Cancellable`]).
    pub(crate) fn may_cancel(&self, session_id: &SessionId, id: Cancellable) -> bool {
        lock(&self.cancellable).contains(&(session_id.clone(), id))
    }

    /// Forgets what is kept about a session that was closed or deleted.
    pub(crate) fn forget_session(&self, session_id: &SessionId) {
        lock(&self.cancellable).retain(|(session, _)| session != session_id);
        if let Some(turns) = lock(&self.turns).as_mut() {
            // Waiters of the session fail (their sender is dropped): it is gone.
            turns.remove(session_id);
        }
    }

    /// Records a `state_update` once the [`Client`](crate::Client) handled it: an `idle` then
    /// ends the waits for it, so that a turn ends after every update of it was handled.
    pub(crate) fn state_handled(&self, session_id: &SessionId, state: &v2::StateUpdate) {
        let mut turns = lock(&self.turns);
        let Some(turns) = turns.as_mut() else { return };
        let watch = turns.entry(session_id.clone()).or_default();
        watch.state = crate::model::turn_state(state);
        match state {
            v2::StateUpdate::Idle(idle) => {
                let (ready, waiting) = std::mem::take(&mut watch.waiters)
                    .into_iter()
                    .partition::<Vec<_>, _>(|w| w.armed);
                watch.waiters = waiting;
                for waiter in ready {
                    let _ = waiter.tx.send(idle.clone());
                }
            }
            _ => watch.waiters.iter_mut().for_each(|w| w.armed = true),
        }
        if watch.waiters.is_empty() && matches!(watch.state, TurnState::Idle(_)) {
            // Nothing to remember about an idle session nobody waits on.
            turns.remove(session_id);
        }
    }

    /// True while the session has foreground work as far as its updates tell (running or
    /// waiting for the user).
    pub(crate) fn busy(&self, session_id: &SessionId) -> bool {
        lock(&self.turns)
            .as_ref()
            .and_then(|t| t.get(session_id))
            .is_some_and(|w| {
                matches!(w.state, TurnState::Running | TurnState::RequiresAction)
                    || !w.waiters.is_empty()
            })
    }

    /// Waits for the session's next `idle`; `armed` when any `idle` from now on counts.
    /// `None` once the connection is closed.
    pub(crate) fn wait_idle(&self, session_id: &SessionId, armed: bool) -> Option<IdleWait> {
        let key = self.next_waiter.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.turns)
            .as_mut()?
            .entry(session_id.clone())
            .or_default()
            .waiters
            .push(Waiter { key, armed, tx });
        Some(IdleWait { key, rx })
    }

    /// Arms every wait of the session: after `session/cancel`, the next `idle` ends them all.
    pub(crate) fn arm_all(&self, session_id: &SessionId) {
        if let Some(watch) = lock(&self.turns)
            .as_mut()
            .and_then(|t| t.get_mut(session_id))
        {
            watch.waiters.iter_mut().for_each(|w| w.armed = true);
        }
    }

    /// Arms a wait: the prompt was acknowledged, so the next `idle` ends it.
    pub(crate) fn arm(&self, session_id: &SessionId, key: u64) {
        if let Some(watch) = lock(&self.turns)
            .as_mut()
            .and_then(|t| t.get_mut(session_id))
        {
            watch
                .waiters
                .iter_mut()
                .filter(|w| w.key == key)
                .for_each(|w| w.armed = true);
        }
    }

    /// Forgets a wait that ended otherwise (the prompt failed, the caller went away).
    pub(crate) fn forget(&self, session_id: &SessionId, key: u64) {
        let mut turns = lock(&self.turns);
        if let Some(turns) = turns.as_mut() {
            if let Some(watch) = turns.get_mut(session_id) {
                watch.waiters.retain(|w| w.key != key);
                if watch.waiters.is_empty()
                    && !matches!(watch.state, TurnState::Running | TurnState::RequiresAction)
                {
                    turns.remove(session_id);
                }
            }
        }
    }

    /// The connection is over: end every stream and fail every wait.
    pub(crate) fn close(&self) {
        lock(&self.subscribers).take();
        self.subscribed.store(0, Ordering::Release);
        lock(&self.turns).take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(session: &str, text: &str) -> v2::UpdateSessionNotification {
        v2::UpdateSessionNotification::new(
            session,
            v2::SessionUpdate::AgentMessageChunk(v2::ContentChunk::new(
                "m1",
                v2::TextContent::new(text),
            )),
        )
    }

    #[test]
    fn streams_get_updates_only_while_subscribed() {
        let shared = Shared::new();
        // Nobody subscribed: nothing to push to.
        shared.publish(&chunk("s1", "a"));
        let mut rx = shared.subscribe(SessionId::from("s1"));
        let mut other = shared.subscribe(SessionId::from("s2"));
        shared.publish(&chunk("s1", "b"));
        assert_eq!(rx.try_recv().unwrap(), chunk("s1", "b"));
        assert!(rx.try_recv().is_err());
        assert!(other.try_recv().is_err());
        // A stream that went away is forgotten; the other session's still gets its updates.
        drop(rx);
        shared.publish(&chunk("s1", "c"));
        assert_eq!(shared.subscribed.load(Ordering::Acquire), 1);
        shared.publish(&chunk("s2", "d"));
        assert_eq!(other.try_recv().unwrap(), chunk("s2", "d"));
        drop(other);
        shared.publish(&chunk("s2", "e"));
        assert_eq!(shared.subscribed.load(Ordering::Acquire), 0);
        // A new subscription after all went away is seen.
        let mut again = shared.subscribe(SessionId::from("s1"));
        shared.publish(&chunk("s1", "f"));
        assert_eq!(again.try_recv().unwrap(), chunk("s1", "f"));
        shared.close();
        assert_eq!(shared.subscribed.load(Ordering::Acquire), 0);
        assert!(again.try_recv().is_err());
    }
}
