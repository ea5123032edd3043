//! Context compaction as the client sees it: one compaction, started, given its summary, and
//! ended, its `compactionId` kept by a [`Compaction`] so that every update names the same one.
//!
//! The client shows a compaction only if it advertised `session.compaction`; to any other
//! client nothing is sent and the calls fail with [`Error::CapabilityNotAdvertised`] (check
//! [`PromptContext::client_supports_compaction`] first to do without it).
//!
//! ```no_run
//! # use acp_agent::{Error, PromptContext};
//! # #[allow(dead_code)]
//! # async fn turn(cx: PromptContext) -> Result<(), Error> {
//! if cx.client_supports_compaction() {
//!     let compaction = cx.compaction().await?; // `in_progress`
//!     compaction.summary_chunk("The user wants the TODOs of notes.txt fixed; ").await?;
//!     compaction.summary_chunk("two are left.").await?;
//!     compaction.completed().await?; // Dropped unfinished, it would report `cancelled`.
//! }
//! # Ok(()) }
//! ```

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use acp_types::*;
use futures::FutureExt;

use crate::{Error, PromptContext};

/// One compaction of the session's context, started with [`PromptContext::compaction`]
/// (a `compaction_update`, `in_progress`) and reported on under its id until it ends.
///
/// It ends with [`completed`](Self::completed), [`failed`](Self::failed) or
/// [`cancelled`](Self::cancelled) (or their `_with` forms). Dropped before that (the turn
/// was cancelled at an await, or returned early with `?`), it reports `cancelled` on its own,
/// at once and without waiting (so before the turn's answer): when the connection's outgoing
/// buffer is full at that moment, or the connection is closed, the update is not sent (logged
/// at debug level).
#[derive(Debug)]
pub struct Compaction {
    cx: PromptContext,
    id: CompactionId,
    /// Set once a final status was handed to the connection.
    ended: AtomicBool,
}

impl Compaction {
    /// The compaction's id (`compactionId`).
    pub fn id(&self) -> &CompactionId {
        &self.id
    }

    /// Appends `content` to the summary the client shows (`compaction_summary_chunk`).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn summary_chunk(&self, content: impl Into<ContentBlock>) -> Result<(), Error> {
        let chunk = CompactionSummaryChunk::new(self.id.clone(), content);
        self.cx
            .update(SessionUpdate::CompactionSummaryChunk(chunk))
            .await
    }

    /// Replaces the whole summary the client shows (a `compaction_update` with `summary`,
    /// still `in_progress`); an empty `summary` clears it.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn replace_summary(
        &self,
        summary: impl IntoIterator<Item = impl Into<ContentBlock>>,
    ) -> Result<(), Error> {
        let update = self
            .status(CompactionStatus::InProgress)
            .summary(summary.into_iter().map(Into::into).collect::<Vec<_>>());
        self.cx
            .update(SessionUpdate::CompactionUpdate(update))
            .await
    }

    /// Ends the compaction `completed`, keeping the summary streamed so far.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn completed(self) -> Result<(), Error> {
        self.end(self.status(CompactionStatus::Completed)).await
    }

    /// Ends the compaction `completed` with `summary` as its whole summary, in one update.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn completed_with(
        self,
        summary: impl IntoIterator<Item = impl Into<ContentBlock>>,
    ) -> Result<(), Error> {
        let summary: Vec<ContentBlock> = summary.into_iter().map(Into::into).collect();
        self.end(self.status(CompactionStatus::Completed).summary(summary))
            .await
    }

    /// Ends the compaction `failed`, telling the user why (`error`).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn failed(self, error: impl Into<String>) -> Result<(), Error> {
        self.end(self.status(CompactionStatus::Failed).error(error.into()))
            .await
    }

    /// Ends the compaction `cancelled` (what dropping it does too, without waiting).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn cancelled(self) -> Result<(), Error> {
        self.end(self.status(CompactionStatus::Cancelled)).await
    }

    /// A `compaction_update` of this compaction with `status`.
    fn status(&self, status: CompactionStatus) -> CompactionUpdate {
        CompactionUpdate::new(self.id.clone(), status)
    }

    /// Sends the final `update`; the drop then sends nothing more, even if this fails (the
    /// connection is gone, or the final status went out as far as it could).
    async fn end(&self, update: CompactionUpdate) -> Result<(), Error> {
        self.ended.store(true, Ordering::Relaxed);
        self.cx
            .update(SessionUpdate::CompactionUpdate(update))
            .await
    }
}

