//! One session model for both protocol versions (feature `unstable_protocol_v2`): what an editor
//! renders, built from the `session/update`s of a v1 or a v2 agent alike.
//!
//! v2 sends upserts keyed by required ids (messages by kind and `messageId`, as each message
//! kind has its own ids; tool calls by `toolCallId`, plans by `planId`, display terminals by
//! `terminalId`) whose fields have three states ([`Patch`](acp_types::v2::Patch): omitted
//! keeps, `null` clears, a value replaces), and chunks that append. v1 sends chunks with
//! optional message ids, `tool_call` + `tool_call_update`, and one id-less plan.
//! [`SessionModel::apply_v2`] and [`SessionModel::apply_v1`] fold both
//! into the same state, in the v2 shapes (the newer, richer ones): a v1 diff becomes a
//! structured diff with a whole-file `git_patch`, a v1 plan the plan without an id.
//!
//! ```
//! use acp_client::model::{SessionModel, TurnState};
//! use acp_types::v2;
//!
//! let mut model = SessionModel::new();
//! let updates: [v2::SessionUpdate; 3] = [
//!     v2::SessionUpdate::AgentMessageChunk(v2::ContentChunk::new("m1", "Hel")),
//!     v2::SessionUpdate::AgentMessageChunk(v2::ContentChunk::new("m1", "lo")),
//!     v2::StateUpdate::Idle(v2::IdleStateUpdate::new().stop_reason(v2::StopReason::EndTurn)).into(),
//! ];
//! for update in updates {
//!     model.apply_v2(update)?;
//! }
//! assert_eq!(model.messages()[0].text(), "Hello");
//! assert_eq!(model.state(), &TurnState::Idle(Some(v2::StopReason::EndTurn)));
//! # Ok::<(), acp_client::model::ModelError>(())
//! ```
//!
//! The model keeps what the agent sent and nothing else: it never asks the agent for anything.
//! An update it cannot apply (a terminal chunk that is not base64, a v1 shape with no v2
//! equivalent) is an [`ModelError`], and the model is left as it was.

mod convert;
mod messages;
mod plans;
mod terminals;
mod tool_calls;

use std::collections::HashMap;
use std::hash::Hash;

use acp_types::v2;

pub use messages::{Message, MessageRole};
pub use plans::Plan;
pub use terminals::{DisplayTerminal, MAX_TERMINAL_OUTPUT};
pub use tool_calls::ToolCall;

/// Why an update could not be applied; the model is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A display terminal's output (snapshot or chunk) is not valid base64.
    #[error("the output of display terminal `{terminal}` is not valid base64: {detail}")]
    InvalidBase64 {
        /// The terminal.
        terminal: String,
        /// What the decoder said.
        detail: String,
    },
    /// A chunk of content for a tool call the session does not have.
    #[error("a content chunk for tool call `{0}`, which the session does not have")]
    UnknownToolCall(String),
    /// A v1 value has no v2 equivalent (it does not read as the v2 shape).
    #[error("the v1 {what} has no v2 equivalent: {detail}")]
    NoV2Equivalent {
        /// What was converted.
        what: &'static str,
        /// Why it did not convert.
        detail: String,
    },
}

/// Where the session's foreground work stands, from `state_update` (v2) or from the prompt
/// lifecycle the caller reports (v1, see [`SessionModel::turn_started`] and
/// [`SessionModel::turn_ended`]).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub enum TurnState {
    /// Nothing known yet.
    #[default]
    Unknown,
    /// Foreground work is running.
    Running,
    /// Foreground work waits for the user (a permission request).
    RequiresAction,
    /// Ready for a prompt; with the stop reason when this ended foreground work.
    Idle(Option<v2::StopReason>),
    /// A state this library does not know (v2 states are an open set), by name.
    Other(String),
}

/// Values kept in arrival order and found by id: the model's lists.
#[derive(Debug, Clone)]
pub(crate) struct Keyed<K, V> {
    items: Vec<V>,
    index: HashMap<K, usize>,
}

