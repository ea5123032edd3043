//! The `--profile full` cases of `acp check agent`: each optional feature the agent
//! advertises, exercised (and skipped, saying so, when it is not advertised).

use std::time::Instant;

use acp_types::methods::agent;
use serde_json::{Value, json};

use crate::check_agent::{
    CaseResultOf, Ctx, Outcome, error_code, fail, fail_with, prompt_params, ready, updates_of,
};
use crate::conn::Conn;

/// The full-profile cases, in order.
pub(crate) const FULL_CASES: &[&str] = &[
    "load-session",
    "list-sessions",
    "resume-session",
    "close-session",
    "delete-session",
    "set-mode",
    "set-config-option",
];

/// How long updates after a response are watched for.
const GRACE: std::time::Duration = std::time::Duration::from_millis(300);

pub(crate) async fn dispatch(ctx: &Ctx, name: &str, c: &mut Conn) -> CaseResultOf {
    let caps = &ctx.capabilities;
    let session_cap = |name: &str| caps["sessionCapabilities"][name].is_object();
    let not_advertised = |what: &str| Ok(Outcome::Skip(format!("{what} not advertised")));
    match name {
        "load-session" if caps["loadSession"] != json!(true) => not_advertised("loadSession"),
        "load-session" => load_session(ctx, c).await,
        "list-sessions" if !session_cap("list") => not_advertised("sessionCapabilities.list"),
        "list-sessions" => list_sessions(c).await,
        "resume-session" if !session_cap("resume") => not_advertised("sessionCapabilities.resume"),
        "resume-session" => resume_session(ctx, c).await,
        "close-session" if !session_cap("close") => not_advertised("sessionCapabilities.close"),
        "close-session" => close_session(ctx, c).await,
        "delete-session" if !session_cap("delete") => not_advertised("sessionCapabilities.delete"),
        "delete-session" => delete_session(ctx, c).await,
        "set-mode" => set_mode(c).await,
        "set-config-option" => set_config_option(c).await,
        other => Err(fail(format!("no case is named `{other}`"))),
    }
}

/// A session with one finished turn; returns its id.
async fn session_with_history(ctx: &Ctx, c: &mut Conn) -> Result<String, Outcome> {
    let session = ready(c).await?;
    let response = c
        .call(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    if response.get("result").is_none() {
        return Err(fail_with("the prompt before the case failed", &response));
    }
    Ok(session)
}

async fn load_session(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
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
    let answered = c.received.len();
    c.drain_until(Instant::now() + GRACE).await;
    let replayed = updates_of(&c.received[start..answered], &session).count();
    if let Some(late) = updates_of(&c.received[answered..], &session).next() {
        return Err(fail_with(
            "a replayed update arrived after the load's response",
            &late.message,
        ));
    }
    if replayed == 0 {
        return Err(fail(
            "the conversation was not replayed (no session/update before the response)",
        ));
    }
    Ok(Outcome::Pass(format!(
        "{replayed} update(s) replayed, all before the response"
    )))
}

async fn list_sessions(c: &mut Conn) -> CaseResultOf {
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
            return Ok(Outcome::Pass(format!(
                "the new session {session} is listed"
            )));
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

async fn resume_session(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
    let session = session_with_history(ctx, c).await?;
    let cwd = c.sandbox().to_path_buf();
    c.call_ok(
        agent::SESSION_RESUME,
        json!({"sessionId": session, "cwd": cwd}),
    )
    .await
    .map_err(fail)?;
    let again = c
        .call(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    if again.get("result").is_none() {
        return Err(fail_with("a prompt in the resumed session failed", &again));
    }
    Ok(Outcome::Pass("resumed; a prompt then worked".into()))
}

async fn close_session(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
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
        Some(code) => Ok(Outcome::Pass(format!(
            "closed; a prompt in it then failed ({code})"
        ))),
        None => Err(fail_with("a prompt in a closed session succeeded", &after)),
    }
}

async fn delete_session(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
    let session = ready(c).await?;
    c.call_ok(agent::SESSION_DELETE, json!({"sessionId": session}))
        .await
        .map_err(fail)?;
    if !ctx.capabilities["sessionCapabilities"]["list"].is_object() {
        return Ok(Outcome::Pass(
            "deleted (no session/list to check it is gone)".into(),
        ));
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
    Ok(Outcome::Pass("deleted; no longer listed".into()))
}

async fn set_mode(c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    let created = c.new_session().await.map_err(fail)?;
    let session = created["sessionId"].as_str().unwrap_or_default().to_owned();
    let modes = &created["modes"];
    let Some(available) = modes["availableModes"].as_array().filter(|m| !m.is_empty()) else {
        return Ok(Outcome::Skip("the session has no modes".into()));
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
    Ok(Outcome::Pass(format!(
        "{current} -> {target}{}; an unknown mode refused",
        if announced {
            " (with current_mode_update)"
        } else {
            ""
        }
    )))
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

async fn set_config_option(c: &mut Conn) -> CaseResultOf {
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
        return Ok(Outcome::Skip(
            "the session has no select option with a second value".into(),
        ));
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
    Ok(Outcome::Pass(format!(
        "{config} set to {value}; the answer shows it"
    )))
}
