//! The proxy builder: the routes an author registers, and serving them.

use std::collections::HashMap;
use std::future::Future;

use acp_rpc::{Config, Driver};
use acp_types::methods::{Notification, Request};
use acp_types::{ErrorObject, InitializeRequest, InitializeResponse, RawJson};
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::envelope::DialectCell;
use crate::handler::ProxyHandler;
use crate::hop::{Context, Toward};

/// What a request route starts: the answer, as raw JSON.
pub(crate) type RequestFuture = BoxFuture<'static, Result<Box<RawValue>, ErrorObject>>;
/// A request route: decodes the params right where the frame was read, and starts the work.
pub(crate) type RequestRoute =
    Box<dyn Fn(Context, Option<&RawValue>) -> Result<RequestFuture, ErrorObject> + Send + Sync>;
/// A notification route, likewise.
pub(crate) type NotificationRoute = Box<
    dyn Fn(Context, Option<&RawValue>) -> Result<BoxFuture<'static, ()>, ErrorObject> + Send + Sync,
>;

/// One direction's routes, by method name.
#[derive(Default)]
pub(crate) struct Routes {
    pub(crate) requests: HashMap<String, RequestRoute>,
    pub(crate) notifications: HashMap<String, NotificationRoute>,
}

/// A proxy of a proxy chain: the calls it intercepts, by direction and method; everything else
/// is forwarded untouched.
///
/// Register a handler for what the proxy cares about ([`on_prompt`](Self::on_prompt),
/// [`on_session_update`](Self::on_session_update), [`on_request`](Self::on_request), ...), then
/// [`serve_stdio`](Self::serve_stdio) under a conductor. A handler gets the [`Context`] to send
/// with and the typed params; it answers a request itself or forwards it (changed or not) with
/// `cx.successor()` / `cx.predecessor()`. A message without a handler is forwarded as it came:
/// its params are copied byte for byte, never decoded, so unknown fields, `_meta` and extension
/// methods arrive intact.
///
/// Handlers follow the connection's rules (see `acp-rpc`): requests run concurrently;
/// notifications run one at a time in arrival order, and a notification handler must not await
/// an answer from either side (spawn instead), since answers wait until the notifications
/// received before them are handled. That rule is what keeps a turn's updates before the
/// turn's end through the proxy.
#[must_use]
pub struct Proxy {
    pub(crate) to_successor: Routes,
    pub(crate) to_predecessor: Routes,
    pub(crate) initialize: Option<RequestRoute>,
    pub(crate) config: Config,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = |routes: &Routes| {
            let mut names: Vec<&str> = routes
                .requests
                .keys()
                .chain(routes.notifications.keys())
                .map(String::as_str)
                .collect();
            names.sort_unstable();
            names.join(", ")
        };
        f.debug_struct("Proxy")
            .field("to_successor", &names(&self.to_successor))
            .field("to_predecessor", &names(&self.to_predecessor))
            .field("initialize", &self.initialize.is_some())
            .field("config", &self.config)
            .finish()
    }
}

impl Default for Proxy {
    fn default() -> Self {
        Self::new()
    }
}

/// Decodes typed params the way the connection does: absent params read as `{}`.
fn decode_typed<T: serde::de::DeserializeOwned>(
    params: Option<&RawValue>,
) -> Result<T, ErrorObject> {
    let json = params.map_or("{}", RawValue::get);
    acp_types::from_str(json).map_err(ErrorObject::invalid_params)
}

/// Serializes a handler's typed answer.
fn encode<T: serde::Serialize>(value: &T) -> Result<Box<RawValue>, ErrorObject> {
    serde_json::value::to_raw_value(value).map_err(|e| {
        ErrorObject::internal_error(format_args!("could not serialize the answer: {e}"))
    })
}

/// Runs a notification handler, tracing its failure (a notification has no answer).
async fn traced(method: &'static str, work: impl Future<Output = Result<(), ErrorObject>>) {
    if let Err(error) = work.await {
        tracing::warn!(method, %error, "a notification handler failed");
    }
}

impl Proxy {
    /// A proxy that forwards everything untouched, with the connection's default settings,
    /// except for the frame limit: the default one plus
    /// [`PROXY_ENVELOPE_HEADROOM`](acp_types::PROXY_ENVELOPE_HEADROOM), so that a message of
    /// the largest size an editor may send still reaches the proxy inside `proxy/successor`.
    pub fn new() -> Self {
        let config = Config::default();
        let max_frame_len = config.max_frame_len + acp_types::PROXY_ENVELOPE_HEADROOM;
        Self {
            to_successor: Routes::default(),
            to_predecessor: Routes::default(),
            initialize: None,
            config: config.max_frame_len(max_frame_len),
        }
    }

