//! The client's driver: initialize, open a session, then run prompts and client commands.

use std::sync::Arc;
use std::time::Duration;

use acp_client::AgentHandle;
use acp_types::*;
use serde_json::json;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::auth::{self, Kind, Login, Method};
use super::output::options_line;
use super::{Options, Shared};

mod commands;
mod content;
#[cfg(feature = "unstable")]
mod draft;
#[cfg(feature = "unstable_protocol_v2")]
mod v2;

use content::{attachment, kind_of};

/// Whether to go on after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Quit,
}

/// When to cancel a prompt turn.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CancelWhen {
    Never,
    After(Duration),
    /// After this many message chunks (the demo tour: deterministic).
    AfterChunks(u64),
}

/// How long to wait, once the connection closed, for the agent's exit to be noticed (so that
/// the error can say how it ended).
const EXIT_NOTICE: Duration = Duration::from_secs(1);

/// Why a call to the agent failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The agent answered with an error, or the connection failed or closed.
    Call(acp_client::Error),
    /// The agent did not answer within `--timeout`.
    Timeout(Duration),
    /// The turn did not end within `--timeout` after `session/cancel`.
    TurnNotEnded(Duration),
    /// The client is stopping (a signal): the call was given up.
    Interrupted,
    /// The client refused to make the call, for the reason given (e.g. `--auth` names a method
    /// the agent does not offer).
    Refused(String),
}

impl From<acp_client::Error> for Failure {
    fn from(error: acp_client::Error) -> Self {
        Failure::Call(error)
    }
}

pub(crate) struct Runner {
    agent: AgentHandle,
    shared: Arc<Shared>,
    session: Option<SessionId>,
    failures: u32,
    cancel_after: Option<Duration>,
    /// `--timeout`: how long to wait for an answer, or for a cancelled turn to end.
    timeout: Option<Duration>,
    /// How the agent (or the remote connection) ended, once it did.
    exit: Option<watch::Receiver<Option<String>>>,
    /// Set once a call found the agent gone: no further step runs.
    gone: bool,
    /// Keyboard lines, in interactive mode.
    input: Option<mpsc::Receiver<String>>,
    /// The agent's authentication methods (from `initialize`).
    auth_methods: Vec<Method>,
    /// `--auth`: the method to sign in with.
    auth: Option<String>,
    /// The agent command, for a `terminal` method's login.
    agent_command: Option<(String, Vec<String>)>,
    /// A `terminal` method's login to run before connecting again.
    login: Option<Login>,
    /// Set once the terminal login succeeded: the new connection does not sign in again.
    logged_in: bool,
    /// The sessions this client started (`:new`, `:fork`), oldest first: `#1`, `#2`... in
    /// commands. The agent's ids are random, so a script cannot know them in advance.
    started: Vec<SessionId>,
    /// The v2 calls, once `initialize` negotiated v2.
    #[cfg(feature = "unstable_protocol_v2")]
    v2: Option<acp_client::v2::AgentHandle>,
}

impl Runner {
    pub(crate) fn new(
        agent: AgentHandle,
        shared: Arc<Shared>,
        options: &Options,
        exit: Option<watch::Receiver<Option<String>>>,
    ) -> Self {
        Self {
            agent,
            shared,
            session: None,
            failures: 0,
            cancel_after: options.cancel_after,
            timeout: options.request_timeout(),
            exit,
            gone: false,
            input: None,
            auth_methods: Vec::new(),
            auth: options.auth.clone(),
            agent_command: options
                .agent_command()
                .map(|(program, args)| (program.clone(), args.to_vec())),
            login: None,
            logged_in: false,
            started: Vec::new(),
            #[cfg(feature = "unstable_protocol_v2")]
            v2: None,
        }
    }

    /// True once `initialize` negotiated ACP v2.
    pub(crate) fn is_v2(&self) -> bool {
        #[cfg(feature = "unstable_protocol_v2")]
        return self.v2.is_some();
        #[cfg(not(feature = "unstable_protocol_v2"))]
        false
    }

