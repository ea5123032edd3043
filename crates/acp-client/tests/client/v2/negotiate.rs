//! Version negotiation: v2 asked for, v1 taken when the agent answers 1.

use acp_types::*;
use serde_json::json;

use super::agent::{done, initialize_requests, pair, v1_prompt, v1_session};

#[tokio::test]
async fn initialize_asks_for_v2_in_a_message_valid_in_both_schemas() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let (v2_request, v1_request) = initialize_requests();
    let task = tokio::spawn(async move { (agent.negotiate(v2_request, v1_request).await, agent) });
    // `recv` checks the request against the v1 and the v2 schema alike.
    let init = scripted.expect("initialize").await;
    assert_eq!(init["params"]["protocolVersion"], 2);
    assert_eq!(init["params"]["info"]["name"], "editor");
    // A v1 agent reads the v1 capabilities the fallback request carries.
    assert_eq!(init["params"]["clientCapabilities"]["terminal"], true);
    scripted
        .respond(
            &init,
            json!({"protocolVersion": 2, "info": {"name": "a", "version": "1"},
            "capabilities": {"session": {}}}),
        )
        .await;
    let (negotiated, agent) = done(task).await;
    let negotiated = negotiated.expect("v2 negotiated");
    assert_eq!(negotiated.protocol_version(), ProtocolVersion(2));
    assert!(matches!(negotiated, acp_client::v2::Negotiated::V2(_)));
    assert_eq!(agent.protocol_version(), Some(ProtocolVersion(2)));
    let v2 = agent.v2().expect("the v2 handle");
    assert!(
        v2.initialize_response()
            .capabilities
            .as_ref()
            .unwrap()
            .session
            .is_some()
    );
}

#[tokio::test]
async fn an_agent_answering_1_gets_the_v1_surface() {
    let (agent, mut scripted, seen, _) = pair(false);
    v1_session(&agent, &mut scripted).await;
    assert_eq!(agent.protocol_version(), Some(ProtocolVersion::V1));
    assert!(agent.v2().is_none(), "no v2 calls on a v1 connection");
    assert!(
        agent.agent_initialize().is_some(),
        "the v1 answer is the handle's"
    );

    // The v1 surface works as it always did, and a v1 turn ends at the response.
    let prompt = v1_prompt(&agent, "hi");
    let request = scripted.expect("session/prompt").await;
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "v1 "}}),
        )
        .await;
    scripted
        .update(
            "s1",
            json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "reply"}}),
        )
        .await;
    scripted
        .respond(&request, json!({"stopReason": "end_turn"}))
        .await;
    let done = done(prompt).await.unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    let model = seen.model.lock().unwrap();
    assert_eq!(
        model.messages().len(),
        1,
        "id-less v1 chunks make one message"
    );
    assert_eq!(model.messages()[0].text(), "v1 reply");
}

#[tokio::test]
async fn an_unknown_version_is_refused() {
    let (agent, mut scripted, _seen, _) = pair(false);
    let (v2_request, v1_request) = initialize_requests();
    let negotiate = tokio::spawn(async move { agent.negotiate(v2_request, v1_request).await });
    let init = scripted.expect("initialize").await;
    scripted
        .respond(
            &init,
            json!({"protocolVersion": 7, "info": {"name": "a", "version": "1"}}),
        )
        .await;
    let error = done(negotiate).await.unwrap_err();
    assert!(
        matches!(
            error,
            acp_client::Error::UnsupportedProtocolVersion(ProtocolVersion(7))
        ),
        "{error:?}"
    );
}
