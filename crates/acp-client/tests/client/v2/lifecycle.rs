//! The v2 prompt lifecycle: acknowledgement, `running`, `requires_action` around a permission
//! request, `idle` with the stop reason; cancellation confirmed by `idle`; resume with replay.

use std::time::Duration;

use acp_client::model::TurnState;
use acp_types::*;
use serde_json::json;

use super::agent::{done, negotiate_v2, pair, v2_prompt, v2_session};
use crate::common::DEADLINE;

/// Lets the client's tasks run a little: enough for a finished turn to be seen as finished.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(50)).await;
}

#[tokio::test]
async fn a_prompt_ends_at_idle_with_its_stop_reason_not_at_the_acknowledgement() {
    let (agent, mut scripted, seen, _) = pair(false);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let turn = v2_prompt(&v2, "Hello?");
    let request = scripted.expect("session/prompt").await;
    scripted.respond(&request, json!({"messageId": "u1"})).await;
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "user_message", "messageId": "u1",
            "content": [{"type": "text", "text": "Hello?"}]}),
        )
        .await;
    scripted.state("running", None).await;
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "agent_message_chunk", "messageId": "a1",
            "content": {"type": "text", "text": "Hi "}}),
        )
        .await;
    settle().await;
    assert!(
        !turn.is_finished(),
        "the acknowledgement does not end the turn"
    );
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "agent_message_chunk", "messageId": "a1",
            "content": {"type": "text", "text": "there"}}),
        )
        .await;
    scripted.state("idle", Some("end_turn")).await;
    let end = done(turn).await.unwrap();
    assert_eq!(end.message_id.as_str(), "u1");
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
    let model = seen.model.lock().unwrap();
    let texts: Vec<_> = model
        .messages()
        .iter()
        .map(|m| (m.id.as_ref().map(|i| i.to_string()), m.text()))
        .collect();
    assert_eq!(
        texts,
        [
            (Some("u1".into()), "Hello?".into()),
            (Some("a1".into()), "Hi there".into())
        ]
    );
    assert_eq!(
        model.state(),
        &TurnState::Idle(Some(v2::StopReason::EndTurn))
    );
}

#[tokio::test]
async fn a_permission_request_during_requires_action_is_answered_and_the_turn_goes_on() {
    let (agent, mut scripted, seen, mut permissions) = pair(true);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let turn = v2_prompt(&v2, "run the tests");
    scripted.accept_prompt().await;
    scripted.state("requires_action", None).await;
    let id = scripted
        .request(
            "session/request_permission",
            json!({
            "sessionId": "s1", "title": "Run cargo test?",
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": "t1", "title": "cargo test",
                "kind": "execute", "status": "pending"}},
            "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "no", "name": "Deny", "kind": "reject_once"}]}),
        )
        .await;
    let (asked, answer) = tokio::time::timeout(DEADLINE, permissions.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(asked.title, "Run cargo test?");
    assert!(matches!(
        asked.subject,
        Some(v2::RequestPermissionSubject::ToolCall(_))
    ));
    answer
        .send(v2::RequestPermissionResponse::new(
            v2::SelectedPermissionOutcome::new("yes"),
        ))
        .unwrap();
    let answered = scripted.answer(&id).await;
    assert_eq!(
        answered["result"]["outcome"],
        json!({"outcome": "selected", "optionId": "yes"})
    );
    // The subject is an ordinary tool-call upsert; the prompt's title is not the tool call's.
    let call = seen
        .model
        .lock()
        .unwrap()
        .tool_call(&ToolCallId::from("t1"))
        .cloned()
        .unwrap();
    assert_eq!(call.title.as_deref(), Some("cargo test"));
    assert_eq!(call.kind, v2::ToolKind::Execute);

    // A command subject: self-contained, describing what the agent will run.
    let id = scripted
        .request(
            "session/request_permission",
            json!({"sessionId": "s1", "title": "Run it?", "subject": {"type": "command",
                "command": "cargo test", "cwd": "/work", "toolCallId": "t1", "terminalId": null},
                "options": [{"optionId": "no", "name": "Deny", "kind": "reject_once"}]}),
        )
        .await;
    let (asked, answer) = tokio::time::timeout(DEADLINE, permissions.recv())
        .await
        .unwrap()
        .unwrap();
    let Some(v2::RequestPermissionSubject::Command(command)) = &asked.subject else {
        panic!("a command subject: {:?}", asked.subject)
    };
    assert_eq!(
        (command.command.as_str(), command.cwd.as_str()),
        ("cargo test", "/work")
    );
    assert_eq!(command.terminal_id, None);
    answer
        .send(v2::RequestPermissionResponse::new(
            v2::SelectedPermissionOutcome::new("no"),
        ))
        .unwrap();
    scripted.answer(&id).await;

    assert!(!turn.is_finished(), "the turn waits for idle");
    scripted.state("running", None).await;
    scripted.state("idle", Some("end_turn")).await;
    let end = done(turn).await.unwrap();
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
}

#[tokio::test]
async fn a_turn_past_its_timeout_is_cancelled_and_ends_at_the_confirming_idle() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let turn = {
        let v2 = v2.clone();
        let request = v2::PromptRequest::new("s1", vec![v2::ContentBlock::from("slow")]);
        tokio::spawn(async move {
            v2.prompt_with_timeout(request, Duration::from_millis(100))
                .await
        })
    };
    scripted.accept_prompt().await;
    scripted.expect("session/cancel").await;
    scripted.state("idle", Some("cancelled")).await;
    let end = done(turn).await.unwrap();
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::Cancelled));
}

