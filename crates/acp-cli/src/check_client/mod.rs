//! `acp check client`: the checker plays a scripted agent and exercises a client.
//!
//! The client is started for each case (a fresh process, in a fresh sandbox that is its
//! working directory). When its command line holds `{agent}`, that argument becomes a relay
//! command (`acp relay SOCKET`) that the client spawns as its agent, and the checker serves the
//! relayed connection; without it, the checker serves the client's own stdio. The client must
//! be scripted to initialize, open a session and send one prompt (for the example client:
//! `client --prompt hi -- {agent}`); each case's script runs during that prompt's turn.
//!
//! The cases are the table of `cases.rs` (version 1) and, with the feature
//! `unstable_protocol_v2`, of `v2_cases.rs` (the ACP v2 draft: the checker answers
//! `initialize` with 2, acknowledges the prompt with a `messageId` and reports the turn with
//! `state_update`s, ending it with `idle`); [`Protocol`] chooses which run. This module starts
//! the client and plays the agent around them.

mod cases;
mod fixture;
#[cfg(feature = "unstable_protocol_v2")]
mod v2_cases;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use acp_client::ProcessGroup;
use acp_codec::FramingMode;
use acp_types::ClientCapabilities;
use acp_types::capabilities::client_allows;
use acp_types::methods::{agent, client};
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::answer::response_to;
use crate::case::{Case, Stop, Tally, Verdict, fail, skip};
use crate::conn::{Category, Conn, Finding, PROTOCOL_VERSION, PROTOCOL_VERSION_2};
pub use crate::protocol::Protocol;
use crate::report::Report;
use crate::schema::{Kind, Role};

/// The placeholder of the client's command line that becomes the agent's command.
pub const AGENT_PLACEHOLDER: &str = "{agent}";

/// The settings of `acp check client`.
#[derive(Debug, Clone)]
pub struct ClientCheck {
    /// The client's command line (program first), with [`AGENT_PLACEHOLDER`] where its agent
    /// command goes, or without it to be served on its stdio.
    pub argv: Vec<String>,
    /// The relay command that replaces the placeholder; the socket path is appended.
    pub relay: Vec<String>,
    /// How long to wait for any one answer or step of the client's.
    pub timeout: Duration,
    /// How long the long turn of the cancellation case lasts.
    pub long_turn: Duration,
    /// Print each case's name on stderr as it starts.
    pub progress: bool,
    /// The protocol versions to play (v2 needs the feature `unstable_protocol_v2`).
    pub protocol: Protocol,
}

/// One case's client process and the connection to it.
struct Run {
    conn: Conn,
    /// The protocol version the checker answers `initialize` with.
    version: u64,
    /// v2: the `messageId` the prompt was acknowledged with.
    user_message: String,
    /// The working directory the client gave its session (absolute), where the file and
    /// terminal cases work: a client may confine its agent to it.
    cwd: Option<PathBuf>,
    /// The client's `initialize` params.
    init: Value,
    /// Its `clientCapabilities` (`None`: nothing offered, or not well-formed).
    caps: Option<ClientCapabilities>,
    /// The session the client opened.
    session: String,
    /// The pending prompt's id.
    prompt: Value,
    /// Whether the client sent `session/cancel` for the session.
    cancelled: bool,
    _root: TempDir,
}

impl Run {
    /// A skip unless the client offers `method` (by the capability table of
    /// `acp_types::capabilities`); `what` names it in the skip.
    fn offers(&self, method: &str, what: &str) -> Result<(), Stop> {
        client_allows(self.caps.as_ref(), method)
            .map_err(|_| skip(format!("the client does not offer {what}")))
    }

    /// The session's working directory, or a skip when the client gave none.
    fn cwd(&self) -> Result<PathBuf, Stop> {
        self.cwd
            .clone()
            .ok_or_else(|| skip("the client's `session/new` gave no absolute cwd to work in"))
    }
}

/// The sandbox of one case's client, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The function of a client case: it runs during the client's first prompt turn.
type CaseFn = for<'a> fn(&'a ClientCheck, &'a mut Run) -> BoxFuture<'a, Verdict>;

