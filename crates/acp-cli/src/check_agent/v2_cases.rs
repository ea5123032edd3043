//! The cases of `acp check agent --protocol 2` (and `both`): an agent speaking the ACP v2
//! draft, every message of the connection checked against the v2 schema.
//!
//! They follow the v2 chapters: `initialize` negotiates 2 with `info` and `capabilities`; the
//! `session/prompt` response only acknowledges the prompt, with the user message's
//! `messageId`; the turn is reported by `session/update`s (the `user_message` with that id,
//! `state_update` `running`, the output as upserts keyed by their ids, `requires_action`
//! while a permission request waits) and ends with `idle` and its stop reason (`cancelled`
//! after `session/cancel`, with nothing of the turn after it); `session/resume` replays with
//! `replayFrom` and only then; `session/list` and `session/close` are baseline. The checker
//! sends no method of version 1 only on such a connection, and reports a version 1 shape the
//! agent sends (see `crate::protocol`).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use acp_types::v2::methods::agent;
use serde_json::{Value, json};

use super::steps::{TURN_START, ended_cancelled, error_code, prompt_params, too_short};
use super::{CaseFn, Ctx, V2Facts};
use crate::case::{Case, Stop, Verdict, fail, fail_with, skip};
use crate::conn::{Conn, PROTOCOL_VERSION_2, PermissionPolicy, Received};
use crate::protocol::Protocol;
use crate::schema::Schema;

/// The v2 cases, in order.
pub(super) const CASES: &[Case<CaseFn>] = &[
    Case::core("v2-initialize", |x, c| Box::pin(initialize(x, c))),
    Case::core("v2-null-id", |x, c| Box::pin(null_id(x, c))),
    Case::core("v2-session-new", |x, c| Box::pin(session_new(x, c))),
    Case::core("v2-prompt-lifecycle", |x, c| {
        Box::pin(prompt_lifecycle(x, c))
    }),
    Case::core("v2-permission", |x, c| Box::pin(permission(x, c))),
    Case::core("v2-cancel", |x, c| Box::pin(cancel(x, c))),
    Case::core("v2-resume", |x, c| Box::pin(resume(x, c))),
    Case::core("v2-session-list", |x, c| Box::pin(session_list(x, c))),
    Case::core("v2-session-close", |x, c| Box::pin(session_close(x, c))),
    Case::core("v2-auth", |x, c| Box::pin(auth(x, c))),
    Case::full("v2-cancel-controls", |x, c| Box::pin(cancel_controls(x, c))),
];

/// How long output of a cancelled turn is watched for after its `idle`.
const LATE_UPDATE_GRACE: Duration = Duration::from_millis(500);

/// The update kinds that are a turn's output (a cancelled turn sends them before its `idle`).
const TURN_OUTPUT: &[&str] = &[
    "agent_message_chunk",
    "agent_message",
    "agent_thought_chunk",
    "agent_thought",
    "tool_call_update",
    "tool_call_content_chunk",
    "plan_update",
];

