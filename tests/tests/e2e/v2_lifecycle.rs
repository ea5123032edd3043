//! The v2 turn lifecycle at its edges, our v2 client against our agent over tapped pipes, every
//! message checked against the v2 schema (issue 22, a review against the schema):
//!
//! - `session/cancel` and `session/close` cancel a held prompt (`-32800`, never run);
//! - `session/close` answers after the cancelled turn's `idle`, and nothing of the session
//!   follows its answer;
//! - a turn's `idle` goes out before the next held prompt's answer;
//! - the turn's usage reaches the v2 `idle` (draft `unstable_end_turn_token_usage`);
//! - `auth/logout` succeeds for an agent with `authMethods` and no logout of its own;
//! - `session/resume` without replay of an agent without v1's `session/resume`: from its
//!   `session/load` with the replay left out, else `-32002`;
//! - our client takes a `-32002` answer to `session/close` as a successful close.

#![cfg(feature = "unstable_protocol_v2")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use acp_agent::{AgentOptions, ClientHandle, PromptContext};
use acp_e2e::within;
use acp_types::*;
use serde_json::Value;
use tokio::sync::{Notify, mpsc};

use super::v2_pairings::{Editor, Pair, checker, v2_prompt, v2_session};

/// Runs a prompt of `text` in `session` on a task of its own, so that the test can act while
/// the turn runs or waits.
fn spawn_prompt(
    v2: &acp_client::v2::AgentHandle,
    session: &SessionId,
    text: &str,
) -> tokio::task::JoinHandle<Result<acp_client::v2::TurnEnd, acp_client::Error>> {
    let v2 = v2.clone();
    let request = v2_prompt(session, text);
    tokio::spawn(async move { v2.prompt(request).await })
}

/// An agent whose prompts the test steers: `wait` runs until cancelled, `gate` until the test
/// opens the gate, anything else answers at once.
struct Steered {
    client: ClientHandle,
    /// Says which prompt started, as it starts.
    started: mpsc::UnboundedSender<String>,
    gate: Arc<Notify>,
    /// How many prompts the agent ran.
    ran: Arc<AtomicUsize>,
    /// Advertises an `agent` authentication method (and no `auth.logout`).
    authenticates: bool,
    /// Supports v1's `session/load` (replaying one message), not `session/resume`.
    loads: bool,
}

/// What the test keeps of a [`Steered`] agent.
struct Steering {
    started: mpsc::UnboundedReceiver<String>,
    gate: Arc<Notify>,
    ran: Arc<AtomicUsize>,
}

impl Steering {
    /// The next prompt the agent started.
    async fn next_start(&mut self) -> String {
        within("a prompt starts", self.started.recv())
            .await
            .expect("the agent is there")
    }
}

/// Serves a [`Steered`] agent to our client (v2 schema checks on the wire).
fn start(authenticates: bool, loads: bool) -> (Pair, Steering) {
    let (tx, started) = mpsc::unbounded_channel();
    let gate = Arc::new(Notify::new());
    let ran = Arc::new(AtomicUsize::new(0));
    let steering = Steering {
        started,
        gate: gate.clone(),
        ran: ran.clone(),
    };
    let make = move |client| Steered {
        client,
        started: tx,
        gate,
        ran,
        authenticates,
        loads,
    };
    let pair = Pair::start(
        make,
        AgentOptions::default(),
        Editor::default(),
        checker(2, true),
    );
    (pair, steering)
}