#[tokio::test]
async fn a_turn_fails_when_the_connection_closes_before_idle() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let turn = v2_prompt(&v2, "work");
    scripted.accept_prompt().await;
    drop(scripted);
    let error = done(turn).await.unwrap_err();
    assert!(
        matches!(
            error,
            acp_client::Error::Rpc(acp_rpc::Error::ConnectionClosed)
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn cancel_answers_pending_permissions_and_waits_for_the_idle_confirmation() {
    let (agent, mut scripted, _seen, mut permissions) = pair(true);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let turn = v2_prompt(&v2, "long work");
    scripted.accept_prompt().await;
    let id = scripted
        .request(
            "session/request_permission",
            json!({"sessionId": "s1", "title": "Delete build/?",
            "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}]}),
        )
        .await;
    // The user never answers: the test keeps the request pending.
    let _pending = tokio::time::timeout(DEADLINE, permissions.recv())
        .await
        .unwrap()
        .unwrap();
    let cancel = {
        let v2 = v2.clone();
        tokio::spawn(async move { v2.cancel(v2::CancelSessionNotification::new("s1")).await })
    };
    // The pending request is answered `cancelled` by the library, and the cancel is sent (in
    // either order: the answer is written by the request's own task).
    let (first, second) = (scripted.recv().await, scripted.recv().await);
    let (answered, cancelled) = if first.get("method").is_some() {
        (second, first)
    } else {
        (first, second)
    };
    assert_eq!(answered["id"], id);
    assert_eq!(
        answered["result"]["outcome"],
        json!({"outcome": "cancelled"})
    );
    assert_eq!(cancelled["method"], "session/cancel");
    // Updates still arrive after the cancel; the confirmation is the idle.
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "cancelled"}),
        )
        .await;
    settle().await;
    assert!(
        !cancel.is_finished(),
        "cancel waits for the idle confirmation"
    );
    assert!(!turn.is_finished());
    scripted.state("idle", Some("cancelled")).await;
    let confirmed = done(cancel).await.unwrap();
    assert_eq!(
        confirmed.and_then(|idle| idle.stop_reason),
        Some(v2::StopReason::Cancelled)
    );
    let end = done(turn).await.unwrap();
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::Cancelled));
}

#[tokio::test]
async fn cancel_of_an_idle_session_returns_at_once() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let cancel = {
        let v2 = v2.clone();
        tokio::spawn(async move { v2.cancel(v2::CancelSessionNotification::new("s1")).await })
    };
    scripted.expect("session/cancel").await;
    let confirmed = done(cancel).await.unwrap();
    assert!(confirmed.is_none(), "nothing was running");
}

#[tokio::test]
async fn resume_with_replay_builds_the_model_before_it_returns() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let v2 = negotiate_v2(&agent, &mut scripted, json!({"session": {}}), json!([])).await;
    let mut updates = v2.session_updates("old");
    let resume = {
        let v2 = v2.clone();
        let mut request = v2::ResumeSessionRequest::new("old", "/work");
        request.replay_from = Some(v2::ReplayFrom::from(v2::ReplayFromStart::new()));
        tokio::spawn(async move { v2.resume_session(request).await })
    };
    let request = scripted.expect("session/resume").await;
    assert_eq!(request["params"]["replayFrom"], json!({"type": "start"}));
    // The history, replayed as ordinary updates before the answer.
    for update in [
        json!({"sessionUpdate": "user_message", "messageId": "u1", "content": [{"type": "text", "text": "fix it"}]}),
        json!({"sessionUpdate": "agent_message", "messageId": "a1", "content": [{"type": "text", "text": "Done."}]}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Edit", "kind": "edit", "status": "completed"}),
        json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1",
            "entries": [{"content": "fix", "priority": "high", "status": "completed"}]}}),
        json!({"sessionUpdate": "terminal_update", "terminalId": "term1", "command": "make",
            "cwd": "/work", "output": {"data": "b2sK"}, "exitStatus": {"exitCode": 0}}),
        json!({"sessionUpdate": "state_update", "state": "idle"}),
    ] {
        scripted.update("old", update).await;
    }
    scripted.respond(&request, json!({})).await;
    done(resume).await.unwrap();
    let mut model = acp_client::model::SessionModel::new();
    while let Some(update) = updates.try_next() {
        model.apply_v2(update.update).unwrap();
    }
    assert_eq!(model.messages().len(), 2);
    assert_eq!(model.messages()[1].text(), "Done.");
    let call = model.tool_call(&ToolCallId::from("t1")).unwrap();
    assert_eq!(call.status, v2::ToolCallStatus::Completed);
    assert_eq!(
        model
            .plan(Some(&v2::PlanId::from("p1")))
            .unwrap()
            .entries
            .len(),
        1
    );
    let terminal = model.terminal(&TerminalId::from("term1")).unwrap();
    assert_eq!(terminal.output(), b"ok\n");
    assert!(terminal.exited());
    assert_eq!(model.state(), &TurnState::Idle(None));
}
