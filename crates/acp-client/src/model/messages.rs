//! Messages of the session model: upserts by kind and `messageId`, chunks that append.

use acp_types::v2::{ContentBlock, Patch};
use acp_types::{MessageId, Meta};

use super::{Keyed, patch_meta};

/// Who a message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageRole {
    /// The user (a prompt, or its replay).
    User,
    /// The agent's reply.
    Agent,
    /// The agent's reasoning.
    Thought,
}

/// One message of the session.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Message {
    /// The agent-made id; `None` for the chunks of a v1 agent that sent none.
    pub id: Option<MessageId>,
    /// Who it is from.
    pub role: MessageRole,
    /// The content: whole-message updates replace it, chunks append to it.
    pub content: Vec<ContentBlock>,
    /// Extension data of the message.
    pub meta: Option<Meta>,
}

impl Message {
    fn new(id: Option<MessageId>, role: MessageRole) -> Self {
        Self {
            id,
            role,
            content: Vec::new(),
            meta: None,
        }
    }

    /// The text of the message's text blocks, joined.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The messages, with or without an id.
#[derive(Debug, Clone, Default)]
pub(crate) struct Messages {
    keyed: Keyed<MessageKey, Message>,
    /// How many id-less (v1) messages were started: each gets a key of its own.
    anonymous: u64,
}

/// A message's key in the model: its kind and id (the schema gives each message kind its own
/// id space, so a user message and an agent message may share an id and stay two messages),
/// or the number of an id-less one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum MessageKey {
    Id(MessageRole, MessageId),
    Anonymous(u64),
}

impl Messages {
    pub(crate) fn items(&self) -> &[Message] {
        self.keyed.items()
    }

    /// The message of kind `role` with id `id`.
    pub(crate) fn get(&self, role: MessageRole, id: &MessageId) -> Option<&Message> {
        self.keyed.get(&MessageKey::Id(role, id.clone()))
    }

    /// The first message (in the order they appeared) with id `id`, of any kind.
    pub(crate) fn first_with(&self, id: &MessageId) -> Option<&Message> {
        [MessageRole::User, MessageRole::Agent, MessageRole::Thought]
            .into_iter()
            .filter_map(|role| self.keyed.index.get(&MessageKey::Id(role, id.clone())))
            .min()
            .map(|&i| &self.keyed.items[i])
    }

    /// Appends a chunk. A chunk without id continues the latest message when that one has no
    /// id either and the same role; otherwise it starts a message.
    pub(crate) fn chunk(
        &mut self,
        role: MessageRole,
        id: Option<MessageId>,
        content: ContentBlock,
    ) {
        let key = match id {
            Some(id) => MessageKey::Id(role, id),
            None => match self.keyed.items().last() {
                Some(last) if last.id.is_none() && last.role == role => {
                    MessageKey::Anonymous(self.anonymous)
                }
                _ => {
                    self.anonymous += 1;
                    MessageKey::Anonymous(self.anonymous)
                }
            },
        };
        let message = self.keyed.upsert(&key, || {
            let id = match &key {
                MessageKey::Id(_, id) => Some(id.clone()),
                MessageKey::Anonymous(_) => None,
            };
            Message::new(id, role)
        });
        message.content.push(content);
    }

    /// A whole-message upsert: a content value replaces, `null` (or `[]`) clears, omitted keeps.
    pub(crate) fn upsert(
        &mut self,
        role: MessageRole,
        id: MessageId,
        content: Patch<Vec<ContentBlock>>,
        meta: Patch<Meta>,
    ) {
        let key = MessageKey::Id(role, id);
        let message = self.keyed.upsert(&key, || {
            let MessageKey::Id(_, id) = &key else {
                unreachable!("keyed by id")
            };
            Message::new(Some(id.clone()), role)
        });
        match content {
            Patch::Unchanged => {}
            Patch::Clear => message.content.clear(),
            Patch::Set(content) => message.content = content,
        }
        patch_meta(&mut message.meta, meta);
    }
}

#[cfg(test)]
mod tests {
    use acp_types::v2::SessionUpdate;
    use serde_json::{Value, json};

    use super::MessageRole;
    use crate::model::SessionModel;

    fn apply(model: &mut SessionModel, update: Value) {
        let update: SessionUpdate = serde_json::from_value(update).expect("a v2 update");
        model.apply_v2(update).expect("applied");
    }

    #[test]
    fn each_message_kind_has_its_own_ids() {
        let mut model = SessionModel::new();
        let text = |t: &str| json!({"type": "text", "text": t});
        apply(
            &mut model,
            json!({"sessionUpdate": "user_message", "messageId": "m1", "content": [text("hi")]}),
        );
        apply(
            &mut model,
            json!({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text("hello")}),
        );
        apply(
            &mut model,
            json!({"sessionUpdate": "agent_thought_chunk", "messageId": "m1", "content": text("hmm")}),
        );
        let roles: Vec<_> = model
            .messages()
            .iter()
            .map(|m| (m.role, m.text()))
            .collect();
        assert_eq!(
            roles,
            [
                (MessageRole::User, "hi".to_owned()),
                (MessageRole::Agent, "hello".to_owned()),
                (MessageRole::Thought, "hmm".to_owned()),
            ]
        );
        let id = acp_types::MessageId::from("m1");
        assert_eq!(model.message(&id).map(|m| m.role), Some(MessageRole::User));
        assert_eq!(
            model.message_of(MessageRole::Agent, &id).map(|m| m.text()),
            Some("hello".to_owned())
        );
    }

    #[test]
    fn a_meta_key_set_to_null_is_removed() {
        let mut model = SessionModel::new();
        let message = |meta: Value| json!({"sessionUpdate": "agent_message", "messageId": "m1", "_meta": meta});
        apply(&mut model, message(json!({"a": 1, "b": {"x": 1}})));
        apply(
            &mut model,
            message(json!({"a": null, "b": {"y": 2}, "c": 3})),
        );
        let meta = model.messages()[0].meta.clone().expect("meta kept");
        assert_eq!(Value::Object(meta), json!({"b": {"y": 2}, "c": 3}));
        apply(&mut model, message(Value::Null));
        assert_eq!(model.messages()[0].meta, None, "`null` removes it all");
    }
}
