//! The MCP bridge: MCP servers of the ACP transport, for an agent that does not take them
//! (draft feature `unstable_mcp_over_acp`; the design documents' "bridging").
//!
//! The conductor tells its proxies that the agent takes MCP servers over ACP
//! (`mcpCapabilities.acp: true` in the `initialize` answer they see), whatever the agent said,
//! so that a proxy can always provide its tools that way. When the agent did not say so, the
//! conductor rewrites each `{"type": "acp"}` server of a `session/new`, `session/load` or
//! `session/resume` on its way to the agent into an ordinary MCP server of the Streamable HTTP
//! transport: `http://127.0.0.1:<port>/mcp/<random token>`, one listener per chain (a random
//! port, loopback only), one unguessable path per declared server. What the agent POSTs there
//! is relayed to the last proxy as an `mcp/message` request (from the agent, wrapped in
//! `proxy/successor`), and the inner answer goes back as the HTTP response's JSON body.
//!
//! HTTP rather than a stdio shim: the conductor is a library as well as a command, and a shim
//! needs a program of ours the agent can start. HTTP needs `mcpCapabilities.http` of the agent
//! (a peer gets only what it advertised): for an agent that takes neither, the server is left
//! out of the session, with a warning.
//!
//! The endpoint is request/response only: a POSTed request gets `application/json`, a
//! notification or response `202 Accepted` (the draft has no carrier for them), `GET` and
//! `DELETE` `405` (no server-initiated stream, no MCP session); bodies are limited to
//! [`BODY_LIMIT`], open connections to 64. The `mcp/message` notifications a proxy sends for
//! an active request (progress) are not passed to such an agent. Everything stops with the
//! chain.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::task::Poll;

use acp_types::methods::agent::{INITIALIZE, SESSION_LOAD, SESSION_NEW, SESSION_RESUME};
use acp_types::{
    AgentCapabilities, ErrorObject, InitializeResponse, LoadSessionRequest, McpCapabilities,
    McpOutcome, McpServer, McpServerAcpId, McpServerHttp, MessageMcpRequest, MessageMcpResponse,
    Meta, NewSessionRequest, ResumeSessionRequest,
};
use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The largest body the endpoint reads.
pub(crate) const BODY_LIMIT: usize = 8 * 1024 * 1024;
/// The most connections the endpoint keeps open at once; more are closed at once.
const MAX_CONNECTIONS: usize = 64;
/// The most servers one chain keeps bridged (one per session offered); beyond it the oldest
/// is dropped.
const MAX_BRIDGED: usize = 256;

/// The bridge of one chain.
pub(crate) struct Bridge {
    /// The agent takes ACP-transport servers itself: nothing to do.
    native: AtomicBool,
    /// The agent takes Streamable HTTP servers.
    http: AtomicBool,
    /// Relays to the chain (the conductor's routing), weakly: the chain owns the bridge.
    relay: Weak<dyn Relay>,
    listener: OnceLock<Listener>,
    routes: Arc<Mutex<Routes>>,
}

/// Sends an `mcp/message` request from the agent to the last proxy, and returns its answer.
pub(crate) trait Relay: Send + Sync {
    /// The answer of the last proxy to `params` (a `MessageMcpRequest`).
    fn mcp_message(
        self: Arc<Self>,
        params: Box<RawValue>,
    ) -> futures::future::BoxFuture<'static, Result<Box<RawValue>, ErrorObject>>;
}

/// The paths being served, and the server each stands for.
#[derive(Default)]
struct Routes {
    by_path: HashMap<String, McpServerAcpId>,
    order: VecDeque<String>,
}

/// The chain's listener: its port, and its task (stopped with the bridge).
struct Listener {
    port: u16,
    task: tokio::task::AbortHandle,
}

