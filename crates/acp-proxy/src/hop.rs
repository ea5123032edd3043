//! Sending from a proxy: to its successor (wrapped in `proxy/successor`) or to its predecessor.

use acp_rpc::{Peer, PendingAnswer, RawResult};
use acp_types::methods::{Notification, Request};
use acp_types::{ErrorObject, RawJson};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::envelope::{Dialect, DialectCell, Wrapped};

/// Which way a message travels through the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Toward {
    /// Toward the agent: from the predecessor (the editor, or the proxy before this one) to the
    /// successor. A prompt travels this way.
    Successor,
    /// Toward the editor: from the successor (the agent, or the proxy after this one) to the
    /// predecessor. A session update or a permission request travels this way.
    Predecessor,
}

impl Toward {
    fn name(self) -> &'static str {
        match self {
            Toward::Successor => "successor",
            Toward::Predecessor => "predecessor",
        }
    }
}

/// What a proxy uses to send: the connection to its conductor, and the dialect it speaks.
///
/// Cloneable and cheap; it is what every handler gets. Messages are written in the order they
/// are submitted, through the connection's bounded buffer (a slow reader makes senders wait).
#[derive(Debug, Clone)]
pub struct Context {
    peer: Peer,
    dialect: DialectCell,
}

impl Context {
    pub(crate) fn new(peer: Peer, dialect: DialectCell) -> Self {
        Self { peer, dialect }
    }

    /// Sends toward the successor (the agent's side), wrapped in `proxy/successor`.
    pub fn successor(&self) -> Hop<'_> {
        Hop {
            cx: self,
            toward: Toward::Successor,
        }
    }

    /// Sends toward the predecessor (the editor's side), as plain messages.
    pub fn predecessor(&self) -> Hop<'_> {
        Hop {
            cx: self,
            toward: Toward::Predecessor,
        }
    }

    /// Sends toward `toward`.
    pub fn hop(&self, toward: Toward) -> Hop<'_> {
        Hop { cx: self, toward }
    }

    /// The spelling of the proxy methods the conductor uses (known once it initialized us;
    /// the schema's until then).
    pub fn dialect(&self) -> Dialect {
        self.dialect.get()
    }

    pub(crate) fn set_dialect(&self, dialect: Dialect) {
        self.dialect.set(dialect);
    }

    /// True once the connection to the conductor is closed.
    pub fn is_closed(&self) -> bool {
        self.peer.is_closed()
    }

    /// Waits until the connection to the conductor is closed.
    pub async fn closed(&self) {
        self.peer.closed().await;
    }
}

/// One direction of a [`Context`]: typed and raw requests and notifications toward the
/// successor or the predecessor.
///
/// Failures are JSON-RPC error objects, ready to answer a request with: the peer's own error
/// unchanged, or `-32603` saying why the message could not get through (the connection to the
/// conductor is closed, the answer does not fit the method's result).
#[derive(Debug, Clone, Copy)]
pub struct Hop<'a> {
    cx: &'a Context,
    toward: Toward,
}

