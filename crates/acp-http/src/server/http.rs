//! The HTTP side of the endpoint: the guard every request passes (origin, authentication),
//! POST, GET (SSE streams, or the WebSocket upgrade) and DELETE.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, FromRequestParts, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::BytesMut;
use serde_json::json;

use crate::headers::{CONNECTION_ID, PROTOCOL_VERSION, SESSION_ID};
use crate::message::{self, NotAMessage};
use crate::server::budget::BodyShare;
use crate::server::conn::{Connection, Ended, Refusal};
use crate::server::guard::{self, Guard};
use crate::server::reply::{not_opened, retry_later, text};
use crate::server::{AcpServer, Caller, Inner, SUBPROTOCOL, id_header};

impl AcpServer {
    /// The endpoint as an axum [`Router`], to serve with [`serve`](crate::server::serve) or to
    /// mount in an existing application (`app.merge(server.router())`).
    ///
    /// Every request first passes [the guard](crate::server#browsers): a `Host` that does not
    /// name this server (see [`allowed_hosts`](crate::server::ServerOptions::allowed_hosts))
    /// gets `421`, an `Origin` not in
    /// [`allowed_origins`](crate::server::ServerOptions::allowed_origins) gets `403`, a
    /// WebSocket offering `acp.bearer.<token>` without `acp` gets `400`, and the
    /// [`auth`](crate::server::ServerOptions::auth) hook may answer `401` / `403`, before
    /// anything is allocated. Then:
    ///
    /// | case | answer |
    /// | --- | --- |
    /// | a method other than POST, GET, DELETE (OPTIONS goes to CORS when origins are allowed) | `405` |
    /// | POST whose `Content-Type` is not `application/json` (parameters allowed) | `415` |
    /// | POST body over [`max_body_bytes`](crate::server::ServerOptions::max_body_bytes) | `413` |
    /// | POST body not complete within [`body_timeout`](crate::server::ServerOptions::body_timeout) | `408` |
    /// | POST body finding no room in [`max_total_body_bytes`](crate::server::ServerOptions::max_total_body_bytes) within the body timeout | `503`, `Retry-After: 1` |
    /// | POST while [`max_queued_posts`](crate::server::ServerOptions::max_queued_posts) of its connection wait for the agent | `429`, `Retry-After: 1` |
    /// | POST body not JSON, or JSON but not an object | `400` |
    /// | POST body a JSON array (a batch) | `400` with a JSON-RPC `-32600` error, `id: null` |
    /// | `initialize` with `Acp-Connection-Id` | `400` |
    /// | `initialize` with a null id | `400` |
    /// | `initialize` beyond [`max_connections`](crate::server::ServerOptions::max_connections), or while shutting down | `503`, `Retry-After: 1` |
    /// | `initialize` beyond [`max_connections_per_client`](crate::server::ServerOptions::max_connections_per_client) | `429`, `Retry-After: 1` |
    /// | `initialize` of a bridge running [`max_programs`](crate::server::BridgeOptions::max_programs) | `503`, `Retry-After: 1` |
    /// | `initialize` the agent does not answer in time | `504` |
    /// | `initialize` whose agent ends before answering | `500` with a JSON-RPC `-32603` error |
    /// | other POST, GET or DELETE without `Acp-Connection-Id` | `400` |
    /// | an unknown or ended `Acp-Connection-Id`, or one opened by another principal ([`AuthDecision::AllowAs`](crate::server::AuthDecision::AllowAs)) | `404` |
    /// | `Acp-Session-Id` that differs from `params.sessionId`, or from the session of the request a response answers | `400` |
    /// | POST or GET whose `Acp-Protocol-Version` is not the number of the version the connection's `initialize` negotiated (without the header: accepted) | `400` |
    /// | accepted POST (also a session the server does not know: the agent decides) | `202`, empty body |
    /// | GET without `Accept: text/event-stream` (or `*/*`) | `406` |
    /// | GET of a stream that has a reader | `409` |
    /// | GET of a session stream the agent has not named, beyond [`max_unconfirmed_streams`](crate::server::ServerOptions::max_unconfirmed_streams) | `404` |
    /// | DELETE | `202`; the connection's streams end and its agent stops |
    pub fn router(&self) -> Router {
        let inner = self.inner.clone();
        let options = &inner.options;
        let mut router = Router::new().route(
            &options.path,
            post(post_message).get(get_stream).delete(delete_connection),
        );
        if options.client_id_profile {
            let base = options.path.trim_end_matches('/');
            router = router
                .route(&format!("{base}/rpc"), post(post_client_id))
                .route(&format!("{base}/sse"), get(get_client_id));
        }
        let guard = Guard::new(options);
        let mut router = router
            .layer(DefaultBodyLimit::max(options.max_body_bytes))
            .layer(middleware::from_fn_with_state(
                guard.clone(),
                guard::check_request,
            ))
            .with_state(inner.clone());
        if let Some(cors) = guard.cors() {
            router = router.layer(cors);
        }
        router.layer(middleware::from_fn_with_state(guard, guard::check_host))
    }
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = header_str(headers, header::CONTENT_TYPE.as_str()) else {
        return false;
    };
    let media = value.split(';').next().unwrap_or_default().trim();
    media.eq_ignore_ascii_case("application/json")
}

