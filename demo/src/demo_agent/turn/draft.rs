//! The draft (unstable) parts of a prompt turn: plan operations, compaction, notices and the
//! turn's token usage. Each update that needs a client capability is sent only if the client
//! advertised it (the library refuses otherwise).

use acp_types::*;

use super::{Stop, Turn, word_chunks};

impl Turn<'_> {
    /// Publishes this turn's plan by id (`plan_update`); removes it (`plan_removed`) once done.
    pub(super) async fn plan_operations(
        &mut self,
        entries: Vec<PlanEntry>,
        done: bool,
    ) -> Result<(), Stop> {
        let id = format!("plan-{}", self.turn);
        let update = self.cx.plan_update(PlanUpdateContent::Items(PlanItems::new(
            id.as_str(),
            entries,
        )));
        self.guard(update).await?;
        if done {
            self.guard(self.cx.plan_removed(id)).await?;
        }
        Ok(())
    }

    /// `compact`: reports a compaction of the session's context (the tokens it holds shrink to
    /// those of the summary), if the client advertised `session.compaction`.
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
        let id = CompactionId::from(format!("compaction-{}", self.turn));
        let started = CompactionUpdate::new(id.clone(), CompactionStatus::InProgress);
        self.guard(self.cx.compaction_update(started)).await?;
        for chunk in word_chunks(&summary) {
            let sent = self
                .guard(self.cx.compaction_summary_chunk(id.clone(), chunk))
                .await;
            if let Err(stop) = sent {
                // A compaction ends in a terminal status, even a cancelled one (updates may
                // still precede the prompt's answer after `session/cancel`).
                if matches!(stop, Stop::Cancelled) {
                    let cancelled = CompactionUpdate::new(id, CompactionStatus::Cancelled);
                    let _ = self.cx.compaction_update(cancelled).await;
                }
                return Err(stop);
            }
        }
        self.session(|s| s.tokens_used = after)?;
        let done = CompactionUpdate::new(id, CompactionStatus::Completed)
            .summary(vec![ContentBlock::from(summary)]);
        self.guard(self.cx.compaction_update(done)).await?;
        self.say(&format!(
            "Compacted the context from {before} to {after} tokens."
        ))
        .await
    }

    /// `notice`: shows the user an advisory notice, if the client advertised
    /// `session.notices`; else says it in an agent message, as the schema suggests.
    pub(super) async fn notice(
        &mut self,
        severity: NoticeSeverity,
        title: String,
    ) -> Result<(), Stop> {
        let what = severity.as_str().to_owned();
        if !self.cx.client_supports_notices() {
            return self.say(&format!("Notice ({what}): {title}")).await;
        }
        self.guard(self.cx.notice(severity, title)).await?;
        self.say(&format!("Sent a notice ({what}).")).await
    }

    /// The tokens of this turn, for `PromptResponse.usage`: the same count the turn added to
    /// the session's `usage_update`, split into the prompt's and the reply's.
    pub(super) fn usage(&self) -> Usage {
        let input = self.prompt_chars as u64 / 4 + 1;
        let total = (self.prompt_chars + self.reply_chars) as u64 / 4 + 1;
        Usage::new(total, input, total - input)
    }
}
