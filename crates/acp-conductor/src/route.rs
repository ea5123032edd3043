//! The routing of a chain with proxies: one JSON-RPC connection to the predecessor and one to
//! each component, and the rules that say where each message goes.
//!
//! Every connection is an `acp-rpc` connection, so ids, cancellation (`$/cancel_request` is
//! hop-local: cancelling a forwarded request drops the call on the next hop, which cancels it
//! there in turn), ordering (a response is forwarded only after the notifications that came
//! before it), backpressure and the one-answer-per-request rule hold on every hop. Params and
//! results are never parsed: they go on as the raw JSON text that arrived.
//!
//! The rules (terminal mode: the predecessor is an editor; proxy mode: the predecessor is
//! another conductor, and the last proxy's successor is that conductor's successor):
//!
//! | from | message | to |
//! | --- | --- | --- |
//! | predecessor | `initialize` (terminal mode) | component 0 as `proxy/initialize` (as `initialize` if it is the agent) |
//! | predecessor | `proxy/initialize` (proxy mode) | component 0, unchanged |
//! | predecessor | `proxy/successor` (proxy mode: from our successor) | the last proxy, re-wrapped |
//! | predecessor | anything else | component 0, unchanged |
//! | proxy *i* | `proxy/successor` wrapping *m* | component *i*+1 as *m* (`initialize` becomes `proxy/initialize` for a proxy); past the last proxy in proxy mode, the predecessor as `proxy/successor` |
//! | component *i* | anything else | component *i*-1 wrapped in `proxy/successor`; the predecessor unchanged for component 0 |
//!
//! `_proxy/initialize` and `_proxy/successor`, the official conductor's spelling, are read as
//! the same methods, and each hop is written to in the spelling it speaks.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use acp_rpc::{Config, Handler, Peer};
use acp_types::methods::agent::{self, PROXY_INITIALIZE, PROXY_SUCCESSOR};
use acp_types::{ErrorCode, ErrorObject};
use futures::future::BoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Notify, watch};

use crate::activity::{Activity, Tracked};
use crate::bridge::{self, Bridge, Relay};
use crate::component::Pipes;
use crate::conductor::{Ended, Mode, Observe};
use crate::supervise::Processes;

/// How long a component that closed its connection gets to exit, so that the error the
/// editor gets can say how it ended.
const EXIT_STATUS_WAIT: Duration = Duration::from_secs(1);
/// How long the answers of an ending chain get to reach the predecessor.
const FLUSH_LIMIT: Duration = Duration::from_secs(5);
/// The silence on a connection taken to mean the last messages queued were written.
const FLUSH_QUIET: Duration = Duration::from_millis(50);
/// How long the components get to receive what the predecessor sent last, once it hung up.
const HANG_UP_FLUSH_LIMIT: Duration = Duration::from_secs(1);

/// `proxy/initialize` as official conductor releases before 5.0 spell it (an extension
/// method's name). `agent-client-protocol-conductor` 5.0.0 sends `proxy/initialize` and
/// `proxy/successor`, the schema's names, which are what we send first; this spelling is the
/// fallback for proxies written for the older releases.
const EXT_PROXY_INITIALIZE: &str = "_proxy/initialize";
/// `proxy/successor` as official conductor releases before 5.0 spell it.
const EXT_PROXY_SUCCESSOR: &str = "_proxy/successor";

/// True for `proxy/successor` in either spelling.
fn is_successor(method: &str) -> bool {
    method == PROXY_SUCCESSOR || method == EXT_PROXY_SUCCESSOR
}

/// True for `proxy/initialize` in either spelling.
fn is_proxy_initialize(method: &str) -> bool {
    method == PROXY_INITIALIZE || method == EXT_PROXY_INITIALIZE
}

/// Where a message comes from or goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The conductor's predecessor: the editor, or in proxy mode the outer conductor.
    Predecessor,
    /// Component `i` of the chain (proxies first, then in terminal mode the agent).
    Component(usize),
}

/// What goes out: a message as it is, wrapped in `proxy/successor`, or the `proxy/initialize`
/// that starts a proxy.
#[derive(Debug)]
enum Form<'a> {
    Plain(Cow<'a, str>),
    Wrapped(Cow<'a, str>),
    ProxyInitialize,
}

/// One routed message: where to, in which form, with its params (raw, as received). Borrowed
/// from the frame it came in while it is routed; owned once it waits for its handler.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    to: Place,
    form: Form<'a>,
    params: Option<Cow<'a, RawValue>>,
}

