//! A message the agent streams under an id of its own, so that it can later replace or clear
//! the whole message (ACP v2).
//!
//! ```no_run
//! # use acp_agent::{Error, PromptContext};
//! # #[allow(dead_code)]
//! # async fn turn(cx: PromptContext) -> Result<(), Error> {
//! let draft = cx.new_message();
//! draft.chunk("Thinking about it: maybe 41").await?;
//! if cx.client().is_v2() {
//!     // The client now shows only the corrected text, under the same `messageId`.
//!     draft.replace(["The answer is 42."]).await?;
//! }
//! # Ok(()) }
//! ```

use acp_types::v2::{self, Patch};
use acp_types::{ContentBlock, ContentChunk, MessageId, SessionUpdate};

use crate::{Error, PromptContext};

/// Whose message a [`MessageHandle`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The agent's reply (`agent_message_chunk`, `agent_message`).
    Agent,
    /// The agent's reasoning (`agent_thought_chunk`, `agent_thought`).
    Thought,
}

/// One agent message (or thought) of the running turn, by its `messageId`: made with
/// [`PromptContext::new_message`] or [`PromptContext::new_thought`] (feature
/// `unstable_protocol_v2`).
///
/// Its chunks carry its id on both protocol versions (v1 has an optional `messageId` on
/// chunks too). Replacing and clearing the whole message are v2 updates (`agent_message` /
/// `agent_thought` with `content`): v1 has no way to take back what was streamed, so on a v1
/// connection they fail with [`Error::NotInProtocolVersion`] and send nothing.
///
/// After a chunk of this message, [`PromptContext::message`] (or
/// [`thought`](PromptContext::thought)) continues it until another kind of update comes.
#[derive(Debug, Clone)]
pub struct MessageHandle {
    cx: PromptContext,
    id: MessageId,
    role: Role,
}

impl MessageHandle {
    fn new(cx: &PromptContext, role: Role) -> Self {
        Self {
            id: cx.client().cursors().new_id(),
            cx: cx.clone(),
            role,
        }
    }

    /// The message's id (`messageId`), unique on the connection and across connections.
    pub fn id(&self) -> &MessageId {
        &self.id
    }

    /// Appends `content` to the message (an `agent_message_chunk` or `agent_thought_chunk`
    /// with this message's id), on either protocol version.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn chunk(&self, content: impl Into<ContentBlock>) -> Result<(), Error> {
        let chunk = ContentChunk::new(content).message_id(self.id.clone());
        self.cx
            .update(match self.role {
                Role::Agent => SessionUpdate::AgentMessageChunk(chunk),
                Role::Thought => SessionUpdate::AgentThoughtChunk(chunk),
            })
            .await
    }

    /// Replaces everything the message holds (what was streamed and what an earlier
    /// replacement set) with `content` (an `agent_message` or `agent_thought` update). Later
    /// chunks append to it.
    ///
    /// The replacement is not recorded by a [`SessionStore`](crate::SessionStore), which keeps
    /// the v1 form of the history: a replayed session shows the message as it was streamed.
    ///
    /// # Errors
    ///
    /// [`Error::NotInProtocolVersion`] on a v1 connection, [`Error::Unconvertible`] for a
    /// content block v2 cannot say (nothing is sent either way); or when the connection is
    /// closed.
    pub async fn replace(
        &self,
        content: impl IntoIterator<Item = impl Into<ContentBlock>>,
    ) -> Result<(), Error> {
        self.cx.require_v2("replacing a message")?;
        let content = content
            .into_iter()
            .map(|block| v2::ContentBlock::try_from(block.into()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::Unconvertible {
                what: "a message's content".into(),
                version: crate::v2::V2,
                reason: e.to_string(),
            })?;
        self.send(Patch::Set(content)).await
    }

    /// Empties the message (an `agent_message` or `agent_thought` update with `content:
    /// null`): the client keeps it, without content; later chunks append to nothing.
    ///
    /// Not recorded by a [`SessionStore`](crate::SessionStore), as for
    /// [`replace`](Self::replace).
    ///
    /// # Errors
    ///
    /// [`Error::NotInProtocolVersion`] on a v1 connection (nothing is sent); or when the
    /// connection is closed.
    pub async fn clear(&self) -> Result<(), Error> {
        self.cx.require_v2("clearing a message")?;
        self.send(Patch::Clear).await
    }

    /// Sends the whole-message upsert with `content`.
    async fn send(&self, content: Patch<Vec<v2::ContentBlock>>) -> Result<(), Error> {
        let update = match self.role {
            Role::Agent => {
                let mut message = v2::AgentMessage::new(self.id.clone());
                message.content = content;
                v2::SessionUpdate::AgentMessage(message)
            }
            Role::Thought => {
                let mut thought = v2::AgentThought::new(self.id.clone());
                thought.content = content;
                v2::SessionUpdate::AgentThought(thought)
            }
        };
        self.cx.update_v2(update).await
    }
}

impl PromptContext {
    /// A new agent message with an id of its own, to stream with [`MessageHandle::chunk`] and
    /// replace or clear later (v2); nothing is sent yet.
    pub fn new_message(&self) -> MessageHandle {
        MessageHandle::new(self, Role::Agent)
    }

    /// A new agent thought (reasoning) with an id of its own, as
    /// [`new_message`](Self::new_message) is for the reply.
    pub fn new_thought(&self) -> MessageHandle {
        MessageHandle::new(self, Role::Thought)
    }
}