    /// The terminal login that `start` asked for (a `--auth` method of kind `terminal`): the
    /// caller closes the connection, runs it, and connects again ([`Runner::reconnect`]).
    pub(crate) fn take_login(&mut self) -> Option<Login> {
        self.login.take()
    }

    /// Goes on with a new connection to the agent, after the terminal login: the next `start`
    /// initializes it and opens the session without signing in again.
    pub(crate) fn reconnect(
        &mut self,
        agent: AgentHandle,
        exit: Option<watch::Receiver<Option<String>>>,
    ) {
        self.agent = agent;
        self.exit = exit;
        self.gone = false;
        self.logged_in = true;
        #[cfg(feature = "unstable_protocol_v2")]
        {
            self.v2 = None;
        }
    }

    /// Counts and reports a failure of the client's own (`during` names the step).
    pub(crate) async fn refuse(&mut self, during: &str, message: String) {
        self.fail(during, &Failure::Refused(message)).await;
    }

    /// Awaits a call to the agent within `--timeout`, giving up if the client is stopping.
    pub(crate) async fn call<T>(
        &self,
        call: impl Future<Output = Result<T, acp_client::Error>>,
    ) -> Result<T, Failure> {
        let limited = async {
            match self.timeout {
                Some(limit) => match tokio::time::timeout(limit, call).await {
                    Ok(result) => Ok(result?),
                    Err(_) => Err(Failure::Timeout(limit)),
                },
                None => Ok(call.await?),
            }
        };
        tokio::select! {
            result = limited => result,
            () = self.shared.stopped() => Err(Failure::Interrupted),
        }
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }

    fn cwd(&self) -> String {
        self.shared.workspace.root().display().to_string()
    }

    /// `initialize`, `session/new`, and `--mode`; false if the session could not start.
    pub(crate) async fn start(&mut self, options: &Options) -> bool {
        // Offer only what will be served: `--read-only` refuses every write, so it must not
        // advertise writing (the agent then proposes edits instead of failing them).
        let caps = ClientCapabilities::new()
            .fs(FileSystemCapabilities::new()
                .read_text_file(!options.no_fs)
                .write_text_file(!options.no_fs && !options.read_only))
            .terminal(!options.no_terminal)
            // A terminal login reruns the agent command: only a spawned agent has one.
            .auth(AuthCapabilities::new().terminal(!options.agent.is_empty()))
            .session(
                ClientSessionCapabilities::new()
                    .config_options(
                        SessionConfigOptionsCapabilities::new()
                            .boolean(BooleanConfigOptionCapabilities::new()),
                    )
                    // It shows compactions and notices (see `output.rs`) unless told not to.
                    .maybe(
                        (!options.no_compaction).then(CompactionCapabilities::new),
                        ClientSessionCapabilities::compaction,
                    )
                    .maybe(
                        (!options.no_notices).then(NoticeCapabilities::new),
                        ClientSessionCapabilities::notices,
                    ),
            );
        #[cfg(feature = "unstable")]
        let caps = draft::advertise(caps, options.draft);
        let request = InitializeRequest::new(ProtocolVersion::LATEST)
            .client_capabilities(caps)
            .client_info(
                Implementation::new("acp-demo-client", env!("CARGO_PKG_VERSION"))
                    .title("ACP example client"),
            );
        #[cfg(feature = "unstable_protocol_v2")]
        if options.protocol_version() == 2 {
            return self.start_negotiating(options, request).await;
        }
        let response = match self.call(self.agent.initialize(request)).await {
            Ok(response) => response,
            Err(failure) => {
                self.fail("initialize", &failure).await;
                return false;
            }
        };
        // A build that could speak v2 says that v1 was asked for (`--protocol 1`).
        #[cfg(feature = "unstable_protocol_v2")]
        self.shared.output.event(
            json!({ "event": "negotiated", "protocolVersion": response.protocol_version }),
            Some(self.shared.output.style().dim(&format!(
                "negotiated ACP v{} (asked for v1 only: --protocol 1)",
                response.protocol_version
            ))),
        );
        self.started(options, response).await
    }