/// `initialize` asking for version 2; the answer must name 2 and be a well-formed v2 answer.
async fn initialize(ctx: &mut Ctx, c: &mut Conn) -> Verdict {
    let result = c
        .call_ok(agent::INITIALIZE, Conn::initialize_params_v2())
        .await
        .map_err(fail)?;
    let version = &result["protocolVersion"];
    if version != &json!(PROTOCOL_VERSION_2) {
        ctx.v2 = Some(None);
        let reason = format!(
            "asked for version 2 and the agent answered {version}: it does not speak the v2 draft"
        );
        // Checking both versions, an agent of version 1 only is not a v2 failure.
        return Err(
            if ctx.opts.protocol == Protocol::Both && version == &json!(1) {
                skip(reason)
            } else {
                fail_with(reason, &result)
            },
        );
    }
    Schema::for_version(PROTOCOL_VERSION_2)
        .ok_or_else(|| fail("this build has no v2 schema"))?
        .check_def("InitializeResponse", &result)
        .map_err(|e| fail_with(format!("not a well-formed v2 answer: {e}"), &result))?;
    let name = format!(
        "{} {}",
        result["info"]["name"].as_str().unwrap_or("?"),
        result["info"]["version"].as_str().unwrap_or("")
    );
    let caps = &result["capabilities"];
    let mut advertised: Vec<String> = Vec::new();
    if caps["session"].is_object() {
        advertised.push("session".into());
        for (k, v) in caps["session"].as_object().into_iter().flatten() {
            if v.is_object() {
                advertised.push(format!("session.{k}"));
            }
        }
    }
    let auth_methods = result["authMethods"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !auth_methods.is_empty() {
        advertised.push(format!("{} auth method(s)", auth_methods.len()));
    }
    let detail = format!(
        "version 2, {}; advertises: {}",
        name.trim(),
        if advertised.is_empty() {
            "nothing".to_owned()
        } else {
            advertised.join(", ")
        }
    );
    ctx.v2 = Some(Some(V2Facts {
        capabilities: caps.clone(),
        auth_methods,
    }));
    ctx.info.push(("agent (v2)".to_owned(), detail.clone()));
    Ok(detail)
}

/// What the `v2-initialize` case found, or the skip of a case that needs it.
fn facts(ctx: &Ctx) -> Result<&V2Facts, Stop> {
    match &ctx.v2 {
        Some(Some(facts)) => Ok(facts),
        Some(None) => Err(skip("the agent does not speak v2")),
        None => Err(skip("`v2-initialize` did not succeed")),
    }
}

/// Initializes a v2 connection (a skip when the agent does not speak v2).
async fn init(ctx: &Ctx, c: &mut Conn) -> Result<(), Stop> {
    facts(ctx)?;
    let result = c
        .call_ok(agent::INITIALIZE, Conn::initialize_params_v2())
        .await
        .map_err(fail)?;
    if result["protocolVersion"] != json!(PROTOCOL_VERSION_2) {
        return Err(fail_with(
            "asked for version 2 again and got another",
            &result,
        ));
    }
    Ok(())
}

/// A skip unless the agent advertised the `session` surface.
fn sessions(ctx: &Ctx) -> Result<(), Stop> {
    if facts(ctx)?.capabilities["session"].is_object() {
        Ok(())
    } else {
        Err(skip("the agent does not advertise `session`"))
    }
}

/// `session/new` in the sandbox; returns the session id.
async fn new_session(c: &mut Conn) -> Result<String, Stop> {
    let cwd = c.sandbox().to_path_buf();
    let result = c
        .call_ok(agent::SESSION_NEW, json!({"cwd": cwd}))
        .await
        .map_err(fail)?;
    match result["sessionId"].as_str() {
        Some(id) => Ok(id.to_owned()),
        None => Err(fail_with("`session/new` gave no session id", &result)),
    }
}

/// A v2 connection with a session; returns its id.
async fn ready(ctx: &Ctx, c: &mut Conn) -> Result<String, Stop> {
    sessions(ctx)?;
    init(ctx, c).await?;
    new_session(c).await
}

/// The `update` of a `session/update` of `session`, if `r` is one.
fn update_of<'a>(r: &'a Received, session: &str) -> Option<&'a Value> {
    let m = &r.message;
    (m["method"] == "session/update" && m["params"]["sessionId"] == session)
        .then(|| &m["params"]["update"])
}

/// The kind of an update (`sessionUpdate`).
fn kind(update: &Value) -> &str {
    update["sessionUpdate"].as_str().unwrap_or_default()
}

/// Whether `update` is the `state_update` `state`.
fn is_state(update: &Value, state: &str) -> bool {
    kind(update) == "state_update" && update["state"] == state
}

/// Sends a prompt and takes its acknowledgement: the response must be a result carrying the
/// user message's `messageId`. Returns it.
async fn acknowledged(c: &mut Conn, session: &str, text: &str) -> Result<String, Stop> {
    let response = c
        .call(agent::SESSION_PROMPT, prompt_params(session, text))
        .await
        .map_err(fail)?;
    if response.get("result").is_none() {
        return Err(fail_with("the prompt was not accepted", &response));
    }
    match response["result"]["messageId"].as_str() {
        Some(id) => Ok(id.to_owned()),
        None => Err(fail_with(
            "the prompt's acknowledgement has no `messageId` (the v2 response names the user \
             message; the turn's end comes as an `idle` state update)",
            &response,
        )),
    }
}

