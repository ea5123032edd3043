//! The guard every request passes before anything is allocated for it: its `Host` (against DNS
//! rebinding), its browser `Origin`, and the authentication hook, which a browser WebSocket
//! reaches through a subprotocol; and the CORS answers that let allowed pages read the
//! endpoint's responses with credentials.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use tower_http::cors::{AllowCredentials, AllowOrigin, AllowPrivateNetwork, CorsLayer};

use crate::headers::{CONNECTION_ID, PROTOCOL_VERSION, SESSION_ID};
use crate::server::peer::Principal;
use crate::server::reply::text;
use crate::server::validate::{HostRule, OriginRule, host_rule, origin_rule};
use crate::server::{AuthDecision, AuthHook, ServerOptions};

/// The WebSocket subprotocol of ACP, `acp`: the `101` answer selects it whenever the client
/// offers it (and never any other one).
pub const SUBPROTOCOL: &str = "acp";

/// The prefix of the subprotocol that carries a bearer token from a browser WebSocket, which
/// cannot set headers: `new WebSocket(url, ["acp", "acp.bearer." + token])`. On an upgrade
/// without `Authorization`, the authentication hook sees `Authorization: Bearer <token>`.
pub const BEARER_SUBPROTOCOL_PREFIX: &str = "acp.bearer.";

/// How long a browser may keep a preflight answer: 10 minutes (Chromium caps it at 2 hours,
/// Firefox at 24), so that a page's POSTs are not each preceded by an `OPTIONS`.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// How much of a refused `Origin` or `Host` (attacker-controlled) a log line shows.
const MAX_LOGGED_BYTES: usize = 100;

/// The checked settings of the guard, shared by its middlewares and its CORS layer.
pub(crate) struct Guard {
    /// The exact origins allowed (each gets CORS with credentials).
    origins: Box<[HeaderValue]>,
    /// `*` was allowed: every origin but `null`.
    any_origin: bool,
    /// With `*`: credentials for every origin, not only the listed ones.
    any_origin_credentials: bool,
    /// The host names allowed besides IP literals and `localhost`, lower case.
    hosts: Box<[String]>,
    /// `*` was allowed: no `Host` check.
    any_host: bool,
    auth: Option<AuthHook>,
    /// Whether a refusal was logged at info level already (later ones go to debug).
    refusal_logged: AtomicBool,
}

impl Guard {
    /// The guard of `options`. An allowed origin or host that can never match is logged as an
    /// error and left out ([`ServerOptions::validate`] reports it before serving).
    pub(crate) fn new(options: &ServerOptions) -> Arc<Self> {
        let mut origins = Vec::new();
        let mut any_origin = false;
        for value in &options.allowed_origins {
            match origin_rule(value) {
                Ok(OriginRule::Any) => any_origin = true,
                // Checked origins are visible ASCII: always a header value.
                Ok(OriginRule::Exact(origin)) => origins.extend(HeaderValue::try_from(origin).ok()),
                Err(error) => {
                    tracing::error!(%error, "this allowed origin is left out: no browser sends it");
                }
            }
        }
        let mut hosts = Vec::new();
        let mut any_host = false;
        for value in &options.allowed_hosts {
            match host_rule(value) {
                Ok(HostRule::Any) => any_host = true,
                Ok(HostRule::Name(name)) => hosts.push(name),
                Err(error) => {
                    tracing::error!(%error, "this allowed host is left out: no browser sends it");
                }
            }
        }
        if any_origin && options.auth.is_none() {
            tracing::warn!(
                "every browser origin is allowed (`*`) and there is no authentication hook: any web page the user opens can drive the agent"
            );
        }
        if any_host {
            tracing::info!(
                "the Host check is off (`*`): DNS rebinding is stopped by the Origin check alone"
            );
        }
        Arc::new(Self {
            origins: origins.into(),
            any_origin,
            any_origin_credentials: options.any_origin_credentials,
            hosts: hosts.into(),
            any_host,
            auth: options.auth.clone(),
            refusal_logged: AtomicBool::new(false),
        })
    }

    fn listed(&self, origin: &HeaderValue) -> bool {
        self.origins.iter().any(|o| o == origin)
    }

    fn origin_allowed(&self, origin: &HeaderValue) -> bool {
        self.listed(origin) || (self.any_origin && origin != "null")
    }