    /// After a v1 `initialize`: shows the agent, signs in if asked, opens the session and
    /// sets `--mode`; false if the session could not start.
    async fn started(&mut self, options: &Options, response: InitializeResponse) -> bool {
        let out = &self.shared.output;
        let name = response.agent_info.as_ref().map_or_else(
            || "the agent".to_owned(),
            |i| format!("{} {}", i.title.as_deref().unwrap_or(&i.name), i.version),
        );
        self.auth_methods = auth::methods(response.auth_methods.as_deref().unwrap_or_default());
        let mut human = format!(
            "Connected to {} (protocol version {}).\n  It offers: {}.",
            out.style().bold(&name),
            response.protocol_version,
            offers(response.agent_capabilities.as_ref())
        );
        if !self.auth_methods.is_empty() {
            human.push_str("\n  Sign-in methods (--auth ID):");
            human.push_str(&auth::lines(&self.auth_methods, "    "));
        }
        out.event(
            json!({
                "event": "initialized",
                "protocolVersion": response.protocol_version,
                "agentInfo": response.agent_info,
                "agentCapabilities": response.agent_capabilities,
                "authMethods": response.auth_methods,
            }),
            Some(human),
        );
        if let Some(id) = self.auth.clone() {
            if !self.sign_in(&id).await {
                return false;
            }
        }
        if !self.new_session().await {
            return false;
        }
        if let Some(mode) = &options.mode {
            return self.command(&format!(":mode {mode}")).await == Some(true);
        }
        true
    }

    /// Signs in with the `--auth` method `id`; false when that failed, or when a terminal
    /// login must run first (then [`Runner::take_login`] has it).
    async fn sign_in(&mut self, id: &str) -> bool {
        let Some(method) = self.auth_methods.iter().find(|m| m.id == id).cloned() else {
            let offered: Vec<&str> = self.auth_methods.iter().map(|m| m.id.as_str()).collect();
            let offered = match offered.is_empty() {
                true => "it offers none".to_owned(),
                false => format!("it offers: {}", offered.join(", ")),
            };
            self.refuse(
                "authenticate",
                format!("the agent offers no sign-in method `{id}` ({offered})"),
            )
            .await;
            return false;
        };
        match &method.kind {
            Kind::Agent => {}
            Kind::Terminal { args, env } => {
                // Signed in on the terminal: the spec forbids `authenticate` for the method.
                if self.logged_in {
                    return true;
                }
                let Some(command) = &self.agent_command else {
                    self.refuse(
                        "authenticate",
                        format!(
                            "`{id}` is a terminal login, which runs the agent's command: it \
                             needs an agent command (`-- CMD`), not --url or the built-in agent"
                        ),
                    )
                    .await;
                    return false;
                };
                self.login = Some(Login::new(id, command, args, env));
                return false;
            }
            Kind::EnvVar(vars) => {
                if self.agent_command.is_none() {
                    self.refuse(
                        "authenticate",
                        format!(
                            "`{id}` takes credentials from environment variables of the agent's \
                             process: it needs an agent command (`-- CMD`) started by this client"
                        ),
                    )
                    .await;
                    return false;
                }
                let missing = auth::missing_vars(vars);
                if !missing.is_empty() {
                    self.refuse(
                        "authenticate",
                        format!(
                            "`{id}` reads its credentials from the environment: set {} (the \
                             agent inherits the client's environment)",
                            missing.join(", ")
                        ),
                    )
                    .await;
                    return false;
                }
            }
            Kind::Unknown(kind) => {
                self.refuse(
                    "authenticate",
                    format!(
                        "`{id}` is a sign-in method of a kind this client does not know (`{kind}`)"
                    ),
                )
                .await;
                return false;
            }
        }
        let request = AuthenticateRequest::new(id);
        match self.call(self.agent.authenticate(request)).await {
            Ok(_) => {
                let out = &self.shared.output;
                out.event(
                    json!({ "event": "authenticated", "methodId": id, "kind": method.kind.name() }),
                    Some(
                        out.style()
                            .dim(&format!("  Signed in with {id} ({}).", method.name)),
                    ),
                );
                true
            }
            Err(failure) => self.fail("authenticate", &failure).await,
        }
    }

