//! The handle used to call the peer: requests, notifications, and the pending-call table.

use std::borrow::Cow;
use std::collections::HashMap;
#[cfg(feature = "unstable_protocol_v2")]
use std::sync::atomic::AtomicU16;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use acp_types::methods::{Notification, Request};
use acp_types::{
    CancelRequestNotification, ErrorObject, ExtNotification, ExtRequest, ExtResponse, RequestId,
};
use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::sync::{Notify, oneshot};

use crate::Error;
use crate::outbox::Outbox;

/// The raw `result` of a response: a slice of the frame it arrived in (no copy).
#[derive(Debug, Clone)]
pub struct RawResult {
    frame: Bytes,
    start: usize,
    end: usize,
}

impl RawResult {
    pub(crate) fn new(frame: Bytes, start: usize, end: usize) -> Self {
        Self { frame, start, end }
    }

    /// The JSON text of the result.
    pub fn as_bytes(&self) -> &[u8] {
        &self.frame[self.start..self.end]
    }

    /// Decodes the result into `T`.
    ///
    /// # Errors
    ///
    /// [`Error::Decode`] when the result does not fit `T`.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, Error> {
        acp_types::from_slice(self.as_bytes()).map_err(Error::Decode)
    }

    /// True when the result is JSON `null`.
    pub fn is_null(&self) -> bool {
        self.as_bytes().trim_ascii() == b"null"
    }

    /// Decodes the result of an ACP method into `T`, reading a `null` result as the empty
    /// object `{}`: peers (and the specification's examples) answer `null` for methods whose
    /// result has no required field, such as `fs/write_text_file` or `session/set_mode`. This
    /// is the rule [`acp_types::Message::decode`] applies; a result type with a required field
    /// still fails on `null`.
    ///
    /// # Errors
    ///
    /// [`Error::Decode`] when the result does not fit `T`.
    pub fn decode_method_result<T: DeserializeOwned>(&self) -> Result<T, Error> {
        if self.is_null() {
            return acp_types::from_slice(b"{}").map_err(Error::Decode);
        }
        self.decode()
    }

    /// The result as an owned raw JSON value.
    ///
    /// # Errors
    ///
    /// Never for a result read from the wire (it is valid JSON); kept fallible for safety.
    pub fn to_raw_value(&self) -> Result<Box<RawValue>, Error> {
        let text = std::str::from_utf8(self.as_bytes())
            .map_err(|e| Error::Serialize(serde::de::Error::custom(e)))?;
        RawValue::from_string(text.to_owned()).map_err(Error::Serialize)
    }
}

/// What the reading loop hands to a waiting caller.
pub(crate) type Reply = Result<RawResult, ErrorObject>;

pub(crate) struct PendingCall {
    /// For traces; borrowed for typed requests, so that a call allocates no name.
    method: Cow<'static, str>,
    reply: oneshot::Sender<Reply>,
}

impl PendingCall {
    pub(crate) fn method(&self) -> &str {
        &self.method
    }

    pub(crate) fn into_sender(self) -> oneshot::Sender<Reply> {
        self.reply
    }
}

pub(crate) struct Shared {
    pub(crate) outbox: Outbox,
    /// The connection-wide limit on waiting for an answer.
    request_timeout: Option<std::time::Duration>,
    next_id: AtomicI64,
    /// `None` once the connection is closed: new calls fail at once, waiters see the drop.
    pending: Mutex<Option<HashMap<i64, PendingCall>>>,
    closed: AtomicBool,
    closed_notify: Notify,
    /// The protocol version `initialize` settled (0 until then): read where request ids are
    /// parsed, only for an id `null`, so it costs nothing per message.
    #[cfg(feature = "unstable_protocol_v2")]
    protocol_version: AtomicU16,
}

impl Shared {
    pub(crate) fn new(outbox: Outbox, request_timeout: Option<std::time::Duration>) -> Self {
        Self {
            outbox,
            request_timeout,
            next_id: AtomicI64::new(0),
            pending: Mutex::new(Some(HashMap::new())),
            closed: AtomicBool::new(false),
            closed_notify: Notify::new(),
            #[cfg(feature = "unstable_protocol_v2")]
            protocol_version: AtomicU16::new(0),
        }
    }