impl<K, V> Default for Keyed<K, V> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<K: Eq + Hash + Clone, V> Keyed<K, V> {
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.index.get(key).map(|&i| &self.items[i])
    }

    /// The value for `key`, made by `make` when it is new.
    pub(crate) fn upsert(&mut self, key: &K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.index.get(key) {
            Some(&i) => i,
            None => {
                self.items.push(make());
                self.index.insert(key.clone(), self.items.len() - 1);
                self.items.len() - 1
            }
        };
        &mut self.items[i]
    }

    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.index.get(key).map(|&i| &mut self.items[i])
    }

    pub(crate) fn items(&self) -> &[V] {
        &self.items
    }
}

/// The state of one session as an editor renders it, whatever protocol version the agent
/// speaks; see the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct SessionModel {
    messages: messages::Messages,
    tool_calls: Keyed<acp_types::ToolCallId, ToolCall>,
    plans: Keyed<Option<v2::PlanId>, Plan>,
    terminals: Keyed<acp_types::TerminalId, DisplayTerminal>,
    config_options: Vec<v2::SessionConfigOption>,
    commands: Vec<v2::AvailableCommand>,
    usage: Option<acp_types::UsageUpdate>,
    title: Option<String>,
    current_mode: Option<String>,
    state: TurnState,
}

impl SessionModel {
    /// An empty model.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one v2 update.
    ///
    /// # Errors
    ///
    /// A display terminal's output that is not base64, or a content chunk for an unknown tool
    /// call; the model is then unchanged.
    pub fn apply_v2(&mut self, update: v2::SessionUpdate) -> Result<(), ModelError> {
        use v2::SessionUpdate as U;
        match update {
            U::UserMessageChunk(c) => {
                self.messages
                    .chunk(MessageRole::User, Some(c.message_id), c.content)
            }
            U::AgentMessageChunk(c) => {
                self.messages
                    .chunk(MessageRole::Agent, Some(c.message_id), c.content)
            }
            U::AgentThoughtChunk(c) => {
                self.messages
                    .chunk(MessageRole::Thought, Some(c.message_id), c.content)
            }
            U::UserMessage(m) => {
                self.messages
                    .upsert(MessageRole::User, m.message_id, m.content, m.meta)
            }
            U::AgentMessage(m) => {
                self.messages
                    .upsert(MessageRole::Agent, m.message_id, m.content, m.meta)
            }
            U::AgentThought(m) => {
                self.messages
                    .upsert(MessageRole::Thought, m.message_id, m.content, m.meta)
            }
            U::StateUpdate(state) => self.state = turn_state(&state),
            U::ToolCallUpdate(update) => self.tool_call_update(*update),
            U::ToolCallContentChunk(chunk) => {
                let call = self
                    .tool_calls
                    .get_mut(&chunk.tool_call_id)
                    .ok_or_else(|| ModelError::UnknownToolCall(chunk.tool_call_id.to_string()))?;
                call.content.push(chunk.content);
            }
            U::TerminalUpdate(update) => {
                let id = update.terminal_id.clone();
                match self.terminals.get_mut(&id) {
                    Some(terminal) => terminal.apply(*update)?,
                    None => {
                        let mut terminal = DisplayTerminal::new(id.clone());
                        terminal.apply(*update)?;
                        *self
                            .terminals
                            .upsert(&id, || DisplayTerminal::new(id.clone())) = terminal;
                    }
                }
            }
            U::TerminalOutputChunk(chunk) => {
                let bytes = terminals::decoded(&chunk.terminal_id, chunk.bytes())?;
                let id = chunk.terminal_id;
                self.terminals
                    .upsert(&id, || DisplayTerminal::new(id.clone()))
                    .append(&bytes);
            }
            U::PlanUpdate(update) => {
                if let v2::PlanUpdateContent::Items(items) = update.plan {
                    self.plans
                        .upsert(&Some(items.plan_id.clone()), || {
                            Plan::new(Some(items.plan_id.clone()))
                        })
                        .entries = items.entries;
                }
                // Other plan kinds (drafts, or newer than this library) have no entries to show.
            }
            U::AvailableCommandsUpdate(update) => self.commands = update.available_commands,
            U::ConfigOptionUpdate(update) => self.config_options = update.config_options,
            U::SessionInfoUpdate(update) => update.title.apply_to(&mut self.title),
            U::UsageUpdate(usage) => self.usage = Some(usage),
            // Notices are not session state; compactions have their own model (`Compactions`);
            // unknown updates are for newer clients (the spec says to tolerate them).
            _ => {}
        }
        Ok(())
    }

