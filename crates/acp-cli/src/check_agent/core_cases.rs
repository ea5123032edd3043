//! The core cases of `acp check agent`: what every agent must do, in the order they run.

use std::time::{Duration, Instant};

use acp_types::AgentCapabilities;
use acp_types::methods::{agent, protocol};
use serde::Deserialize;
use serde_json::{Value, json};

use super::steps::{
    TURN_START, ended_cancelled, error_code, no_late_updates, prompt_ok, prompt_params, ready,
    still_works, too_short, updates_of,
};
use super::{CaseFn, Ctx};
use crate::case::{Case, Stop, Verdict, fail, fail_with, skip};
use crate::conn::{Conn, PermissionPolicy};
use crate::schema::Schema;

/// The core cases, in order.
pub(super) const CASES: &[Case<CaseFn>] = &[
    Case::core("initialize", |x, c| Box::pin(initialize(x, c))),
    Case::core("initialize-unknown-fields", |_, c| {
        Box::pin(initialize_unknown_fields(c))
    }),
    Case::core("version-negotiation", |_, c| {
        Box::pin(version_negotiation(c))
    }),
    Case::core("request-before-initialize", |_, c| {
        Box::pin(request_before_initialize(c))
    }),
    Case::core("unknown-method", |_, c| Box::pin(unknown_method(c))),
    Case::core("extension-method", |_, c| Box::pin(extension_method(c))),
    Case::core("invalid-params", |_, c| Box::pin(invalid_params(c))),
    Case::core("unknown-session", |x, c| Box::pin(unknown_session(x, c))),
    Case::core("invalid-json", |_, c| Box::pin(invalid_json(c))),
    Case::core("json-array", |_, c| Box::pin(json_array(c))),
    Case::core("request-ids", |_, c| Box::pin(request_ids(c))),
    Case::core("session-new", |_, c| Box::pin(session_new(c))),
    Case::core("prompt-turn", |x, c| Box::pin(prompt_turn(x, c))),
    Case::core("large-prompt", |_, c| Box::pin(large_prompt(c))),
    Case::core("cancel", |x, c| Box::pin(cancel(x, c))),
    Case::core("concurrent-prompt", |x, c| {
        Box::pin(concurrent_prompt(x, c))
    }),
    Case::core("cancel-request-unknown", |_, c| {
        Box::pin(cancel_request_unknown(c))
    }),
    Case::core("unadvertised-methods", |x, c| {
        Box::pin(unadvertised_methods(x, c))
    }),
    Case::core("stdin-close", |_, c| Box::pin(stdin_close(c))),
];

/// The size of the large-prompt case's text.
const LARGE_PROMPT_LEN: usize = 1024 * 1024;

/// How long updates of a finished turn are watched for.
const LATE_UPDATE_GRACE: Duration = Duration::from_millis(500);

/// How long an agent has to exit after its stdin closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// `initialize`: a well-formed answer for version 1; keeps the capabilities for the cases that
/// depend on them and the agent's name for the report.
async fn initialize(ctx: &mut Ctx, c: &mut Conn) -> Verdict {
    let result = c.initialize().await.map_err(fail)?;
    Schema::embedded()
        .check_def("InitializeResponse", &result)
        .map_err(|e| {
            fail_with(
                format!("the capabilities are not well-formed: {e}"),
                &result,
            )
        })?;
    let version = &result["protocolVersion"];
    if version != &json!(crate::conn::PROTOCOL_VERSION) {
        return Err(fail_with(
            format!(
                "asked for version 1 (which it must then support or answer with its latest), got {version}"
            ),
            &result,
        ));
    }
    let name = match &result["agentInfo"] {
        Value::Object(info) => format!(
            "{} {}",
            info.get("name").and_then(Value::as_str).unwrap_or("?"),
            info.get("version").and_then(Value::as_str).unwrap_or("")
        ),
        _ => "no agentInfo".to_owned(),
    };
    let caps = advertised(&result["agentCapabilities"]);
    let detail = format!(
        "version 1, {}; advertises: {}",
        name.trim(),
        if caps.is_empty() {
            "nothing optional".to_owned()
        } else {
            caps.join(", ")
        }
    );
    // Decoded once; the cases ask `acp_types::capabilities` what it allows.
    ctx.capabilities = AgentCapabilities::deserialize(&result["agentCapabilities"]).ok();
    ctx.info.push(("agent".to_owned(), detail.clone()));
    Ok(detail)
}

