//! The client against this crate's own server, end to end, over every profile: Streamable HTTP
//! (HTTP/1.1 and h2c), WebSocket, and the `client_id` profile; authentication; and a reconnect
//! that loads the session on a new connection.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;
use crate::common::echo;

use acp_client::AgentHandle;
use acp_http::client::{ConnectOptions, Error, Profile, RemoteDriver, connect};
use acp_http::server::{AcpServer, ServerOptions, serve};
use acp_types::*;
use serde_json::Value;

use client_support::*;
use echo::EchoAgent;

/// A server on 127.0.0.1 whose every message, both ways, is checked against the schema.
async fn start(options: ServerOptions) -> (AcpServer, String) {
    let options = options.observe(|_, bytes| {
        if let Ok(message) = serde_json::from_slice::<Value>(bytes) {
            check(&message);
        }
    });
    let server = AcpServer::new(EchoAgent::new, options);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve(listener, server.clone(), std::future::pending()));
    (server, format!("{addr}"))
}

async fn connected(
    url: &str,
    editor: &Editor,
    options: ConnectOptions,
) -> (AgentHandle, RemoteDriver) {
    within("connect", connect(url, editor.factory(), options))
        .await
        .unwrap()
}

/// [`echo_session`] with a cancelled turn, then the server lets the connection go (DELETE, or
/// the WebSocket's close).
async fn a_full_session(url: &str, options: ConnectOptions, server: &AcpServer) {
    if echo_session(url, options, true).await == Profile::ClientId {
        // The profile has no goodbye: the server forgets idle clients on its own.
        return;
    }
    within("the server to drop the connection", async {
        while server.connection_count() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await;
}

#[tokio::test]
async fn streamable_http_over_http1() {
    let (server, addr) = start(ServerOptions::default()).await;
    a_full_session(
        &format!("http://{addr}/acp"),
        ConnectOptions::default(),
        &server,
    )
    .await;
}

#[tokio::test]
async fn streamable_http_over_h2c() {
    let (server, addr) = start(ServerOptions::default()).await;
    let options = ConnectOptions::default().http2_prior_knowledge(true);
    a_full_session(&format!("http://{addr}/acp"), options, &server).await;
}

#[tokio::test]
async fn websocket() {
    let (server, addr) = start(ServerOptions::default()).await;
    a_full_session(
        &format!("ws://{addr}/acp"),
        ConnectOptions::default(),
        &server,
    )
    .await;
}

#[tokio::test]
async fn the_client_id_profile() {
    let (server, addr) = start(ServerOptions::default().client_id_profile(true)).await;
    let options = ConnectOptions::default().profile(Profile::ClientId);
    a_full_session(&format!("http://{addr}"), options, &server).await;
}

#[tokio::test]
async fn a_bearer_token_on_every_request_and_the_handshake() {
    let (server, addr) = start(ServerOptions::default().bearer_token("s3cret").unwrap()).await;
    let with_token = || ConnectOptions::default().bearer_token("s3cret").unwrap();
    a_full_session(&format!("http://{addr}/acp"), with_token(), &server).await;
    a_full_session(&format!("ws://{addr}/acp"), with_token(), &server).await;

    // Without it: initialize fails with the 401, and so does the connection.
    let (agent, driver) = connected(
        &format!("http://{addr}/acp"),
        &Editor::default(),
        ConnectOptions::default(),
    )
    .await;
    let running = tokio::spawn(driver);
    let e = within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap_err();
    let (_, data, _) = remote_error(&e);
    assert_eq!(data["status"], 401);
    let end = within("the driver", running).await.unwrap().unwrap_err();
    assert!(matches!(end, Error::Status { status: 401, .. }), "{end:?}");
    let e = connect(
        &format!("ws://{addr}/acp"),
        Editor::default().factory(),
        ConnectOptions::default(),
    )
    .await
    .map(|_| ())
    .unwrap_err();
    assert!(matches!(e, Error::Status { status: 401, .. }), "{e:?}");
}

#[tokio::test]
async fn a_new_connection_loads_the_session_of_an_old_one() {
    let (_server, addr) = start(ServerOptions::default()).await;
    let url = format!("http://{addr}/acp");
    let first = Editor::default();
    let (agent, driver) = connected(&url, &first, ConnectOptions::default()).await;
    let connection = driver.connection();
    let running = tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    let session = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap()
        .session_id;
    connection.close();
    within("the first driver", running).await.unwrap().unwrap();

    // The session stream opens before `session/load` (the server lets a client listen to a
    // session it does not know yet), so the replay arrives on it.
    let second = Editor::default();
    let (agent, driver) = connected(&url, &second, ConnectOptions::default()).await;
    let running = tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
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
    within("the replayed update", async {
        while second.texts().is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await;
    assert_eq!(second.texts(), ["replayed"]);
    let done = within("hello", agent.prompt(prompt(&session, "hello")))
        .await
        .unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert!(!running.is_finished());
}