/// Serves the agent until the `idle` state update of `session` (within `within`); returns the
/// session's updates up to and with it.
async fn until_idle(c: &mut Conn, session: &str, within: Duration) -> Result<Vec<Value>, Stop> {
    let deadline = Instant::now() + within;
    let mut updates = Vec::new();
    while let Some(r) = c.recv(deadline).await {
        if let Some(update) = update_of(&r, session) {
            updates.push(update.clone());
            if is_state(update, "idle") {
                return Ok(updates);
            }
        }
    }
    let seen: Vec<&str> = updates.iter().map(kind).collect();
    Err(fail(match c.closed() {
        Some(reason) => format!("no `idle` state update: {reason} (updates seen: {seen:?})"),
        None => format!(
            "no `idle` state update within {within:?} (a v2 turn ends with one; updates seen: \
             {seen:?})"
        ),
    }))
}

async fn null_id(ctx: &Ctx, c: &mut Conn) -> Verdict {
    init(ctx, c).await?;
    c.request_with_id(Value::Null, agent::SESSION_LIST, json!({}))
        .await
        .map_err(fail)?;
    let response = c
        .wait_response(&Value::Null, c.timeout)
        .await
        .map_err(fail)?;
    match error_code(&response) {
        Some(-32600) => {}
        Some(code) => {
            return Err(fail_with(
                format!("a request with a `null` id must get -32600, got {code}"),
                &response,
            ));
        }
        None => {
            return Err(fail_with(
                "a request with a `null` id (which v2 forbids) got a result",
                &response,
            ));
        }
    }
    c.call_ok(agent::SESSION_LIST, json!({}))
        .await
        .map_err(|e| fail(format!("the connection broke after a `null` id: {e}")))?;
    Ok("-32600, and the connection goes on".into())
}

async fn session_new(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(ctx, c).await?;
    Ok(format!("session {session} in an absolute cwd"))
}

/// What a turn's updates show, checked against the v2 lifecycle: the `user_message` with the
/// acknowledged id and `running` before the `idle`, the `idle` with a stop reason, tool-call
/// chunks only for tool calls created before. Returns a summary and the stop reason.
fn lifecycle(updates: &[Value], message_id: &str) -> Result<(String, String), Stop> {
    let position = |what: &dyn Fn(&Value) -> bool| updates.iter().position(what);
    let idle = updates.len() - 1;
    let user = position(&|u| {
        matches!(kind(u), "user_message" | "user_message_chunk") && u["messageId"] == message_id
    });
    let Some(user) = user else {
        return Err(fail(format!(
            "no `user_message` with the acknowledged `messageId` {message_id:?} before the \
             `idle` (the agent must report where the prompt went)"
        )));
    };
    let Some(running) = position(&|u| is_state(u, "running")) else {
        return Err(fail("no `running` state update before the `idle`"));
    };
    if let Some(early) = updates[..running]
        .iter()
        .find(|u| TURN_OUTPUT.contains(&kind(u)))
    {
        return Err(fail_with(
            "output of the turn before its `running` state update",
            early,
        ));
    }
    let Some(stop) = updates[idle]["stopReason"].as_str() else {
        return Err(fail_with(
            "the `idle` that ends the turn has no `stopReason`",
            &updates[idle],
        ));
    };
    let mut tool_calls = HashSet::new();
    let mut messages = HashSet::new();
    for u in updates {
        match kind(u) {
            "tool_call_update" => {
                tool_calls.insert(u["toolCallId"].as_str().unwrap_or_default());
            }
            "tool_call_content_chunk"
                if !tool_calls.contains(u["toolCallId"].as_str().unwrap_or_default()) =>
            {
                return Err(fail_with(
                    "a `tool_call_content_chunk` for a tool call no `tool_call_update` created",
                    u,
                ));
            }
            "agent_message_chunk" | "agent_message" | "agent_thought_chunk" | "agent_thought" => {
                messages.insert(u["messageId"].as_str().unwrap_or_default());
            }
            _ => {}
        }
    }
    let plans = updates.iter().filter(|u| kind(u) == "plan_update").count();
    let summary = format!(
        "acknowledged {message_id:?}; user_message (update {}), running (update {}), {} \
         agent message(s)/thought(s), {} tool call(s), {plans} plan update(s), idle {stop}",
        user + 1,
        running + 1,
        messages.len(),
        tool_calls.len()
    );
    Ok((summary, stop.to_owned()))
}

