//! The messages of each session on a v2 connection: which message a chunk without a
//! `messageId` continues, and ids for new ones.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::modes::Modes;
use acp_types::v2::{self, Patch};
use acp_types::{ErrorObject, MessageId, SessionId, SessionUpdate, TerminalId, ToolCallId};

/// The message ids of a connection's sessions.
///
/// v1 chunks need no `messageId`; v2 chunks do. A chunk without one continues the session's
/// current message of its kind (agent text, agent thought, user text); any other update (a
/// tool call, a plan...) and the end of a turn close the current messages, so the next chunk
/// starts a new message, and the client shows text and tool calls in the order they came. A
/// chunk that has its own `messageId` keeps it and becomes the current message of its kind.
#[derive(Debug)]
pub(crate) struct Cursors {
    /// Makes ids unique across connections (a resumed session replays ids made by earlier
    /// connections).
    prefix: String,
    next: AtomicU64,
    sessions: Mutex<HashMap<SessionId, Cursor>>,
    /// The sessions open on this connection: made by its `session/new` or taken up by its
    /// `session/resume`, and not closed or deleted since. v2 asks a client to resume a session
    /// before it works in it, so the session methods refuse any other session with `-32002`
    /// before the agent sees them (a prompt is acknowledged before the agent runs it, so the
    /// agent could not refuse it in time).
    open: Mutex<HashSet<SessionId>>,
    /// The sessions whose updates are left out: `session/resume` without replay of an agent
    /// that can only load (replay) a session; their number, for a cheap look on every update.
    silent: Mutex<HashSet<SessionId>>,
    silent_count: AtomicUsize,
}

/// How many sessions one v2 connection may hold open at once: `session/new` and
/// `session/resume` beyond it fail until one is closed, so that a connection's bookkeeping
/// stays bounded.
pub(crate) const MAX_OPEN_SESSIONS: usize = 4096;

/// The current messages of one session.
#[derive(Debug, Default)]
struct Cursor {
    agent: Option<MessageId>,
    thought: Option<MessageId>,
    user: Option<MessageId>,
    /// Permission requests waiting for the user: while there are some, the turn
    /// `requires_action`.
    waiting: usize,
    /// The tool calls whose last update advertised `capabilities.cancel` and that are not
    /// final: the only ones `tool_call/cancel` may name.
    cancellable_calls: HashSet<ToolCallId>,
    /// The display terminals whose last update advertised `capabilities.cancel` and that have
    /// not exited: the only ones `terminal/cancel` may name.
    cancellable_terminals: HashSet<TerminalId>,
    /// The session's modes, offered as a config option (see [`Modes`]).
    modes: Option<Modes>,
    /// A `session/resume` with replay is replaying the session's history: its modes are not
    /// known before the agent's answer.
    replaying: bool,
}

impl Default for Cursors {
    fn default() -> Self {
        let mut bytes = [0u8; 6];
        // Without randomness ids are still unique on this connection.
        let _ = getrandom::fill(&mut bytes);
        let prefix = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Self {
            prefix,
            next: AtomicU64::new(0),
            sessions: Mutex::default(),
            open: Mutex::default(),
            silent: Mutex::default(),
            silent_count: AtomicUsize::new(0),
        }
    }
}

impl Cursors {
    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Cursor>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A message id not used before: `msg-<connection>-<n>`.
    pub(crate) fn new_id(&self) -> MessageId {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        MessageId::from(format!("msg-{}-{n}", self.prefix))
    }

