//! The `compact` and `notice` commands of a turn: a compaction of the session's context
//! reported to the client (`compaction_update`, `compaction_summary_chunk`) and a notice for
//! the user (`notice`), each sent only to a client that advertised it (`session.compaction`,
//! `session.notices`); to any other the turn says it in its reply instead.

use acp_types::*;

use super::{Stop, Turn, word_chunks};

impl Turn<'_> {
    /// `compact`: compacts the session's context (the tokens it holds shrink to those of the
    /// summary), streaming the summary of the compaction to a client that advertised
    /// `session.compaction`.
    pub(super) async fn compact(&mut self) -> Result<(), Stop> {
        let (turns, mode, before) = self.session(|s| (s.turns, s.mode.clone(), s.tokens_used))?;
        let summary = format!(
            "Summary of {turns} turn(s) in `{mode}` mode: the user tried the demo agent's \
             commands; nothing is pending."
        );
        // What the summary takes, never more than before.
        let after = (summary.len() as u64 / 4 + 1).min(before);
        if !self.cx.client_supports_compaction() {
            self.session(|s| s.tokens_used = after)?;
            return self
                .say(&format!(
                    "Compacted the context from {before} to {after} tokens (the client did not \
                     advertise `session.compaction`, so without reporting it)."
                ))
                .await;
        }
        let id = format!("compaction-{}", self.turn);
        // Cancelled at any await below, the dropped compaction reports itself `cancelled`.
        let compaction = self.guard(self.cx.start_compaction(id)).await?;
        for chunk in word_chunks(&summary) {
            self.guard(compaction.summary_chunk(chunk)).await?;
        }
        self.session(|s| s.tokens_used = after)?;
        self.guard(compaction.completed()).await?;
        self.say(&format!(
            "Compacted the context from {before} to {after} tokens."
        ))
        .await
    }

    /// `notice`: shows the user a notice, or says it in the reply to a client that did not
    /// advertise `session.notices`.
    pub(super) async fn notice(
        &mut self,
        severity: NoticeSeverity,
        title: String,
    ) -> Result<(), Stop> {
        let what = severity.as_str().to_owned();
        if !self.cx.client_supports_notices() {
            return self
                .say(&format!(
                    "Notice ({what}): {title} (the client did not advertise `session.notices`, \
                     so as a message)."
                ))
                .await;
        }
        self.guard(self.cx.notice(severity, title)).await?;
        self.say(&format!("Sent a notice ({what}).")).await
    }
}
