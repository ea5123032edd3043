//! `acp check agent`: spawns an agent and runs the conformance cases against it.
//!
//! Every case gets a fresh agent process (so no state leaks from one to the next) in a fresh
//! temporary sandbox, is bounded by timeouts, and ends with the agent's process group killed.
//! Problems that any case may run into (a schema-invalid message, a second answer, a call the
//! checker did not advertise) are reported by their own cases at the end, so that each defect
//! shows in exactly one place.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use acp_codec::FramingMode;
use acp_types::methods::{agent, client, protocol};
use serde_json::{Value, json};

use crate::conn::{Category, Conn, Finding, PeerCommand, PermissionPolicy, quote};
use crate::full;
use crate::report::{CaseResult, Report, Status};
use crate::schema::Schema;

/// Which cases to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// What every agent must do.
    #[default]
    Core,
    /// Core, and every optional feature the agent advertises.
    Full,
}

/// The settings of `acp check agent`.
#[derive(Debug, Clone)]
pub struct AgentCheck {
    /// The agent's command.
    pub command: PeerCommand,
    /// The framing to speak; `Auto` tries NDJSON, then Content-Length.
    pub framing: FramingMode,
    /// Which cases to run.
    pub profile: Profile,
    /// How long to wait for any one answer.
    pub timeout: Duration,
    /// The text of an ordinary prompt.
    pub prompt: String,
    /// The text of a prompt that keeps the agent busy for a while (for the cancellation and
    /// concurrency cases); the ordinary prompt when `None`.
    pub long_prompt: Option<String>,
    /// Print each case's name on stderr as it starts.
    pub progress: bool,
}

impl AgentCheck {
    /// Settings with the defaults: NDJSON, the core profile, a 10 s timeout.
    pub fn new(command: PeerCommand) -> Self {
        Self {
            command,
            framing: FramingMode::Ndjson,
            profile: Profile::Core,
            timeout: Duration::from_secs(10),
            prompt: DEFAULT_PROMPT.to_owned(),
            long_prompt: None,
            progress: false,
        }
    }
}

/// The default prompt text: something any agent answers with a short turn.
pub const DEFAULT_PROMPT: &str = "Hello! Please reply with one short sentence.";

/// The size of the large-prompt case's text.
const LARGE_PROMPT_LEN: usize = 1024 * 1024;

/// How long updates of a finished turn are watched for.
const LATE_UPDATE_GRACE: Duration = Duration::from_millis(500);

/// How long an agent has to exit after its stdin closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A case's outcome before it is timed.
#[derive(Debug)]
pub(crate) enum Outcome {
    Pass(String),
    Fail(String, Option<String>),
    Skip(String),
}

pub(crate) type CaseResultOf = Result<Outcome, Outcome>;

/// A failure without an offending message.
pub(crate) fn fail(reason: impl Into<String>) -> Outcome {
    Outcome::Fail(reason.into(), None)
}

/// A failure quoting the offending message.
pub(crate) fn fail_with(reason: impl Into<String>, message: &Value) -> Outcome {
    Outcome::Fail(reason.into(), Some(quote(message)))
}

/// The core cases, in order.
const CORE_CASES: &[&str] = &[
    "initialize",
    "initialize-unknown-fields",
    "version-negotiation",
    "request-before-initialize",
    "unknown-method",
    "extension-method",
    "invalid-params",
    "unknown-session",
    "invalid-json",
    "json-array",
    "request-ids",
    "session-new",
    "prompt-turn",
    "large-prompt",
    "cancel",
    "concurrent-prompt",
    "cancel-request-unknown",
    "unadvertised-methods",
    "stdin-close",
];

/// The context shared by the cases of one run.
pub(crate) struct Ctx {
    pub(crate) opts: AgentCheck,
    framing: FramingMode,
    /// The `initialize` result of the first case, for the capabilities.
    pub(crate) capabilities: Value,
}

