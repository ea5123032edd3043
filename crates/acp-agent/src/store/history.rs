//! A session's bounded history: the conversation updates `session/load` replays.

use std::collections::VecDeque;
use std::io;

use acp_types::*;

#[cfg(doc)]
use super::SessionStore;

/// How much history a [`SessionStore`] keeps per session.
///
/// Past either bound, the **oldest** updates are dropped first, so a replay shows the end of a
/// long conversation. An update larger than `max_bytes` on its own is not kept at all (and
/// drops nothing). The store also bounds the history of all sessions together, per owner and
/// in all (see [`StoreLimits`](super::StoreLimits#history-budgets)), which can drop more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HistoryLimits {
    /// The most updates kept per session.
    pub max_updates: usize,
    /// The most bytes (of the updates' JSON) kept per session.
    pub max_bytes: usize,
}

impl HistoryLimits {
    /// The default bounds: [`DEFAULT_MAX_UPDATES`](Self::DEFAULT_MAX_UPDATES) updates and
    /// [`DEFAULT_MAX_BYTES`](Self::DEFAULT_MAX_BYTES) bytes.
    pub const DEFAULT: Self = Self {
        max_updates: Self::DEFAULT_MAX_UPDATES,
        max_bytes: Self::DEFAULT_MAX_BYTES,
    };
    /// The default count bound.
    pub const DEFAULT_MAX_UPDATES: usize = 2_000;
    /// The default size bound (2 MiB).
    pub const DEFAULT_MAX_BYTES: usize = 2 * 1024 * 1024;

    /// Bounds of `max_updates` updates and `max_bytes` bytes.
    pub const fn new(max_updates: usize, max_bytes: usize) -> Self {
        Self {
            max_updates,
            max_bytes,
        }
    }
}

impl Default for HistoryLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A bounded list of a session's updates, oldest first (see [`HistoryLimits`]).
#[derive(Debug, Clone, Default)]
pub struct History {
    limits: HistoryLimits,
    updates: VecDeque<(SessionUpdate, usize)>,
    bytes: usize,
}

impl History {
    /// An empty history within `limits`.
    pub fn new(limits: HistoryLimits) -> Self {
        Self {
            limits,
            updates: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Keeps `update`, dropping the oldest updates to stay within bounds. Returns false when
    /// `update` alone is over the byte bound, and is not kept.
    pub fn push(&mut self, update: SessionUpdate) -> bool {
        let size = json_len(&update);
        if !self.fits(size) {
            return false;
        }
        self.make_room(size);
        self.push_sized(update, size);
        true
    }

    /// True when an update of `size` bytes of JSON can be kept at all.
    pub(super) fn fits(&self, size: usize) -> bool {
        size <= self.limits.max_bytes && self.limits.max_updates > 0
    }

    /// Drops the oldest updates until one of `size` bytes fits within the bounds; returns the
    /// [`cost`](Self::cost) dropped.
    pub(super) fn make_room(&mut self, size: usize) -> usize {
        let mut freed = 0;
        while self.updates.len() >= self.limits.max_updates
            || self.bytes + size > self.limits.max_bytes
        {
            match self.pop_oldest() {
                Some(cost) => freed += cost,
                None => break,
            }
        }
        freed
    }

    /// Appends `update`, whose JSON is `size` bytes, with no bound checked (see
    /// [`make_room`](Self::make_room)).
    pub(super) fn push_sized(&mut self, update: SessionUpdate, size: usize) {
        self.bytes += size;
        self.updates.push_back((update, size));
    }

    /// Drops the oldest update; returns its [`cost`](Self::cost), `None` when empty.
    pub(super) fn pop_oldest(&mut self) -> Option<usize> {
        let (_, size) = self.updates.pop_front()?;
        self.bytes -= size;
        Some(cost_of(size))
    }

    /// Gives back the spare room of a list evicted from: all of it once empty, otherwise half
    /// of it once three quarters are unused (amortised: a list must halve again before the
    /// next copy).
    pub(super) fn shrink(&mut self) {
        if self.updates.is_empty() {
            self.updates = VecDeque::new();
        } else if self.updates.len() * 4 <= self.updates.capacity() {
            self.updates.shrink_to(self.updates.len() * 2);
        }
    }

    /// What the store's budgets count for this history: see [`cost_of`].
    pub(super) fn cost(&self) -> usize {
        self.bytes + self.updates.len() * SLOT
    }

    /// The updates kept, oldest first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &SessionUpdate> {
        self.updates.iter().map(|(update, _)| update)
    }

    /// How many updates are kept.
    pub fn len(&self) -> usize {
        self.updates.len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.updates.is_empty()
    }

    /// The size of the kept updates' JSON, in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets every update.
    pub fn clear(&mut self) {
        self.updates.clear();
        self.bytes = 0;
    }
}

/// The room one kept update takes in a [`History`] besides the heap data its JSON length
/// stands for: the slot holding it.
pub(super) const SLOT: usize = std::mem::size_of::<(SessionUpdate, usize)>();

/// What the store's history budgets count for an update whose JSON is `size` bytes: that
/// length (about what its strings take on the heap) and its [`SLOT`].
pub(super) const fn cost_of(size: usize) -> usize {
    size + SLOT
}

/// The length of `update`'s JSON, measured without building it.
pub(super) fn json_len(update: &SessionUpdate) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing a wire type into a counter cannot fail; count what was written if it did.
    let _ = serde_json::to_writer(&mut count, update);
    count.0
}

/// True for the updates that make up the conversation, the ones a [`SessionStore`] records
/// and `session/load` replays: the user's and agent's messages, thoughts, tool calls, plans,
/// and context compactions.
///
/// A compaction is conversation: its first update fixes its place in the session's timeline,
/// and its summary is what the agent kept of the context before it, so a reloaded session
/// shows where the context was compacted and into what (the updates patch one compaction by
/// its id, so replaying them in order rebuilds it; a client that did not advertise
/// `session.compaction` gets a replay without them). Notices are not: the protocol makes them
/// live events, never session history. Session state (mode, configuration options, commands,
/// title, usage) is not conversation either: `session/load`'s answer and fresh updates carry
/// it.
pub fn is_conversation(update: &SessionUpdate) -> bool {
    matches!(
        update,
        SessionUpdate::UserMessageChunk(_)
            | SessionUpdate::AgentMessageChunk(_)
            | SessionUpdate::AgentThoughtChunk(_)
            | SessionUpdate::ToolCall(_)
            | SessionUpdate::ToolCallUpdate(_)
            | SessionUpdate::Plan(_)
            | SessionUpdate::CompactionUpdate(_)
            | SessionUpdate::CompactionSummaryChunk(_)
    )
}

/// True when `update` holds terminal content (which a store leaves out: a terminal does not
/// outlive its connection).
pub(super) fn has_terminals(update: &SessionUpdate) -> bool {
    let content = match update {
        SessionUpdate::ToolCall(call) => &call.content,
        SessionUpdate::ToolCallUpdate(call) => &call.content,
        _ => return false,
    };
    content
        .iter()
        .flatten()
        .any(|c| matches!(c, ToolCallContent::Terminal(_)))
}

/// Leaves the terminal content out of `update`.
pub(super) fn strip_terminals(update: &mut SessionUpdate) {
    let content = match update {
        SessionUpdate::ToolCall(call) => &mut call.content,
        SessionUpdate::ToolCallUpdate(call) => &mut call.content,
        _ => return,
    };
    if let Some(list) = content {
        list.retain(|c| !matches!(c, ToolCallContent::Terminal(_)));
    }
}