#[acp_agent::async_trait]
impl acp_agent::Agent for Steered {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        let mut response = InitializeResponse::new(ProtocolVersion::LATEST)
            .agent_capabilities(AgentCapabilities::new().load_session(self.loads))
            .agent_info(Implementation::new("steered", "1.0.0"));
        if self.authenticates {
            let login = AuthMethodAgent::new("login", "Log in");
            response = response.auth_methods(vec![AuthMethod::Agent(login)]);
        }
        Ok(response)
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new("s-1"))
    }

    async fn load_session(
        &self,
        r: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        if !self.loads || r.session_id.as_str() != "s-1" {
            return Err(ErrorObject::session_not_found(r.session_id.as_str()));
        }
        // The replay a resume without replay must not show.
        self.client.session(r.session_id).message("history").await?;
        Ok(LoadSessionResponse::new())
    }

    async fn prompt(
        &self,
        r: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        self.ran.fetch_add(1, Ordering::SeqCst);
        let text = r.prompt[0].as_text().unwrap_or_default().to_owned();
        let _ = self.started.send(text.clone());
        match text.as_str() {
            "wait" => {
                cx.message("waiting").await?;
                let _ = cx.or_cancelled(std::future::pending::<()>()).await;
                cx.message("stopped").await?;
            }
            "gate" => {
                self.gate.notified().await;
                cx.message("gated").await?;
            }
            _ => cx.message(format!("done: {text}")).await?,
        }
        #[allow(unused_mut)]
        let mut response = PromptResponse::new(StopReason::EndTurn);
        #[cfg(feature = "unstable")]
        {
            response = response.usage(Usage::new(15, 10, 5));
        }
        Ok(response)
    }
}

/// Waits until the agent has received `count` `session/prompt` requests.
async fn prompts_received(pair: &Pair, count: usize) {
    within("the prompts reach the agent", async {
        while pair
            .wire
            .calls(acp_e2e::Direction::ClientToAgent, "session/prompt")
            .len()
            < count
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
}

/// The agent's messages, in the order they were written.
fn from_agent(pair: &Pair) -> Vec<Value> {
    pair.wire
        .seen()
        .into_iter()
        .filter(|s| s.direction == acp_e2e::Direction::AgentToClient)
        .map(|s| s.message)
        .collect()
}

/// The position among [`from_agent`] of the answer to the client's `session/prompt` whose
/// text is `text`, and that answer.
fn prompt_answer(pair: &Pair, text: &str) -> (usize, Value) {
    let request = pair
        .wire
        .calls(acp_e2e::Direction::ClientToAgent, "session/prompt")
        .into_iter()
        .find(|r| r["params"]["prompt"][0]["text"] == text)
        .unwrap_or_else(|| panic!("no prompt `{text}` was sent"));
    from_agent(pair)
        .into_iter()
        .enumerate()
        .find(|(_, m)| m.get("method").is_none() && m["id"] == request["id"])
        .unwrap_or_else(|| panic!("the prompt `{text}` was not answered"))
}

/// The positions among [`from_agent`] of the `idle` state updates.
fn idles(pair: &Pair) -> Vec<usize> {
    from_agent(pair)
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m["params"]["update"]["sessionUpdate"] == "state_update"
                && m["params"]["update"]["state"] == "idle"
        })
        .map(|(i, _)| i)
        .collect()
}

/// The texts of the agent message chunks on the wire.
fn agent_texts(pair: &Pair) -> Vec<String> {
    from_agent(pair)
        .iter()
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|m| m["params"]["update"]["content"]["text"].as_str())
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn cancel_cancels_a_held_prompt_which_never_runs() {
    let (pair, mut steering) = start(false, false);
    let (v2, session) = v2_session(&pair.agent).await;
    let running = spawn_prompt(&v2, &session, "wait");
    assert_eq!(steering.next_start().await, "wait");
    let held = spawn_prompt(&v2, &session, "held");
    prompts_received(&pair, 2).await;
    let idle = within(
        "session/cancel",
        v2.cancel(v2::CancelSessionNotification::new(session.clone())),
    )
    .await
    .expect("cancelled")
    .expect("the session was busy");
    assert_eq!(idle.stop_reason, Some(v2::StopReason::Cancelled));
    let end = within("the running turn", running).await.expect("no panic");
    assert_eq!(
        end.expect("the running turn ends").idle.stop_reason,
        Some(v2::StopReason::Cancelled)
    );
    let refused = within("the held prompt", held)
        .await
        .expect("no panic")
        .expect_err("a held prompt cancelled before insertion is refused");
    assert_eq!(
        refused.remote().map(|e| e.code),
        Some(ErrorCode::REQUEST_CANCELLED),
        "{refused}"
    );
    // The session goes on: a prompt after the cancel runs.
    let after = within(
        "a prompt after the cancel",
        v2.prompt(v2_prompt(&session, "after")),
    )
    .await
    .expect("the next turn runs");
    assert_eq!(after.idle.stop_reason, Some(v2::StopReason::EndTurn));
    assert_eq!(
        steering.ran.load(Ordering::SeqCst),
        2,
        "the held prompt never ran"
    );
    assert!(
        !agent_texts(&pair).iter().any(|t| t == "done: held"),
        "{:?}",
        agent_texts(&pair)
    );
    pair.shutdown(10).await;
}

