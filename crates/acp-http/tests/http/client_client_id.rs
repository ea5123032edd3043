//! The `client_id` profile (elephant.ai's `alex acp serve`) against a fake of it:
//! `POST /acp/rpc?client_id=…` answered 202 (204 for responses), everything from the agent on
//! `GET /acp/sse?client_id=…`, which opens first and starts with `: connected`.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::{Arc, Mutex};

use acp_http::client::{ConnectOptions, Error, Profile, connect};
use acp_types::*;
use axum::http::Method;
use serde_json::{Value, json};

use client_support::*;

fn client_id_agent() -> OnPost {
    let turn = Arc::new(Mutex::new(Value::Null));
    Arc::new(move |request: &Request, streams: &Streams| {
        let id = request.id();
        match request.method_name() {
            Some("initialize") => streams.send("", &initialize_result(&id)),
            Some("session/new") => {
                streams.raw("", ": ping\n\n");
                streams.send("", &result(&id, json!({"sessionId": "session-abc"})));
            }
            Some("session/prompt") => {
                *turn.lock().unwrap() = id;
                streams.send("", &chunk("session-abc", "thinking"));
                streams.raw("", ": ping\n\n");
                streams.send("", &permission_request(100, "session-abc"));
            }
            None if request.answers(100) => {
                streams.send("", &chunk("session-abc", "allowed"));
                streams.send("", &stop(&turn.lock().unwrap(), "end_turn"));
                // Responses are acknowledged with 204.
                return Reply::status(204);
            }
            _ => {}
        }
        Reply::accepted()
    })
}

#[tokio::test]
async fn a_session_in_the_client_id_profile() {
    let fake = Fake::start_with(client_id_agent(), None, true).await;
    let options = ConnectOptions::default().profile(Profile::ClientId);
    let editor = Editor::default();
    let (agent, driver) = within("connect", connect(&fake.base(), editor.factory(), options))
        .await
        .unwrap();
    let connection = driver.connection();
    let client_id = connection.connection_id().unwrap();
    assert_eq!(client_id.len(), 32);
    assert!(client_id.bytes().all(|b| b.is_ascii_hexdigit()));
    // The stream is open before anything is posted.
    assert_eq!(fake.log().len(), 1);
    assert_eq!(fake.log()[0].method, Method::GET);
    assert_eq!(fake.log()[0].path, "/acp/sse");
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
    let done = within(
        "the prompt",
        agent.prompt(prompt(&session.session_id, "ask")),
    )
    .await
    .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert_eq!(editor.texts(), ["thinking", "allowed"]);

    connection.close();
    within("the driver", running).await.unwrap().unwrap();

    let log = fake.log();
    let query = format!("client_id={client_id}");
    for request in &log {
        assert_eq!(
            request.query.as_deref(),
            Some(query.as_str()),
            "{request:?}"
        );
        assert_eq!(request.connection(), None);
        assert_eq!(request.session(), None);
        let path = if request.method == Method::POST {
            "/acp/rpc"
        } else {
            "/acp/sse"
        };
        assert_eq!(request.path, path);
    }
    // One stream, and no DELETE: the profile has none.
    assert_eq!(log.iter().filter(|r| r.method == Method::GET).count(), 1);
    assert!(log.iter().all(|r| r.method != Method::DELETE));
    let methods: Vec<Option<&str>> = log.iter().skip(1).map(Request::method_name).collect();
    assert_eq!(
        methods,
        [
            Some("initialize"),
            Some("session/new"),
            Some("session/prompt"),
            None
        ]
    );
}

#[tokio::test]
async fn a_client_id_agent_refusing_the_stream_fails_connect() {
    let fake = Fake::start_with(
        client_id_agent(),
        Some(Arc::new(|_: &Request, _: &Streams| {
            Some(Reply::text(500, "transport unavailable"))
        })),
        true,
    )
    .await;
    let options = ConnectOptions::default().profile(Profile::ClientId);
    let e = within(
        "connect",
        connect(&fake.base(), Editor::default().factory(), options),
    )
    .await
    .map(|_| ())
    .unwrap_err();
    match e {
        Error::Status {
            action,
            status,
            body,
            url,
        } => {
            assert_eq!((action, status), ("GET", 500));
            assert_eq!(body, "transport unavailable");
            assert!(url.contains("/acp/sse?client_id="), "{url}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn the_end_of_the_client_id_stream_ends_the_connection() {
    let fake = Fake::start_with(client_id_agent(), None, true).await;
    let options = ConnectOptions::default().profile(Profile::ClientId);
    let (agent, driver) = connect(&fake.base(), Editor::default().factory(), options)
        .await
        .unwrap();
    let running = tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    fake.streams().end("");
    let end = within("the driver", running).await.unwrap().unwrap_err();
    assert!(matches!(end, Error::StreamEnded { .. }), "{end:?}");
}
