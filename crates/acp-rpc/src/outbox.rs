//! The single outgoing FIFO: every message we send is framed, in submission order, into one
//! bounded buffer that the writer drains in large batches.
//!
//! Senders serialize into a reused per-thread buffer (no per-message allocation), then frame
//! the body into the shared buffer with one copy, under the lock only for that copy.
//! When the buffer holds more than the configured bound, senders wait for the writer: a peer that
//! stops reading makes us wait, never grow. Replies the reading loop must send itself (errors for
//! malformed input) never wait, so reading never blocks on writing; they may exceed the bound up
//! to twice its size, after which the reading loop pauses until the peer reads again.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use acp_codec::{AnyCodec, FrameEncoder, Framing, FramingMode};
use bytes::{Bytes, BytesMut};
use tokio::sync::Notify;
use tokio_util::codec::Encoder;

use crate::{Config, Direction, Error, Observer};

/// How outgoing messages are delimited.
enum Delimit {
    /// Framed on a byte stream by a codec.
    Codec(AnyCodec),
    /// Kept as separate messages for a message transport: the end offset of each one.
    Messages {
        ends: VecDeque<usize>,
        max_len: usize,
    },
}

struct State {
    buf: BytesMut,
    /// The buffer of the previous batch, back from the writer: the next batch is framed into
    /// it, so that batches are neither allocated nor grown again.
    spare: Option<BytesMut>,
    delimit: Delimit,
    closed: bool,
    /// Bytes framed by senders since one of them last yielded.
    unyielded: usize,
}

/// What the writer takes from the outbox in one go.
pub(crate) enum Batch {
    /// Framed bytes for a byte stream; hand the buffer back with [`Outbox::recycle`].
    Bytes(BytesMut),
    /// Whole messages for a message transport.
    Messages(Vec<Bytes>),
}

pub(crate) struct Outbox {
    state: Mutex<State>,
    /// Wakes the writer when data is buffered (or the outbox closes).
    data_ready: Notify,
    /// Wakes waiting senders when the writer took data (or the outbox closes).
    space: Notify,
    max_bytes: usize,
    /// How many bytes senders frame before one of them yields (see [`Outbox::send`]).
    burst_bytes: usize,
    /// The length of `buf`, readable without the lock.
    buffered: AtomicUsize,
    /// Set once closed, readable without the lock.
    closed: AtomicBool,
    /// Sees each message as it is framed (under the lock, so in wire order).
    observer: Option<Observer>,
}

/// The largest serialization buffer kept for reuse; a larger one (after a huge message) is freed.
const MAX_KEPT_BODY: usize = 1024 * 1024;

thread_local! {
    /// The buffer messages are serialized into before they are framed, reused by every send on
    /// this thread.
    static BODY: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// A serialized message body, in the thread's reused buffer (given back on drop).
struct Body(Vec<u8>);

impl Body {
    fn write(
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), serde_json::Error>,
    ) -> Result<Self, Error> {
        let mut body = Body(BODY.with(Cell::take));
        body.0.clear();
        write(&mut body.0).map_err(Error::Serialize)?;
        Ok(body)
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        if self.0.capacity() <= MAX_KEPT_BODY {
            BODY.with(|cell| cell.set(std::mem::take(&mut self.0)));
        }
    }
}

impl Outbox {
    /// An outbox framing for a byte stream, with the bounds of `config`.
    pub(crate) fn new(config: &Config) -> Self {
        Self::with_delimit(
            Delimit::Codec(AnyCodec::with_max_len(config.framing, config.max_frame_len)),
            config,
        )
    }

    /// An outbox keeping messages apart for a message transport, with the bounds of `config`.
    pub(crate) fn for_messages(config: &Config) -> Self {
        Self::with_delimit(
            Delimit::Messages {
                ends: VecDeque::new(),
                max_len: config.max_frame_len,
            },
            config,
        )
    }