#[tokio::test]
async fn close_cancels_held_prompts_and_answers_after_the_turns_idle() {
    let (pair, mut steering) = start(false, false);
    let (v2, session) = v2_session(&pair.agent).await;
    let running = spawn_prompt(&v2, &session, "wait");
    assert_eq!(steering.next_start().await, "wait");
    let held = spawn_prompt(&v2, &session, "held");
    prompts_received(&pair, 2).await;
    within(
        "session/close",
        v2.close_session(v2::CloseSessionRequest::new(session.clone())),
    )
    .await
    .expect("closed");
    let refused = within("the held prompt", held)
        .await
        .expect("no panic")
        .expect_err("closing refuses a held prompt");
    assert_eq!(
        refused.remote().map(|e| e.code),
        Some(ErrorCode::REQUEST_CANCELLED),
        "{refused}"
    );
    let end = within("the running turn", running)
        .await
        .expect("no panic")
        .expect("the running turn ends");
    assert_eq!(end.idle.stop_reason, Some(v2::StopReason::Cancelled));
    // The cancelled turn's last update and its idle precede the close answer; nothing of the
    // session follows it.
    let messages = from_agent(&pair);
    let close = pair
        .wire
        .calls(acp_e2e::Direction::ClientToAgent, "session/close")[0]["id"]
        .clone();
    let answered = messages
        .iter()
        .position(|m| m.get("method").is_none() && m["id"] == close)
        .expect("session/close answered");
    let last_idle = *idles(&pair).last().expect("an idle");
    assert!(
        last_idle < answered,
        "idle at {last_idle}, close answer at {answered}"
    );
    let stopped = messages
        .iter()
        .position(|m| m["params"]["update"]["content"]["text"] == "stopped")
        .expect("the turn's last update");
    assert!(stopped < last_idle);
    let after: Vec<_> = messages[answered + 1..]
        .iter()
        .filter(|m| m["params"]["sessionId"] == session.as_str())
        .collect();
    assert!(after.is_empty(), "after the close answer: {after:?}");
    assert_eq!(
        steering.ran.load(Ordering::SeqCst),
        1,
        "the held prompt never ran"
    );
    pair.shutdown(8).await;
}

#[tokio::test]
async fn a_turns_idle_precedes_the_next_held_prompts_answer() {
    let (pair, mut steering) = start(false, false);
    let (v2, session) = v2_session(&pair.agent).await;
    let first = spawn_prompt(&v2, &session, "gate");
    assert_eq!(steering.next_start().await, "gate");
    let second = spawn_prompt(&v2, &session, "second");
    prompts_received(&pair, 2).await;
    steering.gate.notify_one();
    let first = within("the first turn", first)
        .await
        .expect("no panic")
        .expect("the first turn ends");
    let second = within("the second turn", second)
        .await
        .expect("no panic")
        .expect("the second turn ends");
    assert_eq!(first.idle.stop_reason, Some(v2::StopReason::EndTurn));
    assert_eq!(second.idle.stop_reason, Some(v2::StopReason::EndTurn));
    let (answer, _) = prompt_answer(&pair, "second");
    let (first_answer, _) = prompt_answer(&pair, "gate");
    let between: Vec<_> = idles(&pair)
        .into_iter()
        .filter(|&i| i > first_answer && i < answer)
        .collect();
    assert_eq!(
        between.len(),
        1,
        "the first turn's idle comes before the second prompt's answer"
    );
    // The second turn's text came before its end, so the model has it.
    let texts: Vec<String> = pair
        .editor
        .model()
        .messages()
        .iter()
        .map(|m| m.text())
        .collect();
    assert!(texts.iter().any(|t| t == "done: second"), "{texts:?}");
    pair.shutdown(12).await;
}

