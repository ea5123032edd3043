//! One remote connection of the Streamable HTTP profile: its agent, its streams (one for the
//! connection, one per session), where each of the agent's messages goes, and the bounds on
//! what waits for a reader; and the [`Link`] to the agent behind any connection (WebSocket
//! too), with the [`Outlet`] through which an agent in process reaches its connection: one
//! file, because each names the other.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::message::{self, Shape};
use crate::server::budget::{BodyShare, HeldBodies, OutputBudget};
use crate::server::peer::ClientKey;

/// Where a message for the client goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Route {
    /// The connection stream.
    Connection,
    /// A session's stream.
    Session(String),
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The client sent DELETE.
    Deleted,
    /// The agent ended (its process exited, or its driver stopped).
    AgentGone,
    /// Output waited longer than the stall timeout for a reader.
    Stalled { buffered: usize, waited: Duration },
    /// Nothing happened on the connection for the idle timeout.
    Idle(Duration),
    /// Too many session streams waited without a reader.
    TooManyStreams(usize),
    /// The server is shutting down.
    Shutdown,
    /// The client gave up on its `initialize`.
    InitializeAbandoned,
    /// The client never used the connection (never read a stream, never sent a second
    /// request) within the unused timeout.
    Unused(Duration),
}

impl fmt::Display for Ended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ended::Deleted => f.write_str("the client closed it (DELETE)"),
            Ended::AgentGone => f.write_str("the agent ended"),
            Ended::Stalled { buffered, waited } => write!(
                f,
                "stalled: {buffered} bytes of output waited {waited:?} without being read"
            ),
            Ended::Idle(after) => write!(f, "idle for {after:?}"),
            Ended::TooManyStreams(n) => {
                write!(f, "more than {n} session streams waited without a reader")
            }
            Ended::Shutdown => f.write_str("the server is shutting down"),
            Ended::InitializeAbandoned => f.write_str("the client abandoned its initialize"),
            Ended::Unused(after) => write!(f, "not used within {after:?} of its initialize"),
        }
    }
}

/// The bounds of one connection, its observer, and who its client is.
#[derive(Clone)]
pub(crate) struct Limits {
    /// The server's output budget, shared by every connection.
    pub(crate) output: Arc<OutputBudget>,
    /// What the per-client limits count this connection by.
    pub(crate) client: Option<ClientKey>,
    /// The principal who opened the connection (only it may use it).
    pub(crate) principal: Option<String>,
    pub(crate) unused_timeout: Duration,
    pub(crate) max_queued_posts: usize,
    /// The most request bodies one connection may hold (its share of the server's budget).
    pub(crate) max_held_body_bytes: usize,
    pub(crate) observer: Option<acp_rpc::Observer>,
    pub(crate) max_buffered_bytes: usize,
    pub(crate) stall_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_unconfirmed_streams: usize,
    pub(crate) max_waiting_streams: usize,
}

/// Messages waiting for one stream's reader.
#[derive(Debug, Default)]
struct Mailbox {
    queue: VecDeque<Bytes>,
    /// A reader is attached (at most one).
    leased: bool,
    /// Counts the readers that attached, so that a reader replaced by a newer one (the
    /// `client_id` profile) knows it was.
    generation: u64,
    /// The agent named this session (a GET may open a stream for a session before that).
    confirmed: bool,
}

#[derive(Debug)]
struct State {
    connection: Mailbox,
    sessions: HashMap<String, Mailbox>,
    /// Where the answer to each of the client's requests goes, by id.
    routes: HashMap<String, Route>,
    /// The session stream each of the agent's requests went out on, by id: the client's
    /// answer must not name another session.
    agent_requests: HashMap<String, String>,
    /// The `initialize` POST waiting for its answer: its id and where to hand the answer.
    initialize: Option<(String, oneshot::Sender<Bytes>)>,
    /// Bytes waiting in all the mailboxes.
    buffered: usize,
    /// The last time a reader took a message, or the buffer was empty.
    last_drain: Instant,
    /// The last time the client did anything (POST, GET, a read).
    last_activity: Instant,
    /// The client used the connection: it read a stream, or sent more than `initialize`.
    used: bool,
    /// POSTs waiting for room in the agent's input.
    queued_posts: usize,
    ended: Option<Ended>,
}

