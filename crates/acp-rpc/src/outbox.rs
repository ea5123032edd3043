//! The single outgoing FIFO: every message we send is framed, in submission order, into one
//! bounded buffer that the writer drains in large batches.
//!
//! Senders serialize straight into the buffer (no per-message allocation, no second copy).
//! When the buffer holds more than the configured bound, senders wait for the writer: a peer that
//! stops reading makes us wait, never grow. Replies the reading loop must send itself (errors for
//! malformed input) never wait, so reading never blocks on writing; they may exceed the bound up
//! to twice its size, after which the reading loop pauses until the peer reads again.

use std::collections::VecDeque;
use std::sync::Mutex;

use acp_codec::{AnyCodec, FrameEncoder, Framing, FramingMode};
use bytes::{Bytes, BytesMut};
use tokio::sync::Notify;

use crate::Error;

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
    delimit: Delimit,
    closed: bool,
}

/// What the writer takes from the outbox in one go.
pub(crate) enum Batch {
    /// Framed bytes for a byte stream.
    Bytes(Bytes),
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
}

impl Outbox {
    pub(crate) fn new(framing: FramingMode, max_frame_len: usize, max_bytes: usize) -> Self {
        Self::with_delimit(
            Delimit::Codec(AnyCodec::with_max_len(framing, max_frame_len)),
            max_bytes,
        )
    }

    pub(crate) fn for_messages(max_frame_len: usize, max_bytes: usize) -> Self {
        Self::with_delimit(
            Delimit::Messages {
                ends: VecDeque::new(),
                max_len: max_frame_len,
            },
            max_bytes,
        )
    }

    fn with_delimit(delimit: Delimit, max_bytes: usize) -> Self {
        Self {
            state: Mutex::new(State {
                buf: BytesMut::with_capacity(max_bytes.min(64 * 1024)),
                delimit,
                closed: false,
            }),
            data_ready: Notify::new(),
            space: Notify::new(),
            max_bytes,
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
        write: impl FnOnce(&mut BytesMut) -> Result<(), serde_json::Error>,
    ) -> Result<(), Error> {
        let mut write = Some(write);
        loop {
            let notified = self.space.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut state = self.lock();
                if state.closed {
                    return Err(Error::ConnectionClosed);
                }
                // A message larger than the bound still goes out once the buffer is empty.
                if state.buf.len() < self.max_bytes {
                    let write = write.take().expect("the message is written once");
                    let result = frame(&mut state, write);
                    drop(state);
                    self.data_ready.notify_one();
                    return result;
                }
            }
            notified.await;
        }
    }

    /// Frames one message without waiting (replies of the reading loop, cancellations).
    pub(crate) fn send_now(
        &self,
        write: impl FnOnce(&mut BytesMut) -> Result<(), serde_json::Error>,
    ) -> Result<(), Error> {
        let mut state = self.lock();
        if state.closed {
            return Err(Error::ConnectionClosed);
        }
        let result = frame(&mut state, write);
        drop(state);
        self.data_ready.notify_one();
        result
    }

    /// True when the buffer is over twice its bound: the reading loop should pause.
    pub(crate) fn over_hard_limit(&self) -> bool {
        self.lock().buf.len() >= self.max_bytes.saturating_mul(2)
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

    /// Refuses new messages and wakes everyone; buffered data is dropped.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.buf.clear();
        if let Delimit::Messages { ends, .. } = &mut state.delimit {
            ends.clear();
        }
        drop(state);
        self.space.notify_waiters();
        self.data_ready.notify_one();
    }
}

fn frame(
    state: &mut State,
    write: impl FnOnce(&mut BytesMut) -> Result<(), serde_json::Error>,
) -> Result<(), Error> {
    let State { buf, delimit, .. } = state;
    match delimit {
        Delimit::Codec(codec) => {
            let start = codec.begin_frame(buf);
            if let Err(e) = write(buf) {
                codec.abort_frame(buf, start);
                return Err(Error::Serialize(e));
            }
            codec.finish_frame(buf, start).map_err(Error::Frame)
        }
        Delimit::Messages { ends, max_len } => {
            let start = buf.len();
            if let Err(e) = write(buf) {
                buf.truncate(start);
                return Err(Error::Serialize(e));
            }
            let len = buf.len() - start;
            if len > *max_len {
                buf.truncate(start);
                return Err(Error::Frame(acp_codec::CodecError::FrameTooLarge {
                    len,
                    limit: *max_len,
                }));
            }
            ends.push_back(buf.len());
            Ok(())
        }
    }
}

fn take_batch(state: &mut State) -> Batch {
    let State { buf, delimit, .. } = state;
    match delimit {
        Delimit::Codec(_) => Batch::Bytes(buf.split().freeze()),
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
