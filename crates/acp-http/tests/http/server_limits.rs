//! The bounds `serve` puts on every client: TCP connections (server-wide, per address, header
//! timeout), request bodies (timeout, server-wide budget, POSTs queued per connection), ACP
//! connections (per client, unused ones expiring) and principals owning their connections.
//! Each of these held nothing back before: the clients below held sockets, memory and
//! connection slots for as long as they liked.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acp_agent::ClientHandle;
use acp_http::server::{AcpServer, AuthDecision, BridgeOptions, Peer, ServerOptions, bind, serve};
use common::{EchoAgent, Raw, TestServer, check, new_session, request, within};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Reads until the server closes the socket (or resets it); `false` when it is still open
/// after `wait`.
async fn closed_by_server(socket: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, socket.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

/// Reads one HTTP/1.1 response head (status line and headers) from `socket`.
async fn response_head(socket: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    within("a response head", async {
        while !head.ends_with(b"\r\n\r\n") {
            if socket.read(&mut byte).await.unwrap_or(0) == 0 {
                break;
            }
            head.push(byte[0]);
        }
    })
    .await;
    String::from_utf8_lossy(&head).into_owned()
}

fn addr_of(server: &TestServer) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

#[tokio::test]
async fn silent_and_slow_clients_are_closed_after_the_header_timeout() {
    let server =
        TestServer::start(ServerOptions::default().header_timeout(Duration::from_millis(300)))
            .await;
    let addr = addr_of(&server);
    // Connects and says nothing.
    let mut silent = TcpStream::connect(&addr).await.unwrap();
    // Sends its headers a few bytes at a time, never finishing them (slowloris).
    let mut slow = TcpStream::connect(&addr).await.unwrap();
    let dripping = async {
        for piece in [
            "POST /acp HTTP/1.1\r\n",
            "Host: 127.0.0.1\r\n",
            "X-A: 1\r\n",
            "X-B: 2\r\n",
        ] {
            if slow.write_all(piece.as_bytes()).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
        closed_by_server(&mut slow, Duration::from_secs(3)).await
    };
    let (silent_closed, slow_closed) = tokio::join!(
        closed_by_server(&mut silent, Duration::from_secs(3)),
        dripping
    );
    assert!(silent_closed, "a silent socket was kept open");
    assert!(slow_closed, "a client dripping its headers was kept open");
    server.stop().await;
}

#[tokio::test]
async fn a_kept_alive_connection_idle_between_requests_is_closed() {
    let server =
        TestServer::start(ServerOptions::default().header_timeout(Duration::from_millis(300)))
            .await;
    let mut socket = TcpStream::connect(addr_of(&server)).await.unwrap();
    socket
        .write_all(b"GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n")
        .await
        .unwrap();
    let head = response_head(&mut socket).await;
    assert!(head.starts_with("HTTP/1.1 406"), "{head}");
    let started = Instant::now();
    assert!(
        closed_by_server(&mut socket, Duration::from_secs(3)).await,
        "an idle kept-alive connection stayed open"
    );
    assert!(started.elapsed() >= Duration::from_millis(200));
    server.stop().await;
}

#[tokio::test]
async fn one_address_cannot_take_every_socket() {
    let server = TestServer::start(
        ServerOptions::default()
            .limit_loopback_clients(true)
            .max_tcp_connections_per_client(4)
            .header_timeout(Duration::from_secs(30)),
    )
    .await;
    let addr = addr_of(&server);
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(TcpStream::connect(&addr).await.unwrap());
    }
    // The fifth from the same address is closed at once.
    let mut fifth = TcpStream::connect(&addr).await.unwrap();
    assert!(
        closed_by_server(&mut fifth, Duration::from_secs(3)).await,
        "a fifth socket from one address was kept"
    );
    // The four are still served.
    let first = &mut held[0];
    first
        .write_all(b"GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n")
        .await
        .unwrap();
    assert!(response_head(first).await.starts_with("HTTP/1.1 406"));
    // One goes: room for another.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut again = TcpStream::connect(&addr).await.unwrap();
    again
        .write_all(b"GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n")
        .await
        .unwrap();
    assert!(response_head(&mut again).await.starts_with("HTTP/1.1 406"));
    server.stop().await;
}

#[tokio::test]
async fn at_the_socket_cap_a_connection_that_made_no_request_gives_way() {
    let server = TestServer::start(
        ServerOptions::default()
            .max_tcp_connections(4)
            .header_timeout(Duration::from_secs(30)),
    )
    .await;
    let addr = addr_of(&server);
    // Four idle sockets take every slot (from other addresses they would all be counted).
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(&addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A client with a request is served at once, not after the header timeout.
    let started = Instant::now();
    let mut client = TcpStream::connect(&addr).await.unwrap();
    client
        .write_all(b"GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n")
        .await
        .unwrap();
    let head = response_head(&mut client).await;
    assert!(head.starts_with("HTTP/1.1 406"), "{head}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The oldest idle socket gave way.
    assert!(closed_by_server(&mut idle[0], Duration::from_secs(2)).await);
    server.stop().await;
}

#[tokio::test]
async fn a_body_that_comes_in_pieces_is_read_whole() {
    let server = TestServer::start(ServerOptions::default()).await;
    let mut socket = TcpStream::connect(addr_of(&server)).await.unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": 1}})
        .to_string();
    let head = format!(
        "POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    for piece in body.as_bytes().chunks(10) {
        socket.write_all(piece).await.unwrap();
        socket.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let answer = response_head(&mut socket).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let mut rest = String::new();
    within("the answer's body", socket.read_to_string(&mut rest))
        .await
        .unwrap();
    let answer: serde_json::Value = serde_json::from_str(&rest).unwrap();
    assert_eq!(answer["id"], 7, "{answer}");
    check(&answer);
    server.stop().await;
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_gets_408() {
    let server =
        TestServer::start(ServerOptions::default().body_timeout(Duration::from_millis(300))).await;
    let mut socket = TcpStream::connect(addr_of(&server)).await.unwrap();
    socket
        .write_all(
            b"POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    let started = Instant::now();
    let head = response_head(&mut socket).await;
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    assert!(started.elapsed() < Duration::from_secs(3));
    server.stop().await;
}

/// A JSON-RPC notification of about `len` bytes.
fn padded_notification(len: usize) -> String {
    let message = json!({"jsonrpc": "2.0", "method": "_pad", "params": {"pad": "x".repeat(len)}});
    check(&message);
    message.to_string()
}

#[tokio::test]
async fn a_body_waits_for_room_in_the_server_wide_budget() {
    let server = TestServer::start(
        ServerOptions::default()
            .max_total_body_bytes(1024 * 1024)
            .body_timeout(Duration::from_millis(800)),
    )
    .await;
    // An upload that announces 900 kB and never finishes holds them, until its body times out.
    let mut hog = TcpStream::connect(addr_of(&server)).await.unwrap();
    hog.write_all(
        b"POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n{",
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Another body of 200 kB finds no room: it is read once the hog's share is back (and
    // refused for what it is, a message without a connection).
    let started = Instant::now();
    let read = Raw::new(&server.url)
        .post_raw(padded_notification(200_000), &[])
        .await;
    assert_eq!(read.status, 400, "{read:?}");
    assert!(read.body.contains("Acp-Connection-Id"), "{read:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "the body did not wait for the budget ({:?})",
        started.elapsed()
    );
    assert!(response_head(&mut hog).await.starts_with("HTTP/1.1 408"));
    server.stop().await;
}

/// `server` served on 127.0.0.1 until [`Served::stop`].
struct Served {
    url: String,
    stop: tokio::sync::oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn served(server: AcpServer) -> Served {
    let listener = bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/acp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(serve(listener, server, async move {
        let _ = stopped.await;
    }));
    Served { url, stop, serving }
}

impl Served {
    async fn stop(self) {
        let _ = self.stop.send(());
        within("the server to stop", self.serving)
            .await
            .unwrap()
            .unwrap();
    }
}

/// A bridge running [`deaf_agent`] for each connection, each stopped within `grace`.
fn deaf_bridge(options: ServerOptions, bridge: BridgeOptions) -> AcpServer {
    let script = deaf_agent(&tempdir());
    AcpServer::bridge(
        move || {
            let mut command = tokio::process::Command::new("python3");
            command.arg(&script);
            command
        },
        options,
        bridge,
    )
}

/// A bridged agent program that answers `initialize` and then never reads its input again.
fn deaf_agent(dir: &std::path::Path) -> std::path::PathBuf {
    let script = dir.join("deaf_agent.py");
    std::fs::write(
        &script,
        r#"import json, sys, time
line = sys.stdin.readline()
request = json.loads(line)
answer = {"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}}
sys.stdout.write(json.dumps(answer) + "\n")
sys.stdout.flush()
time.sleep(120)
"#,
    )
    .unwrap();
    script
}

#[tokio::test]
async fn posts_beyond_the_queue_are_refused_at_once_with_429() {
    let served = served(deaf_bridge(
        ServerOptions::default().max_queued_posts(2),
        BridgeOptions::default().exit_timeout(Duration::from_millis(200)),
    ))
    .await;
    let url = served.url.clone();
    let mut raw = Raw::new(&url);
    raw.initialize().await;
    // The program reads nothing more: its pipe, then the connection's input fill up, then two
    // POSTs may wait; every other one is refused at once.
    let body = padded_notification(256 * 1024);
    let posts: Vec<_> = (0..40)
        .map(|_| {
            let raw = raw.clone();
            let body = body.clone();
            tokio::spawn(async move {
                // Not answered within 5 s: waiting for the agent.
                let answer = tokio::time::timeout(Duration::from_secs(5), raw.post_raw(body, &[]));
                answer
                    .await
                    .ok()
                    .map(|a| (a.status, a.header("retry-after").is_some()))
            })
        })
        .collect();
    let mut answered = Vec::new();
    let mut waiting = 0;
    for post in posts {
        match post.await.unwrap() {
            Some(answer) => answered.push(answer),
            None => waiting += 1,
        }
    }
    let refused = answered.iter().filter(|(s, _)| *s == 429).count();
    assert!(refused > 0, "no POST was refused: {answered:?}");
    assert!(
        answered
            .iter()
            .filter(|(s, _)| *s == 429)
            .all(|(_, retry)| *retry)
    );
    assert!(
        waiting <= 2,
        "{waiting} POSTs were left waiting (at most 2 may queue): {answered:?}"
    );
    served.stop().await;
}

#[tokio::test]
async fn bodies_beyond_the_server_wide_budget_get_503_with_retry_after() {
    // The agent reads nothing: the bodies given to it hold their share of the budget.
    let served = served(deaf_bridge(
        ServerOptions::default()
            .max_total_body_bytes(1024 * 1024)
            .max_queued_posts(100)
            .body_timeout(Duration::from_millis(500)),
        BridgeOptions::default().exit_timeout(Duration::from_millis(200)),
    ))
    .await;
    let url = served.url.clone();
    let mut raw = Raw::new(&url);
    raw.initialize().await;
    let body = padded_notification(200 * 1024);
    let mut statuses = Vec::new();
    for _ in 0..12 {
        let raw = raw.clone();
        let body = body.clone();
        // One at a time: each either reaches the agent's input or is refused.
        let answer = tokio::time::timeout(Duration::from_secs(5), async move {
            raw.post_raw(body, &[]).await
        })
        .await;
        match answer {
            Ok(answer) => statuses.push((
                answer.status,
                answer.header("retry-after").map(str::to_owned),
            )),
            // Waiting for room in the agent's input (up to 100 may): held, not refused.
            Err(_) => statuses.push((0, None)),
        }
        if statuses.last().is_some_and(|(s, _)| *s == 503) {
            break;
        }
    }
    let (status, retry) = statuses.last().cloned().unwrap();
    assert_eq!(status, 503, "the budget never ran out: {statuses:?}");
    assert_eq!(retry.as_deref(), Some("1"));
    // At most the budget's worth was taken before: 1 MiB / 200 KiB.
    assert!(statuses.len() <= 7, "{statuses:?}");
    served.stop().await;
}

#[tokio::test]
async fn one_connection_cannot_take_the_whole_body_budget() {
    // A share of 2 MiB per connection (an eighth of 16 MiB, over the 1 MiB body limit).
    let served = served(deaf_bridge(
        ServerOptions::default()
            .max_body_bytes(1024 * 1024)
            .max_total_body_bytes(16 * 1024 * 1024)
            .max_queued_posts(100)
            .body_timeout(Duration::from_secs(1)),
        BridgeOptions::default().exit_timeout(Duration::from_millis(100)),
    ))
    .await;
    let mut greedy = Raw::new(&served.url);
    greedy.initialize().await;
    let body = padded_notification(600 * 1024);
    let mut refused = 0;
    // 28 × 600 kB: more than the whole 16 MiB budget, were the connection allowed to hold it.
    for _ in 0..28 {
        let raw = greedy.clone();
        let body = body.clone();
        // Each POST either reaches the deaf agent's input, waits there, or is refused.
        let post = tokio::spawn(async move { raw.post_raw(body, &[]).await });
        // Not answered within the wait: held, waiting for the agent.
        if let Ok(answer) = tokio::time::timeout(Duration::from_millis(300), post).await {
            let answer = answer.unwrap();
            if answer.status == 429 {
                assert_eq!(answer.header("retry-after"), Some("1"));
                refused += 1;
            }
        }
    }
    assert!(refused > 0, "the greedy connection was never refused");
    // Another client's body still finds room in the server's budget at once.
    let mut other = Raw::new(&served.url);
    other.initialize().await;
    let started = Instant::now();
    let answer = other.post_raw(padded_notification(600 * 1024), &[]).await;
    assert_eq!(answer.status, 202, "{answer:?}");
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    served.stop().await;
}

#[tokio::test]
async fn the_bridge_starts_at_most_max_programs() {
    let served = served(deaf_bridge(
        ServerOptions::default(),
        BridgeOptions::default()
            .exit_timeout(Duration::from_millis(100))
            .max_programs(2),
    ))
    .await;
    let url = served.url.clone();
    let mut first = Raw::new(&url);
    first.initialize().await;
    Raw::new(&url).initialize().await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}});
    let refused = Raw::new(&url).post(initialize.clone(), &[]).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    // One connection ends: once its program is stopped, there is room again.
    assert_eq!(first.delete().await, 202);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let again = Raw::new(&url).post(initialize.clone(), &[]).await;
        if again.status == 200 {
            break;
        }
        assert_eq!(again.status, 503, "{again:?}");
        assert!(Instant::now() < deadline, "no room after a program stopped");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    served.stop().await;
}

#[tokio::test]
async fn a_connection_never_used_ends_within_the_unused_timeout() {
    let server =
        TestServer::start(ServerOptions::default().unused_timeout(Duration::from_millis(300)))
            .await;
    let mut unused = Raw::new(&server.url);
    unused.initialize().await;
    let mut used = Raw::new(&server.url);
    used.initialize().await;
    let mut stream = used.stream(None).await.unwrap();
    assert_eq!(server.server.connection_count(), 2);
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(
        server.server.connection_count(),
        1,
        "the unused connection is still open"
    );
    let gone = unused
        .stream(None)
        .await
        .err()
        .expect("the unused connection ended");
    assert_eq!(gone.status, 404);
    // The used one goes on.
    let session = new_session(&used, &mut stream, 1).await;
    assert!(!session.is_empty());
    drop(stream);
    server.stop().await;
}

#[tokio::test]
async fn a_reader_that_stops_slows_the_others_down_but_never_stops_them() {
    // A server-wide output budget far below what one connection's agent sends.
    let server = TestServer::start(ServerOptions::default().max_total_buffered_bytes(1)).await;
    let mut slow = Raw::new(&server.url);
    slow.initialize().await;
    let mut stream = slow.stream(None).await.unwrap();
    let session = new_session(&slow, &mut stream, 1).await;
    // Its reader goes away while its agent streams 200 kB.
    drop(stream);
    let flood = slow
        .post(
            request(2, "session/prompt", common::prompt(&session, "flood 200")),
            &[],
        )
        .await;
    assert_eq!(flood.status, 202);
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Another client is served all the same: each connection may hold its own 64 KiB.
    let mut other = Raw::new(&server.url);
    other.initialize().await;
    let mut other_stream = other.stream(None).await.unwrap();
    let other_session = new_session(&other, &mut other_stream, 1).await;
    let echo = other
        .post(
            request(2, "session/prompt", common::prompt(&other_session, "hi")),
            &[],
        )
        .await;
    assert_eq!(echo.status, 202);
    let mut answered = false;
    while let Some(message) = other_stream.next().await {
        if message["id"] == 2 {
            assert_eq!(message["result"]["stopReason"], "end_turn");
            answered = true;
            break;
        }
    }
    assert!(answered);
    // The slow reader comes back: every chunk, in order, then the answer.
    let mut stream = slow.stream(None).await.unwrap();
    let mut chunks = 0;
    loop {
        let message = stream.expect().await;
        if message["id"] == 2 {
            assert_eq!(message["result"]["stopReason"], "end_turn");
            break;
        }
        let text = common::chunk_text(&message).expect("a chunk");
        assert!(text.starts_with(&format!("chunk {chunks} ")), "{text:.20}");
        chunks += 1;
    }
    assert_eq!(chunks, 200);
    server.stop().await;
}

/// An auth hook naming the principal of the `x-user` header.
fn users(options: ServerOptions) -> ServerOptions {
    options.auth(
        |headers| match headers.get("x-user").and_then(|v| v.to_str().ok()) {
            Some(user) => AuthDecision::AllowAs(user.to_owned()),
            None => AuthDecision::Unauthorized,
        },
    )
}

#[tokio::test]
async fn one_client_cannot_open_every_connection() {
    let server = TestServer::start(users(
        ServerOptions::default().max_connections_per_client(2),
    ))
    .await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}});
    let raw = Raw::new(&server.url);
    for _ in 0..2 {
        let opened = raw.post(initialize.clone(), &[("x-user", "mallory")]).await;
        assert_eq!(opened.status, 200, "{opened:?}");
    }
    let refused = raw.post(initialize.clone(), &[("x-user", "mallory")]).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    // Somebody else still gets in.
    let other = raw.post(initialize, &[("x-user", "alice")]).await;
    assert_eq!(other.status, 200, "{other:?}");
    server.stop().await;
}

#[tokio::test]
async fn without_authentication_the_limit_counts_by_address() {
    let server = TestServer::start(
        ServerOptions::default()
            .limit_loopback_clients(true)
            .max_connections_per_client(2),
    )
    .await;
    for _ in 0..2 {
        Raw::new(&server.url).initialize().await;
    }
    let refused = Raw::new(&server.url)
        .post(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
            &[],
        )
        .await;
    assert_eq!(refused.status, 429, "{refused:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_principals_connection_is_its_own() {
    let server = TestServer::start(users(ServerOptions::default())).await;
    let mut alice = Raw::new(&server.url);
    let opened = alice
        .post(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
            &[("x-user", "alice")],
        )
        .await;
    assert_eq!(opened.status, 200);
    alice.connection = opened.header("acp-connection-id").map(str::to_owned);
    // Mallory knows the id, but it is not hers: it does not exist for her.
    let as_mallory = [("x-user", "mallory")];
    let posted = alice
        .post(
            request(1, "session/new", json!({"cwd": "/work", "mcpServers": []})),
            &as_mallory,
        )
        .await;
    assert_eq!(posted.status, 404, "{posted:?}");
    let mut get = alice
        .http
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("x-user", "mallory");
    get = get.header("acp-connection-id", alice.connection.as_deref().unwrap());
    assert_eq!(within("a GET", get.send()).await.unwrap().status(), 404);
    let delete = alice
        .http
        .delete(&server.url)
        .header("x-user", "mallory")
        .header("acp-connection-id", alice.connection.as_deref().unwrap());
    assert_eq!(
        within("a DELETE", delete.send()).await.unwrap().status(),
        404
    );
    assert_eq!(
        server.server.connection_count(),
        1,
        "mallory ended alice's connection"
    );
    // Alice's own requests pass.
    let mine = alice
        .post(
            request(1, "session/new", json!({"cwd": "/work", "mcpServers": []})),
            &[("x-user", "alice")],
        )
        .await;
    assert_eq!(mine.status, 202, "{mine:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_client_id_of_one_principal_is_never_taken_over_by_another() {
    let server = TestServer::start(users(ServerOptions::default().client_id_profile(true))).await;
    let rpc = format!("{}/acp/rpc?client_id=shared", server.base);
    let http = common::http_client();
    let post = |user: &'static str| {
        let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}});
        check(&message);
        http.post(&rpc)
            .header("content-type", "application/json")
            .header("x-user", user)
            .body(message.to_string())
            .send()
    };
    let alice = within("alice's POST", post("alice")).await.unwrap();
    assert_eq!(alice.status(), 202);
    let mallory = within("mallory's POST", post("mallory")).await.unwrap();
    assert_eq!(mallory.status(), 409, "mallory took alice's client_id");
    assert_eq!(server.server.connection_count(), 1);
    server.stop().await;
}

#[tokio::test]
async fn the_factory_sees_the_peer() {
    let seen: Arc<Mutex<Vec<Peer>>> = Arc::default();
    let peers = seen.clone();
    let server = AcpServer::with_peer(
        move |client: ClientHandle, peer: &Peer| {
            peers.lock().unwrap().push(peer.clone());
            EchoAgent::new(client)
        },
        users(ServerOptions::default()),
    );
    let served = served(server).await;
    let url = served.url.clone();
    let opened = Raw::new(&url)
        .post(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
            &[("x-user", "alice")],
        )
        .await;
    assert_eq!(opened.status, 200);
    let peer = seen.lock().unwrap().pop().expect("the factory ran");
    assert_eq!(
        Some(peer.connection_id.as_str()),
        opened.header("acp-connection-id")
    );
    assert_eq!(peer.principal.as_deref(), Some("alice"));
    assert_eq!(peer.owner(), "alice");
    assert!(peer.addr.is_some_and(|a| a.ip().is_loopback()), "{peer:?}");
    served.stop().await;
}

#[test]
fn the_defaults_reclaim_what_a_vanished_client_left_within_minutes() {
    let options = ServerOptions::default();
    assert!(
        options.idle_timeout <= Duration::from_secs(120),
        "{options:?}"
    );
    assert!(
        options.unused_timeout <= Duration::from_secs(30),
        "{options:?}"
    );
    assert!(
        options.header_timeout <= Duration::from_secs(30),
        "{options:?}"
    );
    assert!(options.max_connections_per_client < options.max_connections);
}

/// A fresh temporary directory.
fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "acp-http-limits-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