/// One connection.
pub(crate) struct Connection {
    pub(crate) id: String,
    /// What the per-client limits count this connection by.
    pub(crate) client: Option<ClientKey>,
    /// When it opened.
    opened: Instant,
    state: Mutex<State>,
    /// Wakes readers (new messages, or the end) and the router (room in the buffer).
    changed: Notify,
    to_agent: tokio::sync::mpsc::Sender<Inbound>,
    /// Bytes of the client's POST bodies waiting for the agent to take them.
    held_bodies: Arc<AtomicUsize>,
    limits: Limits,
    /// The `client_id` profile: everything goes on the one stream, and a new reader replaces
    /// the old one.
    single_stream: bool,
    /// The agent's messages come from `acp-rpc`'s writer (see [`Link::ours`]).
    ours: bool,
    /// The protocol version `initialize` negotiated (Streamable HTTP), once answered.
    protocol_version: OnceLock<u16>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// Refusals of a client's request on an existing connection, as HTTP answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// 400, with the reason.
    BadRequest(String),
    /// 404: the connection has ended.
    Gone,
    /// 404: no such session stream and no room for an unconfirmed one.
    UnknownSession,
    /// 409: the stream already has a reader.
    Busy,
    /// 429: too many of the connection's POSTs wait for its agent already.
    TooManyQueued,
}

impl Connection {
    /// A connection of the Streamable HTTP profile over `link`: a task routes the agent's
    /// output to the streams, another ends the connection when it stalls or idles.
    pub(crate) fn start(id: String, link: Link, limits: Limits) -> Arc<Self> {
        Self::start_routed(id, link, limits, false)
    }

    /// A connection of the `client_id` profile: one stream carries everything.
    pub(crate) fn start_single(id: String, link: Link, limits: Limits) -> Arc<Self> {
        Self::start_routed(id, link, limits, true)
    }

