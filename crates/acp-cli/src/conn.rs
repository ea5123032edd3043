//! The checker's end of a connection to a spawned agent: raw JSON-RPC over the agent's stdio,
//! every message it sends validated, the requests it makes served inside a sandbox.
//!
//! It does not use `acp-client`'s typed connection on purpose: the checker must put on the
//! wire what a well-behaved client never would (invalid JSON, arrays, odd ids), and see
//! exactly what comes back, in order.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use acp_client::{ProcessGroup, Stderr, Workspace, forward_stderr};
use acp_codec::{AnyCodec, Frame, FramingMode};
use acp_types::methods::client;
use bytes::BytesMut;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::process::Command;
use tokio::sync::mpsc;
use tokio_util::codec::{Encoder, FramedRead};

use crate::answer::{Answer, answer, response_to, typed_params};
use crate::schema::{Kind, Role, Schema, shorten};
use crate::terminals::Terminals;

/// The protocol version the checker speaks by default.
pub const PROTOCOL_VERSION: u64 = 1;

/// The ACP v2 draft's protocol version.
pub const PROTOCOL_VERSION_2: u64 = 2;

/// How many messages from the agent may wait to be looked at; past that the agent's writes
/// block (it is then not reading either, and the case's timeout ends it).
const INCOMING_QUEUE: usize = 4096;

/// How many of the agent's last stderr lines are kept to explain a failure.
const STDERR_TAIL: usize = 8;

/// How much of an offending message a finding quotes.
const QUOTE_LEN: usize = 300;

/// The command that starts the peer under test.
#[derive(Debug, Clone)]
pub struct PeerCommand {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

impl PeerCommand {
    /// The command from `argv` (program first); `None` when it is empty. A relative path to
    /// the program (one with a `/`) is made absolute, since the peer runs in a sandbox.
    pub fn from_argv(argv: &[String]) -> Option<Self> {
        let (program, args) = argv.split_first()?;
        let path = Path::new(program);
        let program = if path.is_relative() && path.components().count() > 1 {
            std::env::current_dir()
                .map(|dir| dir.join(path).to_string_lossy().into_owned())
                .unwrap_or_else(|_| program.clone())
        } else {
            program.clone()
        };
        Some(Self {
            program,
            args: args.to_vec(),
        })
    }
}

impl std::fmt::Display for PeerCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.program)?;
        for arg in &self.args {
            write!(f, " {arg}")?;
        }
        Ok(())
    }
}

/// A kind of protocol problem found while a case ran, reported by its own case whichever case
/// ran into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// A message that is not JSON, or not valid against the schema for its method and direction.
    Schema,
    /// A response to no request, or a second answer to one.
    Ids,
    /// A method called that the checker did not advertise, or a file path that is not absolute.
    Capability,
}

/// One protocol problem, with the message that shows it.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Which cross-cutting case reports it.
    pub category: Category,
    /// What is wrong.
    pub reason: String,
    /// The offending message, shortened.
    pub message: Option<String>,
}

/// How the checker answers the agent's `session/request_permission`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionPolicy {
    /// Select an `allow_*` option (the first option when none is).
    Allow,
    /// Select a `reject_*` option (answer `cancelled` when none is).
    Reject,
    /// Keep the request unanswered until [`Conn::answer_held_cancelled`].
    Hold,
    /// Answer `cancelled` (after `session/cancel`, as the spec requires).
    Cancelled,
}

/// Something the agent sent, in arrival order.
#[derive(Debug, Clone)]
pub struct Received {
    /// Its position among everything the agent sent on this connection.
    pub seq: usize,
    /// When it arrived.
    pub at: Instant,
    /// The message.
    pub message: Value,
}

enum Incoming {
    Message(Value),
    Bad(String),
    Closed(String),
}

#[derive(Debug)]
struct Pending {
    method: String,
}