impl Hop<'_> {
    /// The direction this handle sends in.
    pub fn toward(&self) -> Toward {
        self.toward
    }

    /// Sends the request `M` and waits for its typed result.
    ///
    /// # Errors
    ///
    /// As the type says (see [`Hop`]).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request (`$/cancel_request` on the connection to the
    /// conductor, for the id it was sent with); a late answer is ignored.
    pub async fn request<M: Request>(&self, params: &M::Params) -> Result<M::Result, ErrorObject> {
        let result = self.call(M::METHOD, Some(params)).await?;
        result
            .decode_method_result()
            .map_err(|e| self.failed(M::METHOD, &e))
    }

    /// Sends a request by method name with params kept as raw JSON (forwarded exactly), and
    /// returns the raw result, exactly as the peer wrote it.
    ///
    /// # Errors
    ///
    /// As the type says (see [`Hop`]).
    ///
    /// # Cancel safety
    ///
    /// As [`request`](Self::request).
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<RawJson, ErrorObject> {
        let answer = self.queue(method, params).await?;
        let result = answer.await.map_err(|e| self.failed(method, &e))?;
        result
            .to_raw_value()
            .map(RawJson::from_raw)
            .map_err(|e| self.failed(method, &e))
    }

    /// Sends the notification `N`.
    ///
    /// # Errors
    ///
    /// When the connection to the conductor is closed or the params cannot be sent.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: the notification is either wholly queued or not at all.
    pub async fn notify<N: Notification>(&self, params: &N::Params) -> Result<(), ErrorObject> {
        self.send_notification(N::METHOD, Some(params)).await
    }

    /// Sends a notification by method name with params kept as raw JSON (forwarded exactly).
    ///
    /// # Errors
    ///
    /// As [`notify`](Self::notify).
    ///
    /// # Cancel safety
    ///
    /// As [`notify`](Self::notify).
    pub async fn notify_raw(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<(), ErrorObject> {
        self.send_notification(method, params).await
    }

    async fn call<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<RawResult, ErrorObject> {
        let answer = self.queue(method, params).await?;
        answer.await.map_err(|e| self.failed(method, &e))
    }

    /// Queues a request for sending; the answer is still to come.
    pub(crate) async fn queue<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<PendingAnswer, ErrorObject> {
        let (wire_method, wire_params) = self.outgoing(method, params);
        self.cx
            .peer
            .queue_request_raw(wire_method, &wire_params)
            .await
            .map_err(|e| self.failed(method, &e))
    }

    async fn send_notification<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<(), ErrorObject> {
        let (wire_method, wire_params) = self.outgoing(method, params);
        self.cx
            .peer
            .notify_raw(wire_method, &wire_params)
            .await
            .map_err(|e| self.failed(method, &e))
    }

    /// Sends a notification with raw params if the connection's outgoing buffer has room,
    /// without waiting: `Ok(false)` (nothing sent) while it is full.
    pub(crate) fn try_notify_raw(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<bool, ErrorObject> {
        let (wire_method, wire_params) = self.outgoing(method, params);
        self.cx
            .peer
            .try_notify_raw(wire_method, &wire_params)
            .map_err(|e| self.failed(method, &e))
    }

    /// The method and params a message goes on the wire with: wrapped in `proxy/successor`
    /// (in the conductor's spelling) toward the successor, as it is toward the predecessor.
    fn outgoing<'p, P: Serialize + ?Sized>(
        &self,
        method: &'p str,
        params: Option<&'p P>,
    ) -> (&'p str, Outgoing<'p, P>) {
        match self.toward {
            Toward::Successor => (
                self.cx.dialect().successor_method(),
                Outgoing::Wrapped(Wrapped { method, params }),
            ),
            Toward::Predecessor => (method, Outgoing::Plain(params)),
        }
    }

    /// The error object for a message that did not get through, or a failed answer.
    pub(crate) fn failed(&self, method: &str, error: &acp_rpc::Error) -> ErrorObject {
        let toward = self.toward.name();
        match error {
            acp_rpc::Error::Remote(e) => e.clone(),
            e if e.is_connection_closed() => ErrorObject::internal_error(format_args!(
                "`{method}` could not reach the {toward}: the connection to the conductor is closed"
            )),
            acp_rpc::Error::Decode(e) => ErrorObject::internal_error(format_args!(
                "the {toward}'s answer to `{method}` does not fit its result type: {e}"
            )),
            e => ErrorObject::internal_error(format_args!(
                "`{method}` could not be sent to the {toward}: {e}"
            )),
        }
    }
}

/// The params of a message as it goes on the wire (see [`Hop::outgoing`]).
#[derive(Serialize)]
#[serde(untagged)]
enum Outgoing<'p, P: Serialize + ?Sized> {
    /// Toward the successor: the `proxy/successor` envelope.
    Wrapped(Wrapped<'p, P>),
    /// Toward the predecessor: the params as they are.
    Plain(Option<&'p P>),
}