    fn start_routed(id: String, link: Link, limits: Limits, single_stream: bool) -> Arc<Self> {
        let (conn, from_agent, agent_task) = Self::new(id, link, limits, single_stream);
        let from_agent = match from_agent {
            FromAgent::Channel(rx) => Some(rx),
            FromAgent::Outlet(outlet) => {
                // The agent's own task routes its messages (see `Outlet`).
                outlet.attach(Target::Routed(Arc::downgrade(&conn)));
                None
            }
        };
        let supervised = conn.clone();
        tokio::spawn(async move {
            supervised.supervise().await;
            // However the connection ended, its agent goes with it (a program gracefully).
            agent_task.end();
        });
        if let Some(mut from_agent) = from_agent {
            let router = conn.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        message = from_agent.recv() => match message {
                            Some(message) => {
                                router.route(message).await;
                            }
                            None => {
                                router.end(Ended::AgentGone);
                                break;
                            }
                        },
                        () = router.closed() => break,
                    }
                }
            });
        }
        conn
    }

    /// A connection of the WebSocket profile over `link`: the caller moves the agent's output
    /// to the socket, and ends the agent's task when done.
    pub(crate) fn start_socket(
        id: String,
        link: Link,
        limits: Limits,
    ) -> (Arc<Self>, mpsc::Receiver<Bytes>, AgentTask) {
        let (conn, from_agent, agent_task) = Self::new(id, link, limits, false);
        (conn, from_agent.into_channel(), agent_task)
    }

    fn new(
        id: String,
        link: Link,
        limits: Limits,
        single_stream: bool,
    ) -> (Arc<Self>, FromAgent, AgentTask) {
        let now = Instant::now();
        let conn = Arc::new(Self {
            id,
            client: limits.client.clone(),
            opened: now,
            state: Mutex::new(State {
                connection: Mailbox {
                    confirmed: true,
                    ..Mailbox::default()
                },
                sessions: HashMap::new(),
                routes: HashMap::new(),
                agent_requests: HashMap::new(),
                initialize: None,
                buffered: 0,
                last_drain: now,
                last_activity: now,
                used: false,
                queued_posts: 0,
                ended: None,
            }),
            changed: Notify::new(),
            to_agent: link.to_agent,
            held_bodies: Arc::default(),
            limits,
            single_stream,
            ours: link.ours,
            protocol_version: OnceLock::new(),
        });
        (conn, link.from_agent, link.task)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why the connection ended, once it has.
    pub(crate) fn ended(&self) -> Option<Ended> {
        self.state().ended.clone()
    }

    /// Ends the connection: readers see the end of their streams, the agent its input's end.
    pub(crate) fn end(&self, why: Ended) {
        let mut state = self.state();
        if state.ended.is_some() {
            return;
        }
        match &why {
            Ended::Stalled { .. } | Ended::TooManyStreams(_) => {
                tracing::warn!(connection = %self.id, reason = %why, "closing a remote connection");
            }
            _ => tracing::debug!(connection = %self.id, reason = %why, "remote connection ended"),
        }
        state.ended = Some(why);
        state.connection.queue.clear();
        state.sessions.clear();
        let buffered = std::mem::take(&mut state.buffered);
        state.initialize = None;
        drop(state);
        self.limits.output.release(buffered);
        self.changed.notify_waiters();
    }

    /// Records the protocol version the connection's `initialize` negotiated (the first wins).
    pub(crate) fn negotiated(&self, version: u16) {
        let _ = self.protocol_version.set(version);
    }

    /// The protocol version the connection's `initialize` negotiated, once answered.
    pub(crate) fn protocol_version(&self) -> Option<u16> {
        self.protocol_version.get().copied()
    }

    /// The principal who opened the connection, if any: only it may use the connection.
    pub(crate) fn principal(&self) -> Option<&str> {
        self.limits.principal.as_deref()
    }

    /// Waits until the connection has ended.
    pub(crate) async fn closed(&self) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.ended().is_some() {
                return;
            }
            notified.await;
        }
    }

    /// Ends the connection when it stalls or idles; resolves when it has ended.
    async fn supervise(self: Arc<Self>) {
        let tick = (self
            .limits
            .stall_timeout
            .min(self.limits.idle_timeout)
            .min(self.limits.unused_timeout)
            / 4)
        .clamp(Duration::from_millis(10), Duration::from_secs(1));
        loop {
            tokio::select! {
                () = self.closed() => return,
                () = tokio::time::sleep(tick) => {}
            }
            let now = Instant::now();
            let verdict = {
                let state = self.state();
                let readers = state.connection.leased || state.sessions.values().any(|m| m.leased);
                let unused = now.duration_since(self.opened);
                if !state.used && unused >= self.limits.unused_timeout {
                    Some(Ended::Unused(self.limits.unused_timeout))
                } else if state.buffered > 0
                    && now.duration_since(state.last_drain) >= self.limits.stall_timeout
                {
                    Some(Ended::Stalled {
                        buffered: state.buffered,
                        waited: now.duration_since(state.last_drain),
                    })
                } else if !readers && now.duration_since(state.last_activity) >= self.idle_limit() {
                    Some(Ended::Idle(self.idle_limit()))
                } else {
                    None
                }
            };
            if let Some(why) = verdict {
                self.end(why);
                return;
            }
        }
    }

    /// How long the connection may go without requests and readers: a `client_id` connection
    /// (which has no DELETE) ends once its reader has been gone for the stall timeout.
    fn idle_limit(&self) -> Duration {
        if self.single_stream {
            self.limits.idle_timeout.min(self.limits.stall_timeout)
        } else {
            self.limits.idle_timeout
        }
    }

    /// Waits for the answer to the `initialize` request `id` (which the caller forwards next).
    pub(crate) fn expect_initialize(&self, id: String) -> oneshot::Receiver<Bytes> {
        let (tx, rx) = oneshot::channel();
        self.state().initialize = Some((id, tx));
        rx
    }

    /// Records that the client did something.
    pub(crate) fn touch(&self) {
        self.state().last_activity = Instant::now();
    }

    /// Checks a client message against the connection's routes, records where its answer goes,
    /// and hands it to the agent. `header_session` is the POST's `Acp-Session-Id`.
    pub(crate) async fn accept(
        &self,
        body: Bytes,
        share: Option<BodyShare>,
        shape: &Shape,
        header_session: Option<&str>,
    ) -> Result<(), Refusal> {
        {
            let mut state = self.state();
            if state.ended.is_some() {
                return Err(Refusal::Gone);
            }
            state.last_activity = Instant::now();
            if state.initialize.is_none() {
                // A message after `initialize` (whose POST expects its answer first).
                state.used = true;
            }
            if let (Some(header), Some(params)) = (header_session, shape.params_session.as_deref())
            {
                if header != params {
                    return Err(Refusal::BadRequest(format!(
                        "Acp-Session-Id `{header}` does not match params.sessionId `{params}`"
                    )));
                }
            }
            if shape.is_response() {
                let id = shape.id.as_deref().unwrap_or("null");
                if let Some(session) = state.agent_requests.remove(id) {
                    if header_session.is_some_and(|h| h != session) {
                        return Err(Refusal::BadRequest(format!(
                            "Acp-Session-Id does not match the session `{session}` of request {id}"
                        )));
                    }
                }
            } else if let (Some(id), Some(_)) = (&shape.id, &shape.method) {
                let session = header_session
                    .map(str::to_owned)
                    .or_else(|| shape.params_session.clone());
                // A session's answers go with its other messages (see `deliver`): after its
                // replay for `session/load`, which the answer must follow.
                let route = session.map_or(Route::Connection, Route::Session);
                state.routes.insert(id.clone(), route);
            }
        }
        let sent = self.send(body, share).await;
        if sent.is_err()
            && let (Some(id), Some(_)) = (&shape.id, &shape.method)
        {
            // Refused: no answer will come for it.
            self.state().routes.remove(id);
        }
        sent
    }

    /// Whether the connection holds less than its share of the server's body budget: a POST
    /// beyond it is refused before its body is read.
    pub(crate) fn has_room_for_bodies(&self) -> bool {
        self.held_bodies.load(Ordering::Relaxed) < self.limits.max_held_body_bytes
    }

    /// Hands a message to the agent: at once when its input has room, otherwise after the
    /// POSTs already waiting, of which there may be a few (the rest are refused, `429`), as
    /// long as the connection holds less than its share of the body budget (`429` too: one
    /// connection cannot take the whole budget from the others).
    async fn send(&self, body: Bytes, share: Option<BodyShare>) -> Result<(), Refusal> {
        let held = self.held_bodies.load(Ordering::Relaxed);
        if held > 0 && held + body.len() > self.limits.max_held_body_bytes {
            return Err(Refusal::TooManyQueued);
        }
        self.observe(acp_rpc::Direction::Received, &body);
        let held = HeldBodies::count(&self.held_bodies, body.len());
        let inbound = Inbound {
            message: body,
            _share: share,
            _held: Some(held),
        };
        let inbound = match self.to_agent.try_send(inbound) {
            Ok(()) => return Ok(()),
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(Refusal::Gone),
            Err(mpsc::error::TrySendError::Full(inbound)) => inbound,
        };
        {
            let mut state = self.state();
            if state.queued_posts >= self.limits.max_queued_posts {
                return Err(Refusal::TooManyQueued);
            }
            state.queued_posts += 1;
        }
        // Counted while it waits, also when the client goes away (the future is dropped).
        struct Queued<'c>(&'c Connection);
        impl Drop for Queued<'_> {
            fn drop(&mut self) {
                self.0.state().queued_posts -= 1;
            }
        }
        let _queued = Queued(self);
        // The connection's end (a stall, DELETE) ends the wait too.
        tokio::select! {
            sent = self.to_agent.send(inbound) => sent.map_err(|_| Refusal::Gone),
            () = self.closed() => Err(Refusal::Gone),
        }
    }

    /// Shows a message to the server's observer, if there is one: [`Direction::Received`] for
    /// the client's messages to the agent, [`Direction::Sent`] for the agent's.
    ///
    /// [`Direction::Received`]: acp_rpc::Direction::Received
    /// [`Direction::Sent`]: acp_rpc::Direction::Sent
    pub(crate) fn observe(&self, direction: acp_rpc::Direction, message: &[u8]) {
        if let Some(observer) = &self.limits.observer {
            observer.observe(direction, message);
        }
    }

    /// Hands a client message to the agent as it is (the WebSocket profile routes nothing),
    /// waiting for room: the socket is not read meanwhile.
    pub(crate) async fn forward(&self, body: Bytes, share: BodyShare) -> Result<(), Refusal> {
        self.touch();
        self.observe(acp_rpc::Direction::Received, &body);
        let inbound = Inbound {
            message: body,
            _share: Some(share),
            _held: None,
        };
        self.to_agent.send(inbound).await.map_err(|_| Refusal::Gone)
    }

    /// Puts one of the agent's messages where it belongs, waiting while the buffer is full.
    /// `false` once the connection has ended (the message is dropped with it).
    pub(crate) async fn route(&self, message: Bytes) -> bool {
        self.observe(acp_rpc::Direction::Sent, &message);
        let shape = if self.ours {
            message::shape_of_ours(&message)
        } else {
            message::shape(&message)
        }
        .unwrap_or_default();
        let mut message = Some(message);
        // Room at once, the usual case: no waiter registered.
        if let Some(delivered) = self.try_deliver(&mut message, &shape) {
            return delivered;
        }
        let output = &self.limits.output;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let room = output.room();
            tokio::pin!(room);
            room.as_mut().enable();
            if let Some(delivered) = self.try_deliver(&mut message, &shape) {
                return delivered;
            }
            // Full: wait for a reader of this connection (the supervisor ends a stall), or
            // for room in the server's budget.
            tokio::select! {
                () = notified => {}
                () = room => {}
            }
        }
    }

    /// Delivers `message` if there is room: `Some(true)` when delivered, `Some(false)` when
    /// the connection has ended, `None` when it must wait.
    fn try_deliver(&self, message: &mut Option<Bytes>, shape: &Shape) -> Option<bool> {
        let output = &self.limits.output;
        let mut state = self.state();
        if state.ended.is_some() {
            return Some(false);
        }
        if state.buffered >= self.limits.max_buffered_bytes || !output.has_room(state.buffered) {
            return None;
        }
        let message = message.take()?;
        output.add(message.len());
        self.deliver(&mut state, message, shape);
        drop(state);
        self.changed.notify_waiters();
        Some(true)
    }

    fn deliver(&self, state: &mut State, message: Bytes, shape: &Shape) {
        let route = if shape.is_response() {
            let id = shape.id.as_deref().unwrap_or("null");
            if let Some((_, tx)) = state.initialize.take_if(|(init, _)| init == id) {
                if let Err(message) = tx.send(message) {
                    tracing::debug!(connection = %self.id, "initialize answered after its POST went away");
                    drop(message);
                }
                return;
            }
            if let Some(session) = &shape.result_session {
                // A new session (session/new, fork): its stream exists from now on.
                state.sessions.entry(session.clone()).or_default().confirmed = true;
            }
            state.routes.remove(id).unwrap_or(Route::Connection)
        } else {
            match &shape.params_session {
                Some(session) => {
                    if let Some(id) = &shape.id {
                        state.agent_requests.insert(id.clone(), session.clone());
                    }
                    Route::Session(session.clone())
                }
                None => Route::Connection,
            }
        };
        let route = match route {
            _ if self.single_stream => Route::Connection,
            // A session whose stream nobody has read yet: its messages go on the connection
            // stream, which every client reads. Clients that open a session's stream before
            // they post to it (the TypeScript SDK, ours) get the session's messages there and
            // in order, `session/load` replays and answers included; clients that do not
            // (the Python SDK after a `session/load`) still get them.
            Route::Session(session)
                if state
                    .sessions
                    .get(&session)
                    .is_none_or(|m| m.generation == 0) =>
            {
                state.sessions.entry(session).or_default().confirmed = true;
                Route::Connection
            }
            other => other,
        };
        let mailbox = match route {
            Route::Connection => &mut state.connection,
            Route::Session(session) => {
                let mailbox = state.sessions.entry(session).or_default();
                mailbox.confirmed = true;
                mailbox
            }
        };
        let was_empty = state.buffered == 0;
        state.buffered += message.len();
        mailbox.queue.push_back(message);
        if was_empty {
            state.last_drain = Instant::now();
        }
        let waiting = state
            .sessions
            .values()
            .filter(|m| !m.leased && !m.queue.is_empty())
            .count();
        if waiting > self.limits.max_waiting_streams {
            drop(std::mem::take(&mut state.sessions));
            state.connection.queue.clear();
            self.limits
                .output
                .release(std::mem::take(&mut state.buffered));
            state.ended = Some(Ended::TooManyStreams(self.limits.max_waiting_streams));
            tracing::warn!(connection = %self.id, "closing a remote connection: too many session streams without a reader");
        }
    }

    /// Attaches the reader of a stream: the connection's (`None`) or a session's.
    pub(crate) fn lease(self: &Arc<Self>, session: Option<&str>) -> Result<Lease, Refusal> {
        let mut state = self.state();
        if state.ended.is_some() {
            return Err(Refusal::Gone);
        }
        state.last_activity = Instant::now();
        state.used = true;
        let unconfirmed = state.sessions.values().filter(|m| !m.confirmed).count();
        let mailbox = match session {
            None => &mut state.connection,
            Some(session) => {
                if !state.sessions.contains_key(session)
                    && unconfirmed >= self.limits.max_unconfirmed_streams
                {
                    return Err(Refusal::UnknownSession);
                }
                // A stream for a session the agent has not named yet: a client may listen
                // before `session/load`.
                state.sessions.entry(session.to_owned()).or_default()
            }
        };
        if mailbox.leased && !self.single_stream {
            return Err(Refusal::Busy);
        }
        // In the `client_id` profile the newest reader wins: the older one's stream ends.
        mailbox.leased = true;
        mailbox.generation += 1;
        let generation = mailbox.generation;
        drop(state);
        self.changed.notify_waiters();
        Ok(Lease {
            conn: self.clone(),
            session: session.map(str::to_owned),
            generation,
        })
    }

    fn mailbox<'s>(state: &'s mut State, session: Option<&str>) -> Option<&'s mut Mailbox> {
        match session {
            None => Some(&mut state.connection),
            Some(session) => state.sessions.get_mut(session),
        }
    }
}

