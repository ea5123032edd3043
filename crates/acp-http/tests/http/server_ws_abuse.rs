//! The WebSocket profile against clients that misbehave or close: ping floods without reading,
//! the close handshake both ways, binary frames and malformed frames written as raw bytes.

use crate::common;

use std::time::{Duration, Instant};

use acp_http::server::ServerOptions;
use common::{TestServer, check, within};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const TEXT: u8 = 0x1;
const BINARY: u8 = 0x2;
const CLOSE: u8 = 0x8;
const PING: u8 = 0x9;
const PONG: u8 = 0xA;

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}})
}

/// A tungstenite client, `initialize` done.
async fn open(t: &TestServer) -> Socket {
    let url = t.url.replace("http://", "ws://");
    let (mut socket, _) = within("the upgrade", tokio_tungstenite::connect_async(url))
        .await
        .unwrap();
    let message = initialize();
    check(&message);
    within("a send", socket.send(Message::text(message.to_string())))
        .await
        .unwrap();
    match within("the answer", socket.next()).await {
        Some(Ok(Message::Text(text))) => {
            let answer: Value = serde_json::from_str(&text).unwrap();
            check(&answer);
            assert_eq!(answer["id"], 0, "{answer}");
        }
        other => panic!("expected the initialize answer, got {other:?}"),
    }
    socket
}

