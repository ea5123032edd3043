//! The draft (unstable) parts of a prompt turn: plan operations and the turn's token usage.
//! Each update that needs a client capability is sent only if the client advertised it (the
//! library refuses otherwise).

use acp_types::*;

use super::{Stop, Turn};

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

    /// The tokens of this turn, for `PromptResponse.usage`: the same count the turn added to
    /// the session's `usage_update`, split into the prompt's and the reply's.
    pub(super) fn usage(&self) -> Usage {
        let input = self.prompt_chars as u64 / 4 + 1;
        let total = (self.prompt_chars + self.reply_chars) as u64 / 4 + 1;
        Usage::new(total, input, total - input)
    }
}
