//! The cases of `acp check client --protocol 2` (and `both`): the checker plays an agent of
//! the ACP v2 draft. It answers `initialize` with 2, acknowledges the client's prompt at once
//! with the user message's `messageId`, places it with `user_message`, reports `running`, runs
//! the case's script, and ends the turn with an `idle` state update (`cancelled` after the
//! client's `session/cancel`). The client must take every v2 update shape, upserts and
//! patches included, answer a permission request while the state is `requires_action`, and
//! answer a pending one `cancelled` when it cancels.

use acp_types::v2::methods::client;
use serde_json::{Value, json};

use super::cases::{judge_cancelled_answer, pending_until_cancelled};
use super::{CaseFn, ClientCheck, Run, call, describe_client, notify_update, probe};
use crate::case::{Case, Verdict, fail, fail_with};
use crate::conn::PROTOCOL_VERSION_2;

/// The v2 cases, in order.
pub(super) const CASES: &[Case<CaseFn>] = &[
    Case::core("v2-initialize", |_, run| Box::pin(initialize(run))),
    Case::core("v2-update-kinds", |_, run| Box::pin(update_kinds(run))),
    Case::core("v2-message-replacement", |_, run| {
        Box::pin(message_replacement(run))
    }),
    Case::core("v2-display-terminal", |_, run| {
        Box::pin(display_terminal(run))
    }),
    Case::core("v2-unknown-values", |_, run| Box::pin(unknown_values(run))),
    Case::core("v2-requires-action", |_, run| {
        Box::pin(requires_action(run))
    }),
    Case::core("v2-cancel", |opts, run| Box::pin(cancel(opts, run))),
];

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn state(state: &str) -> Value {
    json!({"sessionUpdate": "state_update", "state": state})
}

fn permission_params(session: &str, call: &str) -> Value {
    json!({"sessionId": session, "title": "Edit notes.txt",
    "subject": {"type": "tool_call", "toolCall": {"toolCallId": format!("acp-check-{call}"),
        "title": "Edit notes.txt", "kind": "edit", "status": "pending"}},
    "options": [
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"}
    ]})
}

/// A turn's output in every v2 update kind, in a plausible order: thought and message chunks
/// and whole messages keyed by `messageId`, a tool call created, streamed and completed, a
/// plan, commands, config options, session info, usage.
fn every_update_kind() -> Vec<Value> {
    vec![
        json!({"sessionUpdate": "agent_thought_chunk", "messageId": "acp-check-thought-1",
            "content": text("Thinking.")}),
        json!({"sessionUpdate": "agent_thought", "messageId": "acp-check-thought-1",
            "content": [text("Thinking it over.")]}),
        json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "acp-check-plan",
            "entries": [{"content": "Read notes.txt", "priority": "high", "status": "in_progress"}]}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "acp-check-1",
            "title": "Read notes.txt", "kind": "read", "status": "pending"}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "acp-check-1",
            "status": "in_progress"}),
        json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "acp-check-1",
            "content": {"type": "content", "content": text("line one")}}),
        json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "acp-check-1",
            "content": {"type": "content", "content": text("line two")}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "acp-check-1",
            "status": "completed", "title": null}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "acp-check-agent-1",
            "content": text("Done")}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "acp-check-agent-1",
            "content": text(".")}),
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"type": "command", "name": "check", "description": "Run the checks"}]}),
        json!({"sessionUpdate": "config_option_update", "configOptions": []}),
        json!({"sessionUpdate": "session_info_update", "title": "A checked session"}),
        json!({"sessionUpdate": "usage_update", "used": 1000, "size": 200000}),
    ]
}

/// One message replaced, appended to and cleared, by its `messageId`.
fn message_replacements() -> Vec<Value> {
    let id = "acp-check-agent-replaced";
    vec![
        json!({"sessionUpdate": "agent_message", "messageId": id, "content": [text("A")]}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": id, "content": text("B")}),
        json!({"sessionUpdate": "agent_message", "messageId": id, "content": [text("C")]}),
        json!({"sessionUpdate": "agent_message", "messageId": id}),
        json!({"sessionUpdate": "agent_message", "messageId": id, "content": null}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": id, "content": text("D")}),
        json!({"sessionUpdate": "agent_message", "messageId": id, "content": []}),
    ]
}

/// `bytes` in base64, as terminal output travels.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// An agent-owned display terminal: created, its output streamed in chunks that split a UTF-8
/// code point and carry bytes that are no UTF-8 at all, replaced by a snapshot, appended to,
/// and exited.
fn display_terminal_updates(cwd: &str) -> Vec<Value> {
    let id = "acp-check-terminal";
    let chunk = |bytes: &[u8]| json!({"sessionUpdate": "terminal_output_chunk", "terminalId": id, "data": base64(bytes)});
    // "é" is 0xC3 0xA9: split across two chunks. 0xFF never occurs in UTF-8.
    vec![
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "acp-check-run",
            "title": "Run the checks", "kind": "execute", "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": id}]}),
        json!({"sessionUpdate": "terminal_update", "terminalId": id, "command": "make check",
            "cwd": cwd}),
        chunk(b"caf\xC3"),
        chunk(b"\xA9\n"),
        chunk(b"raw \xFF\xFE bytes\n"),
        json!({"sessionUpdate": "terminal_update", "terminalId": id,
            "output": {"data": base64(b"snapshot: all clear\n")}}),
        chunk(b"done\n"),
        json!({"sessionUpdate": "terminal_update", "terminalId": id,
            "exitStatus": {"exitCode": 0}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "acp-check-run",
            "status": "completed"}),
    ]
}

