//! What the connection calls for incoming requests and notifications.

use std::collections::HashMap;
use std::sync::Arc;

use acp_types::methods::{Notification, Request};
use acp_types::{DecodeErrorKind, ErrorObject, MethodUnion};
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::RawResult;

/// Handles what the peer sends. The role crates (`acp-agent`, `acp-client`) implement it for
/// their traits; [`Router`] implements it from closures.
///
/// Decoding is split from handling: the connection decodes params synchronously, right where
/// the frame was read (no copy of the params), and answers a decoding failure at once; only
/// well-formed calls reach the asynchronous handlers.
pub trait Handler: Send + Sync + 'static {
    /// A decoded request, ready to handle.
    type Request: Send + 'static;
    /// A decoded notification, ready to handle.
    type Notification: Send + 'static;
    /// What a request handler answers with.
    type Response: Serialize + Send + Sync + 'static;

    /// Decodes the params of a request for `method`.
    ///
    /// # Errors
    ///
    /// The error object to answer with: usually `-32601` for an unknown method and `-32602`
    /// for params that do not fit ([`decode_params`] maps them so).
    fn decode_request(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Self::Request, ErrorObject>;

    /// Decodes the params of a notification for `method`.
    ///
    /// # Errors
    ///
    /// Why the notification cannot be handled; it is then ignored (and traced), since a
    /// notification has no answer.
    fn decode_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Self::Notification, ErrorObject>;

    /// Handles a request. Requests run concurrently; a handler may call the peer and await the
    /// answer.
    fn handle_request(
        self: &Arc<Self>,
        request: Self::Request,
    ) -> BoxFuture<'static, Result<Self::Response, ErrorObject>>;

    /// Handles a notification. Notifications run one at a time, in arrival order; a handler
    /// must not await an answer from the peer (see the crate docs on ordering).
    fn handle_notification(
        self: &Arc<Self>,
        notification: Self::Notification,
    ) -> BoxFuture<'static, ()>;

    /// Called by the reading loop when the answer to one of our requests for `method` arrives,
    /// before it is handed to the waiting caller and before any message received after it is
    /// handled. It is the place to record what the answer establishes: the client records the
    /// session a `session/new` response creates, so that the session's first updates, which
    /// may follow the response at once, are recognised. It runs on the reading loop: keep it
    /// short. Does nothing by default.
    fn response_received(&self, method: &str, result: Result<&RawResult, &ErrorObject>) {
        let _ = (method, result);
    }
}

/// The handling of a notification whose work was all done in
/// [`decode_notification`](Handler::decode_notification) (a relay that forwarded it from the
/// frame): a future that is already over, boxed without allocating.
pub fn handled() -> BoxFuture<'static, ()> {
    /// Over at once; a unit struct, so the box holds nothing.
    struct Handled;

    impl std::future::Future for Handled {
        type Output = ();

        fn poll(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            std::task::Poll::Ready(())
        }
    }

    Box::pin(Handled)
}

/// Decodes the params of `method` into the member of the method union `U`, mapping failures to
/// the JSON-RPC error to answer with: `-32601` naming an unknown method, `-32602` with the
/// decoder's message (and the field path) in `data` for params that do not fit.
///
/// # Errors
///
/// The error object described above.
pub fn decode_params<U: MethodUnion>(
    method: &str,
    params: Option<&RawValue>,
) -> Result<U, ErrorObject> {
    let mut message = acp_types::RawMessage::default();
    message.method = Some(method.into());
    message.params = params;
    message.decode_params::<U>().map_err(|e| match e.kind() {
        DecodeErrorKind::UnknownMethod => ErrorObject::method_not_found(method),
        _ => ErrorObject::invalid_params(&e),
    })
}

/// What absent params decode as: an empty object (an extension method gets `null`).
fn missing_params(method: &str) -> &'static str {
    if acp_types::is_extension_method(method) {
        "null"
    } else {
        "{}"
    }
}

type RouteFuture = BoxFuture<'static, Result<Box<RawValue>, ErrorObject>>;
type RequestRoute =
    Box<dyn Fn(Option<&RawValue>) -> Result<RouteFuture, ErrorObject> + Send + Sync>;