    /// True when the settled protocol version forbids request ids `null` (v2 and later).
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn refuses_null_ids(&self) -> bool {
        self.protocol_version.load(Ordering::Acquire) >= 2
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Option<HashMap<i64, PendingCall>>> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Removes the pending call a response answers.
    pub(crate) fn take_pending(&self, id: &RequestId) -> Option<PendingCall> {
        let RequestId::Number(n) = id else {
            return None;
        };
        self.pending().as_mut()?.remove(n)
    }

    /// Fails pending calls and refuses new ones: no answer can arrive any more.
    pub(crate) fn close_calls(&self) {
        // Dropping the senders wakes every waiter with "connection closed".
        let pending = self.pending().take();
        drop(pending);
    }

    /// Closes the connection: pending calls fail, the outbox refuses new messages.
    pub(crate) fn close(&self) {
        self.close_calls();
        self.outbox.close();
        self.closed.store(true, Ordering::Release);
        self.closed_notify.notify_waiters();
    }
}

/// A cloneable, `Send + Sync` handle for calling the peer.
///
/// Requests and notifications are written in the order they are submitted, through one bounded
/// buffer: when the peer reads slowly, sending waits. Once the connection is closed every method
/// fails at once with [`Error::ConnectionClosed`].
#[derive(Clone)]
pub struct Peer {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

impl Peer {
    /// Sends the request `M` and waits for its typed result.
    ///
    /// # Errors
    ///
    /// [`Error::Remote`] when the peer answers with an error, [`Error::ConnectionClosed`] when
    /// the connection closes first, [`Error::Decode`] when the answer does not fit
    /// `M::Result` (a `null` result is read as `{}`, see [`RawResult::decode_method_result`]),
    /// [`Error::Serialize`]/[`Error::Frame`] when the params cannot be sent.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future before the answer forgets the call and sends `$/cancel_request` for
    /// it; a late answer is ignored.
    pub async fn request<M: Request>(&self, params: &M::Params) -> Result<M::Result, Error> {
        self.request_within::<M>(params, self.shared.request_timeout)
            .await
    }

