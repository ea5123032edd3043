//! The connection handler: unwraps what the conductor delivers, routes it to the author's
//! handlers, and forwards the rest untouched.

use std::sync::Arc;

use acp_types::ErrorObject;
use acp_types::methods::{agent, protocol};
use futures::future::BoxFuture;
use serde_json::value::RawValue;

use crate::envelope::{Dialect, Unwrapped};
use crate::hop::{Context, Toward};
use crate::order::{Sequencer, Turn};
use crate::proxy::{Proxy, RequestFuture, Routes};

/// [`acp_rpc::Handler`] of a [`Proxy`].
pub(crate) struct ProxyHandler {
    proxy: Proxy,
    cx: Context,
    /// Keeps what is forwarded in arrival order.
    order: Arc<Sequencer>,
}

impl ProxyHandler {
    pub(crate) fn new(proxy: Proxy, cx: Context) -> Self {
        Self {
            proxy,
            cx,
            order: Arc::default(),
        }
    }

    fn routes(&self, toward: Toward) -> &Routes {
        match toward {
            Toward::Successor => &self.proxy.to_successor,
            Toward::Predecessor => &self.proxy.to_predecessor,
        }
    }

    /// The request `method` traveling `toward`: its handler's work, or its forwarding.
    ///
    /// A handler starts once the messages read before this one were queued for sending; the
    /// messages read after it do not wait for it (it may await the whole turn of a prompt).
    fn request(
        &self,
        toward: Toward,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<RequestFuture, ErrorObject> {
        if let Some(route) = self.routes(toward).requests.get(method) {
            let work = route(self.cx.clone(), params)?;
            let turn = self.order.next();
            return Ok(Box::pin(async move {
                turn.wait().await;
                drop(turn);
                work.await
            }));
        }
        Ok(forward_request(
            self.cx.clone(),
            self.order.next(),
            toward,
            method.to_owned(),
            params.map(ToOwned::to_owned),
        ))
    }

    /// The notification `method` traveling `toward`: its handler's work, or its forwarding.
    ///
    /// Either keeps its place in the order until it is over: a notification handler sends
    /// what it sends before anything read after it (and must not await an answer).
    fn notification(
        &self,
        toward: Toward,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<BoxFuture<'static, ()>, ErrorObject> {
        if let Some(route) = self.routes(toward).notifications.get(method) {
            let work = route(self.cx.clone(), params)?;
            let turn = self.order.next();
            return Ok(Box::pin(async move {
                turn.wait().await;
                work.await;
                drop(turn);
            }));
        }
        if self.order.is_idle() {
            // Nothing read before it is still waiting to go out: forwarded right here, from
            // the frame, unless the connection's buffer is full (then in its turn, below).
            match self.cx.hop(toward).try_notify_raw(method, params) {
                Ok(false) => {}
                Ok(true) => return Ok(acp_rpc::handled()),
                Err(error) => {
                    tracing::debug!(method, %error, "a forwarded notification was lost");
                    return Ok(acp_rpc::handled());
                }
            }
        }
        let cx = self.cx.clone();
        let turn = self.order.next();
        let method = method.to_owned();
        let params = params.map(ToOwned::to_owned);
        Ok(Box::pin(async move {
            turn.wait().await;
            if let Err(error) = cx.hop(toward).notify_raw(&method, params.as_deref()).await {
                tracing::debug!(method, %error, "a forwarded notification was lost");
            }
            drop(turn);
        }))
    }
}

/// Forwards a request untouched, in its turn, and answers with the answer, untouched.
fn forward_request(
    cx: Context,
    turn: Turn,
    toward: Toward,
    method: String,
    params: Option<Box<RawValue>>,
) -> RequestFuture {
    Box::pin(async move {
        turn.wait().await;
        let hop = cx.hop(toward);
        let queued = hop.queue(&method, params.as_deref()).await;
        // Queued (or failed): the messages read after it may go.
        drop(turn);
        let result = queued?.await.map_err(|e| hop.failed(&method, &e))?;
        result.to_raw_value().map_err(|e| hop.failed(&method, &e))
    })
}

impl acp_rpc::Handler for ProxyHandler {
    type Request = RequestFuture;
    type Notification = BoxFuture<'static, ()>;
    type Response = Box<RawValue>;

    fn decode_request(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<RequestFuture, ErrorObject> {
        if Dialect::is_successor(method) {
            // From the successor, on its way to the predecessor.
            let inner = Unwrapped::parse(params)?;
            return self.request(Toward::Predecessor, &inner.method, inner.params);
        }
        if let Some(dialect) = Dialect::of_initialize(method) {
            self.cx.set_dialect(dialect);
            tracing::debug!(?dialect, "initialized as a proxy");
            return match &self.proxy.initialize {
                Some(route) => route(self.cx.clone(), params),
                None => Ok(forward_request(
                    self.cx.clone(),
                    self.order.next(),
                    Toward::Successor,
                    agent::INITIALIZE.to_owned(),
                    params.map(ToOwned::to_owned),
                )),
            };
        }
        if method == agent::INITIALIZE {
            return Err(ErrorObject::invalid_request(
                "this component is a proxy: it must be started by a conductor with \
                 `proxy/initialize`, not `initialize` (it has no successor to forward to)",
            ));
        }
        // From the predecessor, on its way to the successor.
        self.request(Toward::Successor, method, params)
    }

    fn decode_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<BoxFuture<'static, ()>, ErrorObject> {
        if Dialect::is_successor(method) {
            let inner = Unwrapped::parse(params)?;
            if inner.method == protocol::CANCEL_REQUEST {
                // Hop-scoped: its id names a request of another connection. The conductor
                // cancels hop by hop; a wrapped one means nothing here.
                return Err(ErrorObject::invalid_request(
                    "a wrapped `$/cancel_request` is not forwarded: cancellation is per hop",
                ));
            }
            return self.notification(Toward::Predecessor, &inner.method, inner.params);
        }
        self.notification(Toward::Successor, method, params)
    }

    fn handle_request(self: &Arc<Self>, request: RequestFuture) -> RequestFuture {
        request
    }

    fn handle_notification(
        self: &Arc<Self>,
        notification: BoxFuture<'static, ()>,
    ) -> BoxFuture<'static, ()> {
        notification
    }
}
