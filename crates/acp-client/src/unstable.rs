//! The client's side of the draft (unstable) protocol features: typed calls to the agent,
//! each behind its cargo feature and gated on the capability the agent advertised.

use acp_types::*;

use crate::{AgentHandle, Error};

/// Typed calls to the agent, each sent only if the agent's capabilities pass its check.
macro_rules! draft_calls {
    ($(
        $(#[doc = $doc:literal])*
        #[cfg($cfg:meta)]
        $kind:ident $name:ident: $marker:ident($params:ty) -> $result:ty,
            needs $capability:literal;
    )*) => {
        $(
            $(#[doc = $doc])*
            #[doc = ""]
            #[doc = "# Errors"]
            #[doc = ""]
            #[doc = concat!(
                "[`Error::CapabilityNotAdvertised`] when the agent did not advertise `",
                $capability,
                "`; [`Error::Rpc`] when the call fails or the connection closes."
            )]
            #[cfg($cfg)]
            pub async fn $name(&self, params: $params) -> Result<$result, Error> {
                self.check(draft_calls!(@method $kind $marker))?;
                Ok(draft_calls!(@send $kind self $marker params))
            }
        )*
    };
    (@method request $marker:ident) => { <methods::$marker as methods::Request>::METHOD };
    (@method notification $marker:ident) => {
        <methods::$marker as methods::Notification>::METHOD
    };
    (@send request $self:ident $marker:ident $params:ident) => {
        $self.peer().request::<methods::$marker>(&$params).await?
    };
    (@send notification $self:ident $marker:ident $params:ident) => {
        $self.peer().notify::<methods::$marker>(&$params).await?
    };
}

impl AgentHandle {
    /// `session/fork` (draft): forks a session into a new one with the same history, for side
    /// prompts. Needs `sessionCapabilities.fork`. The new session is this connection's as soon
    /// as the agent answers; with MCP over ACP, the agent may reach the `"acp"` servers in
    /// `mcpServers` from now on.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise
    /// `sessionCapabilities.fork`; [`Error::Rpc`] when the call fails or the connection closes.
    #[cfg(feature = "unstable_session_fork")]
    pub async fn fork_session(
        &self,
        params: ForkSessionRequest,
    ) -> Result<ForkSessionResponse, Error> {
        self.check(methods::agent::SESSION_FORK)?;
        #[cfg(feature = "unstable_session_options")]
        self.check_system_prompt(methods::agent::SESSION_FORK, params.system_prompt.as_ref())?;
        self.offer_mcp_servers(params.mcp_servers.as_deref().unwrap_or_default());
        Ok(self.peer().request::<methods::SessionFork>(&params).await?)
    }

    draft_calls! {
        /// `providers/list` (draft): the agent's LLM providers. Needs `providers`.
        #[cfg(feature = "unstable_llm_providers")]
        request list_providers: ProvidersList(ListProvidersRequest) -> ListProvidersResponse,
            needs "providers";
        /// `providers/set` (draft): points a provider at an endpoint. Needs `providers`.
        #[cfg(feature = "unstable_llm_providers")]
        request set_provider: ProvidersSet(SetProviderRequest) -> SetProviderResponse,
            needs "providers";
        /// `providers/disable` (draft): disables a provider. Needs `providers`.
        #[cfg(feature = "unstable_llm_providers")]
        request disable_provider: ProvidersDisable(DisableProviderRequest) -> DisableProviderResponse,
            needs "providers";
        /// `mcp/message` as a notification (draft): an inner MCP notification (progress,
        /// subscription updates) from an MCP server the client provides, for an inner request
        /// the agent sent. Needs `mcpCapabilities.acp`.
        #[cfg(feature = "unstable_mcp_over_acp")]
        notification message_mcp_notification: McpMessageNotification(MessageMcpNotification) -> (),
            needs "mcpCapabilities.acp";
        /// `auth/status` (draft): the agent's authentication state, unchanged. Needs
        /// `auth.status`.
        #[cfg(feature = "unstable_auth_status")]
        request auth_status: AuthStatus(AuthStatusRequest) -> AuthStatusResponse,
            needs "auth.status";
        /// `session/archive` (draft): archives a session (the agent ends its work and lists
        /// it only on request). Needs `sessionCapabilities.archive`.
        #[cfg(feature = "unstable_session_archive")]
        request archive_session: SessionArchive(ArchiveSessionRequest) -> ArchiveSessionResponse,
            needs "sessionCapabilities.archive";
        /// `session/unarchive` (draft): lists an archived session by default again. Needs
        /// `sessionCapabilities.archive`.
        #[cfg(feature = "unstable_session_archive")]
        request unarchive_session: SessionUnarchive(UnarchiveSessionRequest) -> UnarchiveSessionResponse,
            needs "sessionCapabilities.archive";
        /// `session/status` (draft): whether the agent holds a session in memory, without side
        /// effects. Needs `sessionCapabilities.status`.
        #[cfg(feature = "unstable_session_status")]
        request session_status: SessionStatus(SessionStatusRequest) -> SessionStatusResponse,
            needs "sessionCapabilities.status";
        /// `session/set_title` (draft): retitles a session; the answer carries the title as the
        /// agent stored it. Needs `sessionCapabilities.title`.
        #[cfg(feature = "unstable_session_set_title")]
        request set_session_title: SessionSetTitle(SetSessionTitleRequest) -> SetSessionTitleResponse,
            needs "sessionCapabilities.title";
    }

    /// Refuses a session request's `systemPrompt` (draft) that the agent's
    /// `sessionCapabilities.systemPrompt` does not cover (none advertised, or a mode beyond
    /// `append` it did not list), when gating is on: nothing is sent then.
    #[cfg(feature = "unstable_session_options")]
    pub(crate) fn check_system_prompt(
        &self,
        method: &'static str,
        prompt: Option<&SystemPrompt>,
    ) -> Result<(), Error> {
        let (Some(prompt), Some(init)) = (prompt, self.gating()) else {
            return Ok(());
        };
        let session = init
            .agent_capabilities
            .as_ref()
            .and_then(|c| c.session_capabilities.as_ref());
        prompt
            .allowed_by(session.and_then(|s| s.system_prompt.as_ref()))
            .map_err(|capability| Error::CapabilityNotAdvertised { method, capability })
    }
}
