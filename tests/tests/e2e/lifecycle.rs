//! Shows the whole life of a connection and its sessions, agent crate against client crate,
//! in every framing: initialize, authenticate, new/load/list/resume/close/delete session,
//! modes and configuration options, logout.

use crate::common;

use acp_e2e::{AgentConfig, AgentEvent, Duplex, Wiring, all_client_capabilities, script, within};
use acp_types::*;
use common::{duplex, prompt, remote_code};

fn texts(updates: &[SessionUpdate]) -> Vec<(String, String)> {
    updates
        .iter()
        .map(|u| match u {
            SessionUpdate::UserMessageChunk(c) => {
                ("user".into(), c.content.as_text().unwrap_or("?").into())
            }
            SessionUpdate::AgentMessageChunk(c) => {
                ("agent".into(), c.content.as_text().unwrap_or("?").into())
            }
            other => ("other".into(), format!("{other:?}")),
        })
        .collect()
}

fn drain(updates: &mut acp_client::SessionUpdates) -> Vec<SessionUpdate> {
    std::iter::from_fn(|| updates.try_next())
        .map(|n| n.update)
        .collect()
}

fn current_value(options: &[SessionConfigOption], id: &str) -> Option<String> {
    options
        .iter()
        .find(|o| o.id.as_str() == id)
        .and_then(|o| match &o.kind {
            SessionConfigKind::Select(select) => Some(select.current_value.to_string()),
            SessionConfigKind::Boolean(boolean) => Some(boolean.current_value.to_string()),
            _ => None,
        })
}