impl Drop for Bridge {
    fn drop(&mut self) {
        if let Some(listener) = self.listener.get() {
            listener.task.abort();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Requests whose params declare the session's MCP servers.
trait DeclaresServers: serde::de::DeserializeOwned + Serialize {
    fn servers(&mut self) -> Option<&mut Vec<McpServer>>;
}

impl DeclaresServers for NewSessionRequest {
    fn servers(&mut self) -> Option<&mut Vec<McpServer>> {
        Some(&mut self.mcp_servers)
    }
}

impl DeclaresServers for LoadSessionRequest {
    fn servers(&mut self) -> Option<&mut Vec<McpServer>> {
        Some(&mut self.mcp_servers)
    }
}

impl DeclaresServers for ResumeSessionRequest {
    fn servers(&mut self) -> Option<&mut Vec<McpServer>> {
        self.mcp_servers.as_mut()
    }
}

impl Bridge {
    pub(crate) fn new(relay: Weak<impl Relay + 'static>) -> Self {
        Self {
            native: AtomicBool::new(true),
            http: AtomicBool::new(false),
            relay,
            listener: OnceLock::new(),
            routes: Arc::default(),
        }
    }

    /// The agent's answer to `initialize`, as the proxies see it: `mcpCapabilities.acp` set.
    /// Learns what the agent takes. An answer that does not decode goes on unchanged.
    pub(crate) fn initialized(&self, answer: Box<RawValue>) -> Box<RawValue> {
        let Ok(mut response) = acp_types::from_str::<InitializeResponse>(answer.get()) else {
            return answer;
        };
        let mcp = response
            .agent_capabilities
            .get_or_insert_with(AgentCapabilities::new)
            .mcp_capabilities
            .get_or_insert_with(McpCapabilities::new);
        let native = mcp.acp == Some(true);
        self.native.store(native, Ordering::Release);
        self.http.store(mcp.http == Some(true), Ordering::Release);
        if native {
            return answer;
        }
        mcp.acp = Some(true);
        serde_json::value::to_raw_value(&response).unwrap_or(answer)
    }

    /// The params of `method` on their way to the agent: ACP-transport MCP servers replaced
    /// by bridged ones (or left out) when the agent does not take them.
    pub(crate) fn outgoing(
        &self,
        method: &str,
        params: Option<Box<RawValue>>,
    ) -> Option<Box<RawValue>> {
        if self.native.load(Ordering::Acquire) {
            return params;
        }
        let params = params?;
        let rewritten = match method {
            SESSION_NEW => self.rewrite::<NewSessionRequest>(&params),
            SESSION_LOAD => self.rewrite::<LoadSessionRequest>(&params),
            SESSION_RESUME => self.rewrite::<ResumeSessionRequest>(&params),
            _ => None,
        };
        Some(rewritten.unwrap_or(params))
    }

    /// True when the agent takes no `mcp/message` (a notification for it is dropped).
    pub(crate) fn drops_mcp_messages(&self) -> bool {
        !self.native.load(Ordering::Acquire)
    }

    fn rewrite<T: DeclaresServers>(&self, params: &RawValue) -> Option<Box<RawValue>> {
        let mut request: T = acp_types::from_str(params.get()).ok()?;
        let servers = request.servers()?;
        if !servers.iter().any(|s| matches!(s, McpServer::Acp(_))) {
            return None;
        }
        let http = self.http.load(Ordering::Acquire);
        let mut kept = Vec::with_capacity(servers.len());
        for server in servers.drain(..) {
            let McpServer::Acp(acp) = server else {
                kept.push(server);
                continue;
            };
            if !http {
                tracing::warn!(
                    server = acp.name,
                    "the agent takes MCP servers neither over ACP nor over HTTP: left out"
                );
                continue;
            }
            match self.serve(acp.server_id) {
                Ok(url) => kept.push(McpServer::Http(McpServerHttp::new(
                    acp.name,
                    url,
                    Vec::new(),
                ))),
                Err(error) => tracing::warn!(
                    server = acp.name,
                    %error,
                    "the MCP bridge could not listen: the server is left out"
                ),
            }
        }
        *servers = kept;
        serde_json::value::to_raw_value(&request).ok()
    }

    /// The URL the agent reaches server `id` at.
    fn serve(&self, id: McpServerAcpId) -> std::io::Result<String> {
        let port = match self.listener.get() {
            Some(listener) => listener.port,
            None => {
                let listener = self.listen()?;
                let port = listener.port;
                if let Err(lost) = self.listener.set(listener) {
                    // Two sessions at once: keep the first listener.
                    lost.task.abort();
                }
                self.listener.get().map_or(port, |l| l.port)
            }
        };
        let path = format!("/mcp/{}", token()?);
        let mut routes = lock(&self.routes);
        if routes.order.len() >= MAX_BRIDGED
            && let Some(oldest) = routes.order.pop_front()
        {
            routes.by_path.remove(&oldest);
        }
        routes.order.push_back(path.clone());
        routes.by_path.insert(path.clone(), id);
        Ok(format!("http://127.0.0.1:{port}{path}"))
    }

    fn listen(&self) -> std::io::Result<Listener> {
        let std_listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        std_listener.set_nonblocking(true)?;
        let port = std_listener.local_addr()?.port();
        let listener = tokio::net::TcpListener::from_std(std_listener)?;
        let relay = self.relay.clone();
        let routes = self.routes.clone();
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        if connections.len() >= MAX_CONNECTIONS {
                            tracing::warn!("the MCP bridge refuses a connection: {MAX_CONNECTIONS} are open");
                            continue;
                        }
                        let relay = relay.clone();
                        let routes = routes.clone();
                        connections.spawn(async move {
                            let service = hyper::service::service_fn(move |request| {
                                handle(relay.clone(), routes.clone(), request)
                            });
                            let io = hyper_util::rt::TokioIo::new(stream);
                            if let Err(error) = hyper::server::conn::http1::Builder::new()
                                .serve_connection(io, service)
                                .await
                            {
                                tracing::debug!(%error, "an MCP bridge connection failed");
                            }
                        });
                    }
                    Some(_) = connections.join_next() => {}
                }
            }
        });
        tracing::debug!(port, "the MCP bridge listens on 127.0.0.1");
        Ok(Listener {
            port,
            task: task.abort_handle(),
        })
    }
}

/// 128 random bits, in hex.
fn token() -> std::io::Result<String> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A whole response body.
struct Whole(Option<Bytes>);

impl Body for Whole {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.take().map(|bytes| Ok(Frame::data(bytes))))
    }
}

