//! The connection's driver: one loop that reads frames, dispatches them and, polled alongside,
//! the writer that drains the outbox.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use acp_codec::{AnyCodec, CodecError, Frame, Framing};
use acp_types::{CancelRequestNotification, DecodeErrorKind, ErrorObject, RawMessage, RequestId};
use bytes::Bytes;
use futures::FutureExt;
use futures::future::{BoxFuture, Fuse, FusedFuture, OptionFuture};
use futures::stream::{FuturesUnordered, Stream, StreamExt};
use futures::{Sink, SinkExt};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::oneshot;
use tokio_util::codec::FramedRead;

use crate::handler::Handler;
use crate::outbox::{Batch, Outbox};
use crate::peer::{Peer, RawResult, Reply, Shared, write_response};
use crate::{Config, Direction, Error, Observer};

/// The size of the read buffer: one pipe's capacity on Linux.
const READ_CHUNK: usize = 64 * 1024;

/// The future that runs a connection; see [`connect`].
///
/// It resolves when the connection ends: `Ok(())` when the peer closed its side cleanly, an
/// error when the transport failed. Either way, every pending call has failed with
/// [`Error::ConnectionClosed`], every running request handler was cancelled, and the
/// notifications received before the end were handled, by then.
///
/// The end of input is not the end of output: a peer may send its last messages and close its
/// side while still reading (a shell pipeline, `echo ... | agent`, a relay). At the end of
/// input, reading stops, pending calls fail at once, and the running request handlers are
/// cancelled (dropped: a cancelled request gets no answer, as when the peer is gone). Then the
/// notifications received before the end are handled, in order, and everything queued for
/// output is written: what was queued before the end, and what is sent meanwhile (by those
/// notification handlers, or by other tasks holding the [`Peer`]). Once the notifications are
/// handled the output is closed (later sends fail with [`Error::ConnectionClosed`]), the rest
/// written and flushed, and the output shut down. All of this within
/// [`Config::drain_timeout`]: past it, what is unwritten is dropped with a warning in the log.
/// When writing fails meanwhile (the peer is gone for good), the rest is dropped at once.
///
/// A peer that hangs up (closes both sides, or exits) is seen on both at once: writing fails
/// (a broken pipe, a reset connection) and the input ends. The driver reports what the peer
/// did, the end of its input: when writing fails that way, nothing more is written (sends
/// fail with [`Error::ConnectionClosed`]) and reading goes on to the end of input, for at
/// most [`Config::drain_timeout`], handling what arrives as usual. The end of input then
/// resolves the driver with `Ok(())`, as it would have without the write; a peer that still
/// writes past the timeout (it stopped reading only), or a read that fails, resolves it with
/// that error. Any other write failure ends the connection at once with its error.
///
/// Dropping it closes the connection at once: pending calls fail with
/// [`Error::ConnectionClosed`], handlers are cancelled, and the transport is dropped (for a
/// child process's stdin, the child sees the end of its input).
#[must_use = "the connection does nothing unless its driver is polled"]
pub struct Driver {
    inner: BoxFuture<'static, Result<(), Error>>,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver").finish_non_exhaustive()
    }
}

impl Future for Driver {
    type Output = Result<(), Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.inner.as_mut().poll(cx)
    }
}

