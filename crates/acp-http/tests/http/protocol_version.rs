//! `Acp-Protocol-Version` (the transport draft: clients should send it on every request after
//! `initialize`; its value is the version `initialize` negotiated): our client sends it on
//! every Streamable HTTP request of an initialized connection, and our server refuses a
//! request that names another version, or no version number at all, and takes one without it.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;
use crate::common;

use std::sync::{Arc, Mutex};

use acp_http::PROTOCOL_VERSION;
use acp_http::client::{ConnectOptions, connect};
use acp_http::server::{AcpServer, AuthDecision, ServerOptions, serve};
use acp_types::*;
use common::{EchoAgent, Raw, TestServer, new_session, request, within};
use serde_json::{Value, json};

#[tokio::test]
async fn the_server_refuses_a_request_naming_another_protocol_version() {
    let server = TestServer::start(ServerOptions::default()).await;
    let mut raw = Raw::new(&server.url);
    raw.initialize().await;
    let new = request(1, "session/new", json!({"cwd": "/work", "mcpServers": []}));
    for (value, why) in [
        ("2", "not the version this connection negotiated (1)"),
        ("v1", "must be the number"),
        ("", "must be the number"),
    ] {
        let refused = raw.post(new.clone(), &[(PROTOCOL_VERSION, value)]).await;
        assert_eq!(refused.status, 400, "{value:?}: {refused:?}");
        assert!(refused.body.contains(why), "{value:?}: {}", refused.body);
    }
    let mut other = raw.clone();
    other.headers.push((PROTOCOL_VERSION.into(), "2".into()));
    let refused = other.stream(None).await.err().expect("a refused stream");
    assert_eq!(refused.status, 400, "{refused:?}");

    // The right version, and no version at all, pass.
    raw.headers.push((PROTOCOL_VERSION.into(), "1".into()));
    let mut stream = raw.stream(None).await.expect("the connection stream");
    new_session(&raw, &mut stream, 2).await;
    raw.headers.clear();
    new_session(&raw, &mut stream, 3).await;
    assert_eq!(raw.delete().await, 202);
    server.stop().await;
}

/// The requests a server saw: each one's HTTP method and `Acp-Protocol-Version` (if any).
type Seen = Vec<(String, Option<String>)>;

/// A server of echo agents whose every message is checked against the schema of `version`,
/// recording each request's `Acp-Protocol-Version` (`None` without one) by its HTTP method.
async fn recording(version: u16) -> (String, Arc<Mutex<Seen>>) {
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let record = seen.clone();
    let options = ServerOptions::default()
        .observe(move |_, bytes| {
            if let Ok(message) = serde_json::from_slice::<Value>(bytes) {
                common::check_version(&message, version);
            }
        })
        .auth(move |headers| {
            let sent = headers
                .get(PROTOCOL_VERSION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            // The guard sees no method: a POST has a body type, a GET an `Accept`.
            let kind = match headers.get("accept").and_then(|v| v.to_str().ok()) {
                Some("text/event-stream") => "GET",
                _ if headers.contains_key("content-type") => "POST",
                _ => "DELETE",
            };
            record.lock().unwrap().push((kind.to_owned(), sent));
            AuthDecision::Allow
        });
    let server = AcpServer::new(EchoAgent::new, options);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/acp", listener.local_addr().unwrap());
    tokio::spawn(serve(listener, server, std::future::pending()));
    (url, seen)
}

/// Runs `turn` on a connection of our client to `url`, closes it, and returns what the server
/// recorded.
async fn with_client<F: Future<Output = ()>>(
    url: &str,
    seen: &Mutex<Seen>,
    turn: impl FnOnce(acp_client::AgentHandle) -> F,
) -> Seen {
    let editor = client_support::Editor::default();
    let (agent, driver) = within(
        "connect",
        connect(url, editor.factory(), ConnectOptions::default()),
    )
    .await
    .expect("connected");
    let connection = driver.connection();
    let running = tokio::spawn(driver);
    turn(agent).await;
    connection.close();
    within("the driver's end", running)
        .await
        .expect("no panic")
        .expect("a clean end");
    std::mem::take(&mut *seen.lock().unwrap())
}

/// Every request after the first (`initialize`) carried `version`, and the first none.
fn assert_sent_after_initialize(seen: &[(String, Option<String>)], version: &str) {
    let (first, rest) = seen.split_first().expect("requests");
    assert_eq!(first, &("POST".to_owned(), None), "{seen:?}");
    assert!(
        rest.len() >= 4
            && ["GET", "POST", "DELETE"]
                .iter()
                .all(|kind| rest.iter().any(|(k, _)| k == kind)),
        "{seen:?}"
    );
    for (kind, sent) in rest {
        assert_eq!(sent.as_deref(), Some(version), "{kind}: {seen:?}");
    }
}

#[tokio::test]
async fn the_client_names_the_negotiated_version_after_initialize() {
    let (url, seen) = recording(1).await;
    let seen = with_client(&url, &seen, |agent| async move {
        within(
            "initialize",
            agent.initialize(InitializeRequest::new(ProtocolVersion::V1)),
        )
        .await
        .expect("initialized");
        let session = within(
            "session/new",
            agent.new_session(client_support::new_session()),
        )
        .await
        .expect("a session")
        .session_id;
        within(
            "the prompt",
            agent.prompt(client_support::prompt(&session, "hi")),
        )
        .await
        .expect("the turn");
    })
    .await;
    assert_sent_after_initialize(&seen, "1");
}

#[cfg(feature = "unstable_protocol_v2")]
#[tokio::test]
async fn a_client_that_negotiated_v2_names_version_2() {
    let (url, seen) = recording(2).await;
    let seen = with_client(&url, &seen, |agent| async move {
        let mut v2_request = v2::InitializeRequest::new(2u16, Implementation::new("test", "0.1.0"));
        v2_request.capabilities = Some(v2::ClientCapabilities::new());
        let negotiated = within(
            "negotiate",
            agent.negotiate(v2_request, InitializeRequest::new(ProtocolVersion::V1)),
        )
        .await
        .expect("negotiated");
        assert_eq!(negotiated.protocol_version(), ProtocolVersion(2));
        let v2 = agent.v2().expect("a v2 connection");
        let session = within(
            "session/new",
            v2.new_session(v2::NewSessionRequest::new("/work")),
        )
        .await
        .expect("a session")
        .session_id;
        let end = within(
            "the prompt",
            v2.prompt(v2::PromptRequest::new(
                session,
                vec![v2::ContentBlock::from("hi")],
            )),
        )
        .await
        .expect("the turn");
        assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
    })
    .await;
    assert_sent_after_initialize(&seen, "2");
}