    /// Gives a chunk of `update` without a `messageId` the session's current message of its
    /// kind (a new one if there is none), and closes the current messages on any other update.
    pub(crate) fn stamp(&self, session: &SessionId, update: &mut SessionUpdate) {
        let mut sessions = self.sessions();
        // Every chunk passes here: one lookup, and the session id cloned only for a session's
        // first update.
        let cursor = match sessions.get_mut(session) {
            Some(cursor) => cursor,
            None => sessions.entry(session.clone()).or_default(),
        };
        let (chunk, current, others) = match update {
            SessionUpdate::AgentMessageChunk(c) => (
                c,
                &mut cursor.agent,
                [&mut cursor.thought, &mut cursor.user],
            ),
            SessionUpdate::AgentThoughtChunk(c) => (
                c,
                &mut cursor.thought,
                [&mut cursor.agent, &mut cursor.user],
            ),
            SessionUpdate::UserMessageChunk(c) => (
                c,
                &mut cursor.user,
                [&mut cursor.agent, &mut cursor.thought],
            ),
            _ => {
                cursor.close();
                return;
            }
        };
        match &chunk.message_id {
            Some(id) => *current = Some(id.clone()),
            // The common case, a chunk continuing the current message: one shared id cloned.
            None => {
                let id = current.get_or_insert_with(|| self.new_id());
                chunk.message_id = Some(id.clone());
            }
        }
        // A chunk of one kind closes the messages of the others.
        for other in others {
            *other = None;
        }
    }

    /// Starts the user message of a prompt: the chunks recorded for it continue `id`.
    pub(crate) fn start_user_message(&self, session: &SessionId, id: MessageId) {
        let mut sessions = self.sessions();
        let cursor = sessions.entry(session.clone()).or_default();
        cursor.close();
        cursor.user = Some(id);
    }

    /// Closes the current messages of `session` (its turn ended).
    pub(crate) fn close(&self, session: &SessionId) {
        if let Some(cursor) = self.sessions().get_mut(session) {
            cursor.close();
        }
    }

    /// Forgets `session` (closed or deleted): it is no longer open on this connection.
    pub(crate) fn forget(&self, session: &SessionId) {
        self.sessions().remove(session);
        self.open_sessions().remove(session);
    }

    fn open_sessions(&self) -> std::sync::MutexGuard<'_, HashSet<SessionId>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Fails when this connection holds [`MAX_OPEN_SESSIONS`] open sessions and `session`
    /// (`None`: a new one) is not among them.
    pub(crate) fn room_for(&self, session: Option<&SessionId>) -> Result<(), ErrorObject> {
        let open = self.open_sessions();
        if open.len() >= MAX_OPEN_SESSIONS && session.is_none_or(|s| !open.contains(s)) {
            return Err(ErrorObject::internal_error(format_args!(
                "this connection holds {MAX_OPEN_SESSIONS} open sessions, the most it may: \
                 close one with session/close first"
            )));
        }
        Ok(())
    }

    /// Marks `session` open on this connection.
    pub(crate) fn open(&self, session: &SessionId) {
        self.open_sessions().insert(session.clone());
    }

    /// Fails with `-32002` unless `session` is open on this connection.
    pub(crate) fn check_open(&self, session: &SessionId) -> Result<(), ErrorObject> {
        if self.open_sessions().contains(session) {
            return Ok(());
        }
        let mut error = ErrorObject::session_not_found(session.as_str());
        error.message.push_str(
            " on this connection (make it with session/new or take it up with session/resume \
             first)",
        );
        Err(error)
    }

    /// Leaves the updates of `session` out (`silent`), or sends them again.
    pub(crate) fn set_silent(&self, session: &SessionId, silent: bool) {
        let mut sessions = self
            .silent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let changed = if silent {
            sessions.insert(session.clone())
        } else {
            sessions.remove(session)
        };
        match (changed, silent) {
            (true, true) => self.silent_count.fetch_add(1, Ordering::Relaxed),
            (true, false) => self.silent_count.fetch_sub(1, Ordering::Relaxed),
            (false, _) => 0,
        };
    }

    /// True when the updates of `session` are left out (see [`set_silent`](Self::set_silent)).
    pub(crate) fn is_silent(&self, session: &SessionId) -> bool {
        self.silent_count.load(Ordering::Relaxed) > 0
            && self
                .silent
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .contains(session)
    }

    /// Counts a permission request of `session` that starts waiting; true when it is the only
    /// one (the turn now requires action).
    pub(crate) fn start_waiting(&self, session: &SessionId) -> bool {
        let mut sessions = self.sessions();
        let cursor = sessions.entry(session.clone()).or_default();
        cursor.waiting += 1;
        cursor.waiting == 1
    }

