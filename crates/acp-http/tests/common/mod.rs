//! Support for the server tests: a small agent, a server on 127.0.0.1, and a raw HTTP / SSE /
//! WebSocket client whose every JSON-RPC message, both ways, is checked against the schema.

#![allow(dead_code, unreachable_pub)] // Each test file uses its own part.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use acp_http::server::{AcpServer, ServerOptions, serve};
use futures::StreamExt;
use serde_json::{Value, json};

#[path = "echo.rs"]
pub mod echo;
#[path = "guard.rs"]
pub mod guard;
pub use echo::EchoAgent;
pub use guard::{check, check_version, within};

/// A plain reqwest client. With the `client-tls` feature reqwest has no crypto provider of its own:
/// the process gets ring's.
pub fn http_client() -> reqwest::Client {
    #[cfg(feature = "client-tls")]
    let _ = acp_http::client::rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// A server on 127.0.0.1 and its address.
pub struct TestServer {
    pub server: AcpServer,
    pub url: String,
    pub base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl TestServer {
    pub async fn start(options: ServerOptions) -> Self {
        let server = AcpServer::new(EchoAgent::new, options);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, server.clone(), async move {
            let _ = stopped.await;
        }));
        Self {
            server,
            url: format!("http://{addr}/acp"),
            base: format!("http://{addr}"),
            stop: Some(stop),
            task,
        }
    }

    /// Stops the server and waits for it to close.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        within("the server to stop", &mut self.task)
            .await
            .unwrap()
            .unwrap();
    }
}

/// An HTTP exchange's outcome.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// A raw client of the endpoint.
#[derive(Clone)]
pub struct Raw {
    pub http: reqwest::Client,
    pub url: String,
    pub connection: Option<String>,
    /// The protocol version whose schema checks every message both ways: 1 unless set.
    pub version: u16,
    /// Headers sent with every request (a principal's credentials).
    pub headers: Vec<(String, String)>,
}

impl Raw {
    pub fn new(url: &str) -> Self {
        Self {
            http: http_client(),
            url: url.to_owned(),
            connection: None,
            version: 1,
            headers: Vec::new(),
        }
    }

    /// A raw client whose messages, both ways, are checked against the schema of protocol
    /// `version`.
    pub fn with_version(url: &str, version: u16) -> Self {
        Self {
            version,
            ..Self::new(url)
        }
    }

    /// POSTs `body` as JSON with the connection header (if any) and `extra` headers.
    pub async fn post_raw(&self, body: impl Into<String>, extra: &[(&str, &str)]) -> Answer {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body.into());
        if let Some(id) = &self.connection {
            request = request.header("acp-connection-id", id);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        let response = within("a POST", request.send()).await.expect("the POST");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = within("a POST's body", response.text()).await.unwrap();
        Answer {
            status,
            headers,
            body,
        }
    }

    /// POSTs a valid JSON-RPC message.
    pub async fn post(&self, message: Value, extra: &[(&str, &str)]) -> Answer {
        check_version(&message, self.version);
        self.post_raw(message.to_string(), extra).await
    }

    /// `initialize`; keeps the connection id.
    pub async fn initialize(&mut self) -> Value {
        let answer = self
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
                &[],
            )
            .await;
        assert_eq!(answer.status, 200, "{answer:?}");
        let id = answer
            .header("acp-connection-id")
            .expect("a connection id")
            .to_owned();
        assert_eq!(id.len(), 36, "{id}");
        self.connection = Some(id);
        let body = answer.json();
        check(&body);
        body
    }

    /// Opens a stream: the connection's, or a session's.
    pub async fn stream(&self, session: Option<&str>) -> Result<Sse, Answer> {
        self.stream_at(&self.url, session).await
    }

    /// Opens a stream at `url`.
    pub async fn stream_at(&self, url: &str, session: Option<&str>) -> Result<Sse, Answer> {
        let mut request = self.http.get(url).header("accept", "text/event-stream");
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(id) = &self.connection {
            request = request.header("acp-connection-id", id);
        }
        if let Some(session) = session {
            request = request.header("acp-session-id", session);
        }
        let response = within("a GET", request.send()).await.expect("the GET");
        if response.status() != 200 {
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let body = response.text().await.unwrap_or_default();
            return Err(Answer {
                status,
                headers,
                body,
            });
        }
        assert_eq!(
            response.headers().get("content-type").unwrap(),
            "text/event-stream"
        );
        Ok(Sse {
            body: Box::pin(response.bytes_stream()),
            buf: Vec::new(),
            comments: 0,
            version: self.version,
        })
    }

    pub async fn delete(&self) -> u16 {
        let mut request = self.http.delete(&self.url);
        if let Some(id) = &self.connection {
            request = request.header("acp-connection-id", id);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        within("a DELETE", request.send())
            .await
            .unwrap()
            .status()
            .as_u16()
    }
}

type Body = std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>;

/// An SSE stream read event by event.
pub struct Sse {
    body: Body,
    buf: Vec<u8>,
    /// Comment lines seen (keep-alives).
    pub comments: usize,
    /// The protocol version whose schema checks every message.
    version: u16,
}

impl Sse {
    /// The next event's data as JSON (checked against the schema), or `None` at the end.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.buf.drain(..end + 2).collect();
                let text = String::from_utf8(event).unwrap();
                let mut data = Vec::new();
                for line in text.lines() {
                    if let Some(rest) = line.strip_prefix("data:") {
                        data.push(rest.strip_prefix(' ').unwrap_or(rest).to_owned());
                    } else if line.starts_with(':') {
                        self.comments += 1;
                    }
                }
                if data.is_empty() {
                    continue;
                }
                let message: Value = serde_json::from_str(&data.join("\n")).unwrap();
                check_version(&message, self.version);
                return Some(message);
            }
            match within("an SSE event", self.body.next()).await {
                Some(Ok(chunk)) => self.buf.extend_from_slice(&chunk),
                Some(Err(_)) | None => return None,
            }
        }
    }

    /// The next message, which must exist.
    pub async fn expect(&mut self) -> Value {
        self.next()
            .await
            .expect("the stream ended while a message was expected")
    }
}

/// A prompt's params.
pub fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// A request.
pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Creates a session on `raw`'s connection (whose stream is `conn_stream`) and returns its id.
pub async fn new_session(raw: &Raw, conn_stream: &mut Sse, id: u64) -> String {
    let answer = raw
        .post(
            request(id, "session/new", json!({"cwd": "/work", "mcpServers": []})),
            &[],
        )
        .await;
    assert_eq!(answer.status, 202, "{answer:?}");
    let created = conn_stream.expect().await;
    assert_eq!(created["id"], id, "{created}");
    created["result"]["sessionId"].as_str().unwrap().to_owned()
}

/// The text of an agent message chunk update.
pub fn chunk_text(message: &Value) -> Option<&str> {
    (message["method"] == "session/update"
        && message["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .then(|| message["params"]["update"]["content"]["text"].as_str())
        .flatten()
}

/// Shared counter for unique ids.
pub fn counter() -> Arc<AtomicUsize> {
    Arc::new(AtomicUsize::new(100))
}