/// Connects over a byte stream (stdio, a pipe, a socket, an in-memory duplex).
///
/// `make_handler` receives the [`Peer`] handle (so the handler can call the peer) and returns
/// the [`Handler`]. Nothing runs until the returned [`Driver`] is polled; the caller decides
/// where (usually `tokio::spawn(driver)`).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), acp_rpc::Error> {
/// use acp_rpc::{Config, Router, connect};
/// use acp_types::methods::SessionPrompt;
/// use acp_types::{PromptRequest, PromptResponse, StopReason};
///
/// let (a, b) = tokio::io::duplex(64 * 1024);
/// let (a_read, a_write) = tokio::io::split(a);
/// let (b_read, b_write) = tokio::io::split(b);
///
/// // One side answers prompts...
/// let (_agent, agent_driver) = connect(
///     |_peer| Router::new().request::<SessionPrompt, _, _>(|_req| async {
///         Ok(PromptResponse::new(StopReason::EndTurn))
///     }),
///     a_read, a_write, Config::default(),
/// );
/// // ...the other calls it.
/// let (agent, client_driver) = connect(|_peer| Router::new(), b_read, b_write, Config::default());
/// tokio::spawn(agent_driver);
/// tokio::spawn(client_driver);
///
/// let response = agent
///     .request::<SessionPrompt>(&PromptRequest::new("s", vec!["Hello".into()]))
///     .await?;
/// assert_eq!(response.stop_reason, StopReason::EndTurn);
/// # Ok(()) }
/// ```
pub fn connect<H, R, W>(
    make_handler: impl FnOnce(Peer) -> H,
    reader: R,
    writer: W,
    config: Config,
) -> (Peer, Driver)
where
    H: Handler,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let outbox = Outbox::new(&config);
    let shared = Arc::new(Shared::new(outbox, config.request_timeout));
    let peer = Peer {
        shared: shared.clone(),
    };
    let handler = Arc::new(make_handler(peer.clone()));
    // Read up to a pipe's worth at a time.
    let frames = FramedRead::with_capacity(
        reader,
        AnyCodec::with_max_len(config.framing, config.max_frame_len),
        READ_CHUNK,
    );
    let inner = Box::pin(run(
        handler,
        shared,
        ByteStream(frames),
        write_bytes(writer),
        config,
    ));
    (peer, Driver { inner })
}

/// Connects over a message transport: `incoming` yields one message body per item and
/// `outgoing` takes one message body per item (for example WebSocket text frames or an
/// in-process channel). No framing is applied.
pub fn connect_messages<H, I, O>(
    make_handler: impl FnOnce(Peer) -> H,
    incoming: I,
    outgoing: O,
    config: Config,
) -> (Peer, Driver)
where
    H: Handler,
    I: Stream<Item = Result<Bytes, std::io::Error>> + Send + Unpin + 'static,
    O: Sink<Bytes, Error = std::io::Error> + Send + Unpin + 'static,
{
    let outbox = Outbox::for_messages(&config);
    let shared = Arc::new(Shared::new(outbox, config.request_timeout));
    let peer = Peer {
        shared: shared.clone(),
    };
    let handler = Arc::new(make_handler(peer.clone()));
    let limit = config.max_frame_len;
    let frames = incoming.map(move |item| match item {
        Ok(bytes) if bytes.len() > limit => Ok(Frame::Oversized { limit }),
        Ok(bytes) => Ok(Frame::Message(bytes)),
        Err(e) => Err(CodecError::Io(e)),
    });
    let inner = Box::pin(run(
        handler,
        shared,
        MessageStream(frames),
        write_messages(outgoing),
        config,
    ));
    (peer, Driver { inner })
}

/// How many frames the reading loop takes in a row, while more are ready, before the writer
/// runs (and the runtime's other tasks get a turn).
const READ_AHEAD: usize = 64;

/// The frame stream as the reading loop sees it: ready frames come in runs of at most
/// [`READ_AHEAD`], after which it yields once (the task is woken again at once).
struct ReadAhead<I> {
    inner: I,
    /// Frames returned since the stream last had none ready.
    run: usize,
}

impl<I: Incoming> Stream for ReadAhead<I> {
    type Item = Result<Frame, CodecError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.run >= READ_AHEAD {
            self.run = 0;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        match Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Ready(item) => {
                self.run += 1;
                Poll::Ready(item)
            }
            Poll::Pending => {
                self.run = 0;
                Poll::Pending
            }
        }
    }
}

/// The incoming side: frames, and the framing auto-detection chose (if any).
trait Incoming: Stream<Item = Result<Frame, CodecError>> + Unpin {
    fn detected_framing(&self) -> Option<Framing>;
}

struct ByteStream<R>(FramedRead<R, AnyCodec>);