/// The close frame the server sends next (other frames skipped), and then how the socket
/// ends once the client's automatic answer is written: `Ok` for a clean close.
async fn close_of(socket: &mut Socket) -> (CloseFrame, Result<(), String>) {
    let frame = loop {
        match within("a close frame", socket.next()).await {
            Some(Ok(Message::Close(Some(frame)))) => break frame,
            Some(Ok(Message::Close(None))) => panic!("a close frame without a code"),
            Some(Ok(_)) => {}
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    let end = match within("the end of the socket", socket.next()).await {
        None => Ok(()),
        other => Err(format!("{other:?}")),
    };
    (frame, end)
}

/// A WebSocket client on a raw TCP socket: it writes any bytes, masked or not.
struct Raw {
    tcp: TcpStream,
    /// Bytes read past the last frame.
    buf: Vec<u8>,
}

/// A frame the server sent.
#[derive(Debug)]
struct Frame {
    opcode: u8,
    payload: Vec<u8>,
}

impl Frame {
    /// The code of a close frame.
    fn code(&self) -> u16 {
        assert_eq!(self.opcode, CLOSE, "not a close frame: {self:?}");
        assert!(self.payload.len() >= 2, "a close frame without a code");
        u16::from_be_bytes([self.payload[0], self.payload[1]])
    }
}

/// A frame as a client writes it: `mask` `None` leaves it unmasked (which servers refuse).
fn frame(first: u8, payload: &[u8], mask: Option<[u8; 4]>) -> Vec<u8> {
    let mut out = vec![first];
    let bit = if mask.is_some() { 0x80 } else { 0 };
    match payload.len() {
        n @ 0..=125 => out.push(bit | n as u8),
        n @ 126..=0xffff => {
            out.push(bit | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(bit | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    match mask {
        Some(key) => {
            out.extend_from_slice(&key);
            out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
        }
        None => out.extend_from_slice(payload),
    }
    out
}

/// A final, masked frame of `opcode`.
fn masked(opcode: u8, payload: &[u8]) -> Vec<u8> {
    frame(0x80 | opcode, payload, Some([0x37, 0xfa, 0x21, 0x3d]))
}

impl Raw {
    /// Upgrades a raw TCP connection to the endpoint.
    async fn open(t: &TestServer) -> Self {
        let authority = t.base.trim_start_matches("http://").to_owned();
        let tcp = within("a TCP connection", TcpStream::connect(&authority))
            .await
            .unwrap();
        let mut raw = Self {
            tcp,
            buf: Vec::new(),
        };
        let request = format!(
            "GET /acp HTTP/1.1\r\nHost: {authority}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n"
        );
        raw.write(request.as_bytes()).await.unwrap();
        let head = loop {
            if let Some(end) = raw.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head: Vec<u8> = raw.buf.drain(..end + 4).collect();
                break String::from_utf8(head).unwrap();
            }
            assert!(raw.fill().await.unwrap() > 0, "the upgrade response ended");
        };
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        raw
    }

    /// Upgrades and sends `initialize`; reads its answer.
    async fn initialized(t: &TestServer) -> Self {
        let mut raw = Self::open(t).await;
        raw.write(&masked(TEXT, initialize().to_string().as_bytes()))
            .await
            .unwrap();
        let answer = raw.frame().await.expect("the initialize answer");
        assert_eq!(answer.opcode, TEXT, "{answer:?}");
        let answer: Value = serde_json::from_slice(&answer.payload).unwrap();
        check(&answer);
        assert_eq!(answer["id"], 0, "{answer}");
        raw
    }

    async fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        within("a write", self.tcp.write_all(bytes)).await
    }

    /// Reads more bytes; `Ok(0)` at the end of the stream.
    async fn fill(&mut self) -> std::io::Result<usize> {
        let mut chunk = [0u8; 4096];
        let n = within("a read", self.tcp.read(&mut chunk)).await?;
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n)
    }

    /// The next frame (unmasked, as servers send), or `None` when the stream ends first.
    async fn frame(&mut self) -> Option<Frame> {
        loop {
            if let Some((frame, used)) = parse(&self.buf) {
                self.buf.drain(..used);
                return Some(frame);
            }
            match self.fill().await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }

    /// The next frame, which must be a close frame; its code.
    async fn close_code(&mut self) -> u16 {
        self.frame()
            .await
            .expect("a close frame, not the end of the stream")
            .code()
    }
}

/// A whole frame at the start of `buf`, and its length.
fn parse(buf: &[u8]) -> Option<(Frame, usize)> {
    if buf.len() < 2 {
        return None;
    }
    assert_eq!(buf[1] & 0x80, 0, "the server masked a frame");
    let (len, at) = match buf[1] & 0x7f {
        126 => (
            u16::from_be_bytes(buf.get(2..4)?.try_into().ok()?) as usize,
            4,
        ),
        127 => (
            u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize,
            10,
        ),
        n => (n as usize, 2),
    };
    let payload = buf.get(at..at + len)?.to_vec();
    Some((
        Frame {
            opcode: buf[0] & 0x0f,
            payload,
        },
        at + len,
    ))
}

#[tokio::test]
async fn a_client_that_pings_without_reading_stops_being_read_and_is_closed() {
    let t = TestServer::start(ServerOptions::default().stall_timeout(Duration::from_secs(1))).await;
    let mut raw = Raw::open(&t).await;
    // 1,000 pings of 125 bytes at a time; their pongs are never read.
    let ping = masked(PING, &[b'p'; 125]);
    let pings: Vec<u8> = ping
        .iter()
        .copied()
        .cycle()
        .take(ping.len() * 1000)
        .collect();
    let started = Instant::now();
    let mut written = 0usize;
    let error = loop {
        // Without the bound the server reads (and queues a pong for) every ping: the writes
        // never block and never fail.
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "the server still reads after {written} bytes of pings"
        );
        match tokio::time::timeout(Duration::from_secs(8), raw.tcp.write_all(&pings)).await {
            Ok(Ok(())) => written += pings.len(),
            Ok(Err(error)) => break error,
            Err(_) => panic!("the server neither read nor closed the socket"),
        }
    };
    // The socket buffers of both sides, not what the client could send in the time.
    assert!(
        written < 128 * 1024 * 1024,
        "{written} bytes were read from a client that does not read"
    );
    assert!(
        matches!(
            error.kind(),
            std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
        ),
        "{error}"
    );
    within("the connection to end", async {
        while t.server.connection_count() != 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    t.stop().await;
}

#[tokio::test]
async fn pings_are_answered() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut raw = Raw::initialized(&t).await;
    for n in 0..3u8 {
        raw.write(&masked(PING, &[n; 7])).await.unwrap();
        let pong = raw.frame().await.expect("a pong");
        assert_eq!(pong.opcode, PONG, "{pong:?}");
        assert_eq!(pong.payload, [n; 7]);
    }
    t.stop().await;
}

#[tokio::test]
async fn the_clients_close_is_answered_with_its_code() {
    let t = TestServer::start(ServerOptions::default()).await;
    for code in [CloseCode::Normal, CloseCode::Library(4001)] {
        let mut socket = open(&t).await;
        within(
            "the close",
            socket.close(Some(CloseFrame {
                code,
                reason: "bye".into(),
            })),
        )
        .await
        .unwrap();
        match within("the answer", socket.next()).await {
            Some(Ok(Message::Close(Some(frame)))) => {
                assert_eq!(frame.code, code);
            }
            other => panic!("expected the close answer, got {other:?}"),
        }
        // The server ends the TCP connection after its answer: a clean close.
        assert!(
            within("the end", socket.next()).await.is_none(),
            "the socket did not end cleanly"
        );
    }
    within("the connections to end", async {
        while t.server.connection_count() != 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    t.stop().await;
}

#[tokio::test]
async fn a_binary_frame_is_closed_with_1003() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut socket = open(&t).await;
    within(
        "a binary frame",
        socket.send(Message::binary(vec![1, 2, 3])),
    )
    .await
    .unwrap();
    let (frame, end) = close_of(&mut socket).await;
    assert_eq!(frame.code, CloseCode::Unsupported);
    assert_eq!(frame.reason.as_str(), "binary frames are not supported");
    end.unwrap();
    t.stop().await;
}

#[tokio::test]
async fn a_shutdown_close_waits_for_the_clients_answer() {
    let t = TestServer::start(ServerOptions::default()).await;
    let mut raw = Raw::initialized(&t).await;
    let mut socket = open(&t).await;
    t.server.shutdown();
    assert_eq!(raw.close_code().await, 1001);
    // The server keeps the connection open for the client's answer...
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(300), raw.tcp.read(&mut byte)).await;
    assert!(
        early.is_err(),
        "the server ended the connection before the client answered its close: {early:?}"
    );
    // ...and ends it (FIN, not a reset) once it has it.
    raw.write(&masked(CLOSE, &1001u16.to_be_bytes()))
        .await
        .unwrap();
    assert_eq!(within("the end", raw.tcp.read(&mut byte)).await.unwrap(), 0);
    // A tungstenite client sees a clean close.
    let (frame, end) = close_of(&mut socket).await;
    assert_eq!(frame.code, CloseCode::Away);
    end.unwrap();
    t.stop().await;
}

#[tokio::test]
async fn malformed_frames_get_their_close_code() {
    let t = TestServer::start(ServerOptions::default().max_body_bytes(1024)).await;
    let key = Some([9, 8, 7, 6]);
    let cases: [(&str, Vec<u8>, u16); 7] = [
        (
            "a text frame that is not UTF-8",
            masked(TEXT, b"{\"a\":\"\xff\xfe\"}"),
            1007,
        ),
        (
            "a fragmented text message that is not UTF-8",
            [
                frame(TEXT, b"{\"a\":\"\xc3", key),
                frame(0x80, b"(\"}", key),
            ]
            .concat(),
            1007,
        ),
        ("an unmasked frame", frame(0x80 | TEXT, b"{}", None), 1002),
        ("a reserved data opcode", masked(0x3, b"{}"), 1002),
        ("a reserved control opcode", masked(0xB, b""), 1002),
        ("a reserved bit", frame(0xC0 | TEXT, b"{}", key), 1002),
        (
            "a message over max_body_bytes",
            masked(TEXT, &[b' '; 2000]),
            1009,
        ),
    ];
    for (what, bytes, code) in cases {
        let mut raw = Raw::initialized(&t).await;
        raw.write(&bytes).await.unwrap();
        assert_eq!(raw.close_code().await, code, "{what}");
        assert!(raw.frame().await.is_none(), "{what}: more after the close");
    }
    // Before `initialize` as well.
    let mut raw = Raw::open(&t).await;
    raw.write(&masked(BINARY, b"\x00")).await.unwrap();
    assert_eq!(raw.close_code().await, 1003);
    t.stop().await;
}

#[tokio::test]
async fn an_agent_message_over_the_write_buffer_cap_is_closed_with_1009() {
    let options = ServerOptions::default().max_ws_write_buffer_bytes(64);
    let t = TestServer::start(options).await;
    let mut raw = Raw::open(&t).await;
    raw.write(&masked(TEXT, initialize().to_string().as_bytes()))
        .await
        .unwrap();
    // The answer to `initialize` is larger than 64 bytes.
    assert_eq!(raw.close_code().await, 1009);
    t.stop().await;
}

#[tokio::test]
async fn a_client_that_stops_reading_a_stream_is_closed_after_the_stall_timeout() {
    let t = TestServer::start(ServerOptions::default().stall_timeout(Duration::from_secs(1))).await;
    let mut raw = Raw::initialized(&t).await;
    let new = json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/work", "mcpServers": []}});
    check(&new);
    raw.write(&masked(TEXT, new.to_string().as_bytes()))
        .await
        .unwrap();
    let created = raw.frame().await.expect("the session");
    let created: Value = serde_json::from_slice(&created.payload).unwrap();
    let session = created["result"]["sessionId"].as_str().unwrap().to_owned();
    // A million 1 KiB chunks, none of them read.
    let prompt = common::request(
        2,
        "session/prompt",
        common::prompt(&session, "flood 1000000"),
    );
    check(&prompt);
    raw.write(&masked(TEXT, prompt.to_string().as_bytes()))
        .await
        .unwrap();
    within("the connection to end", async {
        while t.server.connection_count() != 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    // What was written before the stall, then the end of the socket.
    let mut chunk = vec![0u8; 64 * 1024];
    let mut read = 0usize;
    loop {
        match within("the rest of the stream", raw.tcp.read(&mut chunk)).await {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
    }
    assert!(read < 256 * 1024 * 1024, "{read} bytes after the stall");
    t.stop().await;
}
