//! The `--profile full` cases of `acp check agent`: each optional feature the agent
//! advertises, exercised (and skipped, saying so, when it is not advertised).

use std::time::{Duration, Instant};

use acp_types::methods::agent;
use serde_json::{Value, json};

use super::steps::{error_code, no_late_updates, prompt_ok, prompt_params, ready, updates_of};
use super::{CaseFn, Ctx};
use crate::case::{Case, Stop, Verdict, fail, fail_with, skip};
use crate::conn::Conn;
use crate::gated;

/// The full-profile cases, in order.
pub(super) const CASES: &[Case<CaseFn>] = &[
    Case::full("load-session", |x, c| Box::pin(load_session(x, c))),
    Case::full("list-sessions", |x, c| Box::pin(list_sessions(x, c))),
    Case::full("resume-session", |x, c| Box::pin(resume_session(x, c))),
    Case::full("close-session", |x, c| Box::pin(close_session(x, c))),
    Case::full("delete-session", |x, c| Box::pin(delete_session(x, c))),
    Case::full("set-mode", |_, c| Box::pin(set_mode(c))),
    Case::full("set-config-option", |_, c| Box::pin(set_config_option(c))),
    Case::full("compaction-and-notices", |x, c| {
        Box::pin(compaction_and_notices(x, c))
    }),
];

/// How long updates after a response are watched for.
const GRACE: Duration = Duration::from_millis(300);

/// A session with one finished turn; returns its id.
async fn session_with_history(ctx: &Ctx, c: &mut Conn) -> Result<String, Stop> {
    let session = ready(c).await?;
    prompt_ok(
        c,
        &session,
        &ctx.opts.prompt,
        "the prompt before the case failed",
    )
    .await?;
    Ok(session)
}

async fn load_session(ctx: &Ctx, c: &mut Conn) -> Verdict {
    ctx.advertises(agent::SESSION_LOAD)?;
    let session = session_with_history(ctx, c).await?;
    let start = c.received.len();
    let cwd = c.sandbox().to_path_buf();
    let id = c
        .request(
            agent::SESSION_LOAD,
            json!({"sessionId": session, "cwd": cwd, "mcpServers": []}),
        )
        .await
        .map_err(fail)?;
    let response = c.wait_response(&id, c.timeout).await.map_err(fail)?;
    if response.get("result").is_none() {
        return Err(fail_with(
            "`session/load` of a session of this connection failed",
            &response,
        ));
    }
    let replayed = updates_of(&c.received[start..], &session).count();
    no_late_updates(
        c,
        &session,
        GRACE,
        "a replayed update arrived after the load's response",
    )
    .await?;
    if replayed == 0 {
        return Err(fail(
            "the conversation was not replayed (no session/update before the response)",
        ));
    }
    Ok(format!(
        "{replayed} update(s) replayed, all before the response"
    ))
}

async fn list_sessions(ctx: &Ctx, c: &mut Conn) -> Verdict {
    ctx.advertises(agent::SESSION_LIST)?;
    let session = ready(c).await?;
    let mut cursor = Value::Null;
    // Bounded: a agent whose cursors never end fails instead of looping.
    for _ in 0..100 {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({"cursor": cursor})
        };
        let result = c.call_ok(agent::SESSION_LIST, params).await.map_err(fail)?;
        let found = result["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|s| s["sessionId"] == json!(session));
        if found {
            return Ok(format!("the new session {session} is listed"));
        }
        cursor = result["nextCursor"].clone();
        if cursor.is_null() {
            return Err(fail_with(
                format!("the new session {session} is not listed"),
                &result,
            ));
        }
    }
    Err(fail("session/list gave 100 pages without an end"))
}

async fn resume_session(ctx: &Ctx, c: &mut Conn) -> Verdict {
    ctx.advertises(agent::SESSION_RESUME)?;
    let session = session_with_history(ctx, c).await?;
    let cwd = c.sandbox().to_path_buf();
    c.call_ok(
        agent::SESSION_RESUME,
        json!({"sessionId": session, "cwd": cwd}),
    )
    .await
    .map_err(fail)?;
    prompt_ok(
        c,
        &session,
        &ctx.opts.prompt,
        "a prompt in the resumed session failed",
    )
    .await?;
    Ok("resumed; a prompt then worked".into())
}

