//! The v2 calls to the agent: [`AgentHandle`].

use std::pin::Pin;
use std::task::{Context, Poll};

use acp_types::v2::{self, methods as m};
use acp_types::{MessageId, SessionId};
use futures::Stream;
use tokio::sync::mpsc;

use super::shared::Cancellable;
use crate::Error;
use crate::connection::TurnGuard;

/// The v2 calls to an agent that negotiated v2, one method per ACP v2 method the client calls,
/// each gated by what the agent advertised (the baseline session methods by
/// `capabilities.session`, `session/delete` by `session.delete`, `auth/login` and
/// `auth/logout` by a non-empty `authMethods`). Get it from [`crate::AgentHandle::v2`].
#[derive(Clone, Debug)]
pub struct AgentHandle {
    inner: crate::AgentHandle,
    init: v2::InitializeResponse,
}

/// How a v2 prompt turn ended: the user message's id (from the acknowledgement) and the `idle`
/// state update that ended the turn.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TurnEnd {
    /// The id the agent gave the prompt's user message.
    pub message_id: MessageId,
    /// The `idle` update that ended foreground work.
    pub idle: v2::IdleStateUpdate,
}

impl TurnEnd {
    /// Why the turn stopped (`None` if the agent did not say).
    pub fn stop_reason(&self) -> Option<&v2::StopReason> {
        self.idle.stop_reason.as_ref()
    }
}

/// Forgets a wait for `idle` when the prompt ends otherwise (error, or the future dropped).
struct ForgetWait<'a> {
    shared: &'a super::Shared,
    session_id: &'a SessionId,
    key: u64,
}

impl Drop for ForgetWait<'_> {
    fn drop(&mut self) {
        self.shared.forget(self.session_id, self.key);
    }
}