    /// Applies one v1 update, in the v2 shapes: a `tool_call` is the first upsert of its tool
    /// call, chunks without a `messageId` continue the latest message of their kind when it
    /// has no id either, a `plan` replaces the plan without an id.
    ///
    /// # Errors
    ///
    /// A v1 value that does not read as its v2 shape; the model is then unchanged.
    pub fn apply_v1(&mut self, update: acp_types::SessionUpdate) -> Result<(), ModelError> {
        use acp_types::SessionUpdate as U;
        match update {
            U::UserMessageChunk(c) => self.v1_chunk(MessageRole::User, c)?,
            U::AgentMessageChunk(c) => self.v1_chunk(MessageRole::Agent, c)?,
            U::AgentThoughtChunk(c) => self.v1_chunk(MessageRole::Thought, c)?,
            U::ToolCall(call) => {
                let update = convert::tool_call(*call)?;
                // A v1 `tool_call` states the whole tool call: what it leaves out is unset.
                let id = update.tool_call_id.clone();
                *self.tool_calls.upsert(&id, || ToolCall::new(id.clone())) =
                    ToolCall::new(id.clone());
                self.tool_call_update(update);
            }
            U::ToolCallUpdate(update) => {
                let update = convert::tool_call_update(*update)?;
                self.tool_call_update(update);
            }
            U::Plan(plan) => {
                let entries = plan.entries.into_iter().map(v2::PlanEntry::from).collect();
                self.plans.upsert(&None, || Plan::new(None)).entries = entries;
            }
            U::AvailableCommandsUpdate(update) => {
                self.commands = convert::commands(update.available_commands)?;
            }
            U::CurrentModeUpdate(update) => {
                self.current_mode = Some(update.current_mode_id.to_string())
            }
            U::ConfigOptionUpdate(update) => {
                self.config_options = convert::config_options(&update.config_options)?;
            }
            U::SessionInfoUpdate(update) => {
                if let Some(title) = update.title {
                    self.title = Some(title);
                }
            }
            U::UsageUpdate(usage) => self.usage = Some(usage),
            _ => {}
        }
        Ok(())
    }

    fn v1_chunk(
        &mut self,
        role: MessageRole,
        chunk: acp_types::ContentChunk,
    ) -> Result<(), ModelError> {
        let content = convert::content_block(chunk.content)?;
        self.messages.chunk(role, chunk.message_id, content);
        Ok(())
    }

    fn tool_call_update(&mut self, update: v2::ToolCallUpdate) {
        let id = update.tool_call_id.clone();
        self.tool_calls
            .upsert(&id, || ToolCall::new(id.clone()))
            .apply(update);
    }

    /// Applies what a v2 permission request says about displayed state: a `tool_call` subject
    /// is an ordinary tool-call upsert (its prompt copy, `title` and `description`, is not
    /// the tool call's and changes nothing here). Other subjects describe, not change.
    pub fn apply_permission_request(&mut self, request: &v2::RequestPermissionRequest) {
        if let Some(v2::RequestPermissionSubject::ToolCall(subject)) = &request.subject {
            self.tool_call_update(subject.tool_call.clone());
        }
    }

    /// Records that a v1 prompt turn started (v1 has no `state_update`: the `session/prompt`
    /// request is the turn).
    pub fn turn_started(&mut self) {
        self.state = TurnState::Running;
    }

