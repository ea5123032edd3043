//! Shows each protocol rule the libraries enforce, end to end, and that the rule is the
//! library's doing (switching it off changes the outcome): nothing before `initialize`, the
//! protocol version negotiated, one prompt at a time per session, and capability gating on
//! both sides.

use crate::common;

use acp_agent::AgentOptions;
use acp_e2e::{AgentConfig, AgentEvent, Direction, Duplex, Wiring, script, within};
use acp_types::*;
use common::{duplex, prompt, remote_code};

#[tokio::test(flavor = "current_thread")]
async fn requests_before_initialize_are_refused() {
    let h = Duplex::start(duplex(Wiring::NDJSON));
    let early = h
        .agent
        .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new()))
        .await;
    assert_eq!(remote_code(early), -32600);
    let early = h
        .agent
        .prompt(prompt(&SessionId::from("sess-1"), "hello"))
        .await;
    assert_eq!(remote_code(early), -32600);
    // After initialize, the same request is served.
    h.initialize(ClientCapabilities::new()).await;
    assert_eq!(h.new_session().await.as_str(), "sess-1");
    let wire = h.shutdown(8).await;
    let refused: Vec<_> = wire
        .seen()
        .into_iter()
        .filter(|s| s.direction == Direction::AgentToClient && s.error_code() == Some(-32600))
        .collect();
    assert_eq!(refused.len(), 2);
}

#[tokio::test(flavor = "current_thread")]
async fn without_the_rule_requests_before_initialize_reach_the_agent() {
    let mut options = duplex(Wiring::NDJSON);
    options.agent_options.require_initialize = false;
    let h = Duplex::start(options);
    let early = within(
        "session/new",
        h.agent
            .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
    )
    .await
    .expect("served without initialize");
    assert_eq!(early.session_id.as_str(), "sess-1");
    h.shutdown(2).await;
}

async fn initialize_with(
    version: u16,
    agent_answers: u16,
    negotiate: bool,
) -> Result<ProtocolVersion, acp_client::Error> {
    let mut config = AgentConfig::full();
    config.protocol_version = ProtocolVersion(agent_answers);
    let mut options = duplex(Wiring::NDJSON).agent(config);
    options.agent_options.negotiate_version = negotiate;
    let h = Duplex::start(options);
    let result = within(
        "initialize",
        h.agent
            .initialize(InitializeRequest::new(ProtocolVersion(version))),
    )
    .await
    .map(|r| r.protocol_version);
    let wire = h.shutdown(2).await;
    let sent = &wire.calls(Direction::ClientToAgent, "initialize")[0];
    assert_eq!(sent["params"]["protocolVersion"], version);
    result
}