async fn prompt_lifecycle(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(ctx, c).await?;
    let first = acknowledged(c, &session, &ctx.opts.prompt).await?;
    let updates = until_idle(c, &session, c.timeout * 3).await?;
    let (summary, stop) = lifecycle(&updates, &first)?;
    if stop != "end_turn" {
        return Err(fail(format!(
            "the turn ended {stop:?}, not \"end_turn\": {summary}"
        )));
    }
    // After `idle` the session takes the next prompt, a new user message.
    let second = acknowledged(c, &session, &ctx.opts.prompt).await?;
    if second == first {
        return Err(fail(format!(
            "the second prompt was acknowledged with the first one's `messageId` {first:?}"
        )));
    }
    let updates = until_idle(c, &session, c.timeout * 3).await?;
    lifecycle(&updates, &second)?;
    Ok(format!("{summary}; a second prompt after idle too"))
}

async fn permission(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(ctx, c).await?;
    c.permission = PermissionPolicy::Hold;
    let message_id = acknowledged(c, &session, &ctx.opts.prompt).await?;
    // Until the agent asks (or the turn ends without asking).
    let deadline = Instant::now() + c.timeout * 3;
    let mut updates = Vec::new();
    while c.held() == 0 {
        let Some(r) = c.recv(deadline).await else {
            return Err(fail("the turn neither asked permission nor ended in time"));
        };
        if let Some(update) = update_of(&r, &session) {
            updates.push(update.clone());
            if is_state(update, "idle") {
                return Err(skip(
                    "the agent asked no permission in this turn (give a prompt that makes it \
                     ask with --prompt)",
                ));
            }
        }
    }
    // While it waits: `requires_action`.
    let waiting = Instant::now() + c.timeout;
    let mut blocked = updates.iter().any(|u| is_state(u, "requires_action"));
    while !blocked {
        let Some(r) = c.recv(waiting).await else {
            return Err(fail(
                "no `requires_action` state update while a permission request waited",
            ));
        };
        if let Some(update) = update_of(&r, &session) {
            blocked = is_state(update, "requires_action");
            updates.push(update.clone());
        }
    }
    c.permission = PermissionPolicy::Allow;
    c.answer_held(PermissionPolicy::Allow).await;
    let rest = until_idle(c, &session, c.timeout * 3).await?;
    let asked_at = updates.len();
    updates.extend(rest);
    let (summary, _) = lifecycle(&updates, &message_id)?;
    if !updates[asked_at..].iter().any(|u| is_state(u, "running")) {
        return Err(fail(
            "no `running` state update after the permission was granted",
        ));
    }
    Ok(format!(
        "requires_action while asked, running once allowed; {summary}"
    ))
}

async fn cancel(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(ctx, c).await?;
    c.permission = PermissionPolicy::Hold;
    acknowledged(c, &session, ctx.long_prompt()).await?;
    // Cancel once the turn runs (and not when it is already over).
    let deadline = Instant::now() + TURN_START;
    while let Some(r) = c.recv(deadline).await {
        if let Some(update) = update_of(&r, &session) {
            if is_state(update, "idle") {
                return Err(too_short(format!(
                    "the turn ended {} before it could be cancelled",
                    update["stopReason"]
                )));
            }
            if is_state(update, "running") {
                break;
            }
        }
    }
    c.notify(agent::SESSION_CANCEL, json!({"sessionId": session}))
        .await
        .map_err(fail)?;
    let cancelled_at = Instant::now();
    let held = c.held();
    c.answer_held_cancelled().await;
    let updates = until_idle(c, &session, c.timeout).await?;
    let idle = updates.last().cloned().unwrap_or_default();
    ended_cancelled(
        &idle["stopReason"],
        cancelled_at,
        &idle,
        "the `idle`'s stop reason",
    )?;
    // Everything of the cancelled turn comes before that `idle`.
    let answered_at = c.received.len();
    c.drain_until(Instant::now() + LATE_UPDATE_GRACE).await;
    if let Some(late) = c.received[answered_at..]
        .iter()
        .find(|r| update_of(r, &session).is_some_and(|u| TURN_OUTPUT.contains(&kind(u))))
    {
        return Err(fail_with(
            "output of the cancelled turn after its \"cancelled\" `idle`",
            &late.message,
        ));
    }
    c.permission = PermissionPolicy::Allow;
    let next = acknowledged(c, &session, &ctx.opts.prompt).await?;
    let updates = until_idle(c, &session, c.timeout * 3).await?;
    lifecycle(&updates, &next)
        .map_err(|_| fail("the session did not run a turn after the cancel"))?;
    Ok(format!(
        "idle \"cancelled\"; {held} pending permission request(s) answered cancelled; nothing \
         of the turn after it; the session works afterwards"
    ))
}

