//! Typed interception both ways: a prompt on its way to the agent, an update on its way to the
//! editor, a permission request answered by the proxy itself, initialize, per-session state,
//! and messages of the proxy's own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use acp_proxy::{Context, Proxy, Toward};
use acp_types::{
    ContentBlock, ErrorObject, NewSessionRequest, PromptRequest, PromptResponse,
    RequestPermissionOutcome, RequestPermissionResponse, SelectedPermissionOutcome,
    SessionNotification, SessionUpdate, methods,
};
use serde_json::json;

use crate::conductor::{Conductor, chunk};

/// Prepends `line` to the prompt and forwards it.
async fn with_line(
    cx: Context,
    mut prompt: PromptRequest,
    line: String,
) -> Result<PromptResponse, ErrorObject> {
    prompt.prompt.insert(0, ContentBlock::from(line.as_str()));
    cx.successor()
        .request::<methods::SessionPrompt>(&prompt)
        .await
}

#[tokio::test]
async fn a_prompt_gets_context_and_per_session_turn_counts() {
    // Per-session state: the turn number of each session, kept in what the handler captures.
    let turns: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
    let proxy = Proxy::new().on_prompt(move |cx, prompt| {
        let turn = {
            let mut turns = turns.lock().expect("lock");
            let n = turns.entry(prompt.session_id.to_string()).or_default();
            *n += 1;
            *n
        };
        with_line(cx, prompt, format!("Project context (turn {turn})"))
    });
    let mut conductor = Conductor::start(proxy);
    conductor.initialize().await;

    for (id, session, turn) in [(1, "a", 1), (2, "b", 1), (3, "a", 2)] {
        conductor
            .send(
                json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
                "params": {"sessionId": session, "prompt": [{"type": "text", "text": "Hi"}]}}),
            )
            .await;
        let forwarded = conductor.recv().await;
        assert_eq!(forwarded["method"], "proxy/successor");
        assert_eq!(forwarded["params"]["method"], "session/prompt");
        let prompt = &forwarded["params"]["params"]["prompt"];
        assert_eq!(prompt[0]["text"], format!("Project context (turn {turn})"));
        assert_eq!(prompt[1]["text"], "Hi");
        assert_eq!(prompt.as_array().map(Vec::len), Some(2));
        conductor
            .send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"stopReason": "end_turn"}}))
            .await;
        let done = conductor.recv().await;
        assert_eq!(
            done,
            json!({"jsonrpc": "2.0", "id": id, "result": {"stopReason": "end_turn"}})
        );
    }
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn updates_are_rewritten_on_their_way_to_the_editor() {
    let proxy = Proxy::new().on_session_update(|cx, mut update: SessionNotification| async move {
        if let SessionUpdate::AgentMessageChunk(chunk) = &mut update.update {
            if let ContentBlock::Text(text) = &mut chunk.content {
                text.text = text.text.to_uppercase();
            }
        }
        cx.predecessor()
            .notify::<methods::SessionUpdate>(&update)
            .await
    });
    let mut conductor = Conductor::start(proxy);
    conductor.initialize().await;
    conductor
        .send(json!({"jsonrpc": "2.0", "method": "proxy/successor",
            "params": {"method": "session/update", "params": chunk("s", "quiet words")}}))
        .await;
    let update = conductor.recv().await;
    assert_eq!(update["method"], "session/update");
    assert_eq!(update["params"], chunk("s", "QUIET WORDS"));
    // Only the direction registered is intercepted: an update-shaped extension toward the
    // agent still passes as it is.
    conductor
        .send(json!({"jsonrpc": "2.0", "method": "_x/update", "params": chunk("s", "as is")}))
        .await;
    let passed = conductor.recv().await;
    assert_eq!(passed["params"]["params"], chunk("s", "as is"));
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn a_policy_answers_permission_requests_itself() {
    let proxy = Proxy::new().on_request_permission(|_cx, request| async move {
        let reject = request
            .options
            .iter()
            .find(|o| o.option_id.to_string().starts_with("reject"))
            .ok_or_else(|| ErrorObject::invalid_params("no option to reject with"))?;
        Ok(RequestPermissionResponse::new(
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(
                reject.option_id.clone(),
            )),
        ))
    });
    let mut conductor = Conductor::start(proxy);
    conductor.initialize().await;
    conductor
        .send(json!({"jsonrpc": "2.0", "id": 77, "method": "proxy/successor", "params": {
            "method": "session/request_permission",
            "params": {"sessionId": "s", "toolCall": {"toolCallId": "t1", "title": "write /etc/passwd"},
                "options": [
                    {"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}]}}}))
        .await;
    let answer = conductor.recv().await;
    assert_eq!(
        answer["id"], 77,
        "the proxy answered, the editor was never asked: {answer}"
    );
    assert_eq!(
        answer["result"],
        json!({"outcome": {"outcome": "selected", "optionId": "reject-once"}})
    );
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn initialize_can_change_the_advertised_capabilities() {
    let proxy = Proxy::new().on_initialize(|cx, request| async move {
        let mut response = cx
            .successor()
            .request::<methods::Initialize>(&request)
            .await?;
        response
            .agent_capabilities
            .get_or_insert_with(Default::default)
            .load_session = Some(false);
        Ok(response)
    });
    let mut conductor = Conductor::start(proxy);
    let done = conductor
        .initialize_with(
            "proxy",
            json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": true}, "authMethods": []}),
        )
        .await;
    assert_eq!(
        done["result"]["protocolVersion"], 1,
        "the version is never changed"
    );
    assert_eq!(done["result"]["agentCapabilities"]["loadSession"], false);
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn the_proxy_sends_messages_of_its_own_both_ways() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    let cx = conductor.cx.clone();
    let asking = tokio::spawn(async move {
        cx.predecessor()
            .notify::<methods::SessionUpdate>(&SessionNotification::new(
                "s",
                SessionUpdate::AgentMessageChunk(acp_types::ContentChunk::new("from the proxy")),
            ))
            .await?;
        cx.successor()
            .request::<methods::SessionNew>(&NewSessionRequest::new("/w", Vec::new()))
            .await
    });
    let update = conductor.recv().await;
    assert_eq!(update["method"], "session/update");
    assert_eq!(update["params"], chunk("s", "from the proxy"));
    let request = conductor.recv().await;
    assert_eq!(request["method"], "proxy/successor");
    assert_eq!(request["params"]["method"], "session/new");
    assert_eq!(request["params"]["params"]["cwd"], "/w");
    conductor
        .send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"sessionId": "own-1"}}))
        .await;
    let created = tokio::time::timeout(crate::conductor::DEADLINE, asking)
        .await
        .expect("in time")
        .expect("no panic")
        .expect("the session was created");
    assert_eq!(created.session_id.to_string(), "own-1");
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn raw_handlers_see_any_method_by_name() {
    let proxy = Proxy::new().on_raw_request(
        Toward::Successor,
        "_team/lookup",
        |_cx, params| async move {
            let params = params.ok_or_else(|| ErrorObject::invalid_params("params needed"))?;
            let asked: serde_json::Value = params.parse().map_err(ErrorObject::invalid_params)?;
            acp_types::RawJson::new(&json!({"found": asked["name"]}))
                .map_err(ErrorObject::internal_error)
        },
    );
    let mut conductor = Conductor::start(proxy);
    conductor.initialize().await;
    conductor
        .send(
            json!({"jsonrpc": "2.0", "id": 9, "method": "_team/lookup", "params": {"name": "ada"}}),
        )
        .await;
    let answer = conductor.recv().await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 9, "result": {"found": "ada"}})
    );
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn a_plain_initialize_is_refused_with_a_reason() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}))
        .await;
    let answer = conductor.recv().await;
    assert_eq!(answer["error"]["code"], -32600);
    let message = answer["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
        + answer["error"]["data"].to_string().as_str();
    assert!(message.contains("proxy/initialize"), "{answer}");
    conductor.close().await.expect("a clean end");
}
