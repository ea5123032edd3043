//! The scripted test agent: a complete [`Agent`] whose prompt turns follow the scripts of
//! [`crate::script`], with sessions that can be listed, loaded, resumed, closed and deleted.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use acp_agent::{Agent, ClientHandle, PromptContext, async_trait};
use acp_types::*;
use tokio::task::JoinHandle;

use crate::script;

/// Something the agent reports to the test, out of band.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AgentEvent {
    /// A prompt turn started its script.
    PromptStarted {
        /// The session of the turn.
        session_id: SessionId,
        /// The script's name (the prompt's first word).
        script: String,
    },
    /// A turn is waiting for the client to cancel it.
    WaitingForCancel(SessionId),
    /// `session/cancel` reached the agent's `cancel` method.
    CancelReceived(SessionId),
    /// A prompt handler was dropped before it finished (the connection went away).
    PromptDropped(SessionId),
    /// A call made from a task of its own finished.
    DetachedCall {
        /// The method called.
        method: String,
        /// The result, or the error, as text.
        outcome: String,
        /// True when the call failed because the connection closed.
        connection_closed: bool,
    },
    /// A session was closed.
    SessionClosed(SessionId),
}

/// Where the agent's events go.
pub type AgentEvents = Arc<dyn Fn(AgentEvent) + Send + Sync>;

/// How the scripted agent behaves.
#[derive(Clone)]
pub struct AgentConfig {
    /// What `initialize` advertises.
    pub capabilities: AgentCapabilities,
    /// The protocol version `initialize` answers with (before the library negotiates).
    pub protocol_version: ProtocolVersion,
    /// Refuse `session/new` with `-32000` until `authenticate` succeeded.
    pub require_auth: bool,
    /// What the [`CRASH`](script::CRASH) script does to crash.
    pub crash: Arc<dyn Fn() + Send + Sync>,
    /// Where events go.
    pub events: AgentEvents,
}

impl fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentConfig")
            .field("capabilities", &self.capabilities)
            .field("protocol_version", &self.protocol_version)
            .field("require_auth", &self.require_auth)
            .finish_non_exhaustive()
    }
}

impl AgentConfig {
    /// Advertises every capability: session load, list, resume, close and delete, logout,
    /// and every prompt content kind.
    pub fn full() -> Self {
        let mut config = Self::bare();
        config.capabilities = AgentCapabilities::new()
            .load_session(true)
            .prompt_capabilities(
                PromptCapabilities::new()
                    .image(true)
                    .audio(true)
                    .embedded_context(true),
            )
            .session_capabilities(
                SessionCapabilities::new()
                    .list(SessionListCapabilities::new())
                    .resume(SessionResumeCapabilities::new())
                    .close(SessionCloseCapabilities::new())
                    .delete(SessionDeleteCapabilities::new()),
            )
            .auth(AgentAuthCapabilities::new().logout(LogoutCapabilities::new()));
        config
    }