/// What a client must tolerate: an update kind, a state, a stop-reason-like value, a tool-call
/// content type and fields the protocol does not define (yet).
fn unknown_value_updates() -> Vec<Value> {
    vec![
        json!({"sessionUpdate": "acp_check_future_kind", "payload": {"x": 1}}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "acp-check-agent-2",
            "acpCheckFutureField": [1, 2],
            "content": {"type": "text", "text": "unknown fields", "acpCheckFuture": true}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "acp-check-future",
            "title": "t", "status": "_acp_check_status", "kind": "_acp_check_kind",
            "content": [{"type": "_acp_check_content", "x": 1}]}),
        json!({"sessionUpdate": "state_update", "state": "running", "_meta": {"acp-check": 1}}),
    ]
}

/// Sends every update of `updates`, then checks the client still answers.
async fn send_all(
    run: &mut Run,
    updates: Vec<Value>,
    what: &str,
) -> Result<usize, crate::case::Stop> {
    let n = updates.len();
    for update in updates {
        notify_update(run, update).await?;
    }
    probe(run, what).await?;
    Ok(n)
}

async fn initialize(run: &mut Run) -> Verdict {
    let version = &run.init["protocolVersion"];
    if version.as_u64() != Some(PROTOCOL_VERSION_2) {
        return Err(fail(format!(
            "the client asked for version {version}; the checker plays a v2 agent"
        )));
    }
    Ok(format!(
        "asked for 2, acknowledged prompt {:?}; {}",
        run.user_message,
        describe_client(run)
    ))
}

async fn update_kinds(run: &mut Run) -> Verdict {
    let n = send_all(run, every_update_kind(), "every v2 update kind").await?;
    Ok(format!(
        "{n} updates of every v2 kind taken (chunks, whole messages, tool-call upserts and \
         content chunks, plan); the client still answers"
    ))
}

async fn message_replacement(run: &mut Run) -> Verdict {
    let n = send_all(run, message_replacements(), "message replacement").await?;
    Ok(format!(
        "{n} upserts of one message (replaced, appended, left, cleared) taken"
    ))
}

async fn display_terminal(run: &mut Run) -> Verdict {
    let cwd = run
        .cwd
        .as_ref()
        .map_or_else(|| "/".to_owned(), |cwd| cwd.to_string_lossy().into_owned());
    let n = send_all(run, display_terminal_updates(&cwd), "a display terminal").await?;
    Ok(format!(
        "{n} updates of a display terminal (split and invalid UTF-8, a snapshot, exit) taken"
    ))
}

async fn unknown_values(run: &mut Run) -> Verdict {
    send_all(
        run,
        unknown_value_updates(),
        "unknown kinds, values and fields",
    )
    .await?;
    Ok("an unknown update kind, enum values, content type and fields tolerated".into())
}

async fn requires_action(run: &mut Run) -> Verdict {
    notify_update(run, state("requires_action")).await?;
    let params = permission_params(&run.session, "permission");
    let response = call(run, client::SESSION_REQUEST_PERMISSION, params).await?;
    notify_update(run, state("running")).await?;
    let outcome = &response["result"]["outcome"];
    match outcome["outcome"].as_str() {
        Some("selected")
            if ["allow", "reject"].contains(&outcome["optionId"].as_str().unwrap_or_default()) =>
        {
            Ok(format!(
                "requires_action, permission answered {}, running",
                outcome["optionId"]
            ))
        }
        Some("cancelled") => Ok("requires_action, permission answered cancelled, running".into()),
        _ => Err(fail_with(
            "the answer names no option that was offered",
            &response,
        )),
    }
}

/// A long turn with a permission request pending (`requires_action`): the client is to send
/// `session/cancel` and answer the request `cancelled`; the turn then ends `idle`
/// `cancelled`.
async fn cancel(opts: &ClientCheck, run: &mut Run) -> Verdict {
    notify_update(run, state("requires_action")).await?;
    let params = permission_params(&run.session, "long");
    let chunk = json!({"sessionUpdate": "agent_message_chunk", "messageId": "acp-check-long",
        "content": text(".")});
    let (response, chunks) = pending_until_cancelled(opts, run, params, &chunk).await?;
    judge_cancelled_answer(&response)?;
    Ok(format!(
        "{chunks} chunk(s), session/cancel, the pending permission request answered cancelled; \
         the turn ends idle \"cancelled\""
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    /// What the checker puts on the wire is valid v2: every update of the scripts.
    #[test]
    fn every_scripted_update_is_valid_v2() {
        let schema = Schema::embedded_v2();
        let updates = every_update_kind()
            .into_iter()
            .chain(message_replacements())
            .chain(display_terminal_updates("/tmp"))
            .chain(unknown_value_updates())
            .chain([state("requires_action"), state("running")]);
        for update in updates {
            let params = json!({"sessionId": "s", "update": update});
            assert_eq!(
                schema.check_def("UpdateSessionNotification", &params),
                Ok(()),
                "{update}"
            );
        }
        let permission = permission_params("s", "p");
        assert_eq!(
            schema.check_def("RequestPermissionRequest", &permission),
            Ok(())
        );
    }
}
