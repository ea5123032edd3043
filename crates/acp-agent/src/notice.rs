//! Session notices: fire-and-forget information for the user (a rate limit, a fallback
//! model, a degraded tool), shown by severity. Live only: never part of the session's history
//! (a [`SessionStore`](crate::SessionStore) does not record them, `session/load` does not
//! replay them), and never relied upon: the user may not see one.
//!
//! Sent only to a client that advertised `session.notices`; to any other the calls fail with
//! [`Error::CapabilityNotAdvertised`] and nothing is sent. Say it as an agent message instead
//! when the user must see it anyway:
//!
//! ```no_run
//! # use acp_agent::{Error, PromptContext};
//! # use acp_types::*;
//! # #[allow(dead_code)]
//! # async fn turn(cx: PromptContext) -> Result<(), Error> {
//! if cx.client_supports_notices() {
//!     let notice = Notice::new(NoticeSeverity::Warning, "Rate limited")
//!         .description("Retrying in 30 seconds.");
//!     cx.notice_with(notice).await?;
//! } else {
//!     cx.message("(Rate limited: retrying in 30 seconds.)").await?;
//! }
//! # Ok(()) }
//! ```

use acp_types::*;

use crate::{Error, PromptContext};

impl PromptContext {
    /// True when the client advertised notices (`session.notices`).
    pub fn client_supports_notices(&self) -> bool {
        self.client()
            .client_capabilities()
            .and_then(|c| c.session.as_ref())
            .is_some_and(|s| s.notices.is_some())
    }

    /// Shows the user a notice of `severity` with `title` (plain text that stands alone, not
    /// empty) (`notice`).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.notices` (nothing is sent); or when
    /// the connection is closed.
    pub async fn notice(
        &self,
        severity: impl Into<NoticeSeverity>,
        title: impl Into<String>,
    ) -> Result<(), Error> {
        self.notice_with(Notice::new(severity, title)).await
    }

    /// Shows the user `notice` (with a description or `_meta`) (`notice`).
    ///
    /// # Errors
    ///
    /// As [`notice`](Self::notice).
    pub async fn notice_with(&self, notice: Notice) -> Result<(), Error> {
        self.update(SessionUpdate::Notice(notice)).await
    }
}
