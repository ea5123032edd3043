//! The agent's side of the draft (unstable) protocol features: calls to the client and
//! session updates, each behind its cargo feature. (The stable updates that need a client
//! capability, compaction and notices, are in `compaction.rs` and `notice.rs`.)

use acp_types::*;

#[cfg(feature = "unstable_mcp_over_acp")]
use crate::ClientHandle;
#[cfg(any(feature = "unstable", feature = "unstable_mcp_over_acp"))]
use crate::Error;
#[cfg(feature = "unstable")]
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

/// Plan operations (draft): a plan by id, whole, and its removal; sent only to a client that
/// advertised `plan` (see [`PromptContext::update`]).
#[cfg(feature = "unstable")]
impl PromptContext {
    /// True when the client advertised plan operations (`plan`). Without it, publish the
    /// stable `plan` update instead ([`plan`](Self::plan)).
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
    /// [`Error::CapabilityNotAdvertised`] without `plan` (nothing is sent); or when the
    /// connection is closed.
    pub async fn plan_update(&self, plan: impl Into<PlanUpdateContent>) -> Result<(), Error> {
        self.update(SessionUpdate::PlanUpdate(PlanUpdate::new(plan)))
            .await
    }

    /// Removes the plan `plan_id` (`plan_removed`, draft). Needs the client capability `plan`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `plan` (nothing is sent); or when the
    /// connection is closed.
    pub async fn plan_removed(&self, plan_id: impl Into<PlanId>) -> Result<(), Error> {
        self.update(SessionUpdate::PlanRemoved(PlanRemoved::new(plan_id)))
            .await
    }
}