/// The messages replayed while a `session/resume` ran: the session's message updates between
/// the request and its answer.
fn replayed(received: &[Received], session: &str) -> Vec<Value> {
    received
        .iter()
        .filter_map(|r| update_of(r, session))
        .filter(|u| kind(u).contains("message") || kind(u).contains("thought"))
        .cloned()
        .collect()
}

async fn resume(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(ctx, c).await?;
    let message_id = acknowledged(c, &session, &ctx.opts.prompt).await?;
    until_idle(c, &session, c.timeout * 3).await?;
    let cwd = c.sandbox().to_path_buf();
    // Without `replayFrom`: no history before the answer.
    let before = c.received.len();
    c.call_ok(
        agent::SESSION_RESUME,
        json!({"sessionId": session, "cwd": cwd}),
    )
    .await
    .map_err(fail)?;
    if let Some(replay) = replayed(&c.received[before..], &session).first() {
        return Err(fail_with(
            "`session/resume` without `replayFrom` replayed history (it must not)",
            replay,
        ));
    }
    // With `replayFrom: start`: the whole conversation, then the answer.
    let before = c.received.len();
    let response = c
        .call(
            agent::SESSION_RESUME,
            json!({"sessionId": session, "cwd": cwd, "replayFrom": {"type": "start"}}),
        )
        .await
        .map_err(fail)?;
    if response.get("result").is_none() {
        return Err(fail_with(
            "`session/resume` with `replayFrom: {\"type\": \"start\"}` failed",
            &response,
        ));
    }
    let replay = replayed(&c.received[before..], &session);
    let user = replay
        .iter()
        .find(|u| matches!(kind(u), "user_message" | "user_message_chunk"));
    let Some(user) = user else {
        return Err(fail(format!(
            "the replay before the answer held no user message ({} message update(s))",
            replay.len()
        )));
    };
    let same = if user["messageId"] == message_id.as_str() {
        "the prompt's messageId kept"
    } else {
        "a new messageId for the prompt"
    };
    Ok(format!(
        "no replay without replayFrom; from start: {} message update(s) before the answer, \
         {same}",
        replay.len()
    ))
}