impl<R: AsyncRead + Unpin> Stream for ByteStream<R> {
    type Item = Result<Frame, CodecError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.0).poll_next(cx)
    }
}

impl<R: AsyncRead + Unpin> Incoming for ByteStream<R> {
    fn detected_framing(&self) -> Option<Framing> {
        self.0.decoder().framing()
    }
}

struct MessageStream<S>(S);

impl<S: Stream<Item = Result<Frame, CodecError>> + Unpin> Stream for MessageStream<S> {
    type Item = Result<Frame, CodecError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.0).poll_next(cx)
    }
}

impl<S: Stream<Item = Result<Frame, CodecError>> + Unpin> Incoming for MessageStream<S> {
    fn detected_framing(&self) -> Option<Framing> {
        None
    }
}

/// The writer for a byte stream: writes each batch with one `write_all` and one flush.
fn write_bytes<W: AsyncWrite + Send + Unpin + 'static>(
    mut writer: W,
) -> impl FnOnce(Arc<Shared>) -> BoxFuture<'static, Result<(), Error>> {
    move |shared| {
        Box::pin(async move {
            while let Some(batch) = shared.outbox.take().await {
                let Batch::Bytes(bytes) = batch else {
                    unreachable!("a byte stream outbox yields bytes")
                };
                tracing::trace!(len = bytes.len(), "writing batch");
                writer.write_all(&bytes).await.map_err(Error::Io)?;
                writer.flush().await.map_err(Error::Io)?;
                shared.outbox.recycle(bytes);
            }
            // The output was finished with everything written: the peer sees the end of it.
            writer.shutdown().await.map_err(Error::Io)
        })
    }
}

/// The writer for a message transport: feeds every message, then flushes once per batch.
fn write_messages<O: Sink<Bytes, Error = std::io::Error> + Send + Unpin + 'static>(
    mut sink: O,
) -> impl FnOnce(Arc<Shared>) -> BoxFuture<'static, Result<(), Error>> {
    move |shared| {
        Box::pin(async move {
            while let Some(batch) = shared.outbox.take().await {
                let Batch::Messages(messages) = batch else {
                    unreachable!("a message outbox yields messages")
                };
                for message in messages {
                    sink.feed(message).await.map_err(Error::Io)?;
                }
                sink.flush().await.map_err(Error::Io)?;
            }
            Ok(())
        })
    }
}

/// An item of the ordered notification lane.
enum LaneItem<N> {
    /// A notification to handle, and the size of its message.
    Notification(N, usize),
    /// A response held back until the notifications that arrived before it were handled.
    Deliver(oneshot::Sender<Reply>, Reply),
}

struct Dispatcher<H: Handler> {
    handler: Arc<H>,
    shared: Arc<Shared>,
    max_in_flight: usize,
    /// The budget for `held_bytes`.
    max_in_flight_bytes: usize,
    /// The bytes of the requests being handled (the sizes of their messages).
    held_bytes: usize,
    /// The bytes of the notifications waiting in the lane (the sizes of their messages): reading
    /// pauses while they are over the in-flight budget.
    queued_bytes: usize,
    /// How long the lane may grow before reading pauses.
    max_queued: usize,
    /// Running request handlers; each resolves to its request id, serial number and message
    /// size once answered.
    in_flight: FuturesUnordered<BoxFuture<'static, (RequestId, u64, usize)>>,
    /// How to cancel each running request (`$/cancel_request`), with its serial number: once a
    /// request is cancelled its id may name a new request before the old one has finished.
    cancels: HashMap<RequestId, (u64, oneshot::Sender<()>)>,
    /// The serial number of the next request.
    next_serial: u64,
    /// Notifications and held-back responses, in arrival order.
    lane: VecDeque<LaneItem<H::Notification>>,
    /// The notification being handled (at most one).
    current: Option<BoxFuture<'static, ()>>,
    /// Sees every message received.
    observer: Option<Observer>,
}