    /// Records the end of a v1 prompt turn with its stop reason (the `session/prompt`
    /// response).
    pub fn turn_ended(&mut self, stop_reason: &acp_types::StopReason) {
        self.state = TurnState::Idle(Some(v2::StopReason::from(stop_reason.as_str())));
    }

    /// The messages (user, agent, thoughts), in the order they first appeared.
    pub fn messages(&self) -> &[Message] {
        self.messages.items()
    }

    /// The first message (in the order they appeared) with id `id`, whatever its kind. Each
    /// message kind has its own ids (the schema), so a user and an agent message may share
    /// one: [`message_of`](Self::message_of) names the kind.
    pub fn message(&self, id: &acp_types::MessageId) -> Option<&Message> {
        self.messages.first_with(id)
    }

    /// The message of kind `role` with id `id`.
    pub fn message_of(&self, role: MessageRole, id: &acp_types::MessageId) -> Option<&Message> {
        self.messages.get(role, id)
    }

    /// The tool calls, in the order they first appeared.
    pub fn tool_calls(&self) -> &[ToolCall] {
        self.tool_calls.items()
    }

    /// The tool call with id `id`.
    pub fn tool_call(&self, id: &acp_types::ToolCallId) -> Option<&ToolCall> {
        self.tool_calls.get(id)
    }

    /// The plans, in the order they first appeared (a v1 agent's plan has no id).
    pub fn plans(&self) -> &[Plan] {
        self.plans.items()
    }

    /// The plan with id `id` (`None`: a v1 agent's plan).
    pub fn plan(&self, id: Option<&v2::PlanId>) -> Option<&Plan> {
        self.plans.get(&id.cloned())
    }

    /// The agent's display terminals (v2), in the order they first appeared.
    pub fn terminals(&self) -> &[DisplayTerminal] {
        self.terminals.items()
    }

    /// The display terminal with id `id`.
    pub fn terminal(&self, id: &acp_types::TerminalId) -> Option<&DisplayTerminal> {
        self.terminals.get(id)
    }

    /// The session's configuration options, as last sent.
    pub fn config_options(&self) -> &[v2::SessionConfigOption] {
        &self.config_options
    }

    /// The slash commands, as last sent.
    pub fn commands(&self) -> &[v2::AvailableCommand] {
        &self.commands
    }

    /// Context window use and cost, as last sent.
    pub fn usage(&self) -> Option<&acp_types::UsageUpdate> {
        self.usage.as_ref()
    }

    /// The session's title.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The current mode of a v1 agent (v2 has modes as configuration options).
    pub fn current_mode(&self) -> Option<&str> {
        self.current_mode.as_deref()
    }

    /// Where foreground work stands.
    pub fn state(&self) -> &TurnState {
        &self.state
    }
}

/// The turn state a `state_update` reports.
pub(crate) fn turn_state(state: &v2::StateUpdate) -> TurnState {
    match state {
        v2::StateUpdate::Running(_) => TurnState::Running,
        v2::StateUpdate::RequiresAction(_) => TurnState::RequiresAction,
        v2::StateUpdate::Idle(idle) => TurnState::Idle(idle.stop_reason.clone()),
        other => TurnState::Other(other.tag().unwrap_or_default().to_owned()),
    }
}

/// Patches stored `_meta` as the schema's v2 upserts do: `null` removes it all; an object
/// patches it by top-level key, a key set to `null` is removed and any other value replaces
/// that key's (nested objects are not merged).
pub(crate) fn patch_meta(stored: &mut Option<acp_types::Meta>, patch: v2::Patch<acp_types::Meta>) {
    match patch {
        v2::Patch::Unchanged => {}
        v2::Patch::Clear => *stored = None,
        v2::Patch::Set(values) => {
            let meta = stored.get_or_insert_with(Default::default);
            for (key, value) in values {
                if value.is_null() {
                    meta.remove(&key);
                } else {
                    meta.insert(key, value);
                }
            }
        }
    }
}
