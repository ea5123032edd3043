//! Streamable HTTP (and the `client_id` profile): one `POST` per message, sent one at a time
//! in order, and server-sent event streams feeding the inbox.
//!
//! The sender is one loop ([`Http::run`]) that owns the running `POST` and every stream
//! reader, so that dropping it stops everything. It takes the driver's messages one at a
//! time: for a session-scoped message it first makes sure the session's stream is open (its
//! `GET` answered `2xx`), then posts, then maps the answer:
//!
//! | answer | effect |
//! | --- | --- |
//! | `2xx` | accepted; a JSON body is an incoming message |
//! | `409` for a session | the session failed: its requests get `-32603` errors until `session/load` or `session/resume` |
//! | `401`, `403`, `404`, `410`, a network error | the connection ends |
//! | anything else, for a request | only that request fails: `-32603` with `data: {status, body}` |
//! | anything else, for a notification or a response | the connection ends |
//!
//! The connection's stream ending ends the connection; a session's stream ending fails the
//! session's pending requests, and the next message for the session opens it again.

mod streams;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use bytes::Bytes;
use futures::channel::mpsc;
use futures::future::{BoxFuture, OptionFuture};
use futures::stream::{FuturesUnordered, StreamExt};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::error::{Error, MAX_BODY_EXCERPT, excerpt};
use super::link::Link;
use crate::message::{Shape, shape};
use crate::{CONNECTION_ID, PROTOCOL_VERSION, SESSION_ID};

/// The most session streams open (or failed) at once.
const MAX_SESSION_STREAMS: usize = 1024;

/// The most agent requests remembered with the session stream they came on, until answered.
const MAX_ROUTES: usize = 4096;

/// The most of our requests remembered until answered (to fail them with their session).
const MAX_PENDING: usize = 65536;

/// `-32603`, the JSON-RPC internal error, for errors standing for an answer.
const INTERNAL_ERROR: i64 = -32603;

/// Where the messages go.
#[derive(Debug)]
pub(crate) enum Mode {
    /// Streamable HTTP: one endpoint for everything.
    Streamable { endpoint: Url },
    /// The `client_id` profile: posts to one URL, reads one stream from another.
    ClientId { rpc: Url, sse: Url },
}

/// The settings the transport needs.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) headers: HeaderMap,
    pub(crate) max_message_bytes: usize,
    pub(crate) connect_timeout: Option<Duration>,
    pub(crate) post_timeout: Option<Duration>,
    pub(crate) stream_idle_timeout: Option<Duration>,
    pub(crate) close_timeout: Duration,
}

/// One connection's HTTP side.
#[derive(Debug)]
pub(crate) struct Http {
    /// This transport, for the tasks it starts.
    me: Weak<Http>,
    client: reqwest::Client,
    mode: Mode,
    settings: Settings,
    link: Arc<Link>,
    state: Mutex<State>,
    /// New stream readers, for the loop to run.
    streams: tokio::sync::mpsc::UnboundedSender<BoxFuture<'static, ()>>,
    /// True once the `DELETE` went out (or need not).
    said_goodbye: AtomicBool,
}

#[derive(Debug, Default)]
struct State {
    /// `Acp-Connection-Id`, once `initialize` was answered (Streamable HTTP).
    connection_id: Option<HeaderValue>,
    /// `Acp-Protocol-Version`: the version that `initialize` negotiated, sent with the
    /// connection's id.
    protocol_version: Option<HeaderValue>,
    sessions: HashMap<String, SessionStream>,
    /// The agent's requests that came on a session stream, by id: our answer carries that
    /// session's header.
    routes: HashMap<String, String>,
    /// Our requests not answered yet, by id, with their session.
    pending: HashMap<String, Option<String>>,
    /// True once a full `pending` table was reported.
    warned_pending: bool,
}

#[derive(Debug)]
enum SessionStream {
    /// Its `GET` is on its way; these wait for the answer.
    Opening(Vec<oneshot::Sender<Result<(), Refusal>>>),
    Open,
    /// The agent answered `409`: the session failed, for this reason, until loaded or
    /// resumed again. `reading`: its stream is still open (the `409` was for a `POST`), and
    /// serves again once the session is loaded.
    Failed {
        reason: String,
        reading: bool,
    },
}

/// Why a message cannot be posted for its session.
#[derive(Debug, Clone)]
enum Refusal {
    /// The session failed (`409`); the reason.
    Failed(String),
    /// The stream's `GET` got another status: requests fail with it.
    Status {
        message: String,
        status: u16,
        body: String,
    },
    /// Too many sessions.
    TooMany,
    /// The connection ended (already reported).
    Ended,
}

/// The answer to a `POST`.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    /// The body: whole for a `2xx` (empty when larger than the limit), an excerpt otherwise.
    body: Bytes,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `future`, failing with [`Error::Timeout`] after `after` (if set).