/// The reader of one stream; dropping it detaches the reader.
#[derive(Debug)]
pub(crate) struct Lease {
    conn: Arc<Connection>,
    session: Option<String>,
    generation: u64,
}

impl Lease {
    /// Moves the messages already waiting for this stream into `out`, without waiting, until
    /// they hold `max_bytes` (at least one when any waits): after [`next`](Self::next), so that
    /// a burst leaves in one write.
    pub(crate) fn ready(&self, out: &mut Vec<Bytes>, max_bytes: usize) {
        let mut state = self.conn.state();
        if state.ended.is_some() {
            return;
        }
        let mut taken = 0;
        if let Some(mailbox) = Connection::mailbox(&mut state, self.session.as_deref()) {
            if mailbox.generation != self.generation {
                return;
            }
            while taken < max_bytes {
                let Some(message) = mailbox.queue.pop_front() else {
                    break;
                };
                taken += message.len();
                out.push(message);
            }
        }
        if taken > 0 {
            let now = Instant::now();
            state.buffered -= taken;
            state.last_drain = now;
            state.last_activity = now;
            drop(state);
            self.conn.limits.output.release(taken);
            // Room for the router.
            self.conn.changed.notify_waiters();
        }
    }

    /// The next message for this stream, or `None` once the connection has ended.
    pub(crate) async fn next(&self) -> Option<Bytes> {
        loop {
            let notified = self.conn.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut state = self.conn.state();
                if state.ended.is_some() {
                    return None;
                }
                let now = Instant::now();
                let mailbox = Connection::mailbox(&mut state, self.session.as_deref());
                if mailbox
                    .as_ref()
                    .is_some_and(|m| m.generation != self.generation)
                {
                    // A newer reader took over.
                    return None;
                }
                if let Some(message) = mailbox.and_then(|m| m.queue.pop_front()) {
                    state.buffered -= message.len();
                    state.last_drain = now;
                    state.last_activity = now;
                    drop(state);
                    self.conn.limits.output.release(message.len());
                    // Room for the router.
                    self.conn.changed.notify_waiters();
                    return Some(message);
                }
            }
            notified.await;
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut state = self.conn.state();
        state.last_activity = Instant::now();
        let session = self.session.as_deref();
        if let Some(mailbox) = Connection::mailbox(&mut state, session) {
            if mailbox.generation != self.generation {
                return;
            }
            // The stream stays (empty, a few bytes) while the connection lives: the session's
            // messages now wait on it for the reader to come back.
            mailbox.leased = false;
        }
    }
}