/// Runs the check and returns its report.
pub async fn check_client(opts: ClientCheck) -> Report {
    let mut info = Vec::new();
    if opts.protocol != Protocol::V1 {
        info.push(("protocol".to_owned(), opts.protocol.as_str().to_owned()));
    }
    let v1 = opts.protocol.v1_cases(cases::CASES);
    #[cfg(feature = "unstable_protocol_v2")]
    let v2 = opts.protocol.v2_cases(v2_cases::CASES);
    #[cfg(not(feature = "unstable_protocol_v2"))]
    let v2: &[Case<CaseFn>] = &[];
    let all = v1
        .iter()
        .map(|case| (case, PROTOCOL_VERSION))
        .chain(v2.iter().map(|case| (case, PROTOCOL_VERSION_2)));
    let mut tally = Tally::new(v1.len() + v2.len(), opts.progress);
    for (case, version) in all {
        let started = tally.start(case.name);
        let limit = opts.timeout * 4 + opts.long_turn + Duration::from_secs(5);
        let run = run_case(&opts, case, version);
        let (verdict, run) = match tokio::time::timeout(limit, run).await {
            Ok(pair) => pair,
            Err(_) => (
                Err(fail(format!("the case did not finish within {limit:?}"))),
                None,
            ),
        };
        match run {
            Some(mut run) => {
                if !info.iter().any(|(key, _)| key == "client") && !run.init.is_null() {
                    info.push(("client".to_owned(), describe_client(&run)));
                }
                tally.record(case.name, verdict, started, Some(&mut run.conn));
                run.conn.shutdown().await;
            }
            None => tally.record(case.name, verdict, started, None),
        }
    }
    Report {
        subject: "client",
        command: opts.argv.join(" "),
        info,
        cases: tally.finish(Role::Client),
    }
}

/// What the client says of itself in `initialize`, for the report.
fn describe_client(run: &Run) -> String {
    let info = match &run.init["clientInfo"] {
        Value::Null => &run.init["info"],
        info => info,
    };
    let offered: Vec<&str> = [
        (client::FS_READ_TEXT_FILE, "fs read"),
        (client::FS_WRITE_TEXT_FILE, "fs write"),
        (client::TERMINAL_CREATE, "terminal"),
    ]
    .into_iter()
    .filter(|(method, _)| client_allows(run.caps.as_ref(), method).is_ok())
    .map(|(_, what)| what)
    .collect();
    format!(
        "{} {}; offers: {}",
        info["name"].as_str().unwrap_or("(no clientInfo)"),
        info["version"].as_str().unwrap_or(""),
        if offered.is_empty() {
            "nothing optional".to_owned()
        } else {
            offered.join(", ")
        }
    )
}

/// Starts the client, serves it up to its first prompt, runs the case's script in that turn.
async fn run_case(opts: &ClientCheck, case: &Case<CaseFn>, version: u64) -> (Verdict, Option<Run>) {
    let mut run = match start(opts, version).await {
        Ok(run) => run,
        Err(stop) => return (Err(stop), None),
    };
    let verdict = (case.run)(opts, &mut run).await;
    // End the turn if the script did not, then let the client finish (answering what else it
    // asks) for a moment.
    if !run.prompt.is_null() {
        let stop = if run.cancelled {
            "cancelled"
        } else {
            "end_turn"
        };
        // v2 acknowledged the prompt already: the turn ends with `idle`.
        let end = if run.version == PROTOCOL_VERSION {
            json!({"jsonrpc": "2.0", "id": run.prompt, "result": {"stopReason": stop}})
        } else {
            json!({"jsonrpc": "2.0", "method": client::SESSION_UPDATE, "params": {
                "sessionId": run.session,
                "update": {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop}}})
        };
        let _ = run.conn.send(&end).await;
        run.prompt = Value::Null;
    }
    let deadline = Instant::now() + Duration::from_millis(300);
    while let Some(r) = run.conn.recv(deadline).await {
        answer(&mut run, &r.message).await;
    }
    (verdict, Some(run))
}