    /// Sends the request `M` and waits at most `timeout` for its answer (whatever the
    /// connection's [`Config::request_timeout`](crate::Config::request_timeout)).
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`] when no answer came in time (the peer then gets
    /// `$/cancel_request`); otherwise as [`request`](Self::request).
    ///
    /// # Cancel safety
    ///
    /// As [`request`](Self::request).
    pub async fn request_with_timeout<M: Request>(
        &self,
        params: &M::Params,
        timeout: std::time::Duration,
    ) -> Result<M::Result, Error> {
        self.request_within::<M>(params, Some(timeout)).await
    }

    async fn request_within<M: Request>(
        &self,
        params: &M::Params,
        timeout: Option<std::time::Duration>,
    ) -> Result<M::Result, Error> {
        let call = self.call(Cow::Borrowed(M::METHOD), params);
        let answer = match timeout {
            None => call.await?,
            // Dropping the call on time-out forgets it and sends `$/cancel_request`.
            Some(limit) => {
                tokio::time::timeout(limit, call)
                    .await
                    .map_err(|_| Error::Timeout {
                        method: M::METHOD,
                        after: limit,
                    })??
            }
        };
        answer.decode_method_result()
    }

    /// Sends the request `M` without waiting for its answer, which is ignored when it comes:
    /// for clean-up calls made where nothing can wait (a `Drop`). It never waits for room in
    /// the outgoing buffer (it may go over the bound, as the reading loop's own replies do).
    ///
    /// # Errors
    ///
    /// [`Error::ConnectionClosed`] when the connection is closed, [`Error::Serialize`] /
    /// [`Error::Frame`] when the params cannot be sent.
    pub fn request_detached<M: Request>(&self, params: &M::Params) -> Result<(), Error> {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        // The answer goes to a receiver that no longer exists: the reading loop drops it.
        let (tx, _rx) = oneshot::channel();
        match self.shared.pending().as_mut() {
            Some(map) => {
                map.insert(
                    id,
                    PendingCall {
                        method: Cow::Borrowed(M::METHOD),
                        reply: tx,
                    },
                );
            }
            None => return Err(Error::ConnectionClosed),
        }
        tracing::debug!(id, method = M::METHOD, "sending a detached request");
        let sent = self
            .shared
            .outbox
            .send_now(|buf| write_request(buf, id, M::METHOD, params));
        if sent.is_err() {
            if let Some(map) = self.shared.pending().as_mut() {
                map.remove(&id);
            }
        }
        sent
    }

    /// Sends a request by method name with any params, and returns the raw result.
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    ///
    /// # Cancel safety
    ///
    /// As [`request`](Self::request).
    pub async fn request_raw(
        &self,
        method: &str,
        params: &(impl Serialize + ?Sized),
    ) -> Result<RawResult, Error> {
        self.call(Cow::Owned(method.to_owned()), params).await
    }

    /// Sends the notification `N`.
    ///
    /// # Errors
    ///
    /// [`Error::ConnectionClosed`] when the connection is closed, [`Error::Serialize`] /
    /// [`Error::Frame`] when the params cannot be sent.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: the notification is either wholly queued or not at all.
    pub async fn notify<N: Notification>(&self, params: &N::Params) -> Result<(), Error> {
        self.notify_raw(N::METHOD, params).await
    }

    /// Sends an extension request (its method starts with `_`) and returns its raw result.
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    ///
    /// # Cancel safety
    ///
    /// As [`request`](Self::request).
    pub async fn ext_request(&self, request: &ExtRequest) -> Result<ExtResponse, Error> {
        let result = self.request_raw(&request.method, request).await?;
        Ok(ExtResponse::from_raw(
            request.method.clone(),
            Some(result.to_raw_value()?),
        ))
    }

    /// Sends an extension notification (its method starts with `_`).
    ///
    /// # Errors
    ///
    /// As [`notify`](Self::notify).
    ///
    /// # Cancel safety
    ///
    /// As [`notify`](Self::notify).
    pub async fn ext_notify(&self, notification: &ExtNotification) -> Result<(), Error> {
        self.notify_raw(&notification.method, notification).await
    }

    /// Sends a notification by method name with any params.
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
        params: &(impl Serialize + ?Sized),
    ) -> Result<(), Error> {
        tracing::trace!(method, "sending notification");
        self.shared
            .outbox
            .send(|buf| write_notification(buf, method, params))
            .await
    }

    /// Sends a notification by method name with any params if the outgoing buffer has room,
    /// without waiting: `Ok(true)` once it is queued, `Ok(false)` (nothing sent) while the
    /// buffer is over its bound. For relays that forward on their reading loop and take the
    /// waiting [`notify_raw`](Self::notify_raw) only when the peer is slow.
    ///
    /// # Errors
    ///
    /// As [`notify`](Self::notify).
    pub fn try_notify_raw(
        &self,
        method: &str,
        params: &(impl Serialize + ?Sized),
    ) -> Result<bool, Error> {
        tracing::trace!(method, "sending notification");
        self.shared
            .outbox
            .try_send(|buf| write_notification(buf, method, params))
    }

    /// Records the protocol version `initialize` settled for this connection (feature
    /// `unstable_protocol_v2`). The role crates call it when they answer or receive
    /// `initialize`; from then on the connection applies that version's rules: on v2 and later
    /// a request whose id is `null` is refused with `-32600` (answered with id `null`, as
    /// JSON-RPC answers an unreadable id), as the v2 schema forbids `null` ids. Batches are
    /// refused on every version. Until it is called, v1's rules apply.
    #[cfg(feature = "unstable_protocol_v2")]
    pub fn set_protocol_version(&self, version: acp_types::ProtocolVersion) {
        self.shared
            .protocol_version
            .store(version.0, Ordering::Release);
    }

    /// The protocol version recorded with [`set_protocol_version`](Self::set_protocol_version),
    /// `None` before `initialize` settled it (feature `unstable_protocol_v2`).
    #[cfg(feature = "unstable_protocol_v2")]
    pub fn protocol_version(&self) -> Option<acp_types::ProtocolVersion> {
        match self.shared.protocol_version.load(Ordering::Acquire) {
            0 => None,
            v => Some(acp_types::ProtocolVersion(v)),
        }
    }

    /// True once the connection is closed.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Waits until the connection is closed.
    pub async fn closed(&self) {
        loop {
            let notified = self.shared.closed_notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_closed() {
                return;
            }
            notified.await;
        }
    }

    async fn call(
        &self,
        method: Cow<'static, str>,
        params: &(impl Serialize + ?Sized),
    ) -> Result<RawResult, Error> {
        self.queue_call(method, params).await?.await
    }

    /// Sends a request by method name with any params, and returns as soon as it is queued
    /// for sending (after anything submitted before it on this connection, before anything
    /// submitted after it), with the answer still to come: for relays that must keep the
    /// order of what they forward without waiting for each answer.
    ///
    /// # Errors
    ///
    /// As [`notify`](Self::notify); the answer's own errors come from the returned
    /// [`PendingAnswer`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), acp_rpc::Error> {
    /// use acp_rpc::{Config, Router, connect};
    ///
    /// let (a, b) = tokio::io::duplex(64 * 1024);
    /// let (a_read, a_write) = tokio::io::split(a);
    /// let (b_read, b_write) = tokio::io::split(b);
    /// let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let (_a, server) = connect(move |_| Router::new().request_raw("_echo", move |params| {
    ///     let text = params.map(|p| p.get().to_owned()).unwrap_or_default();
    ///     log.lock().unwrap().push(text);
    ///     async move { Ok(serde_json::value::to_raw_value(&true).expect("json")) }
    /// }), a_read, a_write, Config::default());
    /// let (peer, client) = connect(|_| Router::new(), b_read, b_write, Config::default());
    /// tokio::spawn(server);
    /// tokio::spawn(client);
    ///
    /// // Both are on their way, in this order, before either answer is awaited.
    /// let first = peer.queue_request_raw("_echo", &[1]).await?;
    /// let second = peer.queue_request_raw("_echo", &[2]).await?;
    /// assert!(second.await?.decode::<bool>()?);
    /// assert!(first.await?.decode::<bool>()?);
    /// assert_eq!(*seen.lock().unwrap(), ["[1]", "[2]"]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Cancel safety
    ///
    /// Dropping this future before it resolves sends nothing, or forgets and cancels the
    /// request if it went out; dropping the [`PendingAnswer`] before the answer does the same
    /// as dropping a [`request`](Self::request) future.
    pub async fn queue_request_raw(
        &self,
        method: &str,
        params: &(impl Serialize + ?Sized),
    ) -> Result<PendingAnswer, Error> {
        self.queue_call(Cow::Owned(method.to_owned()), params).await
    }

    async fn queue_call(
        &self,
        method: Cow<'static, str>,
        params: &(impl Serialize + ?Sized),
    ) -> Result<PendingAnswer, Error> {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        // Register before sending, so the answer can never race its registration.
        match self.shared.pending().as_mut() {
            Some(map) => {
                map.insert(
                    id,
                    PendingCall {
                        method: method.clone(),
                        reply: tx,
                    },
                );
            }
            None => return Err(Error::ConnectionClosed),
        }
        let mut answer = PendingAnswer {
            shared: self.shared.clone(),
            id,
            reply: rx,
            sent: false,
            done: false,
        };
        tracing::debug!(id, method = &*method, "sending request");
        self.shared
            .outbox
            .send(|buf| write_request(buf, id, &method, params))
            .await?;
        answer.sent = true;
        Ok(answer)
    }
}

/// The answer still to come to a request that was queued for sending
/// ([`Peer::queue_request_raw`]): a future of its raw result.
///
/// Dropping it before the answer forgets the call and sends `$/cancel_request` for it; a late
/// answer is ignored.
#[must_use = "dropping it cancels the request"]
pub struct PendingAnswer {
    shared: Arc<Shared>,
    id: i64,
    reply: oneshot::Receiver<Reply>,
    sent: bool,
    done: bool,
}

impl std::fmt::Debug for PendingAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingAnswer")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl std::future::Future for PendingAnswer {
    type Output = Result<RawResult, Error>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let reply = std::task::ready!(std::pin::Pin::new(&mut self.reply).poll(cx));
        self.done = true;
        std::task::Poll::Ready(match reply {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(Error::Remote(error)),
            Err(_) => Err(Error::ConnectionClosed),
        })
    }
}

/// Forgets a call whose answer is no longer awaited, and cancels it on the peer's side.
impl Drop for PendingAnswer {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let was_pending = self
            .shared
            .pending()
            .as_mut()
            .and_then(|map| map.remove(&self.id))
            .is_some();
        if was_pending && self.sent {
            tracing::debug!(
                id = self.id,
                "request dropped before its answer: cancelling it"
            );
            let cancel = CancelRequestNotification::new(self.id);
            // Best effort: a closed connection needs no cancellation.
            let _ = self.shared.outbox.send_now(|buf| {
                write_notification(buf, acp_types::methods::protocol::CANCEL_REQUEST, &cancel)
            });
        }
    }
}

pub(crate) fn write_json(
    buf: &mut Vec<u8>,
    value: &(impl Serialize + ?Sized),
) -> Result<(), serde_json::Error> {
    serde_json::to_writer(buf, value)
}

pub(crate) fn write_request(
    buf: &mut Vec<u8>,
    id: i64,
    method: &str,
    params: &(impl Serialize + ?Sized),
) -> Result<(), serde_json::Error> {
    buf.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    write_json(buf, &id)?;
    buf.extend_from_slice(br#","method":"#);
    write_json(buf, method)?;
    buf.extend_from_slice(br#","params":"#);
    write_json(buf, params)?;
    buf.push(b'}');
    Ok(())
}

pub(crate) fn write_notification(
    buf: &mut Vec<u8>,
    method: &str,
    params: &(impl Serialize + ?Sized),
) -> Result<(), serde_json::Error> {
    buf.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    write_json(buf, method)?;
    buf.extend_from_slice(br#","params":"#);
    write_json(buf, params)?;
    buf.push(b'}');
    Ok(())
}

pub(crate) fn write_response<T: Serialize + ?Sized>(
    buf: &mut Vec<u8>,
    id: &RequestId,
    result: Result<&T, &ErrorObject>,
) -> Result<(), serde_json::Error> {
    buf.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    write_json(buf, id)?;
    match result {
        Ok(result) => {
            buf.extend_from_slice(br#","result":"#);
            write_json(buf, result)?;
        }
        Err(error) => {
            buf.extend_from_slice(br#","error":"#);
            write_json(buf, error)?;
        }
    }
    buf.push(b'}');
    Ok(())
}
