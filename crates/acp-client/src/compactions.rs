//! A session's context compactions as a client shows them, rebuilt from the agent's
//! `compaction_update` and `compaction_summary_chunk` updates with the protocol's rules: the
//! first update of an id fixes the compaction's place in the timeline (a first-seen id in a
//! summary chunk makes a compaction `in_progress`), later ones patch it in place (`summary`,
//! `error` and `_meta` left unchanged when omitted, cleared by `null`, replaced otherwise;
//! `summary: []` clears it too), and chunks append to the summary in the order received.
//!
//! Advertise `session.compaction` in `initialize` only if the client shows them; then feed
//! every update to [`Compactions::apply`]:
//!
//! ```
//! use acp_client::Compactions;
//! use acp_types::*;
//!
//! let caps = ClientCapabilities::new()
//!     .session(ClientSessionCapabilities::new().compaction(CompactionCapabilities::new()));
//! # let _ = caps;
//! let mut compactions = Compactions::new();
//! let started = CompactionUpdate::new("c1", CompactionStatus::InProgress);
//! compactions.apply(&SessionUpdate::CompactionUpdate(started))?;
//! let chunk = CompactionSummaryChunk::new("c1", "Fixed two TODOs.");
//! compactions.apply(&SessionUpdate::CompactionSummaryChunk(chunk))?;
//! let done = CompactionUpdate::new("c1", CompactionStatus::Completed);
//! let shown = compactions.apply(&SessionUpdate::CompactionUpdate(done))?.unwrap();
//! assert_eq!(shown.status, CompactionStatus::Completed);
//! assert_eq!(shown.summary[0].as_text(), Some("Fixed two TODOs."));
//! # Ok::<(), acp_client::CompactionError>(())
//! ```
//!
//! Bounded: at most [`Compactions::with_limits`]' number of compactions (the oldest is
//! forgotten to make room) and of summary blocks per compaction (a chunk beyond it is refused
//! with [`CompactionError::SummaryTooLong`], never dropped silently).

use acp_types::*;

/// The default number of compactions kept per session.
pub const DEFAULT_MAX_COMPACTIONS: usize = 64;

/// The default number of content blocks a compaction's summary may hold.
pub const DEFAULT_MAX_SUMMARY_BLOCKS: usize = 4096;

/// One compaction as the client shows it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CompactionView {
    /// Its id.
    pub id: CompactionId,
    /// Its status now.
    pub status: CompactionStatus,
    /// Its summary: the last one given whole, and the chunks appended since.
    pub summary: Vec<ContentBlock>,
    /// Why it failed, as the agent said.
    pub error: Option<String>,
    /// Its metadata.
    pub meta: Option<Meta>,
}

impl CompactionView {
    fn new(id: CompactionId) -> Self {
        Self {
            id,
            status: CompactionStatus::InProgress,
            summary: Vec::new(),
            error: None,
            meta: None,
        }
    }
}

/// An update [`Compactions::apply`] refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompactionError {
    /// The summary of compaction `id` would hold more than `limit` blocks.
    #[error("the summary of compaction {id} would hold more than {limit} content blocks")]
    SummaryTooLong {
        /// The compaction.
        id: CompactionId,
        /// The bound.
        limit: usize,
    },
}

/// A session's compactions, in timeline order (see the [module](self) docs).
#[derive(Debug, Clone)]
pub struct Compactions {
    list: Vec<CompactionView>,
    max_compactions: usize,
    max_summary_blocks: usize,
}

impl Default for Compactions {
    fn default() -> Self {
        Self::new()
    }
}

impl Compactions {
    /// No compaction yet, with the default bounds ([`DEFAULT_MAX_COMPACTIONS`],
    /// [`DEFAULT_MAX_SUMMARY_BLOCKS`]).
    pub fn new() -> Self {
        Self::with_limits(DEFAULT_MAX_COMPACTIONS, DEFAULT_MAX_SUMMARY_BLOCKS)
    }

    /// No compaction yet, keeping at most `max_compactions` (at least one) and
    /// `max_summary_blocks` blocks in each summary.
    pub fn with_limits(max_compactions: usize, max_summary_blocks: usize) -> Self {
        Self {
            list: Vec::new(),
            max_compactions: max_compactions.max(1),
            max_summary_blocks,
        }
    }

    /// Applies `update` if it is a compaction update; returns the compaction as it is now
    /// (`None` for any other update).
    ///
    /// # Errors
    ///
    /// [`CompactionError::SummaryTooLong`] for a summary past the bound; the compaction is
    /// left as it was.
    pub fn apply(
        &mut self,
        update: &SessionUpdate,
    ) -> Result<Option<&CompactionView>, CompactionError> {
        match update {
            SessionUpdate::CompactionUpdate(update) => self.patch(update).map(Some),
            SessionUpdate::CompactionSummaryChunk(chunk) => self.append(chunk).map(Some),
            _ => Ok(None),
        }
    }

    /// The compaction `id`, if it is kept.
    pub fn get(&self, id: &CompactionId) -> Option<&CompactionView> {
        self.list.iter().find(|c| c.id == *id)
    }

    /// Every compaction kept, in timeline order.
    pub fn iter(&self) -> impl Iterator<Item = &CompactionView> {
        self.list.iter()
    }

