//! The WebSocket client against a tiny axum WebSocket agent: the handshake (headers, cookies,
//! `Acp-Connection-Id`), text frames both ways, binary frames ignored, and both ways of
//! closing.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::{Arc, Mutex};

use acp_http::client::{ConnectOptions, Error, Profile, connect};
use acp_types::*;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::Response;
use reqwest::Url;
use reqwest::cookie::Jar;
use serde_json::{Value, json};

use client_support::*;

/// What the WebSocket agent saw.
#[derive(Default)]
struct Log {
    handshake: Option<HeaderMap>,
    frames: Vec<Value>,
    closed_by_client: bool,
}

type Shared = Arc<Mutex<Log>>;

async fn upgrade(State(log): State<Shared>, headers: HeaderMap, ws: WebSocketUpgrade) -> Response {
    log.lock().unwrap().handshake = Some(headers);
    let mut response = ws.on_upgrade(move |socket| agent_socket(socket, log));
    response
        .headers_mut()
        .insert("acp-connection-id", "ws-1".parse().unwrap());
    response
}

async fn send(socket: &mut WebSocket, message: Value) {
    check(&message);
    socket
        .send(Message::Text(message.to_string().into()))
        .await
        .unwrap();
}

/// A small agent: `s-1`; a prompt `ask` asks permission first; `bye` makes the agent close
/// the socket; `wait` is never answered.
async fn agent_socket(mut socket: WebSocket, log: Shared) {
    let mut turn = Value::Null;
    while let Some(Ok(frame)) = socket.recv().await {
        let message: Value = match frame {
            Message::Text(text) => serde_json::from_str(&text).unwrap(),
            Message::Close(_) => {
                log.lock().unwrap().closed_by_client = true;
                return;
            }
            _ => continue,
        };
        check(&message);
        log.lock().unwrap().frames.push(message.clone());
        let id = message["id"].clone();
        match message["method"].as_str() {
            Some("initialize") => send(&mut socket, initialize_result(&id)).await,
            Some("session/new") => {
                send(&mut socket, result(&id, json!({"sessionId": "s-1"}))).await;
            }
            Some("session/prompt") => match message["params"]["prompt"][0]["text"].as_str() {
                Some("ask") => {
                    turn = id;
                    // Binary frames are not ACP: the client ignores them.
                    socket
                        .send(Message::Binary(vec![1, 2, 3].into()))
                        .await
                        .unwrap();
                    send(&mut socket, chunk("s-1", "thinking")).await;
                    send(&mut socket, permission_request(100, "s-1")).await;
                }
                Some("bye") => {
                    let _ = socket.send(Message::Close(None)).await;
                    return;
                }
                _ => {}
            },
            None if id == json!(100) => {
                send(&mut socket, chunk("s-1", "allowed")).await;
                send(&mut socket, stop(&turn, "end_turn")).await;
            }
            _ => {}
        }
    }
}

async fn start() -> (String, Shared) {
    let log = Shared::default();
    let app = axum::Router::new()
        .route("/acp", axum::routing::get(upgrade))
        .with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("ws://{addr}/acp"), log)
}

#[tokio::test]
async fn a_session_over_websocket() {
    let (url, log) = start().await;
    let jar = Arc::new(Jar::default());
    let http_url = Url::parse(&url.replace("ws://", "http://")).unwrap();
    jar.add_cookie_str("affinity=node-3; Path=/", &http_url);
    let options = ConnectOptions::default()
        .bearer_token("t0ken")
        .unwrap()
        .cookie_jar(jar);
    let editor = Editor::default();
    let (agent, driver) = within("connect", connect(&url, editor.factory(), options))
        .await
        .unwrap();
    let connection = driver.connection();
    assert_eq!(connection.profile(), Profile::WebSocket);
    assert_eq!(connection.connection_id().as_deref(), Some("ws-1"));
    let running = tokio::spawn(driver);
    {
        let log = log.lock().unwrap();
        let handshake = log.handshake.as_ref().unwrap();
        assert_eq!(handshake["authorization"], "Bearer t0ken");
        assert_eq!(handshake["cookie"], "affinity=node-3");
    }

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
    within("the close frame", async {
        while !log.lock().unwrap().closed_by_client {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await;
    // The frames, in order: initialize first.
    let methods: Vec<Value> = log
        .lock()
        .unwrap()
        .frames
        .iter()
        .map(|f| f.get("method").cloned().unwrap_or(Value::Null))
        .collect();
    assert_eq!(
        methods,
        [
            json!("initialize"),
            json!("session/new"),
            json!("session/prompt"),
            Value::Null
        ]
    );
}

#[tokio::test]
async fn the_agent_closing_the_socket_ends_the_connection_and_pending_calls() {
    let (url, _log) = start().await;
    let (agent, driver) = connect(&url, Editor::default().factory(), ConnectOptions::default())
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
    let e = within(
        "the prompt",
        agent.prompt(prompt(&session.session_id, "bye")),
    )
    .await
    .unwrap_err();
    assert!(e.remote().is_none(), "{e:?}");
    within("the driver", running).await.unwrap().unwrap();
}

#[tokio::test]
async fn a_refused_handshake_is_an_error_with_the_status() {
    let app = axum::Router::new().route(
        "/acp",
        axum::routing::get(|| async { (axum::http::StatusCode::UNAUTHORIZED, "no token") }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let url = format!("http://{addr}/acp");
    // An http:// URL with the WebSocket profile is taken as ws://.
    let options = ConnectOptions::default().profile(Profile::WebSocket);
    let e = connect(&url, Editor::default().factory(), options)
        .await
        .map(|_| ())
        .unwrap_err();
    match &e {
        Error::Status { status, body, .. } => {
            assert_eq!(*status, 401);
            assert_eq!(body, "no token");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains(&format!("ws://{addr}/acp")), "{e}");
}