fn refusal(refusal: Refusal) -> Response {
    match refusal {
        Refusal::BadRequest(why) => text(StatusCode::BAD_REQUEST, why),
        Refusal::Gone => text(StatusCode::NOT_FOUND, "unknown Acp-Connection-Id"),
        Refusal::UnknownSession => text(StatusCode::NOT_FOUND, "unknown Acp-Session-Id"),
        Refusal::Busy => text(StatusCode::CONFLICT, "the stream already has a reader"),
        Refusal::TooManyQueued => retry_later(
            StatusCode::TOO_MANY_REQUESTS,
            "too many requests of this connection wait for its agent",
        ),
    }
}

/// Reads a POST's body within the body timeout, holding its share of the server's body
/// budget: taken before the bytes are read when the length is announced, as they come
/// otherwise.
async fn read_body(
    inner: &Inner,
    body: Body,
    headers: &HeaderMap,
) -> Result<(Bytes, BodyShare), Response> {
    let max = inner.options.max_body_bytes;
    let too_large = || {
        text(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the body is over {max} bytes"),
        )
    };
    let announced = header_str(headers, header::CONTENT_LENGTH.as_str())
        .and_then(|v| v.trim().parse::<usize>().ok());
    if announced.is_some_and(|len| len > max) {
        return Err(too_large());
    }
    let deadline = tokio::time::Instant::now() + inner.options.body_timeout;
    let busy = || {
        retry_later(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server holds too many request bodies; try again",
        )
    };
    let mut share =
        match tokio::time::timeout_at(deadline, inner.bodies.take(announced.unwrap_or(0))).await {
            Ok(share) => share,
            Err(_) => return Err(busy()),
        };
    // A body that comes in one piece (most do) is kept as it came, without a copy.
    let mut first: Option<Bytes> = None;
    let mut data = BytesMut::new();
    let mut len = 0;
    let mut stream = body.into_data_stream();
    loop {
        let chunk =
            match tokio::time::timeout_at(deadline, futures::StreamExt::next(&mut stream)).await {
                Err(_) => {
                    return Err(text(
                        StatusCode::REQUEST_TIMEOUT,
                        format!(
                            "the body did not arrive within {:?}",
                            inner.options.body_timeout
                        ),
                    ));
                }
                Ok(None) => break,
                Ok(Some(Ok(chunk))) => chunk,
                Ok(Some(Err(error))) => {
                    // The client went away, or broke its framing.
                    tracing::debug!(%error, "a POST body could not be read");
                    return Err(text(StatusCode::BAD_REQUEST, "the body could not be read"));
                }
            };
        if len + chunk.len() > max {
            return Err(too_large());
        }
        len += chunk.len();
        match first.take() {
            None if data.is_empty() => first = Some(chunk),
            earlier => {
                if let Some(earlier) = earlier {
                    data.reserve(announced.unwrap_or(len).min(max));
                    data.extend_from_slice(&earlier);
                }
                data.extend_from_slice(&chunk);
            }
        }
        let held = share.num_permits();
        if len > held {
            // A body longer than announced, or of no announced length: its share grows.
            let more = len - held;
            match tokio::time::timeout_at(deadline, inner.bodies.take(more)).await {
                Ok(extra) => share.merge(extra),
                Err(_) => return Err(busy()),
            }
        }
    }
    let body = match first {
        Some(whole) => whole,
        None => data.freeze(),
    };
    Ok((body, share))
}

