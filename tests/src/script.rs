//! The prompts the scripted agent understands: the first word of a prompt's first text block
//! names what the turn does; the following words are its arguments.
//!
//! A prompt whose first block is not text, or whose first word is none of these, is echoed:
//! every block comes back as an `agent_message_chunk`, followed by a text chunk listing the
//! kinds of the blocks (`blocks: text,image,...`).

/// Streams one `session/update` of every kind, in [`ALL_UPDATE_KINDS`] order.
pub const STREAM_ALL_UPDATES: &str = "stream-all-updates";
/// `count N`: streams `N` text chunks `"0"`, `"1"`, ... in order.
pub const COUNT: &str = "count";
/// Reports a tool call, asks permission for it, and reports the outcome as a message chunk
/// (`permission: selected <option>` or `permission: cancelled`).
pub const ASK_PERMISSION: &str = "ask-permission";
/// Reports `waiting`, awaits the cancellation signal, and only then asks permission (as an
/// agent whose request crossed the client's `session/cancel` on the wire would); reports the
/// outcome as [`ASK_PERMISSION`] does.
pub const PERMISSION_AFTER_CANCEL: &str = "permission-after-cancel";
/// Asks permission from a task of its own and waits for it; the task reports the outcome of
/// the call as an [`AgentEvent::DetachedCall`](crate::AgentEvent::DetachedCall), even if the
/// connection goes away meanwhile.
pub const ASK_PERMISSION_DETACHED: &str = "ask-permission-detached";
/// `read-write-file FROM TO`: reads `FROM` through the client (whole, then line 2 only), writes
/// it upper-cased to `TO`, and reports both reads.
pub const READ_WRITE_FILE: &str = "read-write-file";
/// Runs `echo hello` in a client terminal (output, wait, release), then a long-running command
/// (output, kill, wait, release), then asks for output of the released terminal; reports each
/// step.
pub const TERMINAL: &str = "terminal";
/// Asks the user to fill in a form, then to visit a URL, then tells the client the URL
/// elicitation completed; reports each answer.
pub const ELICIT: &str = "elicit";
/// Tries every capability-gated call to the client (files, terminals, both elicitation modes,
/// the completion notification) and reports each outcome.
pub const TRY_GATED_CALLS: &str = "try-gated-calls";
/// Reports `waiting`, awaits the cancellation signal, reports `stopping`, and returns
/// `end_turn` (the library must turn that into `cancelled`).
pub const WAIT_FOR_CANCEL: &str = "wait-for-cancel";
/// Like [`WAIT_FOR_CANCEL`], but polls the cancellation flag instead of awaiting it.
pub const POLL_FOR_CANCEL: &str = "poll-for-cancel";
/// Awaits the cancellation signal, then fails with an error (the library must still answer
/// `cancelled`).
pub const FAIL_AFTER_CANCEL: &str = "fail-after-cancel";
/// Reports `crashing`, then crashes the agent (aborts the process, or kills the in-process
/// connection).
pub const CRASH: &str = "crash";
/// Fails the turn with an internal error.
pub const FAIL: &str = "fail";
/// Ends the turn with `stopReason: "refusal"`.
pub const REFUSE: &str = "refuse";

/// The `sessionUpdate` tag of every update kind, in the order [`STREAM_ALL_UPDATES`] sends
/// them.
pub const ALL_UPDATE_KINDS: [&str; 11] = [
    "user_message_chunk",
    "agent_thought_chunk",
    "plan",
    "tool_call",
    "tool_call_update",
    "agent_message_chunk",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
];

/// The authentication method the scripted agent offers.
pub const AUTH_METHOD: &str = "agent-login";