    /// Advertises nothing beyond the baseline every agent supports.
    pub fn bare() -> Self {
        Self {
            capabilities: AgentCapabilities::new(),
            protocol_version: ProtocolVersion::LATEST,
            require_auth: false,
            crash: Arc::new(|| std::process::abort()),
            events: Arc::new(|_| {}),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct SessionState {
    pub(crate) cwd: String,
    pub(crate) mode: String,
    pub(crate) model: String,
    pub(crate) brave: bool,
    pub(crate) title: Option<String>,
    pub(crate) history: Vec<SessionUpdate>,
    pub(crate) closed: bool,
}

/// The sessions (and authentication) of scripted agents, shareable between instances.
#[derive(Debug, Clone, Default)]
pub struct SharedState(Arc<Mutex<AgentState>>);

#[derive(Debug, Default)]
struct AgentState {
    next_session: u64,
    authenticated: bool,
    sessions: BTreeMap<SessionId, SessionState>,
}

/// The scripted agent. Serve it with `acp_agent::serve` (or `serve_stdio`).
pub struct ScriptedAgent {
    client: ClientHandle,
    pub(crate) config: AgentConfig,
    state: SharedState,
    pub(crate) detached: Mutex<Vec<JoinHandle<()>>>,
}

impl fmt::Debug for ScriptedAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedAgent")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The page size of `session/list`.
pub const LIST_PAGE_SIZE: usize = 2;

impl ScriptedAgent {
    /// An agent calling `client`, behaving as `config` says.
    pub fn new(client: ClientHandle, config: AgentConfig) -> Self {
        Self::with_state(client, config, SharedState::default())
    }

    /// An agent whose sessions live in `state`, shared with other instances: the agents of a
    /// server's connections, so that a session outlives its connection.
    pub fn with_state(client: ClientHandle, config: AgentConfig, state: SharedState) -> Self {
        Self {
            client,
            config,
            state,
            detached: Mutex::new(Vec::new()),
        }
    }

    /// Waits for the tasks the agent started on its own (see
    /// [`ASK_PERMISSION_DETACHED`](script::ASK_PERMISSION_DETACHED)) to finish.
    pub async fn join_detached(&self) {
        let tasks =
            std::mem::take(&mut *self.detached.lock().unwrap_or_else(PoisonError::into_inner));
        for task in tasks {
            let _ = task.await;
        }
    }

    fn state(&self) -> MutexGuard<'_, AgentState> {
        self.state.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn emit(&self, event: AgentEvent) {
        (self.config.events)(event);
    }

    pub(crate) fn client_supports_boolean_options(&self) -> bool {
        self.client
            .client_capabilities()
            .and_then(|c| c.session.as_ref())
            .and_then(|s| s.config_options.as_ref())
            .is_some_and(|o| o.boolean.is_some())
    }

    fn modes(session: &SessionState) -> SessionModeState {
        SessionModeState::new(
            session.mode.as_str(),
            vec![
                SessionMode::new("ask", "Ask").description("Ask before changing anything"),
                SessionMode::new("code", "Code"),
            ],
        )
    }

    pub(crate) fn config_options(&self, session: &SessionState) -> Vec<SessionConfigOption> {
        let mut options = vec![
            SessionConfigOption::select(
                "mode",
                "Mode",
                session.mode.as_str(),
                vec![
                    SessionConfigSelectOption::new("ask", "Ask"),
                    SessionConfigSelectOption::new("code", "Code"),
                ],
            )
            .category(SessionConfigOptionCategory::Mode),
            SessionConfigOption::select(
                "model",
                "Model",
                session.model.as_str(),
                vec![
                    SessionConfigSelectOption::new("fast", "Fast"),
                    SessionConfigSelectOption::new("smart", "Smart").description("Slower"),
                ],
            )
            .category(SessionConfigOptionCategory::Model),
        ];
        // The spec: boolean options only for clients that advertised them.
        if self.client_supports_boolean_options() {
            options.push(
                SessionConfigOption::boolean("brave", "Brave mode", session.brave)
                    .description("Skip confirmations"),
            );
        }
        options
    }

    pub(crate) fn session(&self, id: &SessionId) -> Result<SessionState, ErrorObject> {
        self.state()
            .sessions
            .get(id)
            .cloned()
            .ok_or_else(|| ErrorObject::session_not_found(id.as_str()))
    }

    pub(crate) fn with_session<T>(
        &self,
        id: &SessionId,
        f: impl FnOnce(&mut SessionState) -> Result<T, ErrorObject>,
    ) -> Result<T, ErrorObject> {
        let mut state = self.state();
        let session = state
            .sessions
            .get_mut(id)
            .ok_or_else(|| ErrorObject::session_not_found(id.as_str()))?;
        f(session)
    }

    /// Sends an update of the turn and remembers it for `session/load`.
    pub(crate) async fn send(
        &self,
        cx: &PromptContext,
        update: SessionUpdate,
    ) -> Result<(), ErrorObject> {
        let _ = self.with_session(cx.session_id(), |s| {
            s.history.push(update.clone());
            Ok(())
        });
        cx.update(update).await?;
        Ok(())
    }

    pub(crate) async fn say(
        &self,
        cx: &PromptContext,
        text: impl Into<String>,
    ) -> Result<(), ErrorObject> {
        self.send(
            cx,
            SessionUpdate::AgentMessageChunk(ContentChunk::new(text.into())),
        )
        .await
    }
}

/// Reports a prompt handler dropped before it finished.
struct DropReport<'a> {
    agent: &'a ScriptedAgent,
    session_id: SessionId,
    done: bool,
}

impl Drop for DropReport<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.agent
                .emit(AgentEvent::PromptDropped(self.session_id.clone()));
        }
    }
}