/// A fresh sandbox and client; served until its first prompt.
async fn start(opts: &ClientCheck, version: u64) -> Result<Run, Stop> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("acp-check-client-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let workspace = root.join("workspace");
    std::fs::create_dir_all(&workspace).map_err(|e| fail(format!("cannot make a sandbox: {e}")))?;
    let root = TempDir(root.canonicalize().map_err(|e| fail(e.to_string()))?);
    let workspace = root.0.join("workspace");
    let (program, args) = opts
        .argv
        .split_first()
        .ok_or_else(|| fail("no client command"))?;
    let socket = root.0.join("agent.sock");
    let relayed = args.iter().any(|a| a == AGENT_PLACEHOLDER);
    let mut argv = Vec::new();
    for arg in args {
        if arg == AGENT_PLACEHOLDER {
            argv.extend(opts.relay.iter().cloned());
            argv.push(socket.to_string_lossy().into_owned());
        } else {
            argv.push(arg.clone());
        }
    }
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(&argv)
        .current_dir(&workspace)
        .stderr(Stdio::piped());
    let conn = if relayed {
        #[cfg(unix)]
        {
            let listener = tokio::net::UnixListener::bind(&socket)
                .map_err(|e| fail(format!("cannot listen on {}: {e}", socket.display())))?;
            cmd.stdin(Stdio::null()).stdout(Stdio::piped());
            let mut group = spawn(&mut cmd, program)?;
            let stdout = group.child().stdout.take().expect("stdout is piped");
            tokio::spawn(drain(stdout));
            let stderr = group.child().stderr.take().expect("stderr is piped");
            let accepted = tokio::time::timeout(opts.timeout, listener.accept()).await;
            let Ok(Ok((stream, _))) = accepted else {
                return Err(fail(format!(
                    "the client did not start its agent within {:?}",
                    opts.timeout
                )));
            };
            let (reader, writer) = stream.into_split();
            serve(reader, writer, stderr, group, &workspace, opts.timeout)
        }
        #[cfg(not(unix))]
        {
            return Err(fail(
                "`{agent}` needs Unix sockets; serve the client's stdio instead",
            ));
        }
    } else {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut group = spawn(&mut cmd, program)?;
        let stdin = group.child().stdin.take().expect("stdin is piped");
        let stdout = group.child().stdout.take().expect("stdout is piped");
        let stderr = group.child().stderr.take().expect("stderr is piped");
        serve(stdout, stdin, stderr, group, &workspace, opts.timeout)
    };
    let mut run = Run {
        conn,
        version,
        user_message: String::new(),
        cwd: None,
        init: Value::Null,
        caps: None,
        session: String::new(),
        prompt: Value::Null,
        cancelled: false,
        _root: root,
    };
    let deadline = Instant::now() + opts.timeout;
    while run.prompt.is_null() {
        let Some(r) = run.conn.recv(deadline).await else {
            let why = run.conn.closed().map_or_else(
                || {
                    format!(
                        "the client sent no prompt within {:?} (script it to send one)",
                        opts.timeout
                    )
                },
                |reason| format!("the client sent no prompt: {reason}"),
            );
            return Err(fail(why));
        };
        answer(&mut run, &r.message).await;
    }
    Ok(run)
}

/// The checker's `initialize` answer as an agent of `version`.
fn initialized(version: u64) -> Value {
    let info = json!({"name": "acp-check", "version": env!("CARGO_PKG_VERSION")});
    if version == PROTOCOL_VERSION {
        json!({"protocolVersion": version, "agentCapabilities": {}, "agentInfo": info})
    } else {
        json!({"protocolVersion": version, "capabilities": {"session": {}}, "info": info})
    }
}

/// The checker's end, playing the agent, of a connection to the client `group`.
fn serve(
    reader: impl tokio::io::AsyncRead + Send + Unpin + 'static,
    writer: impl tokio::io::AsyncWrite + Send + Unpin + 'static,
    stderr: tokio::process::ChildStderr,
    group: ProcessGroup,
    workspace: &Path,
    timeout: Duration,
) -> Conn {
    let mut conn = Conn::over(
        Role::Agent,
        reader,
        writer,
        FramingMode::Ndjson,
        workspace,
        timeout,
    );
    conn.keep_stderr_tail(stderr);
    conn.attach(group);
    conn
}

fn spawn(cmd: &mut tokio::process::Command, program: &str) -> Result<ProcessGroup, Stop> {
    ProcessGroup::spawn(cmd).map_err(|e| fail(format!("cannot start `{program}`: {e}")))
}

async fn drain(mut out: impl tokio::io::AsyncRead + Unpin) {
    let _ = tokio::io::copy(&mut out, &mut tokio::io::sink()).await;
}

