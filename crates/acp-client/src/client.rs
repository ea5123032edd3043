//! The `Client` trait: one method per ACP method the client (the editor) serves.

use std::sync::Arc;

use acp_types::methods::client as m;
use acp_types::*;
use async_trait::async_trait;

/// An ACP client: the editor side. Implement it and connect it to an agent with
/// [`connect`](crate::connect) or [`spawn`](crate::spawn).
///
/// Each method answers one ACP method the agent may call, returning its result or the
/// [`ErrorObject`] to answer with. `request_permission` and `session_notification` are
/// required; file system, terminal and elicitation methods default to `-32601` (method not
/// found) naming the method — advertise in `initialize` only what you implement.
///
/// Requests run concurrently; notifications (`session_notification`, `complete_elicitation`,
/// extension notifications) run one at a time in arrival order, and a response from the agent
/// (for example to `session/prompt`) is delivered only after every notification that arrived
/// before it was handled.
#[async_trait]
pub trait Client: Send + Sync + 'static {
    /// `session/request_permission` (spec chapter "Tool Calls", requesting permission): ask the
    /// user to approve a tool call, answering with the chosen option.
    ///
    /// When the session's turn is cancelled through
    /// [`AgentHandle::cancel`](crate::AgentHandle::cancel) (or the session closed through
    /// [`AgentHandle::close_session`](crate::AgentHandle::close_session)), the library answers
    /// pending permission requests of that session with the `cancelled` outcome itself, even if
    /// this method is still waiting for the user (the future is then dropped); requests of the
    /// cancelled turn arriving later are answered `cancelled` without calling this method.
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject>;

    /// `session/update` (spec chapter "Prompt Turn"), a notification: progress of a session —
    /// message and thought chunks, tool calls, plans, modes, commands, usage.
    ///
    /// Called in order, one at a time. It **must not await an answer from the agent**: the
    /// answer would wait behind this very notification (see `acp_rpc`'s ordering section).
    /// Spawn a task if you need to call the agent.
    async fn session_notification(
        &self,
        notification: SessionNotification,
    ) -> Result<(), ErrorObject>;

    /// `fs/read_text_file` (spec chapter "File System"): read a text file, as the editor sees it
    /// (unsaved changes included). Called only if the client advertised `fs.readTextFile`.
    async fn read_text_file(
        &self,
        request: ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::FS_READ_TEXT_FILE))
    }

    /// `fs/write_text_file` (spec chapter "File System"): write a text file. Called only if the
    /// client advertised `fs.writeTextFile`.
    async fn write_text_file(
        &self,
        request: WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::FS_WRITE_TEXT_FILE))
    }

    /// `terminal/create` (spec chapter "Terminals"): start a command in a new terminal and
    /// answer its id at once. Called only if the client advertised `terminal`.
    async fn create_terminal(
        &self,
        request: CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::TERMINAL_CREATE))
    }

    /// `terminal/output` (spec chapter "Terminals"): the output so far, and the exit status if
    /// the command has exited.
    async fn terminal_output(
        &self,
        request: TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::TERMINAL_OUTPUT))
    }

    /// `terminal/wait_for_exit` (spec chapter "Terminals"): answer once the command has exited.
    async fn wait_for_terminal_exit(
        &self,
        request: WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::TERMINAL_WAIT_FOR_EXIT))
    }

    /// `terminal/kill` (spec chapter "Terminals"): kill the command, keeping the terminal.
    async fn kill_terminal(
        &self,
        request: KillTerminalRequest,
    ) -> Result<KillTerminalResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::TERMINAL_KILL))
    }

    /// `terminal/release` (spec chapter "Terminals"): kill the command if still running and
    /// free the terminal.
    async fn release_terminal(
        &self,
        request: ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::TERMINAL_RELEASE))
    }

    /// `elicitation/create` (spec chapter "Elicitation"): collect structured input from the
    /// user. Called only if the client advertised `elicitation`.
    async fn create_elicitation(
        &self,
        request: CreateElicitationRequest,
    ) -> Result<CreateElicitationResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::ELICITATION_CREATE))
    }

    /// `elicitation/complete` (spec chapter "Elicitation"), a notification: a URL elicitation
    /// finished. Ignored by default. Must not await the agent.
    async fn complete_elicitation(
        &self,
        notification: CompleteElicitationNotification,
    ) -> Result<(), ErrorObject> {
        let _ = notification;
        Ok(())
    }

    /// An extension request (spec chapter "Extensibility"): a method whose name starts with `_`.
    async fn ext_method(&self, request: ExtRequest) -> Result<ExtResponse, ErrorObject> {
        Err(ErrorObject::method_not_found(&request.method))
    }

    /// An extension notification (spec chapter "Extensibility"). Ignored by default. Must not
    /// await the agent.
    async fn ext_notification(&self, notification: ExtNotification) -> Result<(), ErrorObject> {
        let _ = notification;
        Ok(())
    }

    /// `mcp/message` as a request (draft, feature `unstable_mcp_over_acp`): an inner MCP request
    /// from the agent to an `"acp"` MCP server the client offered in a session's `mcpServers`
    /// (requests for other servers are refused before this is called); answer with the inner
    /// MCP result or MCP error. Send its notifications with
    /// [`AgentHandle::message_mcp_notification`](crate::AgentHandle::message_mcp_notification).
    #[cfg(feature = "unstable_mcp_over_acp")]
    async fn message_mcp(
        &self,
        request: MessageMcpRequest,
    ) -> Result<MessageMcpResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::MCP_MESSAGE))
    }

    /// `auth/status_update` (draft, feature `unstable_auth_status`), a notification: the
    /// agent's authentication state changed (`state` is the field to act on; treat values you
    /// do not know as `unknown`). Ignored by default; must not await the agent.
    #[cfg(feature = "unstable_auth_status")]
    async fn auth_status_update(
        &self,
        notification: AuthStatusUpdateNotification,
    ) -> Result<(), ErrorObject> {
        let _ = notification;
        Ok(())
    }
    /// `session/request_permission` of a v2 agent (feature `unstable_protocol_v2`): ask the
    /// user about `request.title` (with `description`), whose `subject` is a tool call (apply
    /// it as a tool-call upsert), a command, absent or of a kind unknown here (show a generic
    /// prompt). Cancellation works as for [`request_permission`](Self::request_permission).
    /// Defaults to `-32601`: a client that negotiates v2 implements it.
    #[cfg(feature = "unstable_protocol_v2")]
    async fn request_permission_v2(
        &self,
        request: acp_types::v2::RequestPermissionRequest,
    ) -> Result<acp_types::v2::RequestPermissionResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::SESSION_REQUEST_PERMISSION))
    }

    /// `session/update` of a v2 agent (feature `unstable_protocol_v2`), a notification: fold it
    /// into a [`SessionModel`](crate::model::SessionModel) with
    /// [`apply_v2`](crate::model::SessionModel::apply_v2). Ignored by default; called in order,
    /// and must not await the agent (as [`session_notification`](Self::session_notification)).
    #[cfg(feature = "unstable_protocol_v2")]
    async fn session_notification_v2(
        &self,
        notification: acp_types::v2::UpdateSessionNotification,
    ) -> Result<(), ErrorObject> {
        let _ = notification;
        Ok(())
    }

    /// `elicitation/create` of a v2 agent (feature `unstable_protocol_v2`). Called only if the
    /// client advertised `elicitation` (and the request's mode) in its v2 `initialize`.
    #[cfg(feature = "unstable_protocol_v2")]
    async fn create_elicitation_v2(
        &self,
        request: acp_types::v2::CreateElicitationRequest,
    ) -> Result<acp_types::v2::CreateElicitationResponse, ErrorObject> {
        let _ = request;
        Err(ErrorObject::method_not_found(m::ELICITATION_CREATE))
    }
}

