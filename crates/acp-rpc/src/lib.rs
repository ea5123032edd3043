//! The bidirectional JSON-RPC 2.0 connection of the Agent Client Protocol.
//!
//! ```text
//! acp-types   the wire types
//! acp-codec   framing of bytes
//! acp-rpc     <- you are here: correlation, dispatch, ordering, cancellation, backpressure
//! acp-agent / acp-client   the role traits, built on this crate
//! ```
//!
//! Both ends of ACP send requests and notifications at the same time. [`connect`] turns a
//! reader and a writer into a cloneable [`Peer`] handle (to call the other side) and a
//! [`Driver`] future (which you run, typically with `tokio::spawn`; nothing is spawned behind
//! your back). Incoming calls go to a [`Handler`]; [`Router`] builds one from closures. An
//! agent spawned by an editor passes [`stdio()`] as its reader and writer.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), acp_rpc::Error> {
//! use acp_rpc::{Config, Router, connect};
//! use acp_types::methods::{self, SessionPrompt};
//! use acp_types::{ContentChunk, PromptRequest, PromptResponse, SessionNotification, SessionUpdate, StopReason};
//!
//! let (agent_io, client_io) = tokio::io::duplex(64 * 1024);
//! let (agent_read, agent_write) = tokio::io::split(agent_io);
//! let (client_read, client_write) = tokio::io::split(client_io);
//!
//! // The agent streams an update, then answers the prompt.
//! let (_client, agent_driver) = connect(
//!     |client: acp_rpc::Peer| Router::new().request::<SessionPrompt, _, _>(move |req| {
//!         let client = client.clone();
//!         async move {
//!             let chunk = ContentChunk::new("Hello!");
//!             let update = SessionNotification::new(req.session_id, SessionUpdate::AgentMessageChunk(chunk));
//!             client.notify::<methods::SessionUpdate>(&update).await.map_err(|e| e.to_error_object())?;
//!             Ok(PromptResponse::new(StopReason::EndTurn))
//!         }
//!     }),
//!     agent_read, agent_write, Config::default(),
//! );
//!
//! // The client counts updates; the prompt returns only after they were handled.
//! let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
//! let counter = seen.clone();
//! let (agent, client_driver) = connect(
//!     move |_agent| Router::new().notification::<methods::SessionUpdate, _, _>(move |_update| {
//!         counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
//!         async {}
//!     }),
//!     client_read, client_write, Config::default(),
//! );
//! tokio::spawn(agent_driver);
//! tokio::spawn(client_driver);
//!
//! let response = agent.request::<SessionPrompt>(&PromptRequest::new("s", vec!["Hi".into()])).await?;
//! assert_eq!(response.stop_reason, StopReason::EndTurn);
//! assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 1);
//! # Ok(()) }
//! ```
//!
//! # Ordering and concurrency
//!
//! The connection guarantees:
//!
//! 1. **Outbound order is submission order.** Everything we send (requests, notifications,
//!    responses, cancellations) goes through one FIFO. A handler that sends three
//!    `session/update`s and then returns puts all three on the wire before its response.
//! 2. **Notifications are handled one at a time, in arrival order.** The next notification
//!    handler starts when the previous one finished.
//! 3. **A response is released to its waiter only after every notification that arrived before
//!    it was handled.** On a client, `session/prompt` returns only after all the
//!    `session/update`s of the turn were applied.
//! 4. **So a notification handler must not await an answer from the peer**: that answer would
//!    wait behind the very notification that awaits it. If it needs the peer, it spawns.
//! 5. **Requests run concurrently** and are answered in completion order, up to
//!    [`Config::max_in_flight`] requests holding [`Config::max_in_flight_bytes`] bytes (the sizes
//!    of their messages; one request up to the frame limit is always accepted); beyond either,
//!    the excess request is answered at once with an error and reading goes on.
//! 6. **Every request gets exactly one answer.** An answer that cannot be sent as it is (over
//!    the frame limit, or not serializable) is replaced by a short `-32603` error, and the
//!    error constructors of `acp-types` bound what they echo of the input.
//!
//! # Memory per connection
//!
//! With the defaults, the most one connection holds is about: the read buffer (one frame limit,
//! 32 MiB, plus a read chunk) + the copy a frame being decoded makes of its strings (up to about
//! twice the frame, transient) + the requests in flight (64 MiB budget, plus one more frame
//! accepted while none runs) + the outgoing buffer (2 MiB before reading pauses, or one message
//! up to the frame limit) + the notifications queued for their handler (reading pauses at 1,024 of them or once they
//! hold the in-flight budget, plus the one frame that crossed it). What a handler does with its params (copies, history) is on
//! top. Lower [`Config::max_frame_len`] and [`Config::max_in_flight_bytes`] on a server that
//! multiplexes many connections.
//!
//! ```no_run
//! # use acp_rpc::Router;
//! # use acp_types::methods::{SessionUpdate, SessionRequestPermission};
//! # #[allow(dead_code)]
//! # fn f(agent: acp_rpc::Peer, params: acp_types::RequestPermissionRequest) {
//! // BAD: awaits the peer inside a notification handler; this deadlocks, because the answer is
//! // held back until this very handler has finished (guarantee 3).
//! let bad = {
//!     let agent = agent.clone();
//!     let params = params.clone();
//!     Router::new().notification::<SessionUpdate, _, _>(move |_update| {
//!         let (agent, params) = (agent.clone(), params.clone());
//!         async move { let _ = agent.request::<SessionRequestPermission>(&params).await; }
//!     })
//! };
//! // GOOD: spawn the call, and let the handler return.
//! let good = Router::new().notification::<SessionUpdate, _, _>(move |_update| {
//!     let (agent, params) = (agent.clone(), params.clone());
//!     tokio::spawn(async move { let _ = agent.request::<SessionRequestPermission>(&params).await; });
//!     async {}
//! });
//! # let _ = (bad, good);
//! # }
//! ```
//!
//! # Malformed input
//!
//! Nothing the peer sends ends the connection except a broken transport or unreadable framing.
//!
//! | input | reply |
//! | --- | --- |
//! | not JSON | `-32700`, `id: null` |
//! | JSON but not a JSON-RPC 2.0 message (wrong `jsonrpc`, a batch, ...) | `-32600`, with the id if the message has a `method` and a readable id, else `null` |
//! | a response we cannot read (both `result` and `error`, nesting too deep to parse, ...), told apart by its top-level members alone | never answered (its id names one of *our* requests; an answer would answer the peer's own request of that id); the call it answers, if its id is readable, fails with the reason |
//! | a request for an unknown method | `-32601`, the message names the method |
//! | params that do not fit the method | `-32602`, the decoder's message in `data` |
//! | a frame over the size limit | `-32600`, `id: null` |
//! | an unknown notification, or a response to an unknown id | ignored (traced at `warn`) |
//! | a request whose id is still in use by a running request | `-32600` with that id |
//! | a request whose id is `null`, once `Peer::set_protocol_version` recorded v2 (feature `unstable_protocol_v2`) | `-32600`, `id: null` (the v2 schema forbids `null` ids; v1 allows them) |
//! | a handler's `Err(e)` | `e` as given: handlers choose the code |
//!
//! # Protocol versions
//!
//! With the feature `unstable_protocol_v2`, a connection learns the protocol version
//! `initialize` settled through `Peer::set_protocol_version` (the role crates call it) and
//! applies that version's rules: v2 forbids request ids `null`. The check costs nothing per
//! message: it runs only for a request whose id is `null`.
//!
//! # Cancellation
//!
//! Dropping a [`Peer::request`] future forgets the call and sends `$/cancel_request`; a late
//! answer is ignored. An incoming `$/cancel_request` stops the matching handler (its future is
//! dropped) and answers the request with `-32800`.
//!
//! # Shutdown and backpressure
//!
//! On end of input or a transport error, every pending call fails at once with
//! [`Error::ConnectionClosed`] (no answer can arrive any more) and running request handlers are
//! cancelled. Notifications received before the end are still handled, in order, and answers
//! held back behind them are released. Everything queued for sending is still written (what was
//! queued before the end, and what is sent until those notifications are handled), flushed, and
//! the output shut down, within [`Config::drain_timeout`]: a peer that closes its side while
//! still reading gets it all. Then the driver resolves with the reason, and the handle's methods
//! fail immediately afterwards. Dropping the [`Driver`] closes the connection at once, dropping
//! what is unwritten.
//!
//! Outgoing messages are batched into one buffer, written with one system call per batch; when
//! the peer stops reading, senders wait once the buffer holds [`Config::max_outgoing_bytes`], so
//! memory stays bounded, while reading goes on. Incoming notifications wait for their handler in
//! a queue of at most [`Config::max_queued_notifications`]; when it is full, reading pauses until
//! the handler catches up, so a peer that sends faster than we handle is slowed down instead of
//! filling our memory.
//!
//! Traffic is traced with `tracing` at `debug`/`trace`, protocol violations at `warn`; nothing
//! is ever printed to stdout.

#![doc(test(attr(deny(warnings))))]

mod config;
mod driver;
mod error;
mod handler;
mod observe;
mod outbox;
mod peer;
mod sniff;
mod stdio;

pub use config::{
    Config, DEFAULT_DRAIN_TIMEOUT, DEFAULT_MAX_BURST_BYTES, DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_MAX_IN_FLIGHT_BYTES, DEFAULT_MAX_OUTGOING_BYTES, DEFAULT_MAX_QUEUED_NOTIFICATIONS,
};
pub use driver::{Driver, connect, connect_messages};
pub use error::Error;
pub use handler::{Handler, Router, decode_params, handled};
pub use observe::{Direction, Observer};
pub use peer::{Peer, PendingAnswer, RawResult};
pub use stdio::{Stdin, Stdout, stdio};

pub use acp_codec::FramingMode;