/// The scripted agent's answer to a message of the client's (requests answered, a cancel
/// noted).
async fn answer(run: &mut Run, message: &Value) {
    let method = message["method"].as_str().unwrap_or_default();
    if Kind::of(message) == Some(Kind::Notification) {
        if method == agent::SESSION_CANCEL {
            run.cancelled = true;
        }
        return;
    }
    if Kind::of(message) != Some(Kind::Request) {
        return;
    }
    let id = message["id"].clone();
    let params = &message["params"];
    let result = match method {
        agent::INITIALIZE => {
            run.init = params.clone();
            // Decoded once; the cases ask `acp_types::capabilities` what it allows.
            run.caps = ClientCapabilities::deserialize(&params["clientCapabilities"]).ok();
            let answer = response_to(id, Ok(initialized(run.version)));
            let _ = run.conn.send(&answer).await;
            // From the answer on, the client speaks the version it names.
            run.conn.set_protocol(run.version);
            return;
        }
        agent::SESSION_NEW => {
            run.session = "acp-check-session".to_owned();
            run.cwd = params["cwd"]
                .as_str()
                .map(PathBuf::from)
                .filter(|cwd| cwd.is_absolute());
            if run.cwd.is_none() {
                run.conn.findings.push(Finding {
                    category: Category::Capability,
                    reason: "`session/new` with a cwd that is not an absolute path".into(),
                    message: Some(crate::conn::quote(message)),
                });
            }
            Ok(json!({"sessionId": run.session}))
        }
        agent::SESSION_PROMPT if run.prompt.is_null() && run.version != PROTOCOL_VERSION => {
            // v2: acknowledged at once, the user message placed, the turn running.
            run.prompt = id.clone();
            run.user_message = "acp-check-user-1".to_owned();
            let ack = response_to(id, Ok(json!({"messageId": run.user_message})));
            let _ = run.conn.send(&ack).await;
            let content = params["prompt"].clone();
            let user = json!({"sessionUpdate": "user_message",
                "messageId": run.user_message, "content": content});
            let _ = notify_update(run, user).await;
            let running = json!({"sessionUpdate": "state_update", "state": "running"});
            let _ = notify_update(run, running).await;
            return;
        }
        agent::SESSION_PROMPT if run.prompt.is_null() => {
            run.prompt = id;
            return;
        }
        agent::SESSION_PROMPT => Err((
            -32600,
            "a turn is already running in this session".to_owned(),
        )),
        other => {
            if run.conn.knows_method(other) {
                run.conn.findings.push(Finding {
                    category: Category::Capability,
                    reason: format!(
                        "the client called `{other}`, which the agent did not advertise"
                    ),
                    message: Some(crate::conn::quote(message)),
                });
            }
            Err((-32601, "method not found".to_owned()))
        }
    };
    let _ = run.conn.send(&response_to(id, result)).await;
}

/// Sends a request to the client and waits for its answer, answering the client meanwhile.
async fn call(run: &mut Run, method: &str, params: Value) -> Result<Value, Stop> {
    let id = run.conn.request(method, params).await.map_err(fail)?;
    let deadline = Instant::now() + run.conn.timeout;
    loop {
        let Some(r) = run.conn.recv(deadline).await else {
            return Err(fail(run.conn.closed().map_or_else(
                || {
                    format!(
                        "the client did not answer `{method}` within {:?}",
                        run.conn.timeout
                    )
                },
                |reason| format!("the client did not answer `{method}`: {reason}"),
            )));
        };
        if Kind::of(&r.message) == Some(Kind::Response) && r.message["id"] == id {
            return Ok(r.message);
        }
        answer(run, &r.message).await;
    }
}

async fn notify_update(run: &mut Run, update: Value) -> Result<(), Stop> {
    let params = json!({"sessionId": run.session, "update": update});
    run.conn
        .notify(client::SESSION_UPDATE, params)
        .await
        .map_err(fail)
}

/// A request the client must answer, whatever it is (an extension request it does not know:
/// an error is a fine answer): it shows the client is still connected and reading.
async fn probe(run: &mut Run, after: &str) -> Result<Value, Stop> {
    call(run, "_acp_check/ping", json!({"after": after}))
        .await
        .map_err(|stop| match stop {
            Stop::Fail { reason, message } => Stop::Fail {
                reason: format!("after {after}: {reason}"),
                message,
            },
            skip => skip,
        })
}

/// `acp relay SOCKET`: connects to the checker's socket and relays stdio to it, both ways,
/// until either side ends. This is the command that replaces `{agent}`.
///
/// # Errors
///
/// When the socket cannot be reached.
#[cfg(unix)]
pub async fn relay(socket: &Path) -> std::io::Result<()> {
    let stream = tokio::net::UnixStream::connect(socket).await?;
    let (mut from_checker, mut to_checker) = stream.into_split();
    let up = async {
        let _ = tokio::io::copy(&mut tokio::io::stdin(), &mut to_checker).await;
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut to_checker).await;
    };
    let down = async {
        let mut stdout = tokio::io::stdout();
        let _ = tokio::io::copy(&mut from_checker, &mut stdout).await;
        let _ = tokio::io::AsyncWriteExt::flush(&mut stdout).await;
    };
    // The session is over when the checker closes its end.
    tokio::select! {
        () = down => {}
        () = async { up.await; std::future::pending::<()>().await } => {}
    }
    Ok(())
}