fn reply(status: StatusCode, body: impl Into<Bytes>, json: bool) -> Response<Whole> {
    let mut response = Response::new(Whole(Some(body.into())));
    *response.status_mut() = status;
    let kind = if json {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    if let Ok(value) = hyper::header::HeaderValue::from_str(kind) {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, value);
    }
    response
}

/// Reads a body of at most [`BODY_LIMIT`] bytes.
async fn read_body(mut body: Incoming) -> Result<Vec<u8>, Response<Whole>> {
    let mut out = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(|e| {
            reply(
                StatusCode::BAD_REQUEST,
                format!("the body could not be read: {e}"),
                false,
            )
        })?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > BODY_LIMIT {
                return Err(reply(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("a body is limited to {BODY_LIMIT} bytes"),
                    false,
                ));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out)
}

/// One message of the agent's MCP client.
#[derive(Deserialize)]
struct Incoming1 {
    #[serde(default)]
    id: Option<Box<RawValue>>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Meta>,
}

/// The JSON-RPC answer the agent's MCP client gets.
#[derive(Serialize)]
struct Answer<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorBody<'a>>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: i64,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a serde_json::Value>,
}

async fn handle(
    relay: Weak<dyn Relay>,
    routes: Arc<Mutex<Routes>>,
    request: Request<Incoming>,
) -> Result<Response<Whole>, Infallible> {
    let server = lock(&routes).by_path.get(request.uri().path()).cloned();
    let Some(server) = server else {
        return Ok(reply(StatusCode::NOT_FOUND, "no such MCP server", false));
    };
    if request.method() != Method::POST {
        let mut response = reply(
            StatusCode::METHOD_NOT_ALLOWED,
            "this MCP endpoint takes POST only",
            false,
        );
        response.headers_mut().insert(
            hyper::header::ALLOW,
            hyper::header::HeaderValue::from_static("POST"),
        );
        return Ok(response);
    }
    let body = match read_body(request.into_body()).await {
        Ok(body) => body,
        Err(response) => return Ok(response),
    };
    Ok(relay_message(&relay, server, &body).await)
}

/// Relays one POSTed message.
async fn relay_message(
    relay: &Weak<dyn Relay>,
    server: McpServerAcpId,
    body: &[u8],
) -> Response<Whole> {
    let message: Incoming1 = match serde_json::from_slice(body) {
        Ok(message) => message,
        Err(e) => {
            return reply(
                StatusCode::BAD_REQUEST,
                format!("not one JSON-RPC message (batches are not taken): {e}"),
                false,
            );
        }
    };
    let (Some(id), Some(method)) = (message.id, message.method) else {
        // A notification or a response: the draft carries neither to the provider.
        return reply(StatusCode::ACCEPTED, Bytes::new(), false);
    };
    let request_id = match serde_json::from_str::<String>(id.get()) {
        Ok(text) => text,
        Err(_) => id.get().to_owned(),
    };
    let mut params = MessageMcpRequest::new(server, request_id, method);
    params.params = message.params;
    let Some(relay) = relay.upgrade() else {
        return reply(
            StatusCode::SERVICE_UNAVAILABLE,
            "the chain has ended",
            false,
        );
    };
    let answer = match serde_json::value::to_raw_value(&params) {
        Ok(params) => relay.mcp_message(params).await,
        Err(e) => Err(ErrorObject::internal_error(format_args!("{e}"))),
    };
    let decoded = answer.and_then(|raw| {
        acp_types::from_str::<MessageMcpResponse>(raw.get()).map_err(|e| {
            ErrorObject::internal_error(format_args!("the proxy's mcp/message answer: {e}"))
        })
    });
    let result_raw;
    let body = match &decoded {
        Ok(response) => match &response.outcome {
            McpOutcome::Result(result) => {
                result_raw = result.raw.clone();
                Answer {
                    jsonrpc: "2.0",
                    id: &id,
                    result: Some(&result_raw),
                    error: None,
                }
            }
            McpOutcome::Error(error) => Answer {
                jsonrpc: "2.0",
                id: &id,
                result: None,
                error: Some(ErrorBody {
                    code: i64::from(error.code),
                    message: &error.message,
                    data: error.data.as_ref(),
                }),
            },
            _ => Answer {
                jsonrpc: "2.0",
                id: &id,
                result: None,
                error: Some(ErrorBody {
                    code: -32603,
                    message: "the proxy's answer carries an outcome this bridge does not know",
                    data: None,
                }),
            },
        },
        Err(error) => Answer {
            jsonrpc: "2.0",
            id: &id,
            result: None,
            error: Some(ErrorBody {
                code: i64::from(error.code.0),
                message: &error.message,
                data: None,
            }),
        },
    };
    match serde_json::to_vec(&body) {
        Ok(bytes) => reply(StatusCode::OK, bytes, true),
        Err(e) => reply(StatusCode::INTERNAL_SERVER_ERROR, e.to_string(), false),
    }
}

/// Whether `method` is the one whose answer the bridge reads.
pub(crate) fn is_initialize(method: &str) -> bool {
    method == INITIALIZE
}