    fn credentials_allowed(&self, origin: &HeaderValue) -> bool {
        self.listed(origin) || (self.any_origin && self.any_origin_credentials && origin != "null")
    }

    /// Whether the request's `Host` (and the authority of its URI, as HTTP/2 sends it) names
    /// this server: an IP literal, `localhost` (or a name under it), an allowed name, or
    /// anything with `*`. A request with neither is not from a browser and passes.
    fn host_allowed(&self, request: &Request) -> bool {
        if self.any_host {
            return true;
        }
        let from_uri = request.uri().authority().map(|a| a.as_str().as_bytes());
        let from_header = request
            .headers()
            .get(header::HOST)
            .map(HeaderValue::as_bytes);
        from_uri
            .into_iter()
            .chain(from_header)
            .all(|authority| self.authority_allowed(authority))
    }

    fn authority_allowed(&self, authority: &[u8]) -> bool {
        let Ok(authority) = std::str::from_utf8(authority) else {
            return false;
        };
        // A URI's authority may carry user information; a `Host` header never does.
        let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
        if let Some(inside) = authority.strip_prefix('[') {
            let Some((literal, after)) = inside.split_once(']') else {
                return false;
            };
            return is_port_suffix(after) && literal.parse::<std::net::Ipv6Addr>().is_ok();
        }
        let host = match authority.rsplit_once(':') {
            Some((host, port)) if is_port(port) => host,
            Some(_) => return false,
            None => authority,
        };
        let host = host.strip_suffix('.').unwrap_or(host);
        if host.parse::<std::net::Ipv4Addr>().is_ok() {
            return true;
        }
        let localhost = "localhost";
        let under_localhost = host.len() > localhost.len()
            && host.as_bytes()[host.len() - localhost.len() - 1] == b'.'
            && host[host.len() - localhost.len()..].eq_ignore_ascii_case(localhost);
        host.eq_ignore_ascii_case(localhost)
            || under_localhost
            || self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Logs a refused `Origin` or `Host`: the first refusal at info level, so that an operator
    /// whose own page is refused sees why; the others at debug level (the value is the
    /// client's, possibly an attacker's: bounded and escaped).
    fn log_refusal(&self, what: &'static str, value: &[u8]) {
        let shown = shown(value);
        if self.refusal_logged.swap(true, Ordering::Relaxed) {
            tracing::debug!(%what, value = %shown, "request refused");
        } else {
            tracing::info!(
                %what,
                value = %shown,
                "request refused: {what} not allowed (allow it in ServerOptions if it is yours); further refusals are logged at debug level"
            );
        }
    }

    /// The CORS layer of the allowed origins, or `None` when no origin is allowed.
    pub(crate) fn cors(self: &Arc<Self>) -> Option<CorsLayer> {
        if self.origins.is_empty() && !self.any_origin {
            return None;
        }
        let (origin, credentials, network) = (self.clone(), self.clone(), self.clone());
        let acp_headers = [
            HeaderName::from_static(CONNECTION_ID),
            HeaderName::from_static(SESSION_ID),
        ];
        Some(
            CorsLayer::new()
                .allow_origin(AllowOrigin::predicate(move |o, _| origin.origin_allowed(o)))
                .allow_credentials(AllowCredentials::predicate(move |o, _| {
                    credentials.credentials_allowed(o)
                }))
                // Chromium's private network access: a listed public page may reach an agent
                // on this machine or network.
                .allow_private_network(AllowPrivateNetwork::predicate(move |o, _| {
                    network.listed(o)
                }))
                .allow_methods([Method::GET, Method::POST, Method::DELETE])
                .allow_headers([
                    header::CONTENT_TYPE,
                    header::ACCEPT,
                    header::AUTHORIZATION,
                    acp_headers[0].clone(),
                    acp_headers[1].clone(),
                    HeaderName::from_static(PROTOCOL_VERSION),
                    HeaderName::from_static("last-event-id"),
                ])
                .expose_headers(acp_headers)
                .max_age(PREFLIGHT_MAX_AGE),
        )
    }
}

/// Whether `after` (what follows a host) is empty or `:` and a port.
fn is_port_suffix(after: &str) -> bool {
    after.is_empty() || after.strip_prefix(':').is_some_and(is_port)
}

/// Whether `port` is a port number's digits.
fn is_port(port: &str) -> bool {
    !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit())
}