    /// After `auth_required`: the sign-in methods, and how to choose one.
    fn auth_hint(&self) {
        let out = &self.shared.output;
        let methods = &self.auth_methods;
        let human = match (methods.first(), self.auth.is_some()) {
            (None, _) => "The agent asks to sign in but offers no sign-in method.".to_owned(),
            (Some(_), true) => format!(
                "The agent still asks to sign in. Its methods:{}",
                auth::lines(methods, "  ")
            ),
            (Some(first), false) => format!(
                "The agent asks to sign in. Its methods:{}\n\
                 Run again with --auth ID (e.g. --auth {}).",
                auth::lines(methods, "  "),
                first.id
            ),
        };
        // With the error, on stderr (and in the transcript).
        out.error(
            json!({ "event": "auth_required", "methods": auth::to_json(methods) }),
            &human,
        );
    }

    /// Emits the final event; true when every step succeeded.
    pub(crate) fn finish(&self) -> bool {
        let ok = self.failures == 0;
        self.shared.output.event(
            json!({ "event": "done", "ok": ok, "failures": self.failures }),
            None,
        );
        ok
    }

    /// One step: a client command (`:...`) or a prompt.
    pub(crate) async fn step(&mut self, text: &str) -> Flow {
        self.step_with(text, CancelWhen::Never).await
    }

