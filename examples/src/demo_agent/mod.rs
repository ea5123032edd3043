//! The example "coding agent": deterministic, offline, driven by the prompt's text.
//!
//! [`DemoAgent`] implements [`acp_agent::Agent`] and exercises the whole agent side of the
//! protocol: streamed message and thought chunks, a plan and its updates, tool calls (read,
//! edit with a diff and a permission request, execute with an embedded terminal, switch mode),
//! the client's file system and terminals, modes, configuration options, slash commands,
//! session info and usage updates, and every session method (new, load with replay, list,
//! resume, close, delete). Every await of a turn gives way to `session/cancel`.
//!
//! The `agent` example serves it on stdio, or over HTTP and WebSocket with `--listen` (see
//! [`listen`]); the `client` example runs it in process. The commands it understands are in
//! [`COMMANDS_HELP`]. Its sessions live in [`Sessions`]: one agent's own by default, or shared
//! by the agents of every connection of a server ([`DemoAgent::with_sessions`]).
//!
//! ```
//! use acp_agent::{AgentOptions, serve};
//! use acp_examples::demo_agent::DemoAgent;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let (agent_io, _client_io) = tokio::io::duplex(64 * 1024);
//! let (reader, writer) = tokio::io::split(agent_io);
//! let (_client, driver) = serve(DemoAgent::new, reader, writer, AgentOptions::default());
//! tokio::spawn(driver);
//! # }
//! ```

mod commands;
pub mod listen;
mod session;
mod turn;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use acp_agent::{Agent, ClientHandle, PromptContext, async_trait};
use acp_types::*;

pub use commands::COMMANDS_HELP;
use session::Session;
pub use session::{HISTORY_MAX_BYTES, HISTORY_MAX_UPDATES};

/// How many sessions one `session/list` page holds.
const LIST_PAGE_LEN: usize = 20;

/// The demo agent. Build it with [`DemoAgent::new`], the `make_agent` of
/// [`acp_agent::serve`].
#[derive(Debug)]
pub struct DemoAgent {
    client: ClientHandle,
    sessions: Sessions,
}

/// The sessions of one or more [`DemoAgent`]s. Cheap to clone: clones share the sessions.
///
/// A server that makes an agent per connection gives them all the same `Sessions`, so that a
/// client can reconnect and `session/load` a session started on an earlier connection (or list
/// the sessions of other connections: they all belong to whoever may connect).
#[derive(Debug, Clone, Default)]
pub struct Sessions(Arc<Mutex<State>>);

#[derive(Debug, Default)]
struct State {
    next_session: u64,
    /// Sessions by creation number, so that listing is stable.
    sessions: BTreeMap<u64, Session>,
}

impl State {
    fn find(&mut self, id: &SessionId) -> Option<&mut Session> {
        self.sessions.values_mut().find(|s| &s.id == id)
    }
}

impl DemoAgent {
    /// An agent that calls the client through `client`, with sessions of its own.
    pub fn new(client: ClientHandle) -> Self {
        Self::with_sessions(client, Sessions::default())
    }

    /// An agent that calls the client through `client` and keeps its sessions in `sessions`,
    /// which other agents may share.
    pub fn with_sessions(client: ClientHandle, sessions: Sessions) -> Self {
        Self { client, sessions }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.sessions
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on a session, or fails with "resource not found".
    fn with_session<T>(
        &self,
        id: &SessionId,
        f: impl FnOnce(&mut Session) -> T,
    ) -> Result<T, ErrorObject> {
        let mut state = self.state();
        let session = state
            .find(id)
            .ok_or_else(|| ErrorObject::resource_not_found(id.as_str()))?;
        Ok(f(session))
    }

    /// True when the client said it renders boolean configuration options.
    fn client_takes_booleans(&self) -> bool {
        self.client
            .client_capabilities()
            .and_then(|c| c.session.as_ref())
            .and_then(|s| s.config_options.as_ref())
            .is_some_and(|c| c.boolean.is_some())
    }

    /// Tells the client about a mode change (from either side): the mode, the config options
    /// that mirror it, and the slash commands, which depend on the mode.
    async fn announce_mode(
        &self,
        session_id: &SessionId,
        with_options: bool,
    ) -> Result<(), ErrorObject> {
        let booleans = self.client_takes_booleans();
        let (mode, options, commands) = self.with_session(session_id, |s| {
            (
                s.mode.clone(),
                s.config_options(booleans),
                s.commands_announced.then(|| s.commands()),
            )
        })?;
        let cx = self.client.session(session_id.clone());
        cx.update(SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(
            mode,
        )))
        .await?;
        if with_options {
            cx.update(SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(
                options,
            )))
            .await?;
        }
        if let Some(commands) = commands {
            cx.update(SessionUpdate::AvailableCommandsUpdate(
                AvailableCommandsUpdate::new(commands),
            ))
            .await?;
        }
        Ok(())
    }
}

fn check_absolute(cwd: &str) -> Result<(), ErrorObject> {
    if std::path::Path::new(cwd).is_absolute() {
        Ok(())
    } else {
        Err(ErrorObject::invalid_params(format_args!(
            "cwd must be an absolute path, not `{cwd}`"
        )))
    }
}