/// The checker's end of a connection: to an agent process it spawned (the checker is the
/// client), or to a client (the checker plays the agent).
pub struct Conn {
    /// The side the checker plays.
    me: Role,
    group: Option<ProcessGroup>,
    stdin: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    codec: AnyCodec,
    incoming: mpsc::Receiver<IncomingBox>,
    next_id: i64,
    seq: usize,
    pending: HashMap<String, Pending>,
    answered: HashSet<String>,
    /// The id of the last response that answered no request the checker sent, until a wait
    /// for an answer takes it (see [`Conn::wait_response`]).
    stray: Option<String>,
    /// Every message the agent sent, in order.
    pub received: Vec<Received>,
    /// The problems found so far.
    pub findings: Vec<Finding>,
    /// Notes about how the agent behaved (not failures).
    pub notes: Vec<String>,
    sandbox: PathBuf,
    /// The answer to permission requests.
    pub permission: PermissionPolicy,
    /// The `clientCapabilities` of the `initialize` the checker sent as the client (`null`
    /// before it): the session updates they gate are findings otherwise.
    client_capabilities: Value,
    /// The permission requests held unanswered: their ids and params.
    held: Vec<(Value, Value)>,
    /// How long to wait for an answer.
    pub timeout: Duration,
    closed: Option<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    schema: &'static Schema,
    terminals: Terminals,
    /// Answers computed off the serving loop (`terminal/wait_for_exit`), to be sent.
    deferred_tx: mpsc::UnboundedSender<Value>,
    deferred_rx: mpsc::UnboundedReceiver<Value>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("me", &self.me)
            .field("group", &self.group)
            .field("next_id", &self.next_id)
            .field("received", &self.received.len())
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

/// The channel item (boxed in a struct so that `Debug` can be derived on the connection).
struct IncomingBox(Incoming);

impl std::fmt::Debug for IncomingBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Incoming")
    }
}