    pub(crate) async fn step_with(&mut self, text: &str, cancel: CancelWhen) -> Flow {
        if self.gone || self.shared.stop_requested() {
            return Flow::Quit;
        }
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Flow::Continue;
        }
        if let Some(literal) = trimmed.strip_prefix("::") {
            self.prompt(&format!(":{literal}"), cancel).await;
        } else if trimmed.starts_with(':') {
            if matches!(trimmed, ":quit" | ":q" | ":exit") {
                return Flow::Quit;
            }
            if self.input.is_none() {
                // Scripted: show the command, as a prompt is shown.
                let out = &self.shared.output;
                out.event(
                    json!({ "event": "command", "text": trimmed }),
                    Some(format!("\n{}", out.style().bold(&format!("> {trimmed}")))),
                );
            }
            self.command(trimmed).await;
        } else {
            self.prompt(text, cancel).await;
        }
        Flow::Continue
    }

    /// Reads prompts from the keyboard until `:quit` or the end of input.
    pub(crate) async fn interactive(&mut self) {
        let (tx, rx) = mpsc::channel(16);
        // Standard input blocks; a plain thread reads it (and ends with the process).
        std::thread::spawn(move || {
            for line in std::io::stdin().lines() {
                let Ok(line) = line else { break };
                if tx.blocking_send(line).is_err() {
                    break;
                }
            }
        });
        self.input = Some(rx);
        let out = &self.shared.output;
        out.event(
            json!({ "event": "interactive" }),
            Some(out.style().dim(
                "Type a prompt (`help` asks the agent what it can do), `:help` for client \
                 commands, `:quit` to leave. `:cancel` stops a running turn.",
            )),
        );
        loop {
            self.shared
                .output
                .ask(&self.shared.output.style().bold("> "));
            let keyboard = async {
                match self.input.as_mut() {
                    Some(input) => input.recv().await,
                    None => None,
                }
            };
            let line = tokio::select! {
                line = keyboard => line,
                () = self.shared.stopped() => None,
            };
            self.shared.output.answered();
            let Some(line) = line else { break };
            // `:quit`, a signal, or the agent is gone.
            if self.step(&line).await == Flow::Quit || self.gone {
                break;
            }
        }
    }

    async fn new_session(&mut self) -> bool {
        #[cfg(feature = "unstable_protocol_v2")]
        if let Some(v2) = self.v2.clone() {
            return self.new_session_v2(&v2).await;
        }
        let request = NewSessionRequest::new(self.cwd(), Vec::<McpServer>::new());
        match self.call(self.agent.new_session(request)).await {
            Ok(response) => {
                let id = response.session_id.clone();
                self.remember(&id, response.config_options.clone());
                self.session = Some(id.clone());
                self.started.push(id.clone());
                let out = &self.shared.output;
                let mut human = format!(
                    "Session {} started in {}.",
                    out.style().bold(id.as_str()),
                    self.cwd()
                );
                if let Some(modes) = &response.modes {
                    let ids: Vec<String> = modes
                        .available_modes
                        .iter()
                        .map(|m| {
                            if m.id == modes.current_mode_id {
                                format!("{} (current)", m.id)
                            } else {
                                m.id.to_string()
                            }
                        })
                        .collect();
                    human.push_str(&format!("\n  Modes: {}", ids.join(", ")));
                }
                if let Some(options) = &response.config_options {
                    human.push_str(&format!("\n  Options: {}", options_line(options)));
                }
                out.event(
                    json!({
                        "event": "session_new",
                        "sessionId": id,
                        "modes": response.modes,
                        "configOptions": response.config_options,
                    }),
                    Some(human),
                );
                true
            }
            Err(failure) => {
                let auth_required = matches!(&failure, Failure::Call(error)
                    if error.remote().is_some_and(|e| e.code == ErrorCode::AUTH_REQUIRED));
                self.fail("session/new", &failure).await;
                if auth_required {
                    self.auth_hint();
                }
                false
            }
        }
    }

    fn remember(&self, id: &SessionId, options: Option<Vec<SessionConfigOption>>) {
        if let Some(options) = options {
            self.shared.set_options(id, options);
        }
    }

    /// Sends a prompt and waits for the turn to end, cancelling it as `cancel` (or
    /// `--cancel-after`, or `:cancel` at the keyboard) says.
    async fn prompt(&mut self, text: &str, cancel: CancelWhen) {
        let Some(session) = self.session.clone() else {
            let message = "no current session (:new creates one)";
            self.failures += 1;
            self.shared.output.error(
                json!({ "event": "error", "during": "session/prompt", "message": message }),
                &format!("error: {message}"),
            );
            return;
        };
        let blocks = self.blocks(text);
        let out = &self.shared.output;
        let s = out.style();
        let kinds: Vec<&str> = blocks.iter().map(kind_of).collect();
        let mut human = format!("\n{}", s.bold(&format!("> {text}")));
        for block in blocks.iter().skip(1) {
            human.push_str(&s.dim(&format!("\n  + attached {}", attachment(block))));
        }
        out.event(
            json!({ "event": "prompt", "sessionId": session, "text": text, "blocks": kinds }),
            Some(human),
        );
        let cancel = match (cancel, self.cancel_after) {
            (CancelWhen::Never, Some(after)) => CancelWhen::After(after),
            (cancel, _) => cancel,
        };
        self.shared.reset_chunks();
        let agent = self.turn();
        let shared = self.shared.clone();
        let mut input = self.input.take();
        let mut prompt = agent.prompt(session.clone(), blocks);
        // When the turn was cancelled: it then has `--timeout` to end.
        let mut cancelled: Option<Instant> = None;
        let timeout = self.timeout;
        let result = loop {
            let trigger = async {
                match cancel {
                    _ if cancelled.is_some() => std::future::pending().await,
                    CancelWhen::Never => std::future::pending().await,
                    CancelWhen::After(after) => tokio::time::sleep(after).await,
                    CancelWhen::AfterChunks(n) => shared.chunks_reached(n).await,
                }
            };
            let give_up = async {
                match (cancelled, timeout) {
                    (Some(at), Some(limit)) => tokio::time::sleep_until(at + limit).await,
                    _ => std::future::pending().await,
                }
            };
            tokio::select! {
                result = &mut prompt => break result,
                () = give_up => break Err(Failure::TurnNotEnded(timeout.unwrap_or_default())),
                // A signal: cancel the turn, and let it end (the caller bounds the wait).
                () = shared.stopped(), if cancelled.is_none() => {
                    cancelled = Some(Instant::now());
                    send_cancel(&agent, &shared, &session).await;
                }
                () = trigger => {
                    cancelled = Some(Instant::now());
                    send_cancel(&agent, &shared, &session).await;
                }
                line = next_line(&mut input) => match line {
                    Some(line) => {
                        if shared.answer(line.clone()) {
                            continue;
                        }
                        if line.trim() == ":cancel" && cancelled.is_none() {
                            cancelled = Some(Instant::now());
                            send_cancel(&agent, &shared, &session).await;
                        } else {
                            shared.output.event(
                                json!({ "event": "note", "text": "a turn is running" }),
                                Some(s.dim("  (a turn is running: `:cancel` stops it)")),
                            );
                        }
                    }
                    // The keyboard is gone: stop the turn rather than wait for answers.
                    None => {
                        input = None;
                        if cancelled.is_none() {
                            cancelled = Some(Instant::now());
                            send_cancel(&agent, &shared, &session).await;
                        }
                    }
                },
            }
        };
        self.input = input;
        match result {
            Ok(response) => {
                let reason = response.reason;
                #[cfg(not(feature = "unstable"))]
                self.shared.output.event(
                    json!({ "event": "prompt_result", "sessionId": session, "stopReason": reason }),
                    Some(s.dim(&format!("  [turn ended: {reason}]"))),
                );
                #[cfg(feature = "unstable")]
                self.shared.output.event(
                    json!({
                        "event": "prompt_result",
                        "sessionId": session,
                        "stopReason": reason,
                        "usage": response.usage,
                    }),
                    Some(s.dim(&format!(
                        "  [turn ended: {reason}{}]",
                        draft::usage_text(response.usage.as_ref())
                    ))),
                );
            }
            Err(failure) => {
                self.fail("session/prompt", &failure).await;
            }
        }
    }

    /// Reports a failed call; returns false (for `?`-less chaining). A call given up because
    /// the client is stopping is not reported (the signal was).
    pub(crate) async fn fail(&mut self, during: &str, failure: &Failure) -> bool {
        let (code, message, data, shown) = match failure {
            Failure::Call(error) => match error.remote() {
                Some(remote) => (
                    Some(remote.code),
                    remote.message.clone(),
                    remote.data.clone(),
                    remote.to_string(),
                ),
                None => {
                    let gone =
                        matches!(error, acp_client::Error::Rpc(e) if e.is_connection_closed());
                    let how = match gone {
                        true => self.agent_exit().await,
                        false => None,
                    };
                    self.gone |= gone;
                    let message = match how {
                        Some(how) => format!("{error}: {how}"),
                        None => error.to_string(),
                    };
                    (None, message.clone(), None, message)
                }
            },
            Failure::Timeout(limit) => {
                let message =
                    format!("the agent did not answer {during} within {limit:?} (see --timeout)");
                (None, message.clone(), None, message)
            }
            Failure::TurnNotEnded(limit) => {
                let message = format!(
                    "the agent did not end the turn within {limit:?} of session/cancel \
                     (see --timeout)"
                );
                (None, message.clone(), None, message)
            }
            Failure::Interrupted => return false,
            Failure::Refused(message) => (None, message.clone(), None, message.clone()),
        };
        self.failures += 1;
        let out = &self.shared.output;
        out.error(
            json!({ "event": "error", "during": during, "code": code, "message": message, "data": data }),
            &format!("error: {during} failed: {shown}"),
        );
        false
    }

    /// How the spawned agent ended, or why the remote connection did, if it did (waiting a
    /// moment for its end to be noticed: the connection closes as the agent exits).
    async fn agent_exit(&self) -> Option<String> {
        let mut exit = self.exit.clone()?;
        let seen = tokio::time::timeout(EXIT_NOTICE, exit.wait_for(Option::is_some))
            .await
            .ok()?
            .ok()?;
        seen.clone()
    }
}