/// The optional features an `agentCapabilities` object advertises.
fn advertised(caps: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if caps["loadSession"] == json!(true) {
        out.push("load".to_owned());
    }
    if let Some(session) = caps["sessionCapabilities"].as_object() {
        for (k, v) in session {
            if v.is_object() {
                out.push(k.clone());
            }
        }
    }
    for (k, v) in caps["promptCapabilities"].as_object().into_iter().flatten() {
        if v == &json!(true) {
            out.push(format!("prompt:{k}"));
        }
    }
    for (k, v) in caps["mcpCapabilities"].as_object().into_iter().flatten() {
        if v == &json!(true) {
            out.push(format!("mcp:{k}"));
        }
    }
    out
}

async fn initialize_unknown_fields(c: &mut Conn) -> Verdict {
    let mut params = Conn::initialize_params();
    params["acpCliUnknownField"] = json!({"nested": [1, 2, 3]});
    params["clientCapabilities"]["acpCliFutureCapability"] = json!({"enabled": true});
    params["clientCapabilities"]["fs"]["acpCliFutureFs"] = json!(true);
    params["_meta"] = json!({"acp-cli": {"probe": true}});
    c.call_ok(agent::INITIALIZE, params).await.map_err(|e| {
        fail(format!(
            "unknown fields in `initialize` were not tolerated: {e}"
        ))
    })?;
    Ok("extra fields at three depths and _meta accepted".into())
}

async fn version_negotiation(c: &mut Conn) -> Verdict {
    // An agent that speaks a later version than 1 reads a request for 65535 as one of its
    // latest: the params carry the fields of v2's `initialize` too (`info`, `capabilities`),
    // which version 1 takes as unknown fields.
    let mut params = Conn::initialize_params();
    params["protocolVersion"] = json!(65535);
    let v2 = Conn::initialize_params_v2();
    params["info"] = v2["info"].clone();
    params["capabilities"] = v2["capabilities"].clone();
    let result = c.call_ok(agent::INITIALIZE, params).await.map_err(fail)?;
    match result["protocolVersion"].as_u64() {
        Some(65535) => Err(fail_with(
            "asked for version 65535 (which does not exist) and the agent claimed to support it",
            &result,
        )),
        Some(v) => Ok(format!("asked for 65535, answered {v} (its latest)")),
        None => Err(fail_with("no protocolVersion in the answer", &result)),
    }
}

async fn request_before_initialize(c: &mut Conn) -> Verdict {
    let cwd = c.sandbox().to_path_buf();
    let response = c
        .call(agent::SESSION_NEW, json!({"cwd": cwd, "mcpServers": []}))
        .await
        .map_err(fail)?;
    let what = match error_code(&response) {
        Some(code) => format!("refused with error {code}"),
        None => "accepted (the agent does not require initialize first)".to_owned(),
    };
    c.initialize()
        .await
        .map_err(|e| fail(format!("`initialize` failed after an early request: {e}")))?;
    Ok(format!(
        "`session/new` before `initialize`: {what}; `initialize` then worked"
    ))
}

async fn expect_error(c: &mut Conn, method: &str, params: Value, code: i64) -> Result<Value, Stop> {
    let response = c.call(method, params).await.map_err(fail)?;
    match error_code(&response) {
        Some(got) if got == code => Ok(response),
        Some(got) => Err(fail_with(
            format!("expected error {code}, got {got}"),
            &response,
        )),
        None => Err(fail_with(
            format!("expected error {code}, got a result"),
            &response,
        )),
    }
}

async fn unknown_method(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    expect_error(c, "session/acp_cli_no_such_method", json!({}), -32601).await?;
    still_works(c, "an unknown method").await?;
    Ok("-32601, and the connection goes on".into())
}

async fn extension_method(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    c.notify("_acp_cli/notice", json!({"probe": true}))
        .await
        .map_err(fail)?;
    let response = c
        .call("_acp_cli/probe", json!({"probe": true}))
        .await
        .map_err(fail)?;
    let what = match error_code(&response) {
        None => "answered with a result".to_owned(),
        Some(-32601) => "answered -32601 (unknown extension)".to_owned(),
        Some(code) => {
            return Err(fail_with(
                format!("an unknown extension request must get -32601, got {code}"),
                &response,
            ));
        }
    };
    still_works(c, "an extension notification and request").await?;
    Ok(format!("`_` notification ignored; `_` request {what}"))
}

