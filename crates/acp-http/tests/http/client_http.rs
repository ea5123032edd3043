//! The Streamable HTTP client against fake agent servers: the happy path, what goes on the
//! wire (headers, order, cookies, DELETE), and lenient input.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_http::client::{ConnectOptions, Error, connect};
use acp_types::*;
use axum::http::Method;
use serde_json::{Value, json};

use client_support::*;

/// The text of a prompt POST.
fn prompt_text(request: &Request) -> String {
    request.message.as_ref().unwrap()["params"]["prompt"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_session_with_updates_a_permission_request_and_cancel() {
    let turn = Arc::new(Mutex::new(None::<Value>));
    let t = turn.clone();
    let fake = Fake::start(agent(move |request, streams| {
        match request.method_name() {
            Some("session/prompt") => {
                *t.lock().unwrap() = Some(request.id());
                streams.send("s-1", &chunk("s-1", "thinking"));
                if prompt_text(request) == "ask" {
                    streams.send("s-1", &permission_request(100, "s-1"));
                }
            }
            Some("session/cancel") => {
                let id = t.lock().unwrap().take().unwrap();
                streams.send("s-1", &stop(&id, "cancelled"));
            }
            None if request.answers(100) => {
                let id = t.lock().unwrap().take().unwrap();
                streams.send("s-1", &chunk("s-1", "allowed"));
                streams.send("s-1", &stop(&id, "end_turn"));
            }
            _ => {}
        }
        Reply::accepted()
    }))
    .await;
    let editor = Editor::default();
    let options = ConnectOptions::default().bearer_token("t0ken").unwrap();
    let (agent, driver) = within("connect", connect(&fake.url(), editor.factory(), options))
        .await
        .unwrap();
    let connection = driver.connection();
    assert_eq!(connection.connection_id(), None);
    let running = tokio::spawn(driver);

    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    assert_eq!(connection.connection_id().as_deref(), Some("conn-1"));
    let session = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap();
    assert_eq!(session.session_id, SessionId::from("s-1"));
    let done = within(
        "the prompt",
        agent.prompt(prompt(&session.session_id, "ask")),
    )
    .await
    .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert_eq!(editor.texts(), ["thinking", "allowed"]);
    assert_eq!(editor.seen.lock().unwrap().permissions.len(), 1);

    // A turn cancelled while it runs.
    let waiting = tokio::spawn({
        let agent = agent.clone();
        let session = session.session_id.clone();
        async move { agent.prompt(prompt(&session, "wait")).await }
    });
    fake.wait_for("the second prompt", |r| {
        r.method_name() == Some("session/prompt") && prompt_text(r) == "wait"
    })
    .await;
    within(
        "cancel",
        agent.cancel(CancelNotification::new(session.session_id.clone())),
    )
    .await
    .unwrap();
    let done = within("the cancelled turn", waiting)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(done.stop_reason, StopReason::Cancelled);

    connection.close();
    assert!(connection.is_closed());
    within("the driver", running).await.unwrap().unwrap();
    let delete = fake
        .wait_for("DELETE", |r| r.method == Method::DELETE)
        .await;
    assert_eq!(delete.connection(), Some("conn-1"));

    // What went on the wire, in order.
    let log = fake.log();
    let position = |what: &str, pred: &dyn Fn(&Request) -> bool| {
        log.iter()
            .position(pred)
            .unwrap_or_else(|| panic!("no {what}"))
    };
    for request in &log {
        assert_eq!(request.header("authorization"), Some("Bearer t0ken"));
    }
    let init = fake.post_of("initialize");
    assert_eq!(init.connection(), None);
    assert_eq!(init.header("content-type"), Some("application/json"));
    for request in log.iter().filter(|r| r.method_name() != Some("initialize")) {
        assert_eq!(request.connection(), Some("conn-1"), "{request:?}");
        assert_eq!(
            request.header("cookie"),
            Some("affinity=node-7"),
            "{request:?}"
        );
    }
    let connection_stream = position("connection stream", &|r| {
        r.method == Method::GET && r.session().is_none()
    });
    assert_eq!(
        log[connection_stream].header("accept"),
        Some("text/event-stream")
    );
    let session_stream = position("session stream", &|r| {
        r.method == Method::GET && r.session() == Some("s-1")
    });
    assert!(
        connection_stream < position("session/new", &|r| r.method_name() == Some("session/new"))
    );
    assert!(session_stream < position("prompt", &|r| r.method_name() == Some("session/prompt")));
    assert_eq!(fake.post_of("session/new").session(), None);
    assert_eq!(fake.post_of("session/prompt").session(), Some("s-1"));
    assert_eq!(fake.post_of("session/cancel").session(), Some("s-1"));
    let answer = fake.posts().into_iter().find(|r| r.answers(100)).unwrap();
    assert_eq!(answer.session(), Some("s-1"));
    assert_eq!(
        answer.message.unwrap()["result"]["outcome"],
        json!({"outcome": "selected", "optionId": "allow"})
    );
    assert_eq!(fake.streams().opened("s-1"), 1);
}

#[tokio::test]
async fn answers_count_on_any_stream_and_in_post_bodies() {
    let fake = Fake::start(Arc::new(|request: &Request, streams: &Streams| {
        match request.method_name() {
            Some("initialize") => Reply::json(200, &initialize_result(&request.id()))
                .header("acp-connection-id", "conn-1"),
            // The answer in the POST's own body, with 200.
            Some("session/new") => {
                Reply::json(200, &result(&request.id(), json!({"sessionId": "s-9"})))
            }
            // The update on the session stream, the answer on the connection's.
            Some("session/prompt") => {
                streams.send("s-9", &chunk("s-9", "hello"));
                streams.send("", &stop(&request.id(), "end_turn"));
                Reply::accepted()
            }
            _ => Reply::accepted(),
        }
    }))
    .await;
    let editor = Editor::default();
    let (agent, driver) = connect(&fake.url(), editor.factory(), ConnectOptions::default())
        .await
        .unwrap();
    tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    let session = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap();
    // The result named a new session: its stream opens at once, before any message for it.
    fake.wait_for("the session stream", |r| r.session() == Some("s-9"))
        .await;
    let done = within(
        "the prompt",
        agent.prompt(prompt(&session.session_id, "hi")),
    )
    .await
    .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    within("the update", async {
        while editor.texts().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert_eq!(editor.texts(), ["hello"]);
    assert_eq!(fake.streams().opened("s-9"), 1);
}

#[tokio::test]
async fn sse_comments_fields_line_ends_and_non_objects_are_taken_leniently() {
    let fake = Fake::start(agent(|request, streams| {
        if request.method_name() == Some("session/prompt") {
            let update = chunk("s-1", "joined").to_string();
            let (head, tail) = update.split_at(update.find(",\"method\"").unwrap() + 1);
            let noise = format!(
                "\u{feff}: a comment\r\n:\r\nevent: message\r\nid: 7\r\nretry: 100\r\n\
                 data: {head}\r\ndata: {tail}\r\n\r\n\
                 data: [1,2]\n\ndata: 42\n\ndata: not json\n\nevent: empty\n\n\
                 data:{}\r\r",
                stop(&request.id(), "end_turn")
            );
            check(&chunk("s-1", "joined"));
            check(&stop(&request.id(), "end_turn"));
            streams.raw("s-1", &noise);
        }
        Reply::accepted()
    }))
    .await;
    let editor = Editor::default();
    let (agent, driver) = connect(&fake.url(), editor.factory(), ConnectOptions::default())
        .await
        .unwrap();
    tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    let session = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap();
    let done = within(
        "the prompt",
        agent.prompt(prompt(&session.session_id, "hi")),
    )
    .await
    .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert_eq!(editor.texts(), ["joined"]);
}

#[tokio::test]
async fn the_first_message_must_be_initialize() {
    let fake = Fake::start(agent(|_, _| Reply::accepted())).await;
    let (agent, driver) = connect(
        &fake.url(),
        Editor::default().factory(),
        ConnectOptions::default(),
    )
    .await
    .unwrap();
    tokio::spawn(driver);
    let e = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap_err();
    let (code, _, message) = remote_error(&e);
    assert_eq!(code, -32603);
    assert!(
        message.contains("first message must be `initialize`"),
        "{message}"
    );
    assert!(fake.log().is_empty());
    // The connection is still usable.
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn initialize_answered_without_a_connection_id_fails_the_connection() {
    let fake = Fake::start(Arc::new(|request: &Request, _: &Streams| {
        Reply::json(200, &initialize_result(&request.id()))
    }))
    .await;
    let (agent, driver) = connect(
        &fake.url(),
        Editor::default().factory(),
        ConnectOptions::default(),
    )
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
    assert!(message.contains("did not answer initialize"), "{message}");
    assert!(message.contains("Acp-Connection-Id"), "{message}");
    let end = within("the driver", running).await.unwrap().unwrap_err();
    assert!(matches!(end, Error::Initialize { .. }), "{end:?}");
    assert!(end.to_string().contains(&fake.url()), "{end}");
}

#[tokio::test]
async fn an_initialize_error_is_handed_on_and_initialize_may_be_tried_again() {
    let tries = Arc::new(Mutex::new(0));
    let fake = Fake::start(Arc::new(move |request: &Request, _: &Streams| {
        let mut tries = tries.lock().unwrap();
        *tries += 1;
        if *tries == 1 {
            // As the Rust SDK's server does: 200, the error, no connection id.
            Reply::json(
                200,
                &error(&request.id(), -32000, "Authentication required"),
            )
        } else {
            Reply::json(200, &initialize_result(&request.id())).header("acp-connection-id", "c2")
        }
    }))
    .await;
    let (agent, driver) = connect(
        &fake.url(),
        Editor::default().factory(),
        ConnectOptions::default(),
    )
    .await
    .unwrap();
    let connection = driver.connection();
    tokio::spawn(driver);
    let e = within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap_err();
    assert_eq!(remote_error(&e).0, -32000);
    assert_eq!(connection.connection_id(), None);
    within(
        "initialize again",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    assert_eq!(connection.connection_id().as_deref(), Some("c2"));
}

#[tokio::test]
async fn dropping_the_driver_sends_delete() {
    let fake = Fake::start(agent(|_, _| Reply::accepted())).await;
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
    running.abort();
    let delete = fake
        .wait_for("DELETE", |r| r.method == Method::DELETE)
        .await;
    assert_eq!(delete.connection(), Some("conn-1"));
    // Calls fail at once after that.
    let e = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap_err();
    assert!(e.remote().is_none(), "{e:?}");
}

#[tokio::test]
async fn an_event_over_the_message_limit_is_skipped() {
    let fake = Fake::start(agent(|request, streams| {
        if request.method_name() == Some("session/prompt") {
            streams.send("s-1", &chunk("s-1", &"x".repeat(2000)));
            streams.send("s-1", &chunk("s-1", "small"));
            streams.send("s-1", &stop(&request.id(), "end_turn"));
        }
        Reply::accepted()
    }))
    .await;
    let editor = Editor::default();
    let options = ConnectOptions::default().max_message_bytes(1024);
    let (agent, driver) = connect(&fake.url(), editor.factory(), options)
        .await
        .unwrap();
    tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    let session = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap();
    let done = within(
        "the prompt",
        agent.prompt(prompt(&session.session_id, "hi")),
    )
    .await
    .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert_eq!(editor.texts(), ["small"]);
}

#[test]
fn the_connect_future_the_driver_and_the_connection_can_move_between_threads() {
    fn is_send<T: Send>(_: &T) {}
    fn is_send_sync_static<T: Send + Sync + 'static>() {}
    let connecting = connect(
        "http://127.0.0.1:1/acp",
        Editor::default().factory(),
        ConnectOptions::default(),
    );
    is_send(&connecting);
    is_send_sync_static::<acp_http::client::Connection>();
    fn is_send_static<T: Send + 'static>() {}
    is_send_static::<acp_http::client::RemoteDriver>();
}