    /// The settings of the connection to the conductor (limits, framing). Its frame limit
    /// applies to the envelopes: allow
    /// [`PROXY_ENVELOPE_HEADROOM`](acp_types::PROXY_ENVELOPE_HEADROOM) beyond the largest
    /// message to forward, as [`Proxy::new`] does. Its
    /// `request_timeout` does not apply to what the proxy forwards or sends through a
    /// [`Context`]: the two ends of the chain time out their own requests, and a proxy that
    /// wants a limit of its own wraps its call in `tokio::time::timeout` (dropping the call
    /// cancels it).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    fn routes(&mut self, toward: Toward) -> &mut Routes {
        match toward {
            Toward::Successor => &mut self.to_successor,
            Toward::Predecessor => &mut self.to_predecessor,
        }
    }

    /// Intercepts the request `M` traveling `toward`: `f` gets its typed params and answers it,
    /// itself or by forwarding (see [`Context::successor`]). Replaces an earlier handler of the
    /// same method and direction.
    pub fn on_request<M, F, Fut>(mut self, toward: Toward, f: F) -> Self
    where
        M: Request,
        F: Fn(Context, M::Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<M::Result, ErrorObject>> + Send + 'static,
    {
        let route: RequestRoute = Box::new(move |cx, params| {
            let params = decode_typed::<M::Params>(params)?;
            let work = f(cx, params);
            Ok(Box::pin(async move { encode(&work.await?) }))
        });
        self.routes(toward)
            .requests
            .insert(M::METHOD.to_owned(), route);
        self
    }

    /// Intercepts the notification `N` traveling `toward`: `f` gets its typed params and may
    /// forward them (changed or not), send others, or drop it. A failure is traced.
    pub fn on_notification<N, F, Fut>(mut self, toward: Toward, f: F) -> Self
    where
        N: Notification,
        F: Fn(Context, N::Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ErrorObject>> + Send + 'static,
    {
        let route: NotificationRoute = Box::new(move |cx, params| {
            let params = decode_typed::<N::Params>(params)?;
            Ok(Box::pin(traced(N::METHOD, f(cx, params))))
        });
        self.routes(toward)
            .notifications
            .insert(N::METHOD.to_owned(), route);
        self
    }

    /// Intercepts any request by method name (an extension method, a draft one), with its
    /// params and answer as raw JSON.
    pub fn on_raw_request<F, Fut>(mut self, toward: Toward, method: impl Into<String>, f: F) -> Self
    where
        F: Fn(Context, Option<RawJson>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<RawJson, ErrorObject>> + Send + 'static,
    {
        let route: RequestRoute = Box::new(move |cx, params| {
            let work = f(cx, params.map(|p| RawJson::from_raw(p.to_owned())));
            Ok(Box::pin(async move { work.await.map(|answer| answer.raw) }))
        });
        self.routes(toward).requests.insert(method.into(), route);
        self
    }

    /// Intercepts any notification by method name, with its params as raw JSON.
    pub fn on_raw_notification<F, Fut>(
        mut self,
        toward: Toward,
        method: impl Into<String>,
        f: F,
    ) -> Self
    where
        F: Fn(Context, Option<RawJson>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ErrorObject>> + Send + 'static,
    {
        let route: NotificationRoute = Box::new(move |cx, params| {
            let work = f(cx, params.map(|p| RawJson::from_raw(p.to_owned())));
            Ok(Box::pin(traced("(raw)", work)))
        });
        self.routes(toward)
            .notifications
            .insert(method.into(), route);
        self
    }

    /// Intercepts the proxy's own initialization (`proxy/initialize`): `f` gets the
    /// predecessor's `initialize` params, forwards them (changed or not) with
    /// `cx.successor().request::<methods::Initialize>(..)`, and answers with the successor's
    /// response, changed or not: this is where a proxy changes the capabilities the chain
    /// advertises from here on. It must not change `protocolVersion`.
    ///
    /// Without it, the params go to the successor and its answer comes back, both untouched.
    pub fn on_initialize<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Context, InitializeRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<InitializeResponse, ErrorObject>> + Send + 'static,
    {
        self.initialize = Some(Box::new(move |cx, params| {
            let params = decode_typed::<InitializeRequest>(params)?;
            let work = f(cx, params);
            Ok(Box::pin(async move { encode(&work.await?) }))
        }));
        self
    }

    /// Intercepts `session/prompt` on its way to the agent.
    pub fn on_prompt<F, Fut>(self, f: F) -> Self
    where
        F: Fn(Context, acp_types::PromptRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<acp_types::PromptResponse, ErrorObject>> + Send + 'static,
    {
        self.on_request::<acp_types::methods::SessionPrompt, _, _>(Toward::Successor, f)
    }

    /// Intercepts `session/update` on its way to the editor. To pass it on, the handler
    /// sends it with `cx.predecessor().notify::<methods::SessionUpdate>(..)`.
    pub fn on_session_update<F, Fut>(self, f: F) -> Self
    where
        F: Fn(Context, acp_types::SessionNotification) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ErrorObject>> + Send + 'static,
    {
        self.on_notification::<acp_types::methods::SessionUpdate, _, _>(Toward::Predecessor, f)
    }

    /// Intercepts `session/request_permission` on its way to the editor: answer it without
    /// asking (a policy), or forward it.
    pub fn on_request_permission<F, Fut>(self, f: F) -> Self
    where
        F: Fn(Context, acp_types::RequestPermissionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<acp_types::RequestPermissionResponse, ErrorObject>>
            + Send
            + 'static,
    {
        self.on_request::<acp_types::methods::SessionRequestPermission, _, _>(
            Toward::Predecessor,
            f,
        )
    }

    /// Serves the proxy on a connection to its conductor: `reader` and `writer` carry what the
    /// conductor sends and what the proxy sends back. Returns the [`Context`] (to send
    /// messages of the proxy's own, from anywhere) and the connection's [`Driver`], which you
    /// run (typically with `tokio::spawn`); it resolves when the conductor goes away.
    pub fn serve<R, W>(self, reader: R, writer: W) -> (Context, Driver)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let dialect = DialectCell::default();
        let config = self.config.clone();
        let cell = dialect.clone();
        let (peer, driver) = acp_rpc::connect(
            move |peer| ProxyHandler::new(self, Context::new(peer, cell)),
            reader,
            writer,
            config,
        );
        (Context::new(peer, dialect), driver)
    }

    /// Serves the proxy on stdin and stdout, the way a conductor starts its components.
    pub fn serve_stdio(self) -> (Context, Driver) {
        let (stdin, stdout) = acp_rpc::stdio();
        self.serve(stdin, stdout)
    }
}