async fn invalid_params(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    expect_error(
        c,
        agent::SESSION_NEW,
        json!({"cwd": 42, "mcpServers": "none"}),
        -32602,
    )
    .await?;
    still_works(c, "invalid params").await?;
    Ok("`session/new` with a numeric cwd: -32602".into())
}

async fn unknown_session(ctx: &Ctx, c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    let response = c
        .call(
            agent::SESSION_PROMPT,
            prompt_params("acp-cli-no-such-session", &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    match error_code(&response) {
        Some(code) => Ok(format!("a prompt for an unknown session: error {code}")),
        None => Err(fail_with(
            "a prompt for an unknown session succeeded",
            &response,
        )),
    }
}

async fn invalid_json(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    c.send_raw(br#"{"jsonrpc": "2.0", "id": 99, "method": "session/new", "params": {"#)
        .await
        .map_err(fail)?;
    let deadline = Instant::now() + c.timeout;
    let mut error = None;
    while let Some(r) = c.recv(deadline).await {
        if r.message.get("error").is_some() && r.message["id"].is_null() {
            error = Some(r.message);
            break;
        }
    }
    let Some(error) = error else {
        if let Some(reason) = c.closed() {
            return Err(fail(format!("the agent died on invalid JSON: {reason}")));
        }
        return Err(fail("no -32700 error (with a null id) for invalid JSON"));
    };
    if error_code(&error) != Some(-32700) {
        return Err(fail_with("invalid JSON must be answered -32700", &error));
    }
    still_works(c, "invalid JSON").await?;
    Ok("-32700 with a null id, and the connection goes on".into())
}

async fn json_array(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    let cwd = c.sandbox().to_path_buf();
    let batch = json!([{"jsonrpc": "2.0", "id": "acp-cli-batch", "method": agent::SESSION_NEW,
        "params": {"cwd": cwd, "mcpServers": []}}]);
    c.send_raw(batch.to_string().as_bytes())
        .await
        .map_err(fail)?;
    let deadline = Instant::now() + c.timeout;
    let mut what = None;
    while let Some(r) = c.recv(deadline).await {
        let m = &r.message;
        if m.is_array() {
            what = Some("answered with an array (a JSON-RPC batch)".to_owned());
            break;
        }
        if m["id"] == json!("acp-cli-batch") {
            what = Some("answered the element as a request".to_owned());
            break;
        }
        if m["id"].is_null() && m.get("error").is_some() {
            what = Some(format!(
                "refused with error {}",
                error_code(m).unwrap_or_default()
            ));
            break;
        }
    }
    let Some(what) = what else {
        if let Some(reason) = c.closed() {
            return Err(fail(format!("the agent died on a JSON array: {reason}")));
        }
        return Err(fail(
            "a JSON array got no answer (an error with a null id, or a batch answer)",
        ));
    };
    still_works(c, "a JSON array").await?;
    Ok(format!("{what}; the connection goes on"))
}

async fn request_ids(c: &mut Conn) -> Verdict {
    let string_id = json!("acp-cli/ïd 1 \"quoted\"");
    let int_id = json!(9_007_199_254_740_991_i64);
    let cwd = c.sandbox().to_path_buf();
    let requests = [
        (
            "string",
            &string_id,
            agent::INITIALIZE,
            Conn::initialize_params(),
        ),
        (
            "integer",
            &int_id,
            agent::SESSION_NEW,
            json!({"cwd": cwd, "mcpServers": []}),
        ),
    ];
    for (kind, id, method, params) in requests {
        c.request_with_id(id.clone(), method, params)
            .await
            .map_err(fail)?;
        let response = next_response(c).await?;
        if &response["id"] != id {
            return Err(fail_with(
                format!("{kind} id {id} not echoed exactly"),
                &response,
            ));
        }
    }
    Ok(format!("{string_id} and {int_id} echoed exactly"))
}

async fn next_response(c: &mut Conn) -> Result<Value, Stop> {
    let deadline = Instant::now() + c.timeout;
    while let Some(r) = c.recv(deadline).await {
        if r.message.get("method").is_none() && r.message.get("id").is_some() {
            return Ok(r.message);
        }
    }
    Err(fail(c.closed().map_or_else(
        || format!("no answer within {:?}", c.timeout),
        |reason| format!("no answer: {reason}"),
    )))
}

async fn session_new(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    let session = c.new_session().await.map_err(fail)?;
    let mut extras = Vec::new();
    if session["modes"].is_object() {
        extras.push("modes");
    }
    if session["configOptions"].is_array() {
        extras.push("config options");
    }
    Ok(format!(
        "session {} in an absolute cwd{}",
        session["sessionId"],
        if extras.is_empty() {
            String::new()
        } else {
            format!(", with {}", extras.join(" and "))
        }
    ))
}

async fn prompt_turn(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(c).await?;
    let id = c
        .request(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    let response = c.wait_response(&id, c.timeout * 3).await.map_err(fail)?;
    let stop = response["result"]["stopReason"].clone();
    if stop != json!("end_turn") {
        return Err(fail_with(
            format!("the turn ended with {stop}, not \"end_turn\""),
            &response,
        ));
    }
    let before = updates_of(&c.received, &session).count();
    no_late_updates(
        c,
        &session,
        LATE_UPDATE_GRACE,
        "a session/update of the turn arrived after the prompt's response",
    )
    .await?;
    Ok(format!(
        "end_turn; {before} update(s), all before the response"
    ))
}

async fn large_prompt(c: &mut Conn) -> Verdict {
    let session = ready(c).await?;
    // Permission requests are allowed in `prompt-turn`, answered `cancelled` in `cancel`, and
    // rejected here, so that an agent that asks meets each answer.
    c.permission = PermissionPolicy::Reject;
    let mut text = String::with_capacity(LARGE_PROMPT_LEN);
    while text.len() < LARGE_PROMPT_LEN {
        text.push_str("The quick brown fox jumps over the lazy dog. ");
    }
    text.truncate(LARGE_PROMPT_LEN);
    let id = c
        .request(agent::SESSION_PROMPT, prompt_params(&session, &text))
        .await
        .map_err(fail)?;
    let response = c.wait_response(&id, c.timeout * 3).await.map_err(fail)?;
    let what = match error_code(&response) {
        Some(code) => format!("refused with error {code}"),
        None => format!("ended {}", response["result"]["stopReason"]),
    };
    still_works(c, "a 1 MiB prompt").await?;
    Ok(format!("a 1 MiB prompt {what}; the connection goes on"))
}

/// `session/cancel` during a turn: the turn ends `cancelled`, pending permission requests are
/// answered `cancelled` by the checker, nothing of the turn comes after its answer, and the
/// session works afterwards. A turn that ended before the cancel could reach the agent is a
/// skip: it says nothing about cancellation.
async fn cancel(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(c).await?;
    c.permission = PermissionPolicy::Hold;
    let id = c
        .request(
            agent::SESSION_PROMPT,
            prompt_params(&session, ctx.long_prompt()),
        )
        .await
        .map_err(fail)?;
    // Cancel once the turn shows it is under way (an update or a request of the agent's, or a
    // short while), and not if its answer is already here.
    let mut deadline = Instant::now() + TURN_START;
    while let Some(r) = c.recv(deadline).await {
        if r.message["id"] == id && r.message.get("method").is_none() {
            return Err(too_short(format!(
                "the turn ended {} before it could be cancelled",
                r.message["result"]["stopReason"]
            )));
        }
        if r.message.get("method").is_some() {
            // Under way: take what else already arrived, without waiting.
            deadline = Instant::now();
        }
    }
    c.notify(agent::SESSION_CANCEL, json!({"sessionId": session}))
        .await
        .map_err(fail)?;
    let cancelled_at = Instant::now();
    let held = c.held();
    c.answer_held_cancelled().await;
    let response = c.wait_response(&id, c.timeout).await.map_err(fail)?;
    ended_cancelled(
        &response["result"]["stopReason"],
        cancelled_at,
        &response,
        "the turn's stop reason",
    )?;
    no_late_updates(
        c,
        &session,
        LATE_UPDATE_GRACE,
        "a session/update of the cancelled turn arrived after its \"cancelled\" answer",
    )
    .await?;
    c.permission = PermissionPolicy::Allow;
    prompt_ok(
        c,
        &session,
        &ctx.opts.prompt,
        "the session did not work after the cancel",
    )
    .await?;
    Ok(format!(
        "\"cancelled\"; {held} pending permission request(s) answered cancelled; nothing of \
         the turn after its answer; the session works afterwards"
    ))
}

async fn concurrent_prompt(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(c).await?;
    let first = c
        .request(
            agent::SESSION_PROMPT,
            prompt_params(&session, ctx.long_prompt()),
        )
        .await
        .map_err(fail)?;
    let second = c
        .request(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    let deadline = Instant::now() + c.timeout * 3;
    let (mut a, mut b) = (None, None);
    while a.is_none() || b.is_none() {
        let Some(r) = c.recv(deadline).await else {
            break;
        };
        if r.message.get("method").is_some() {
            continue;
        }
        if r.message["id"] == first {
            a = Some(r.message);
        } else if r.message["id"] == second {
            b = Some(r.message);
            if a.is_none() {
                // The second is settled: let the first end soon.
                let _ = c
                    .notify(agent::SESSION_CANCEL, json!({"sessionId": session}))
                    .await;
            }
        }
    }
    let describe = |m: &Option<Value>| match m {
        None => "no answer".to_owned(),
        Some(m) => match error_code(m) {
            Some(code) => format!("error {code}"),
            None => format!("{}", m["result"]["stopReason"]),
        },
    };
    if a.is_none() || b.is_none() {
        return Err(fail(format!(
            "each prompt needs one answer: the first got {}, the second {}",
            describe(&a),
            describe(&b)
        )));
    }
    Ok(format!(
        "a second prompt during a turn: first {}, second {}",
        describe(&a),
        describe(&b)
    ))
}

async fn cancel_request_unknown(c: &mut Conn) -> Verdict {
    c.initialize().await.map_err(fail)?;
    c.notify(
        protocol::CANCEL_REQUEST,
        json!({"requestId": "acp-cli-never-sent"}),
    )
    .await
    .map_err(fail)?;
    still_works(c, "`$/cancel_request` for an unknown id").await?;
    if let Some(r) = c
        .received
        .iter()
        .find(|r| r.message.get("method").is_none() && r.message["id"].is_null())
    {
        return Err(fail_with("a notification was answered", &r.message));
    }
    Ok("ignored; the connection goes on".into())
}

async fn unadvertised_methods(ctx: &Ctx, c: &mut Conn) -> Verdict {
    let session = ready(c).await?;
    let cwd = c.sandbox().to_path_buf();
    let probes: Vec<(&str, Value)> = [
        (
            agent::SESSION_LOAD,
            json!({"sessionId": session, "cwd": cwd, "mcpServers": []}),
        ),
        (agent::SESSION_LIST, json!({})),
        (
            agent::SESSION_RESUME,
            json!({"sessionId": session, "cwd": cwd}),
        ),
        (agent::SESSION_CLOSE, json!({"sessionId": session})),
        (agent::SESSION_DELETE, json!({"sessionId": session})),
    ]
    .into_iter()
    .filter(|(method, _)| ctx.advertises(method).is_err())
    .collect();
    if probes.is_empty() {
        return Err(skip("the agent advertises every optional session method"));
    }
    let mut refused = Vec::new();
    for (method, params) in probes {
        let response = c.call(method, params).await.map_err(fail)?;
        match error_code(&response) {
            Some(code) => refused.push(format!("{method} ({code})")),
            None => {
                return Err(fail_with(
                    format!("`{method}` is not advertised but succeeded"),
                    &response,
                ));
            }
        }
    }
    Ok(format!("refused: {}", refused.join(", ")))
}

async fn stdin_close(c: &mut Conn) -> Verdict {
    ready(c).await?;
    c.close_stdin();
    let started = Instant::now();
    match c.wait_exit(EXIT_GRACE).await {
        Some(status) => Ok(format!(
            "exited {:.0?} after stdin closed ({status})",
            started.elapsed()
        )),
        None => Err(fail(format!(
            "still running {EXIT_GRACE:?} after its stdin closed"
        ))),
    }
}
