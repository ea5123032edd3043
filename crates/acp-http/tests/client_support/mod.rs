//! Support for the client tests: a scriptable fake agent server (Streamable HTTP, the
//! `client_id` profile), an editor implementing `acp_client::Client`, and hang guards.
//!
//! The fake server plays exactly what a scenario needs: each test gives the answer to every
//! POST (and, optionally, to stream GETs) and pushes messages onto named event streams. Every
//! JSON-RPC message crossing it, both ways, is checked against the official schema.

#![allow(dead_code, unreachable_pub)] // Each test file uses its own part.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_client::{AgentHandle, Client};
use acp_types::*;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::common::guard;
pub use guard::{check, within};

/// The SSE text of one message, checked first.
pub fn sse(message: &Value) -> String {
    check(message);
    format!("data: {message}\n\n")
}

// ---------------------------------------------------------------------------------------------
// Messages the fake agent sends.

pub fn initialize_result(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "protocolVersion": 1,
        "agentCapabilities": {"loadSession": true},
    }})
}

pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

pub fn chunk(session: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": session,
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
    }})
}

pub fn permission_request(id: i64, session: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission", "params": {
        "sessionId": session,
        "toolCall": {"toolCallId": "call-1", "title": "Write a file"},
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
    }})
}

pub fn stop(id: &Value, reason: &str) -> Value {
    result(id, json!({"stopReason": reason}))
}

// ---------------------------------------------------------------------------------------------
// The editor.

/// What the editor saw.
#[derive(Default)]
pub struct Seen {
    pub updates: Vec<SessionNotification>,
    pub permissions: Vec<RequestPermissionRequest>,
}

/// An editor that records updates and approves every permission request with its first option.
#[derive(Clone, Default)]
pub struct Editor {
    pub seen: Arc<Mutex<Seen>>,
}

impl Editor {
    pub fn texts(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .updates
            .iter()
            .filter_map(|n| match &n.update {
                SessionUpdate::AgentMessageChunk(c) => c.content.as_text().map(str::to_owned),
                _ => None,
            })
            .collect()
    }

    pub fn factory(&self) -> impl FnOnce(AgentHandle) -> Editor + use<> {
        let editor = self.clone();
        move |_| editor
    }
}

#[acp_client::async_trait]
impl Client for Editor {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        let option = request.options[0].option_id.clone();
        self.seen.lock().unwrap().permissions.push(request);
        Ok(RequestPermissionResponse::selected(option))
    }

    async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
        self.seen.lock().unwrap().updates.push(n);
        Ok(())
    }
}

pub fn new_session() -> NewSessionRequest {
    NewSessionRequest::new("/tmp", Vec::<McpServer>::new())
}

pub fn prompt(session: &SessionId, text: &str) -> PromptRequest {
    PromptRequest::new(session.clone(), vec![text.into()])
}

/// Against the echo agent (`common/echo.rs`): initialize, a session, a prompt with a permission
/// request, an echo, with `cancel` a turn cancelled while it runs, and a clean close over one
/// connection. Returns the connection's profile.
pub async fn echo_session(
    url: &str,
    options: acp_http::client::ConnectOptions,
    cancel: bool,
) -> acp_http::client::Profile {
    let editor = Editor::default();
    let (agent, driver): (AgentHandle, acp_http::client::RemoteDriver) = within(
        "connect",
        acp_http::client::connect(url, editor.factory(), options),
    )
    .await
    .unwrap();
    let connection = driver.connection();
    let running = tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    assert!(connection.connection_id().is_some());
    let session = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap()
        .session_id;
    for text in ["ask", "hello"] {
        let done = within(text, agent.prompt(prompt(&session, text)))
            .await
            .unwrap();
        assert_eq!(done.stop_reason, StopReason::EndTurn);
    }
    assert_eq!(editor.texts(), ["selected allow", "echo: hello"], "{url}");

    if cancel {
        let waiting = tokio::spawn({
            let agent = agent.clone();
            let session = session.clone();
            async move { agent.prompt(prompt(&session, "wait")).await }
        });
        // Cancel once the turn runs (an early cancel would be for no turn at all).
        tokio::time::sleep(Duration::from_millis(100)).await;
        within(
            "cancel",
            agent.cancel(CancelNotification::new(session.clone())),
        )
        .await
        .unwrap();
        let done = within("the cancelled turn", waiting)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(done.stop_reason, StopReason::Cancelled);
    }

    connection.close();
    within("the driver", running).await.unwrap().unwrap();
    connection.profile()
}

