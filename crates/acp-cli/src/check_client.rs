//! `acp check client`: the checker plays a scripted agent and exercises a client.
//!
//! The client is started for each case (a fresh process, in a fresh sandbox that is its
//! working directory). When its command line holds `{agent}`, that argument becomes a relay
//! command (`acp relay SOCKET`) that the client spawns as its agent, and the checker serves the
//! relayed connection; without it, the checker serves the client's own stdio. The client must
//! be scripted to initialize, open a session and send one prompt (for the example client:
//! `client --prompt hi -- {agent}`); each case's script runs during that prompt's turn.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use acp_client::ProcessGroup;
use acp_codec::FramingMode;
use acp_types::methods::{agent, client};
use serde_json::{Value, json};

use crate::check_agent::{CaseResultOf, Outcome, aggregate_cases, fail, fail_with, timed};
use crate::conn::{Category, Conn, Finding};
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
}

/// The cases, in order.
const CASES: &[&str] = &[
    "initialize",
    "session-new",
    "update-kinds",
    "unknown-update",
    "null-tolerance",
    "large-update",
    "permission",
    "fs-read",
    "fs-write",
    "terminal",
    "cancel-pending-permission",
];

const AGGREGATES: &[(&str, Category, &str)] = &[
    (
        "messages-valid",
        Category::Schema,
        "every message valid for its method and direction",
    ),
    (
        "one-answer-per-request",
        Category::Ids,
        "every answer matched to one request, none twice",
    ),
    (
        "agent-capabilities",
        Category::Capability,
        "only advertised agent methods called",
    ),
];

/// One case's client process and the connection to it.
struct Run {
    conn: Conn,
    workspace: PathBuf,
    /// The client's `initialize` params.
    init: Value,
    /// The session the client opened.
    session: String,
    /// The pending prompt's id.
    prompt: Value,
    /// Whether the client sent `session/cancel` for the session.
    cancelled: bool,
    _root: TempDir,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the check and returns its report.
pub async fn check_client(opts: ClientCheck) -> Report {
    let mut results = Vec::new();
    let mut findings: Vec<(&'static str, Finding)> = Vec::new();
    let mut messages = 0usize;
    let mut info = Vec::new();
    let total = CASES.len() + AGGREGATES.len();
    for (i, &name) in CASES.iter().enumerate() {
        if opts.progress {
            #[allow(clippy::print_stderr)] // Progress goes to stderr by design.
            {
                eprintln!("[{}/{total}] {name}", i + 1);
            }
        }
        let started = Instant::now();
        let limit = opts.timeout * 4 + opts.long_turn + Duration::from_secs(5);
        let (outcome, conn) = match tokio::time::timeout(limit, run_case(&opts, name)).await {
            Ok(pair) => pair,
            Err(_) => (
                fail(format!("the case did not finish within {limit:?}")),
                None,
            ),
        };
        if let Some(mut run) = conn {
            if name == "initialize" {
                info.push(("client".to_owned(), describe_client(&run.init)));
            }
            findings.extend(
                std::mem::take(&mut run.conn.findings)
                    .into_iter()
                    .map(|f| (name, f)),
            );
            messages += run.conn.received.len();
            run.conn.shutdown().await;
        }
        results.push(timed(name, outcome, started));
    }
    results.extend(aggregate_cases(AGGREGATES, &findings, messages, "client"));
    Report {
        subject: "client",
        command: opts.argv.join(" "),
        info,
        cases: results,
    }
}

fn describe_client(init: &Value) -> String {
    let info = &init["clientInfo"];
    let caps = &init["clientCapabilities"];
    let mut offered = Vec::new();
    if caps["fs"]["readTextFile"] == json!(true) {
        offered.push("fs read");
    }
    if caps["fs"]["writeTextFile"] == json!(true) {
        offered.push("fs write");
    }
    if caps["terminal"] == json!(true) {
        offered.push("terminal");
    }
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
async fn run_case(opts: &ClientCheck, name: &str) -> (Outcome, Option<Run>) {
    let mut run = match start(opts).await {
        Ok(run) => run,
        Err(outcome) => return (outcome, None),
    };
    let outcome = match script(opts, name, &mut run).await {
        Ok(outcome) | Err(outcome) => outcome,
    };
    // End the turn if the script did not, then let the client finish (answering what else it
    // asks) for a moment.
    if !run.prompt.is_null() {
        let stop = if run.cancelled {
            "cancelled"
        } else {
            "end_turn"
        };
        let _ = run
            .conn
            .send(&json!({"jsonrpc": "2.0", "id": run.prompt, "result": {"stopReason": stop}}))
            .await;
        run.prompt = Value::Null;
    }
    let deadline = Instant::now() + Duration::from_millis(300);
    while let Some(r) = run.conn.recv(deadline).await {
        answer(&mut run, &r.message).await;
    }
    (outcome, Some(run))
}

/// A fresh sandbox and client; served until its first prompt.
async fn start(opts: &ClientCheck) -> Result<Run, Outcome> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("acp-check-client-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let workspace = root.join("workspace");
    std::fs::create_dir_all(&workspace).map_err(|e| fail(format!("cannot make a sandbox: {e}")))?;
    let root = TempDir(root.canonicalize().map_err(|e| fail(e.to_string()))?);
    let workspace = root.0.join("workspace");
    std::fs::write(workspace.join("notes.txt"), "line one\nline two\n")
        .map_err(|e| fail(format!("cannot make a sandbox: {e}")))?;
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
        workspace,
        init: Value::Null,
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

fn spawn(cmd: &mut tokio::process::Command, program: &str) -> Result<ProcessGroup, Outcome> {
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
            Ok(json!({"protocolVersion": 1, "agentCapabilities": {},
                "agentInfo": {"name": "acp-check", "version": env!("CARGO_PKG_VERSION")}}))
        }
        agent::SESSION_NEW => {
            run.session = "acp-check-session".to_owned();
            if !params["cwd"]
                .as_str()
                .is_some_and(|c| Path::new(c).is_absolute())
            {
                run.conn.findings.push(Finding {
                    category: Category::Capability,
                    reason: "`session/new` with a cwd that is not an absolute path".into(),
                    message: Some(crate::conn::quote(message)),
                });
            }
            Ok(json!({"sessionId": run.session}))
        }
        agent::SESSION_PROMPT if run.prompt.is_null() => {
            run.prompt = id;
            return;
        }
        agent::SESSION_PROMPT => Err((-32600, "a turn is already running in this session")),
        other => {
            if crate::schema::method_schema(other).is_some() {
                run.conn.findings.push(Finding {
                    category: Category::Capability,
                    reason: format!(
                        "the client called `{other}`, which the agent did not advertise"
                    ),
                    message: Some(crate::conn::quote(message)),
                });
            }
            Err((-32601, "method not found"))
        }
    };
    let response = match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, text)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}})
        }
    };
    let _ = run.conn.send(&response).await;
}

