//! The `Agent` trait: one method per ACP method the agent serves.

use std::sync::Arc;

use acp_types::methods::agent as m;
use acp_types::*;
use async_trait::async_trait;

use crate::PromptContext;

/// An ACP agent. Implement it and serve it with [`serve`](crate::serve) or
/// [`serve_stdio`](crate::serve_stdio).
///
/// Each method answers one ACP method and returns either its result or the
/// [`ErrorObject`] to answer with (handlers choose the wire error). `initialize`,
/// `new_session` and `prompt` are required; every other method has a default that answers
/// `-32601` (method not found) naming the method, or, for notifications, does nothing — so
/// the protocol can grow without breaking your implementation.
///
/// Requests run concurrently: a method may call the client (through the
/// [`ClientHandle`](crate::ClientHandle) the agent got at construction) and await the answer.
/// Methods take `&self`; keep mutable state behind a `Mutex` or in your own task.
///
/// The library enforces the protocol's rules around these methods (see
/// [`AgentOptions`](crate::AgentOptions)): nothing but `initialize` before `initialize`, the
/// protocol version negotiated, one prompt at a time per session, `session/cancel` delivered to
/// the running prompt, and a cancelled turn ending with `stopReason: "cancelled"`.
#[async_trait]
pub trait Agent: Send + Sync + 'static {
    /// `initialize` (spec chapter "Initialization"): the first request of a connection, where
    /// the client gives its latest protocol version and its capabilities and the agent answers
    /// with its own. Called once per connection.
    ///
    /// The library negotiates the version for you (the response's `protocolVersion` is set to
    /// the client's version if supported, else to the latest supported), and remembers the
    /// client's capabilities to gate calls to it.
    async fn initialize(
        &self,
        request: InitializeRequest,
    ) -> Result<InitializeResponse, ErrorObject>;

    /// `authenticate` (spec chapter "Initialization", authentication methods): authenticate the
    /// user with one of the `authMethods` the agent advertised. Called after `initialize`, when
    /// the client chooses a method.
    async fn authenticate(
        &self,
        request: AuthenticateRequest,
    ) -> Result<AuthenticateResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::AUTHENTICATE))
    }

    /// `logout`: sign the user out. Only called if the agent advertised `auth.logout`.
    async fn logout(&self, request: LogoutRequest) -> Result<LogoutResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::LOGOUT))
    }

    /// `session/new` (spec chapter "Session Setup"): create a session in `cwd` connected to the
    /// given MCP servers, and answer its id (and its modes and configuration options, if any).
    async fn new_session(
        &self,
        request: NewSessionRequest,
    ) -> Result<NewSessionResponse, ErrorObject>;

    /// `session/load` (spec chapter "Session Setup"): load a previous session, streaming its
    /// whole history to the client as `session/update` notifications *before* answering. Only
    /// called if the agent advertised `loadSession`.
    async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_LOAD))
    }

    /// `session/list` (spec chapter "Session List"): list sessions, a page at a time. Only
    /// called if the agent advertised `sessionCapabilities.list`.
    async fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_LIST))
    }

    /// `session/resume` (spec chapter "Session Setup"): resume a session without replaying its
    /// history. Only called if the agent advertised `sessionCapabilities.resume`.
    async fn resume_session(
        &self,
        request: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_RESUME))
    }

    /// `session/close` (spec chapter "Session Setup"): close a session and free what it holds.
    /// Only called if the agent advertised `sessionCapabilities.close`. A prompt still running
    /// in the session is cancelled by the library first.
    async fn close_session(
        &self,
        request: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_CLOSE))
    }

    /// `session/delete` (spec chapter "Session Delete"): delete a session for good. Only called
    /// if the agent advertised `sessionCapabilities.delete`.
    async fn delete_session(
        &self,
        request: DeleteSessionRequest,
    ) -> Result<DeleteSessionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_DELETE))
    }

    /// `session/set_mode` (spec chapter "Session Modes"): switch a session to one of the modes
    /// it offered. Report the change with a `current_mode_update` if it came from the agent.
    async fn set_session_mode(
        &self,
        request: SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_SET_MODE))
    }

    /// `session/set_config_option` (spec chapter "Session Config Options"): change one
    /// configuration option, answering with the state of every option.
    async fn set_session_config_option(
        &self,
        request: SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_SET_CONFIG_OPTION))
    }

    /// `session/prompt` (spec chapter "Prompt Turn"): run one turn of the conversation.
    ///
    /// Stream progress with [`PromptContext::update`] (or the other helpers of `context`)
    /// *before* returning: the connection guarantees those updates reach the client before the
    /// response. When the client sends `session/cancel`, [`PromptContext::cancelled`] resolves
    /// and [`PromptContext::is_cancelled`] turns true: stop, and return. Whatever you return
    /// then, the client receives `stopReason: "cancelled"` (errors included), as the spec
    /// requires.
    async fn prompt(
        &self,
        request: PromptRequest,
        context: PromptContext,
    ) -> Result<PromptResponse, ErrorObject>;

    /// `session/cancel` (spec chapter "Prompt Turn", cancellation), a notification: the client
    /// wants the session's running turn to stop. The library has already signalled the running
    /// prompt's [`PromptContext`] when this is called; override it only for extra cleanup.
    ///
    /// Like every notification handler, it runs in order with the other notifications and
    /// **must not await an answer from the client** (it would wait behind itself; see
    /// `acp_rpc`'s ordering section). Spawn a task if you need the client.
    async fn cancel(&self, notification: CancelNotification) -> Result<(), ErrorObject> {
        let _ = notification;
        Ok(())
    }

    /// An extension request (spec chapter "Extensibility"): a method whose name starts with
    /// `_`, with raw params.
    async fn ext_method(&self, request: ExtRequest) -> Result<ExtResponse, ErrorObject> {
        Err(ErrorObject::method_not_found(&request.method))
    }

    /// An extension notification (spec chapter "Extensibility"): a method whose name starts
    /// with `_`. Ignored by default. Must not await the client (see [`cancel`](Self::cancel)).
    async fn ext_notification(&self, notification: ExtNotification) -> Result<(), ErrorObject> {
        let _ = notification;
        Ok(())
    }

    /// `session/fork` (draft, feature `unstable_session_fork`): fork a session into a new one with
    /// the same history, for side prompts that must not enter the original's history. Only called
    /// if the agent advertised `sessionCapabilities.fork`.
    #[cfg(feature = "unstable_session_fork")]
    async fn fork_session(
        &self,
        request: ForkSessionRequest,
    ) -> Result<ForkSessionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_FORK))
    }

    /// `providers/list` (draft, feature `unstable_llm_providers`): the agent's LLM providers and
    /// their current endpoints. Only called if the agent advertised `providers`.
    #[cfg(feature = "unstable_llm_providers")]
    async fn list_providers(
        &self,
        request: ListProvidersRequest,
    ) -> Result<ListProvidersResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::PROVIDERS_LIST))
    }

    /// `providers/set` (draft, feature `unstable_llm_providers`): point a provider at the client's
    /// endpoint. Only called if the agent advertised `providers`.
    #[cfg(feature = "unstable_llm_providers")]
    async fn set_provider(
        &self,
        request: SetProviderRequest,
    ) -> Result<SetProviderResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::PROVIDERS_SET))
    }

    /// `providers/disable` (draft, feature `unstable_llm_providers`): stop using a provider. Only
    /// called if the agent advertised `providers`.
    #[cfg(feature = "unstable_llm_providers")]
    async fn disable_provider(
        &self,
        request: DisableProviderRequest,
    ) -> Result<DisableProviderResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::PROVIDERS_DISABLE))
    }

    /// `mcp/message` as a notification (draft, feature `unstable_mcp_over_acp`): an inner MCP
    /// notification (progress, subscription updates) from an MCP server the client provides,
    /// for an inner request the agent sent with
    /// [`ClientHandle::message_mcp`](crate::ClientHandle::message_mcp). Only delivered if the
    /// agent advertised `mcpCapabilities.acp`. Ignored by default; must not await the client
    /// (see [`cancel`](Self::cancel)).
    #[cfg(feature = "unstable_mcp_over_acp")]
    async fn message_mcp_notification(
        &self,
        notification: MessageMcpNotification,
    ) -> Result<(), ErrorObject> {
        let _ = notification;
        Ok(())
    }

    /// `auth/status` (draft, feature `unstable_auth_status`): the agent's authentication
    /// state, without changing it. Only called if the agent advertised `auth.status`; never
    /// answer it with `auth_required`.
    #[cfg(feature = "unstable_auth_status")]
    async fn auth_status(
        &self,
        request: AuthStatusRequest,
    ) -> Result<AuthStatusResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::AUTH_STATUS))
    }

    /// `session/archive` (draft, feature `unstable_session_archive`): end any work on the
    /// session, free it as `session/close` would, and leave it out of default `session/list`
    /// results. Only called if the agent advertised `sessionCapabilities.archive`.
    #[cfg(feature = "unstable_session_archive")]
    async fn archive_session(
        &self,
        request: ArchiveSessionRequest,
    ) -> Result<ArchiveSessionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_ARCHIVE))
    }

    /// `session/unarchive` (draft, feature `unstable_session_archive`): list the session by
    /// default again (without loading it). Only called if the agent advertised
    /// `sessionCapabilities.archive`.
    #[cfg(feature = "unstable_session_archive")]
    async fn unarchive_session(
        &self,
        request: UnarchiveSessionRequest,
    ) -> Result<UnarchiveSessionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_UNARCHIVE))
    }

    /// `session/status` (draft, feature `unstable_session_status`): whether the session is in
    /// memory, without side effects. Only called if the agent advertised
    /// `sessionCapabilities.status`.
    #[cfg(feature = "unstable_session_status")]
    async fn session_status(
        &self,
        request: SessionStatusRequest,
    ) -> Result<SessionStatusResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_STATUS))
    }

    /// `session/set_title` (draft, feature `unstable_session_set_title`): store the client's
    /// title for a session and answer with it as stored. Only called if the agent advertised
    /// `sessionCapabilities.title`.
    #[cfg(feature = "unstable_session_set_title")]
    async fn set_session_title(
        &self,
        request: SetSessionTitleRequest,
    ) -> Result<SetSessionTitleResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_SET_TITLE))
    }

    /// `tool_call/cancel` (ACP v2, feature `unstable_protocol_v2`): the client asks to cancel
    /// one tool call, without cancelling the turn. Only sent for a tool call whose update
    /// advertised `capabilities.cancel`; report the outcome with the tool call's status.
    #[cfg(feature = "unstable_protocol_v2")]
    async fn cancel_tool_call(
        &self,
        request: acp_types::v2::CancelToolCallRequest,
    ) -> Result<acp_types::v2::CancelToolCallResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(
            acp_types::v2::methods::agent::TOOL_CALL_CANCEL,
        ))
    }

    /// `terminal/cancel` (ACP v2, feature `unstable_protocol_v2`): the client asks to stop the
    /// command of one of the agent's display terminals. Only sent for a terminal whose update
    /// advertised `capabilities.cancel`; report the exit with a `terminal_update`.
    #[cfg(feature = "unstable_protocol_v2")]
    async fn cancel_terminal(
        &self,
        request: acp_types::v2::CancelTerminalRequest,
    ) -> Result<acp_types::v2::CancelTerminalResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(
            acp_types::v2::methods::agent::TERMINAL_CANCEL,
        ))
    }
}