/// Forwards every method, so one client can be shared (`Arc<MyEditor>` is a client too).
#[async_trait]
impl<T: Client + ?Sized> Client for Arc<T> {
    async fn request_permission(
        &self,
        r: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        (**self).request_permission(r).await
    }
    async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
        (**self).session_notification(n).await
    }
    async fn read_text_file(
        &self,
        r: ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, ErrorObject> {
        (**self).read_text_file(r).await
    }
    async fn write_text_file(
        &self,
        r: WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, ErrorObject> {
        (**self).write_text_file(r).await
    }
    async fn create_terminal(
        &self,
        r: CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse, ErrorObject> {
        (**self).create_terminal(r).await
    }
    async fn terminal_output(
        &self,
        r: TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, ErrorObject> {
        (**self).terminal_output(r).await
    }
    async fn wait_for_terminal_exit(
        &self,
        r: WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, ErrorObject> {
        (**self).wait_for_terminal_exit(r).await
    }
    async fn kill_terminal(
        &self,
        r: KillTerminalRequest,
    ) -> Result<KillTerminalResponse, ErrorObject> {
        (**self).kill_terminal(r).await
    }
    async fn release_terminal(
        &self,
        r: ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, ErrorObject> {
        (**self).release_terminal(r).await
    }
    async fn create_elicitation(
        &self,
        r: CreateElicitationRequest,
    ) -> Result<CreateElicitationResponse, ErrorObject> {
        (**self).create_elicitation(r).await
    }
    async fn complete_elicitation(
        &self,
        n: CompleteElicitationNotification,
    ) -> Result<(), ErrorObject> {
        (**self).complete_elicitation(n).await
    }
    async fn ext_method(&self, r: ExtRequest) -> Result<ExtResponse, ErrorObject> {
        (**self).ext_method(r).await
    }
    async fn ext_notification(&self, n: ExtNotification) -> Result<(), ErrorObject> {
        (**self).ext_notification(n).await
    }
    #[cfg(feature = "unstable_mcp_over_acp")]
    async fn message_mcp(&self, r: MessageMcpRequest) -> Result<MessageMcpResponse, ErrorObject> {
        (**self).message_mcp(r).await
    }
    #[cfg(feature = "unstable_auth_status")]
    async fn auth_status_update(&self, n: AuthStatusUpdateNotification) -> Result<(), ErrorObject> {
        (**self).auth_status_update(n).await
    }
    #[cfg(feature = "unstable_protocol_v2")]
    async fn request_permission_v2(
        &self,
        r: acp_types::v2::RequestPermissionRequest,
    ) -> Result<acp_types::v2::RequestPermissionResponse, ErrorObject> {
        (**self).request_permission_v2(r).await
    }
    #[cfg(feature = "unstable_protocol_v2")]
    async fn session_notification_v2(
        &self,
        n: acp_types::v2::UpdateSessionNotification,
    ) -> Result<(), ErrorObject> {
        (**self).session_notification_v2(n).await
    }
    #[cfg(feature = "unstable_protocol_v2")]
    async fn create_elicitation_v2(
        &self,
        r: acp_types::v2::CreateElicitationRequest,
    ) -> Result<acp_types::v2::CreateElicitationResponse, ErrorObject> {
        (**self).create_elicitation_v2(r).await
    }
}