/// Sends a request to the client and waits for its answer, answering the client meanwhile.
async fn call(run: &mut Run, method: &str, params: Value) -> Result<Value, Outcome> {
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

async fn notify_update(run: &mut Run, update: Value) -> Result<(), Outcome> {
    let params = json!({"sessionId": run.session, "update": update});
    run.conn
        .notify(client::SESSION_UPDATE, params)
        .await
        .map_err(fail)
}

/// A request the client must answer, whatever it is (an extension request it does not know:
/// an error is a fine answer): it shows the client is still connected and reading.
async fn probe(run: &mut Run, after: &str) -> Result<Value, Outcome> {
    call(run, "_acp_check/ping", json!({"after": after}))
        .await
        .map_err(|e| match e {
            Outcome::Fail(reason, m) => Outcome::Fail(format!("after {after}: {reason}"), m),
            other => other,
        })
}

fn permission_params(session: &str, call: &str) -> Value {
    json!({"sessionId": session,
    "toolCall": {"toolCallId": format!("acp-check-{call}"), "title": "Edit notes.txt", "kind": "edit"},
    "options": [
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"}
    ]})
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// Every update kind of the protocol, in a plausible order.
fn every_update_kind() -> Vec<Value> {
    vec![
        json!({"sessionUpdate": "user_message_chunk", "content": text("hi")}),
        json!({"sessionUpdate": "agent_thought_chunk", "content": text("Thinking.")}),
        json!({"sessionUpdate": "plan", "entries": [
            {"content": "Read notes.txt", "priority": "high", "status": "in_progress"}]}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "acp-check-1", "title": "Read notes.txt",
            "kind": "read", "status": "pending", "locations": [{"path": "/tmp/notes.txt", "line": 1}]}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "acp-check-1", "status": "completed",
            "content": [{"type": "content", "content": text("line one")},
                        {"type": "diff", "path": "/tmp/notes.txt", "oldText": "a", "newText": "b"}]}),
        json!({"sessionUpdate": "agent_message_chunk", "content": text("Done.")}),
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "check", "description": "Run the checks"}]}),
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "default"}),
        json!({"sessionUpdate": "config_option_update", "configOptions": []}),
        json!({"sessionUpdate": "session_info_update", "title": "A checked session"}),
        json!({"sessionUpdate": "usage_update", "used": 1000, "size": 200000}),
    ]
}

