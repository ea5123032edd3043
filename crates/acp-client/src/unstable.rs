//! The client's side of the draft (unstable) protocol features: typed calls to the agent,
//! each behind its cargo feature and gated on the capability the agent advertised.

#[cfg(any(
    feature = "unstable_session_fork",
    feature = "unstable_llm_providers",
    feature = "unstable_mcp_over_acp",
    feature = "unstable_nes"
))]
use acp_types::methods::agent as am;
#[cfg(any(
    feature = "unstable_session_fork",
    feature = "unstable_llm_providers",
    feature = "unstable_mcp_over_acp",
    feature = "unstable_nes"
))]
use acp_types::*;

#[cfg(any(
    feature = "unstable_session_fork",
    feature = "unstable_llm_providers",
    feature = "unstable_mcp_over_acp",
    feature = "unstable_nes"
))]
use crate::{AgentHandle, Error};

#[cfg(any(
    feature = "unstable_session_fork",
    feature = "unstable_llm_providers",
    feature = "unstable_mcp_over_acp",
    feature = "unstable_nes"
))]
impl AgentHandle {
    /// `session/fork` (draft): forks a session into a new one with the same history, for side
    /// prompts. Needs `sessionCapabilities.fork`. The new session is this connection's as soon
    /// as the agent answers.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `sessionCapabilities.fork`;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    #[cfg(feature = "unstable_session_fork")]
    pub async fn fork_session(
        &self,
        request: ForkSessionRequest,
    ) -> Result<ForkSessionResponse, Error> {
        self.require(am::SESSION_FORK, "sessionCapabilities.fork", |c| {
            c.session_capabilities
                .as_ref()
                .is_some_and(|s| s.fork.is_some())
        })?;
        Ok(self
            .peer()
            .request::<methods::SessionFork>(&request)
            .await?)
    }

    /// `providers/list` (draft): the agent's LLM providers. Needs `providers`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `providers`;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    #[cfg(feature = "unstable_llm_providers")]
    pub async fn list_providers(
        &self,
        request: ListProvidersRequest,
    ) -> Result<ListProvidersResponse, Error> {
        self.require(am::PROVIDERS_LIST, "providers", |c| c.providers.is_some())?;
        Ok(self
            .peer()
            .request::<methods::ProvidersList>(&request)
            .await?)
    }

    /// `providers/set` (draft): points a provider at an endpoint. Needs `providers`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `providers`;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    #[cfg(feature = "unstable_llm_providers")]
    pub async fn set_provider(
        &self,
        request: SetProviderRequest,
    ) -> Result<SetProviderResponse, Error> {
        self.require(am::PROVIDERS_SET, "providers", |c| c.providers.is_some())?;
        Ok(self
            .peer()
            .request::<methods::ProvidersSet>(&request)
            .await?)
    }

    /// `providers/disable` (draft): disables a provider. Needs `providers`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `providers`;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    #[cfg(feature = "unstable_llm_providers")]
    pub async fn disable_provider(
        &self,
        request: DisableProviderRequest,
    ) -> Result<DisableProviderResponse, Error> {
        self.require(am::PROVIDERS_DISABLE, "providers", |c| {
            c.providers.is_some()
        })?;
        Ok(self
            .peer()
            .request::<methods::ProvidersDisable>(&request)
            .await?)
    }

    /// `nes/start` (draft): starts a next-edit-suggestion session. Needs `nes`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes`;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    #[cfg(feature = "unstable_nes")]
    pub async fn start_nes(&self, request: StartNesRequest) -> Result<StartNesResponse, Error> {
        self.require(am::NES_START, "nes", |c| c.nes.is_some())?;
        Ok(self.peer().request::<methods::NesStart>(&request).await?)
    }

    /// `nes/suggest` (draft): asks for next-edit suggestions. Needs `nes`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes`;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    #[cfg(feature = "unstable_nes")]
    pub async fn suggest_nes(
        &self,
        request: SuggestNesRequest,
    ) -> Result<SuggestNesResponse, Error> {
        self.require(am::NES_SUGGEST, "nes", |c| c.nes.is_some())?;
        Ok(self.peer().request::<methods::NesSuggest>(&request).await?)
    }

    /// `nes/close` (draft): ends an NES session. Needs `nes`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes`;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    #[cfg(feature = "unstable_nes")]
    pub async fn close_nes(&self, request: CloseNesRequest) -> Result<CloseNesResponse, Error> {
        self.require(am::NES_CLOSE, "nes", |c| c.nes.is_some())?;
        Ok(self.peer().request::<methods::NesClose>(&request).await?)
    }

    /// `mcp/message` as a request (draft): sends an MCP request on an MCP-over-ACP connection the
    /// agent opened. Needs `mcpCapabilities.acp`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `mcpCapabilities.acp`;
    /// [`Error::Rpc`] when the agent answers with an error or the connection closes.
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub async fn message_mcp(
        &self,
        request: MessageMcpRequest,
    ) -> Result<MessageMcpResponse, Error> {
        self.require(am::MCP_MESSAGE, "mcpCapabilities.acp", |c| {
            c.mcp_capabilities.as_ref().and_then(|m| m.acp) == Some(true)
        })?;
        Ok(self.peer().request::<methods::McpMessage>(&request).await?)
    }