/// Forwards every method, so one agent can be shared (`Arc<MyAgent>` is an agent too).
#[async_trait]
impl<T: Agent + ?Sized> Agent for Arc<T> {
    async fn initialize(&self, r: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        (**self).initialize(r).await
    }
    async fn authenticate(
        &self,
        r: AuthenticateRequest,
    ) -> Result<AuthenticateResponse, ErrorObject> {
        (**self).authenticate(r).await
    }
    async fn logout(&self, r: LogoutRequest) -> Result<LogoutResponse, ErrorObject> {
        (**self).logout(r).await
    }
    async fn new_session(&self, r: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        (**self).new_session(r).await
    }
    async fn load_session(
        &self,
        r: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        (**self).load_session(r).await
    }
    async fn list_sessions(
        &self,
        r: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        (**self).list_sessions(r).await
    }
    async fn resume_session(
        &self,
        r: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, ErrorObject> {
        (**self).resume_session(r).await
    }
    async fn close_session(
        &self,
        r: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, ErrorObject> {
        (**self).close_session(r).await
    }
    async fn delete_session(
        &self,
        r: DeleteSessionRequest,
    ) -> Result<DeleteSessionResponse, ErrorObject> {
        (**self).delete_session(r).await
    }
    async fn set_session_mode(
        &self,
        r: SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, ErrorObject> {
        (**self).set_session_mode(r).await
    }
    async fn set_session_config_option(
        &self,
        r: SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, ErrorObject> {
        (**self).set_session_config_option(r).await
    }
    async fn prompt(
        &self,
        r: PromptRequest,
        c: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        (**self).prompt(r, c).await
    }
    async fn cancel(&self, n: CancelNotification) -> Result<(), ErrorObject> {
        (**self).cancel(n).await
    }
    async fn ext_method(&self, r: ExtRequest) -> Result<ExtResponse, ErrorObject> {
        (**self).ext_method(r).await
    }
    async fn ext_notification(&self, n: ExtNotification) -> Result<(), ErrorObject> {
        (**self).ext_notification(n).await
    }
    #[cfg(feature = "unstable_session_fork")]
    async fn fork_session(
        &self,
        r: ForkSessionRequest,
    ) -> Result<ForkSessionResponse, ErrorObject> {
        (**self).fork_session(r).await
    }
    #[cfg(feature = "unstable_llm_providers")]
    async fn list_providers(
        &self,
        r: ListProvidersRequest,
    ) -> Result<ListProvidersResponse, ErrorObject> {
        (**self).list_providers(r).await
    }
    #[cfg(feature = "unstable_llm_providers")]
    async fn set_provider(
        &self,
        r: SetProviderRequest,
    ) -> Result<SetProviderResponse, ErrorObject> {
        (**self).set_provider(r).await
    }
    #[cfg(feature = "unstable_llm_providers")]
    async fn disable_provider(
        &self,
        r: DisableProviderRequest,
    ) -> Result<DisableProviderResponse, ErrorObject> {
        (**self).disable_provider(r).await
    }
    #[cfg(feature = "unstable_mcp_over_acp")]
    async fn message_mcp_notification(&self, n: MessageMcpNotification) -> Result<(), ErrorObject> {
        (**self).message_mcp_notification(n).await
    }
    #[cfg(feature = "unstable_auth_status")]
    async fn auth_status(&self, r: AuthStatusRequest) -> Result<AuthStatusResponse, ErrorObject> {
        (**self).auth_status(r).await
    }
    #[cfg(feature = "unstable_session_archive")]
    async fn archive_session(
        &self,
        r: ArchiveSessionRequest,
    ) -> Result<ArchiveSessionResponse, ErrorObject> {
        (**self).archive_session(r).await
    }
    #[cfg(feature = "unstable_session_archive")]
    async fn unarchive_session(
        &self,
        r: UnarchiveSessionRequest,
    ) -> Result<UnarchiveSessionResponse, ErrorObject> {
        (**self).unarchive_session(r).await
    }
    #[cfg(feature = "unstable_session_status")]
    async fn session_status(
        &self,
        r: SessionStatusRequest,
    ) -> Result<SessionStatusResponse, ErrorObject> {
        (**self).session_status(r).await
    }
    #[cfg(feature = "unstable_session_set_title")]
    async fn set_session_title(
        &self,
        r: SetSessionTitleRequest,
    ) -> Result<SetSessionTitleResponse, ErrorObject> {
        (**self).set_session_title(r).await
    }
    #[cfg(feature = "unstable_protocol_v2")]
    async fn cancel_tool_call(
        &self,
        r: acp_types::v2::CancelToolCallRequest,
    ) -> Result<acp_types::v2::CancelToolCallResponse, ErrorObject> {
        (**self).cancel_tool_call(r).await
    }
    #[cfg(feature = "unstable_protocol_v2")]
    async fn cancel_terminal(
        &self,
        r: acp_types::v2::CancelTerminalRequest,
    ) -> Result<acp_types::v2::CancelTerminalResponse, ErrorObject> {
        (**self).cancel_terminal(r).await
    }
}