impl Call<'_> {
    fn method(&self) -> &str {
        match &self.form {
            Form::Plain(method) | Form::Wrapped(method) => method,
            Form::ProxyInitialize => PROXY_INITIALIZE,
        }
    }

    /// The call with its method and params copied out of the frame.
    fn into_owned(self) -> Call<'static> {
        let form = match self.form {
            Form::Plain(method) => Form::Plain(Cow::Owned(method.into_owned())),
            Form::Wrapped(method) => Form::Wrapped(Cow::Owned(method.into_owned())),
            Form::ProxyInitialize => Form::ProxyInitialize,
        };
        Call {
            to: self.to,
            form,
            params: self.params.map(|params| Cow::Owned(params.into_owned())),
        }
    }
}

/// The params of a `proxy/successor` we send: the wrapped message's method and params.
#[derive(Serialize)]
struct Envelope<'a> {
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a RawValue>,
}

/// The params of a message as it goes on the wire: as received, or in an envelope.
#[derive(Serialize)]
#[serde(untagged)]
enum Outgoing<'a> {
    Plain(Option<&'a RawValue>),
    Wrapped(Envelope<'a>),
}

/// The connections, set once all are made.
struct Wiring {
    predecessor: Peer,
    components: Vec<Peer>,
}

/// What every connection's handler shares.
struct Chain {
    wiring: OnceLock<Wiring>,
    mode: Mode,
    /// How many of the components are proxies (the first ones).
    proxies: usize,
    /// Why the chain ended, once it did: the text of the errors of the requests it leaves
    /// unanswered.
    ended: watch::Sender<Option<String>>,
    /// Which hops speak the `_proxy/…` spelling: each component (learned when it refuses
    /// `proxy/initialize` as an unknown method), and the predecessor (learned from the
    /// initialize it sends).
    extension_spelling: Vec<AtomicBool>,
    predecessor_extension_spelling: AtomicBool,
    /// Requests from the predecessor not answered yet.
    open: AtomicUsize,
    answered: Notify,
    /// MCP servers of the ACP transport for an agent that does not take them.
    bridge: Bridge,
}

impl Chain {
    fn wiring(&self) -> &Wiring {
        self.wiring
            .get()
            .expect("the connections are wired before any driver runs")
    }

    fn peer(&self, place: Place) -> &Peer {
        let wiring = self.wiring();
        match place {
            Place::Predecessor => &wiring.predecessor,
            Place::Component(i) => &wiring.components[i],
        }
    }

    fn components(&self) -> usize {
        self.wiring().components.len()
    }

    /// The method that initializes component `i`: `proxy/initialize` for a proxy.
    fn initialize_form(&self, i: usize) -> Form<'static> {
        if i < self.proxies {
            Form::ProxyInitialize
        } else {
            Form::Plain(Cow::Borrowed(agent::INITIALIZE))
        }
    }

    /// True when `place` is the agent behind at least one proxy (terminal mode): the hop the
    /// MCP bridge watches.
    fn is_bridged_agent(&self, place: Place) -> bool {
        self.mode == Mode::Agent
            && self.proxies > 0
            && place == Place::Component(self.components() - 1)
    }

    /// Whether `place` speaks the `_proxy/…` spelling.
    fn extension_spelling(&self, place: Place) -> &AtomicBool {
        match place {
            Place::Predecessor => &self.predecessor_extension_spelling,
            Place::Component(i) => &self.extension_spelling[i],
        }
    }

    /// `proxy/successor` as `place` spells it.
    fn successor_method(&self, place: Place) -> &'static str {
        if self.extension_spelling(place).load(Ordering::Relaxed) {
            EXT_PROXY_SUCCESSOR
        } else {
            PROXY_SUCCESSOR
        }
    }

    /// Where a message `method` from `from` goes.
    fn route<'a>(
        &self,
        from: Place,
        method: &'a str,
        params: Option<&'a RawValue>,
    ) -> Result<Call<'a>, ErrorObject> {
        let owned = || params.map(Cow::Borrowed);
        match from {
            Place::Predecessor => match self.mode {
                Mode::Agent if is_proxy_initialize(method) || is_successor(method) => {
                    Err(ErrorObject::invalid_request(format_args!(
                        "`{method}` is sent by a conductor to its proxies, and this conductor \
                         runs as an agent (start it in proxy mode to nest it)"
                    )))
                }
                Mode::Agent if method == agent::INITIALIZE => Ok(Call {
                    to: Place::Component(0),
                    form: self.initialize_form(0),
                    params: owned(),
                }),
                Mode::Proxy if method == agent::INITIALIZE => Err(ErrorObject::invalid_request(
                    "this conductor runs as a proxy: its conductor starts it with \
                     `proxy/initialize`",
                )),
                Mode::Proxy if is_proxy_initialize(method) => {
                    // The outer conductor's spelling is the one to wrap in toward it.
                    self.predecessor_extension_spelling
                        .store(method == EXT_PROXY_INITIALIZE, Ordering::Relaxed);
                    Ok(Call {
                        to: Place::Component(0),
                        form: Form::ProxyInitialize,
                        params: owned(),
                    })
                }
                Mode::Proxy if is_successor(method) => {
                    // From our successor, through the outer conductor: to the last proxy,
                    // in a new envelope (the envelope's `_meta` is hop-local).
                    let (inner, params) = unwrap(params)?;
                    Ok(Call {
                        to: Place::Component(self.components() - 1),
                        form: Form::Wrapped(inner),
                        params,
                    })
                }
                _ => Ok(Call {
                    to: Place::Component(0),
                    form: Form::Plain(Cow::Borrowed(method)),
                    params: owned(),
                }),
            },
            Place::Component(i) if is_successor(method) => {
                if i >= self.proxies {
                    return Err(ErrorObject::method_not_found(method));
                }
                let (inner, params) = unwrap(params)?;
                if inner == acp_types::methods::protocol::CANCEL_REQUEST {
                    // Ids mean nothing on another hop; cancelling the `proxy/successor`
                    // request itself is how a proxy cancels.
                    return Err(ErrorObject::invalid_request(
                        "`$/cancel_request` is hop-local: cancel the `proxy/successor` request \
                         instead of wrapping it",
                    ));
                }
                let next = i + 1;
                if next == self.components() {
                    // Proxy mode: past our last proxy is our own successor.
                    return Ok(Call {
                        to: Place::Predecessor,
                        form: Form::Wrapped(inner),
                        params,
                    });
                }
                let form = if inner == agent::INITIALIZE {
                    self.initialize_form(next)
                } else {
                    Form::Plain(inner)
                };
                Ok(Call {
                    to: Place::Component(next),
                    form,
                    params,
                })
            }
            Place::Component(_) if is_proxy_initialize(method) => {
                Err(ErrorObject::invalid_request(format_args!(
                    "`{method}` is sent only by a conductor"
                )))
            }
            Place::Component(0) => Ok(Call {
                to: Place::Predecessor,
                form: Form::Plain(Cow::Borrowed(method)),
                params: owned(),
            }),
            Place::Component(i) => Ok(Call {
                to: Place::Component(i - 1),
                form: Form::Wrapped(Cow::Borrowed(method)),
                params: owned(),
            }),
        }
    }

    /// The method and params `call` goes on the wire with (a `proxy/successor` envelope in the
    /// spelling of the hop it goes to, for a wrapped one).
    fn wire<'a>(&self, call: &'a Call<'_>) -> (&'a str, Outgoing<'a>) {
        let params = call.params.as_deref();
        match &call.form {
            Form::Wrapped(method) => (
                self.successor_method(call.to),
                Outgoing::Wrapped(Envelope { method, params }),
            ),
            Form::Plain(method) => (method, Outgoing::Plain(params)),
            Form::ProxyInitialize => (PROXY_INITIALIZE, Outgoing::Plain(params)),
        }
    }

    /// Sends `call` as a request and returns the answer, unchanged.
    async fn request(&self, mut call: Call<'static>) -> Result<Box<RawValue>, ErrorObject> {
        let agent_initialize = if self.is_bridged_agent(call.to) {
            let params = call.params.take().map(Cow::into_owned);
            call.params = self.bridge.outgoing(call.method(), params).map(Cow::Owned);
            bridge::is_initialize(call.method())
        } else {
            false
        };
        let peer = self.peer(call.to);
        let result = match &call.form {
            Form::Plain(_) | Form::Wrapped(_) => {
                let (method, params) = self.wire(&call);
                peer.request_raw(method, &params).await
            }
            Form::ProxyInitialize => {
                let spelling = self.extension_spelling(call.to);
                let first = if spelling.load(Ordering::Relaxed) {
                    EXT_PROXY_INITIALIZE
                } else {
                    PROXY_INITIALIZE
                };
                match peer.request_raw(first, &call.params).await {
                    // A proxy written for the official conductor's spelling does not know
                    // the schema's: it gets the other one, and keeps it.
                    Err(acp_rpc::Error::Remote(e))
                        if e.code == ErrorCode::METHOD_NOT_FOUND && first == PROXY_INITIALIZE =>
                    {
                        tracing::debug!(
                            "a proxy does not know `proxy/initialize`: trying `_proxy/initialize`"
                        );
                        spelling.store(true, Ordering::Relaxed);
                        peer.request_raw(EXT_PROXY_INITIALIZE, &call.params).await
                    }
                    other => other,
                }
            }
        };
        match result {
            Ok(raw) if agent_initialize => raw
                .to_raw_value()
                .map(|answer| self.bridge.initialized(answer))
                .map_err(|e| e.to_error_object()),
            Ok(raw) => raw.to_raw_value().map_err(|e| e.to_error_object()),
            Err(acp_rpc::Error::Remote(error)) => Err(error),
            Err(error) if error.is_connection_closed() => Err(self.ended_error(&call).await),
            Err(error) => Err(error.to_error_object()),
        }
    }

    /// True for a notification that is not forwarded: only a request initializes, and an
    /// `mcp/message` for an agent that reaches the proxy's MCP server through the bridge, over
    /// HTTP, is not a method it advertised.
    fn drops(&self, call: &Call<'_>) -> bool {
        if matches!(call.form, Form::ProxyInitialize) {
            return true;
        }
        let bridged_mcp = self.is_bridged_agent(call.to)
            && call.method()
                == <acp_types::methods::McpMessageNotification as acp_types::methods::Notification>::METHOD
            && self.bridge.drops_mcp_messages();
        if bridged_mcp {
            tracing::debug!("an mcp/message notification for a bridged agent is dropped");
        }
        bridged_mcp
    }

    /// Sends `call` as a notification if the next hop's buffer has room, without waiting:
    /// false (nothing sent) while it is full.
    fn try_notify(&self, call: &Call<'_>) -> bool {
        if self.drops(call) {
            return true;
        }
        let (method, params) = self.wire(call);
        match self.peer(call.to).try_notify_raw(method, &params) {
            Ok(sent) => sent,
            Err(error) => {
                tracing::debug!(method = call.method(), %error, "a notification was not forwarded");
                true
            }
        }
    }

    /// Sends `call` as a notification.
    async fn notify(&self, call: Call<'static>) {
        if self.drops(&call) {
            return;
        }
        let (method, params) = self.wire(&call);
        if let Err(error) = self.peer(call.to).notify_raw(method, &params).await {
            tracing::debug!(method = call.method(), %error, "a notification was not forwarded");
        }
    }

    /// The error for a request whose next hop closed: why the chain ended, once that is known.
    async fn ended_error(&self, call: &Call<'_>) -> ErrorObject {
        let mut ended = self.ended.subscribe();
        let why = tokio::time::timeout(EXIT_STATUS_WAIT * 2, ended.wait_for(Option::is_some))
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|why| why.clone());
        let why = why.unwrap_or_else(|| "a component closed its connection".to_owned());
        ErrorObject::internal_error(format_args!(
            "`{}` was not answered: the chain ended: {why}",
            call.method()
        ))
    }
}