#[async_trait]
impl Agent for ScriptedAgent {
    async fn initialize(
        &self,
        _request: InitializeRequest,
    ) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(self.config.protocol_version)
            .agent_capabilities(self.config.capabilities.clone())
            .auth_methods(vec![AuthMethod::Agent(
                AuthMethodAgent::new(script::AUTH_METHOD, "Log in").description("Test login"),
            )])
            .agent_info(Implementation::new("e2e-agent", "0.1.0").title("E2E agent")))
    }

    async fn authenticate(
        &self,
        request: AuthenticateRequest,
    ) -> Result<AuthenticateResponse, ErrorObject> {
        if request.method_id.as_str() != script::AUTH_METHOD {
            return Err(ErrorObject::invalid_params(format_args!(
                "unknown authentication method {}",
                request.method_id
            )));
        }
        self.state().authenticated = true;
        Ok(AuthenticateResponse::new())
    }

    async fn logout(&self, _request: LogoutRequest) -> Result<LogoutResponse, ErrorObject> {
        self.state().authenticated = false;
        Ok(LogoutResponse::new())
    }

    async fn new_session(
        &self,
        request: NewSessionRequest,
    ) -> Result<NewSessionResponse, ErrorObject> {
        let (id, session) = {
            let mut state = self.state();
            if self.config.require_auth && !state.authenticated {
                return Err(ErrorObject::auth_required());
            }
            state.next_session += 1;
            let id = SessionId::from(format!("sess-{}", state.next_session));
            let session = SessionState {
                cwd: request.cwd,
                mode: "ask".into(),
                model: "fast".into(),
                brave: false,
                title: None,
                history: Vec::new(),
                closed: false,
            };
            state.sessions.insert(id.clone(), session.clone());
            (id, session)
        };
        Ok(NewSessionResponse::new(id)
            .modes(Self::modes(&session))
            .config_options(self.config_options(&session)))
    }

    async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        let session = self.with_session(&request.session_id, |s| {
            s.closed = false;
            Ok(s.clone())
        })?;
        // The spec: replay the whole conversation before answering.
        let replay = self.client.session(request.session_id.clone());
        for update in session.history.iter().cloned() {
            replay.update(update).await?;
        }
        Ok(LoadSessionResponse::new()
            .modes(Self::modes(&session))
            .config_options(self.config_options(&session)))
    }

    async fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        let start = match &request.cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|_| ErrorObject::invalid_params(format_args!("bad cursor {cursor:?}")))?,
        };
        let state = self.state();
        let matching: Vec<SessionInfo> = state
            .sessions
            .iter()
            .filter(|(_, s)| request.cwd.as_ref().is_none_or(|cwd| *cwd == s.cwd))
            .map(|(id, s)| {
                let info = SessionInfo::new(id.clone(), s.cwd.as_str());
                match &s.title {
                    Some(title) => info.title(title.as_str()),
                    None => info,
                }
            })
            .collect();
        let page: Vec<SessionInfo> = matching
            .iter()
            .skip(start)
            .take(LIST_PAGE_SIZE)
            .cloned()
            .collect();
        let response = ListSessionsResponse::new(page);
        Ok(if start + LIST_PAGE_SIZE < matching.len() {
            response.next_cursor((start + LIST_PAGE_SIZE).to_string())
        } else {
            response
        })
    }

    async fn resume_session(
        &self,
        request: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, ErrorObject> {
        // The spec: no replay on resume.
        let session = self.with_session(&request.session_id, |s| {
            s.closed = false;
            Ok(s.clone())
        })?;
        Ok(ResumeSessionResponse::new()
            .modes(Self::modes(&session))
            .config_options(self.config_options(&session)))
    }

    async fn close_session(
        &self,
        request: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, ErrorObject> {
        self.with_session(&request.session_id, |s| {
            s.closed = true;
            Ok(())
        })?;
        self.emit(AgentEvent::SessionClosed(request.session_id));
        Ok(CloseSessionResponse::new())
    }

    async fn delete_session(
        &self,
        request: DeleteSessionRequest,
    ) -> Result<DeleteSessionResponse, ErrorObject> {
        // The spec: deleting an unknown session succeeds silently.
        self.state().sessions.remove(&request.session_id);
        Ok(DeleteSessionResponse::new())
    }

    async fn set_session_mode(
        &self,
        request: SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, ErrorObject> {
        self.with_session(&request.session_id, |s| match request.mode_id.as_str() {
            mode @ ("ask" | "code") => {
                s.mode = mode.into();
                Ok(())
            }
            other => Err(ErrorObject::invalid_params(format_args!("no mode {other}"))),
        })?;
        Ok(SetSessionModeResponse::new())
    }

    async fn set_session_config_option(
        &self,
        request: SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, ErrorObject> {
        let boolean_ok = self.client_supports_boolean_options();
        let session = self.with_session(&request.session_id, |s| {
            match (request.config_id.as_str(), &request.value) {
                ("mode", SessionConfigOptionValue::ValueId(v))
                    if matches!(v.as_str(), "ask" | "code") =>
                {
                    s.mode = v.as_str().into();
                }
                ("model", SessionConfigOptionValue::ValueId(v))
                    if matches!(v.as_str(), "fast" | "smart") =>
                {
                    s.model = v.as_str().into();
                }
                ("brave", SessionConfigOptionValue::Boolean(b)) if boolean_ok => s.brave = *b,
                (id, value) => {
                    return Err(ErrorObject::invalid_params(format_args!(
                        "cannot set {id} to {value:?}"
                    )));
                }
            }
            Ok(s.clone())
        })?;
        Ok(SetSessionConfigOptionResponse::new(
            self.config_options(&session),
        ))
    }

    async fn prompt(
        &self,
        request: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let sid = request.session_id.clone();
        if self.session(&sid)?.closed {
            return Err(ErrorObject::invalid_params(format_args!(
                "session {sid} is closed"
            )));
        }
        let _ = self.with_session(&sid, |s| {
            s.history.extend(
                request
                    .prompt
                    .iter()
                    .map(|b| SessionUpdate::UserMessageChunk(ContentChunk::new(b.clone()))),
            );
            Ok(())
        });
        let words: Vec<&str> = request
            .prompt
            .first()
            .and_then(ContentBlock::as_text)
            .map(|t| t.split_whitespace().collect())
            .unwrap_or_default();
        let (command, args) = words.split_first().map_or(("", &[][..]), |(c, a)| (*c, a));
        self.emit(AgentEvent::PromptStarted {
            session_id: sid.clone(),
            script: command.to_owned(),
        });
        let mut report = DropReport {
            agent: self,
            session_id: sid,
            done: false,
        };
        let stop = self.run_script(&cx, command, args, &request.prompt).await;
        report.done = true;
        stop.map(PromptResponse::new)
    }

    async fn cancel(&self, notification: CancelNotification) -> Result<(), ErrorObject> {
        self.emit(AgentEvent::CancelReceived(notification.session_id));
        Ok(())
    }
}
