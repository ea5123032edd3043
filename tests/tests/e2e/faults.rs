//! Shows what happens when one side goes away: an agent crashing or killed mid-prompt fails
//! the client's pending call promptly with a connection-closed error; a client vanishing fails
//! the agent's pending calls (and cancels its running handlers); an orderly hang-up ends both
//! drivers cleanly.

use crate::common;

use acp_e2e::{
    AgentEvent, ClientEvent, Direction, Duplex, PermissionPolicy, Wiring, script, within,
};
use acp_types::*;
use common::{duplex, prompt};

fn connection_closed(error: &acp_client::Error) -> bool {
    matches!(
        error,
        acp_client::Error::Rpc(acp_rpc::Error::ConnectionClosed)
    )
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
async fn an_agent_crashing_mid_prompt_fails_the_pending_prompt_promptly() {
    for wiring in [Wiring::NDJSON, Wiring::CONTENT_LENGTH] {
        let h = Duplex::start(duplex(wiring));
        h.initialize(ClientCapabilities::new()).await;
        let session = h.new_session().await;
        let mut updates = h.agent.session_updates(session.clone());
        let failed = within(
            "the crashed prompt",
            h.agent.prompt(prompt(&session, script::CRASH)),
        )
        .await
        .expect_err("the agent crashed");
        assert!(connection_closed(&failed), "{failed:?}");
        // Whatever the agent said before crashing, the stream then ends.
        let mut said = Vec::new();
        while let Some(update) = within("the end of the update stream", updates.next()).await {
            said.push(update);
        }
        assert!(said.len() <= 1, "{said:?}");
        // Later calls fail at once.
        let later = h
            .agent
            .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new()))
            .await
            .expect_err("the connection is gone");
        assert!(connection_closed(&later), "{later:?}");
        let ended = h.ended().await;
        assert!(ended.agent.is_err(), "the agent's task was killed");
        assert!(matches!(ended.client, Ok(Ok(()))), "{:?}", ended.client);
        ended.wire.assert_clean(5);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_agent_killed_while_waiting_fails_the_pending_prompt_promptly() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let turn = spawn_prompt(&h, &session, script::WAIT_FOR_CANCEL);
    h.agent_event_where(|e| matches!(e, AgentEvent::WaitingForCancel(_)).then_some(()))
        .await;
    h.crash_agent();
    let failed = within("the pending prompt", turn)
        .await
        .expect("task")
        .expect_err("the agent is gone");
    assert!(connection_closed(&failed), "{failed:?}");
    let ended = h.ended().await;
    assert!(ended.agent.is_err());
    assert!(matches!(ended.client, Ok(Ok(()))), "{:?}", ended.client);
    ended.wire.assert_clean(5);
}

#[tokio::test(flavor = "current_thread")]
async fn a_vanishing_client_fails_the_agents_pending_calls() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON).permission(PermissionPolicy::AskTest));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let client = h.client.clone();
    let _turn = spawn_prompt(&h, &session, script::ASK_PERMISSION_DETACHED);
    // The question is on the user's screen when the editor disappears.
    let ClientEvent::PermissionAsked { reply: _reply, .. } = h.client_event().await else {
        panic!("expected a permission request");
    };
    h.drop_client();
    // Every event, until the agent and its tasks are gone (the order of the two that matter
    // is up to the scheduler).
    let mut events = Vec::new();
    while let Some(event) = within("the agent's events", h.agent_events.recv()).await {
        events.push(event);
    }
    let detached = events.iter().find_map(|e| match e {
        AgentEvent::DetachedCall {
            outcome,
            connection_closed,
            ..
        } => Some((outcome.clone(), *connection_closed)),
        _ => None,
    });
    let (outcome, closed) = detached.expect("the detached call finished");
    assert!(
        closed,
        "the pending request_permission failed otherwise: {outcome}"
    );
    // The handler that waited for the answer was cancelled.
    assert!(
        events.contains(&AgentEvent::PromptDropped(session.clone())),
        "{events:?}"
    );
    // New calls to the vanished client fail at once.
    let later = client
        .request_permission(RequestPermissionRequest::new(
            session,
            ToolCallUpdate::new("call-late"),
            Vec::<PermissionOption>::new(),
        ))
        .await
        .expect_err("the client is gone");
    assert!(
        matches!(
            later,
            acp_agent::Error::Rpc(acp_rpc::Error::ConnectionClosed)
        ),
        "{later:?}"
    );
    let ended = h.ended().await;
    assert!(matches!(ended.agent, Ok(Ok(()))), "{:?}", ended.agent);
    assert!(ended.client.is_err(), "the client's task was dropped");
    ended.wire.assert_clean(5);
}

