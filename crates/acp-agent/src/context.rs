//! What a running prompt turn gets: its session, the client, and the cancellation signal.

use acp_types::*;

use crate::signal::Signal;
use crate::{ClientHandle, Error};

/// The context of one prompt turn: pushes updates for its session without repeating the
/// session id, reaches the client, and tells when the client cancelled the turn.
///
/// Cheap to clone; clones share the cancellation signal.
#[derive(Clone, Debug)]
pub struct PromptContext {
    client: ClientHandle,
    session_id: SessionId,
    cancel: Signal,
}

impl PromptContext {
    pub(crate) fn new(client: ClientHandle, session_id: SessionId, cancel: Signal) -> Self {
        Self {
            client,
            session_id,
            cancel,
        }
    }

    /// The session of this turn.
    pub fn session_id(&self) -> &SessionId {
        &self.session_id
    }

    /// The handle to call the client.
    pub fn client(&self) -> &ClientHandle {
        &self.client
    }

    /// True once the client sent `session/cancel` for this session (or closed it).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_set()
    }

    /// Resolves when the client cancels the turn; use it in `tokio::select!` around long work.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn cancelled(&self) {
        self.cancel.wait().await;
    }

    /// Sends a `session/update` for this session.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn update(&self, update: impl Into<SessionUpdate>) -> Result<(), Error> {
        self.client
            .session_update(SessionNotification::new(
                self.session_id.clone(),
                update.into(),
            ))
            .await
    }

    /// Streams a chunk of the agent's reply (`agent_message_chunk`).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn message(&self, content: impl Into<ContentBlock>) -> Result<(), Error> {
        self.update(SessionUpdate::AgentMessageChunk(ContentChunk::new(content)))
            .await
    }

    /// Streams a chunk of the agent's reasoning (`agent_thought_chunk`).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn thought(&self, content: impl Into<ContentBlock>) -> Result<(), Error> {
        self.update(SessionUpdate::AgentThoughtChunk(ContentChunk::new(content)))
            .await
    }

    /// Asks the user to approve `tool_call`, offering `options` (`session/request_permission`).
    ///
    /// If the turn is cancelled while waiting, the client answers with the `cancelled` outcome.
    ///
    /// # Errors
    ///
    /// When the client fails the request or the connection closes.
    pub async fn request_permission(
        &self,
        tool_call: ToolCallUpdate,
        options: Vec<PermissionOption>,
    ) -> Result<RequestPermissionOutcome, Error> {
        let request = RequestPermissionRequest::new(self.session_id.clone(), tool_call, options);
        Ok(self.client.request_permission(request).await?.outcome)
    }
}