async fn run<H, I>(
    handler: Arc<H>,
    shared: Arc<Shared>,
    incoming: I,
    writer: impl FnOnce(Arc<Shared>) -> BoxFuture<'static, Result<(), Error>>,
    config: Config,
) -> Result<(), Error>
where
    H: Handler,
    I: Incoming,
{
    // However this future ends, finished or dropped by its owner, the connection closes:
    // pending calls fail and the handle refuses new messages.
    let _close = CloseOnDrop(shared.clone());
    let mut write = writer(shared.clone()).fuse();
    let mut d = Dispatcher {
        handler,
        shared: shared.clone(),
        observer: config.observer.clone(),
        max_in_flight: config.max_in_flight,
        max_in_flight_bytes: config.max_in_flight_bytes,
        held_bytes: 0,
        queued_bytes: 0,
        max_queued: config.max_queued_notifications,
        in_flight: FuturesUnordered::new(),
        cancels: HashMap::new(),
        next_serial: 0,
        lane: VecDeque::new(),
        current: None,
    };
    let mut framing = incoming.detected_framing();
    let mut incoming = ReadAhead {
        inner: incoming,
        run: 0,
    };
    // Writing failed because the peer stopped reading: the error, and how long the end of its
    // input may take to come.
    let mut hung_up: Option<(std::io::Error, Pin<Box<tokio::time::Sleep>>)> = None;
    let result = loop {
        d.advance_lane();
        tokio::select! {
            // Priorities, highest first. Each branch is cancel safe: the writer is one future
            // kept across iterations, and the `next` of the futures sets and of the frame stream,
            // and `below_hard_limit`, lose nothing when not selected. The writer comes after the
            // handlers and the frames ready to read, so that what they send is written in one
            // pass: one write for a burst of messages rather than one per message.
            biased;

            // 1. Finished requests: their answers are queued; forget their cancel handles.
            Some((id, serial, len)) = d.in_flight.next(), if !d.in_flight.is_empty() => {
                d.held_bytes -= len;
                if d.cancels.get(&id).is_some_and(|(s, _)| *s == serial) {
                    d.cancels.remove(&id);
                }
            }

            // 2. The notification being handled.
            Some(()) = OptionFuture::from(d.current.as_mut()), if d.current.is_some() => {
                d.current = None;
            }

            // 3. The next frame, while one is ready (at most `READ_AHEAD` in a row: what their
            //    handlers send is then written in one go by (4)), unless our outgoing buffer is
            //    over its hard bound because the peer is not reading (then wait (5) for it to
            //    drain instead of growing), or
            //    notifications queue for their handler, by count or by bytes (then wait (2) for
            //    it to catch up).
            frame = incoming.next(),
                if !shared.outbox.over_hard_limit()
                    && d.lane.len() < d.max_queued
                    && d.queued_bytes < d.max_in_flight_bytes =>
            match frame {
                None => {
                    match hung_up.take() {
                        Some((error, _)) => tracing::debug!(
                            %error,
                            "the peer hung up (its input ended as writing to it failed)"
                        ),
                        None => tracing::debug!("the peer closed the connection"),
                    }
                    break Ok(());
                }
                Some(Err(error)) => {
                    // Nothing more can be read: say why before closing (the codec's error,
                    // carried as the source of the one returned, names the reason).
                    match &error {
                        CodecError::Io(e) => {
                            tracing::warn!(error = %e, "reading the transport failed; closing");
                        }
                        unreadable => tracing::error!(
                            reason = %unreadable,
                            "the incoming byte stream cannot be read any further; closing"
                        ),
                    }
                    break Err(match error {
                        CodecError::Io(e) => Error::Io(e),
                        other => Error::Codec(other),
                    });
                }
                Some(Ok(frame)) => {
                    let detected = incoming.inner.detected_framing();
                    if detected != framing {
                        framing = detected;
                        if let Some(f) = detected {
                            tracing::debug!(framing = %f, "detected the peer's framing");
                            shared.outbox.set_framing(f);
                        }
                    }
                    d.on_frame(frame);
                }
            },

            // 4. The writer runs until it fails, which ends the connection; when the peer
            //    stopped reading, at the end of its input (if it hung up, that is right there).
            result = &mut write, if !write.is_terminated() => match result {
                Err(Error::Io(error)) if hang_up(&error) => {
                    tracing::debug!(%error, "the peer stopped reading; reading to the end of its input");
                    shared.outbox.close();
                    hung_up = Some((error, Box::pin(tokio::time::sleep(config.drain_timeout))));
                }
                other => break other,
            },

            // 4b. The peer stopped reading but not writing: its write error ends it after all.
            Some(()) = OptionFuture::from(hung_up.as_mut().map(|(_, wait)| wait.as_mut())),
                if hung_up.is_some() =>
            {
                if let Some((error, _)) = hung_up.take() {
                    tracing::warn!(
                        %error,
                        "the peer stopped reading and did not end its output in time; closing"
                    );
                    break Err(Error::Io(error));
                }
            }

            // 5. Paused reading: wait for the peer to read.
            () = shared.outbox.below_hard_limit(), if shared.outbox.over_hard_limit() => {}
        }
    };
    drop(incoming);
    // No answer can arrive any more: pending calls fail now, and running request handlers are
    // cancelled by dropping them.
    shared.close_calls();
    d.in_flight = FuturesUnordered::new();
    d.cancels.clear();
    d.held_bytes = 0;
    // What arrived before the end is still handled, and what is queued written, in time.
    let deadline = tokio::time::sleep(config.drain_timeout);
    tokio::pin!(deadline);
    tokio::select! {
        biased;
        () = d.finish_output(&mut write) => {}
        () = &mut deadline => tracing::warn!(
            timeout = ?config.drain_timeout,
            queued_notifications = d.lane.len() + usize::from(d.current.is_some()),
            unwritten_bytes = shared.outbox.buffered(),
            "the output was not written out within the drain timeout after the end of input \
             (the peer does not read): dropping the rest"
        ),
    }
    drop(d);
    shared.close();
    result
}