#[tokio::test(flavor = "current_thread")]
async fn a_vanishing_client_cancels_the_agents_running_prompt() {
    let mut h = Duplex::start(duplex(Wiring::CONTENT_LENGTH).permission(PermissionPolicy::AskTest));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let _turn = spawn_prompt(&h, &session, script::ASK_PERMISSION);
    let ClientEvent::PermissionAsked { reply: _reply, .. } = h.client_event().await else {
        panic!("expected a permission request");
    };
    h.drop_client();
    let dropped = h
        .agent_event_where(|e| match e {
            AgentEvent::PromptDropped(id) => Some(id),
            _ => None,
        })
        .await;
    assert_eq!(dropped, session);
    let ended = h.ended().await;
    assert!(matches!(ended.agent, Ok(Ok(()))), "{:?}", ended.agent);
    ended.wire.assert_clean(5);
}

#[tokio::test(flavor = "current_thread")]
async fn hanging_up_mid_turn_ends_both_sides_cleanly() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let turn = spawn_prompt(&h, &session, script::WAIT_FOR_CANCEL);
    h.agent_event_where(|e| matches!(e, AgentEvent::WaitingForCancel(_)).then_some(()))
        .await;
    h.hang_up();
    let failed = within("the pending prompt", turn)
        .await
        .expect("task")
        .expect_err("the connection ended");
    assert!(connection_closed(&failed), "{failed:?}");
    let dropped = h
        .agent_event_where(|e| match e {
            AgentEvent::PromptDropped(id) => Some(id),
            _ => None,
        })
        .await;
    assert_eq!(dropped, session);
    let ended = h.ended().await;
    assert!(matches!(ended.agent, Ok(Ok(()))), "{:?}", ended.agent);
    assert!(matches!(ended.client, Ok(Ok(()))), "{:?}", ended.client);
    let wire = ended.wire;
    wire.assert_clean(5);
    // The prompt never got an answer on the wire.
    let id = wire.calls(Direction::ClientToAgent, "session/prompt")[0]["id"].clone();
    assert!(wire.response_to(Direction::AgentToClient, &id).is_none());
}

#[tokio::test(flavor = "current_thread")]
async fn dropping_the_clients_driver_fails_its_own_pending_prompt() {
    let mut h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let turn = spawn_prompt(&h, &session, script::WAIT_FOR_CANCEL);
    h.agent_event_where(|e| matches!(e, AgentEvent::WaitingForCancel(_)).then_some(()))
        .await;
    h.drop_client();
    let failed = within("the pending prompt", turn)
        .await
        .expect("task")
        .expect_err("the connection was dropped");
    assert!(connection_closed(&failed), "{failed:?}");
    h.ended().await.wire.assert_clean(5);
}

#[tokio::test(flavor = "current_thread")]
async fn update_streams_end_when_the_connection_closes() {
    let h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let mut before = h.agent.session_updates(session.clone());
    let agent = h.agent.clone();
    h.shutdown(4).await;
    assert!(
        within("a stream taken before the end", before.next())
            .await
            .is_none()
    );
    let mut after = agent.session_updates(session);
    assert!(
        within("a stream taken after the end", after.next())
            .await
            .is_none()
    );
}