fn json_body(status: StatusCode, body: impl Into<Body>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.into(),
    )
        .into_response()
}

async fn post_message(State(inner): State<Arc<Inner>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    let caller = Caller::of(&parts.extensions);
    if !is_json(&headers) {
        return text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        );
    }
    // A connection over its share of the body budget: refused before its body is read.
    if let Some(conn) = header_str(&headers, CONNECTION_ID).and_then(|id| inner.get(id, &caller))
        && !conn.has_room_for_bodies()
    {
        return refusal(Refusal::TooManyQueued);
    }
    let (body, share) = match read_body(&inner, body, &headers).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let shape = match message::shape(&body) {
        Ok(shape) => shape,
        Err(NotAMessage::Batch) => {
            let error = json!({
                "jsonrpc": "2.0", "id": null,
                "error": {"code": -32600, "message": "Invalid request: JSON-RPC batches are not supported"},
            });
            return json_body(StatusCode::BAD_REQUEST, error.to_string());
        }
        Err(why) => return text(StatusCode::BAD_REQUEST, why.to_string()),
    };
    if std::str::from_utf8(&body).is_err() {
        return text(StatusCode::BAD_REQUEST, "the body is not UTF-8");
    }
    let connection = header_str(&headers, CONNECTION_ID);
    if shape.is_request() && shape.method.as_deref() == Some("initialize") {
        if connection.is_some() {
            return text(
                StatusCode::BAD_REQUEST,
                "initialize is not allowed on an existing connection",
            );
        }
        return initialize(&inner, &caller, body, share, &shape).await;
    }
    let Some(connection) = connection else {
        return text(StatusCode::BAD_REQUEST, "Acp-Connection-Id header required");
    };
    let Some(conn) = inner.get(connection, &caller) else {
        return refusal(Refusal::Gone);
    };
    if let Some(refused) = other_version(&headers, &conn) {
        return refused;
    }
    match conn
        .accept(body, Some(share), &shape, header_str(&headers, SESSION_ID))
        .await
    {
        Ok(()) => StatusCode::ACCEPTED.into_response(),
        Err(why) => refusal(why),
    }
}

/// The refusal (`400`) of a request whose `Acp-Protocol-Version` is not a version number, or
/// not the one its connection negotiated; `None` for a request without the header (it is a
/// "should" of the transport draft) or with the right one.
fn other_version(headers: &HeaderMap, conn: &Connection) -> Option<Response> {
    let sent = headers.get(PROTOCOL_VERSION)?;
    let number = sent
        .to_str()
        .ok()
        .and_then(|v| v.trim().parse::<u16>().ok());
    match (number, conn.protocol_version()) {
        (None, _) => Some(text(
            StatusCode::BAD_REQUEST,
            "Acp-Protocol-Version must be the number of the protocol version initialize negotiated",
        )),
        (Some(sent), Some(negotiated)) if sent != negotiated => Some(text(
            StatusCode::BAD_REQUEST,
            format!(
                "Acp-Protocol-Version {sent} is not the version this connection negotiated ({negotiated})"
            ),
        )),
        _ => None,
    }
}

/// Ends a connection whose `initialize` did not complete (the client gave up, or it failed).
struct AbandonGuard<'a> {
    inner: &'a Inner,
    id: String,
    done: bool,
}

impl Drop for AbandonGuard<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.inner.remove(&self.id, Ended::InitializeAbandoned);
        }
    }
}

async fn initialize(
    inner: &Arc<Inner>,
    caller: &Caller,
    body: Bytes,
    share: BodyShare,
    shape: &message::Shape,
) -> Response {
    let id = shape.id.clone().unwrap_or_default();
    if id == "null" {
        return text(StatusCode::BAD_REQUEST, "initialize needs a non-null id");
    }
    let conn = match inner.open(caller, Connection::start, Arc::clone) {
        Ok(conn) => conn,
        Err(why) => return not_opened(why),
    };
    let mut guard = AbandonGuard {
        inner,
        id: conn.id.clone(),
        done: false,
    };
    let answer = conn.expect_initialize(id.clone());
    if conn.accept(body, Some(share), shape, None).await.is_err() {
        return initialize_failed(&id, "the agent ended");
    }
    match tokio::time::timeout(inner.options.initialize_timeout, answer).await {
        Ok(Ok(answer)) => {
            guard.done = true;
            if let Some(version) = message::negotiated_version(&answer) {
                conn.negotiated(version);
            }
            let mut response = json_body(StatusCode::OK, answer);
            response
                .headers_mut()
                .insert(CONNECTION_ID, id_header(&conn.id));
            response
        }
        Ok(Err(_)) => initialize_failed(&id, "the agent ended before answering"),
        Err(_) => text(
            StatusCode::GATEWAY_TIMEOUT,
            format!(
                "the agent did not answer initialize within {:?}",
                inner.options.initialize_timeout
            ),
        ),
    }
}

