//! Shows permission requests end to end: answered with the user's choice, and, when the
//! client cancels the turn, answered `cancelled` by the client library even while the user's
//! handler is still deciding (for that session only).

use crate::common;

use acp_e2e::{ClientEvent, Direction, Duplex, PermissionPolicy, Wiring, script, within};
use acp_types::*;
use common::{duplex, prompt};
use tokio::sync::oneshot;

type Reply = oneshot::Sender<RequestPermissionResponse>;

async fn asked(h: &mut Duplex) -> (RequestPermissionRequest, Reply) {
    match h.client_event().await {
        ClientEvent::PermissionAsked { request, reply } => (*request, reply),
        other => panic!("expected a permission request, got {other:?}"),
    }
}

fn spawn_prompt(
    h: &Duplex,
    session: &SessionId,
    text: &str,
) -> tokio::task::JoinHandle<Result<PromptResponse, acp_client::Error>> {
    let agent = h.agent.clone();
    let request = prompt(session, text);
    tokio::spawn(async move { agent.prompt(request).await })
}

#[tokio::test(flavor = "current_thread")]
async fn the_users_choice_reaches_the_agent() {
    for (policy, option, status) in [
        (PermissionPolicy::Allow, "allow", ToolCallStatus::Completed),
        (PermissionPolicy::Reject, "reject", ToolCallStatus::Failed),
    ] {
        let h = Duplex::start(duplex(Wiring::NDJSON).permission(policy));
        h.initialize(ClientCapabilities::new()).await;
        let session = h.new_session().await;
        let done = within(
            "prompt",
            h.agent.prompt(prompt(&session, script::ASK_PERMISSION)),
        )
        .await
        .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
        assert_eq!(
            h.editor.messages_of(&session),
            [format!("permission: selected {option}")]
        );
        let updates = h.editor.updates_of(&session);
        assert!(
            matches!(&updates[1], SessionUpdate::ToolCallUpdate(u) if u.status == Some(status)),
            "{updates:?}"
        );
        let wire = h.shutdown(8).await;
        let request = &wire.calls(Direction::AgentToClient, "session/request_permission")[0];
        let response = wire
            .response_to(Direction::ClientToAgent, &request["id"])
            .expect("the client answered");
        assert_eq!(response["result"]["outcome"]["outcome"], "selected");
        assert_eq!(response["result"]["outcome"]["optionId"], option);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn cancelling_answers_a_pending_permission_request_while_the_user_decides() {
    for wiring in [Wiring::NDJSON, Wiring::CONTENT_LENGTH] {
        let mut h = Duplex::start(duplex(wiring).permission(PermissionPolicy::AskTest));
        h.initialize(ClientCapabilities::new()).await;
        let session = h.new_session().await;
        let turn = spawn_prompt(&h, &session, script::ASK_PERMISSION);
        // The user is looking at the question and has not answered.
        let (request, reply) = asked(&mut h).await;
        assert_eq!(request.session_id, session);
        within(
            "cancel",
            h.agent.cancel(CancelNotification::new(session.clone())),
        )
        .await
        .expect("cancel");
        let done = within("the cancelled turn", turn)
            .await
            .expect("the turn's task")
            .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::Cancelled, "{wiring}");
        assert_eq!(h.editor.messages_of(&session), ["permission: cancelled"]);
        // The library answered for the user: their handler was dropped, the answer is moot.
        match h.client_event().await {
            ClientEvent::PermissionHandlerDropped(id) => assert_eq!(id, session),
            other => panic!("expected the handler to be dropped, got {other:?}"),
        }
        assert!(
            reply
                .send(RequestPermissionResponse::selected("allow"))
                .is_err(),
            "nobody should be waiting for the user's answer any more"
        );
        let wire = h.shutdown(8).await;
        let asked = &wire.calls(Direction::AgentToClient, "session/request_permission")[0];
        let answer = wire
            .response_to(Direction::ClientToAgent, &asked["id"])
            .expect("the request was answered");
        assert_eq!(answer["result"]["outcome"]["outcome"], "cancelled");
        assert_eq!(
            wire.calls(Direction::ClientToAgent, "session/cancel").len(),
            1
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn cancelling_one_session_leaves_the_other_sessions_question_open() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON).permission(PermissionPolicy::AskTest));
    h.initialize(ClientCapabilities::new()).await;
    let (s1, s2) = (h.new_session().await, h.new_session().await);
    let turn1 = spawn_prompt(&h, &s1, script::ASK_PERMISSION);
    let turn2 = spawn_prompt(&h, &s2, script::ASK_PERMISSION);
    let (first, reply_a) = asked(&mut h).await;
    let (_, reply_b) = asked(&mut h).await;
    let (_reply1, reply2) = if first.session_id == s1 {
        (reply_a, reply_b)
    } else {
        (reply_b, reply_a)
    };
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
    // Session 2's user is still deciding; their answer goes through.
    reply2
        .send(RequestPermissionResponse::selected("allow"))
        .expect("session 2's handler is still waiting");
    let done2 = within("turn 2", turn2)
        .await
        .expect("task")
        .expect("prompt");
    assert_eq!(done2.stop_reason, StopReason::EndTurn);
    assert_eq!(h.editor.messages_of(&s2), ["permission: selected allow"]);
    assert_eq!(h.editor.messages_of(&s1), ["permission: cancelled"]);
    h.shutdown(14).await;
}

#[tokio::test(flavor = "current_thread")]
async fn with_the_rule_off_the_users_handler_answers_after_cancel() {
    let mut options = duplex(Wiring::NDJSON).permission(PermissionPolicy::AskTest);
    options.client_options.cancel_pending_permissions = false;
    let mut h = Duplex::start(options);
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let turn = spawn_prompt(&h, &session, script::ASK_PERMISSION);
    let (_, reply) = asked(&mut h).await;
    within(
        "cancel",
        h.agent.cancel(CancelNotification::new(session.clone())),
    )
    .await
    .expect("cancel");
    // Nothing answered for the user this time: the handler is still waiting.
    reply
        .send(RequestPermissionResponse::selected("allow"))
        .expect("the handler still waits for the user");
    let done = within("the turn", turn)
        .await
        .expect("task")
        .expect("prompt");
    // The agent library still reports the cancelled turn as cancelled.
    assert_eq!(done.stop_reason, StopReason::Cancelled);
    assert_eq!(
        h.editor.messages_of(&session),
        ["permission: selected allow"]
    );
    h.shutdown(9).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_permission_request_arriving_after_cancel_is_answered_cancelled() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON).permission(PermissionPolicy::AskTest));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let turn = spawn_prompt(&h, &session, script::PERMISSION_AFTER_CANCEL);
    h.agent_event_where(|e| matches!(e, acp_e2e::AgentEvent::WaitingForCancel(_)).then_some(()))
        .await;
    within(
        "cancel",
        h.agent.cancel(CancelNotification::new(session.clone())),
    )
    .await
    .expect("cancel");
    // The request comes after the cancel, from the cancelled turn: nobody asks the user.
    let done = within("the cancelled turn", turn)
        .await
        .expect("task")
        .expect("prompt");
    assert_eq!(done.stop_reason, StopReason::Cancelled);
    assert_eq!(
        h.editor.messages_of(&session),
        ["waiting", "permission: cancelled"]
    );
    assert!(h.client_events.try_recv().is_err(), "the user was asked");
    // The next turn's questions go to the user again.
    let turn = spawn_prompt(&h, &session, script::ASK_PERMISSION);
    let (_, reply) = asked(&mut h).await;
    reply
        .send(RequestPermissionResponse::selected("allow"))
        .expect("the user is asked");
    let done = within("the next turn", turn)
        .await
        .expect("task")
        .expect("prompt");
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    h.shutdown(14).await;
}

#[tokio::test(flavor = "current_thread")]
async fn closing_a_session_answers_its_pending_permission_request() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON).permission(PermissionPolicy::AskTest));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let turn = spawn_prompt(&h, &session, script::ASK_PERMISSION);
    let (_, _reply) = asked(&mut h).await;
    within(
        "close",
        h.agent
            .close_session(CloseSessionRequest::new(session.clone())),
    )
    .await
    .expect("close");
    let done = within("the closed session's turn", turn)
        .await
        .expect("task")
        .expect("prompt");
    assert_eq!(done.stop_reason, StopReason::Cancelled);
    assert_eq!(h.editor.messages_of(&session), ["permission: cancelled"]);
    h.shutdown(9).await;
}
