//! The cases of `acp check client`, in the order they run: each a script the checker, playing
//! the agent, runs during the client's first prompt turn.

use std::time::{Duration, Instant};

use acp_types::methods::client;
use serde_json::{Value, json};

use super::fixture::{Fixture, files_below};
use super::{CaseFn, ClientCheck, Run, answer, call, describe_client, notify_update, probe};
use crate::case::{Case, Stop, Verdict, fail, fail_with, skip};
use crate::gated;
use crate::schema::Kind;

/// The cases, in order.
pub(super) const CASES: &[Case<CaseFn>] = &[
    Case::core("initialize", |_, run| Box::pin(initialize(run))),
    Case::core("session-new", |_, run| Box::pin(session_new(run))),
    Case::core("update-kinds", |_, run| Box::pin(update_kinds(run))),
    Case::core("unknown-update", |_, run| Box::pin(unknown_update(run))),
    Case::core("null-tolerance", |_, run| Box::pin(null_tolerance(run))),
    Case::core("large-update", |_, run| Box::pin(large_update(run))),
    Case::core("compaction-and-notices", |_, run| {
        Box::pin(compaction_and_notices(run))
    }),
    Case::core("permission", |_, run| Box::pin(permission(run))),
    Case::core("fs-read", |_, run| Box::pin(fs_read(run))),
    Case::core("fs-write", |_, run| Box::pin(fs_write(run))),
    Case::core("terminal", |_, run| Box::pin(terminal(run))),
    Case::core("cancel-pending-permission", |opts, run| {
        Box::pin(cancel_pending_permission(opts, run))
    }),
];

fn permission_params(session: &str, call: &str) -> Value {
    json!({"sessionId": session,
    "toolCall": {"toolCallId": format!("acp-check-{call}"), "title": "Edit notes.txt", "kind": "edit"},
    "options": [
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"}
    ]})
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// Every update kind of the protocol, in a plausible order.
fn every_update_kind() -> Vec<Value> {
    vec![
        json!({"sessionUpdate": "user_message_chunk", "content": text("hi")}),
        json!({"sessionUpdate": "agent_thought_chunk", "content": text("Thinking.")}),
        json!({"sessionUpdate": "plan", "entries": [
            {"content": "Read notes.txt", "priority": "high", "status": "in_progress"}]}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "acp-check-1", "title": "Read notes.txt",
            "kind": "read", "status": "pending", "locations": [{"path": "/tmp/notes.txt", "line": 1}],
            "name": "read_file"}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "acp-check-1", "status": "completed",
            "content": [{"type": "content", "content": text("line one")},
                        {"type": "diff", "path": "/tmp/notes.txt", "oldText": "a", "newText": "b"}]}),
        json!({"sessionUpdate": "agent_message_chunk", "content": text("Done.")}),
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "check", "description": "Run the checks"}]}),
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "default"}),
        json!({"sessionUpdate": "config_option_update", "configOptions": []}),
        json!({"sessionUpdate": "session_info_update", "title": "A checked session"}),
        json!({"sessionUpdate": "usage_update", "used": 1000, "size": 200000}),
    ]
}

async fn initialize(run: &mut Run) -> Verdict {
    // A client of a later version asks for it, is answered 1, and goes on in version 1 (or
    // closes): it went on, as the prompt shows.
    let version = &run.init["protocolVersion"];
    match version.as_u64() {
        Some(1) => Ok(describe_client(run)),
        Some(asked) if asked > 1 => Ok(format!(
            "asked for version {asked}, answered 1, went on in version 1; {}",
            describe_client(run)
        )),
        _ => Err(fail(format!(
            "the client asked for version {version}; the checker speaks 1"
        ))),
    }
}

async fn session_new(run: &mut Run) -> Verdict {
    Ok(format!("session opened, then a prompt ({})", run.session))
}

async fn update_kinds(run: &mut Run) -> Verdict {
    let kinds = every_update_kind();
    let n = kinds.len();
    for update in kinds {
        notify_update(run, update).await?;
    }
    probe(run, "every update kind").await?;
    Ok(format!("{n} update kinds taken; the client still answers"))
}

/// The updates a client takes only once it advertised them: a compaction (started, its
/// summary streamed, completed with the whole summary) for `session.compaction`, notices of
/// each severity and of one the protocol does not define yet for `session.notices`. Sent only
/// for what the client advertised, as an agent must.
async fn compaction_and_notices(run: &mut Run) -> Verdict {
    let caps = &run.init["clientCapabilities"];
    let compaction = gated::advertised(caps, "session.compaction");
    let notices = gated::advertised(caps, "session.notices");
    if !compaction && !notices {
        return Err(skip(
            "the client advertises neither `session.compaction` nor `session.notices`",
        ));
    }
    let mut sent = Vec::new();
    if compaction {
        let id = "acp-check-compaction";
        for update in [
            json!({"sessionUpdate": "compaction_update", "compactionId": id, "status": "in_progress"}),
            json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": id,
                "content": text("The user asked for a check; ")}),
            json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": id,
                "content": text("nothing is pending.")}),
            json!({"sessionUpdate": "compaction_update", "compactionId": id, "status": "completed",
                "summary": [text("The user asked for a check; nothing is pending.")]}),
        ] {
            notify_update(run, update).await?;
        }
        sent.push("a compaction (4 updates)");
    }
    if notices {
        for severity in ["info", "warning", "error", "_acp_check_severity"] {
            notify_update(
                run,
                json!({"sessionUpdate": "notice", "severity": severity,
                    "title": format!("An {severity} notice of acp check"),
                    "description": "Nothing to do."}),
            )
            .await?;
        }
        sent.push("4 notices (one of a future severity)");
    }
    probe(run, "compaction updates and notices").await?;
    Ok(format!(
        "{} taken; the client still answers",
        sent.join(" and ")
    ))
}