impl Relay for Chain {
    fn mcp_message(
        self: Arc<Self>,
        params: Box<RawValue>,
    ) -> BoxFuture<'static, Result<Box<RawValue>, ErrorObject>> {
        Box::pin(async move {
            // From the agent to the last proxy, as the agent would send it.
            let call = Call {
                to: Place::Component(self.components() - 2),
                form: Form::Wrapped(Cow::Borrowed(
                    <acp_types::methods::McpMessage as acp_types::methods::Request>::METHOD,
                )),
                params: Some(Cow::Owned(params)),
            };
            self.request(call).await
        })
    }
}

/// The params of a `proxy/successor` as received: the wrapped message's method and params,
/// borrowed from the frame. (The same for a request and a notification.)
#[derive(Deserialize)]
struct Received<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    /// Absent and `null` both mean none.
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    /// The envelope's own extension data: hop-local, read only to refuse a malformed one.
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<&'a RawValue>,
}

/// Unwraps the params of a `proxy/successor`: the wrapped method and params.
fn unwrap(
    params: Option<&RawValue>,
) -> Result<(Cow<'_, str>, Option<Cow<'_, RawValue>>), ErrorObject> {
    let text = params.map_or("null", RawValue::get);
    let received: Received<'_> = serde_json::from_str(text).map_err(ErrorObject::invalid_params)?;
    if received
        .meta
        .is_some_and(|meta| !meta.get().trim_start().starts_with('{'))
    {
        return Err(ErrorObject::invalid_params(
            "the `_meta` of a `proxy/successor` envelope must be an object",
        ));
    }
    Ok((received.method, received.params.map(Cow::Borrowed)))
}