/// How a prompt turn ended, in either version: its stop reason (and, with the draft features,
/// the token usage of a v1 turn).
pub(super) struct TurnEnded {
    pub(super) reason: String,
    #[cfg(feature = "unstable")]
    pub(super) usage: Option<Usage>,
}

/// The calls of a prompt turn, in the protocol version the connection speaks.
#[derive(Clone)]
struct Turn {
    agent: AgentHandle,
    #[cfg(feature = "unstable_protocol_v2")]
    v2: Option<acp_client::v2::AgentHandle>,
}

/// A running prompt turn.
type TurnFuture = std::pin::Pin<Box<dyn Future<Output = Result<TurnEnded, Failure>> + Send>>;

impl Turn {
    /// Sends the prompt; the future ends with the turn.
    fn prompt(&self, session: SessionId, blocks: Vec<ContentBlock>) -> TurnFuture {
        #[cfg(feature = "unstable_protocol_v2")]
        if let Some(v2) = self.v2.clone() {
            return Box::pin(v2::prompt(v2, session, blocks));
        }
        let agent = self.agent.clone();
        Box::pin(async move {
            let response = agent.prompt(PromptRequest::new(session, blocks)).await?;
            Ok(TurnEnded {
                reason: response.stop_reason.as_str().to_owned(),
                #[cfg(feature = "unstable")]
                usage: response.usage,
            })
        })
    }