fn initialize_failed(id: &str, why: &str) -> Response {
    let id: serde_json::Value = serde_json::from_str(id).unwrap_or(serde_json::Value::Null);
    let error = json!({
        "jsonrpc": "2.0", "id": id,
        "error": {"code": -32603, "message": "Initialize failed", "data": why},
    });
    json_body(StatusCode::INTERNAL_SERVER_ERROR, error.to_string())
}

fn accepts_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.split(';').next().unwrap_or_default().trim())
        .any(|m| m.eq_ignore_ascii_case("text/event-stream") || m == "*/*")
}

fn is_upgrade(headers: &HeaderMap) -> bool {
    header_str(headers, header::UPGRADE.as_str())
        .is_some_and(|u| u.eq_ignore_ascii_case("websocket"))
}

async fn get_stream(State(inner): State<Arc<Inner>>, request: Request) -> Response {
    let (mut parts, _body) = request.into_parts();
    let caller = Caller::of(&parts.extensions);
    if is_upgrade(&parts.headers) {
        return match axum::extract::ws::WebSocketUpgrade::from_request_parts(&mut parts, &()).await
        {
            Ok(upgrade) => {
                crate::server::ws::upgrade(inner, &caller, upgrade.protocols([SUBPROTOCOL]))
            }
            Err(rejection) => rejection.into_response(),
        };
    }
    let headers = &parts.headers;
    if !accepts_event_stream(headers) {
        return text(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must include text/event-stream",
        );
    }
    let Some(connection) = header_str(headers, CONNECTION_ID) else {
        return text(StatusCode::BAD_REQUEST, "Acp-Connection-Id header required");
    };
    let Some(conn) = inner.get(connection, &caller) else {
        return refusal(Refusal::Gone);
    };
    if let Some(refused) = other_version(headers, &conn) {
        return refused;
    }
    let session = header_str(headers, SESSION_ID);
    let lease = match conn.lease(session) {
        Ok(lease) => lease,
        Err(why) => return refusal(why),
    };
    // The messages waiting for the stream leave together: one frame of events (one chunk, one
    // write) per burst rather than one per message. A keep-alive comment when nothing was sent
    // for `keep_alive_interval`.
    let keep_alive = inner.options.keep_alive_interval;
    let quiet = Box::pin(tokio::time::sleep(keep_alive));
    let frames = futures::stream::unfold((lease, quiet), move |(lease, mut quiet)| async move {
        let frame = tokio::select! {
            message = lease.next() => {
                let first = message?;
                let mut rest = Vec::new();
                lease.ready(&mut rest, SSE_FRAME_BYTES.saturating_sub(first.len()));
                let len = rest.iter().fold(first.len(), |len, m| len + m.len());
                let mut frame = BytesMut::with_capacity(len + 8 * (rest.len() + 1));
                write_event(&mut frame, &first);
                for message in &rest {
                    write_event(&mut frame, message);
                }
                frame.freeze()
            }
            () = quiet.as_mut() => Bytes::from_static(b": \n\n"),
        };
        quiet
            .as_mut()
            .reset(tokio::time::Instant::now() + keep_alive);
        Some((Ok::<_, Infallible>(frame), (lease, quiet)))
    });
    let mut response = (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(frames),
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(CONNECTION_ID, id_header(&conn.id));
    if let Some(session) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        headers.insert(SESSION_ID, session);
    }
    response
}

async fn delete_connection(State(inner): State<Arc<Inner>>, request: Request) -> Response {
    let caller = Caller::of(request.extensions());
    let Some(connection) = header_str(request.headers(), CONNECTION_ID) else {
        return text(StatusCode::BAD_REQUEST, "Acp-Connection-Id header required");
    };
    if inner.get(connection, &caller).is_some() && inner.remove(connection, Ended::Deleted) {
        StatusCode::ACCEPTED.into_response()
    } else {
        refusal(Refusal::Gone)
    }
}