/// The handler of one connection: routes what arrives there.
struct Hop {
    chain: Arc<Chain>,
    at: Place,
    /// How many of this connection's notifications wait for their handler (their next hop
    /// was full when they came): while any do, the ones read after them wait too.
    backlog: Arc<AtomicUsize>,
}

/// A notification of the backlog: counted there until handled or dropped.
pub(crate) struct Queued {
    call: Call<'static>,
    _counted: Counted,
}

/// One notification's place in its connection's backlog.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Counts a request of the predecessor as open until dropped.
struct Open(Arc<Chain>);

impl Drop for Open {
    fn drop(&mut self) {
        if self.0.open.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.answered.notify_waiters();
        }
    }
}

impl Handler for Hop {
    type Request = Call<'static>;
    /// `None` for a notification forwarded right from its frame.
    type Notification = Option<Queued>;
    type Response = Box<RawValue>;

    fn decode_request(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Call<'static>, ErrorObject> {
        self.chain
            .route(self.at, method, params)
            .map(Call::into_owned)
    }

    fn decode_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Option<Queued>, ErrorObject> {
        let call = self.chain.route(self.at, method, params)?;
        // Nothing of this connection waits before it: forwarded from the frame, without a copy,
        // unless the next hop's buffer is full (then it waits its turn, owned).
        if self.backlog.load(Ordering::Acquire) == 0 && self.chain.try_notify(&call) {
            return Ok(None);
        }
        self.backlog.fetch_add(1, Ordering::AcqRel);
        Ok(Some(Queued {
            call: call.into_owned(),
            _counted: Counted(self.backlog.clone()),
        }))
    }

