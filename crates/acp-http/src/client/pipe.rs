//! The two message pipes between a transport and the JSON-RPC driver: the [`Inbox`] the
//! transport fills (read by the driver as its `incoming` stream) and the [`Outgoing`] sink the
//! driver writes to (read by the transport, one message at a time, in order).

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::channel::mpsc;
use futures::task::AtomicWaker;
use futures::{Sink, Stream};
use tokio::sync::Notify;

/// How many bytes of messages may wait in the inbox before stream readers wait for the driver
/// to catch up (a larger message is still taken when the inbox is empty).
pub(crate) const INBOX_BYTES: usize = 4 * 1024 * 1024;

/// How many messages may wait between the driver and the transport's sender.
pub(crate) const OUTGOING_MESSAGES: usize = 8;

/// The messages received from the agent, on their way to the driver, in arrival order.
#[derive(Debug)]
pub(crate) struct Inbox {
    state: Mutex<InboxState>,
    /// The driver, waiting for a message.
    reader: AtomicWaker,
    /// Stream readers waiting for room.
    room: Notify,
    max_bytes: usize,
}

#[derive(Debug)]
struct InboxState {
    queue: VecDeque<Bytes>,
    bytes: usize,
    end: End,
}

#[derive(Debug)]
enum End {
    /// Still open.
    Open,
    /// Closed: after the queued messages, the stream ends.
    Closed,
    /// Failed: after the queued messages, the stream yields this error, then ends.
    Failed(Option<io::Error>),
}

impl Inbox {
    pub(crate) fn new(max_bytes: usize) -> Self {
        Self {
            state: Mutex::new(InboxState {
                queue: VecDeque::new(),
                bytes: 0,
                end: End::Open,
            }),
            reader: AtomicWaker::new(),
            room: Notify::new(),
            max_bytes,
        }
    }

    fn lock(&self) -> MutexGuard<'_, InboxState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a message, waiting while the inbox is full. A message for a closed inbox is
    /// dropped.
    pub(crate) async fn push(&self, message: Bytes) {
        loop {
            let room = self.room.notified();
            let mut room = std::pin::pin!(room);
            room.as_mut().enable();
            {
                let mut state = self.lock();
                if !matches!(state.end, End::Open) {
                    return;
                }
                if state.bytes == 0 || state.bytes + message.len() <= self.max_bytes {
                    state.bytes += message.len();
                    state.queue.push_back(message);
                    drop(state);
                    self.reader.wake();
                    return;
                }
            }
            room.await;
        }
    }

    /// Queues a message without waiting. For the few messages the sender makes itself (one at
    /// most per message it sent: an answer in a POST body, or an error standing for the
    /// answer), which must never wait for the driver: the driver may be waiting for the
    /// sender.
    pub(crate) fn push_now(&self, message: Bytes) {
        let mut state = self.lock();
        if matches!(state.end, End::Open) {
            state.bytes += message.len();
            state.queue.push_back(message);
            drop(state);
            self.reader.wake();
        }
    }

    /// Ends the stream once the queued messages are read.
    pub(crate) fn close(&self) {
        self.finish(End::Closed);
    }

    /// Fails the stream once the queued messages are read.
    pub(crate) fn fail(&self, error: io::Error) {
        self.finish(End::Failed(Some(error)));
    }

    fn finish(&self, end: End) {
        let mut state = self.lock();
        if matches!(state.end, End::Open) {
            state.end = end;
        }
        drop(state);
        self.reader.wake();
        self.room.notify_waiters();
    }
}

/// The driver's view of the inbox.
#[derive(Debug)]
pub(crate) struct Incoming(pub(crate) Arc<Inbox>);

impl Stream for Incoming {
    type Item = Result<Bytes, io::Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let inbox = &*self.0;
        let mut state = inbox.lock();
        if let Some(message) = state.queue.pop_front() {
            state.bytes -= message.len();
            drop(state);
            inbox.room.notify_waiters();
            return Poll::Ready(Some(Ok(message)));
        }
        match &mut state.end {
            End::Open => {
                // Registered under the lock: a push after it wakes us.
                inbox.reader.register(cx.waker());
                Poll::Pending
            }
            End::Closed => Poll::Ready(None),
            End::Failed(error) => Poll::Ready(error.take().map(Err)),
        }
    }
}

/// The driver's sink: messages go to the transport's sender through a small bounded channel,
/// in order. Once the transport stopped, sending fails.
#[derive(Debug)]
pub(crate) struct Outgoing(pub(crate) mpsc::Sender<Bytes>);

/// A channel for the outgoing messages: the sink and the transport's end.
pub(crate) fn outgoing() -> (Outgoing, mpsc::Receiver<Bytes>) {
    let (tx, rx) = mpsc::channel(OUTGOING_MESSAGES);
    (Outgoing(tx), rx)
}

fn stopped() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the transport stopped")
}

impl Sink<Bytes> for Outgoing {
    type Error = io::Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), io::Error>> {
        self.0.poll_ready(cx).map_err(|_| stopped())
    }

    fn start_send(mut self: Pin<&mut Self>, item: Bytes) -> Result<(), io::Error> {
        self.0.start_send(item).map_err(|_| stopped())
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), io::Error>> {
        // A message in the channel is the transport's: it sends them in order.
        Poll::Ready(Ok(()))
    }

    fn poll_close(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), io::Error>> {
        self.0.close_channel();
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures::StreamExt;

    use super::*;

    #[tokio::test]
    async fn queued_messages_come_before_the_end_and_the_error() {
        let inbox = Arc::new(Inbox::new(1024));
        let mut incoming = Incoming(inbox.clone());
        inbox.push(Bytes::from_static(b"a")).await;
        inbox.push_now(Bytes::from_static(b"b"));
        inbox.fail(io::Error::other("boom"));
        inbox.push_now(Bytes::from_static(b"late"));
        assert_eq!(incoming.next().await.unwrap().unwrap(), "a");
        assert_eq!(incoming.next().await.unwrap().unwrap(), "b");
        assert_eq!(
            incoming.next().await.unwrap().unwrap_err().to_string(),
            "boom"
        );
        assert!(incoming.next().await.is_none());
    }

    #[tokio::test]
    async fn a_full_inbox_makes_readers_wait_until_the_driver_reads() {
        let inbox = Arc::new(Inbox::new(4));
        let mut incoming = Incoming(inbox.clone());
        inbox.push(Bytes::from_static(b"1234")).await;
        let pusher = {
            let inbox = inbox.clone();
            tokio::spawn(async move { inbox.push(Bytes::from_static(b"5")).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!pusher.is_finished());
        assert_eq!(incoming.next().await.unwrap().unwrap(), "1234");
        tokio::time::timeout(Duration::from_secs(5), pusher)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(incoming.next().await.unwrap().unwrap(), "5");
        // Closing releases waiting readers too.
        inbox.push(Bytes::from_static(b"1234")).await;
        let pusher = {
            let inbox = inbox.clone();
            tokio::spawn(async move { inbox.push(Bytes::from_static(b"5")).await })
        };
        inbox.close();
        tokio::time::timeout(Duration::from_secs(5), pusher)
            .await
            .unwrap()
            .unwrap();
    }
}
