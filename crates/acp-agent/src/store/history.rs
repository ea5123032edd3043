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
/// drops nothing).
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
        if size > self.limits.max_bytes || self.limits.max_updates == 0 {
            return false;
        }
        while self.updates.len() >= self.limits.max_updates
            || self.bytes + size > self.limits.max_bytes
        {
            match self.updates.pop_front() {
                Some((_, dropped)) => self.bytes -= dropped,
                None => break,
            }
        }
        self.bytes += size;
        self.updates.push_back((update, size));
        true
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
/// and `session/load` replays: the user's and agent's messages, thoughts, tool calls and
/// plans. Session state (mode, configuration options, commands, title, usage) is not
/// conversation: `session/load`'s answer and fresh updates carry it.
pub fn is_conversation(update: &SessionUpdate) -> bool {
    matches!(
        update,
        SessionUpdate::UserMessageChunk(_)
            | SessionUpdate::AgentMessageChunk(_)
            | SessionUpdate::AgentThoughtChunk(_)
            | SessionUpdate::ToolCall(_)
            | SessionUpdate::ToolCallUpdate(_)
            | SessionUpdate::Plan(_)
    )
}

/// `update` without terminal content.
pub(super) fn without_terminals(update: &SessionUpdate) -> SessionUpdate {
    let mut update = update.clone();
    let content = match &mut update {
        SessionUpdate::ToolCall(call) => &mut call.content,
        SessionUpdate::ToolCallUpdate(call) => &mut call.content,
        _ => return update,
    };
    if let Some(list) = content {
        list.retain(|c| !matches!(c, ToolCallContent::Terminal(_)));
    }
    update
}
