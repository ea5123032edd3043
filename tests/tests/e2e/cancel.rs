//! Shows cancellation end to end: `session/cancel` reaches the running prompt as a signal the
//! agent can await or poll, the turn then ends with `stopReason: "cancelled"` (whatever the
//! agent returned), per session; closing a session cancels its turn; dropping a prompt call
//! cancels the request itself.

use crate::common;

use acp_agent::AgentOptions;
use acp_e2e::{AgentEvent, Direction, Duplex, Wiring, script, within};
use acp_types::*;
use common::{duplex, prompt, remote_code};

fn spawn_prompt(
    h: &Duplex,
    session: &SessionId,
    text: &str,
) -> tokio::task::JoinHandle<Result<PromptResponse, acp_client::Error>> {
    let agent = h.agent.clone();
    let request = prompt(session, text);
    tokio::spawn(async move { agent.prompt(request).await })
}

async fn waiting(h: &mut Duplex) -> SessionId {
    h.agent_event_where(|e| match e {
        AgentEvent::WaitingForCancel(id) => Some(id),
        _ => None,
    })
    .await
}

async fn cancel_mid_turn(wiring: Wiring, script: &str, agent_options: AgentOptions) -> StopReason {
    let mut options = duplex(wiring);
    options.agent_options = agent_options;
    let mut h = Duplex::start(options);
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let turn = spawn_prompt(&h, &session, script);
    assert_eq!(waiting(&mut h).await, session);
    within(
        "cancel",
        h.agent.cancel(CancelNotification::new(session.clone())),
    )
    .await
    .expect("cancel");
    let done = within("the cancelled turn", turn)
        .await
        .expect("task")
        .expect("prompt");
    // The agent's `cancel` method was called too, after the signal.
    let cancelled = h
        .agent_event_where(|e| match e {
            AgentEvent::CancelReceived(id) => Some(id),
            _ => None,
        })
        .await;
    assert_eq!(cancelled, session);
    let messages = h.editor.messages_of(&session);
    h.shutdown(7).await;
    if script != script::FAIL_AFTER_CANCEL {
        // The update sent after the cancellation still arrived before the response.
        assert_eq!(messages.last().map(String::as_str), Some("stopping"));
    }
    done.stop_reason
}

#[tokio::test(flavor = "current_thread")]
async fn a_prompt_awaiting_the_signal_ends_cancelled() {
    for wiring in Wiring::ALL {
        let stop = cancel_mid_turn(wiring, script::WAIT_FOR_CANCEL, AgentOptions::default()).await;
        assert_eq!(stop, StopReason::Cancelled, "{wiring}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_prompt_polling_the_flag_ends_cancelled() {
    let stop = cancel_mid_turn(
        Wiring::NDJSON,
        script::POLL_FOR_CANCEL,
        AgentOptions::default(),
    )
    .await;
    assert_eq!(stop, StopReason::Cancelled);
}

#[tokio::test(flavor = "current_thread")]
async fn a_prompt_failing_after_cancel_still_ends_cancelled() {
    let stop = cancel_mid_turn(
        Wiring::NDJSON,
        script::FAIL_AFTER_CANCEL,
        AgentOptions::default(),
    )
    .await;
    assert_eq!(stop, StopReason::Cancelled);
}

#[tokio::test(flavor = "current_thread")]
async fn without_the_rule_the_agents_own_stop_reason_goes_through() {
    // The scripted agent returns `end_turn` after the signal: the library is what fixes it.
    let mut options = AgentOptions::default();
    options.cancelled_stop_reason = false;
    let stop = cancel_mid_turn(Wiring::NDJSON, script::WAIT_FOR_CANCEL, options).await;
    assert_eq!(stop, StopReason::EndTurn);
}

#[tokio::test(flavor = "current_thread")]
async fn cancel_stops_only_its_own_sessions_turn() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let (s1, s2) = (h.new_session().await, h.new_session().await);
    let turn1 = spawn_prompt(&h, &s1, script::WAIT_FOR_CANCEL);
    let turn2 = spawn_prompt(&h, &s2, script::WAIT_FOR_CANCEL);
    waiting(&mut h).await;
    waiting(&mut h).await;
    within(
        "cancel",
        h.agent.cancel(CancelNotification::new(s1.clone())),
    )
    .await
    .expect("cancel");
    let done1 = within("turn 1", turn1)
        .await
        .expect("task")
        .expect("prompt");
    assert_eq!(done1.stop_reason, StopReason::Cancelled);
    // Session 2's turn still runs: a second prompt there is refused.
    assert_eq!(
        remote_code(h.agent.prompt(prompt(&s2, "hello")).await),
        -32600
    );
    within(
        "cancel",
        h.agent.cancel(CancelNotification::new(s2.clone())),
    )
    .await
    .expect("cancel");
    let done2 = within("turn 2", turn2)
        .await
        .expect("task")
        .expect("prompt");
    assert_eq!(done2.stop_reason, StopReason::Cancelled);
    h.shutdown(12).await;
}

#[tokio::test(flavor = "current_thread")]
async fn closing_a_session_cancels_its_running_turn() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let turn = spawn_prompt(&h, &session, script::WAIT_FOR_CANCEL);
    waiting(&mut h).await;
    within(
        "close",
        h.agent
            .close_session(CloseSessionRequest::new(session.clone())),
    )
    .await
    .expect("close");
    let done = within("the turn", turn)
        .await
        .expect("task")
        .expect("prompt");
    assert_eq!(done.stop_reason, StopReason::Cancelled);
    h.shutdown(8).await;
}

#[tokio::test(flavor = "current_thread")]
async fn dropping_a_prompt_call_cancels_the_request_and_frees_the_session() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    {
        let agent = h.agent.clone();
        let call = agent.prompt(prompt(&session, script::WAIT_FOR_CANCEL));
        tokio::pin!(call);
        // Run the call until the agent waits, then give up on it (drop it).
        let waiting_for = tokio::select! {
            biased;
            result = &mut call => panic!("the turn ended early: {result:?}"),
            id = waiting(&mut h) => id,
        };
        assert_eq!(waiting_for, session);
    }
    // `$/cancel_request` stopped the agent's handler…
    let dropped = h
        .agent_event_where(|e| match e {
            AgentEvent::PromptDropped(id) => Some(id),
            _ => None,
        })
        .await;
    assert_eq!(dropped, session);
    // …which freed the session for the next turn.
    let next = within("the next prompt", h.agent.prompt(prompt(&session, "hello")))
        .await
        .expect("prompt");
    assert_eq!(next.stop_reason, StopReason::EndTurn);
    let wire = h.shutdown(8).await;
    let prompt_id = wire.calls(Direction::ClientToAgent, "session/prompt")[0]["id"].clone();
    let cancel = &wire.calls(Direction::ClientToAgent, "$/cancel_request")[0];
    assert_eq!(cancel["params"]["requestId"], prompt_id);
    let answer = wire
        .response_to(Direction::AgentToClient, &prompt_id)
        .expect("the cancelled request is still answered");
    assert_eq!(answer["error"]["code"], -32800);
}