/// At most [`MAX_LOGGED_BYTES`] of a client's value, escaped, for a log line.
fn shown(value: &[u8]) -> String {
    let end = value.len().min(MAX_LOGGED_BYTES);
    let mut shown = String::from_utf8_lossy(&value[..end])
        .escape_debug()
        .to_string();
    if end < value.len() {
        shown.push('…');
    }
    shown
}

/// The outer middleware: a `Host` that does not name this server gets `421 Misdirected
/// Request`, preflights included.
pub(crate) async fn check_host(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    if !guard.host_allowed(&request) {
        let host = request
            .headers()
            .get(header::HOST)
            .map(HeaderValue::as_bytes);
        let authority = request.uri().authority().map(|a| a.as_str().as_bytes());
        guard.log_refusal("Host", host.or(authority).unwrap_or_default());
        return text(
            StatusCode::MISDIRECTED_REQUEST,
            "host not allowed (see ServerOptions::allowed_hosts)",
        );
    }
    next.run(request).await
}

/// The inner middleware (after CORS answered preflights): the browser `Origin`, then the
/// authentication hook.
pub(crate) async fn check_request(
    State(guard): State<Arc<Guard>>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN)
        && !guard.origin_allowed(origin)
    {
        guard.log_refusal("Origin", origin.as_bytes());
        return text(StatusCode::FORBIDDEN, "origin not allowed");
    }
    if is_websocket(&request) {
        let offered = Offered::of(&request);
        if offered.token.is_some() && !offered.acp {
            return text(
                StatusCode::BAD_REQUEST,
                "a WebSocket offering an `acp.bearer.` subprotocol must offer `acp` too",
            );
        }
        if let Some(token) = offered.token
            && guard.auth.is_some()
            && !request.headers().contains_key(header::AUTHORIZATION)
        {
            request.headers_mut().insert(header::AUTHORIZATION, token);
        }
    }
    if let Some(auth) = &guard.auth {
        match auth(request.headers()) {
            AuthDecision::Allow => {}
            AuthDecision::AllowAs(principal) => {
                request.extensions_mut().insert(Principal(principal));
            }
            AuthDecision::Unauthorized => {
                let mut response = text(StatusCode::UNAUTHORIZED, "authentication required");
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return response;
            }
            AuthDecision::Forbidden => return text(StatusCode::FORBIDDEN, "forbidden"),
        }
    }
    next.run(request).await
}

/// A WebSocket opening: an HTTP/1.1 upgrade, or an HTTP/2 extended `CONNECT`.
fn is_websocket(request: &Request) -> bool {
    match *request.method() {
        Method::GET => request
            .headers()
            .get(header::UPGRADE)
            .is_some_and(|u| u.as_bytes().eq_ignore_ascii_case(b"websocket")),
        Method::CONNECT => true,
        _ => false,
    }
}

/// The subprotocols a WebSocket opening offers, as far as the guard cares.
struct Offered {
    /// `acp` is offered.
    acp: bool,
    /// The `Authorization` value of an `acp.bearer.<token>` entry (the first one).
    token: Option<HeaderValue>,
}

impl Offered {
    fn of(request: &Request) -> Self {
        let mut offered = Self {
            acp: false,
            token: None,
        };
        let entries = request
            .headers()
            .get_all(header::SEC_WEBSOCKET_PROTOCOL)
            .iter()
            .flat_map(|v| v.as_bytes().split(|&b| b == b','))
            .map(<[u8]>::trim_ascii);
        for entry in entries {
            if entry == SUBPROTOCOL.as_bytes() {
                offered.acp = true;
            } else if let Some(token) = entry.strip_prefix(BEARER_SUBPROTOCOL_PREFIX.as_bytes())
                && offered.token.is_none()
                && !token.is_empty()
            {
                let mut value = Vec::with_capacity(7 + token.len());
                value.extend_from_slice(b"Bearer ");
                value.extend_from_slice(token);
                // A part of a header value is a header value: this cannot fail.
                offered.token = HeaderValue::from_bytes(&value).ok();
            }
        }
        offered
    }
}