async fn unknown_update(run: &mut Run) -> Verdict {
    notify_update(
        run,
        json!({"sessionUpdate": "acp_check_future_kind", "payload": {"x": 1}}),
    )
    .await?;
    notify_update(
        run,
        json!({"sessionUpdate": "agent_message_chunk", "acpCheckFutureField": [1, 2],
        "content": {"type": "text", "text": "unknown fields", "acpCheckFuture": true}}),
    )
    .await?;
    probe(run, "an unknown update kind and unknown fields").await?;
    Ok("an unknown update kind and unknown fields tolerated".into())
}

async fn null_tolerance(run: &mut Run) -> Verdict {
    notify_update(
        run,
        json!({"sessionUpdate": "agent_message_chunk", "_meta": null,
        "content": {"type": "text", "text": "nulls", "annotations": null, "_meta": null}}),
    )
    .await?;
    notify_update(
        run,
        json!({"sessionUpdate": "session_info_update", "title": null, "updatedAt": null}),
    )
    .await?;
    notify_update(
        run,
        json!({"sessionUpdate": "tool_call", "toolCallId": "acp-check-null", "title": "t",
        "rawInput": null, "rawOutput": null, "_meta": null}),
    )
    .await?;
    probe(run, "null where the schema allows it").await?;
    Ok("null accepted where the schema allows it".into())
}

async fn large_update(run: &mut Run) -> Verdict {
    let big = "x".repeat(1024 * 1024);
    notify_update(
        run,
        json!({"sessionUpdate": "agent_message_chunk", "content": text(&big)}),
    )
    .await?;
    probe(run, "a 1 MiB update").await?;
    Ok("a 1 MiB update taken".into())
}

async fn permission(run: &mut Run) -> Verdict {
    let params = permission_params(&run.session, "permission");
    let response = call(run, client::SESSION_REQUEST_PERMISSION, params).await?;
    let outcome = &response["result"]["outcome"];
    match outcome["outcome"].as_str() {
        Some("selected")
            if ["allow", "reject"].contains(&outcome["optionId"].as_str().unwrap_or_default()) =>
        {
            Ok(format!("answered {}", outcome["optionId"]))
        }
        Some("cancelled") => Ok("answered cancelled".into()),
        _ => Err(fail_with(
            "the answer names no option that was offered",
            &response,
        )),
    }
}

/// The fixture `fs-read` reads.
const NOTES: &str = "acp-check-notes.txt";

/// What it holds.
const NOTES_TEXT: &str = "line one\nline two\n";

/// The file `fs-write` writes.
const WRITTEN: &str = "acp-check-written.txt";

/// `fs/read_text_file` of a file the checker put in the session's cwd.
async fn fs_read(run: &mut Run) -> Verdict {
    run.offers(client::FS_READ_TEXT_FILE, "fs/read_text_file")?;
    let cwd = run.cwd()?;
    let notes = Fixture::create(&cwd, NOTES, NOTES_TEXT).map_err(|e| {
        skip(format!(
            "cannot put {NOTES} in the session's cwd {}: {e}",
            cwd.display()
        ))
    })?;
    let response = call(
        run,
        client::FS_READ_TEXT_FILE,
        json!({"sessionId": run.session, "path": notes.path()}),
    )
    .await?;
    match response["result"]["content"].as_str() {
        Some(NOTES_TEXT) => Ok(format!("read {NOTES} of the session's cwd exactly")),
        _ => Err(fail_with(
            "fs/read_text_file did not return the file's content",
            &response,
        )),
    }
}