    /// `nes/accept` (draft): the user accepted a suggestion. Needs `nes`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes`; or when the
    /// connection is closed.
    #[cfg(feature = "unstable_nes")]
    pub async fn accept_nes(&self, notification: AcceptNesNotification) -> Result<(), Error> {
        self.require(am::NES_ACCEPT, "nes", |c| c.nes.is_some())?;
        Ok(self
            .peer()
            .notify::<methods::NesAccept>(&notification)
            .await?)
    }

    /// `nes/reject` (draft): the user did not take a suggestion. Needs `nes`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes`; or when the
    /// connection is closed.
    #[cfg(feature = "unstable_nes")]
    pub async fn reject_nes(&self, notification: RejectNesNotification) -> Result<(), Error> {
        self.require(am::NES_REJECT, "nes", |c| c.nes.is_some())?;
        Ok(self
            .peer()
            .notify::<methods::NesReject>(&notification)
            .await?)
    }

    /// `document/didOpen` (draft): a document was opened. Needs `nes.events.document.didOpen`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes.events.document.didOpen`; or when the
    /// connection is closed.
    #[cfg(feature = "unstable_nes")]
    pub async fn did_open_document(
        &self,
        notification: DidOpenDocumentNotification,
    ) -> Result<(), Error> {
        self.require(am::DOCUMENT_DID_OPEN, "nes.events.document.didOpen", |c| {
            document_events(c).is_some_and(|d| d.did_open.is_some())
        })?;
        Ok(self
            .peer()
            .notify::<methods::DocumentDidOpen>(&notification)
            .await?)
    }

    /// `document/didChange` (draft): a document changed, sent as the agent's `syncKind` asks.
    /// Needs `nes.events.document.didChange`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes.events.document.didChange`; or when the
    /// connection is closed.
    #[cfg(feature = "unstable_nes")]
    pub async fn did_change_document(
        &self,
        notification: DidChangeDocumentNotification,
    ) -> Result<(), Error> {
        self.require(
            am::DOCUMENT_DID_CHANGE,
            "nes.events.document.didChange",
            |c| document_events(c).is_some_and(|d| d.did_change.is_some()),
        )?;
        Ok(self
            .peer()
            .notify::<methods::DocumentDidChange>(&notification)
            .await?)
    }

    /// `document/didClose` (draft): a document was closed. Needs `nes.events.document.didClose`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes.events.document.didClose`; or when the
    /// connection is closed.
    #[cfg(feature = "unstable_nes")]
    pub async fn did_close_document(
        &self,
        notification: DidCloseDocumentNotification,
    ) -> Result<(), Error> {
        self.require(
            am::DOCUMENT_DID_CLOSE,
            "nes.events.document.didClose",
            |c| document_events(c).is_some_and(|d| d.did_close.is_some()),
        )?;
        Ok(self
            .peer()
            .notify::<methods::DocumentDidClose>(&notification)
            .await?)
    }

    /// `document/didSave` (draft): a document was saved. Needs `nes.events.document.didSave`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes.events.document.didSave`; or when the
    /// connection is closed.
    #[cfg(feature = "unstable_nes")]
    pub async fn did_save_document(
        &self,
        notification: DidSaveDocumentNotification,
    ) -> Result<(), Error> {
        self.require(am::DOCUMENT_DID_SAVE, "nes.events.document.didSave", |c| {
            document_events(c).is_some_and(|d| d.did_save.is_some())
        })?;
        Ok(self
            .peer()
            .notify::<methods::DocumentDidSave>(&notification)
            .await?)
    }

    /// `document/didFocus` (draft): the user focused a document or moved in it. Needs
    /// `nes.events.document.didFocus`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `nes.events.document.didFocus`; or when the
    /// connection is closed.
    #[cfg(feature = "unstable_nes")]
    pub async fn did_focus_document(
        &self,
        notification: DidFocusDocumentNotification,
    ) -> Result<(), Error> {
        self.require(
            am::DOCUMENT_DID_FOCUS,
            "nes.events.document.didFocus",
            |c| document_events(c).is_some_and(|d| d.did_focus.is_some()),
        )?;
        Ok(self
            .peer()
            .notify::<methods::DocumentDidFocus>(&notification)
            .await?)
    }

    /// `mcp/message` as a notification (draft): sends an MCP notification on an MCP-over-ACP
    /// connection. Needs `mcpCapabilities.acp`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise `mcpCapabilities.acp`; or when the
    /// connection is closed.
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub async fn message_mcp_notification(
        &self,
        notification: MessageMcpNotification,
    ) -> Result<(), Error> {
        self.require(am::MCP_MESSAGE, "mcpCapabilities.acp", |c| {
            c.mcp_capabilities.as_ref().and_then(|m| m.acp) == Some(true)
        })?;
        Ok(self
            .peer()
            .notify::<methods::McpMessageNotification>(&notification)
            .await?)
    }
}

/// The `document/*` events the agent asked for.
#[cfg(feature = "unstable_nes")]
fn document_events(caps: &AgentCapabilities) -> Option<&NesDocumentEventCapabilities> {
    caps.nes.as_ref()?.events.as_ref()?.document.as_ref()
}
