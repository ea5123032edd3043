//! The agent's calls to the client and session updates that need a client capability beyond
//! the baseline: compaction and notices (stable), and the draft features, each behind its
//! cargo feature.

use acp_types::*;

#[cfg(feature = "unstable_mcp_over_acp")]
use crate::ClientHandle;
use crate::Error;
use crate::PromptContext;

/// MCP over ACP: the agent reaches MCP servers the client offered as [`McpServer::Acp`], and
/// MCP messages flow on the ACP connection.
#[cfg(feature = "unstable_mcp_over_acp")]
impl ClientHandle {
    /// `mcp/message` as a request (draft): sends an MCP request on an open connection and
    /// returns the MCP result.
    ///
    /// # Errors
    ///
    /// [`Error::Rpc`] when the client answers with an error or the connection closes.
    pub async fn message_mcp(
        &self,
        request: MessageMcpRequest,
    ) -> Result<MessageMcpResponse, Error> {
        Ok(self.peer().request::<methods::McpMessage>(&request).await?)
    }

    /// `mcp/message` as a notification (draft): sends an MCP notification on an open
    /// connection.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn message_mcp_notification(
        &self,
        notification: MessageMcpNotification,
    ) -> Result<(), Error> {
        Ok(self
            .peer()
            .notify::<methods::McpMessageNotification>(&notification)
            .await?)
    }
}

/// Session updates that need a client capability: compaction and notices (stable since the
/// November 2026 schema) and plan operations (draft).
impl PromptContext {
    /// True when the client advertised plan operations (`plan`). Without it, publish the
    /// stable `plan` update instead ([`plan`](Self::plan)).
    #[cfg(feature = "unstable")]
    pub fn client_supports_plan_operations(&self) -> bool {
        self.client()
            .client_capabilities()
            .is_some_and(|c| c.plan.is_some())
    }

    /// Publishes a plan by id, whole (`plan_update`, draft): entries, a file or markdown.
    /// Needs the client capability `plan`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `plan`; or when the connection is closed.
    #[cfg(feature = "unstable")]
    pub async fn plan_update(&self, plan: impl Into<PlanUpdateContent>) -> Result<(), Error> {
        self.require(self.client_supports_plan_operations(), "plan")?;
        self.update(SessionUpdate::PlanUpdate(PlanUpdate::new(plan)))
            .await
    }

    /// Removes the plan `plan_id` (`plan_removed`, draft). Needs the client capability `plan`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `plan`; or when the connection is closed.
    #[cfg(feature = "unstable")]
    pub async fn plan_removed(&self, plan_id: impl Into<PlanId>) -> Result<(), Error> {
        self.require(self.client_supports_plan_operations(), "plan")?;
        self.update(SessionUpdate::PlanRemoved(PlanRemoved::new(plan_id)))
            .await
    }

    /// True when the client advertised compaction updates (`session.compaction`).
    pub fn client_supports_compaction(&self) -> bool {
        self.client()
            .client_capabilities()
            .and_then(|c| c.session.as_ref())
            .is_some_and(|s| s.compaction.is_some())
    }

    /// Reports a compaction's state (`compaction_update`). Needs the client capability
    /// `session.compaction`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.compaction`; or when the connection
    /// is closed.
    pub async fn compaction_update(&self, update: CompactionUpdate) -> Result<(), Error> {
        self.require(self.client_supports_compaction(), "session.compaction")?;
        self.update(SessionUpdate::CompactionUpdate(update)).await
    }

    /// Streams a piece of a compaction's summary (`compaction_summary_chunk`). Needs the
    /// client capability `session.compaction`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.compaction`; or when the connection
    /// is closed.
    pub async fn compaction_summary_chunk(
        &self,
        compaction_id: impl Into<CompactionId>,
        content: impl Into<ContentBlock>,
    ) -> Result<(), Error> {
        self.require(self.client_supports_compaction(), "session.compaction")?;
        let chunk = CompactionSummaryChunk::new(compaction_id, content);
        self.update(SessionUpdate::CompactionSummaryChunk(chunk))
            .await
    }

    /// True when the client advertised notices (`session.notices`).
    pub fn client_supports_notices(&self) -> bool {
        self.client()
            .client_capabilities()
            .and_then(|c| c.session.as_ref())
            .is_some_and(|s| s.notices.is_some())
    }

    /// Shows the user an advisory notice (`notice`). Needs the client capability
    /// `session.notices` (the schema: agents send notices only to clients that advertise it;
    /// otherwise an agent message can carry the information).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.notices`; or when the connection is
    /// closed.
    pub async fn notice(
        &self,
        severity: impl Into<NoticeSeverity>,
        title: impl Into<String>,
    ) -> Result<(), Error> {
        self.require(self.client_supports_notices(), "session.notices")?;
        self.update(SessionUpdate::Notice(Notice::new(severity, title)))
            .await
    }

    /// Fails with [`Error::CapabilityNotAdvertised`] for a `session/update` the client did not
    /// advertise, unless gating is off.
    fn require(&self, advertised: bool, capability: &'static str) -> Result<(), Error> {
        if advertised || !self.client().gates() {
            Ok(())
        } else {
            Err(Error::CapabilityNotAdvertised {
                method: acp_types::methods::client::SESSION_UPDATE,
                capability,
            })
        }
    }
}