/// How many messages wait in each direction between the transport and the agent before the
/// sender waits: small, so that backpressure reaches the agent's own outgoing buffer.
pub(crate) const CHANNEL_MESSAGES: usize = 16;

/// A client's message on its way to the agent, holding its share of the server's body budget
/// until the agent takes it.
#[derive(Debug)]
pub(crate) struct Inbound {
    pub(crate) message: Bytes,
    /// Held, not read: dropped when the agent took the message.
    pub(crate) _share: Option<BodyShare>,
    /// The message's place in its connection's count of held bodies, likewise.
    pub(crate) _held: Option<HeldBodies>,
}

/// One agent behind one connection.
#[derive(Debug)]
pub(crate) struct Link {
    /// The client's messages, to the agent.
    pub(crate) to_agent: mpsc::Sender<Inbound>,
    /// The agent's messages, to the client.
    pub(crate) from_agent: FromAgent,
    /// What runs the agent; ended ([`AgentTask::end`]) when the connection ends.
    pub(crate) task: AgentTask,
    /// The agent's messages are written by `acp-rpc` (an agent served in process), in the
    /// layout whose prefix routing can read ([`crate::message::shape_of_ours`]).
    pub(crate) ours: bool,
}

/// Where the agent's messages come from.
#[derive(Debug)]
pub(crate) enum FromAgent {
    /// A channel, which ends when the agent is gone (an agent program's relay).
    Channel(mpsc::Receiver<Bytes>),
    /// An agent in process, whose sends the connection takes itself (see [`Outlet`]).
    Outlet(Arc<Outlet>),
}