#[tokio::test(flavor = "current_thread")]
async fn the_protocol_version_is_negotiated() {
    // A supported version is answered as asked, whatever the agent's code said.
    assert_eq!(
        initialize_with(1, 7, true).await.ok(),
        Some(ProtocolVersion::V1)
    );
    // An unsupported one is answered with the latest supported.
    #[cfg(not(feature = "unstable_protocol_v2"))]
    {
        assert_eq!(
            initialize_with(2, 2, true).await.ok(),
            Some(ProtocolVersion::LATEST)
        );
        assert_eq!(
            initialize_with(0, 1, true).await.ok(),
            Some(ProtocolVersion::LATEST)
        );
    }
    // With v2, asking for 2 is a v2 `initialize`, which requires `info` (this v1 request has
    // none: `-32602`), and 0 is below every supported version (`-32022`, as v2's schema says).
    #[cfg(feature = "unstable_protocol_v2")]
    {
        assert_eq!(remote_code(initialize_with(2, 2, true).await), -32602);
        assert_eq!(remote_code(initialize_with(0, 1, true).await), -32022);
    }
    // Without negotiation the agent's own answer goes out, and the client refuses a version
    // it does not speak.
    match initialize_with(1, 7, false).await {
        Err(acp_client::Error::UnsupportedProtocolVersion(v)) => assert_eq!(v, ProtocolVersion(7)),
        other => panic!("expected an unsupported version, got {other:?}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_second_prompt_while_one_runs_is_refused() {
    for wiring in [Wiring::NDJSON, Wiring::CONTENT_LENGTH] {
        let mut h = Duplex::start(duplex(wiring));
        h.initialize(ClientCapabilities::new()).await;
        let (s1, s2) = (h.new_session().await, h.new_session().await);
        let agent = h.agent.clone();
        let first = tokio::spawn({
            let request = prompt(&s1, script::WAIT_FOR_CANCEL);
            async move { agent.prompt(request).await }
        });
        h.agent_event_where(|e| matches!(e, AgentEvent::WaitingForCancel(_)).then_some(()))
            .await;
        // The same session: refused with -32600, and the running turn goes on.
        assert_eq!(
            remote_code(h.agent.prompt(prompt(&s1, "hello")).await),
            -32600
        );
        // Another session: served.
        let other = within("prompt", h.agent.prompt(prompt(&s2, "hello")))
            .await
            .expect("another session's prompt");
        assert_eq!(other.stop_reason, StopReason::EndTurn);
        within(
            "cancel",
            h.agent.cancel(CancelNotification::new(s1.clone())),
        )
        .await
        .expect("cancel");
        let first = within("the first turn", first)
            .await
            .expect("task")
            .expect("prompt");
        assert_eq!(first.stop_reason, StopReason::Cancelled);
        // Once the turn is over the session takes prompts again.
        let again = within("prompt", h.agent.prompt(prompt(&s1, "hello")))
            .await
            .expect("prompt after the turn");
        assert_eq!(again.stop_reason, StopReason::EndTurn);
        // The refused prompt did not disturb the session: exactly the turns that ran are seen.
        assert_eq!(
            h.editor.messages_of(&s1),
            ["waiting", "stopping", "hello", "blocks: text"]
        );
        h.shutdown(14).await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn without_the_rule_a_second_prompt_runs_alongside() {
    let mut options = duplex(Wiring::NDJSON);
    options.agent_options = AgentOptions::default();
    options.agent_options.one_prompt_per_session = false;
    let mut h = Duplex::start(options);
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let agent = h.agent.clone();
    let first = tokio::spawn({
        let request = prompt(&session, script::WAIT_FOR_CANCEL);
        async move { agent.prompt(request).await }
    });
    h.agent_event_where(|e| matches!(e, AgentEvent::WaitingForCancel(_)).then_some(()))
        .await;
    let second = within("prompt", h.agent.prompt(prompt(&session, script::REFUSE)))
        .await
        .expect("the second prompt runs");
    assert_eq!(second.stop_reason, StopReason::Refusal);
    // The first turn is still registered for cancellation after the second one ended.
    within("cancel", h.agent.cancel(CancelNotification::new(session)))
        .await
        .expect("cancel");
    let first = within("the first turn", first)
        .await
        .expect("task")
        .expect("prompt");
    assert_eq!(first.stop_reason, StopReason::Cancelled);
    h.shutdown(8).await;
}

fn not_advertised<T: std::fmt::Debug>(result: Result<T, acp_client::Error>) -> &'static str {
    match result {
        Err(acp_client::Error::CapabilityNotAdvertised { capability, .. }) => capability,
        other => panic!("expected a capability error, got {other:?}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_client_does_not_call_what_the_agent_did_not_advertise() {
    let h = Duplex::start(duplex(Wiring::NDJSON).agent(AgentConfig::bare()));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let agent = &h.agent;
    let none = Vec::<McpServer>::new();
    assert_eq!(
        not_advertised(
            agent
                .load_session(LoadSessionRequest::new(
                    session.clone(),
                    "/work",
                    none.clone(),
                ))
                .await
        ),
        "loadSession"
    );
    assert_eq!(
        not_advertised(agent.list_sessions(ListSessionsRequest::new()).await),
        "sessionCapabilities.list"
    );
    assert_eq!(
        not_advertised(
            agent
                .resume_session(ResumeSessionRequest::new(session.clone(), "/work"))
                .await
        ),
        "sessionCapabilities.resume"
    );
    assert_eq!(
        not_advertised(
            agent
                .close_session(CloseSessionRequest::new(session.clone()))
                .await
        ),
        "sessionCapabilities.close"
    );
    assert_eq!(
        not_advertised(
            agent
                .delete_session(DeleteSessionRequest::new(session.clone()))
                .await
        ),
        "sessionCapabilities.delete"
    );
    assert_eq!(
        not_advertised(agent.logout(LogoutRequest::new()).await),
        "auth.logout"
    );
    // Prompts: only text and resource links are the baseline.
    let image = ImageContent::from_bytes(&[1, 2, 3], "image/png");
    let audio = AudioContent::from_bytes(&[1, 2, 3], "audio/wav");
    let resource = EmbeddedResource::new(TextResourceContents::new("x", "file:///x"));
    for (block, capability) in [
        (ContentBlock::from(image), "promptCapabilities.image"),
        (ContentBlock::from(audio), "promptCapabilities.audio"),
        (
            ContentBlock::from(resource),
            "promptCapabilities.embeddedContext",
        ),
    ] {
        let request = PromptRequest::new(session.clone(), vec!["see".into(), block]);
        assert_eq!(not_advertised(agent.prompt(request).await), capability);
    }
    let baseline = PromptRequest::new(
        session.clone(),
        vec!["see".into(), ResourceLink::new("x", "file:///x").into()],
    );
    let done = within("prompt", agent.prompt(baseline))
        .await
        .expect("baseline prompt");
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    let wire = h.shutdown(6).await;
    // Nothing refused locally went over the wire.
    for method in [
        "session/load",
        "session/list",
        "session/resume",
        "session/close",
        "session/delete",
        "logout",
    ] {
        assert!(
            wire.calls(Direction::ClientToAgent, method).is_empty(),
            "{method} was sent"
        );
    }
    assert_eq!(
        wire.calls(Direction::ClientToAgent, "session/prompt").len(),
        1
    );
}

#[tokio::test(flavor = "current_thread")]
async fn without_the_gate_the_client_sends_what_was_not_advertised_and_the_agent_refuses_it() {
    for agent_refuses in [true, false] {
        let mut options = duplex(Wiring::NDJSON).agent(AgentConfig::bare());
        options.client_options.gate_agent_capabilities = false;
        options.agent_options.refuse_unadvertised = agent_refuses;
        let h = Duplex::start(options);
        h.initialize(ClientCapabilities::new()).await;
        let listed = within("list", h.agent.list_sessions(ListSessionsRequest::new())).await;
        if agent_refuses {
            // The agent's library refuses what the agent did not advertise: its
            // implementation never sees the call.
            let error = listed.expect_err("the agent did not advertise session/list");
            assert_eq!(remote_code(Err::<(), _>(error)), -32601);
        } else {
            assert!(
                listed
                    .expect("the scripted agent lists")
                    .sessions
                    .is_empty()
            );
        }
        let wire = h.shutdown(4).await;
        assert_eq!(
            wire.calls(Direction::ClientToAgent, "session/list").len(),
            1
        );
    }
}

async fn gated_calls(
    capabilities: ClientCapabilities,
    gate: bool,
    client_refuses: bool,
) -> (Vec<String>, usize) {
    let mut options = duplex(Wiring::NDJSON);
    options.agent_options.gate_client_capabilities = gate;
    options.client_options.refuse_unadvertised = client_refuses;
    let h = Duplex::start(options);
    h.initialize(capabilities).await;
    let session = h.new_session().await;
    within(
        "prompt",
        h.agent.prompt(prompt(&session, script::TRY_GATED_CALLS)),
    )
    .await
    .expect("prompt");
    let report = h.editor.messages_of(&session);
    let wire = h.shutdown(4).await;
    let calls = wire
        .seen()
        .iter()
        .filter(|s| s.direction == Direction::AgentToClient)
        .filter(|s| {
            s.method().is_some_and(|m| {
                m.starts_with("fs/") || m.starts_with("terminal/") || m.starts_with("elicitation/")
            })
        })
        .count();
    (report, calls)
}

#[tokio::test(flavor = "current_thread")]
async fn the_agent_does_not_call_what_the_client_did_not_advertise() {
    let (report, calls) = gated_calls(ClientCapabilities::new(), true, true).await;
    assert_eq!(
        report,
        [
            "fs/read_text_file: not advertised (fs.readTextFile)",
            "fs/write_text_file: not advertised (fs.writeTextFile)",
            "terminal/create: not advertised (terminal)",
            "elicitation/create form: not advertised (elicitation.form)",
            "elicitation/create url: not advertised (elicitation.url)",
            "elicitation/complete: not advertised (elicitation.url)",
        ]
    );
    assert_eq!(calls, 0, "nothing gated may reach the wire");
    // Advertising one capability lets exactly that call through.
    let read_only =
        ClientCapabilities::new().fs(FileSystemCapabilities::new().read_text_file(true));
    let (report, calls) = gated_calls(read_only, true, true).await;
    assert_eq!(report[0], "fs/read_text_file: error -32002");
    assert_eq!(
        report[1],
        "fs/write_text_file: not advertised (fs.writeTextFile)"
    );
    assert_eq!(calls, 1);
}

#[tokio::test(flavor = "current_thread")]
async fn without_the_gate_the_agents_calls_are_refused_by_the_client_library() {
    let (report, calls) = gated_calls(ClientCapabilities::new(), false, true).await;
    // The client never advertised them: its library answers -32601 before the editor's
    // implementation is reached (the completion is a notification, dropped).
    assert_eq!(
        report,
        [
            "fs/read_text_file: error -32601",
            "fs/write_text_file: error -32601",
            "terminal/create: error -32601",
            "elicitation/create form: error -32601",
            "elicitation/create url: error -32601",
            "elicitation/complete: ok",
        ]
    );
    // read, write, create (no terminal to release), two elicitations, the completion.
    assert_eq!(calls, 6);
}

#[tokio::test(flavor = "current_thread")]
async fn without_either_gate_the_agents_calls_reach_the_client() {
    let (report, calls) = gated_calls(ClientCapabilities::new(), false, false).await;
    assert_eq!(
        report,
        [
            "fs/read_text_file: error -32002",
            "fs/write_text_file: ok",
            "terminal/create: ok",
            "elicitation/create form: ok",
            "elicitation/create url: ok",
            "elicitation/complete: ok",
        ]
    );
    // read, write, create + release, two elicitations, the completion.
    assert_eq!(calls, 7);
}
