//! ACP v2 beside v1 (feature `unstable_protocol_v2`): one agent, both versions, chosen per
//! connection.
//!
//! # The design: one trait, adapted per connection
//!
//! An author writes the agent once, against the [`Agent`](crate::Agent) trait and the
//! [`PromptContext`](crate::PromptContext) toolkit, in v1's types. The library negotiates the
//! version in `initialize` (the highest it supports at or below the client's: 2 for a client
//! asking 2 or more, 1 for a client asking 1, and `-32022` with the supported versions for a
//! client asking 0; an agent capped at 1 by
//! [`AgentOptions::max_protocol_version`](crate::AgentOptions::max_protocol_version) answers 1
//! to every client) and adapts each v2 connection:
//!
//! - **Requests** of a v2 client that mean what a v1 method means are converted and handed to
//!   the same trait method: `initialize` (`info`/`capabilities` as `clientInfo` and
//!   `clientCapabilities`; the answer's `agentInfo` becomes the required `info`, or, when the
//!   agent gives none, [`AgentOptions::agent_info`](crate::AgentOptions::agent_info)),
//!   `session/new`, `session/list`,
//!   `session/close`, `session/delete`, `session/set_config_option`, `session/cancel`,
//!   `auth/login` ([`Agent::authenticate`](crate::Agent::authenticate)), `auth/logout`
//!   ([`Agent::logout`](crate::Agent::logout) when the agent advertised v1's `auth.logout`;
//!   v2 requires the method of every agent with `authMethods`, so without it the library
//!   answers success: the agent keeps no sign-in of its own to end). `session/resume` goes to
//!   [`Agent::resume_session`](crate::Agent::resume_session) without `replayFrom`, and to
//!   [`Agent::load_session`](crate::Agent::load_session) (which replays the history) with
//!   `replayFrom: {"type": "start"}`; other cursors are refused with `-32602`, as the schema
//!   requires. v2 makes listing, resuming and closing baseline: an agent that advertised
//!   neither v1 method answers an empty list, and closes by cancelling the session's turn. An
//!   agent without v1's `session/resume` resumes without replay a session open on the
//!   connection as it is, and any other through `Agent::load_session` with the replay left out
//!   (a [`SessionStore`](crate::SessionStore) backed agent thus resumes from its store); an
//!   agent that cannot load answers `-32002` for a session not open on the connection.
//! - **Open sessions.** v2 asks a client to make (`session/new`) or take up
//!   (`session/resume`) a session before it works in it: `session/prompt`, `session/close`,
//!   `session/set_config_option`, `tool_call/cancel` and `terminal/cancel` naming a session this
//!   connection did not open, or closed or deleted since, fail with `-32002` before the agent
//!   sees them (a prompt is acknowledged before the agent runs it, so the agent could not
//!   refuse it in time), and such a `session/cancel` is ignored. A connection holds at most
//!   4,096 open sessions; `session/new` and `session/resume` beyond that fail until one closes.
//! - **The prompt lifecycle** is run by the library: `session/prompt` is answered at once with
//!   the `messageId` it gives the user message; once that answer is written, the turn runs:
//!   the `user_message` with that id, `state_update` `running`, the agent's
//!   [`prompt`](crate::Agent::prompt), then `idle` with the stop reason (`cancelled` after
//!   `session/cancel`, `error` with the error when the agent fails) and, with
//!   `unstable_end_turn_token_usage`, the turn's `usage`. While a permission request
//!   waits, the state is `requires_action`. A prompt sent while a turn runs is held
//!   unanswered until that turn's `idle` is out, then answered and run; `session/cancel` and
//!   `session/close` cancel held prompts, which answer `-32800` and never run.
//!   `session/close` answers after the cancelled turn's last updates and its `idle`, and
//!   nothing of the session follows its answer (the schema's `CloseSessionRequest`).
//! - **The toolkit speaks v2 on a v2 connection**: message and thought chunks get a
//!   `messageId` (a chunk continues the current message of its kind until another kind of
//!   update, or the end of the turn, closes it; a chunk's own `messageId` is kept), recorded
//!   with it so a replay keeps the ids; `tool_call` and `tool_call_update` become
//!   `tool_call_update` upserts (a v1 `null` means "unchanged", so it is left out); diffs
//!   become structured diffs with a git patch; `plan` becomes `plan_update` (one plan per
//!   session, `planId` `"main"`, the synthetic id the plan-variants design document asks
//!   converters to use); permission requests carry the tool call as their subject and
//!   its title as theirs.
//! - **v2-only features** have their own calls: [`Agent::cancel_tool_call`](crate::Agent::cancel_tool_call)
//!   and [`Agent::cancel_terminal`](crate::Agent::cancel_terminal) for `tool_call/cancel` and
//!   `terminal/cancel`; [`MessageHandle`](crate::MessageHandle) for message replacement and
//!   clearing, [`DisplayTerminalHandle`](crate::DisplayTerminalHandle) for display terminals
//!   with snapshots, output chunks and exit status, and
//!   [`ToolCallHandle::content`](crate::ToolCallHandle::content), which sends a content chunk;
//!   [`PromptContext::update_v2`](crate::PromptContext::update_v2) for any other v2 update
//!   (background work), which fails on a v1 connection.
//! - **Session modes** become what v2 asks agents to offer instead: a config option of
//!   category `mode` (config id `mode`) among the session's `configOptions`;
//!   `session/set_config_option` on it switches the mode through
//!   [`Agent::set_session_mode`](crate::Agent::set_session_mode), and a `current_mode_update`
//!   is sent as a `config_option_update` with the whole list. While `session/resume` replays
//!   a history, the session's modes are not known yet (the answer brings them, with the
//!   current mode): a replayed `current_mode_update` is left out, as the answer supersedes it.
//! - **v1-only features fail on a v2 connection** with
//!   [`Error::NotInProtocolVersion`](crate::Error::NotInProtocolVersion): the client's `fs/*`
//!   and `terminal/*` methods; v1-only methods a v2 client sends (`session/load`,
//!   `session/set_mode`, `authenticate`, ...) get `-32601` naming the version. A
//!   `current_mode_update` for a session whose modes are not offered as the config option
//!   `mode` is not sent (logged at debug level): an agent with a `mode` option of its own
//!   sends that option's change as a `config_option_update`.
//! - **Cancellable tool calls and terminals** are known per connection, from the updates sent
//!   on it: after `session/resume` on a new connection, `tool_call/cancel` and
//!   `terminal/cancel` are accepted for the ones a replay or a later update advertises
//!   `capabilities.cancel` for (a resume without replay sends none, so until the agent sends
//!   the tool call's capabilities again they get `-32602`).
//!
//! Conversions go through each value's JSON where the two versions write the same or nearly
//! the same, and keep unknown fields; what cannot be said in the other version is an error
//! naming it, never dropped.

mod client;
mod convert;
mod cursor;
mod modes;
mod serve;
mod turns;

pub(crate) use client::TextChunk;
pub(crate) use cursor::Cursors;
pub(crate) use serve::{Answer, Call, Notification, V2, decode_notification, decode_request};
pub(crate) use serve::{handle, handle_notification};
pub(crate) use turns::Turns;