    fn handle_request(
        self: &Arc<Self>,
        call: Call<'static>,
    ) -> BoxFuture<'static, Result<Box<RawValue>, ErrorObject>> {
        let chain = self.chain.clone();
        let open = (self.at == Place::Predecessor).then(|| {
            chain.open.fetch_add(1, Ordering::AcqRel);
            Open(chain.clone())
        });
        Box::pin(async move {
            let answer = chain.request(call).await;
            drop(open);
            answer
        })
    }

    fn handle_notification(self: &Arc<Self>, queued: Option<Queued>) -> BoxFuture<'static, ()> {
        let Some(Queued { call, _counted }) = queued else {
            return acp_rpc::handled();
        };
        let chain = self.chain.clone();
        Box::pin(async move {
            chain.notify(call).await;
            drop(_counted);
        })
    }
}

/// The connection settings of every hop, with the observer of `link` if any. The hops that
/// carry messages wrapped in `proxy/successor` (to the components, and from the predecessor in
/// proxy mode) allow [`acp_types::PROXY_ENVELOPE_HEADROOM`] beyond the default frame limit: a
/// message of the largest size the editor may send still fits once wrapped.
fn config(observe: Option<&Observe>, link: crate::Link, mode: Mode) -> Config {
    let config = Config::default();
    let config = match (link, mode) {
        (crate::Link::Predecessor, Mode::Agent) => config,
        _ => {
            let max_frame_len = config.max_frame_len + acp_types::PROXY_ENVELOPE_HEADROOM;
            config.max_frame_len(max_frame_len)
        }
    };
    match observe {
        Some(observe) => {
            let observe = observe.clone();
            config.observe(move |direction, body| observe(link, direction, body))
        }
        None => config,
    }
}