/// The JSON-RPC error code, data and message of a call the agent (or the transport, standing
/// in for it) answered with an error.
pub fn remote_error(e: &acp_client::Error) -> (i64, Value, String) {
    let object = e
        .remote()
        .unwrap_or_else(|| panic!("expected an error answer, got {e:?}"));
    let v = serde_json::to_value(object).unwrap();
    (
        v["code"].as_i64().unwrap(),
        v.get("data").cloned().unwrap_or(Value::Null),
        v["message"].as_str().unwrap().to_owned(),
    )
}

// ---------------------------------------------------------------------------------------------
// The fake server.

/// One request the fake server received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: Method,
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
    /// The JSON body of a POST.
    pub message: Option<Value>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn connection(&self) -> Option<&str> {
        self.header("acp-connection-id")
    }

    pub fn session(&self) -> Option<&str> {
        self.header("acp-session-id")
    }

    pub fn method_name(&self) -> Option<&str> {
        self.message.as_ref()?.get("method")?.as_str()
    }

    pub fn id(&self) -> Value {
        self.message
            .as_ref()
            .and_then(|m| m.get("id").cloned())
            .unwrap_or(Value::Null)
    }

    /// True for a POST of the client's answer to request `id`.
    pub fn answers(&self, id: i64) -> bool {
        self.method_name().is_none() && self.id() == json!(id)
    }
}

/// An HTTP answer of the fake server.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn status(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: String::new(),
        }
    }

    pub fn accepted() -> Self {
        Self::status(202)
    }

    pub fn text(status: u16, body: &str) -> Self {
        Self {
            body: body.to_owned(),
            ..Self::status(status)
        }
    }

    /// A JSON-RPC message as the body, checked first.
    pub fn json(status: u16, message: &Value) -> Self {
        check(message);
        Self::text(status, &message.to_string()).header("content-type", "application/json")
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

enum Chunk {
    Text(String),
    End,
}

/// The fake server's event streams, by name: `""` for the connection's (or the `client_id`
/// profile's only one), the session id for a session's. Messages queue until a reader comes.
#[derive(Clone, Default)]
pub struct Streams {
    slots: Arc<Mutex<HashMap<String, Slot>>>,
    opened: Arc<Mutex<HashMap<String, usize>>>,
}

struct Slot {
    tx: mpsc::UnboundedSender<Chunk>,
    rx: Option<mpsc::UnboundedReceiver<Chunk>>,
}

impl Streams {
    fn with_slot<T>(&self, name: &str, f: impl FnOnce(&mut Slot) -> T) -> T {
        let mut slots = self.slots.lock().unwrap();
        let slot = slots.entry(name.to_owned()).or_insert_with(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            Slot { tx, rx: Some(rx) }
        });
        f(slot)
    }

    /// Sends a message on a stream (checked against the schema).
    pub fn send(&self, stream: &str, message: &Value) {
        self.raw(stream, &sse(message));
    }

    /// Sends raw SSE text on a stream.
    pub fn raw(&self, stream: &str, text: &str) {
        let text = text.to_owned();
        self.with_slot(stream, |slot| {
            let _ = slot.tx.send(Chunk::Text(text));
        });
    }

    /// Ends a stream's body (after what was queued); the next GET opens a new one.
    pub fn end(&self, stream: &str) {
        self.with_slot(stream, |slot| {
            let _ = slot.tx.send(Chunk::End);
        });
        self.slots.lock().unwrap().remove(stream);
    }

    /// How many times a stream was opened.
    pub fn opened(&self, stream: &str) -> usize {
        self.opened
            .lock()
            .unwrap()
            .get(stream)
            .copied()
            .unwrap_or(0)
    }

    fn take(&self, stream: &str) -> Option<mpsc::UnboundedReceiver<Chunk>> {
        let rx = self.with_slot(stream, |slot| slot.rx.take());
        if rx.is_some() {
            *self
                .opened
                .lock()
                .unwrap()
                .entry(stream.to_owned())
                .or_default() += 1;
        }
        rx
    }
}

/// Answers a POST: the request, and the streams to push messages on.
pub type OnPost = Arc<dyn Fn(&Request, &Streams) -> Reply + Send + Sync>;
/// Answers a stream GET instead of opening the stream, when it returns `Some`.
pub type OnGet = Arc<dyn Fn(&Request, &Streams) -> Option<Reply> + Send + Sync>;

struct Inner {
    on_post: OnPost,
    on_get: Option<OnGet>,
    streams: Streams,
    log: Mutex<Vec<Request>>,
    /// The `client_id` profile: `/acp/rpc` and `/acp/sse`, `: connected` first.
    client_id: bool,
}

/// A fake agent server on 127.0.0.1.
#[derive(Clone)]
pub struct Fake {
    inner: Arc<Inner>,
    pub addr: SocketAddr,
}

impl Fake {
    /// A Streamable HTTP fake on `/acp`.
    pub async fn start(on_post: OnPost) -> Self {
        Self::start_with(on_post, None, false).await
    }

