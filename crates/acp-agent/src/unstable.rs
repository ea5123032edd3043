//! The agent's calls to the client and session updates that need a client capability beyond
//! the baseline: compaction and notices (stable), and the draft features, each behind its
//! cargo feature.

use acp_types::*;

#[cfg(any(feature = "unstable_mcp_over_acp", feature = "unstable_auth_status"))]
use crate::ClientHandle;
use crate::Error;
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

    /// True when the client advertised subagent sessions (`subagents`).
    #[cfg(feature = "unstable_subagents")]
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
    #[cfg(feature = "unstable_subagents")]
    pub async fn subagent_update(&self, update: SubagentUpdate) -> Result<(), Error> {
        self.require(self.client_supports_subagents(), "subagents")?;
        self.update(SessionUpdate::SubagentUpdate(update)).await
    }

    /// Creates or updates a message between sessions in this session's transcript
    /// (`session_message`, draft). Needs the client capability `subagents`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `subagents`; or when the connection is closed.
    #[cfg(feature = "unstable_subagents")]
    pub async fn session_message(&self, message: SessionMessage) -> Result<(), Error> {
        self.require(self.client_supports_subagents(), "subagents")?;
        self.update(SessionUpdate::SessionMessage(message)).await
    }

    /// Streams a content block of a message between sessions (`session_message_chunk`,
    /// draft). Needs the client capability `subagents`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `subagents`; or when the connection is closed.
    #[cfg(feature = "unstable_subagents")]
    pub async fn session_message_chunk(
        &self,
        message_id: impl Into<MessageId>,
        content: impl Into<ContentBlock>,
    ) -> Result<(), Error> {
        self.require(self.client_supports_subagents(), "subagents")?;
        let chunk = SessionMessageChunk::new(message_id, content);
        self.update(SessionUpdate::SessionMessageChunk(chunk)).await
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