/// One message as an SSE event: `data: <json>`. A JSON text can only hold line breaks as
/// insignificant whitespace (a string cannot contain a raw one), so they become spaces and the
/// event keeps one `data` line; invalid UTF-8 (from a broken bridged agent) is replaced.
fn event(message: &[u8]) -> Event {
    let text = String::from_utf8_lossy(message);
    if text.contains(['\r', '\n']) {
        Event::default().data(text.replace(['\r', '\n'], " "))
    } else {
        Event::default().data(text)
    }
}

/// The most bytes of messages in one SSE frame of [`get_stream`].
const SSE_FRAME_BYTES: usize = 64 * 1024;

/// Appends one message as an SSE event, `data: <json>\n\n`, as [`event`] makes it.
fn write_event(frame: &mut BytesMut, message: &[u8]) {
    match std::str::from_utf8(message) {
        // `<[u8]>::contains` of a byte is a `memchr`.
        Ok(_) if !message.contains(&b'\n') && !message.contains(&b'\r') => {
            frame.extend_from_slice(b"data: ");
            frame.extend_from_slice(message);
        }
        _ => {
            let text = String::from_utf8_lossy(message).replace(['\r', '\n'], " ");
            frame.extend_from_slice(b"data: ");
            frame.extend_from_slice(text.as_bytes());
        }
    }
    frame.extend_from_slice(b"\n\n");
}

/// The `client_id` of a query string, percent-decoded; `None` when absent or blank.
fn client_id(query: Option<&str>) -> Option<String> {
    let raw = query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("client_id="))?;
    let bytes = raw.as_bytes();
    // Percent-decoding, as browsers and HTTP libraries encode query values.
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 3 <= bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            other => out.push(other),
        }
        i += 1;
    }
    let id = String::from_utf8(out).ok()?;
    (!id.trim().is_empty()).then_some(id)
}

/// `POST {path}/rpc?client_id=…`: every message of the `client_id` profile.
async fn post_client_id(State(inner): State<Arc<Inner>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let caller = Caller::of(&parts.extensions);
    let Some(client_id) = client_id(parts.uri.query()) else {
        return text(StatusCode::BAD_REQUEST, "client_id is required");
    };
    let (body, share) = match read_body(&inner, body, &parts.headers).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let shape = match message::shape(&body) {
        Ok(shape) if shape.method.is_some() || shape.id.is_some() => shape,
        _ => return text(StatusCode::BAD_REQUEST, "invalid json-rpc payload"),
    };
    if std::str::from_utf8(&body).is_err() {
        return text(StatusCode::BAD_REQUEST, "invalid json-rpc payload");
    }
    let conn = match inner.client_connection(&client_id, &caller) {
        Ok(conn) => conn,
        Err(why) => return not_opened(why),
    };
    let response = shape.is_response();
    match conn.accept(body, Some(share), &shape, None).await {
        Ok(()) if response => StatusCode::NO_CONTENT.into_response(),
        Ok(()) => StatusCode::ACCEPTED.into_response(),
        Err(why) => refusal(why),
    }
}

/// `GET {path}/sse?client_id=…`: the one stream of the `client_id` profile.
async fn get_client_id(State(inner): State<Arc<Inner>>, request: Request) -> Response {
    let caller = Caller::of(request.extensions());
    let Some(client_id) = client_id(request.uri().query()) else {
        return text(StatusCode::BAD_REQUEST, "client_id is required");
    };
    let conn = match inner.client_connection(&client_id, &caller) {
        Ok(conn) => conn,
        Err(why) => return not_opened(why),
    };
    let lease = match conn.lease(None) {
        Ok(lease) => lease,
        Err(why) => return refusal(why),
    };
    let connected =
        futures::stream::once(async { Ok::<_, Infallible>(Event::default().comment("connected")) });
    let events = futures::stream::unfold(lease, |lease| async move {
        let message = lease.next().await?;
        Some((Ok::<_, Infallible>(event(&message)), lease))
    });
    let mut response = Sse::new(futures::StreamExt::chain(connected, events))
        .keep_alive(
            KeepAlive::new()
                .interval(std::time::Duration::from_secs(5))
                .text("ping"),
        )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