/// `fs/write_text_file` of a new file in the session's cwd: exactly that file is written, and
/// nothing else near it.
async fn fs_write(run: &mut Run) -> Verdict {
    run.offers(client::FS_WRITE_TEXT_FILE, "fs/write_text_file")?;
    let cwd = run.cwd()?;
    let written = Fixture::claim(&cwd, WRITTEN).map_err(|e| {
        skip(format!(
            "cannot use {WRITTEN} in the session's cwd {}: {e}",
            cwd.display()
        ))
    })?;
    // Stray writes are looked for in the cwd and next to it.
    let watched = cwd.parent().unwrap_or(&cwd).to_path_buf();
    let before = files_below(&watched);
    let content = "written by acp check\n";
    let response = call(
        run,
        client::FS_WRITE_TEXT_FILE,
        json!({"sessionId": run.session, "path": written.path(), "content": content}),
    )
    .await?;
    if response.get("error").is_some() {
        return Err(fail_with("fs/write_text_file failed", &response));
    }
    let held = std::fs::read_to_string(written.path()).unwrap_or_default();
    let stray = files_below(&watched)
        .into_iter()
        .filter(|f| !before.contains(f))
        .map(|f| watched.join(f))
        .find(|f| f != written.path());
    if let Some(stray) = stray {
        return Err(fail(format!(
            "the client wrote outside the requested path: {}",
            stray.display()
        )));
    }
    if held != content {
        return Err(fail(format!(
            "{} does not hold what was written",
            written.path().display()
        )));
    }
    Ok("wrote exactly the requested file, nothing else".into())
}

/// A terminal in the session's cwd: create, wait for its exit, its output, release.
async fn terminal(run: &mut Run) -> Verdict {
    run.offers(client::TERMINAL_CREATE, "terminals")?;
    let cwd = run.cwd()?;
    let created = call(
        run,
        client::TERMINAL_CREATE,
        json!({"sessionId": run.session,
        "command": "echo", "args": ["acp-check"], "cwd": cwd}),
    )
    .await?;
    let Some(id) = created["result"]["terminalId"].as_str().map(str::to_owned) else {
        return Err(fail_with("terminal/create gave no terminal id", &created));
    };
    let params = json!({"sessionId": run.session, "terminalId": id});
    let exit = call(run, client::TERMINAL_WAIT_FOR_EXIT, params.clone()).await?;
    let output = call(run, client::TERMINAL_OUTPUT, params.clone()).await?;
    let released = call(run, client::TERMINAL_RELEASE, params).await?;
    if exit["result"]["exitCode"] != json!(0) {
        return Err(fail_with("`echo acp-check` did not exit 0", &exit));
    }
    if !output["result"]["output"]
        .as_str()
        .unwrap_or_default()
        .contains("acp-check")
    {
        return Err(fail_with(
            "the terminal's output lacks what the command printed",
            &output,
        ));
    }
    if released.get("error").is_some() {
        return Err(fail_with("terminal/release failed", &released));
    }
    Ok("create, wait_for_exit, output, release".into())
}

async fn cancel_pending_permission(opts: &ClientCheck, run: &mut Run) -> Verdict {
    let params = permission_params(&run.session, "long");
    let chunk = json!({"sessionUpdate": "agent_message_chunk", "content": text(".")});
    let (response, _) = pending_until_cancelled(opts, run, params, &chunk).await?;
    judge_cancelled_answer(&response)
}

/// A long turn with a permission request (`params`) left pending, `chunk` sent every 100 ms,
/// until the client cancels (or the long turn is over, a skip); returns the answer to the
/// request once the client cancelled, and how many chunks went out.
pub(super) async fn pending_until_cancelled(
    opts: &ClientCheck,
    run: &mut Run,
    params: Value,
    chunk: &Value,
) -> Result<(Value, usize), Stop> {
    let id = run
        .conn
        .request(client::SESSION_REQUEST_PERMISSION, params)
        .await
        .map_err(fail)?;
    let end = Instant::now() + opts.long_turn;
    let mut chunks = 0;
    while Instant::now() < end && !run.cancelled {
        notify_update(run, chunk.clone()).await?;
        chunks += 1;
        let tick = Instant::now() + Duration::from_millis(100);
        while let Some(r) = run.conn.recv(tick).await {
            if Kind::of(&r.message) == Some(Kind::Response) && r.message["id"] == id {
                if run.cancelled {
                    return Ok((r.message, chunks));
                }
                return Err(skip(format!(
                    "the client answered the permission request before cancelling ({})",
                    r.message["result"]["outcome"]
                )));
            }
            answer(run, &r.message).await;
        }
    }
    if !run.cancelled {
        return Err(skip(format!(
            "the client did not send session/cancel within {:?} (script it to cancel, e.g. the example client's --cancel-after)",
            opts.long_turn
        )));
    }
    let deadline = Instant::now() + run.conn.timeout;
    loop {
        let Some(r) = run.conn.recv(deadline).await else {
            return Err(fail(
                "after session/cancel, the pending permission request was never answered",
            ));
        };
        if Kind::of(&r.message) == Some(Kind::Response) && r.message["id"] == id {
            return Ok((r.message, chunks));
        }
        answer(run, &r.message).await;
    }
}

/// The answer to a permission request pending when the client cancelled the turn.
pub(super) fn judge_cancelled_answer(response: &Value) -> Verdict {
    match response["result"]["outcome"]["outcome"].as_str() {
        Some("cancelled") => {
            Ok("session/cancel, then the pending permission request answered cancelled".into())
        }
        _ => Err(fail_with(
            "after session/cancel the pending permission request must be answered cancelled",
            response,
        )),
    }
}
