//! The agent's side of the draft (unstable) protocol features: calls to the client and
//! session updates, each behind its cargo feature. (The stable updates that need a client
//! capability, compaction and notices, are in `compaction.rs` and `notice.rs`.)

use acp_types::*;

#[cfg(any(feature = "unstable_mcp_over_acp", feature = "unstable_auth_status"))]
use crate::ClientHandle;
use crate::Error;
#[cfg(any(feature = "unstable", feature = "unstable_subagents"))]
use crate::PromptContext;

/// MCP over ACP: the agent reaches MCP servers the client offered as [`McpServer::Acp`], one
/// inner MCP request per `mcp/message` request.
#[cfg(feature = "unstable_mcp_over_acp")]
impl ClientHandle {
    /// `mcp/message` as a request (draft): sends one inner MCP request to a server the client
    /// offered (by its `serverId`), and returns the inner outcome, an MCP result or an MCP
    /// error. While it runs, the client may send `mcp/message` notifications for it
    /// ([`Agent::message_mcp_notification`](crate::Agent::message_mcp_notification)).
    ///
    /// # Errors
    ///
    /// [`Error::Rpc`] when the client answers with an ACP error (an unknown server among
    /// them) or the connection closes.
    pub async fn message_mcp(
        &self,
        request: MessageMcpRequest,
    ) -> Result<MessageMcpResponse, Error> {
        Ok(self.peer().request::<methods::McpMessage>(&request).await?)
    }
}

/// Auth status: the agent tells the client when its authentication state changes.
#[cfg(feature = "unstable_auth_status")]
impl ClientHandle {
    /// `auth/status_update` (draft), a notification: the agent's authentication state
    /// changed. Only for agents that advertised `auth.status` in their `initialize` response;
    /// send it when the state differs from the last one sent.
    ///
    /// # Errors
    ///
    /// [`Error::OwnCapabilityNotAdvertised`] when the agent did not advertise `auth.status`
    /// (nothing is sent), or when the connection is closed.
    pub async fn auth_status_update(
        &self,
        notification: AuthStatusUpdateNotification,
    ) -> Result<(), Error> {
        let advertised = self
            .agent_capabilities()
            .and_then(|c| c.auth.as_ref())
            .is_some_and(|a| a.status.is_some());
        if !advertised && self.gates() {
            return Err(Error::OwnCapabilityNotAdvertised {
                method: methods::client::AUTH_STATUS_UPDATE,
                capability: "auth.status",
            });
        }
        Ok(self
            .peer()
            .notify::<methods::AuthStatusUpdate>(&notification)
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

/// Subagents (draft): child sessions, their state and the messages between sessions; sent only
/// to a client that advertised `subagents` (see [`PromptContext::update`]).
#[cfg(feature = "unstable_subagents")]
impl PromptContext {
    /// True when the client advertised subagent sessions (`subagents`).
    pub fn client_supports_subagents(&self) -> bool {
        self.client()
            .client_capabilities()
            .is_some_and(|c| c.subagents.is_some())
    }

    /// Announces or describes a child session of this session (`subagent_update`, draft):
    /// the first update for a child comes before any of its traffic. Needs the client
    /// capability `subagents`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `subagents`; or when the connection is closed.
    pub async fn subagent_update(&self, update: SubagentUpdate) -> Result<(), Error> {
        self.update(SessionUpdate::SubagentUpdate(update)).await
    }

    /// Creates or updates a message between sessions in this session's transcript
    /// (`session_message`, draft). Needs the client capability `subagents`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `subagents`; or when the connection is closed.
    pub async fn session_message(&self, message: SessionMessage) -> Result<(), Error> {
        self.update(SessionUpdate::SessionMessage(message)).await
    }

    /// Streams a content block of a message between sessions (`session_message_chunk`,
    /// draft). Needs the client capability `subagents`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `subagents`; or when the connection is closed.
    pub async fn session_message_chunk(
        &self,
        message_id: impl Into<MessageId>,
        content: impl Into<ContentBlock>,
    ) -> Result<(), Error> {
        let chunk = SessionMessageChunk::new(message_id, content);
        self.update(SessionUpdate::SessionMessageChunk(chunk)).await
    }
}
