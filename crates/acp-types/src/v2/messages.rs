//! Messages: whole-message upserts and chunks.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;

wire_object! {
    /// A piece of a streamed message.
    #[new(message_id: impl Into<MessageId>, content: impl Into<ContentBlock>)]
    pub struct ContentChunk {
        /// The message this chunk belongs to.
        req message_id: MessageId = "messageId";
        /// The content of this chunk.
        req content: ContentBlock = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A whole user message, upserted by its `messageId`; after `session/prompt`, the
    /// acknowledgement that places the prompt in the session history.
    #[new(message_id: impl Into<MessageId>)]
    pub struct UserMessage {
        /// The message this concerns.
        req message_id: MessageId = "messageId";
        /// The whole content, replacing what was stored; `Clear` or an empty list empties the
        /// message.
        patch content: Vec<ContentBlock> = "content" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        patch meta: Meta = "_meta" [DOE];
    }
}

wire_object! {
    /// A whole agent message, upserted by its `messageId`: replaces the content stored for the
    /// message (see [`Patch`]).
    #[new(message_id: impl Into<MessageId>)]
    pub struct AgentMessage {
        /// The message this concerns.
        req message_id: MessageId = "messageId";
        /// The whole content, replacing what was stored; `Clear` or an empty list empties the
        /// message.
        patch content: Vec<ContentBlock> = "content" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        patch meta: Meta = "_meta" [DOE];
    }
}

wire_object! {
    /// A whole agent thought, upserted by its `messageId`: replaces the content stored for the
    /// thought (see [`Patch`]).
    #[new(message_id: impl Into<MessageId>)]
    pub struct AgentThought {
        /// The message this concerns.
        req message_id: MessageId = "messageId";
        /// The whole content, replacing what was stored; `Clear` or an empty list empties the
        /// thought.
        patch content: Vec<ContentBlock> = "content" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        patch meta: Meta = "_meta" [DOE];
    }
}
