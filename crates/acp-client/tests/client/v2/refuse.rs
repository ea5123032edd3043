//! What a v2 agent may not do, and what the handle does not send.

use acp_types::*;
use serde_json::json;

use super::agent::{done, negotiate_v2, pair, v2_session};

#[tokio::test]
async fn v1_only_client_methods_are_refused_from_a_v2_agent() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let _v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    for (method, params) in [
        (
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": "/etc/passwd"}),
        ),
        (
            "terminal/create",
            json!({"sessionId": "s1", "command": "rm", "args": ["-rf", "/"]}),
        ),
    ] {
        // Not v2 methods: the request is not valid v2, so it goes out unchecked.
        let schemas = std::mem::take(&mut scripted.schemas);
        let id = scripted.request(method, params).await;
        scripted.schemas = schemas;
        let answer = scripted.answer(&id).await;
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(method) && message.contains("version 2"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn elicitation_modes_follow_the_advertised_capabilities_and_unknown_sessions_are_refused() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let _v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    // A mode the client advertised reaches it; another is refused, naming the capability.
    let id = scripted
        .request(
            "elicitation/create",
            json!({"sessionId": "s1", "mode": "form", "message": "Name?",
            "requestedSchema": {"type": "object", "properties": {}}}),
        )
        .await;
    let answer = scripted.answer(&id).await;
    assert_eq!(answer["result"], json!({"action": "decline"}), "{answer}");
    let id = scripted
        .request(
            "elicitation/create",
            json!({"sessionId": "s1", "mode": "url", "message": "Sign in",
            "url": "https://example.com/login", "elicitationId": "e1"}),
        )
        .await;
    let answer = scripted.answer(&id).await;
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("elicitation.url"), "{answer}");

    let id = scripted
        .request(
            "session/request_permission",
            json!({"sessionId": "other", "title": "?",
            "options": [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]}),
        )
        .await;
    let answer = scripted.answer(&id).await;
    assert_eq!(answer["error"]["code"], -32002, "{answer}");
}

#[tokio::test]
async fn calls_the_agent_did_not_advertise_are_not_sent() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let login = v2
        .login(v2::LoginAuthRequest::new("oauth"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            login,
            acp_client::Error::CapabilityNotAdvertised {
                capability: "authMethods",
                ..
            }
        ),
        "{login:?}"
    );
    let delete = v2
        .delete_session(v2::DeleteSessionRequest::new("s1"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            delete,
            acp_client::Error::CapabilityNotAdvertised {
                capability: "session.delete",
                ..
            }
        ),
        "{delete:?}"
    );
    let image = v2::ContentBlock::from(v2::ImageContent::new("AAAA", "image/png"));
    let prompt = v2
        .prompt(v2::PromptRequest::new("s1", vec![image]))
        .await
        .unwrap_err();
    assert!(
        matches!(prompt, acp_client::Error::CapabilityNotAdvertised { .. }),
        "{prompt:?}"
    );
    // The v1 forms of the calls are refused on a v2 connection.
    let v1 = agent
        .prompt(PromptRequest::new("s1", vec!["hi".into()]))
        .await
        .unwrap_err();
    assert!(
        matches!(
            v1,
            acp_client::Error::NotV1 {
                method: "session/prompt"
            }
        ),
        "{v1:?}"
    );
    let v1 = agent
        .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new()))
        .await
        .unwrap_err();
    assert!(matches!(v1, acp_client::Error::NotV1 { .. }), "{v1:?}");
    // Nothing went out: the next thing the agent reads is what the test sends now.
    let list = {
        let v2 = v2.clone();
        tokio::spawn(async move { v2.list_sessions(v2::ListSessionsRequest::new()).await })
    };
    let request = scripted.expect("session/list").await;
    scripted.respond(&request, json!({"sessions": []})).await;
    done(list).await.unwrap();
}

/// Waits until `count` more updates reached `updates`.
async fn seen_on(updates: &mut acp_client::v2::SessionUpdates, count: usize) {
    for _ in 0..count {
        tokio::time::timeout(crate::common::DEADLINE, updates.next())
            .await
            .expect("the update arrives within the deadline")
            .expect("the connection is open");
    }
}

#[tokio::test]
async fn tool_call_and_terminal_cancel_follow_what_each_advertised() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let mut updates = v2.session_updates("s1");
    let cancel_call = |id: &str| {
        let v2 = v2.clone();
        let request = v2::CancelToolCallRequest::new("s1", id);
        tokio::spawn(async move { v2.cancel_tool_call(request).await })
    };
    // Never advertised: refused locally.
    let refused = cancel_call("t1").await.unwrap().unwrap_err();
    assert!(
        matches!(
            refused,
            acp_client::Error::CapabilityNotAdvertised {
                capability: "capabilities.cancel",
                ..
            }
        ),
        "{refused:?}"
    );
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Build",
            "status": "in_progress", "capabilities": {"cancel": {}}}),
        )
        .await;
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "terminal_update", "terminalId": "term1",
            "capabilities": {"cancel": {}}}),
        )
        .await;
    // Once the updates were taken in (they reached the stream), the cancel goes out.
    seen_on(&mut updates, 2).await;
    let call = cancel_call("t1");
    let request = scripted.expect("tool_call/cancel").await;
    assert_eq!(request["params"]["toolCallId"], "t1");
    scripted.respond(&request, json!({})).await;
    done(call).await.unwrap();
    let terminal = {
        let v2 = v2.clone();
        tokio::spawn(async move {
            v2.cancel_terminal(v2::CancelTerminalRequest::new("s1", "term1"))
                .await
        })
    };
    let request = scripted.expect("terminal/cancel").await;
    scripted.respond(&request, json!({})).await;
    done(terminal).await.unwrap();

    // A tool call that ended has nothing left to cancel.
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        )
        .await;
    seen_on(&mut updates, 1).await;
    let refused = cancel_call("t1").await.unwrap().unwrap_err();
    assert!(
        matches!(refused, acp_client::Error::CapabilityNotAdvertised { .. }),
        "{refused:?}"
    );
}

#[tokio::test]
async fn login_and_logout_go_out_when_the_agent_advertised_auth_methods() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let auth = json!([{"type": "agent", "methodId": "oauth", "name": "OAuth"}]);
    let v2 = negotiate_v2(&agent, &mut scripted, json!({"session": {}}), auth).await;
    let login = {
        let v2 = v2.clone();
        tokio::spawn(async move { v2.login(v2::LoginAuthRequest::new("oauth")).await })
    };
    let request = scripted.expect("auth/login").await;
    assert_eq!(request["params"]["methodId"], "oauth");
    scripted.respond(&request, json!({})).await;
    done(login).await.unwrap();
    let logout = tokio::spawn(async move { v2.logout(v2::LogoutAuthRequest::new()).await });
    let request = scripted.expect("auth/logout").await;
    scripted.respond(&request, json!({})).await;
    done(logout).await.unwrap();
}
