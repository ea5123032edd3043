//! The v2 definitions of the draft feature `unstable_subagents`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use crate::v2::prelude::*;

wire_object! {
    /// The `BackgroundSubagent` of ACP v2.
    #[new(session_id: impl Into<SessionId>)]
    pub struct BackgroundSubagent {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The child's state is not known (`"state": "unknown"`).
    #[optional_fields(new)]
    pub struct UnknownStateUpdate {
        /// The background.
        opt background: Vec<BackgroundWork> = "background" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The parent session created or describes a child session (`"sessionUpdate":
    /// "subagent_update"`, sent on the parent). Optional fields work as a patch: absent keeps
    /// the value the client knows, `null` clears it. The first update for a child comes before
    /// any of its traffic.
    #[new(session_id: impl Into<SessionId>)]
    pub struct SubagentUpdate {
        /// The child session.
        req session_id: SessionId = "sessionId";
        /// The parent's display title for the child.
        patch title: String = "title" [DOE];
        /// The parent's description of the child's role.
        patch description: String = "description" [DOE];
        /// The session mutations the client may start on the child (a whole set).
        patch capabilities: SubagentSessionCapabilities = "capabilities" [DOE];
        /// The child's work state (a whole snapshot).
        patch state: StateUpdate = "state" [DOE];
        /// The child's working directory (an absolute path); while unset, the parent's.
        patch cwd: AbsolutePath = "cwd";
        /// The child's additional workspace roots (absolute paths); while unset, the parent's.
        patch additional_directories: Vec<AbsolutePath> = "additionalDirectories";
        /// Extension data, opaque to the protocol.
        patch meta: Meta = "_meta" [DOE];
    }
}

wire_object! {
    /// A message between sessions, created or updated (`"sessionUpdate": "session_message"`).
    /// Optional fields work as a patch: absent keeps the stored value, `null` clears it.
    #[new(message_id: impl Into<MessageId>)]
    pub struct SessionMessage {
        /// The message in the enclosing session's transcript.
        req message_id: MessageId = "messageId";
        /// The sending session.
        patch sender_session_id: SessionId = "senderSessionId" [DOE];
        /// The receiving session.
        patch recipient_session_id: SessionId = "recipientSessionId" [DOE];
        /// On an incoming view, the id of the same message in the sender's transcript.
        patch sender_message_id: MessageId = "senderMessageId" [DOE];
        /// On an outgoing view, the id of the same message in the recipient's transcript.
        patch recipient_message_id: MessageId = "recipientMessageId" [DOE];
        /// The whole content (`null` or empty clears it).
        patch content: Vec<ContentBlock> = "content" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        patch meta: Meta = "_meta" [DOE];
    }
}

wire_object! {
    /// A streamed content block of a message between sessions (`"sessionUpdate":
    /// "session_message_chunk"`).
    #[new(message_id: impl Into<MessageId>, content: impl Into<ContentBlock>)]
    pub struct SessionMessageChunk {
        /// The message it belongs to.
        req message_id: MessageId = "messageId";
        /// The block appended to the message.
        req content: ContentBlock = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

// The definitions of this draft v2 shares with v1: v1's types.
pub use crate::{SessionCancelCapabilities, SubagentSessionCapabilities};