macro_rules! session_requests {
    ($( $(#[doc = $doc:literal])* $name:ident: $marker:ident; )*) => {
        $(
            $(#[doc = $doc])*
            ///
            /// # Errors
            ///
            /// [`Error::CapabilityNotAdvertised`] when the agent did not advertise
            /// `capabilities.session`; [`Error::Rpc`] when the agent answers with an error or
            /// the connection closes.
            pub async fn $name(
                &self,
                request: <m::$marker as m::Request>::Params,
            ) -> Result<<m::$marker as m::Request>::Result, Error> {
                self.check_session(<m::$marker as m::Request>::METHOD)?;
                Ok(self.inner.peer.request::<m::$marker>(&request).await?)
            }
        )*
    };
}

impl AgentHandle {
    pub(crate) fn new(inner: crate::AgentHandle, init: &v2::InitializeResponse) -> Self {
        Self {
            inner,
            init: init.clone(),
        }
    }

    /// The agent's answer to `initialize`.
    pub fn initialize_response(&self) -> &v2::InitializeResponse {
        &self.init
    }

    /// The v1 handle this wraps (extension methods, the underlying peer).
    pub fn v1(&self) -> &crate::AgentHandle {
        &self.inner
    }

    fn gating(&self) -> bool {
        self.inner.options.gate_agent_capabilities
    }

    fn session_capabilities(&self) -> Option<&v2::SessionCapabilities> {
        self.init.capabilities.as_ref()?.session.as_ref()
    }

    /// Forgets a session that was closed or deleted: its updates and requests are refused
    /// from now on.
    fn session_gone(&self, session_id: &SessionId) {
        self.inner.state.admission.remove_session(session_id);
        self.inner.state.v2.forget_session(session_id);
    }

    /// Refuses a baseline session method when the agent did not advertise `session`.
    fn check_session(&self, method: &'static str) -> Result<(), Error> {
        if self.gating() && self.session_capabilities().is_none() {
            return Err(Error::CapabilityNotAdvertised {
                method,
                capability: "session",
            });
        }
        Ok(())
    }

    /// Refuses `auth/*` when the agent advertised no `authMethods` (clients must not call them).
    fn check_auth(&self, method: &'static str) -> Result<(), Error> {
        if self.gating() && self.init.auth_methods.as_ref().is_none_or(Vec::is_empty) {
            return Err(Error::CapabilityNotAdvertised {
                method,
                capability: "authMethods",
            });
        }
        Ok(())
    }

    /// Refuses prompt content the agent did not advertise (`session.prompt.image`, ...).
    fn check_prompt(&self, request: &v2::PromptRequest) -> Result<(), Error> {
        if !self.gating() {
            return Ok(());
        }
        let prompt = self.session_capabilities().and_then(|s| s.prompt.as_ref());
        for block in &request.prompt {
            let (ok, capability) = match block {
                v2::ContentBlock::Image(_) => (
                    prompt.is_some_and(|p| p.image.is_some()),
                    "session.prompt.image",
                ),
                v2::ContentBlock::Audio(_) => (
                    prompt.is_some_and(|p| p.audio.is_some()),
                    "session.prompt.audio",
                ),
                v2::ContentBlock::Resource(_) => (
                    prompt.is_some_and(|p| p.embedded_context.is_some()),
                    "session.prompt.embeddedContext",
                ),
                _ => (true, ""),
            };
            if !ok {
                return Err(Error::CapabilityNotAdvertised {
                    method: m::agent::SESSION_PROMPT,
                    capability,
                });
            }
        }
        Ok(())
    }

    session_requests! {
        /// `session/new`: creates a session (its updates are accepted from the answer on).
        new_session: SessionNew;
        /// `session/list`: lists sessions.
        list_sessions: SessionList;
        /// `session/set_config_option`: changes a configuration option; the answer holds every
        /// option.
        set_session_config_option: SessionSetConfigOption;
    }

    /// `tool_call/cancel`: cancels a tool call whose latest update advertised
    /// `capabilities.cancel` (see [`ToolCall::cancellable`](crate::model::ToolCall::cancellable)).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] (`capabilities.cancel`) when the tool call did not
    /// advertise it, or ended; [`Error::Rpc`] otherwise.
    pub async fn cancel_tool_call(
        &self,
        request: v2::CancelToolCallRequest,
    ) -> Result<v2::CancelToolCallResponse, Error> {
        let id = Cancellable::ToolCall(request.tool_call_id.clone());
        self.check_cancellable(m::agent::TOOL_CALL_CANCEL, &request.session_id, id)?;
        Ok(self
            .inner
            .peer
            .request::<m::ToolCallCancel>(&request)
            .await?)
    }

    /// `terminal/cancel`: cancels the command of a display terminal whose latest update
    /// advertised `capabilities.cancel`.
    ///
    /// # Errors
    ///
    /// As [`cancel_tool_call`](Self::cancel_tool_call).
    pub async fn cancel_terminal(
        &self,
        request: v2::CancelTerminalRequest,
    ) -> Result<v2::CancelTerminalResponse, Error> {
        let id = Cancellable::Terminal(request.terminal_id.clone());
        self.check_cancellable(m::agent::TERMINAL_CANCEL, &request.session_id, id)?;
        Ok(self
            .inner
            .peer
            .request::<m::TerminalCancel>(&request)
            .await?)
    }

    fn check_cancellable(
        &self,
        method: &'static str,
        session_id: &SessionId,
        id: Cancellable,
    ) -> Result<(), Error> {
        self.check_session(method)?;
        if self.gating() && !self.inner.state.v2.may_cancel(session_id, id) {
            return Err(Error::CapabilityNotAdvertised {
                method,
                capability: "capabilities.cancel",
            });
        }
        Ok(())
    }

    /// `session/resume`: reattaches to a session; with `replayFrom: {"type": "start"}` the
    /// agent first replays the history as ordinary updates (the v1 `session/load`), which
    /// arrive before the answer. The session is this connection's from the moment the request
    /// is sent, unless the agent refuses it.
    ///
    /// # Errors
    ///
    /// As the other session methods.
    pub async fn resume_session(
        &self,
        request: v2::ResumeSessionRequest,
    ) -> Result<v2::ResumeSessionResponse, Error> {
        self.check_session(m::agent::SESSION_RESUME)?;
        self.inner
            .adopt_session(&request.session_id, || {
                self.inner.peer.request::<m::SessionResume>(&request)
            })
            .await
    }

    /// `session/close`: closes a session; its pending permission requests are answered
    /// `cancelled`. As the schema's `CloseSessionRequest` asks of clients, an agent's `-32002`
    /// (the session does not exist or is not active) is a successful close: the answer is then
    /// an empty response.
    ///
    /// # Errors
    ///
    /// As the other session methods, except `-32002`.
    pub async fn close_session(
        &self,
        request: v2::CloseSessionRequest,
    ) -> Result<v2::CloseSessionResponse, Error> {
        self.check_session(m::agent::SESSION_CLOSE)?;
        self.inner.cancel_permissions(&request.session_id);
        let response = match self.inner.peer.request::<m::SessionClose>(&request).await {
            Err(acp_rpc::Error::Remote(e))
                if e.code == acp_types::ErrorCode::RESOURCE_NOT_FOUND =>
            {
                tracing::debug!(session = %request.session_id, "session/close answered -32002: closed");
                v2::CloseSessionResponse::default()
            }
            other => other?,
        };
        self.session_gone(&request.session_id);
        Ok(response)
    }

    /// `session/delete`: deletes a session. Needs `session.delete`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `session.delete`; [`Error::Rpc`] otherwise.
    pub async fn delete_session(
        &self,
        request: v2::DeleteSessionRequest,
    ) -> Result<v2::DeleteSessionResponse, Error> {
        if self.gating()
            && self
                .session_capabilities()
                .and_then(|s| s.delete.as_ref())
                .is_none()
        {
            return Err(Error::CapabilityNotAdvertised {
                method: m::agent::SESSION_DELETE,
                capability: "session.delete",
            });
        }
        let response = self
            .inner
            .peer
            .request::<m::SessionDelete>(&request)
            .await?;
        self.session_gone(&request.session_id);
        Ok(response)
    }

    /// `auth/login`: signs in with one of the agent's `authMethods`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] when the agent advertised no `authMethods`;
    /// [`Error::Rpc`] otherwise.
    pub async fn login(
        &self,
        request: v2::LoginAuthRequest,
    ) -> Result<v2::LoginAuthResponse, Error> {
        self.check_auth(m::agent::AUTH_LOGIN)?;
        Ok(self.inner.peer.request::<m::AuthLogin>(&request).await?)
    }

    /// `auth/logout`: signs out.
    ///
    /// # Errors
    ///
    /// As [`login`](Self::login).
    pub async fn logout(
        &self,
        request: v2::LogoutAuthRequest,
    ) -> Result<v2::LogoutAuthResponse, Error> {
        self.check_auth(m::agent::AUTH_LOGOUT)?;
        Ok(self.inner.peer.request::<m::AuthLogout>(&request).await?)
    }

    /// `session/prompt`: runs one turn. The answer only acknowledges the prompt (with the user
    /// message's id); this returns when the turn ends, at the session's `idle`
    /// `state_update`, with its stop reason, once the `idle` and every update before it were
    /// handled (by [`Client::session_notification_v2`](crate::Client::session_notification_v2)
    /// and the [`session_updates`](Self::session_updates) streams).
    ///
    /// An `idle` counts once the prompt was acknowledged or foreground work was reported
    /// `running` after it was sent: an earlier `idle` is the state before the prompt.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] for content the agent did not advertise;
    /// [`Error::Rpc`] when the agent refuses the prompt or the connection closes first.
    pub async fn prompt(&self, request: v2::PromptRequest) -> Result<TurnEnd, Error> {
        self.check_session(m::agent::SESSION_PROMPT)?;
        self.check_prompt(&request)?;
        let state = &self.inner.state;
        let session_id = &request.session_id;
        let _turn = TurnGuard::start(state, session_id);
        let wait = state
            .v2
            .wait_idle(session_id, false)
            .ok_or(acp_rpc::Error::ConnectionClosed)?;
        let _forget = ForgetWait {
            shared: &state.v2,
            session_id,
            key: wait.key,
        };
        // Not `Peer::request`: the connection-wide request timeout does not bound a turn.
        let answer = self
            .inner
            .peer
            .request_raw(m::agent::SESSION_PROMPT, &request)
            .await?;
        let acknowledged: v2::PromptResponse = answer.decode_method_result()?;
        state.v2.arm(session_id, wait.key);
        let idle = wait
            .rx
            .await
            .map_err(|_| acp_rpc::Error::ConnectionClosed)?;
        Ok(TurnEnd {
            message_id: acknowledged.message_id,
            idle,
        })
    }

    /// [`prompt`](Self::prompt), giving the turn at most `timeout`: past it the session is
    /// cancelled (`session/cancel`, its permission requests answered `cancelled`) and the
    /// turn's `idle` awaited for [`PROMPT_CANCEL_GRACE`](crate::PROMPT_CANCEL_GRACE) more, so
    /// that the turn ends properly and the session is free for the next prompt.
    ///
    /// # Errors
    ///
    /// As [`prompt`](Self::prompt); [`acp_rpc::Error::Timeout`] when the turn did not end
    /// within the grace period after the cancellation either.
    pub async fn prompt_with_timeout(
        &self,
        request: v2::PromptRequest,
        timeout: std::time::Duration,
    ) -> Result<TurnEnd, Error> {
        let session_id = request.session_id.clone();
        let turn = self.prompt(request);
        tokio::pin!(turn);
        if let Ok(end) = tokio::time::timeout(timeout, &mut turn).await {
            return end;
        }
        tracing::debug!(session = %session_id, ?timeout, "the turn took too long: cancelling it");
        self.inner.cancel_permissions(&session_id);
        // The `idle` that confirms the cancel ends the turn, acknowledged or not.
        self.inner.state.v2.arm_all(&session_id);
        self.inner
            .peer
            .notify::<m::SessionCancel>(&v2::CancelSessionNotification::new(session_id))
            .await?;
        tokio::time::timeout(crate::PROMPT_CANCEL_GRACE, turn)
            .await
            .map_err(|_| acp_rpc::Error::Timeout {
                method: m::agent::SESSION_PROMPT,
                after: timeout + crate::PROMPT_CANCEL_GRACE,
            })?
    }

    /// `session/cancel`: asks the agent to stop the session's foreground work, answers the
    /// session's pending permission requests `cancelled` (and those of the cancelled turn that
    /// arrive later), and waits for the confirmation: the `idle` update (normally with stop
    /// reason `cancelled`), which also ends a [`prompt`](Self::prompt) of the session. `None`
    /// at once when the session had no foreground work to cancel.
    ///
    /// # Errors
    ///
    /// When the connection closes before the confirmation.
    pub async fn cancel(
        &self,
        notification: v2::CancelSessionNotification,
    ) -> Result<Option<v2::IdleStateUpdate>, Error> {
        let shared = &self.inner.state.v2;
        let session_id = &notification.session_id;
        self.inner.cancel_permissions(session_id);
        let wait = if shared.busy(session_id) {
            shared.arm_all(session_id);
            shared.wait_idle(session_id, true)
        } else {
            None
        };
        self.inner
            .peer
            .notify::<m::SessionCancel>(&notification)
            .await?;
        let Some(wait) = wait else { return Ok(None) };
        let _forget = ForgetWait {
            shared,
            session_id,
            key: wait.key,
        };
        Ok(Some(
            wait.rx
                .await
                .map_err(|_| acp_rpc::Error::ConnectionClosed)?,
        ))
    }

    /// The stream of one session's v2 updates, from now on, in order (fold them into a
    /// [`SessionModel`](crate::model::SessionModel)). A turn's [`prompt`](Self::prompt)
    /// returns only after every update of the turn was pushed here. Buffers without bound:
    /// consume it, or drop it.
    pub fn session_updates(&self, session_id: impl Into<SessionId>) -> SessionUpdates {
        SessionUpdates {
            rx: self.inner.state.v2.subscribe(session_id.into()),
        }
    }
}

/// The v2 `session/update`s of one session, in order; see [`AgentHandle::session_updates`].
#[derive(Debug)]
pub struct SessionUpdates {
    rx: mpsc::UnboundedReceiver<v2::UpdateSessionNotification>,
}

impl SessionUpdates {
    /// The next update, or `None` once the connection is closed. Cancel safe.
    pub async fn next(&mut self) -> Option<v2::UpdateSessionNotification> {
        self.rx.recv().await
    }

    /// An update already received, without waiting.
    pub fn try_next(&mut self) -> Option<v2::UpdateSessionNotification> {
        self.rx.try_recv().ok()
    }
}

impl Stream for SessionUpdates {
    type Item = v2::UpdateSessionNotification;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx)
    }
}