/// Runs the chain until the predecessor closes the connection or a component ends.
pub(crate) async fn run<R, W>(
    reader: R,
    writer: W,
    pipes: Vec<Pipes>,
    mut processes: Processes,
    mode: Mode,
    observe: Option<Observe>,
) -> (Ended, Processes)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let proxies = match mode {
        Mode::Agent => pipes.len() - 1,
        Mode::Proxy => pipes.len(),
    };
    let chain = Arc::new_cyclic(|weak: &Weak<Chain>| Chain {
        wiring: OnceLock::new(),
        mode,
        proxies,
        ended: watch::Sender::new(None),
        extension_spelling: (0..pipes.len()).map(|_| AtomicBool::new(false)).collect(),
        predecessor_extension_spelling: AtomicBool::new(false),
        open: AtomicUsize::new(0),
        answered: Notify::new(),
        bridge: Bridge::new(weak.clone()),
    });
    let mut peers = Vec::with_capacity(pipes.len());
    let mut drivers = Vec::with_capacity(pipes.len());
    let mut writes = Vec::with_capacity(pipes.len());
    for (i, Pipes { stdin, stdout }) in pipes.into_iter().enumerate() {
        let activity = Activity::new();
        writes.push(activity.clone());
        let stdin = Tracked {
            inner: stdin,
            activity,
        };
        let hop = Hop {
            chain: chain.clone(),
            at: Place::Component(i),
            backlog: Arc::default(),
        };
        let (peer, driver) = acp_rpc::connect(
            |_| hop,
            stdout,
            stdin,
            config(observe.as_ref(), crate::Link::Component(i), mode),
        );
        peers.push(peer);
        drivers.push(driver);
    }
    let activity = Activity::new();
    let hop = Hop {
        chain: chain.clone(),
        at: Place::Predecessor,
        backlog: Arc::default(),
    };
    let (predecessor, mut upstream) = acp_rpc::connect(
        |_| hop,
        reader,
        Tracked {
            inner: writer,
            activity: activity.clone(),
        },
        config(observe.as_ref(), crate::Link::Predecessor, mode),
    );
    if chain
        .wiring
        .set(Wiring {
            predecessor,
            components: peers,
        })
        .is_err()
    {
        unreachable!("the chain is wired once");
    }
    let tasks: Vec<_> = drivers.into_iter().map(tokio::spawn).collect();
    let aborts: Vec<_> = tasks
        .iter()
        .map(tokio::task::JoinHandle::abort_handle)
        .collect();
    // Closing a component's connection closes its input: it stops by itself.
    let close_all = || aborts.iter().for_each(tokio::task::AbortHandle::abort);
    let mut closed: FuturesUnordered<_> = tasks
        .into_iter()
        .enumerate()
        .map(|(i, task)| async move {
            let _ = task.await;
            i
        })
        .collect();

    let first = tokio::select! {
        result = &mut upstream => Err(result),
        Some(i) = closed.next() => Ok(i),
        i = processes.exited() => Ok(i),
    };
    let ended_at = match first {
        Ok(i) => i,
        Err(result) => {
            // What the predecessor sent last (a `session/cancel` before hanging up) is
            // written before the components' input closes.
            let flushed = writes
                .iter()
                .map(|activity| activity.settled(FLUSH_QUIET, HANG_UP_FLUSH_LIMIT));
            futures::future::join_all(flushed).await;
            close_all();
            return (Ended::Predecessor(result.map_err(rpc_io)), processes);
        }
    };
    drop(closed);
    let how = processes.how_ended(ended_at, EXIT_STATUS_WAIT).await;
    let why = format!(
        "`{}` (component {ended_at}) {how}",
        processes.name(ended_at)
    );
    tracing::warn!("the chain ended: {why}");
    chain.ended.send_replace(Some(why));
    // Closing the other components fails every call still waiting on them, whose requests are
    // then answered with the error above.
    close_all();
    let answered = async {
        loop {
            let notified = chain.answered.notified();
            if chain.open.load(Ordering::Acquire) == 0 {
                break;
            }
            notified.await;
        }
    };
    tokio::select! {
        _ = &mut upstream => {}
        _ = async {
            let _ = tokio::time::timeout(FLUSH_LIMIT, answered).await;
            activity.settled(FLUSH_QUIET, FLUSH_LIMIT).await;
        } => {}
    }
    drop(upstream);
    (
        Ended::Component {
            index: ended_at,
            how,
        },
        processes,
    )
}

/// The I/O error behind a connection's end, if any.
fn rpc_io(error: acp_rpc::Error) -> std::io::Error {
    match error {
        acp_rpc::Error::Io(e) => e,
        other => std::io::Error::other(other),
    }
}