    /// Frames `body` and shows it to the observer if it went into the buffer.
    ///
    /// A large body (over [`MAX_KEPT_BODY`], which the thread would not keep anyway) going into
    /// an empty buffer on an NDJSON stream becomes the buffer itself, with its newline: no copy
    /// of a message of many MiB (a proxy forwarding a 32 MiB prompt holds one copy less).
    fn frame(&self, state: &mut State, body: &mut Body) -> Result<(), Error> {
        if body.0.len() > MAX_KEPT_BODY && state.buf.is_empty() {
            if let Delimit::Codec(codec) = &mut state.delimit {
                if codec.framing() == Some(Framing::Ndjson) {
                    // An NDJSON frame starts where the body does and writes nothing before it.
                    let start = codec.begin_frame(&mut BytesMut::new());
                    // Room for the newline, then the vector becomes the buffer (both
                    // conversions take a unique vector over without copying it).
                    body.0.reserve(1);
                    let mut whole = BytesMut::from(Bytes::from(std::mem::take(&mut body.0)));
                    // On error the frame is cut off again: `whole` is then empty.
                    codec
                        .finish_frame(&mut whole, start)
                        .map_err(Error::Frame)?;
                    let empty = std::mem::replace(&mut state.buf, whole);
                    if state.spare.is_none() && empty.capacity() > 0 {
                        state.spare = Some(empty);
                    }
                    if let Some(observer) = &self.observer {
                        observer.observe(Direction::Sent, &state.buf[..state.buf.len() - 1]);
                    }
                    return Ok(());
                }
            }
        }
        frame(state, &body.0)?;
        if let Some(observer) = &self.observer {
            observer.observe(Direction::Sent, &body.0);
        }
        Ok(())
    }

