//! Shows the agent crate and the client crate talking across a real process boundary: the
//! scripted agent served on stdio (`serve_stdio`) in a child started with `acp_client::spawn`,
//! in every framing, with the bytes recorded by a relay and checked against the schema. Also
//! cancellation, the one-prompt rule, an agent crashing or killed mid-prompt, a client
//! vanishing while the agent waits for it, and closing the agent gracefully.

use crate::common;

use acp_e2e::{
    ChildAgent, ClientEvent, Direction, PermissionPolicy, Wiring, all_client_capabilities, script,
    within,
};
use acp_types::*;
use common::{checker, child, prompt, remote_code};

fn connection_closed(error: &acp_client::Error) -> bool {
    matches!(
        error,
        acp_client::Error::Rpc(acp_rpc::Error::ConnectionClosed)
    )
}

async fn whole_session(wiring: Wiring) {
    let c = ChildAgent::spawn(child(wiring, &[], PermissionPolicy::Allow));
    let agent = c.agent.clone();
    let init = within(
        "initialize",
        agent.initialize(
            InitializeRequest::new(ProtocolVersion::LATEST)
                .client_capabilities(all_client_capabilities()),
        ),
    )
    .await
    .expect("initialize");
    assert_eq!(init.protocol_version, ProtocolVersion::V1);
    within(
        "authenticate",
        agent.authenticate(AuthenticateRequest::new(script::AUTH_METHOD)),
    )
    .await
    .expect("authenticate");
    let session = within(
        "session/new",
        agent.new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
    )
    .await
    .expect("session/new")
    .session_id;
    let run = |text: &str| within("prompt", agent.prompt(prompt(&session, text)));

    // Every kind of update, in order, before the response.
    let mut updates = agent.session_updates(session.clone());
    assert_eq!(
        run(script::STREAM_ALL_UPDATES)
            .await
            .expect("prompt")
            .stop_reason,
        StopReason::EndTurn
    );
    let tags: Vec<String> = std::iter::from_fn(|| updates.try_next())
        .map(|n| {
            serde_json::to_value(&n.update).expect("serializable")["sessionUpdate"].to_string()
        })
        .collect();
    let expected: Vec<String> = script::ALL_UPDATE_KINDS
        .iter()
        .map(|k| format!("\"{k}\""))
        .collect();
    assert_eq!(tags, expected, "{wiring}");
    drop(updates);

    // Every content block kind.
    let blocks = vec![
        ContentBlock::from("look"),
        ImageContent::from_bytes(&[1, 2, 3], "image/png").into(),
        AudioContent::from_bytes(&[4, 5, 6], "audio/wav").into(),
        ResourceLink::new("main.rs", "file:///work/main.rs").into(),
        EmbeddedResource::new(TextResourceContents::new(
            "fn main() {}",
            "file:///work/main.rs",
        ))
        .into(),
    ];
    within(
        "prompt",
        agent.prompt(PromptRequest::new(session.clone(), blocks)),
    )
    .await
    .expect("prompt");
    // Permission, files, terminals, elicitation.
    run(script::ASK_PERMISSION).await.expect("prompt");
    c.editor.put_file("/work/a.txt", "alpha\nbeta\n");
    run(&format!(
        "{} /work/a.txt /work/b.txt",
        script::READ_WRITE_FILE
    ))
    .await
    .expect("prompt");
    run(script::TERMINAL).await.expect("prompt");
    run(script::ELICIT).await.expect("prompt");
    let messages = c.editor.messages_of(&session);
    for expected in [
        "blocks: text,image,audio,resource_link,resource",
        "permission: selected allow",
        "line 2: beta\n",
        "after release: error -32002",
        "complete: ok",
    ] {
        assert!(
            messages.iter().any(|m| m == expected),
            "missing {expected:?} in {messages:?}"
        );
    }
    assert_eq!(
        c.editor.file("/work/b.txt").as_deref(),
        Some("ALPHA\nBETA\n")
    );

    // Modes, options, and the other session methods.
    within(
        "set_mode",
        agent.set_session_mode(SetSessionModeRequest::new(session.clone(), "ask")),
    )
    .await
    .expect("set_mode");
    within(
        "set_config_option",
        agent.set_session_config_option(SetSessionConfigOptionRequest::new(
            session.clone(),
            "model",
            SessionConfigOptionValue::ValueId("smart".into()),
        )),
    )
    .await
    .expect("set_config_option");
    let listed = within("list", agent.list_sessions(ListSessionsRequest::new()))
        .await
        .expect("list");
    assert_eq!(listed.sessions.len(), 1);
    let mut replay = agent.session_updates(session.clone());
    within(
        "load",
        agent.load_session(LoadSessionRequest::new(
            session.clone(),
            "/work",
            Vec::<McpServer>::new(),
        )),
    )
    .await
    .expect("load");
    assert!(
        std::iter::from_fn(|| replay.try_next()).count() > 20,
        "the history was replayed before the answer"
    );
    within(
        "resume",
        agent.resume_session(ResumeSessionRequest::new(session.clone(), "/work")),
    )
    .await
    .expect("resume");
    within(
        "close",
        agent.close_session(CloseSessionRequest::new(session.clone())),
    )
    .await
    .expect("close");
    within(
        "delete",
        agent.delete_session(DeleteSessionRequest::new(session.clone())),
    )
    .await
    .expect("delete");

    // The client goes: the agent reads end of file and exits cleanly.
    c.drop_client();
    let ended = c.ended(checker()).await;
    assert!(
        ended.status.success(),
        "{:?}, stderr {:?}",
        ended.status,
        ended.stderr
    );
    let count = ended.wire.assert_clean(60);
    assert!(
        ended
            .wire
            .calls(Direction::AgentToClient, "terminal/create")
            .len()
            == 2,
        "{count} messages"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_child_agent_serves_a_whole_session_over_ndjson() {
    whole_session(Wiring::NDJSON).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_child_agent_serves_a_whole_session_over_content_length() {
    whole_session(Wiring::CONTENT_LENGTH).await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_auto_detecting_child_agent_answers_in_kind() {
    whole_session(Wiring::AUTO_NDJSON).await;
    whole_session(Wiring::AUTO_CONTENT_LENGTH).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_child_agents_turn_is_cancelled_and_a_second_prompt_refused() {
    for wiring in [Wiring::NDJSON, Wiring::CONTENT_LENGTH] {
        let c = ChildAgent::spawn(child(wiring, &[], PermissionPolicy::Allow));
        within(
            "initialize",
            c.agent
                .initialize(InitializeRequest::new(ProtocolVersion::V1)),
        )
        .await
        .expect("initialize");
        let session = within(
            "session/new",
            c.agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
        )
        .await
        .expect("session/new")
        .session_id;
        let mut updates = c.agent.session_updates(session.clone());
        let agent = c.agent.clone();
        let request = prompt(&session, script::WAIT_FOR_CANCEL);
        let turn = tokio::spawn(async move { agent.prompt(request).await });
        // The agent says it waits: the turn is running.
        let waiting = within("the first update", updates.next())
            .await
            .expect("an update");
        assert!(
            matches!(&waiting.update, SessionUpdate::AgentMessageChunk(c) if c.content.as_text() == Some("waiting"))
        );
        assert_eq!(
            remote_code(c.agent.prompt(prompt(&session, "hello")).await),
            -32600
        );
        within(
            "cancel",
            c.agent.cancel(CancelNotification::new(session.clone())),
        )
        .await
        .expect("cancel");
        let done = within("the turn", turn)
            .await
            .expect("task")
            .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::Cancelled, "{wiring}");
        c.drop_client();
        let ended = c.ended(checker()).await;
        assert!(ended.status.success(), "{:?}", ended.status);
        ended.wire.assert_clean(8);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_crashing_child_fails_the_pending_prompt_promptly() {
    for wiring in [Wiring::NDJSON, Wiring::AUTO_CONTENT_LENGTH] {
        let c = ChildAgent::spawn(child(wiring, &[], PermissionPolicy::Allow));
        within(
            "initialize",
            c.agent
                .initialize(InitializeRequest::new(ProtocolVersion::V1)),
        )
        .await
        .expect("initialize");
        let session = within(
            "session/new",
            c.agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
        )
        .await
        .expect("session/new")
        .session_id;
        let failed = within(
            "the crashed prompt",
            c.agent.prompt(prompt(&session, script::CRASH)),
        )
        .await
        .expect_err("the agent crashed");
        assert!(connection_closed(&failed), "{failed:?}");
        let ended = c.ended(checker()).await;
        assert!(
            !ended.status.success(),
            "the agent aborted: {:?}",
            ended.status
        );
        assert!(matches!(ended.driver, Ok(Ok(()))), "{:?}", ended.driver);
        ended.wire.assert_clean(5);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_killed_child_fails_the_pending_prompt_promptly() {
    let mut c = ChildAgent::spawn(child(Wiring::CONTENT_LENGTH, &[], PermissionPolicy::Allow));
    within(
        "initialize",
        c.agent
            .initialize(InitializeRequest::new(ProtocolVersion::V1)),
    )
    .await
    .expect("initialize");
    let session = within(
        "session/new",
        c.agent
            .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
    )
    .await
    .expect("session/new")
    .session_id;
    let mut updates = c.agent.session_updates(session.clone());
    let agent = c.agent.clone();
    let request = prompt(&session, script::WAIT_FOR_CANCEL);
    let turn = tokio::spawn(async move { agent.prompt(request).await });
    within("the first update", updates.next())
        .await
        .expect("the turn runs");
    c.process.kill().expect("killing the agent");
    let failed = within("the pending prompt", turn)
        .await
        .expect("task")
        .expect_err("the agent was killed");
    assert!(connection_closed(&failed), "{failed:?}");
    let ended = c.ended(checker()).await;
    assert!(!ended.status.success());
    ended.wire.assert_clean(5);
}

#[tokio::test(flavor = "current_thread")]
async fn a_vanishing_client_fails_the_child_agents_pending_call() {
    let mut c = ChildAgent::spawn(child(Wiring::NDJSON, &[], PermissionPolicy::AskTest));
    within(
        "initialize",
        c.agent
            .initialize(InitializeRequest::new(ProtocolVersion::V1)),
    )
    .await
    .expect("initialize");
    let session = within(
        "session/new",
        c.agent
            .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
    )
    .await
    .expect("session/new")
    .session_id;
    let agent = c.agent.clone();
    let request = prompt(&session, script::ASK_PERMISSION_DETACHED);
    let _turn = tokio::spawn(async move { agent.prompt(request).await });
    let ClientEvent::PermissionAsked { reply: _reply, .. } = c.client_event().await else {
        panic!("expected a permission request");
    };
    c.drop_client();
    let ended = c.ended(checker()).await;
    // The agent saw end of file, its pending call failed, and it exited cleanly.
    assert!(ended.status.success(), "{:?}", ended.status);
    assert!(
        ended
            .events
            .iter()
            .any(|e| e.starts_with("DetachedCall") && e.contains("connection_closed: true")),
        "{:?}",
        ended.events
    );
    assert!(
        ended.events.iter().any(|e| e.starts_with("PromptDropped")),
        "{:?}",
        ended.events
    );
    ended.wire.assert_clean(5);
}

#[tokio::test(flavor = "current_thread")]
async fn shutdown_closes_a_child_agent_through_its_stdin() {
    let mut c = ChildAgent::spawn(child(Wiring::NDJSON, &[], PermissionPolicy::Allow));
    within(
        "initialize",
        c.agent
            .initialize(InitializeRequest::new(ProtocolVersion::V1)),
    )
    .await
    .expect("initialize");
    let session = within(
        "session/new",
        c.agent
            .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
    )
    .await
    .expect("session/new")
    .session_id;
    // A running turn is cancelled and awaited first: closing drops what is still queued.
    let mut updates = c.agent.session_updates(session.clone());
    let agent = c.agent.clone();
    let request = prompt(&session, script::WAIT_FOR_CANCEL);
    let turn = tokio::spawn(async move { agent.prompt(request).await });
    within("the first update", updates.next())
        .await
        .expect("the turn runs");
    within(
        "session/cancel",
        c.agent.cancel(CancelNotification::new(session.clone())),
    )
    .await
    .expect("session/cancel");
    let done = within("the cancelled turn", turn)
        .await
        .expect("task")
        .expect("the turn ends");
    assert_eq!(done.stop_reason, StopReason::Cancelled);
    // The agent exits at the end of its input: no signal is needed.
    let stopped = within(
        "the shutdown",
        c.process.shutdown(std::time::Duration::from_secs(20)),
    )
    .await
    .expect("shutdown");
    assert_eq!(stopped.stage, acp_client::StopStage::Exited, "{stopped}");
    assert!(stopped.status.success(), "{stopped}");
    let ended = c.ended(checker()).await;
    assert!(matches!(ended.driver, Ok(Ok(()))), "{:?}", ended.driver);
    ended.wire.assert_clean(5);
}