    /// Counts a permission request of `session` that was answered; true when none waits any
    /// more (the turn runs again).
    pub(crate) fn stop_waiting(&self, session: &SessionId) -> bool {
        let mut sessions = self.sessions();
        let Some(cursor) = sessions.get_mut(session) else {
            return false;
        };
        cursor.waiting = cursor.waiting.saturating_sub(1);
        cursor.waiting == 0
    }
}

impl Cursors {
    /// Notes what a v2 update sent for `session` advertises: which tool calls and terminals
    /// may be cancelled.
    pub(crate) fn observe(&self, session: &SessionId, update: &v2::SessionUpdate) {
        match update {
            v2::SessionUpdate::ToolCallUpdate(call) => {
                let cancellable = match &call.capabilities {
                    Patch::Set(capabilities) => Some(capabilities.cancel.is_some()),
                    Patch::Clear => Some(false),
                    Patch::Unchanged => None,
                };
                let done = matches!(
                    call.status,
                    Patch::Set(
                        v2::ToolCallStatus::Completed
                            | v2::ToolCallStatus::Failed
                            | v2::ToolCallStatus::Cancelled
                    )
                );
                let mut sessions = self.sessions();
                let cursor = sessions.entry(session.clone()).or_default();
                match (cancellable, done) {
                    (Some(true), false) => {
                        cursor.cancellable_calls.insert(call.tool_call_id.clone());
                    }
                    (Some(false), _) | (_, true) => {
                        cursor.cancellable_calls.remove(&call.tool_call_id);
                    }
                    (None, false) => {}
                }
            }
            v2::SessionUpdate::TerminalUpdate(terminal) => {
                let cancellable = match &terminal.capabilities {
                    Patch::Set(capabilities) => Some(capabilities.cancel.is_some()),
                    Patch::Clear => Some(false),
                    Patch::Unchanged => None,
                };
                let exited = matches!(terminal.exit_status, Patch::Set(_));
                let mut sessions = self.sessions();
                let cursor = sessions.entry(session.clone()).or_default();
                match (cancellable, exited) {
                    (Some(true), false) => {
                        cursor
                            .cancellable_terminals
                            .insert(terminal.terminal_id.clone());
                    }
                    (Some(false), _) | (_, true) => {
                        cursor.cancellable_terminals.remove(&terminal.terminal_id);
                    }
                    (None, false) => {}
                }
            }
            _ => {}
        }
    }

    /// Keeps the modes of `session` (its `session/new` or resume answer had some).
    pub(crate) fn set_modes(&self, session: &SessionId, modes: Modes) {
        self.sessions().entry(session.clone()).or_default().modes = Some(modes);
    }

    /// Marks `session` as replaying its history for a `session/resume` (or done replaying).
    pub(crate) fn set_replaying(&self, session: &SessionId, replaying: bool) {
        self.sessions()
            .entry(session.clone())
            .or_default()
            .replaying = replaying;
    }

    /// True while `session` replays its history for a `session/resume` and its modes are not
    /// known yet (the agent's answer brings them).
    pub(crate) fn replaying_without_modes(&self, session: &SessionId) -> bool {
        self.sessions()
            .get(session)
            .is_some_and(|c| c.replaying && c.modes.is_none())
    }

    /// Runs `f` on the modes of `session`; `None` when it has none.
    pub(crate) fn with_modes<T>(
        &self,
        session: &SessionId,
        f: impl FnOnce(&mut Modes) -> T,
    ) -> Option<T> {
        self.sessions().get_mut(session)?.modes.as_mut().map(f)
    }

    /// True when `call` of `session` currently advertises `capabilities.cancel`.
    pub(crate) fn tool_call_cancellable(&self, session: &SessionId, call: &ToolCallId) -> bool {
        self.sessions()
            .get(session)
            .is_some_and(|c| c.cancellable_calls.contains(call))
    }

    /// True when `terminal` of `session` currently advertises `capabilities.cancel`.
    pub(crate) fn terminal_cancellable(&self, session: &SessionId, terminal: &TerminalId) -> bool {
        self.sessions()
            .get(session)
            .is_some_and(|c| c.cancellable_terminals.contains(terminal))
    }
}

impl Cursor {
    fn close(&mut self) {
        self.agent = None;
        self.thought = None;
        self.user = None;
    }
}