/// Whether a write failed because the peer no longer reads (closed its input, hung up), the
/// way a peer's end shows on the output side.
fn hang_up(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
    )
}

/// Closes the connection when dropped.
struct CloseOnDrop(Arc<Shared>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

impl<H: Handler> Dispatcher<H> {
    /// Finishes the output once reading has ended: handles what is left in the lane with the
    /// writer running, then closes the outbox and lets the writer write the rest, flush and
    /// shut the output down. A writer that failed (before or now) drops what is unwritten.
    async fn finish_output(&mut self, write: &mut Fuse<BoxFuture<'static, Result<(), Error>>>) {
        if write.is_terminated() {
            // Nothing can be written: senders fail from now on instead of waiting for room.
            self.shared.outbox.close();
        }
        self.drain_lane(write).await;
        if write.is_terminated() {
            return;
        }
        self.shared.outbox.finish();
        if let Err(error) = write.await {
            tracing::warn!(
                error = %with_source(&error),
                "the output could not be written out after the end of input"
            );
        }
    }

    /// Handles what is left in the lane once reading has ended, with the writer still running
    /// (a notification handler may still send).
    async fn drain_lane(&mut self, write: &mut Fuse<BoxFuture<'static, Result<(), Error>>>) {
        loop {
            self.advance_lane();
            if self.current.is_none() {
                return;
            }
            tokio::select! {
                biased;
                // The writer failed: nothing can be sent any more.
                result = &mut *write, if !write.is_terminated() => {
                    if let Err(error) = result {
                        tracing::debug!(%error, "the writer failed after the end of input");
                    }
                    self.shared.outbox.close();
                }
                Some(()) = OptionFuture::from(self.current.as_mut()) => self.current = None,
            }
        }
    }

    /// Starts the next notifications and releases held-back responses while the lane is idle.
    fn advance_lane(&mut self) {
        while self.current.is_none() {
            match self.lane.pop_front() {
                Some(LaneItem::Deliver(tx, reply)) => {
                    // The caller may have given up; a late answer is then ignored.
                    let _ = tx.send(reply);
                }
                Some(LaneItem::Notification(n, len)) => {
                    self.queued_bytes -= len;
                    self.start_notification(n);
                }
                None => break,
            }
        }
    }

    /// Starts handling a notification. Most handlers finish at once: they are polled here
    /// first, and only kept (and polled again, with the driver's waker) if they are not done.
    fn start_notification(&mut self, notification: H::Notification) {
        let mut handling = self.handler.handle_notification(notification);
        if (&mut handling).now_or_never().is_none() {
            self.current = Some(handling);
        }
    }

    fn on_frame(&mut self, frame: Frame) {
        let bytes = match frame {
            Frame::Message(bytes) => {
                if let Some(observer) = &self.observer {
                    observer.observe(Direction::Received, &bytes);
                }
                bytes
            }
            Frame::Oversized { limit } => {
                tracing::warn!(limit, "skipped an oversized frame");
                self.reply_now(
                    &RequestId::Null,
                    &ErrorObject::invalid_request(format_args!(
                        "message exceeds the {limit}-byte frame limit"
                    )),
                );
                return;
            }
            // A Content-Length header section without a usable length, skipped up to the
            // next header: the message (if any) is lost, so answer as for bytes that are not
            // JSON, and go on.
            Frame::Malformed { reason } => {
                tracing::warn!(%reason, "skipped a frame with a malformed header");
                self.reply_now(
                    &RequestId::Null,
                    &ErrorObject::parse_error(format_args!("malformed frame header: {reason}")),
                );
                return;
            }
            _ => return,
        };
        tracing::trace!(len = bytes.len(), "received frame");
        let message = match RawMessage::parse(&bytes) {
            Ok(message) => message,
            Err(error) => {
                let members = crate::sniff::members(&bytes);
                if members.is_response() {
                    // A response is never answered, however malformed; but the call it answers
                    // must not wait for ever.
                    self.on_unreadable_response(members.id, &error);
                    return;
                }
                tracing::warn!(%error, "malformed message");
                let reply = match error.kind() {
                    DecodeErrorKind::Syntax => ErrorObject::parse_error(&error),
                    _ => ErrorObject::invalid_request(&error),
                };
                // Echo the id of a request when it can be read (JSON-RPC 2.0 §5).
                let id = readable_id(&bytes).unwrap_or(RequestId::Null);
                self.reply_now(&id, &reply);
                return;
            }
        };
        match (&message.method, &message.id) {
            #[cfg(feature = "unstable_protocol_v2")]
            (Some(method), Some(RequestId::Null)) if self.shared.refuses_null_ids() => {
                tracing::warn!(%method, "request with id null refused (protocol version 2)");
                self.reply_now(
                    &RequestId::Null,
                    &ErrorObject::invalid_request(format_args!(
                        "the request id of `{method}` is null, which protocol version 2 does not \
                         allow: use a string or an integer"
                    )),
                );
            }
            (Some(method), Some(id)) => {
                self.on_request(method, id.clone(), message.params, bytes.len());
            }
            (Some(method), None) => self.on_notification(method, message.params, bytes.len()),
            (None, Some(_)) => self.on_response(&bytes, &message),
            (None, None) => {
                unreachable!("RawMessage::parse rejects messages without method and id")
            }
        }
    }

    fn on_request(
        &mut self,
        method: &str,
        id: RequestId,
        params: Option<&serde_json::value::RawValue>,
        len: usize,
    ) {
        tracing::debug!(%id, method, "received request");
        if self.in_flight.len() >= self.max_in_flight {
            tracing::warn!(%id, method, "too many requests in flight: refusing one");
            self.reply_now(
                &id,
                &ErrorObject::internal_error(format_args!(
                    "server busy: {} requests already in flight",
                    self.max_in_flight
                )),
            );
            return;
        }
        if self.held_bytes > 0 && self.held_bytes + len > self.max_in_flight_bytes {
            tracing::warn!(
                %id,
                method,
                len,
                held = self.held_bytes,
                "requests in flight hold too many bytes: refusing one"
            );
            self.reply_now(
                &id,
                &ErrorObject::internal_error(format_args!(
                    "server busy: the requests in flight hold {} bytes, and this one's {len} \
                     would exceed the budget of {} bytes; retry when they are answered",
                    self.held_bytes, self.max_in_flight_bytes
                )),
            );
            return;
        }
        if self.cancels.contains_key(&id) {
            tracing::warn!(%id, method, "request id already in use");
            self.reply_now(
                &id,
                &ErrorObject::invalid_request(format_args!("request id {id} is already in use")),
            );
            return;
        }
        let request = match self.handler.decode_request(method, params) {
            Ok(request) => request,
            Err(error) => {
                tracing::debug!(%id, method, %error, "refused request");
                self.reply_now(&id, &error);
                return;
            }
        };
        let (cancel_tx, cancel_rx) = oneshot::channel::<()>();
        let serial = self.next_serial;
        self.next_serial += 1;
        let work = self.handler.handle_request(request);
        let shared = self.shared.clone();
        let request_id = id.clone();
        self.in_flight.push(Box::pin(async move {
            let result = tokio::select! {
                biased;
                Ok(()) = cancel_rx => Err(ErrorObject::request_cancelled()),
                result = work => result,
            };
            let sent = shared
                .outbox
                .send(|buf| write_response(buf, &request_id, result.as_ref()))
                .await;
            match sent {
                Err(Error::Serialize(e)) => {
                    tracing::warn!(id = %request_id, error = %e, "could not serialize a result");
                    let error = ErrorObject::internal_error(format_args!(
                        "could not serialize the result: {e}"
                    ));
                    let _ = shared
                        .outbox
                        .send(|buf| write_response::<()>(buf, &request_id, Err(&error)))
                        .await;
                }
                Err(Error::Frame(e)) => {
                    tracing::warn!(id = %request_id, error = %e, "could not frame a result");
                    let error =
                        ErrorObject::internal_error(format_args!("could not send the result: {e}"));
                    let _ = shared
                        .outbox
                        .send(|buf| write_response::<()>(buf, &request_id, Err(&error)))
                        .await;
                }
                _ => {}
            }
            (request_id, serial, len)
        }));
        self.held_bytes += len;
        self.cancels.insert(id, (serial, cancel_tx));
    }

    fn on_notification(
        &mut self,
        method: &str,
        params: Option<&serde_json::value::RawValue>,
        len: usize,
    ) {
        tracing::trace!(method, "received notification");
        if method == acp_types::methods::protocol::CANCEL_REQUEST {
            match params.map(|p| acp_types::from_str::<CancelRequestNotification>(p.get())) {
                Some(Ok(cancel)) => {
                    if let Some((_, tx)) = self.cancels.remove(&cancel.request_id) {
                        tracing::debug!(id = %cancel.request_id, "request cancelled by the peer");
                        let _ = tx.send(());
                    } else {
                        tracing::debug!(id = %cancel.request_id, "cancellation of a request not running");
                    }
                }
                _ => tracing::warn!("malformed $/cancel_request ignored"),
            }
            return;
        }
        match self.handler.decode_notification(method, params) {
            // An idle lane: handle it right away.
            Ok(notification) if self.lane.is_empty() && self.current.is_none() => {
                self.start_notification(notification);
            }
            Ok(notification) => {
                self.queued_bytes += len;
                self.lane
                    .push_back(LaneItem::Notification(notification, len));
            }
            Err(error) => tracing::warn!(method, %error, "notification ignored"),
        }
    }

    fn on_response(&mut self, bytes: &Bytes, message: &RawMessage<'_>) {
        let id = message.id.as_ref().expect("a response has an id");
        let Some(call) = self.shared.take_pending(id) else {
            tracing::warn!(%id, "response to an unknown request ignored");
            return;
        };
        tracing::debug!(%id, method = call.method(), "received response");
        let reply: Reply = match (&message.result, &message.error) {
            (_, Some(error)) => Err(error.clone()),
            (Some(result), None) => {
                let start = result.get().as_ptr() as usize - bytes.as_ptr() as usize;
                Ok(RawResult::new(
                    bytes.clone(),
                    start,
                    start + result.get().len(),
                ))
            }
            (None, None) => {
                unreachable!("RawMessage::parse rejects responses without result or error")
            }
        };
        self.handler
            .response_received(call.method(), reply.as_ref());
        // The barrier: a response waits behind the notifications that arrived before it.
        self.deliver(call.into_sender(), reply);
    }

    /// A response we cannot read: the call it answers (if its id is readable and names one)
    /// fails with the reason, after the notifications that arrived before it.
    fn on_unreadable_response(&mut self, id: Option<&[u8]>, error: &acp_types::DecodeError) {
        let id = id.and_then(|text| serde_json::from_slice::<RequestId>(text).ok());
        let call = id.as_ref().and_then(|id| self.shared.take_pending(id));
        let Some(call) = call else {
            tracing::warn!(?id, %error, "unreadable response to no pending request dropped");
            return;
        };
        tracing::warn!(?id, method = call.method(), %error, "unreadable response: failing its call");
        let reply: Reply = Err(ErrorObject::parse_error(format_args!(
            "the peer's answer could not be read: {error}"
        )));
        self.handler
            .response_received(call.method(), reply.as_ref());
        self.deliver(call.into_sender(), reply);
    }

    /// Hands a reply to its caller, behind the notifications that arrived before it.
    fn deliver(&mut self, tx: oneshot::Sender<Reply>, reply: Reply) {
        if self.lane.is_empty() && self.current.is_none() {
            let _ = tx.send(reply);
        } else {
            self.lane.push_back(LaneItem::Deliver(tx, reply));
        }
    }

    fn reply_now(&self, id: &RequestId, error: &ErrorObject) {
        // Replies of the reading loop never wait: reading must go on whatever the writer does.
        let sent = self
            .shared
            .outbox
            .send_now(|buf| write_response::<()>(buf, id, Err(error)));
        if let Err(e @ (Error::Frame(_) | Error::Serialize(_))) = sent {
            // Every request gets an answer: when the chosen one cannot be sent (an error
            // whose data is over the frame limit), a small one goes instead.
            tracing::warn!(
                %id,
                code = %error.code,
                error = %with_source(&e),
                "could not send an error reply: sending a short one"
            );
            // As short as an answer gets: the reason is in our log, not on the wire.
            let fallback = ErrorObject::new(
                acp_types::ErrorCode::INTERNAL_ERROR,
                "Internal error: the reply was too large to send",
            );
            let _ = self
                .shared
                .outbox
                .send_now(|buf| write_response::<()>(buf, id, Err(&fallback)));
        }
    }
}

/// An error's text followed by its source's, for messages read by people on the other side.
fn with_source(error: &Error) -> String {
    match std::error::Error::source(error) {
        Some(source) => format!("{error}: {source}"),
        None => error.to_string(),
    }
}

/// The id to answer a message that failed to parse as JSON-RPC with: its id when it is readable
/// and the message was meant as a request (it has a `method`). The id of a malformed response
/// is never echoed: it names one of *our* requests, and an error response carrying it would
/// answer the peer's own request of the same id, if there is one.
fn readable_id(bytes: &[u8]) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<RequestId>,
        method: Option<serde::de::IgnoredAny>,
    }
    // Only an object has members: serde would also read a JSON array as the struct's fields
    // in order, and answer a batch with its first element as the id.
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    let message = serde_json::from_slice::<IdOnly>(bytes).ok()?;
    message.method?;
    message.id
}

impl<H: Handler> Drop for Dispatcher<H> {
    fn drop(&mut self) {
        if !self.in_flight.is_empty() {
            tracing::debug!(
                count = self.in_flight.len(),
                "cancelling running request handlers"
            );
        }
    }
}