/// Quotes a message for a report, shortened.
pub fn quote(message: &Value) -> String {
    shorten(&message.to_string(), QUOTE_LEN)
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

impl Conn {
    /// Starts the agent in its own process group, with `sandbox` as its working directory.
    ///
    /// # Errors
    ///
    /// When the program cannot be started.
    pub fn spawn(
        command: &PeerCommand,
        framing: FramingMode,
        sandbox: &Path,
        timeout: Duration,
    ) -> std::io::Result<Self> {
        let mut cmd = Command::new(&command.program);
        cmd.args(&command.args)
            .current_dir(sandbox)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut group = ProcessGroup::spawn(&mut cmd)?;
        let child = group.child();
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        // Drained to its end, so the agent never blocks on logging; never read as protocol.
        tokio::spawn(forward_stderr(stderr_pipe, keep_tail(&tail)));
        let mut conn = Self::over(Role::Client, stdout, stdin, framing, sandbox, timeout);
        conn.group = Some(group);
        conn.stderr = tail;
        Ok(conn)
    }

    /// A connection over any byte stream, the checker playing `me`.
    pub fn over(
        me: Role,
        reader: impl AsyncRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
        framing: FramingMode,
        sandbox: &Path,
        timeout: Duration,
    ) -> Self {
        let (tx, rx) = mpsc::channel(INCOMING_QUEUE);
        let (deferred_tx, deferred_rx) = mpsc::unbounded_channel();
        let codec = AnyCodec::new(framing);
        tokio::spawn(read_frames(
            FramedRead::new(reader, codec.clone()),
            tx,
            me.peer(),
        ));
        Self {
            me,
            group: None,
            stdin: Some(Box::new(writer)),
            codec,
            incoming: rx,
            next_id: 0,
            seq: 0,
            pending: HashMap::new(),
            answered: HashSet::new(),
            stray: None,
            received: Vec::new(),
            findings: Vec::new(),
            notes: Vec::new(),
            sandbox: sandbox.to_path_buf(),
            permission: PermissionPolicy::Allow,
            client_capabilities: Value::Null,
            held: Vec::new(),
            timeout,
            closed: None,
            stderr: Arc::new(Mutex::new(VecDeque::new())),
            schema: Schema::embedded(),
            terminals: Terminals::default(),
            deferred_tx,
            deferred_rx,
        }
    }

    /// Keeps the last lines of a process's stderr in `tail` (for a failure's explanation).
    pub fn keep_stderr_tail(&mut self, stderr: tokio::process::ChildStderr) {
        tokio::spawn(forward_stderr(stderr, keep_tail(&self.stderr)));
    }

    /// Attaches the peer's process, to be ended with the connection.
    pub fn attach(&mut self, group: ProcessGroup) {
        self.group = Some(group);
    }

    /// The agent's last stderr lines, for a failure's explanation.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }

    /// Why the agent's output ended, once it has.
    pub fn closed(&self) -> Option<&str> {
        self.closed.as_deref()
    }

    /// Writes one message body, framed.
    ///
    /// # Errors
    ///
    /// When the agent does not take it within the timeout, or its input is closed.
    pub async fn send_raw(&mut self, body: &[u8]) -> Result<(), String> {
        let mut buf = BytesMut::with_capacity(body.len() + 32);
        self.codec
            .encode(body, &mut buf)
            .map_err(|e| format!("cannot frame the message: {e}"))?;
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(format!("the {}'s input is closed", self.me.peer().as_str()));
        };
        let write = async {
            stdin.write_all(&buf).await?;
            stdin.flush().await
        };
        match tokio::time::timeout(self.timeout, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!("writing to the agent failed: {e}")),
            Err(_) => Err(format!(
                "the {} did not read its input for {:?}",
                self.me.peer().as_str(),
                self.timeout
            )),
        }
    }

    /// Sends a message; a request is remembered so that its answer can be matched.
    ///
    /// # Errors
    ///
    /// As [`send_raw`](Self::send_raw).
    pub async fn send(&mut self, message: &Value) -> Result<(), String> {
        if Kind::of(message) == Some(Kind::Request) {
            let method = message["method"].as_str().unwrap_or_default().to_owned();
            if self.me == Role::Client && method == acp_types::methods::agent::INITIALIZE {
                self.client_capabilities = message["params"]["clientCapabilities"].clone();
            }
            self.pending
                .insert(id_key(&message["id"]), Pending { method });
        }
        let body = serde_json::to_vec(message).map_err(|e| e.to_string())?;
        self.send_raw(&body).await
    }

    /// Sends a request with the next integer id; returns the id.
    ///
    /// # Errors
    ///
    /// As [`send_raw`](Self::send_raw).
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.request_with_id(id.clone(), method, params).await?;
        Ok(id)
    }

    /// Sends a request with the given id.
    ///
    /// # Errors
    ///
    /// As [`send_raw`](Self::send_raw).
    pub async fn request_with_id(
        &mut self,
        id: Value,
        method: &str,
        params: Value,
    ) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
    }

    /// Sends a notification.
    ///
    /// # Errors
    ///
    /// As [`send_raw`](Self::send_raw).
    pub async fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Sends a request and waits for its answer (the whole response message).
    ///
    /// # Errors
    ///
    /// When it cannot be sent or is not answered within the timeout.
    pub async fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.request(method, params).await?;
        self.wait_response(&id, self.timeout).await
    }

    /// Like [`call`](Self::call), but an error response is an `Err` too, naming it.
    ///
    /// # Errors
    ///
    /// As [`call`](Self::call), and when the agent answers with an error.
    pub async fn call_ok(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let response = self.call(method, params).await?;
        match response.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(format!("`{method}` failed: {}", quote(&response))),
        }
    }

    /// Waits up to `within` for the response to `id`, serving the agent meanwhile.
    ///
    /// A response that answers no request the checker sent ends the wait at once: it is the
    /// answer with a wrong id (waiting on would only find the timeout).
    ///
    /// # Errors
    ///
    /// When no answer comes in time, a response with a wrong id comes instead, or the agent's
    /// output ends first.
    pub async fn wait_response(&mut self, id: &Value, within: Duration) -> Result<Value, String> {
        let deadline = Instant::now() + within;
        let key = id_key(id);
        // Only a wrong answer that comes during this wait is taken for this request's.
        self.stray = None;
        loop {
            match self.recv(deadline).await {
                Some(r) if Kind::of(&r.message) == Some(Kind::Response) => {
                    if r.message.get("id").map(id_key).as_ref() == Some(&key) {
                        return Ok(r.message);
                    }
                    if let Some(stray) = self.stray.take() {
                        return Err(format!(
                            "no answer to request {id}: an answer came with id {stray} instead, \
                             which the checker never sent"
                        ));
                    }
                }
                Some(_) => {}
                None => return Err(self.why_no_answer(id, within)),
            }
        }
    }

    fn why_no_answer(&self, id: &Value, within: Duration) -> String {
        match &self.closed {
            Some(reason) => {
                let mut text = format!("no answer to request {id}: {reason}");
                let tail = self.stderr_tail();
                if let Some(last) = tail.last() {
                    text.push_str(&format!(" (its stderr ends: {last})"));
                }
                text
            }
            None => format!("no answer to request {id} within {within:?}"),
        }
    }

    /// Serves the agent until `deadline`, returning what it sent meanwhile.
    pub async fn drain_until(&mut self, deadline: Instant) -> Vec<Received> {
        let mut got = Vec::new();
        while let Some(r) = self.recv(deadline).await {
            got.push(r);
        }
        got
    }

    /// The next message from the agent (validated, and, for a request of the agent's, already
    /// answered unless held), or `None` at the deadline or when its output has ended.
    pub async fn recv(&mut self, deadline: Instant) -> Option<Received> {
        loop {
            if self.closed.is_some() {
                return None;
            }
            let next = async {
                tokio::select! {
                    deferred = self.deferred_rx.recv() => Err(deferred),
                    incoming = self.incoming.recv() => Ok(incoming),
                }
            };
            let item = match tokio::time::timeout_at(deadline.into(), next).await {
                Err(elapsed) => Err(elapsed),
                // An answer computed off the loop: send it, then go on waiting.
                Ok(Err(Some(response))) => {
                    let _ = self.send(&response).await;
                    continue;
                }
                Ok(Err(None)) => continue,
                Ok(Ok(incoming)) => Ok(incoming),
            };
            let incoming = match item {
                Err(_) => return None,
                Ok(None) => {
                    Incoming::Closed(format!("the {}'s output ended", self.me.peer().as_str()))
                }
                Ok(Some(IncomingBox(incoming))) => incoming,
            };
            match incoming {
                Incoming::Closed(reason) => {
                    self.closed = Some(reason);
                    return None;
                }
                Incoming::Bad(reason) => {
                    self.finding(Category::Schema, reason, None);
                }
                Incoming::Message(message) => {
                    let received = Received {
                        seq: self.seq,
                        at: Instant::now(),
                        message,
                    };
                    self.seq += 1;
                    self.handle(&received.message).await;
                    self.received.push(received.clone());
                    return Some(received);
                }
            }
        }
    }

    fn finding(&mut self, category: Category, reason: String, message: Option<&Value>) {
        self.findings.push(Finding {
            category,
            reason,
            message: message.map(quote),
        });
    }

    /// Validates one message of the agent's, matches a response to its request, serves a
    /// request.
    async fn handle(&mut self, message: &Value) {
        // An array (a JSON-RPC batch answer): its members are checked; ACP sends no batches,
        // so a request inside one is not served.
        if let Some(items) = message.as_array() {
            for item in items {
                self.check(item);
            }
            return;
        }
        // Playing the client, the checker serves the agent's requests itself; playing the
        // agent, the case answers.
        if self.check(message) == Some(Kind::Request) && self.me == Role::Client {
            self.serve(message).await;
        }
    }

    /// Matches a response to its request and validates the message; returns its kind.
    fn check(&mut self, message: &Value) -> Option<Kind> {
        let kind = Kind::of(message);
        let mut answered_method = None;
        if kind == Some(Kind::Response) {
            let key = id_key(&message["id"]);
            match self.pending.remove(&key) {
                Some(pending) => {
                    self.answered.insert(key);
                    answered_method = Some(pending.method);
                }
                None if self.answered.contains(&key) => self.finding(
                    Category::Ids,
                    format!("a second answer to request {key}"),
                    Some(message),
                ),
                // An error about a message that had no usable id (parse error, invalid request).
                None if message["id"].is_null() && message.get("error").is_some() => {}
                None => {
                    self.finding(
                        Category::Ids,
                        format!("a response to request {key}, which the checker never sent"),
                        Some(message),
                    );
                    self.stray = Some(key);
                }
            }
        }
        // The answer to `initialize` names the version the rest of the connection speaks.
        if answered_method.as_deref() == Some(acp_types::methods::agent::INITIALIZE)
            && let Some(schema) = message["result"]["protocolVersion"]
                .as_u64()
                .and_then(Schema::for_version)
        {
            self.schema = schema;
        }
        if let Err(reason) =
            self.schema
                .check_message(self.me.peer(), message, answered_method.as_deref())
        {
            self.finding(Category::Schema, reason, Some(message));
        }
        if self.me == Role::Client
            && self.schema.version() >= PROTOCOL_VERSION_2
            && kind == Some(Kind::Notification)
            && message["method"] == client::SESSION_UPDATE
            && let Some(reason) = crate::protocol::v1_update_on_v2(message)
        {
            self.finding(
                Category::Schema,
                format!("the agent sent {reason}"),
                Some(message),
            );
        }
        if self.me == Role::Client
            && self.schema.version() == PROTOCOL_VERSION
            && kind == Some(Kind::Notification)
            && message["method"] == client::SESSION_UPDATE
            && let Some(reason) =
                crate::gated::unadvertised_update(&self.client_capabilities, message)
        {
            self.finding(
                Category::Capability,
                format!("the agent sent {reason}"),
                Some(message),
            );
        }
        kind
    }

    /// Answers a request of the agent's.
    async fn serve(&mut self, request: &Value) {
        let id = request["id"].clone();
        let method = request["method"].as_str().unwrap_or_default();
        let params = &request["params"];
        let result = match method {
            client::SESSION_REQUEST_PERMISSION => match self.permission {
                PermissionPolicy::Hold => {
                    self.held.push((id, params.clone()));
                    return;
                }
                policy => Ok(permission_outcome(params, policy)),
            },
            // The client's file system and terminals are of version 1 only: on a later
            // version they are no methods (the schema's finding says so).
            _ if self.schema.version() != PROTOCOL_VERSION => {
                Err((-32601, format!("method not found: {method}")))
            }
            client::FS_READ_TEXT_FILE => self.read_file(request).await,
            client::FS_WRITE_TEXT_FILE => self.write_file(request).await,
            client::TERMINAL_CREATE => self.create_terminal(request),
            client::TERMINAL_OUTPUT => self.terminals.output(params),
            client::TERMINAL_KILL => self.terminals.kill(params),
            client::TERMINAL_RELEASE => self.terminals.release(params),
            client::TERMINAL_WAIT_FOR_EXIT => match self.terminals.wait_for_exit(params) {
                Ok(wait) => {
                    let deferred = self.deferred_tx.clone();
                    tokio::spawn(async move {
                        let _ = deferred.send(response_to(id, wait.await));
                    });
                    return;
                }
                Err(error) => Err(error),
            },
            other if crate::schema::is_extension(other) => Err((
                -32601,
                format!("`{other}` is not an extension the checker knows"),
            )),
            other => {
                let known = self.knows_method(other);
                if known {
                    self.finding(
                        Category::Capability,
                        format!("the agent called `{other}`, which the checker did not advertise"),
                        Some(request),
                    );
                }
                Err((-32601, format!("method not found: {other}")))
            }
        };
        // A failed write shows up as the agent's closed output.
        let _ = self.send(&response_to(id, result)).await;
    }

    /// `terminal/create`, its cwd (the sandbox by default) checked to be in the sandbox.
    fn create_terminal(&mut self, request: &Value) -> Answer {
        let cwd = match request["params"]["cwd"].as_str() {
            None => self.sandbox.clone(),
            Some(_) => {
                let mut as_path = request.clone();
                as_path["params"]["path"] = as_path["params"]["cwd"].take();
                self.sandboxed(&as_path)?
            }
        };
        self.terminals.create(&request["params"], &cwd)
    }

    /// Answers every held permission request `cancelled`; later ones too.
    pub async fn answer_held_cancelled(&mut self) {
        self.permission = PermissionPolicy::Cancelled;
        self.answer_held(PermissionPolicy::Cancelled).await;
    }

    /// Answers every held permission request as `policy` says (not `Hold`); the policy for
    /// later ones stays as it is.
    pub async fn answer_held(&mut self, policy: PermissionPolicy) {
        for (id, params) in std::mem::take(&mut self.held) {
            let response = response_to(id, Ok(permission_outcome(&params, policy)));
            let _ = self.send(&response).await;
        }
    }

    /// How many permission requests are held unanswered.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The sandbox path a request names, if it is absolute and inside the sandbox.
    fn sandboxed(&mut self, request: &Value) -> Result<PathBuf, (i64, String)> {
        let path = request["params"]["path"].as_str().unwrap_or_default();
        let path = Path::new(path);
        if !path.is_absolute() {
            self.finding(
                Category::Capability,
                format!("file path `{}` is not absolute", path.display()),
                Some(request),
            );
            return Err((-32602, "the path must be absolute".into()));
        }
        let inside = normalize(path).starts_with(&self.sandbox);
        if !inside {
            self.notes.push(format!(
                "refused access to {} (outside the sandbox)",
                path.display()
            ));
            return Err((
                -32002,
                format!("{} is outside the checker's sandbox", path.display()),
            ));
        }
        Ok(normalize(path))
    }

    /// The sandbox as the library serves a workspace (symbolic links resolved, sizes bounded).
    fn workspace(&self) -> Result<Workspace, (i64, String)> {
        Workspace::new(&self.sandbox).map_err(|e| {
            (
                -32603,
                format!("the sandbox {}: {e}", self.sandbox.display()),
            )
        })
    }

    /// `fs/read_text_file`, inside the sandbox.
    async fn read_file(&mut self, request: &Value) -> Answer {
        self.sandboxed(request)?;
        let read = typed_params(client::FS_READ_TEXT_FILE, &request["params"])?;
        answer(self.workspace()?.read(&read).await)
    }

    /// `fs/write_text_file`, inside the sandbox.
    async fn write_file(&mut self, request: &Value) -> Answer {
        self.sandboxed(request)?;
        let write = typed_params(client::FS_WRITE_TEXT_FILE, &request["params"])?;
        answer(self.workspace()?.write(&write).await)
    }

    /// The standard `initialize` params of the checker: fs read and write, terminals.
    pub fn initialize_params() -> Value {
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": {
                "fs": {"readTextFile": true, "writeTextFile": true},
                "terminal": true
            },
            "clientInfo": {"name": "acp-cli", "title": "acp check", "version": env!("CARGO_PKG_VERSION")}
        })
    }

    /// The `initialize` params of the checker asking for the ACP v2 draft: no optional
    /// client capability (v2 clients have no file system or terminals to offer).
    pub fn initialize_params_v2() -> Value {
        json!({
            "protocolVersion": PROTOCOL_VERSION_2,
            "capabilities": {},
            "info": {"name": "acp-cli", "title": "acp check", "version": env!("CARGO_PKG_VERSION")}
        })
    }

    /// Checks the peer's messages as protocol `version` from now on; false (and nothing
    /// changed) when this build does not know it. (Playing the client, the answer to
    /// `initialize` switches the version by itself.)
    pub fn set_protocol(&mut self, version: u64) -> bool {
        match Schema::for_version(version) {
            Some(schema) => {
                self.schema = schema;
                true
            }
            None => false,
        }
    }

    /// Whether `method` is a method of the protocol version the connection speaks.
    pub fn knows_method(&self, method: &str) -> bool {
        self.schema.validator().method(method).is_some()
    }

    /// The protocol version of the schema the agent's messages are checked against: the
    /// version its answer to `initialize` named, when this build knows it (1 before).
    pub fn protocol_version(&self) -> u64 {
        self.schema.version()
    }

    /// `initialize` with the standard params; returns the result.
    ///
    /// # Errors
    ///
    /// When it fails or is not answered.
    pub async fn initialize(&mut self) -> Result<Value, String> {
        self.call_ok(
            acp_types::methods::agent::INITIALIZE,
            Self::initialize_params(),
        )
        .await
    }

    /// `session/new` in the sandbox; returns the result.
    ///
    /// # Errors
    ///
    /// When it fails, is not answered, or has no session id.
    pub async fn new_session(&mut self) -> Result<Value, String> {
        let result = self
            .call_ok(
                acp_types::methods::agent::SESSION_NEW,
                json!({"cwd": self.sandbox, "mcpServers": []}),
            )
            .await?;
        if !result["sessionId"].is_string() {
            return Err(format!("`session/new` gave no session id: {result}"));
        }
        Ok(result)
    }

    /// The sandbox (the agent's working directory).
    pub fn sandbox(&self) -> &Path {
        &self.sandbox
    }

    /// Closes the agent's input.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits up to `within` for the peer's process to exit; serves it meanwhile.
    pub async fn wait_exit(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        // Serve until its output ends (or the deadline), then wait for the process itself.
        self.drain_until(deadline).await;
        let left = deadline.saturating_duration_since(Instant::now());
        let group = self.group.as_mut()?;
        tokio::time::timeout(left, group.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Ends the peer's process and everything it started (its process group).
    pub async fn shutdown(mut self) {
        self.stdin = None;
        if let Some(group) = &mut self.group {
            let _ = group.kill();
            let _ = tokio::time::timeout(Duration::from_secs(2), group.wait()).await;
        }
    }
}

/// A stderr sink keeping the last [`STDERR_TAIL`] lines in `tail`.
fn keep_tail(tail: &Arc<Mutex<VecDeque<String>>>) -> Stderr {
    let sink = tail.clone();
    Stderr::Lines(Arc::new(move |line: &str| {
        let mut tail = sink.lock().unwrap_or_else(PoisonError::into_inner);
        if tail.len() == STDERR_TAIL {
            tail.pop_front();
        }
        tail.push_back(shorten(line, 200));
    }))
}

/// The answer to a permission request under `policy` (not `Hold`).
fn permission_outcome(params: &Value, policy: PermissionPolicy) -> Value {
    let options = params["options"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let pick = |prefix: &str| {
        options
            .iter()
            .find(|o| o["kind"].as_str().is_some_and(|k| k.starts_with(prefix)))
    };
    let chosen = match policy {
        PermissionPolicy::Allow => pick("allow").or(options.first()),
        PermissionPolicy::Reject => pick("reject"),
        PermissionPolicy::Hold | PermissionPolicy::Cancelled => None,
    };
    match chosen.and_then(|o| o.get("optionId")) {
        Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}

/// `path` with `.` and `..` resolved lexically (no symlinks followed), for the sandbox test.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Reads frames from the peer into the channel until its output ends.
async fn read_frames<R: AsyncRead + Unpin>(
    mut frames: FramedRead<R, AnyCodec>,
    tx: mpsc::Sender<IncomingBox>,
    peer: Role,
) {
    let who = peer.as_str();
    loop {
        let item = match frames.next().await {
            None => {
                Incoming::Closed("the agent's output ended (it exited or closed stdout)".into())
            }
            Some(Err(e)) => Incoming::Closed(format!("the agent's output cannot be read: {e}")),
            Some(Ok(Frame::Message(body))) => match serde_json::from_slice::<Value>(&body) {
                Ok(value) => Incoming::Message(value),
                Err(e) => Incoming::Bad(format!(
                    "the {who} wrote something that is not JSON ({e}): {}",
                    shorten(&String::from_utf8_lossy(&body), QUOTE_LEN)
                )),
            },
            Some(Ok(Frame::Oversized { limit })) => {
                Incoming::Bad(format!("the {who} sent a message over {limit} bytes"))
            }
            Some(Ok(other)) => Incoming::Bad(format!("the {who}'s framing is broken: {other:?}")),
        };
        let end = matches!(item, Incoming::Closed(_));
        if tx.send(IncomingBox(item)).await.is_err() || end {
            return;
        }
    }
}