async fn close_session(ctx: &Ctx, c: &mut Conn) -> Verdict {
    ctx.advertises(agent::SESSION_CLOSE)?;
    let session = ready(c).await?;
    c.call_ok(agent::SESSION_CLOSE, json!({"sessionId": session}))
        .await
        .map_err(fail)?;
    let after = c
        .call(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    match error_code(&after) {
        Some(code) => Ok(format!("closed; a prompt in it then failed ({code})")),
        None => Err(fail_with("a prompt in a closed session succeeded", &after)),
    }
}

async fn delete_session(ctx: &Ctx, c: &mut Conn) -> Verdict {
    ctx.advertises(agent::SESSION_DELETE)?;
    let session = ready(c).await?;
    c.call_ok(agent::SESSION_DELETE, json!({"sessionId": session}))
        .await
        .map_err(fail)?;
    if ctx.advertises(agent::SESSION_LIST).is_err() {
        return Ok("deleted (no session/list to check it is gone)".into());
    }
    let listed = c
        .call_ok(agent::SESSION_LIST, json!({}))
        .await
        .map_err(fail)?;
    let still = listed["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|s| s["sessionId"] == json!(session));
    if still {
        return Err(fail_with("the deleted session is still listed", &listed));
    }
    Ok("deleted; no longer listed".into())
}

async fn set_mode(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    let created = c.new_session().await.map_err(fail)?;
    let session = created["sessionId"].as_str().unwrap_or_default().to_owned();
    let modes = &created["modes"];
    let Some(available) = modes["availableModes"].as_array().filter(|m| !m.is_empty()) else {
        return Err(skip("the session has no modes"));
    };
    let current = modes["currentModeId"].clone();
    let target = available
        .iter()
        .map(|m| m["id"].clone())
        .find(|id| id != &current)
        .unwrap_or_else(|| current.clone());
    let start = c.received.len();
    c.call_ok(
        agent::SESSION_SET_MODE,
        json!({"sessionId": session, "modeId": target}),
    )
    .await
    .map_err(fail)?;
    c.drain_until(Instant::now() + GRACE).await;
    let announced = updates_of(&c.received[start..], &session)
        .any(|r| r.message["params"]["update"]["sessionUpdate"] == json!("current_mode_update"));
    let unknown = c
        .call(
            agent::SESSION_SET_MODE,
            json!({"sessionId": session, "modeId": "acp-check-no-such-mode"}),
        )
        .await
        .map_err(fail)?;
    if error_code(&unknown).is_none() {
        return Err(fail_with("an unknown mode id was accepted", &unknown));
    }
    Ok(format!(
        "{current} -> {target}{}; an unknown mode refused",
        if announced {
            " (with current_mode_update)"
        } else {
            ""
        }
    ))
}

/// The values a select option offers (flat, or in groups).
fn select_values(option: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for item in option["options"].as_array().into_iter().flatten() {
        match item.get("options").and_then(Value::as_array) {
            Some(group) => out.extend(group.iter().map(|o| o["value"].clone())),
            None => out.push(item["value"].clone()),
        }
    }
    out
}

async fn set_config_option(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    let created = c.new_session().await.map_err(fail)?;
    let session = created["sessionId"].as_str().unwrap_or_default().to_owned();
    let options = created["configOptions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let Some((option, value)) = options.iter().find_map(|o| match o["type"].as_str() {
        Some("select") => select_values(o)
            .into_iter()
            .find(|v| v != &o["currentValue"])
            .map(|v| (o, v)),
        _ => None,
    }) else {
        return Err(skip("the session has no select option with a second value"));
    };
    let config = option["id"].clone();
    let result = c
        .call_ok(
            agent::SESSION_SET_CONFIG_OPTION,
            json!({"sessionId": session, "configId": config, "value": value}),
        )
        .await
        .map_err(fail)?;
    let now = result["configOptions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["id"] == config)
        .map(|o| o["currentValue"].clone());
    if now.as_ref() != Some(&value) {
        return Err(fail_with(
            format!("after setting {config} to {value}, the answer does not show it"),
            &result,
        ));
    }
    Ok(format!("{config} set to {value}; the answer shows it"))
}

/// A turn for a client that advertised `session.compaction` and `session.notices`: the
/// agent may now send compaction updates and notices (every message is checked against the
/// schema as always), and the turn must work as without them. The core cases, advertising
/// neither, fail an agent that sends them anyway (the `unadvertised` findings).
async fn compaction_and_notices(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let mut init = Conn::initialize_params();
    init["clientCapabilities"]["session"] = json!({"compaction": {}, "notices": {}});
    c.call_ok(agent::INITIALIZE, init).await.map_err(fail)?;
    let created = c.new_session().await.map_err(fail)?;
    let session = created["sessionId"].as_str().unwrap_or_default().to_owned();
    let start = c.received.len();
    prompt_ok(
        c,
        &session,
        &ctx.opts.prompt,
        "a prompt failed once the client advertised compaction and notices",
    )
    .await?;
    let (mut compaction, mut notices) = (0, 0);
    for update in updates_of(&c.received[start..], &session) {
        let kind = update.message["params"]["update"]["sessionUpdate"].as_str();
        match kind.and_then(gated::capability_of) {
            Some("session.notices") => notices += 1,
            Some(_) => compaction += 1,
            None => {}
        }
    }
    Ok(format!(
        "`session.compaction` and `session.notices` advertised: the turn worked, with \
         {compaction} compaction update(s) and {notices} notice(s)"
    ))
}
