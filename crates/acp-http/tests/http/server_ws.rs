//! The WebSocket profile of the server on real sockets: `initialize` first, text frames both
//! ways, close codes.

use crate::common;

use acp_http::server::ServerOptions;
use common::{TestServer, check, chunk_text, prompt, request, within};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn open(t: &TestServer, headers: &[(&str, &str)]) -> Result<(Socket, String), u16> {
    let mut request = t
        .url
        .replace("http://", "ws://")
        .into_client_request()
        .unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    match within("the upgrade", tokio_tungstenite::connect_async(request)).await {
        Ok((socket, response)) => {
            let id = response
                .headers()
                .get("acp-connection-id")
                .expect("the connection id in the 101")
                .to_str()
                .unwrap()
                .to_owned();
            Ok((socket, id))
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(other) => panic!("upgrade failed: {other}"),
    }
}

async fn send(socket: &mut Socket, message: Value) {
    check(&message);
    within("a send", socket.send(Message::text(message.to_string())))
        .await
        .unwrap();
}

/// The next JSON-RPC message, checked; `Err` with the close frame's code when the socket
/// closes instead.
async fn recv(socket: &mut Socket) -> Result<Value, Option<CloseCode>> {
    loop {
        match within("a frame", socket.next()).await {
            Some(Ok(Message::Text(text))) => {
                let message: Value = serde_json::from_str(&text).unwrap();
                check(&message);
                return Ok(message);
            }
            Some(Ok(Message::Close(frame))) => return Err(frame.map(|f| f.code)),
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return Err(None),
        }
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}})
}

#[tokio::test]
async fn a_session_over_a_websocket() {
    let t = TestServer::start(ServerOptions::default()).await;
    let (mut socket, id) = open(&t, &[]).await.unwrap();
    assert_eq!(id.len(), 36);
    send(&mut socket, initialize()).await;
    assert_eq!(
        recv(&mut socket).await.unwrap()["result"]["protocolVersion"],
        1
    );
    send(
        &mut socket,
        request(1, "session/new", json!({"cwd": "/work", "mcpServers": []})),
    )
    .await;
    let session = recv(&mut socket).await.unwrap()["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    // Invalid JSON is answered and the socket lives on (a binary frame closes it: see
    // server_ws_abuse.rs).
    within("a bad frame", socket.send(Message::text("{nope")))
        .await
        .unwrap();
    let parse_error = recv(&mut socket).await.unwrap();
    assert_eq!(parse_error["error"]["code"], -32700);
    assert_eq!(parse_error["id"], Value::Null);
    send(
        &mut socket,
        request(2, "session/prompt", prompt(&session, "ask")),
    )
    .await;
    let asked = recv(&mut socket).await.unwrap();
    assert_eq!(asked["method"], "session/request_permission");
    send(
        &mut socket,
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}),
    )
    .await;
    assert_eq!(
        chunk_text(&recv(&mut socket).await.unwrap()),
        Some("selected allow")
    );
    assert_eq!(recv(&mut socket).await.unwrap()["id"], 2);
    assert_eq!(t.server.connection_count(), 1);
    within("closing", socket.close(None)).await.unwrap();
    // The client's close ends the connection and its agent.
    for _ in 0..100 {
        if t.server.connection_count() == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(t.server.connection_count(), 0);
    t.stop().await;
}

#[tokio::test]
async fn the_first_frame_must_be_initialize() {
    let t = TestServer::start(ServerOptions::default()).await;
    let (mut socket, _) = open(&t, &[]).await.unwrap();
    send(
        &mut socket,
        request(1, "session/new", json!({"cwd": "/work", "mcpServers": []})),
    )
    .await;
    assert_eq!(
        recv(&mut socket).await.err(),
        Some(Some(CloseCode::Protocol))
    );
    t.stop().await;
}

#[tokio::test]
async fn shutdown_closes_sockets_with_1001() {
    let t = TestServer::start(ServerOptions::default()).await;
    let (mut socket, _) = open(&t, &[]).await.unwrap();
    send(&mut socket, initialize()).await;
    recv(&mut socket).await.unwrap();
    t.server.shutdown();
    assert_eq!(recv(&mut socket).await.err(), Some(Some(CloseCode::Away)));
    t.stop().await;
}

#[tokio::test]
async fn upgrades_pass_the_origin_and_auth_checks_first() {
    let options = ServerOptions::default()
        .allow_origin("https://editor.example")
        .bearer_token("s3cret")
        .unwrap();
    let t = TestServer::start(options).await;
    assert_eq!(
        open(
            &t,
            &[
                ("origin", "https://evil.example"),
                ("authorization", "Bearer s3cret")
            ]
        )
        .await
        .err(),
        Some(403)
    );
    assert_eq!(open(&t, &[]).await.err(), Some(401));
    assert_eq!(t.server.connection_count(), 0);
    let (mut socket, _) = open(
        &t,
        &[
            ("origin", "https://editor.example"),
            ("authorization", "Bearer s3cret"),
        ],
    )
    .await
    .unwrap();
    send(&mut socket, initialize()).await;
    assert_eq!(recv(&mut socket).await.unwrap()["id"], 0);
    t.stop().await;
}