impl Drop for Compaction {
    fn drop(&mut self) {
        if self.ended.load(Ordering::Relaxed) {
            return;
        }
        // Queued at once if the outgoing buffer has room (a send is whole or nothing), so the
        // status goes out before the turn's answer; never waits in a `Drop`.
        let update = SessionUpdate::CompactionUpdate(self.status(CompactionStatus::Cancelled));
        match self.cx.update(update).now_or_never() {
            Some(Err(error)) => {
                tracing::debug!(compaction = %self.id, %error, "could not report a dropped compaction cancelled");
            }
            None => {
                tracing::debug!(compaction = %self.id, "a dropped compaction's `cancelled` may not have been sent (the outgoing buffer was full)");
            }
            Some(Ok(())) => {}
        }
    }
}

impl PromptContext {
    /// True when the client advertised compaction updates (`session.compaction`).
    pub fn client_supports_compaction(&self) -> bool {
        self.client()
            .client_capabilities()
            .and_then(|c| c.session.as_ref())
            .is_some_and(|s| s.compaction.is_some())
    }

    /// Starts a compaction of the session's context with a fresh id (unique on the
    /// connection): reports it `in_progress` and returns its [`Compaction`].
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.compaction` (nothing is sent); or
    /// when the connection is closed.
    pub async fn compaction(&self) -> Result<Compaction, Error> {
        self.start_compaction(fresh_id()).await
    }

    /// Starts the compaction `id` (the agent's own id, unique within the session): reports it
    /// `in_progress` and returns its [`Compaction`].
    ///
    /// # Errors
    ///
    /// As [`compaction`](Self::compaction).
    pub async fn start_compaction(&self, id: impl Into<CompactionId>) -> Result<Compaction, Error> {
        let id = id.into();
        let started = CompactionUpdate::new(id.clone(), CompactionStatus::InProgress);
        self.update(SessionUpdate::CompactionUpdate(started))
            .await?;
        Ok(Compaction {
            cx: self.clone(),
            id,
            ended: AtomicBool::new(false),
        })
    }

    /// Sends `update` as it is (`compaction_update`): for what [`Compaction`] does not cover
    /// (a `_meta` patch, a status of an extension).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.compaction` (nothing is sent); or
    /// when the connection is closed.
    pub async fn compaction_update(&self, update: CompactionUpdate) -> Result<(), Error> {
        self.update(SessionUpdate::CompactionUpdate(update)).await
    }

    /// Appends `content` to the summary of compaction `compaction_id`
    /// (`compaction_summary_chunk`); a first-seen id makes the client show a compaction in
    /// progress.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.compaction` (nothing is sent); or
    /// when the connection is closed.
    pub async fn compaction_summary_chunk(
        &self,
        compaction_id: impl Into<CompactionId>,
        content: impl Into<ContentBlock>,
    ) -> Result<(), Error> {
        let chunk = CompactionSummaryChunk::new(compaction_id, content);
        self.update(SessionUpdate::CompactionSummaryChunk(chunk))
            .await
    }
}

/// A compaction id no other compaction of any session has: `compaction-`, a number drawn once
/// per process (so that ids of a session stored across restarts do not repeat), and a count.
fn fresh_id() -> CompactionId {
    static PROCESS: OnceLock<u64> = OnceLock::new();
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let process = *PROCESS.get_or_init(|| {
        let mut bytes = [0u8; 8];
        match getrandom::fill(&mut bytes) {
            Ok(()) => u64::from_le_bytes(bytes),
            // Without randomness, the clock: ids stay unique within the process anyway.
            Err(_) => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() ^ u64::from(d.subsec_nanos())),
        }
    });
    let n = COUNT.fetch_add(1, Ordering::Relaxed) + 1;
    CompactionId::from(format!("compaction-{process:016x}-{n}"))
}