async fn whole_lifecycle(wiring: Wiring) {
    let mut h = Duplex::start(duplex(wiring));
    let agent = h.agent.clone();

    // initialize: the version, the capabilities, the auth methods and the info come through.
    let init = h.initialize(all_client_capabilities()).await;
    assert_eq!(init.protocol_version, ProtocolVersion::V1, "{wiring}");
    let caps = init.agent_capabilities.as_ref().expect("capabilities");
    assert_eq!(caps.load_session, Some(true));
    assert!(
        caps.session_capabilities
            .as_ref()
            .is_some_and(|s| s.list.is_some()
                && s.resume.is_some()
                && s.close.is_some()
                && s.delete.is_some())
    );
    assert_eq!(init.auth_methods.as_ref().map(Vec::len), Some(1));
    assert_eq!(
        init.agent_info.as_ref().map(|i| i.name.as_str()),
        Some("e2e-agent")
    );
    // The agent sees what the client advertised.
    assert!(
        h.client
            .client_initialize()
            .is_some_and(InitializeRequest::can_use_terminal)
    );

    // authenticate: a known method works, an unknown one is refused by the agent.
    within(
        "authenticate",
        agent.authenticate(AuthenticateRequest::new(script::AUTH_METHOD)),
    )
    .await
    .expect("authenticate");
    assert_eq!(
        remote_code(
            agent
                .authenticate(AuthenticateRequest::new("no-such-method"))
                .await
        ),
        -32602
    );

    // session/new, three times, one elsewhere.
    let s1 = h.new_session().await;
    let s2 = h.new_session().await;
    let s3 = within(
        "session/new",
        agent.new_session(NewSessionRequest::new(
            "/elsewhere",
            Vec::<McpServer>::new(),
        )),
    )
    .await
    .expect("session/new")
    .session_id;
    assert_eq!(
        [s1.as_str(), s2.as_str(), s3.as_str()],
        ["sess-1", "sess-2", "sess-3"]
    );

    // Modes: switch, and an unknown mode is refused.
    within(
        "set_mode",
        agent.set_session_mode(SetSessionModeRequest::new(s1.clone(), "code")),
    )
    .await
    .expect("set_mode");
    assert_eq!(
        remote_code(
            agent
                .set_session_mode(SetSessionModeRequest::new(s1.clone(), "nope"))
                .await
        ),
        -32602
    );

    // Config options: the answer holds every option with its current value.
    let set = within(
        "set_config_option",
        agent.set_session_config_option(SetSessionConfigOptionRequest::new(
            s1.clone(),
            "model",
            SessionConfigOptionValue::ValueId("smart".into()),
        )),
    )
    .await
    .expect("set_config_option");
    assert_eq!(
        current_value(&set.config_options, "model").as_deref(),
        Some("smart")
    );
    assert_eq!(
        current_value(&set.config_options, "mode").as_deref(),
        Some("code")
    );
    let brave = within(
        "set_config_option",
        agent.set_session_config_option(SetSessionConfigOptionRequest::new(
            s1.clone(),
            "brave",
            SessionConfigOptionValue::Boolean(true),
        )),
    )
    .await
    .expect("set a boolean option");
    assert_eq!(
        current_value(&brave.config_options, "brave").as_deref(),
        Some("true")
    );

    // A turn, so that the session has a history.
    let done = within("prompt", agent.prompt(prompt(&s1, "remember this")))
        .await
        .expect("prompt");
    assert_eq!(done.stop_reason, StopReason::EndTurn);

    // session/list: pages of two, then the end; a filter by directory.
    let page1 = within("list", agent.list_sessions(ListSessionsRequest::new()))
        .await
        .expect("list");
    let ids = |page: &ListSessionsResponse| {
        page.sessions
            .iter()
            .map(|s| s.session_id.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&page1), ["sess-1", "sess-2"]);
    let cursor = page1.next_cursor.clone().expect("a second page");
    let page2 = within(
        "list",
        agent.list_sessions(ListSessionsRequest::new().cursor(cursor)),
    )
    .await
    .expect("list page 2");
    assert_eq!(ids(&page2), ["sess-3"]);
    assert_eq!(page2.next_cursor, None);
    let elsewhere = within(
        "list",
        agent.list_sessions(ListSessionsRequest::new().cwd("/elsewhere")),
    )
    .await
    .expect("list by cwd");
    assert_eq!(ids(&elsewhere), ["sess-3"]);
    assert_eq!(
        remote_code(
            agent
                .list_sessions(ListSessionsRequest::new().cursor("garbage"))
                .await
        ),
        -32602
    );

    // session/load: the whole history is replayed before the answer.
    let mut replay = agent.session_updates(s1.clone());
    let loaded = within(
        "load",
        agent.load_session(LoadSessionRequest::new(
            s1.clone(),
            "/work",
            Vec::<McpServer>::new(),
        )),
    )
    .await
    .expect("load");
    assert_eq!(
        texts(&drain(&mut replay)),
        [
            ("user".to_owned(), "remember this".to_owned()),
            ("agent".to_owned(), "remember this".to_owned()),
            ("agent".to_owned(), "blocks: text".to_owned()),
        ]
    );
    assert_eq!(
        loaded
            .modes
            .as_ref()
            .map(|m| m.current_mode_id.to_string())
            .as_deref(),
        Some("code")
    );

    // session/resume: no replay at all.
    let mut resumed_updates = agent.session_updates(s1.clone());
    let resumed = within(
        "resume",
        agent.resume_session(ResumeSessionRequest::new(s1.clone(), "/work")),
    )
    .await
    .expect("resume");
    assert!(
        drain(&mut resumed_updates).is_empty(),
        "resume must not replay"
    );
    assert_eq!(
        resumed
            .config_options
            .as_deref()
            .and_then(|o| current_value(o, "model"))
            .as_deref(),
        Some("smart")
    );

    // session/close: the agent frees the session; prompts there are refused.
    within(
        "close",
        agent.close_session(CloseSessionRequest::new(s2.clone())),
    )
    .await
    .expect("close");
    let closed = h
        .agent_event_where(|e| match e {
            AgentEvent::SessionClosed(id) => Some(id),
            _ => None,
        })
        .await;
    assert_eq!(closed, s2);
    assert_eq!(
        remote_code(agent.prompt(prompt(&s2, "hello")).await),
        -32602
    );

    // session/delete: gone from the list; deleting the unknown succeeds silently.
    within(
        "delete",
        agent.delete_session(DeleteSessionRequest::new(s3.clone())),
    )
    .await
    .expect("delete");
    within(
        "delete",
        agent.delete_session(DeleteSessionRequest::new("never-was")),
    )
    .await
    .expect("deleting an unknown session succeeds");
    let after = within("list", agent.list_sessions(ListSessionsRequest::new()))
        .await
        .expect("list");
    assert_eq!(ids(&after), ["sess-1", "sess-2"]);

    within("logout", agent.logout(LogoutRequest::new()))
        .await
        .expect("logout");

    let wire = h.shutdown(30).await;
    // Each method went over the wire once as a request, so the schema saw every one.
    for method in [
        "initialize",
        "authenticate",
        "session/new",
        "session/set_mode",
        "session/set_config_option",
        "session/prompt",
        "session/list",
        "session/load",
        "session/resume",
        "session/close",
        "session/delete",
        "logout",
    ] {
        assert!(
            !wire
                .calls(acp_e2e::Direction::ClientToAgent, method)
                .is_empty(),
            "{method} never went over the wire ({wiring})"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn whole_lifecycle_over_ndjson() {
    whole_lifecycle(Wiring::NDJSON).await;
}

#[tokio::test(flavor = "current_thread")]
async fn whole_lifecycle_over_content_length() {
    whole_lifecycle(Wiring::CONTENT_LENGTH).await;
}

#[tokio::test(flavor = "current_thread")]
async fn whole_lifecycle_with_an_auto_detecting_agent() {
    whole_lifecycle(Wiring::AUTO_NDJSON).await;
    whole_lifecycle(Wiring::AUTO_CONTENT_LENGTH).await;
}

#[tokio::test(flavor = "current_thread")]
async fn session_creation_waits_for_authentication() {
    let mut config = AgentConfig::full();
    config.require_auth = true;
    let h = Duplex::start(duplex(Wiring::NDJSON).agent(config));
    h.initialize(ClientCapabilities::new()).await;
    let refused = h
        .agent
        .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new()))
        .await;
    assert_eq!(remote_code(refused), -32000);
    within(
        "authenticate",
        h.agent
            .authenticate(AuthenticateRequest::new(script::AUTH_METHOD)),
    )
    .await
    .expect("authenticate");
    assert_eq!(h.new_session().await.as_str(), "sess-1");
    h.shutdown(6).await;
}

#[tokio::test(flavor = "current_thread")]
async fn boolean_options_only_reach_clients_that_advertise_them() {
    let h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let session = within(
        "session/new",
        h.agent
            .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
    )
    .await
    .expect("session/new");
    let options = session.config_options.expect("config options");
    assert!(options.iter().all(|o| o.id.as_str() != "brave"));
    let refused = h
        .agent
        .set_session_config_option(SetSessionConfigOptionRequest::new(
            session.session_id,
            "brave",
            SessionConfigOptionValue::Boolean(true),
        ))
        .await;
    assert_eq!(remote_code(refused), -32602);
    let wire = h.shutdown(6).await;
    // The boolean value went out as the spec shows it: `type: boolean` and a boolean value.
    let set = wire.calls(
        acp_e2e::Direction::ClientToAgent,
        "session/set_config_option",
    );
    assert_eq!(set[0]["params"]["type"], "boolean");
    assert_eq!(set[0]["params"]["value"], true);
}

#[test]
fn the_checker_rejects_what_the_schema_rejects() {
    let check = common::checker();
    // A prompt without its `prompt` field, and a session update of an unknown kind.
    let bad = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
            "params": {"sessionId": "s"}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": "s", "update": {"sessionUpdate": "nonsense"}}}),
    ];
    for message in bad {
        assert!(check(&message, None).is_err(), "accepted {message}");
    }
    // A prompt's result without its stop reason (it would pass as another method's result).
    let result = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {}});
    assert!(check(&result, Some("session/prompt")).is_err());
    assert_eq!(check(&result, Some("session/close")), Ok(()));
    let good = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
        "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}});
    assert_eq!(check(&good, None), Ok(()));
}