    pub async fn start_with(on_post: OnPost, on_get: Option<OnGet>, client_id: bool) -> Self {
        let inner = Arc::new(Inner {
            on_post,
            on_get,
            streams: Streams::default(),
            log: Mutex::new(Vec::new()),
            client_id,
        });
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { inner, addr }
    }

    pub fn url(&self) -> String {
        format!("http://{}/acp", self.addr)
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn streams(&self) -> &Streams {
        &self.inner.streams
    }

    /// Every request so far.
    pub fn log(&self) -> Vec<Request> {
        self.inner.log.lock().unwrap().clone()
    }

    /// The POSTs so far.
    pub fn posts(&self) -> Vec<Request> {
        self.log()
            .into_iter()
            .filter(|r| r.method == Method::POST)
            .collect()
    }

    /// The first POST of `method`.
    pub fn post_of(&self, method: &str) -> Request {
        self.posts()
            .into_iter()
            .find(|r| r.method_name() == Some(method))
            .unwrap_or_else(|| panic!("no POST of {method}"))
    }

    /// Waits until a request matching `pred` was received.
    pub async fn wait_for(&self, what: &str, pred: impl Fn(&Request) -> bool) -> Request {
        within(what, async {
            loop {
                if let Some(r) = self.log().into_iter().find(&pred) {
                    return r;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
    }
}

async fn handle(
    State(inner): State<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let message = if method == Method::POST {
        let value: Value = serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("the client posted a body that is not JSON ({e})"));
        check(&value);
        Some(value)
    } else {
        None
    };
    let request = Request {
        method: method.clone(),
        path: uri.path().to_owned(),
        query: uri.query().map(str::to_owned),
        headers,
        message,
    };
    inner.log.lock().unwrap().push(request.clone());
    if inner.client_id {
        let expected = if method == Method::POST {
            "/acp/rpc"
        } else {
            "/acp/sse"
        };
        let has_id = request
            .query
            .as_deref()
            .is_some_and(|q| q.starts_with("client_id=") && q.len() > "client_id=".len());
        if request.path != expected || !has_id {
            return reply(Reply::text(400, "client_id is required"));
        }
    } else if request.path != "/acp" {
        return reply(Reply::status(404));
    }
    match method {
        Method::POST => reply((inner.on_post)(&request, &inner.streams)),
        Method::GET => {
            if let Some(on_get) = &inner.on_get {
                if let Some(answer) = on_get(&request, &inner.streams) {
                    return reply(answer);
                }
            }
            let name = if inner.client_id {
                ""
            } else {
                request.session().unwrap_or("")
            };
            match inner.streams.take(name) {
                Some(rx) => event_stream(rx, inner.client_id),
                None => reply(Reply::text(
                    409,
                    "Outbound stream already has an active receiver",
                )),
            }
        }
        Method::DELETE => reply(Reply::accepted()),
        _ => reply(Reply::status(405)),
    }
}

fn reply(r: Reply) -> Response {
    let mut response = Response::new(Body::from(r.body));
    *response.status_mut() = StatusCode::from_u16(r.status).unwrap();
    for (name, value) in r.headers {
        response.headers_mut().append(
            axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    response
}

fn event_stream(rx: mpsc::UnboundedReceiver<Chunk>, client_id: bool) -> Response {
    let first = client_id.then(|| Ok::<_, Infallible>(Bytes::from_static(b": connected\n\n")));
    let rest = futures::stream::unfold(rx, |mut rx| async move {
        match rx.recv().await {
            Some(Chunk::Text(text)) => Some((Ok::<_, Infallible>(Bytes::from(text)), rx)),
            Some(Chunk::End) | None => None,
        }
    });
    let body = futures::StreamExt::chain(futures::stream::iter(first), rest);
    let mut response = Response::new(Body::from_stream(body));
    response
        .headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    response
        .headers_mut()
        .insert("cache-control", "no-cache".parse().unwrap());
    response
}

/// The usual answers of a Streamable HTTP agent: `initialize` (200, `Acp-Connection-Id:
/// conn-1`, a cookie), `session/new` (202, `s-1` on the connection stream), and the rest
/// accepted; `session/prompt` runs `turn`.
pub fn agent(turn: impl Fn(&Request, &Streams) -> Reply + Send + Sync + 'static) -> OnPost {
    Arc::new(move |request, streams| match request.method_name() {
        Some("initialize") => Reply::json(200, &initialize_result(&request.id()))
            .header("acp-connection-id", "conn-1")
            .header("set-cookie", "affinity=node-7; Path=/"),
        Some("session/new") => {
            streams.send("", &result(&request.id(), json!({"sessionId": "s-1"})));
            Reply::accepted()
        }
        _ => turn(request, streams),
    })
}