    /// The number of compactions kept.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when no compaction is kept.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    fn patch(&mut self, update: &CompactionUpdate) -> Result<&CompactionView, CompactionError> {
        if let Some(summary) = &update.summary
            && summary.len() > self.max_summary_blocks
        {
            return Err(self.too_long(&update.compaction_id));
        }
        let was_null = |field| update.extras().was_null(field);
        let view = self.entry(&update.compaction_id);
        view.status = update.status.clone();
        match &update.summary {
            Some(summary) => view.summary.clone_from(summary),
            None if was_null("summary") => view.summary.clear(),
            None => {}
        }
        match &update.error {
            Some(error) => view.error = Some(error.clone()),
            None if was_null("error") => view.error = None,
            None => {}
        }
        match &update.meta {
            Some(meta) => view.meta = Some(meta.clone()),
            None if was_null("_meta") => view.meta = None,
            None => {}
        }
        Ok(view)
    }

    fn append(
        &mut self,
        chunk: &CompactionSummaryChunk,
    ) -> Result<&CompactionView, CompactionError> {
        let full = self
            .get(&chunk.compaction_id)
            .is_some_and(|c| c.summary.len() >= self.max_summary_blocks);
        if full || self.max_summary_blocks == 0 {
            return Err(self.too_long(&chunk.compaction_id));
        }
        let view = self.entry(&chunk.compaction_id);
        view.summary.push(chunk.content.clone());
        Ok(view)
    }

    /// The compaction `id`, made `in_progress` at the end of the timeline if it is new (the
    /// oldest forgotten beyond the bound).
    fn entry(&mut self, id: &CompactionId) -> &mut CompactionView {
        let index = match self.list.iter().position(|c| c.id == *id) {
            Some(index) => index,
            None => {
                if self.list.len() >= self.max_compactions {
                    self.list.remove(0);
                }
                self.list.push(CompactionView::new(id.clone()));
                self.list.len() - 1
            }
        };
        &mut self.list[index]
    }

    fn too_long(&self, id: &CompactionId) -> CompactionError {
        CompactionError::SummaryTooLong {
            id: id.clone(),
            limit: self.max_summary_blocks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(json: &str) -> SessionUpdate {
        acp_types::from_str(json).unwrap()
    }

    #[test]
    fn updates_patch_and_chunks_append_as_the_schema_says() {
        let mut all = Compactions::new();
        // A first-seen id in a chunk makes an in-progress compaction.
        let chunk = r#"{"sessionUpdate":"compaction_summary_chunk","compactionId":"a","content":{"type":"text","text":"one "}}"#;
        let a = all.apply(&update(chunk)).unwrap().unwrap();
        assert_eq!(a.status, CompactionStatus::InProgress);
        all.apply(&update(chunk)).unwrap();
        // Omitted: unchanged.
        let done = r#"{"sessionUpdate":"compaction_update","compactionId":"a","status":"completed","error":"late"}"#;
        let a = all.apply(&update(done)).unwrap().unwrap();
        assert_eq!(a.summary.len(), 2);
        assert_eq!(a.error.as_deref(), Some("late"));
        // `null` clears; a value replaces.
        let cleared = r#"{"sessionUpdate":"compaction_update","compactionId":"a","status":"completed","summary":null,"error":null}"#;
        let a = all.apply(&update(cleared)).unwrap().unwrap();
        assert!(a.summary.is_empty() && a.error.is_none());
        let whole = r#"{"sessionUpdate":"compaction_update","compactionId":"a","status":"completed","summary":[{"type":"text","text":"all"}]}"#;
        let a = all.apply(&update(whole)).unwrap().unwrap();
        assert_eq!(a.summary[0].as_text(), Some("all"));
        // `[]` clears too.
        let empty = r#"{"sessionUpdate":"compaction_update","compactionId":"a","status":"completed","summary":[]}"#;
        assert!(
            all.apply(&update(empty))
                .unwrap()
                .unwrap()
                .summary
                .is_empty()
        );
        // A second one goes after it; other updates are not compactions.
        let b = r#"{"sessionUpdate":"compaction_update","compactionId":"b","status":"_custom"}"#;
        all.apply(&update(b)).unwrap();
        let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        let other =
            r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}"#;
        assert!(all.apply(&update(other)).unwrap().is_none());
    }

    #[test]
    fn the_bounds_forget_the_oldest_compaction_and_refuse_a_long_summary() {
        let mut all = Compactions::with_limits(2, 1);
        for id in ["a", "b", "c"] {
            let started = CompactionUpdate::new(id, CompactionStatus::InProgress);
            all.apply(&SessionUpdate::CompactionUpdate(started))
                .unwrap();
        }
        let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["b", "c"]);
        let chunk = |text: &str| {
            SessionUpdate::CompactionSummaryChunk(CompactionSummaryChunk::new("c", text))
        };
        all.apply(&chunk("kept")).unwrap();
        let refused = all.apply(&chunk("one too many")).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the summary of compaction c would hold more than 1 content blocks"
        );
        assert_eq!(all.get(&"c".into()).unwrap().summary.len(), 1);
        let whole = CompactionUpdate::new("c", CompactionStatus::Completed)
            .summary(vec![ContentBlock::from("a"), ContentBlock::from("b")]);
        assert!(all.apply(&SessionUpdate::CompactionUpdate(whole)).is_err());
        assert_eq!(
            all.get(&"c".into()).unwrap().status,
            CompactionStatus::InProgress
        );
    }
}