    /// `session/cancel` (on v2, the turn ends with the `idle` that confirms it).
    async fn cancel(&self, session: &SessionId) {
        #[cfg(feature = "unstable_protocol_v2")]
        if let Some(v2) = &self.v2 {
            v2::cancel(v2, session);
            return;
        }
        let _ = self
            .agent
            .cancel(CancelNotification::new(session.clone()))
            .await;
    }
}

impl Runner {
    /// The calls of a prompt turn on this connection.
    fn turn(&self) -> Turn {
        Turn {
            agent: self.agent.clone(),
            #[cfg(feature = "unstable_protocol_v2")]
            v2: self.v2.clone(),
        }
    }
}

async fn send_cancel(agent: &Turn, shared: &Shared, session: &SessionId) {
    let out = &shared.output;
    out.event(
        json!({ "event": "cancel", "sessionId": session }),
        Some(
            out.style()
                .yellow("  [cancelling the turn: session/cancel]"),
        ),
    );
    // A pending keyboard question is answered `cancelled` by the library; drop ours.
    let _ = shared.answer(String::new());
    agent.cancel(session).await;
}

async fn next_line(input: &mut Option<mpsc::Receiver<String>>) -> Option<String> {
    match input {
        Some(input) => input.recv().await,
        None => std::future::pending().await,
    }
}

/// What the agent offers, in a few words.
fn offers(caps: Option<&AgentCapabilities>) -> String {
    let Some(caps) = caps else {
        return "nothing beyond the basics".to_owned();
    };
    let mut offers = Vec::new();
    let prompt = caps.prompt_capabilities.clone().unwrap_or_default();
    for (flag, name) in [
        (prompt.image, "images"),
        (prompt.audio, "audio"),
        (prompt.embedded_context, "embedded files"),
    ] {
        if flag == Some(true) {
            offers.push(format!("{name} in prompts"));
        }
    }
    if caps.load_session == Some(true) {
        offers.push("session/load".to_owned());
    }
    if let Some(session) = &caps.session_capabilities {
        for (present, name) in [
            (session.list.is_some(), "list"),
            (session.resume.is_some(), "resume"),
            (session.close.is_some(), "close"),
            (session.delete.is_some(), "delete"),
        ] {
            if present {
                offers.push(format!("session/{name}"));
            }
        }
    }
    #[cfg(feature = "unstable")]
    offers.extend(draft::offers(caps));
    if offers.is_empty() {
        "nothing beyond the basics".to_owned()
    } else {
        offers.join(", ")
    }
}