#[async_trait]
impl Agent for DemoAgent {
    async fn initialize(
        &self,
        _request: InitializeRequest,
    ) -> Result<InitializeResponse, ErrorObject> {
        let capabilities = AgentCapabilities::new()
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
            );
        Ok(InitializeResponse::new(ProtocolVersion::LATEST)
            .agent_capabilities(capabilities)
            .agent_info(
                Implementation::new("acp-demo-agent", env!("CARGO_PKG_VERSION"))
                    .title("ACP demo agent"),
            ))
    }

    async fn new_session(
        &self,
        request: NewSessionRequest,
    ) -> Result<NewSessionResponse, ErrorObject> {
        check_absolute(&request.cwd)?;
        let booleans = self.client_takes_booleans();
        let mut state = self.state();
        state.next_session += 1;
        let number = state.next_session;
        let session = Session::new(format!("sess-{number}").into(), request.cwd);
        let response = NewSessionResponse::new(session.id.clone())
            .modes(session.modes())
            .config_options(session.config_options(booleans));
        state.sessions.insert(number, session);
        Ok(response)
    }

    async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        check_absolute(&request.cwd)?;
        let booleans = self.client_takes_booleans();
        let (history, modes, options) = self.with_session(&request.session_id, |s| {
            s.cwd = request.cwd.clone();
            s.open = true;
            (s.history.updates(), s.modes(), s.config_options(booleans))
        })?;
        // The spec: the history goes out as updates before the answer (the newest updates,
        // within the bounds of `HISTORY_MAX_UPDATES` and `HISTORY_MAX_BYTES`).
        let cx = self.client.session(request.session_id.clone());
        for update in history {
            cx.update(update).await?;
        }
        Ok(LoadSessionResponse::new()
            .modes(modes)
            .config_options(options))
    }

    async fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        let after = match request.cursor.as_deref() {
            None => 0,
            Some(cursor) => cursor
                .strip_prefix("after-")
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| ErrorObject::invalid_params("invalid cursor"))?,
        };
        let state = self.state();
        let mut page: Vec<(u64, SessionInfo)> = state
            .sessions
            .range(after + 1..)
            .filter(|(_, s)| request.cwd.as_ref().is_none_or(|cwd| *cwd == s.cwd))
            .take(LIST_PAGE_LEN + 1)
            .map(|(n, s)| (*n, s.info()))
            .collect();
        let more = page.len() > LIST_PAGE_LEN;
        page.truncate(LIST_PAGE_LEN);
        let next = page.last().map(|(n, _)| format!("after-{n}"));
        let mut response =
            ListSessionsResponse::new(page.into_iter().map(|(_, info)| info).collect::<Vec<_>>());
        if let (true, Some(next)) = (more, next) {
            response = response.next_cursor(next);
        }
        Ok(response)
    }

    async fn resume_session(
        &self,
        request: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, ErrorObject> {
        check_absolute(&request.cwd)?;
        let booleans = self.client_takes_booleans();
        // Unlike `session/load`, no replay.
        let (modes, options) = self.with_session(&request.session_id, |s| {
            s.cwd = request.cwd.clone();
            s.open = true;
            (s.modes(), s.config_options(booleans))
        })?;
        Ok(ResumeSessionResponse::new()
            .modes(modes)
            .config_options(options))
    }

    async fn close_session(
        &self,
        request: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, ErrorObject> {
        // The library has already cancelled a running prompt of the session; the session's
        // history stays, so that it can be listed, loaded or resumed later.
        self.with_session(&request.session_id, |s| s.open = false)?;
        Ok(CloseSessionResponse::new())
    }

    async fn delete_session(
        &self,
        request: DeleteSessionRequest,
    ) -> Result<DeleteSessionResponse, ErrorObject> {
        // Deleting an unknown session succeeds silently, as the spec asks.
        self.state()
            .sessions
            .retain(|_, s| s.id != request.session_id);
        Ok(DeleteSessionResponse::new())
    }

    async fn set_session_mode(
        &self,
        request: SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, ErrorObject> {
        let mode = request.mode_id.as_str();
        if !session::MODES.iter().any(|m| m.0 == mode) {
            return Err(ErrorObject::invalid_params(format_args!(
                "unknown mode `{mode}`"
            )));
        }
        self.with_session(&request.session_id, |s| s.mode = mode.to_owned())?;
        self.announce_mode(&request.session_id, true).await?;
        Ok(SetSessionModeResponse::new())
    }

    async fn set_session_config_option(
        &self,
        request: SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, ErrorObject> {
        let booleans = self.client_takes_booleans();
        let result = self.with_session(&request.session_id, |s| {
            let before = s.mode.clone();
            s.set_option(request.config_id.as_str(), &request.value, booleans)
                .map(|()| (s.mode != before, s.config_options(booleans)))
        })?;
        let (mode_changed, options) = result.map_err(ErrorObject::invalid_params)?;
        if mode_changed {
            // Keep the modes API in sync with the mode option (the options themselves are in
            // the answer).
            self.announce_mode(&request.session_id, false).await?;
        }
        Ok(SetSessionConfigOptionResponse::new(options))
    }

    async fn prompt(
        &self,
        request: PromptRequest,
        context: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let open = self.with_session(&request.session_id, |s| s.open)?;
        if !open {
            return Err(ErrorObject::invalid_request(format_args!(
                "session {} is closed: load or resume it first",
                request.session_id
            )));
        }
        turn::run(self, request, context).await
    }
}