async fn script(opts: &ClientCheck, name: &str, run: &mut Run) -> CaseResultOf {
    match name {
        "initialize" => {
            let version = &run.init["protocolVersion"];
            if version != &json!(1) {
                return Err(fail(format!(
                    "the client asked for version {version}; the checker speaks 1"
                )));
            }
            Ok(Outcome::Pass(describe_client(&run.init)))
        }
        "session-new" => Ok(Outcome::Pass(format!(
            "session opened, then a prompt ({})",
            run.session
        ))),
        "update-kinds" => {
            let kinds = every_update_kind();
            let n = kinds.len();
            for update in kinds {
                notify_update(run, update).await?;
            }
            probe(run, "every update kind").await?;
            Ok(Outcome::Pass(format!(
                "{n} update kinds taken; the client still answers"
            )))
        }
        "unknown-update" => {
            notify_update(
                run,
                json!({"sessionUpdate": "acp_check_future_kind", "payload": {"x": 1}}),
            )
            .await?;
            notify_update(
                run,
                json!({"sessionUpdate": "agent_message_chunk", "acpCheckFutureField": [1, 2],
                "content": {"type": "text", "text": "unknown fields", "acpCheckFuture": true}}),
            )
            .await?;
            probe(run, "an unknown update kind and unknown fields").await?;
            Ok(Outcome::Pass(
                "an unknown update kind and unknown fields tolerated".into(),
            ))
        }
        "null-tolerance" => {
            notify_update(
                run,
                json!({"sessionUpdate": "agent_message_chunk", "_meta": null,
                "content": {"type": "text", "text": "nulls", "annotations": null, "_meta": null}}),
            )
            .await?;
            notify_update(
                run,
                json!({"sessionUpdate": "session_info_update", "title": null, "updatedAt": null}),
            )
            .await?;
            notify_update(
                run,
                json!({"sessionUpdate": "tool_call", "toolCallId": "acp-check-null", "title": "t",
                "rawInput": null, "rawOutput": null, "_meta": null}),
            )
            .await?;
            probe(run, "null where the schema allows it").await?;
            Ok(Outcome::Pass(
                "null accepted where the schema allows it".into(),
            ))
        }
        "large-update" => {
            let big = "x".repeat(1024 * 1024);
            notify_update(
                run,
                json!({"sessionUpdate": "agent_message_chunk", "content": text(&big)}),
            )
            .await?;
            probe(run, "a 1 MiB update").await?;
            Ok(Outcome::Pass("a 1 MiB update taken".into()))
        }
        "permission" => {
            let params = permission_params(&run.session, "permission");
            let response = call(run, client::SESSION_REQUEST_PERMISSION, params).await?;
            let outcome = &response["result"]["outcome"];
            match outcome["outcome"].as_str() {
                Some("selected")
                    if ["allow", "reject"]
                        .contains(&outcome["optionId"].as_str().unwrap_or_default()) =>
                {
                    Ok(Outcome::Pass(format!("answered {}", outcome["optionId"])))
                }
                Some("cancelled") => Ok(Outcome::Pass("answered cancelled".into())),
                _ => Err(fail_with(
                    "the answer names no option that was offered",
                    &response,
                )),
            }
        }
        "fs-read" => {
            if run.init["clientCapabilities"]["fs"]["readTextFile"] != json!(true) {
                return Ok(Outcome::Skip(
                    "the client does not offer fs/read_text_file".into(),
                ));
            }
            let path = run.workspace.join("notes.txt");
            let response = call(
                run,
                client::FS_READ_TEXT_FILE,
                json!({"sessionId": run.session, "path": path}),
            )
            .await?;
            match response["result"]["content"].as_str() {
                Some("line one\nline two\n") => {
                    Ok(Outcome::Pass("read the sandbox's notes.txt exactly".into()))
                }
                _ => Err(fail_with(
                    "fs/read_text_file did not return the file's content",
                    &response,
                )),
            }
        }
        "fs-write" => fs_write(run).await,
        "terminal" => terminal(run).await,
        "cancel-pending-permission" => cancel_pending_permission(opts, run).await,
        other => Err(fail(format!("no case is named `{other}`"))),
    }
}

/// Every file under `dir`, relative paths.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                out.push(rel.to_path_buf());
            }
        }
    }
    out.sort();
    out
}