#[cfg(feature = "unstable")]
#[tokio::test]
async fn the_turns_usage_reaches_the_idle() {
    let (pair, _steering) = start(false, false);
    let (v2, session) = v2_session(&pair.agent).await;
    let end = within("the turn", v2.prompt(v2_prompt(&session, "count")))
        .await
        .expect("the turn ends");
    assert_eq!(end.idle.usage.as_deref(), Some(&Usage::new(15, 10, 5)));
    let idle = &from_agent(&pair)[*idles(&pair).last().expect("an idle")];
    assert_eq!(
        idle["params"]["update"]["usage"]["totalTokens"], 15,
        "{idle}"
    );
    pair.shutdown(6).await;
}

#[tokio::test]
async fn logout_succeeds_for_an_agent_with_auth_methods_and_no_logout_of_its_own() {
    let (pair, _steering) = start(true, false);
    let (v2, _session) = v2_session(&pair.agent).await;
    within("auth/logout", v2.logout(v2::LogoutAuthRequest::new()))
        .await
        .expect("v2 requires auth/logout once authMethods are advertised");
    pair.shutdown(4).await;
}

#[tokio::test]
async fn resume_without_replay_loads_silently_or_is_not_found() {
    // An agent that can load: the session comes back from its session/load, replay left out.
    let (pair, _steering) = start(false, true);
    let (_, _) = v2_session(&pair.agent).await;
    let wire = pair.shutdown(3).await;
    drop(wire);
    let (pair, _steering) = start(false, true);
    super::v2_pairings::negotiate(&pair.agent).await;
    let v2 = pair.agent.v2().expect("a v2 connection");
    within(
        "session/resume",
        v2.resume_session(v2::ResumeSessionRequest::new("s-1", "/work")),
    )
    .await
    .expect("resumed from session/load");
    let updates: Vec<_> = pair
        .wire
        .calls(acp_e2e::Direction::AgentToClient, "session/update")
        .into_iter()
        .map(|m| m["params"]["update"]["sessionUpdate"].clone())
        .collect();
    assert_eq!(updates, ["state_update"], "only the state snapshot");
    let end = within(
        "a prompt",
        v2.prompt(v2_prompt(&SessionId::from("s-1"), "go")),
    )
    .await
    .expect("the resumed session takes prompts");
    assert_eq!(end.idle.stop_reason, Some(v2::StopReason::EndTurn));
    pair.shutdown(6).await;

    // An agent that can neither resume nor load: a session not open here is not found.
    let (pair, _steering) = start(false, false);
    super::v2_pairings::negotiate(&pair.agent).await;
    let v2 = pair.agent.v2().expect("a v2 connection");
    let error = within(
        "session/resume",
        v2.resume_session(v2::ResumeSessionRequest::new("s-1", "/work")),
    )
    .await
    .expect_err("nothing to resume from");
    assert_eq!(
        error.remote().map(|e| e.code),
        Some(ErrorCode::RESOURCE_NOT_FOUND),
        "{error}"
    );
    pair.shutdown(2).await;
}

#[tokio::test]
async fn our_client_takes_minus_32002_from_close_as_a_successful_close() {
    let (pair, _steering) = start(false, false);
    let (v2, session) = v2_session(&pair.agent).await;
    for _ in 0..2 {
        within(
            "session/close",
            v2.close_session(v2::CloseSessionRequest::new(session.clone())),
        )
        .await
        .expect("closed (the second time the agent answers -32002)");
    }
    let answers = from_agent(&pair);
    assert_eq!(
        answers
            .last()
            .and_then(|m| m.pointer("/error/code"))
            .and_then(Value::as_i64),
        Some(-32002),
        "the agent did answer -32002 the second time: {answers:?}"
    );
    pair.shutdown(4).await;
}