async fn session_list(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(ctx, c).await?;
    let result = c
        .call_ok(agent::SESSION_LIST, json!({}))
        .await
        .map_err(fail)?;
    let sessions = result["sessions"].as_array().map_or(0, Vec::len);
    let ours = result["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|s| s["sessionId"] == session.as_str());
    Ok(format!(
        "{sessions} session(s) on the first page; the new one {}",
        if ours { "among them" } else { "not listed" }
    ))
}

async fn session_close(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(ctx, c).await?;
    c.call_ok(agent::SESSION_CLOSE, json!({"sessionId": session}))
        .await
        .map_err(fail)?;
    let response = c
        .call(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    match error_code(&response) {
        Some(code) => Ok(format!("closed; a prompt in it then: error {code}")),
        None => Err(fail_with(
            "a prompt in a closed session was acknowledged (a request for a session that is \
             not active gets -32002, and after the close the agent sends nothing more for it)",
            &response,
        )),
    }
}

async fn auth(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let methods = facts(ctx)?.auth_methods.clone();
    // Only a method the agent runs itself: a terminal or environment method would need the
    // user.
    let Some(method) = methods
        .iter()
        .find(|m| m["type"].is_null() || m["type"] == "agent")
    else {
        return Err(skip(if methods.is_empty() {
            "the agent advertises no auth method"
        } else {
            "no auth method the agent runs itself (type `agent`)"
        }));
    };
    init(ctx, c).await?;
    let id = method["id"].clone();
    let login = c
        .call(agent::AUTH_LOGIN, json!({"methodId": id}))
        .await
        .map_err(fail)?;
    let logout = c.call(agent::AUTH_LOGOUT, json!({})).await.map_err(fail)?;
    let describe = |m: &Value| match error_code(m) {
        Some(code) => format!("error {code}"),
        None => "ok".to_owned(),
    };
    Ok(format!(
        "auth/login {id}: {}; auth/logout: {}",
        describe(&login),
        describe(&logout)
    ))
}

/// `tool_call/cancel` and `terminal/cancel` on the first tool call or display terminal of a
/// long turn that advertises the control.
async fn cancel_controls(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(ctx, c).await?;
    acknowledged(c, &session, ctx.long_prompt()).await?;
    let deadline = Instant::now() + c.timeout * 3;
    let mut done = Vec::new();
    let mut asked = HashSet::new();
    while let Some(r) = c.recv(deadline).await {
        let Some(update) = update_of(&r, &session).cloned() else {
            continue;
        };
        if is_state(&update, "idle") {
            break;
        }
        let control = match kind(&update) {
            "tool_call_update" => Some((agent::TOOL_CALL_CANCEL, "toolCallId")),
            "terminal_update" => Some((agent::TERMINAL_CANCEL, "terminalId")),
            _ => None,
        };
        let Some((method, key)) = control else {
            continue;
        };
        if update["capabilities"]["cancel"].is_null() || !asked.insert(method) {
            continue;
        }
        let target = update[key].clone();
        let response = c
            .call(method, json!({"sessionId": session, key: target}))
            .await
            .map_err(fail)?;
        if response.get("result").is_none() {
            return Err(fail_with(
                format!("`{method}` of an advertised {key} {target} failed"),
                &response,
            ));
        }
        done.push(format!("{method} {target}"));
    }
    if done.is_empty() {
        return Err(skip(
            "no tool call or display terminal of the long turn advertised `cancel`",
        ));
    }
    Ok(format!("answered: {}", done.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the checker sends a v2 agent is valid v2 (but the deliberately `null` id).
    #[test]
    fn every_request_of_the_checker_is_valid_v2() {
        let schema = Schema::for_version(PROTOCOL_VERSION_2).unwrap();
        let s = "sess-1";
        let sent = [
            (agent::INITIALIZE, Conn::initialize_params_v2()),
            (agent::SESSION_NEW, json!({"cwd": "/work"})),
            (agent::SESSION_PROMPT, prompt_params(s, "hi")),
            (agent::SESSION_CANCEL, json!({"sessionId": s})),
            (agent::SESSION_LIST, json!({})),
            (
                agent::SESSION_RESUME,
                json!({"sessionId": s, "cwd": "/work"}),
            ),
            (
                agent::SESSION_RESUME,
                json!({"sessionId": s, "cwd": "/work", "replayFrom": {"type": "start"}}),
            ),
            (agent::SESSION_CLOSE, json!({"sessionId": s})),
            (agent::AUTH_LOGIN, json!({"methodId": "m"})),
            (agent::AUTH_LOGOUT, json!({})),
            (
                agent::TOOL_CALL_CANCEL,
                json!({"sessionId": s, "toolCallId": "t"}),
            ),
            (
                agent::TERMINAL_CANCEL,
                json!({"sessionId": s, "terminalId": "t"}),
            ),
        ];
        for (method, params) in sent {
            let message = if method == agent::SESSION_CANCEL {
                json!({"jsonrpc": "2.0", "method": method, "params": params})
            } else {
                json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            };
            assert_eq!(
                schema.check_message(crate::schema::Role::Client, &message, None),
                Ok(()),
                "{message}"
            );
        }
    }
}