impl FromAgent {
    /// The agent's messages as a channel (the WebSocket profile writes them to its socket).
    pub(crate) fn into_channel(self) -> mpsc::Receiver<Bytes> {
        match self {
            Self::Channel(rx) => rx,
            Self::Outlet(outlet) => {
                let (tx, rx) = mpsc::channel(CHANNEL_MESSAGES);
                outlet.attach(Target::Channel(tx));
                rx
            }
        }
    }
}

/// Where an agent in process sends its messages: set once, when its connection is made
/// (before the agent can say anything: it speaks only after the connection forwards
/// `initialize`).
///
/// For the Streamable HTTP profile the agent's own task routes each message to its stream
/// ([`Connection::route`]): no task in between, no queue in between, so the agent waits
/// directly on the connection's output budget and the first message of a turn reaches its
/// reader one task switch sooner.
#[derive(Debug, Default)]
pub(crate) struct Outlet {
    target: OnceLock<Target>,
}

/// What an [`Outlet`] delivers to.
#[derive(Debug)]
pub(crate) enum Target {
    /// A channel's reader.
    Channel(mpsc::Sender<Bytes>),
    /// A connection that routes the messages itself.
    Routed(Weak<Connection>),
}

fn ended() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the connection has ended")
}

impl Outlet {
    /// Sets where the messages go (the first call wins).
    pub(crate) fn attach(&self, target: Target) {
        let _ = self.target.set(target);
    }

