//! Connection settings.

use acp_codec::{DEFAULT_MAX_FRAME_LEN, FramingMode};

use crate::{Direction, Observer};

/// The default cap on requests from the peer handled at the same time.
///
/// Requests beyond it are answered at once with an error instead of queueing without bound.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;

/// The default size, in bytes, of the outgoing buffer above which senders wait.
///
/// It bounds our memory when the peer reads slowly or not at all (a peer that stops reading
/// makes senders wait instead of growing a queue), while being large enough that writes are
/// batched into few system calls.
pub const DEFAULT_MAX_OUTGOING_BYTES: usize = 1024 * 1024;

/// The default number of bytes a connection's senders may send before the sending task lets
/// others run: 64 KiB, about what one write to a pipe takes.
///
/// A task that sends many messages in a row (a streamed turn) would otherwise fill the whole
/// outgoing buffer before the writer, often on the same task, writes any of it. Small enough
/// that the peer starts reading early, large enough that writes are batched. A process serving
/// many connections at once wants less (see [`Config::max_burst_bytes`]).
pub const DEFAULT_MAX_BURST_BYTES: usize = 64 * 1024;

/// The default number of received notifications queued for their handler above which reading
/// pauses.
///
/// Notifications are handled one at a time; when their handler is slower than the peer sends,
/// they queue. Past this bound the connection stops reading (the peer's writes then wait) instead
/// of growing the queue, so memory stays bounded.
pub const DEFAULT_MAX_QUEUED_NOTIFICATIONS: usize = 1024;

/// The default budget, in bytes, for the requests from the peer being handled at the same time
/// (64 MiB, two default frames).
///
/// The frame limit bounds one message; this bounds them together. A request holds about its
/// own size in memory while it is handled (its decoded params), so without a budget a peer could
/// make us hold [`DEFAULT_MAX_IN_FLIGHT`] frames of 32 MiB at once.
pub const DEFAULT_MAX_IN_FLIGHT_BYTES: usize = 64 * 1024 * 1024;

/// The default time a connection whose input ended may take to write out its output: 5 s.
///
/// See [`Config::drain_timeout`].
pub const DEFAULT_DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Settings of a connection.
///
/// ```
/// use acp_rpc::Config;
/// use acp_codec::FramingMode;
///
/// let config = Config::default().framing(FramingMode::Auto).max_in_flight(64);
/// assert_eq!(config.max_in_flight, 64);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// How messages are framed on the byte stream (NDJSON by default, as the spec says).
    pub framing: FramingMode,
    /// The largest message body accepted or sent, in bytes.
    pub max_frame_len: usize,
    /// How many requests from the peer may be handled at the same time.
    pub max_in_flight: usize,
    /// How many bytes of requests from the peer (counted as the size of their messages) may be
    /// handled at the same time. A request that would go over it is answered at once with a
    /// `-32603` "server busy" error saying so, unless no other request is running (one request
    /// up to the frame limit is always accepted). The same budget bounds the bytes of received
    /// notifications waiting for their handler: over it, reading pauses.
    pub max_in_flight_bytes: usize,
    /// The outgoing buffer size above which senders wait for the peer to read.
    pub max_outgoing_bytes: usize,
    /// How many bytes senders may send in a row before the sending task yields to the runtime
    /// (and the writer runs). The default, [`DEFAULT_MAX_BURST_BYTES`], suits one connection
    /// per process (stdio); a server streaming to many connections at once gives each of them
    /// its turn sooner with a few KiB (its first messages reach a client that started late
    /// sooner, and less output waits in memory), at some cost in throughput.
    pub max_burst_bytes: usize,
    /// How many received notifications may wait for their handler before reading pauses.
    pub max_queued_notifications: usize,
    /// How long a request we send may wait for its answer: past it the call fails with
    /// [`Error::Timeout`](crate::Error::Timeout) and the peer gets `$/cancel_request`. `None`
    /// (the default): no limit. [`Peer::request_with_timeout`](crate::Peer::request_with_timeout)
    /// sets one per call.
    pub request_timeout: Option<std::time::Duration>,
    /// How long the connection may take, once its input ended, to handle the notifications
    /// received before the end and to write out everything queued for output (what was queued
    /// before the end, what those notification handlers send, what other tasks send meanwhile).
    /// The running request handlers are cancelled at the end of input, not waited for. The
    /// memory this takes is the connection's usual bounds (the outgoing buffer, the queued
    /// notifications); this bounds the time, for a peer that closed its side but does not
    /// read: past it, what is unwritten is dropped with a warning in the log and the driver
    /// resolves. Default: [`DEFAULT_DRAIN_TIMEOUT`].
    pub drain_timeout: std::time::Duration,
    /// Sees every message received and sent (see [`Observer`]); `None` (the default): none.
    pub observer: Option<Observer>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            framing: FramingMode::Ndjson,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_in_flight_bytes: DEFAULT_MAX_IN_FLIGHT_BYTES,
            max_outgoing_bytes: DEFAULT_MAX_OUTGOING_BYTES,
            max_burst_bytes: DEFAULT_MAX_BURST_BYTES,
            max_queued_notifications: DEFAULT_MAX_QUEUED_NOTIFICATIONS,
            request_timeout: None,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            observer: None,
        }
    }
}

impl Config {
    /// Sets the framing.
    #[must_use]
    pub fn framing(mut self, framing: FramingMode) -> Self {
        self.framing = framing;
        self
    }

    /// Sets the frame limit.
    #[must_use]
    pub fn max_frame_len(mut self, max_frame_len: usize) -> Self {
        self.max_frame_len = max_frame_len;
        self
    }

    /// Sets the cap on concurrent incoming requests (at least 1).
    #[must_use]
    pub fn max_in_flight(mut self, max_in_flight: usize) -> Self {
        self.max_in_flight = max_in_flight.max(1);
        self
    }

    /// Sets the budget for the bytes of requests handled at the same time.
    #[must_use]
    pub fn max_in_flight_bytes(mut self, max_in_flight_bytes: usize) -> Self {
        self.max_in_flight_bytes = max_in_flight_bytes;
        self
    }

    /// Sets the outgoing buffer bound.
    #[must_use]
    pub fn max_outgoing_bytes(mut self, max_outgoing_bytes: usize) -> Self {
        self.max_outgoing_bytes = max_outgoing_bytes.max(1);
        self
    }

    /// Sets how many bytes senders send in a row before yielding (at least 1).
    #[must_use]
    pub fn max_burst_bytes(mut self, max_burst_bytes: usize) -> Self {
        self.max_burst_bytes = max_burst_bytes.max(1);
        self
    }

    /// Sets the connection-wide request timeout (`None`: no limit).
    #[must_use]
    pub fn request_timeout(mut self, timeout: Option<std::time::Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets how long the output may take to be written out once the input ended (see
    /// [`Config::drain_timeout`]).
    #[must_use]
    pub fn drain_timeout(mut self, drain_timeout: std::time::Duration) -> Self {
        self.drain_timeout = drain_timeout;
        self
    }

    /// Gives every message received and sent to `f`, to log or validate the traffic (see
    /// [`Observer`]).
    #[must_use]
    pub fn observe(mut self, f: impl Fn(Direction, &[u8]) + Send + Sync + 'static) -> Self {
        self.observer = Some(Observer::new(f));
        self
    }

    /// Sets the bound on queued notifications (at least 1).
    #[must_use]
    pub fn max_queued_notifications(mut self, max_queued_notifications: usize) -> Self {
        self.max_queued_notifications = max_queued_notifications.max(1);
        self
    }
}
