//! How the Streamable HTTP client maps failures: `409` fails a session, `401`/`403`/`404`/
//! `410` and lost connection streams end the connection, other statuses fail one request, and
//! pending calls never hang.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::{Arc, Mutex};

use acp_client::AgentHandle;
use acp_http::client::{ConnectOptions, Error, RemoteDriver, connect};
use acp_types::*;
use serde_json::json;
use tokio::task::JoinHandle;

use client_support::*;

/// Connects an editor to `fake`, initializes, and opens session `s-1`.
async fn session(fake: &Fake) -> (AgentHandle, JoinHandle<Result<(), Error>>, SessionId) {
    let (agent, driver) = connect(
        &fake.url(),
        Editor::default().factory(),
        ConnectOptions::default(),
    )
    .await
    .unwrap();
    let running = tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    let session = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap();
    (agent, running, session.session_id)
}

/// Starts a prompt that the fake agent never answers; returns once it was posted.
async fn pending_prompt(
    fake: &Fake,
    agent: &AgentHandle,
    session: &SessionId,
) -> JoinHandle<Result<PromptResponse, acp_client::Error>> {
    let prompts = |fake: &Fake| {
        fake.posts()
            .iter()
            .filter(|r| r.method_name() == Some("session/prompt"))
            .count()
    };
    let before = prompts(fake);
    let turn = tokio::spawn({
        let agent = agent.clone();
        let session = session.clone();
        async move { agent.prompt(prompt(&session, "wait")).await }
    });
    within("the prompt POST", async {
        while prompts(fake) == before {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await;
    turn
}

fn set_mode(session: &SessionId) -> SetSessionModeRequest {
    SetSessionModeRequest::new(session.clone(), "fast")
}

/// The driver's end, which must come promptly.
async fn driver_error(running: JoinHandle<Result<(), Error>>) -> Error {
    within("the driver to end", running)
        .await
        .unwrap()
        .unwrap_err()
}

#[tokio::test]
async fn a_409_fails_the_session_until_it_is_loaded_again() {
    let prompts = Arc::new(Mutex::new(0));
    let p = prompts.clone();
    let fake = Fake::start(agent(move |request, streams| match request.method_name() {
        Some("session/prompt") => {
            let mut prompts = p.lock().unwrap();
            *prompts += 1;
            if *prompts == 1 {
                Reply::text(409, "session s-1 is busy elsewhere")
            } else {
                streams.send("s-1", &stop(&request.id(), "end_turn"));
                Reply::accepted()
            }
        }
        Some("session/load") => {
            streams.send("s-1", &chunk("s-1", "replayed"));
            streams.send("", &result(&request.id(), json!({})));
            Reply::accepted()
        }
        _ => Reply::accepted(),
    }))
    .await;
    let (agent, _running, session) = session(&fake).await;
    let e = within("the prompt", agent.prompt(prompt(&session, "one")))
        .await
        .unwrap_err();
    let (code, _, message) = remote_error(&e);
    assert_eq!(code, -32603);
    assert!(message.contains("409"), "{message}");
    assert!(message.contains("busy elsewhere"), "{message}");

    // The session stays failed: no POST, an error at once.
    let e = within("the second prompt", agent.prompt(prompt(&session, "two")))
        .await
        .unwrap_err();
    let (code, _, message) = remote_error(&e);
    assert_eq!(code, -32603);
    assert!(message.contains("session/load"), "{message}");
    assert_eq!(*prompts.lock().unwrap(), 1);

    // Until it is loaded again.
    within(
        "session/load",
        agent.load_session(LoadSessionRequest::new(
            session.clone(),
            "/tmp",
            Vec::<McpServer>::new(),
        )),
    )
    .await
    .unwrap();
    assert_eq!(fake.post_of("session/load").session(), Some("s-1"));
    let done = within("the third prompt", agent.prompt(prompt(&session, "three")))
        .await
        .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    // The session's stream stayed open throughout.
    assert_eq!(fake.streams().opened("s-1"), 1);
}

#[tokio::test]
async fn a_409_for_the_session_stream_fails_the_session() {
    let fake = Fake::start_with(
        agent(|_, _| Reply::accepted()),
        Some(Arc::new(|request: &Request, _: &Streams| {
            (request.session() == Some("s-1"))
                .then(|| Reply::text(409, "Outbound stream already has an active receiver"))
        })),
        false,
    )
    .await;
    let (agent, running, session) = session(&fake).await;
    let e = within("the prompt", agent.prompt(prompt(&session, "hi")))
        .await
        .unwrap_err();
    let (code, _, message) = remote_error(&e);
    assert_eq!(code, -32603);
    assert!(message.contains("409"), "{message}");
    // Nothing was posted for the session, and the connection lives on.
    assert!(fake.posts().iter().all(|r| r.session().is_none()));
    assert!(!running.is_finished());
    let e = within(
        "cancel",
        agent.cancel(CancelNotification::new(session.clone())),
    )
    .await;
    assert!(e.is_ok());
    within("session/new", agent.new_session(new_session()))
        .await
        .unwrap();
}

#[tokio::test]
async fn statuses_401_403_404_410_end_the_connection_and_pending_calls_fail_at_once() {
    for status in [401, 403, 404, 410] {
        let fake = Fake::start(agent(move |request, _| match request.method_name() {
            Some("session/set_mode") => Reply::text(status, "Unknown Acp-Connection-Id"),
            _ => Reply::accepted(),
        }))
        .await;
        let (agent, running, session) = session(&fake).await;
        let turn = pending_prompt(&fake, &agent, &session).await;
        let e = within("set_mode", agent.set_session_mode(set_mode(&session)))
            .await
            .unwrap_err();
        let (code, data, _) = remote_error(&e);
        assert_eq!(code, -32603);
        assert_eq!(data["status"], json!(status));
        // The pending prompt fails too, without an answer from the agent.
        let e = within("the pending prompt", turn)
            .await
            .unwrap()
            .unwrap_err();
        assert!(e.remote().is_none(), "{e:?}");
        match driver_error(running).await {
            Error::Status {
                status: s, body, ..
            } => {
                assert_eq!(s, status);
                assert_eq!(body, "Unknown Acp-Connection-Id");
            }
            other => panic!("{status}: {other:?}"),
        }
        // And later calls fail at once.
        let e = within("after the end", agent.new_session(new_session()))
            .await
            .unwrap_err();
        assert!(e.remote().is_none(), "{e:?}");
    }
}

#[tokio::test]
async fn another_status_fails_only_that_request_with_the_status_and_a_body_excerpt() {
    let long = "x".repeat(20_000);
    let body = long.clone();
    let fake = Fake::start(agent(move |request, streams| match request.method_name() {
        Some("session/set_mode") => Reply::text(500, "mode switch broke"),
        Some("session/set_config_option") => Reply::text(503, &body),
        Some("session/prompt") => {
            streams.send("s-1", &stop(&request.id(), "end_turn"));
            Reply::accepted()
        }
        _ => Reply::accepted(),
    }))
    .await;
    let (agent, running, session) = session(&fake).await;
    let e = within("set_mode", agent.set_session_mode(set_mode(&session)))
        .await
        .unwrap_err();
    let (code, data, message) = remote_error(&e);
    assert_eq!(code, -32603);
    assert_eq!(data, json!({"status": 500, "body": "mode switch broke"}));
    assert!(message.contains("500"), "{message}");
    assert!(message.contains(&fake.url()), "{message}");

    let e = within(
        "set_config_option",
        agent.set_session_config_option(SetSessionConfigOptionRequest::new(
            session.clone(),
            "model",
            SessionConfigOptionValue::ValueId("large".into()),
        )),
    )
    .await
    .unwrap_err();
    let (_, data, _) = remote_error(&e);
    assert_eq!(data["status"], json!(503));
    let excerpt = data["body"].as_str().unwrap();
    assert_eq!(excerpt.len(), 8 * 1024);
    assert!(long.starts_with(excerpt));

    // The connection is fine.
    let done = within("the prompt", agent.prompt(prompt(&session, "hi")))
        .await
        .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert!(!running.is_finished());
}

#[tokio::test]
async fn a_failed_notification_post_ends_the_connection() {
    let fake = Fake::start(agent(|request, _| match request.method_name() {
        Some("session/cancel") => Reply::text(500, "cannot cancel"),
        _ => Reply::accepted(),
    }))
    .await;
    let (agent, running, session) = session(&fake).await;
    let turn = pending_prompt(&fake, &agent, &session).await;
    within(
        "cancel",
        agent.cancel(CancelNotification::new(session.clone())),
    )
    .await
    .unwrap();
    let e = within("the pending prompt", turn)
        .await
        .unwrap()
        .unwrap_err();
    assert!(e.remote().is_none(), "{e:?}");
    assert!(matches!(
        driver_error(running).await,
        Error::Status { status: 500, .. }
    ));
}

#[tokio::test]
async fn losing_the_connection_stream_ends_the_connection() {
    let fake = Fake::start(agent(|_, _| Reply::accepted())).await;
    let (agent, running, session) = session(&fake).await;
    let turn = pending_prompt(&fake, &agent, &session).await;
    fake.streams().end("");
    let e = within("the pending prompt", turn)
        .await
        .unwrap()
        .unwrap_err();
    assert!(e.remote().is_none(), "{e:?}");
    let end = driver_error(running).await;
    assert!(matches!(end, Error::StreamEnded { .. }), "{end:?}");
    assert!(
        end.to_string()
            .contains("ended the connection's event stream")
    );
}

#[tokio::test]
async fn a_session_stream_ending_fails_its_pending_requests_and_opens_again() {
    let fake = Fake::start(agent(|request, streams| {
        if request.method_name() == Some("session/prompt") {
            let text = request.message.as_ref().unwrap()["params"]["prompt"][0]["text"].clone();
            if text != json!("wait") {
                streams.send("s-1", &stop(&request.id(), "end_turn"));
            }
        }
        Reply::accepted()
    }))
    .await;
    let (agent, running, session) = session(&fake).await;
    let turn = pending_prompt(&fake, &agent, &session).await;
    fake.streams().end("s-1");
    let e = within("the pending prompt", turn)
        .await
        .unwrap()
        .unwrap_err();
    let (code, _, message) = remote_error(&e);
    assert_eq!(code, -32603);
    assert!(message.contains("event stream ended"), "{message}");
    // The next message for the session opens its stream again.
    let done = within("the next prompt", agent.prompt(prompt(&session, "hi")))
        .await
        .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert_eq!(fake.streams().opened("s-1"), 2);
    assert!(!running.is_finished());
}

#[tokio::test]
async fn an_unreachable_agent_fails_initialize_and_the_connection() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/acp", listener.local_addr().unwrap());
    drop(listener);
    let (agent, driver) = connect(&url, Editor::default().factory(), ConnectOptions::default())
        .await
        .unwrap();
    let running = tokio::spawn(driver);
    let e = within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap_err();
    let (code, _, message) = remote_error(&e);
    assert_eq!(code, -32603);
    assert!(
        message.starts_with(&format!("POST {url} failed")),
        "{message}"
    );
    assert!(matches!(
        driver_error(running).await,
        Error::Transport { action: "POST", .. }
    ));
}

#[tokio::test]
async fn an_answer_to_an_agent_request_from_the_connection_stream_has_no_session_header() {
    let fake = Fake::start(agent(|request, streams| {
        if request.method_name() == Some("session/prompt") {
            // A request that names the session, but comes on the connection stream.
            streams.send("", &permission_request(7, "s-1"));
        }
        Reply::accepted()
    }))
    .await;
    let (agent, _running, session) = session(&fake).await;
    let _turn = pending_prompt(&fake, &agent, &session).await;
    let answer = fake.wait_for("the answer", |r| r.answers(7)).await;
    assert_eq!(answer.session(), None);
    assert_eq!(answer.connection(), Some("conn-1"));
}

#[tokio::test]
async fn connect_refuses_urls_it_cannot_use() {
    // Without TLS, `https` and `wss` too (with it, see `client_tls.rs`).
    let secure: &[_] = if cfg!(feature = "client-tls") {
        &[]
    } else {
        &[
            ("https://127.0.0.1/acp", None),
            ("wss://127.0.0.1/acp", None),
        ]
    };
    for (url, profile) in [
        ("not a url", None),
        ("ftp://127.0.0.1/acp", None),
        (
            "ws://127.0.0.1/acp",
            Some(acp_http::client::Profile::StreamableHttp),
        ),
        (
            "ws://127.0.0.1/acp",
            Some(acp_http::client::Profile::ClientId),
        ),
    ]
    .iter()
    .chain(secure)
    {
        let mut options = ConnectOptions::default();
        options.profile = *profile;
        let result = connect(url, Editor::default().factory(), options).await;
        let e = result
            .map(|(_, d): (AgentHandle, RemoteDriver)| d)
            .unwrap_err();
        assert!(matches!(e, Error::InvalidUrl { .. }), "{url}: {e:?}");
        assert!(e.to_string().contains(url), "{e}");
    }
}

#[tokio::test]
async fn a_silent_stream_counts_as_lost_after_the_idle_timeout() {
    let fake = Fake::start(agent(|_, _| Reply::accepted())).await;
    let options =
        ConnectOptions::default().stream_idle_timeout(Some(std::time::Duration::from_millis(300)));
    let (agent, driver) = connect(&fake.url(), Editor::default().factory(), options)
        .await
        .unwrap();
    let running = tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    // Keep-alive comments keep it alive...
    for _ in 0..4 {
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        fake.streams().raw("", ":\n\n");
    }
    assert!(!running.is_finished());
    // ...silence does not.
    match driver_error(running).await {
        Error::Timeout { action, .. } => assert_eq!(action, "GET (stream idle)"),
        other => panic!("{other:?}"),
    }
}