    /// Delivers one of the agent's messages, waiting for room.
    pub(crate) async fn send(&self, message: Bytes) -> io::Result<()> {
        match self.target.get() {
            Some(Target::Channel(tx)) => tx.send(message).await.map_err(|_| ended()),
            Some(Target::Routed(conn)) => match conn.upgrade() {
                Some(conn) if conn.route(message).await => Ok(()),
                _ => Err(ended()),
            },
            None => Err(ended()),
        }
    }

    /// The agent is gone: its connection ends (a channel's reader sees it end by itself).
    pub(crate) fn agent_gone(&self) {
        if let Some(Target::Routed(conn)) = self.target.get()
            && let Some(conn) = conn.upgrade()
        {
            conn.end(Ended::AgentGone);
        }
    }
}

/// What runs one connection's agent, and how it is ended.
///
/// An agent served in process is aborted: it holds nothing outside the process. An agent
/// program is asked to stop, and its task stops it gracefully in the background (its stdin
/// closed, then `SIGTERM`, then `SIGKILL`: see [`crate::server::bridge`]); dropping the handle
/// asks the same, so that no path leaves a program running or kills it outright.
#[derive(Debug)]
pub(crate) struct AgentTask {
    task: JoinHandle<()>,
    /// Asks an agent program's task to stop the program; `None` for an agent in process.
    stop: Option<CancellationToken>,
}

impl AgentTask {
    /// The task of an agent served in process.
    pub(crate) fn in_process(task: JoinHandle<()>) -> Self {
        Self { task, stop: None }
    }

    /// The task of an agent program, which stops the program once `stop` is cancelled.
    pub(crate) fn program(task: JoinHandle<()>, stop: CancellationToken) -> Self {
        Self {
            task,
            stop: Some(stop),
        }
    }

    /// Ends the agent without waiting for it: an agent in process is aborted, an agent
    /// program is stopped in the background.
    pub(crate) fn end(self) {
        if self.stop.is_none() {
            self.task.abort();
        }
        // A program's task is asked to stop when the handle drops.
    }
}

impl Drop for AgentTask {
    fn drop(&mut self) {
        if let Some(stop) = &self.stop {
            stop.cancel();
        }
    }
}