async fn fs_write(run: &mut Run) -> CaseResultOf {
    if run.init["clientCapabilities"]["fs"]["writeTextFile"] != json!(true) {
        return Ok(Outcome::Skip(
            "the client does not offer fs/write_text_file".into(),
        ));
    }
    let root = run
        .workspace
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let before = files_under(&root);
    let path = run.workspace.join("written.txt");
    let content = "written by acp check\n";
    let response = call(
        run,
        client::FS_WRITE_TEXT_FILE,
        json!({"sessionId": run.session, "path": path, "content": content}),
    )
    .await?;
    if response.get("error").is_some() {
        return Err(fail_with("fs/write_text_file failed", &response));
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    let mut new: Vec<PathBuf> = files_under(&root)
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();
    new.retain(|f| f != Path::new("workspace/written.txt"));
    if let Some(stray) = new.first() {
        return Err(fail(format!(
            "the client wrote outside the requested path: {}",
            root.join(stray).display()
        )));
    }
    if written != content {
        return Err(fail(format!(
            "{} does not hold what was written",
            path.display()
        )));
    }
    Ok(Outcome::Pass(
        "wrote exactly the requested file, nothing else".into(),
    ))
}

async fn terminal(run: &mut Run) -> CaseResultOf {
    if run.init["clientCapabilities"]["terminal"] != json!(true) {
        return Ok(Outcome::Skip("the client does not offer terminals".into()));
    }
    let created = call(
        run,
        client::TERMINAL_CREATE,
        json!({"sessionId": run.session,
        "command": "echo", "args": ["acp-check"], "cwd": run.workspace}),
    )
    .await?;
    let Some(id) = created["result"]["terminalId"].as_str().map(str::to_owned) else {
        return Err(fail_with("terminal/create gave no terminal id", &created));
    };
    let params = json!({"sessionId": run.session, "terminalId": id});
    let exit = call(run, client::TERMINAL_WAIT_FOR_EXIT, params.clone()).await?;
    let output = call(run, client::TERMINAL_OUTPUT, params.clone()).await?;
    let released = call(run, client::TERMINAL_RELEASE, params).await?;
    if exit["result"]["exitCode"] != json!(0) {
        return Err(fail_with("`echo acp-check` did not exit 0", &exit));
    }
    if !output["result"]["output"]
        .as_str()
        .unwrap_or_default()
        .contains("acp-check")
    {
        return Err(fail_with(
            "the terminal's output lacks what the command printed",
            &output,
        ));
    }
    if released.get("error").is_some() {
        return Err(fail_with("terminal/release failed", &released));
    }
    Ok(Outcome::Pass(
        "create, wait_for_exit, output, release".into(),
    ))
}

async fn cancel_pending_permission(opts: &ClientCheck, run: &mut Run) -> CaseResultOf {
    let id = run
        .conn
        .request(
            client::SESSION_REQUEST_PERMISSION,
            permission_params(&run.session, "long"),
        )
        .await
        .map_err(fail)?;
    let end = Instant::now() + opts.long_turn;
    // A long turn: an update every 100 ms, the permission request left pending.
    while Instant::now() < end && !run.cancelled {
        notify_update(
            run,
            json!({"sessionUpdate": "agent_message_chunk", "content": text(".")}),
        )
        .await?;
        let tick = Instant::now() + Duration::from_millis(100);
        while let Some(r) = run.conn.recv(tick).await {
            if Kind::of(&r.message) == Some(Kind::Response) && r.message["id"] == id {
                if run.cancelled {
                    return judge_cancelled_answer(&r.message);
                }
                return Ok(Outcome::Skip(format!(
                    "the client answered the permission request before cancelling ({})",
                    r.message["result"]["outcome"]
                )));
            }
            answer(run, &r.message).await;
        }
    }
    if !run.cancelled {
        return Ok(Outcome::Skip(format!(
            "the client did not send session/cancel within {:?} (script it to cancel, e.g. the example client's --cancel-after)",
            opts.long_turn
        )));
    }
    let deadline = Instant::now() + run.conn.timeout;
    loop {
        let Some(r) = run.conn.recv(deadline).await else {
            return Err(fail(
                "after session/cancel, the pending permission request was never answered",
            ));
        };
        if Kind::of(&r.message) == Some(Kind::Response) && r.message["id"] == id {
            return judge_cancelled_answer(&r.message);
        }
        answer(run, &r.message).await;
    }
}

/// The answer to a permission request pending when the client cancelled the turn.
fn judge_cancelled_answer(response: &Value) -> CaseResultOf {
    match response["result"]["outcome"]["outcome"].as_str() {
        Some("cancelled") => Ok(Outcome::Pass(
            "session/cancel, then the pending permission request answered cancelled".into(),
        )),
        _ => Err(fail_with(
            "after session/cancel the pending permission request must be answered cancelled",
            response,
        )),
    }
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