impl Ctx {
    /// A fresh sandbox and agent process.
    pub(crate) async fn spawn(&self) -> Result<(Conn, Sandbox), Outcome> {
        let sandbox = Sandbox::new().map_err(|e| fail(format!("cannot make a sandbox: {e}")))?;
        let conn = Conn::spawn(
            &self.opts.command,
            self.framing,
            &sandbox.0,
            self.opts.timeout,
        )
        .map_err(|e| fail(format!("cannot start `{}`: {e}", self.opts.command)))?;
        Ok((conn, sandbox))
    }

    pub(crate) fn long_prompt(&self) -> &str {
        self.opts
            .long_prompt
            .as_deref()
            .unwrap_or(&self.opts.prompt)
    }
}

/// A temporary directory, the agent's working directory, removed when dropped.
#[derive(Debug)]
pub(crate) struct Sandbox(pub(crate) PathBuf);

impl Sandbox {
    fn new() -> std::io::Result<Self> {
        // Unique in the process, whatever number of checks run at once.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("acp-check-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let dir = dir.canonicalize()?;
        std::fs::write(
            dir.join("README.md"),
            "# A sandbox of `acp check`\n\nHello.\n",
        )?;
        Ok(Self(dir))
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the check and returns its report.
pub async fn check_agent(opts: AgentCheck) -> Report {
    let mut info = vec![("profile".to_owned(), profile_name(opts.profile).to_owned())];
    let framing = match opts.framing {
        FramingMode::Auto => {
            let found = detect_framing(&opts).await;
            info.push((
                "framing".to_owned(),
                format!("{} (detected)", found.as_str()),
            ));
            found
        }
        other => {
            info.push(("framing".to_owned(), other.as_str().to_owned()));
            other
        }
    };
    let mut ctx = Ctx {
        opts,
        framing,
        capabilities: Value::Null,
    };
    let mut cases: Vec<&'static str> = CORE_CASES.to_vec();
    if ctx.opts.profile == Profile::Full {
        cases.extend_from_slice(full::FULL_CASES);
    }
    let total = cases.len() + AGGREGATE_CASES.len();
    let mut results = Vec::new();
    let mut findings: Vec<(&'static str, Finding)> = Vec::new();
    let mut messages = 0usize;
    for (i, name) in cases.into_iter().enumerate() {
        if ctx.opts.progress {
            #[allow(clippy::print_stderr)] // Progress goes to stderr by design.
            {
                eprintln!("[{}/{total}] {name}", i + 1);
            }
        }
        let started = Instant::now();
        let (outcome, conn_findings, count) = run_case(&mut ctx, name).await;
        messages += count;
        findings.extend(conn_findings.into_iter().map(|f| (name, f)));
        if name == "initialize" {
            if let Outcome::Pass(detail) = &outcome {
                info.push(("agent".to_owned(), detail.clone()));
            }
        }
        results.push(timed(name, outcome, started));
    }
    results.extend(aggregate_cases(
        AGGREGATE_CASES,
        &findings,
        messages,
        "agent",
    ));
    Report {
        subject: "agent",
        command: ctx.opts.command.to_string(),
        info,
        cases: results,
    }
}

/// The cases that report what any case ran into: each `(name, category, what it checks)` passes
/// when no finding of its category was made, and otherwise fails naming the first.
pub(crate) fn aggregate_cases(
    cases: &[(&'static str, Category, &str)],
    findings: &[(&'static str, Finding)],
    messages: usize,
    peer: &str,
) -> Vec<CaseResult> {
    cases
        .iter()
        .map(|&(name, category, what)| {
            let started = Instant::now();
            let mut mine = findings.iter().filter(|(_, f)| f.category == category);
            let outcome = match mine.next() {
                None => Outcome::Pass(format!("{what} ({messages} messages from the {peer})")),
                Some((case, first)) => Outcome::Fail(
                    format!(
                        "{} problem(s); first, in case `{case}`: {}",
                        mine.count() + 1,
                        first.reason
                    ),
                    first.message.clone(),
                ),
            };
            timed(name, outcome, started)
        })
        .collect()
}

const AGGREGATE_CASES: &[(&str, Category, &str)] = &[
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
        "client-capabilities",
        Category::Capability,
        "only advertised client methods called, absolute paths",
    ),
];

fn profile_name(profile: Profile) -> &'static str {
    match profile {
        Profile::Core => "core",
        Profile::Full => "full",
    }
}

pub(crate) fn timed(name: &'static str, outcome: Outcome, started: Instant) -> CaseResult {
    let (status, detail, message) = match outcome {
        Outcome::Pass(d) => (Status::Pass, d, None),
        Outcome::Fail(d, m) => (Status::Fail, d, m),
        Outcome::Skip(d) => (Status::Skip, d, None),
    };
    CaseResult {
        name,
        status,
        detail,
        message,
        elapsed: started.elapsed(),
    }
}

/// Runs one case on a fresh agent; returns its outcome, the findings and the message count.
async fn run_case(ctx: &mut Ctx, name: &'static str) -> (Outcome, Vec<Finding>, usize) {
    let (mut conn, sandbox) = match ctx.spawn().await {
        Ok(pair) => pair,
        Err(outcome) => return (outcome, Vec::new(), 0),
    };
    // Every wait inside is bounded by the timeout; this bounds the case as a whole.
    let limit = ctx.opts.timeout * 6 + Duration::from_secs(5);
    let outcome = match tokio::time::timeout(limit, dispatch(ctx, name, &mut conn)).await {
        Ok(Ok(outcome) | Err(outcome)) => outcome,
        Err(_) => fail(format!("the case did not finish within {limit:?}")),
    };
    let findings = std::mem::take(&mut conn.findings);
    let count = conn.received.len();
    conn.shutdown().await;
    drop(sandbox);
    (outcome, findings, count)
}

async fn dispatch(ctx: &mut Ctx, name: &str, c: &mut Conn) -> CaseResultOf {
    match name {
        "initialize" => {
            let result = initialize(c).await;
            if let Ok(Outcome::Pass(_)) = &result {
                // Keep the capabilities for the cases that depend on them.
                if let Some(r) = c.received.iter().find(|r| r.message["id"] == json!(0)) {
                    ctx.capabilities = r.message["result"]["agentCapabilities"].clone();
                }
            }
            result
        }
        "initialize-unknown-fields" => initialize_unknown_fields(c).await,
        "version-negotiation" => version_negotiation(c).await,
        "request-before-initialize" => request_before_initialize(c).await,
        "unknown-method" => unknown_method(c).await,
        "extension-method" => extension_method(c).await,
        "invalid-params" => invalid_params(c).await,
        "unknown-session" => unknown_session(ctx, c).await,
        "invalid-json" => invalid_json(c).await,
        "json-array" => json_array(c).await,
        "request-ids" => request_ids(c).await,
        "session-new" => session_new(c).await,
        "prompt-turn" => prompt_turn(ctx, c).await,
        "large-prompt" => large_prompt(c).await,
        "cancel" => cancel(ctx, c).await,
        "concurrent-prompt" => concurrent_prompt(ctx, c).await,
        "cancel-request-unknown" => cancel_request_unknown(c).await,
        "unadvertised-methods" => unadvertised_methods(ctx, c).await,
        "stdin-close" => stdin_close(c).await,
        other => full::dispatch(ctx, other, c).await,
    }
}

/// Initializes and opens a session; returns the session id.
pub(crate) async fn ready(c: &mut Conn) -> Result<String, Outcome> {
    c.initialize().await.map_err(fail)?;
    let session = c.new_session().await.map_err(fail)?;
    Ok(session["sessionId"].as_str().unwrap_or_default().to_owned())
}

/// The error code of a response, if it is an error.
pub(crate) fn error_code(response: &Value) -> Option<i64> {
    response.get("error").and_then(|e| e["code"].as_i64())
}

/// A prompt request's params.
pub(crate) fn prompt_params(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// Checks that the connection still works: a `session/new` is answered with a session.
pub(crate) async fn still_works(c: &mut Conn, after: &str) -> Result<(), Outcome> {
    c.new_session()
        .await
        .map(drop)
        .map_err(|e| fail(format!("the connection broke after {after}: {e}")))
}

async fn initialize(c: &mut Conn) -> CaseResultOf {
    let result = c.initialize().await.map_err(fail)?;
    Schema::embedded()
        .check_def("InitializeResponse", &result)
        .map_err(|e| {
            fail_with(
                format!("the capabilities are not well-formed: {e}"),
                &result,
            )
        })?;
    let version = &result["protocolVersion"];
    if version != &json!(crate::conn::PROTOCOL_VERSION) {
        return Err(fail_with(
            format!(
                "asked for version 1 (which it must then support or answer with its latest), got {version}"
            ),
            &result,
        ));
    }
    let name = match &result["agentInfo"] {
        Value::Object(info) => format!(
            "{} {}",
            info.get("name").and_then(Value::as_str).unwrap_or("?"),
            info.get("version").and_then(Value::as_str).unwrap_or("")
        ),
        _ => "no agentInfo".to_owned(),
    };
    let caps = advertised(&result["agentCapabilities"]);
    Ok(Outcome::Pass(format!(
        "version 1, {}; advertises: {}",
        name.trim(),
        if caps.is_empty() {
            "nothing optional".to_owned()
        } else {
            caps.join(", ")
        }
    )))
}

/// The optional features an `agentCapabilities` object advertises.
pub(crate) fn advertised(caps: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if caps["loadSession"] == json!(true) {
        out.push("load".to_owned());
    }
    if let Some(session) = caps["sessionCapabilities"].as_object() {
        for (k, v) in session {
            if v.is_object() {
                out.push(k.clone());
            }
        }
    }
    for (k, v) in caps["promptCapabilities"].as_object().into_iter().flatten() {
        if v == &json!(true) {
            out.push(format!("prompt:{k}"));
        }
    }
    for (k, v) in caps["mcpCapabilities"].as_object().into_iter().flatten() {
        if v == &json!(true) {
            out.push(format!("mcp:{k}"));
        }
    }
    out
}

async fn initialize_unknown_fields(c: &mut Conn) -> CaseResultOf {
    let mut params = Conn::initialize_params();
    params["acpCliUnknownField"] = json!({"nested": [1, 2, 3]});
    params["clientCapabilities"]["acpCliFutureCapability"] = json!({"enabled": true});
    params["clientCapabilities"]["fs"]["acpCliFutureFs"] = json!(true);
    params["_meta"] = json!({"acp-cli": {"probe": true}});
    c.call_ok(agent::INITIALIZE, params).await.map_err(|e| {
        fail(format!(
            "unknown fields in `initialize` were not tolerated: {e}"
        ))
    })?;
    Ok(Outcome::Pass(
        "extra fields at three depths and _meta accepted".into(),
    ))
}

async fn version_negotiation(c: &mut Conn) -> CaseResultOf {
    let mut params = Conn::initialize_params();
    params["protocolVersion"] = json!(65535);
    let result = c.call_ok(agent::INITIALIZE, params).await.map_err(fail)?;
    match result["protocolVersion"].as_u64() {
        Some(65535) => Err(fail_with(
            "asked for version 65535 (which does not exist) and the agent claimed to support it",
            &result,
        )),
        Some(v) => Ok(Outcome::Pass(format!(
            "asked for 65535, answered {v} (its latest)"
        ))),
        None => Err(fail_with("no protocolVersion in the answer", &result)),
    }
}

async fn request_before_initialize(c: &mut Conn) -> CaseResultOf {
    let cwd = c.sandbox().to_path_buf();
    let response = c
        .call(agent::SESSION_NEW, json!({"cwd": cwd, "mcpServers": []}))
        .await
        .map_err(fail)?;
    let what = match error_code(&response) {
        Some(code) => format!("refused with error {code}"),
        None => "accepted (the agent does not require initialize first)".to_owned(),
    };
    c.initialize()
        .await
        .map_err(|e| fail(format!("`initialize` failed after an early request: {e}")))?;
    Ok(Outcome::Pass(format!(
        "`session/new` before `initialize`: {what}; `initialize` then worked"
    )))
}

async fn expect_error(
    c: &mut Conn,
    method: &str,
    params: Value,
    code: i64,
) -> Result<Value, Outcome> {
    let response = c.call(method, params).await.map_err(fail)?;
    match error_code(&response) {
        Some(got) if got == code => Ok(response),
        Some(got) => Err(fail_with(
            format!("expected error {code}, got {got}"),
            &response,
        )),
        None => Err(fail_with(
            format!("expected error {code}, got a result"),
            &response,
        )),
    }
}

async fn unknown_method(c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    expect_error(c, "session/acp_cli_no_such_method", json!({}), -32601).await?;
    still_works(c, "an unknown method").await?;
    Ok(Outcome::Pass("-32601, and the connection goes on".into()))
}

async fn extension_method(c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    c.notify("_acp_cli/notice", json!({"probe": true}))
        .await
        .map_err(fail)?;
    let response = c
        .call("_acp_cli/probe", json!({"probe": true}))
        .await
        .map_err(fail)?;
    let what = match error_code(&response) {
        None => "answered with a result".to_owned(),
        Some(-32601) => "answered -32601 (unknown extension)".to_owned(),
        Some(code) => {
            return Err(fail_with(
                format!("an unknown extension request must get -32601, got {code}"),
                &response,
            ));
        }
    };
    still_works(c, "an extension notification and request").await?;
    Ok(Outcome::Pass(format!(
        "`_` notification ignored; `_` request {what}"
    )))
}

async fn invalid_params(c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    expect_error(
        c,
        agent::SESSION_NEW,
        json!({"cwd": 42, "mcpServers": "none"}),
        -32602,
    )
    .await?;
    still_works(c, "invalid params").await?;
    Ok(Outcome::Pass(
        "`session/new` with a numeric cwd: -32602".into(),
    ))
}

async fn unknown_session(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    let response = c
        .call(
            agent::SESSION_PROMPT,
            prompt_params("acp-cli-no-such-session", &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    match error_code(&response) {
        Some(code) => Ok(Outcome::Pass(format!(
            "a prompt for an unknown session: error {code}"
        ))),
        None => Err(fail_with(
            "a prompt for an unknown session succeeded",
            &response,
        )),
    }
}

async fn invalid_json(c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    c.send_raw(br#"{"jsonrpc": "2.0", "id": 99, "method": "session/new", "params": {"#)
        .await
        .map_err(fail)?;
    let deadline = Instant::now() + c.timeout;
    let mut error = None;
    while let Some(r) = c.recv(deadline).await {
        if r.message.get("error").is_some() && r.message["id"].is_null() {
            error = Some(r.message);
            break;
        }
    }
    let Some(error) = error else {
        if let Some(reason) = c.closed() {
            return Err(fail(format!("the agent died on invalid JSON: {reason}")));
        }
        return Err(fail("no -32700 error (with a null id) for invalid JSON"));
    };
    if error_code(&error) != Some(-32700) {
        return Err(fail_with("invalid JSON must be answered -32700", &error));
    }
    still_works(c, "invalid JSON").await?;
    Ok(Outcome::Pass(
        "-32700 with a null id, and the connection goes on".into(),
    ))
}

async fn json_array(c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    let cwd = c.sandbox().to_path_buf();
    let batch = json!([{"jsonrpc": "2.0", "id": "acp-cli-batch", "method": agent::SESSION_NEW,
        "params": {"cwd": cwd, "mcpServers": []}}]);
    c.send_raw(batch.to_string().as_bytes())
        .await
        .map_err(fail)?;
    let deadline = Instant::now() + c.timeout;
    let mut what = None;
    while let Some(r) = c.recv(deadline).await {
        let m = &r.message;
        if m.is_array() {
            what = Some("answered with an array (a JSON-RPC batch)".to_owned());
            break;
        }
        if m["id"] == json!("acp-cli-batch") {
            what = Some("answered the element as a request".to_owned());
            break;
        }
        if m["id"].is_null() && m.get("error").is_some() {
            what = Some(format!(
                "refused with error {}",
                error_code(m).unwrap_or_default()
            ));
            break;
        }
    }
    let Some(what) = what else {
        if let Some(reason) = c.closed() {
            return Err(fail(format!("the agent died on a JSON array: {reason}")));
        }
        return Err(fail(
            "a JSON array got no answer (an error with a null id, or a batch answer)",
        ));
    };
    still_works(c, "a JSON array").await?;
    Ok(Outcome::Pass(format!("{what}; the connection goes on")))
}

async fn request_ids(c: &mut Conn) -> CaseResultOf {
    let string_id = json!("acp-cli/ïd 1 \"quoted\"");
    let int_id = json!(9_007_199_254_740_991_i64);
    c.request_with_id(
        string_id.clone(),
        agent::INITIALIZE,
        Conn::initialize_params(),
    )
    .await
    .map_err(fail)?;
    let first = next_response(c).await?;
    if first["id"] != string_id {
        return Err(fail_with(
            format!("string id {string_id} not echoed exactly"),
            &first,
        ));
    }
    let cwd = c.sandbox().to_path_buf();
    c.request_with_id(
        int_id.clone(),
        agent::SESSION_NEW,
        json!({"cwd": cwd, "mcpServers": []}),
    )
    .await
    .map_err(fail)?;
    let second = next_response(c).await?;
    if second["id"] != int_id {
        return Err(fail_with(
            format!("integer id {int_id} not echoed exactly"),
            &second,
        ));
    }
    Ok(Outcome::Pass(format!(
        "{string_id} and {int_id} echoed exactly"
    )))
}

async fn next_response(c: &mut Conn) -> Result<Value, Outcome> {
    let deadline = Instant::now() + c.timeout;
    while let Some(r) = c.recv(deadline).await {
        if r.message.get("method").is_none() && r.message.get("id").is_some() {
            return Ok(r.message);
        }
    }
    Err(fail(c.closed().map_or_else(
        || format!("no answer within {:?}", c.timeout),
        |reason| format!("no answer: {reason}"),
    )))
}

async fn session_new(c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    let session = c.new_session().await.map_err(fail)?;
    let mut extras = Vec::new();
    if session["modes"].is_object() {
        extras.push("modes");
    }
    if session["configOptions"].is_array() {
        extras.push("config options");
    }
    Ok(Outcome::Pass(format!(
        "session {} in an absolute cwd{}",
        session["sessionId"],
        if extras.is_empty() {
            String::new()
        } else {
            format!(", with {}", extras.join(" and "))
        }
    )))
}

/// The `session/update`s of `session` among `received`, with their positions.
pub(crate) fn updates_of<'a>(
    received: &'a [crate::conn::Received],
    session: &'a str,
) -> impl Iterator<Item = &'a crate::conn::Received> + 'a {
    received.iter().filter(move |r| {
        r.message["method"] == json!(client::SESSION_UPDATE)
            && r.message["params"]["sessionId"] == json!(session)
    })
}

async fn prompt_turn(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
    let session = ready(c).await?;
    let id = c
        .request(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    let response = c.wait_response(&id, c.timeout * 3).await.map_err(fail)?;
    let stop = response["result"]["stopReason"].clone();
    if stop != json!("end_turn") {
        return Err(fail_with(
            format!("the turn ended with {stop}, not \"end_turn\""),
            &response,
        ));
    }
    let answered_at = c.received.len();
    c.drain_until(Instant::now() + LATE_UPDATE_GRACE).await;
    let before = updates_of(&c.received[..answered_at], &session).count();
    if let Some(late) = updates_of(&c.received[answered_at..], &session).next() {
        return Err(fail_with(
            "a session/update of the turn arrived after the prompt's response",
            &late.message,
        ));
    }
    Ok(Outcome::Pass(format!(
        "end_turn; {before} update(s), all before the response"
    )))
}

async fn large_prompt(c: &mut Conn) -> CaseResultOf {
    let session = ready(c).await?;
    // Permission requests are allowed in `prompt-turn`, answered `cancelled` in `cancel`, and
    // rejected here, so that an agent that asks meets each answer.
    c.permission = PermissionPolicy::Reject;
    let mut text = String::with_capacity(LARGE_PROMPT_LEN);
    while text.len() < LARGE_PROMPT_LEN {
        text.push_str("The quick brown fox jumps over the lazy dog. ");
    }
    text.truncate(LARGE_PROMPT_LEN);
    let id = c
        .request(agent::SESSION_PROMPT, prompt_params(&session, &text))
        .await
        .map_err(fail)?;
    let response = c.wait_response(&id, c.timeout * 3).await.map_err(fail)?;
    let what = match error_code(&response) {
        Some(code) => format!("refused with error {code}"),
        None => format!("ended {}", response["result"]["stopReason"]),
    };
    still_works(c, "a 1 MiB prompt").await?;
    Ok(Outcome::Pass(format!(
        "a 1 MiB prompt {what}; the connection goes on"
    )))
}

async fn cancel(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
    let session = ready(c).await?;
    c.permission = PermissionPolicy::Hold;
    let id = c
        .request(
            agent::SESSION_PROMPT,
            prompt_params(&session, ctx.long_prompt()),
        )
        .await
        .map_err(fail)?;
    // Cancel once the turn shows it is under way: an update or a request of the agent's, or
    // a short while.
    let deadline = Instant::now() + Duration::from_millis(300);
    while let Some(r) = c.recv(deadline).await {
        if r.message["id"] == id && r.message.get("method").is_none() {
            return Ok(Outcome::Skip(
                "the turn ended before it could be cancelled (give a longer one with --long-prompt)"
                    .into(),
            ));
        }
        if r.message.get("method").is_some() {
            break;
        }
    }
    c.notify(agent::SESSION_CANCEL, json!({"sessionId": session}))
        .await
        .map_err(fail)?;
    let held = c.held();
    c.answer_held_cancelled().await;
    let response = c.wait_response(&id, c.timeout).await.map_err(fail)?;
    let stop = &response["result"]["stopReason"];
    if stop != &json!("cancelled") {
        return Err(fail_with(
            format!("after session/cancel the turn must end \"cancelled\", it ended {stop}"),
            &response,
        ));
    }
    c.permission = PermissionPolicy::Allow;
    let again = c
        .call(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(|e| fail(format!("the session did not work after the cancel: {e}")))?;
    if again.get("result").is_none() {
        return Err(fail_with(
            "the session did not work after the cancel",
            &again,
        ));
    }
    Ok(Outcome::Pass(format!(
        "\"cancelled\"; {held} pending permission request(s) answered cancelled; the session works afterwards"
    )))
}

async fn concurrent_prompt(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
    let session = ready(c).await?;
    let first = c
        .request(
            agent::SESSION_PROMPT,
            prompt_params(&session, ctx.long_prompt()),
        )
        .await
        .map_err(fail)?;
    let second = c
        .request(
            agent::SESSION_PROMPT,
            prompt_params(&session, &ctx.opts.prompt),
        )
        .await
        .map_err(fail)?;
    let deadline = Instant::now() + c.timeout * 3;
    let (mut a, mut b) = (None, None);
    while a.is_none() || b.is_none() {
        let Some(r) = c.recv(deadline).await else {
            break;
        };
        if r.message.get("method").is_some() {
            continue;
        }
        if r.message["id"] == first {
            a = Some(r.message);
        } else if r.message["id"] == second {
            b = Some(r.message);
            if a.is_none() {
                // The second is settled: let the first end soon.
                let _ = c
                    .notify(agent::SESSION_CANCEL, json!({"sessionId": session}))
                    .await;
            }
        }
    }
    let describe = |m: &Option<Value>| match m {
        None => "no answer".to_owned(),
        Some(m) => match error_code(m) {
            Some(code) => format!("error {code}"),
            None => format!("{}", m["result"]["stopReason"]),
        },
    };
    if a.is_none() || b.is_none() {
        return Err(fail(format!(
            "each prompt needs one answer: the first got {}, the second {}",
            describe(&a),
            describe(&b)
        )));
    }
    Ok(Outcome::Pass(format!(
        "a second prompt during a turn: first {}, second {}",
        describe(&a),
        describe(&b)
    )))
}

async fn cancel_request_unknown(c: &mut Conn) -> CaseResultOf {
    c.initialize().await.map_err(fail)?;
    c.notify(
        protocol::CANCEL_REQUEST,
        json!({"requestId": "acp-cli-never-sent"}),
    )
    .await
    .map_err(fail)?;
    still_works(c, "`$/cancel_request` for an unknown id").await?;
    if let Some(r) = c
        .received
        .iter()
        .find(|r| r.message.get("method").is_none() && r.message["id"].is_null())
    {
        return Err(fail_with("a notification was answered", &r.message));
    }
    Ok(Outcome::Pass("ignored; the connection goes on".into()))
}

async fn unadvertised_methods(ctx: &Ctx, c: &mut Conn) -> CaseResultOf {
    let session = ready(c).await?;
    let caps = &ctx.capabilities;
    let cwd = c.sandbox().to_path_buf();
    let session_caps = &caps["sessionCapabilities"];
    let mut probes: Vec<(&str, Value)> = Vec::new();
    if caps["loadSession"] != json!(true) {
        probes.push((
            agent::SESSION_LOAD,
            json!({"sessionId": session, "cwd": cwd, "mcpServers": []}),
        ));
    }
    for (cap, method, params) in [
        ("list", agent::SESSION_LIST, json!({})),
        (
            "resume",
            agent::SESSION_RESUME,
            json!({"sessionId": session, "cwd": cwd}),
        ),
        ("close", agent::SESSION_CLOSE, json!({"sessionId": session})),
        (
            "delete",
            agent::SESSION_DELETE,
            json!({"sessionId": session}),
        ),
    ] {
        if !session_caps[cap].is_object() {
            probes.push((method, params));
        }
    }
    if probes.is_empty() {
        return Ok(Outcome::Skip(
            "the agent advertises every optional session method".into(),
        ));
    }
    let mut refused = Vec::new();
    for (method, params) in probes {
        let response = c.call(method, params).await.map_err(fail)?;
        match error_code(&response) {
            Some(code) => refused.push(format!("{method} ({code})")),
            None => {
                return Err(fail_with(
                    format!("`{method}` is not advertised but succeeded"),
                    &response,
                ));
            }
        }
    }
    Ok(Outcome::Pass(format!("refused: {}", refused.join(", "))))
}

async fn stdin_close(c: &mut Conn) -> CaseResultOf {
    ready(c).await?;
    c.close_stdin();
    let started = Instant::now();
    match c.wait_exit(EXIT_GRACE).await {
        Some(status) => Ok(Outcome::Pass(format!(
            "exited {:.0?} after stdin closed ({status})",
            started.elapsed()
        ))),
        None => Err(fail(format!(
            "still running {EXIT_GRACE:?} after its stdin closed"
        ))),
    }
}

/// Finds the agent's framing: an `initialize` in NDJSON, else in Content-Length.
async fn detect_framing(opts: &AgentCheck) -> FramingMode {
    let probe = Duration::from_secs(5).min(opts.timeout);
    for mode in [FramingMode::Ndjson, FramingMode::ContentLength] {
        let ctx = Ctx {
            opts: AgentCheck {
                timeout: probe,
                ..opts.clone()
            },
            framing: mode,
            capabilities: Value::Null,
        };
        if let Ok((mut c, _sandbox)) = ctx.spawn().await {
            let ok = c.initialize().await.is_ok();
            c.shutdown().await;
            if ok {
                return mode;
            }
        }
    }
    FramingMode::Ndjson
}
