//! The agent's side of the draft (unstable) protocol features: calls to the client and
//! session updates, each behind its cargo feature.

use acp_types::*;

#[cfg(feature = "unstable_mcp_over_acp")]
use crate::ClientHandle;
use crate::Error;
#[cfg(any(
    feature = "unstable_plan_operations",
    feature = "unstable_session_compaction",
    feature = "unstable_session_notices"
))]
use crate::PromptContext;

/// MCP over ACP: the agent connects to MCP servers the client offered as
/// [`McpServer::Acp`], and MCP messages flow on the ACP connection.
#[cfg(feature = "unstable_mcp_over_acp")]
impl ClientHandle {
    /// `mcp/connect` (draft): opens a connection to an MCP server the client offered with
    /// `"type": "acp"`; later `mcp/message`s and `mcp/disconnect` name the connection id it
    /// returns.
    ///
    /// # Errors
    ///
    /// [`Error::Rpc`] when the client answers with an error or the connection closes.
    pub async fn connect_mcp(
        &self,
        request: ConnectMcpRequest,
    ) -> Result<ConnectMcpResponse, Error> {
        Ok(self.peer().request::<methods::McpConnect>(&request).await?)
    }

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

    /// `mcp/disconnect` (draft): closes an MCP-over-ACP connection. Once the client has
    /// answered, its `mcp/message`s on the connection are refused.
    ///
    /// # Errors
    ///
    /// [`Error::Rpc`] when the client answers with an error or the connection closes.
    pub async fn disconnect_mcp(
        &self,
        request: DisconnectMcpRequest,
    ) -> Result<DisconnectMcpResponse, Error> {
        let response = self
            .peer()
            .request::<methods::McpDisconnect>(&request)
            .await?;
        self.mcp_disconnected(&request.connection_id);
        Ok(response)
    }
}

/// Session updates of the draft features.
#[cfg(any(
    feature = "unstable_plan_operations",
    feature = "unstable_session_compaction",
    feature = "unstable_session_notices"
))]
impl PromptContext {
    /// True when the client advertised plan operations (`plan`). Without it, publish the
    /// stable `plan` update instead ([`plan`](Self::plan)).
    #[cfg(feature = "unstable_plan_operations")]
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
    #[cfg(feature = "unstable_plan_operations")]
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
    #[cfg(feature = "unstable_plan_operations")]
    pub async fn plan_removed(&self, plan_id: impl Into<PlanId>) -> Result<(), Error> {
        self.require(self.client_supports_plan_operations(), "plan")?;
        self.update(SessionUpdate::PlanRemoved(PlanRemoved::new(plan_id)))
            .await
    }

    /// True when the client advertised compaction updates (`session.compaction`).
    #[cfg(feature = "unstable_session_compaction")]
    pub fn client_supports_compaction(&self) -> bool {
        self.client()
            .client_capabilities()
            .and_then(|c| c.session.as_ref())
            .is_some_and(|s| s.compaction.is_some())
    }

    /// Reports a compaction's state (`compaction_update`, draft). Needs the client capability
    /// `session.compaction`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.compaction`; or when the connection
    /// is closed.
    #[cfg(feature = "unstable_session_compaction")]
    pub async fn compaction_update(&self, update: CompactionUpdate) -> Result<(), Error> {
        self.require(self.client_supports_compaction(), "session.compaction")?;
        self.update(SessionUpdate::CompactionUpdate(update)).await
    }

    /// Streams a piece of a compaction's summary (`compaction_summary_chunk`, draft). Needs the
    /// client capability `session.compaction`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.compaction`; or when the connection
    /// is closed.
    #[cfg(feature = "unstable_session_compaction")]
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

    /// Shows the user an advisory notice (`notice`, draft). No capability is needed: clients
    /// that do not know notices ignore them.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    #[cfg(feature = "unstable_session_notices")]
    pub async fn notice(
        &self,
        severity: impl Into<NoticeSeverity>,
        title: impl Into<String>,
    ) -> Result<(), Error> {
        self.update(SessionUpdate::Notice(Notice::new(severity, title)))
            .await
    }

    /// Fails with [`Error::CapabilityNotAdvertised`] for a `session/update` the client did not
    /// advertise, unless gating is off.
    #[cfg(any(
        feature = "unstable_plan_operations",
        feature = "unstable_session_compaction"
    ))]
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