async fn within<T>(
    after: Option<Duration>,
    action: &'static str,
    url: &Url,
    future: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    match after {
        Some(after) => tokio::time::timeout(after, future)
            .await
            .unwrap_or_else(|_| {
                Err(Error::Timeout {
                    action,
                    url: url.to_string(),
                    after,
                })
            }),
        None => future.await,
    }
}

fn transport_error(action: &'static str, url: &Url, e: reqwest::Error) -> Error {
    Error::Transport {
        action,
        url: url.to_string(),
        source: Box::new(e.without_url()),
    }
}

/// A JSON-RPC error response standing for the answer to request `id`.
fn error_response(id: &str, message: &str, data: Option<Value>) -> Bytes {
    let id: Value = serde_json::from_str(id).unwrap_or(Value::Null);
    let mut error = json!({ "code": INTERNAL_ERROR, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    let response = json!({ "jsonrpc": "2.0", "id": id, "error": error });
    Bytes::from(serde_json::to_vec(&response).unwrap_or_default())
}

/// True when an HTTP status ends the connection.
fn is_fatal(status: u16) -> bool {
    matches!(status, 401 | 403 | 404 | 410)
}

impl Http {
    /// The transport, and the receiving end of its stream-reader channel (for [`Http::run`]).
    pub(crate) fn new(
        client: reqwest::Client,
        mode: Mode,
        settings: Settings,
        link: Arc<Link>,
    ) -> (
        Arc<Self>,
        tokio::sync::mpsc::UnboundedReceiver<BoxFuture<'static, ()>>,
    ) {
        let (streams, streams_rx) = tokio::sync::mpsc::unbounded_channel();
        let said_goodbye = AtomicBool::new(matches!(mode, Mode::ClientId { .. }));
        let http = Arc::new_cyclic(|me| Self {
            me: me.clone(),
            client,
            mode,
            settings,
            link,
            state: Mutex::new(State::default()),
            streams,
            said_goodbye,
        });
        (http, streams_rx)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn post_url(&self) -> &Url {
        match &self.mode {
            Mode::Streamable { endpoint } => endpoint,
            Mode::ClientId { rpc, .. } => rpc,
        }
    }

    fn stream_url(&self) -> &Url {
        match &self.mode {
            Mode::Streamable { endpoint } => endpoint,
            Mode::ClientId { sse, .. } => sse,
        }
    }

    /// The sender loop: takes the driver's messages one at a time and runs the stream
    /// readers, until the connection stops; then says goodbye.
    pub(crate) async fn run(
        self: Arc<Self>,
        mut outgoing: mpsc::Receiver<Bytes>,
        mut new_streams: tokio::sync::mpsc::UnboundedReceiver<BoxFuture<'static, ()>>,
    ) {
        let mut streams = FuturesUnordered::new();
        let mut sending: Option<BoxFuture<'static, ()>> = None;
        let link = self.link.clone();
        let mut stopped = std::pin::pin!(link.stopped());
        loop {
            tokio::select! {
                // Stopping comes first: after it nothing more is read or sent.
                biased;
                () = &mut stopped => break,
                Some(stream) = new_streams.recv() => streams.push(stream),
                Some(()) = streams.next(), if !streams.is_empty() => {}
                Some(()) = OptionFuture::from(sending.as_mut()), if sending.is_some() => {
                    sending = None;
                }
                message = outgoing.next(), if sending.is_none() => match message {
                    Some(message) => sending = Some(Box::pin(self.clone().send(message))),
                    // The driver is gone.
                    None => break,
                },
            }
        }
        drop(sending);
        drop(streams);
        self.link.inbox.close();
        self.goodbye().await;
    }

    /// The headers naming the connection `id`: `Acp-Connection-Id`, and `Acp-Protocol-Version`
    /// once `initialize` negotiated a version.
    pub(crate) fn connection_headers(&self, id: HeaderValue) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(2);
        headers.insert(CONNECTION_ID, id);
        if let Some(version) = self.lock().protocol_version.clone() {
            headers.insert(PROTOCOL_VERSION, version);
        }
        headers
    }

    /// Sends `DELETE` for the connection, once, ignoring failures.
    async fn goodbye(&self) {
        let Mode::Streamable { endpoint } = &self.mode else {
            return;
        };
        let Some(connection_id) = self.lock().connection_id.clone() else {
            return;
        };
        if self.said_goodbye.swap(true, Ordering::AcqRel) {
            return;
        }
        let request = self
            .client
            .delete(endpoint.clone())
            .headers(self.settings.headers.clone())
            .headers(self.connection_headers(connection_id))
            .send();
        match tokio::time::timeout(self.settings.close_timeout, request).await {
            Ok(Ok(response)) => {
                tracing::debug!(status = %response.status(), "DELETE of the connection answered");
            }
            Ok(Err(error)) => tracing::debug!(%error, "DELETE of the connection failed"),
            Err(_) => tracing::debug!("DELETE of the connection timed out"),
        }
    }

    /// Sends `DELETE` from a task of its own, if it is still due (the driver was dropped).
    pub(crate) fn goodbye_detached(self: &Arc<Self>) {
        if self.said_goodbye.load(Ordering::Acquire) || self.lock().connection_id.is_none() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let this = self.clone();
            runtime.spawn(async move { this.goodbye().await });
        }
    }

    /// Posts one message and deals with the answer.
    async fn send(self: Arc<Self>, message: Bytes) {
        let Ok(shape) = shape(&message) else {
            // The driver only sends messages; never expected.
            tracing::warn!("dropped an outgoing message that is not a JSON-RPC object");
            return;
        };
        let mut session = None;
        let mut connection_id = None;
        if let Mode::Streamable { .. } = self.mode {
            let Some(id) = self.lock().connection_id.clone() else {
                return self.initialize(message, shape).await;
            };
            connection_id = Some(id);
            session = if shape.is_response() {
                let id = shape.id.as_deref().unwrap_or("null");
                self.lock().routes.remove(id)
            } else {
                shape.params_session.clone()
            };
            if session
                .as_deref()
                .is_some_and(|s| HeaderValue::from_str(s).is_err())
            {
                let reason = "the session id cannot be sent as an Acp-Session-Id header";
                return self.fail_message(&shape, reason, None);
            }
            if let Some(session_id) = &session {
                let reopen = matches!(
                    shape.method.as_deref(),
                    Some("session/load" | "session/resume")
                );
                if let Err(refusal) = self.session_stream(session_id, reopen).await {
                    return self.refused(&shape, session_id, refusal);
                }
            }
        }
        let session_header = session
            .as_deref()
            .and_then(|s| HeaderValue::from_str(s).ok());
        self.track(&shape, session.as_deref());
        let answer = self
            .post(message, connection_id.as_ref(), session_header.as_ref())
            .await;
        match answer {
            Ok(answer) if answer.status.is_success() => self.accepted(answer),
            Ok(answer) => self.not_accepted(&shape, session.as_deref(), answer),
            Err(error) => {
                if let Some(id) = shape.id.as_deref().filter(|_| shape.is_request()) {
                    self.answer_error(id, &error.to_string(), None);
                }
                self.link.fail(error);
            }
        }
    }

    /// The first message over Streamable HTTP: `initialize`, whose answer carries the
    /// connection's id; then the connection's stream opens.
    async fn initialize(&self, message: Bytes, shape: Shape) {
        let (Some(id), Some("initialize")) = (shape.id.as_deref(), shape.method.as_deref()) else {
            let reason = "over Streamable HTTP the first message must be `initialize`";
            return self.fail_message(&shape, reason, None);
        };
        let url = self.post_url();
        let fail = |reason: String| {
            let error = Error::Initialize {
                url: url.to_string(),
                reason,
            };
            self.answer_error(id, &error.to_string(), None);
            self.link.fail(error);
        };
        self.track(&shape, None);
        let answer = match self.post(message, None, None).await {
            Ok(answer) if answer.status.is_success() => answer,
            Ok(answer) => return self.not_accepted(&shape, None, answer),
            Err(error) => {
                self.answer_error(id, &error.to_string(), None);
                return self.link.fail(error);
            }
        };
        let reply = match crate::message::shape(&answer.body) {
            Ok(reply) if reply.is_response() && reply.id.as_deref() == Some(id) => reply,
            _ => {
                let status = answer.status.as_u16();
                return fail(format!(
                    "the {status} answer's body is not the JSON-RPC response to it: {:?}",
                    excerpt(&answer.body)
                ));
            }
        };
        let Some(connection_id) = answer.headers.get(CONNECTION_ID).cloned() else {
            if reply.error {
                // The agent refused: hand its error on; a later `initialize` may try again.
                self.lock().pending.remove(id);
                return self.link.inbox.push_now(answer.body);
            }
            return fail("its answer has no Acp-Connection-Id header".into());
        };
        self.link
            .set_connection_id(String::from_utf8_lossy(connection_id.as_bytes()).into_owned());
        {
            let mut state = self.lock();
            state.connection_id = Some(connection_id);
            state.protocol_version =
                crate::message::negotiated_version(&answer.body).map(HeaderValue::from);
        }
        let stream = match self.open(None).await {
            Ok(stream) => stream,
            Err(error) => {
                self.answer_error(id, &error.to_string(), None);
                return self.link.fail(error);
            }
        };
        self.lock().pending.remove(id);
        self.link.inbox.push_now(answer.body);
        self.start_connection_reader(stream);
    }

    /// `POST`s a message; the answer's body is read whole for a `2xx` (within the message
    /// limit), as an excerpt otherwise.
    async fn post(
        &self,
        message: Bytes,
        connection_id: Option<&HeaderValue>,
        session: Option<&HeaderValue>,
    ) -> Result<Answer, Error> {
        let url = self.post_url();
        let mut request = self
            .client
            .post(url.clone())
            .headers(self.settings.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json")
            .body(message);
        if let Some(id) = connection_id {
            request = request.headers(self.connection_headers(id.clone()));
        }
        if let Some(session) = session {
            request = request.header(SESSION_ID, session.clone());
        }
        let max_len = self.settings.max_message_bytes;
        within(self.settings.post_timeout, "POST", url, async move {
            let mut response = request
                .send()
                .await
                .map_err(|e| transport_error("POST", url, e))?;
            let status = response.status();
            let limit = if status.is_success() {
                max_len
            } else {
                MAX_BODY_EXCERPT
            };
            let mut body = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| transport_error("POST", url, e))?
            {
                if body.len() + chunk.len() > limit {
                    if status.is_success() {
                        tracing::warn!(%url, limit, "skipped a POST answer's body over the limit");
                        body.clear();
                    } else {
                        body.extend_from_slice(&chunk[..limit - body.len()]);
                    }
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Answer {
                status,
                headers: response.headers().clone(),
                body: Bytes::from(body),
            })
        })
        .await
    }

    /// A `2xx` answer: its body, if any, is a message from the agent.
    fn accepted(&self, answer: Answer) {
        if answer.body.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match shape(&answer.body) {
            Ok(shape) => {
                self.note_incoming(&shape, None);
                self.link.inbox.push_now(answer.body);
            }
            Err(why) => {
                tracing::warn!(url = %self.post_url(), %why, "ignored a POST answer's body");
            }
        }
    }

    /// Any other answer; see the module's table.
    fn not_accepted(&self, shape: &Shape, session: Option<&str>, answer: Answer) {
        let status = answer.status.as_u16();
        let body = excerpt(&answer.body);
        let error = Error::Status {
            action: "POST",
            url: self.post_url().to_string(),
            status,
            body: body.clone(),
        };
        let message = error.to_string();
        let data = json!({ "status": status, "body": body });
        match (status, session) {
            (409, Some(session)) => self.fail_session(session, &message),
            (status, _) if is_fatal(status) => {
                if let Some(id) = shape.id.as_deref().filter(|_| shape.is_request()) {
                    self.answer_error(id, &message, Some(data));
                }
                self.link.fail(error);
            }
            _ if shape.is_request() => {
                self.answer_error(shape.id.as_deref().unwrap_or("null"), &message, Some(data));
            }
            // A notification or a response that did not arrive: the peers no longer agree on
            // what was said.
            _ => self.link.fail(error),
        }
    }

    /// A message that cannot be posted for its session.
    fn refused(&self, shape: &Shape, session: &str, refusal: Refusal) {
        match refusal {
            Refusal::Ended => {}
            Refusal::Failed(reason) => {
                let reason = format!(
                    "session {session} failed ({reason}); session/load or session/resume it first"
                );
                self.fail_message(shape, &reason, None);
            }
            Refusal::TooMany => {
                let reason = format!("too many session streams (at most {MAX_SESSION_STREAMS})");
                self.fail_message(shape, &reason, None);
            }
            Refusal::Status {
                message,
                status,
                body,
            } => {
                let data = json!({ "status": status, "body": body });
                self.fail_message(shape, &message, Some(data));
            }
        }
    }

    /// A message that is not sent: a request gets an error answer; anything else is dropped
    /// with a warning.
    fn fail_message(&self, shape: &Shape, reason: &str, data: Option<Value>) {
        match shape.id.as_deref().filter(|_| shape.is_request()) {
            Some(id) => self.answer_error(id, reason, data),
            None => tracing::warn!(
                method = shape.method.as_deref().unwrap_or("(response)"),
                reason,
                "dropped an outgoing message"
            ),
        }
    }

    /// Answers our own request `id` with a `-32603` error, as if the agent had.
    fn answer_error(&self, id: &str, message: &str, data: Option<Value>) {
        self.lock().pending.remove(id);
        self.link.inbox.push_now(error_response(id, message, data));
    }

    /// Remembers a request we send, until answered.
    fn track(&self, shape: &Shape, session: Option<&str>) {
        let (true, Some(id)) = (shape.is_request(), shape.id.as_deref()) else {
            return;
        };
        let mut state = self.lock();
        if state.pending.len() >= MAX_PENDING {
            if !std::mem::replace(&mut state.warned_pending, true) {
                tracing::warn!("too many unanswered requests: not all are tracked");
            }
            return;
        }
        state
            .pending
            .insert(id.to_owned(), session.map(str::to_owned));
    }
}