    fn with_delimit(delimit: Delimit, config: &Config) -> Self {
        Self {
            state: Mutex::new(State {
                // Grown by the first messages and then reused (see `recycle`): an idle
                // connection holds no buffer (a server may hold thousands).
                buf: BytesMut::new(),
                spare: None,
                delimit,
                closed: false,
                unyielded: 0,
            }),
            data_ready: Notify::new(),
            space: Notify::new(),
            max_bytes: config.max_outgoing_bytes,
            burst_bytes: config.max_burst_bytes,
            observer: config.observer.clone(),
            buffered: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the buffer half-framed (framing errors
        // truncate it), so a poisoned lock is still usable.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Switches the framing of later messages (auto-detection decided how the peer frames).
    pub(crate) fn set_framing(&self, framing: Framing) {
        let mut state = self.lock();
        if let Delimit::Codec(codec) = &mut state.delimit {
            if codec.framing() != Some(framing) {
                *codec = AnyCodec::with_max_len(FramingMode::from(framing), codec.max_len());
            }
        }
    }

    /// Frames one message written by `write`, waiting while the buffer is over its bound.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a message is either wholly buffered or not at all.
    pub(crate) async fn send(
        &self,
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), serde_json::Error>,
    ) -> Result<(), Error> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::ConnectionClosed);
        }
        let mut body = Body::write(write)?;
        // Usually the buffer has room: no need to register for a wake-up first.
        let framed = match self.try_frame(&mut body) {
            Some(framed) => framed,
            None => self.frame_when_room(&mut body).await,
        };
        match framed {
            // A sender that never waits (the buffer has room) would otherwise fill the whole
            // buffer before the writer, often on the same task, gets to write any of it, and
            // keep the other tasks of the runtime (other connections) waiting meanwhile.
            Ok(true) => {
                YieldOnce(false).await;
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Frames `body` once the buffer has room; as [`try_frame`](Self::try_frame) says.
    async fn frame_when_room(&self, body: &mut Body) -> Result<bool, Error> {
        loop {
            let notified = self.space.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            match self.try_frame(body) {
                None => notified.await,
                Some(framed) => return framed,
            }
        }
    }

    /// Frames one message if the buffer has room, without waiting: `Ok(false)` (nothing
    /// buffered) while it is over its bound. For relays forwarding on the reading loop, which
    /// take the waiting path only when this one is closed to them.
    pub(crate) fn try_send(
        &self,
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), serde_json::Error>,
    ) -> Result<bool, Error> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::ConnectionClosed);
        }
        if self.buffered.load(Ordering::Acquire) >= self.max_bytes {
            return Ok(false);
        }
        let mut body = Body::write(write)?;
        match self.try_frame(&mut body) {
            Some(framed) => framed.map(|_| true),
            None => Ok(false),
        }
    }

    /// Frames `body` if the buffer has room, and says whether the sender should now yield
    /// (senders framed a burst's worth since the last yield); `None` while the buffer is full.
    fn try_frame(&self, body: &mut Body) -> Option<Result<bool, Error>> {
        let mut state = self.lock();
        if state.closed {
            return Some(Err(Error::ConnectionClosed));
        }
        // A message larger than the bound still goes out once the buffer is empty.
        if state.buf.len() >= self.max_bytes {
            return None;
        }
        let len = body.0.len();
        let result = self.frame(&mut state, body);
        self.buffered.store(state.buf.len(), Ordering::Release);
        let yield_now = result.is_ok() && {
            state.unyielded += len;
            state.unyielded >= self.burst_bytes
        };
        if yield_now {
            state.unyielded = 0;
        }
        drop(state);
        self.data_ready.notify_one();
        Some(result.map(|()| yield_now))
    }

    /// Frames one message without waiting (replies of the reading loop, cancellations).
    pub(crate) fn send_now(
        &self,
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), serde_json::Error>,
    ) -> Result<(), Error> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::ConnectionClosed);
        }
        let mut body = Body::write(write)?;
        let mut state = self.lock();
        if state.closed {
            return Err(Error::ConnectionClosed);
        }
        let result = self.frame(&mut state, &mut body);
        self.buffered.store(state.buf.len(), Ordering::Release);
        drop(state);
        self.data_ready.notify_one();
        result
    }

    /// True when the buffer is over twice its bound: the reading loop should pause.
    pub(crate) fn over_hard_limit(&self) -> bool {
        self.buffered.load(Ordering::Acquire) >= self.max_bytes.saturating_mul(2)
    }

    /// Waits until the buffer is back under twice its bound (or the outbox closed).
    pub(crate) async fn below_hard_limit(&self) {
        loop {
            let notified = self.space.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let state = self.lock();
                if state.closed || state.buf.len() < self.max_bytes.saturating_mul(2) {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Takes everything buffered, waiting for data; `None` once closed and drained.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: data is only taken when the future completes.
    pub(crate) async fn take(&self) -> Option<Batch> {
        loop {
            let notified = self.data_ready.notified();
            {
                let mut state = self.lock();
                if !state.buf.is_empty() {
                    let batch = take_batch(&mut state);
                    self.buffered.store(0, Ordering::Release);
                    drop(state);
                    self.space.notify_waiters();
                    return Some(batch);
                }
                if state.closed {
                    return None;
                }
            }
            notified.await;
        }
    }

    /// Gives back the buffer of a written batch, to frame later batches into.
    pub(crate) fn recycle(&self, mut buf: BytesMut) {
        // A buffer grown by one huge message is not kept: memory goes back to normal after it.
        if buf.capacity() > self.max_bytes.saturating_mul(2) {
            return;
        }
        buf.clear();
        let mut state = self.lock();
        if !state.closed {
            state.spare = Some(buf);
        }
    }

    /// Refuses new messages but keeps what is buffered: the writer takes the rest and then
    /// sees the end ([`take`](Self::take) returns `None` once drained). For a connection whose
    /// input ended, once nothing more will be sent.
    pub(crate) fn finish(&self) {
        let mut state = self.lock();
        state.closed = true;
        self.closed.store(true, Ordering::Release);
        drop(state);
        self.space.notify_waiters();
        self.data_ready.notify_one();
    }

    /// The bytes buffered and not yet taken by the writer.
    pub(crate) fn buffered(&self) -> usize {
        self.buffered.load(Ordering::Acquire)
    }

    /// Refuses new messages and wakes everyone; buffered data is dropped.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        self.closed.store(true, Ordering::Release);
        state.buf = BytesMut::new();
        state.spare = None;
        self.buffered.store(0, Ordering::Release);
        if let Delimit::Messages { ends, .. } = &mut state.delimit {
            ends.clear();
        }
        drop(state);
        self.space.notify_waiters();
        self.data_ready.notify_one();
    }
}

/// Appends one frame holding `body` to the buffer.
fn frame(state: &mut State, body: &[u8]) -> Result<(), Error> {
    let State { buf, delimit, .. } = state;
    match delimit {
        // On error the codec leaves the buffer as it was.
        Delimit::Codec(codec) => codec.encode(body, buf).map_err(Error::Frame),
        Delimit::Messages { ends, max_len } => {
            if body.len() > *max_len {
                return Err(Error::Frame(acp_codec::CodecError::FrameTooLarge {
                    len: body.len(),
                    limit: *max_len,
                }));
            }
            buf.extend_from_slice(body);
            ends.push_back(buf.len());
            Ok(())
        }
    }
}

fn take_batch(state: &mut State) -> Batch {
    let State {
        buf,
        spare,
        delimit,
        ..
    } = state;
    match delimit {
        Delimit::Codec(_) => {
            let next = spare
                .take()
                .unwrap_or_else(|| BytesMut::with_capacity(buf.capacity()));
            Batch::Bytes(std::mem::replace(buf, next))
        }
        Delimit::Messages { ends, .. } => {
            let mut all = buf.split().freeze();
            let mut taken = 0;
            let mut messages = Vec::with_capacity(ends.len());
            for end in ends.drain(..) {
                messages.push(all.split_to(end - taken));
                taken = end;
            }
            Batch::Messages(messages)
        }
    }
}

/// Returns `Pending` once, waking the task at once: lets the other futures of the task run.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}