type NotificationRoute =
    Box<dyn Fn(Option<&RawValue>) -> Result<BoxFuture<'static, ()>, ErrorObject> + Send + Sync>;

/// A [`Handler`] built from closures, one per method: for tests, tools, and peers that only
/// need a few methods.
///
/// ```
/// use acp_rpc::Router;
/// use acp_types::methods::SessionPrompt;
/// use acp_types::{PromptResponse, StopReason};
///
/// let router = Router::new().request::<SessionPrompt, _, _>(|_params| async {
///     Ok(PromptResponse::new(StopReason::EndTurn))
/// });
/// # let _ = router;
/// ```
#[derive(Default)]
pub struct Router {
    requests: HashMap<String, RequestRoute>,
    notifications: HashMap<String, NotificationRoute>,
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router")
            .field("requests", &self.requests.keys().collect::<Vec<_>>())
            .field(
                "notifications",
                &self.notifications.keys().collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Router {
    /// An empty router: every request gets `-32601`, every notification is ignored.
    pub fn new() -> Self {
        Self::default()
    }

    /// Routes the request method `M` to `f`.
    #[must_use]
    pub fn request<M, F, Fut>(mut self, f: F) -> Self
    where
        M: Request,
        F: Fn(M::Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<M::Result, ErrorObject>> + Send + 'static,
    {
        let route: RequestRoute = Box::new(move |params| {
            let params: M::Params = decode_typed(M::METHOD, params)?;
            let fut = f(params);
            Ok(Box::pin(async move {
                let result = fut.await?;
                serde_json::value::to_raw_value(&result).map_err(ErrorObject::internal_error)
            }))
        });
        self.requests.insert(M::METHOD.to_owned(), route);
        self
    }

    /// Routes any request method, by name, to `f`, which gets the raw params.
    #[must_use]
    pub fn request_raw<F, Fut>(mut self, method: &str, f: F) -> Self
    where
        F: Fn(Option<Box<RawValue>>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Box<RawValue>, ErrorObject>> + Send + 'static,
    {
        let route: RequestRoute = Box::new(move |params| {
            let fut = f(params.map(ToOwned::to_owned));
            Ok(Box::pin(fut))
        });
        self.requests.insert(method.to_owned(), route);
        self
    }

    /// Routes the notification method `N` to `f`.
    #[must_use]
    pub fn notification<N, F, Fut>(mut self, f: F) -> Self
    where
        N: Notification,
        F: Fn(N::Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let route: NotificationRoute = Box::new(move |params| {
            let params: N::Params = decode_typed(N::METHOD, params)?;
            Ok(Box::pin(f(params)))
        });
        self.notifications.insert(N::METHOD.to_owned(), route);
        self
    }

    /// Routes any notification method, by name, to `f`, which gets the raw params.
    #[must_use]
    pub fn notification_raw<F, Fut>(mut self, method: &str, f: F) -> Self
    where
        F: Fn(Option<&RawValue>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let route: NotificationRoute = Box::new(move |params| Ok(Box::pin(f(params))));
        self.notifications.insert(method.to_owned(), route);
        self
    }
}

fn decode_typed<T: serde::de::DeserializeOwned>(
    method: &str,
    params: Option<&RawValue>,
) -> Result<T, ErrorObject> {
    let json = params.map_or_else(|| missing_params(method), RawValue::get);
    acp_types::from_str(json).map_err(ErrorObject::invalid_params)
}

impl Handler for Router {
    type Request = RouteFuture;
    type Notification = BoxFuture<'static, ()>;
    type Response = Box<RawValue>;

    fn decode_request(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<RouteFuture, ErrorObject> {
        match self.requests.get(method) {
            Some(route) => route(params),
            None => Err(ErrorObject::method_not_found(method)),
        }
    }

    fn decode_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<BoxFuture<'static, ()>, ErrorObject> {
        match self.notifications.get(method) {
            Some(route) => route(params),
            None => Err(ErrorObject::method_not_found(method)),
        }
    }

    fn handle_request(self: &Arc<Self>, request: RouteFuture) -> RouteFuture {
        request
    }

    fn handle_notification(
        self: &Arc<Self>,
        notification: BoxFuture<'static, ()>,
    ) -> BoxFuture<'static, ()> {
        notification
    }
}
