//! The steps the agent cases share: getting a session, building a prompt, reading an error
//! code, checking that the connection still works and that a finished exchange sent nothing
//! late.

use std::time::{Duration, Instant};

use acp_types::methods::{agent, client};
use serde_json::{Value, json};

use crate::case::{Stop, fail, fail_with, skip};
use crate::conn::{Conn, Received};

/// Initializes and opens a session; returns the session id.
pub(super) async fn ready(c: &mut Conn) -> Result<String, Stop> {
    c.initialize().await.map_err(fail)?;
    let session = c.new_session().await.map_err(fail)?;
    Ok(session["sessionId"].as_str().unwrap_or_default().to_owned())
}

/// The error code of a response, if it is an error.
pub(super) fn error_code(response: &Value) -> Option<i64> {
    response.get("error").and_then(|e| e["code"].as_i64())
}

/// A prompt request's params.
pub(super) fn prompt_params(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// A prompt of `text` in `session` that must succeed (whatever its stop reason); `failed` says
/// what it means when it does not.
pub(super) async fn prompt_ok(
    c: &mut Conn,
    session: &str,
    text: &str,
    failed: &str,
) -> Result<Value, Stop> {
    let response = c
        .call(agent::SESSION_PROMPT, prompt_params(session, text))
        .await
        .map_err(fail)?;
    if response.get("result").is_none() {
        return Err(fail_with(failed, &response));
    }
    Ok(response)
}

/// Checks that the connection still works: a `session/new` is answered with a session.
pub(super) async fn still_works(c: &mut Conn, after: &str) -> Result<(), Stop> {
    c.new_session()
        .await
        .map(drop)
        .map_err(|e| fail(format!("the connection broke after {after}: {e}")))
}

/// The `session/update`s of `session` among `received`.
pub(super) fn updates_of<'a>(
    received: &'a [Received],
    session: &'a str,
) -> impl Iterator<Item = &'a Received> + 'a {
    received.iter().filter(move |r| {
        r.message["method"] == json!(client::SESSION_UPDATE)
            && r.message["params"]["sessionId"] == json!(session)
    })
}

/// Watches the connection for `grace` after an answer that ended an exchange of `session` (the
/// last message received), and fails on a `session/update` of the session meanwhile:
/// everything an exchange sends comes before its answer. `what` names the late update.
pub(super) async fn no_late_updates(
    c: &mut Conn,
    session: &str,
    grace: Duration,
    what: &str,
) -> Result<(), Stop> {
    let answered_at = c.received.len();
    c.drain_until(Instant::now() + grace).await;
    match updates_of(&c.received[answered_at..], session).next() {
        Some(late) => Err(fail_with(what, &late.message)),
        None => Ok(()),
    }
}

/// How long the cancellation cases wait for a turn to show it is under way before they cancel.
pub(super) const TURN_START: Duration = Duration::from_millis(300);

/// How soon after the cancel went out a turn may still end otherwise than `cancelled`: such a
/// turn may have ended before the agent read the cancel (the race of any cancellation), so it
/// is a skip, not a failure. An agent that ignores the cancel runs on past it.
const CANCEL_RACE: Duration = Duration::from_millis(250);

/// The skip of a cancellation case whose turn was over too soon: `what` happened.
pub(super) fn too_short(what: impl std::fmt::Display) -> Stop {
    skip(format!(
        "{what}: the turn is too short to cancel (give a longer one with --long-prompt)"
    ))
}

/// The stop reason `stop` of a turn cancelled at `cancelled_at`, in `message`: `cancelled`,
/// or a skip when it came so soon after the cancel that the agent may not have read it, or a
/// failure saying that `ending` (where the stop reason is) must be `cancelled`.
pub(super) fn ended_cancelled(
    stop: &Value,
    cancelled_at: Instant,
    message: &Value,
    ending: &str,
) -> Result<(), Stop> {
    if stop == "cancelled" {
        return Ok(());
    }
    let after = cancelled_at.elapsed();
    if after < CANCEL_RACE {
        return Err(too_short(format!(
            "the turn ended {stop} {after:.0?} after the cancel went out, likely before the \
             agent read it"
        )));
    }
    Err(fail_with(
        format!(
            "after session/cancel {ending} must be \"cancelled\", it was {stop} {after:.0?} later"
        ),
        message,
    ))
}
