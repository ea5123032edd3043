//! The demo "coding agent": deterministic, offline, driven by the prompt's text.
//!
//! [`DemoAgent`] implements [`acp_agent::Agent`] and exercises the whole agent side of the
//! protocol: streamed message and thought chunks, a plan and its updates, tool calls (read,
//! edit with a diff and a permission request, execute with an embedded terminal, switch mode),
//! the client's file system and terminals, modes, configuration options, slash commands,
//! session info and usage updates, and every session method (new, load with replay, list,
//! resume, close, delete). Every await of a turn gives way to `session/cancel`.
//!
//! The `agent` program serves it on stdio, or over HTTP and WebSocket with `--listen` (see
//! [`listen`]); the `client` program runs it in process. The commands it understands are in
//! [`COMMANDS_HELP`]. Its sessions live in [`Sessions`]: one agent's own by default, or shared
//! by the agents of every connection of a server, each with the view of its owner
//! ([`DemoAgent::with_sessions`], [`Sessions::owned_by`]).
//!
//! ```
//! use acp_agent::{AgentOptions, serve};
//! use acp_demo::demo_agent::DemoAgent;
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
#[cfg(feature = "unstable")]
mod draft;
pub mod listen;
mod session;
mod turn;

use acp_agent::{Agent, ClientHandle, PromptContext, SessionStore, async_trait};
use acp_types::*;

pub use commands::COMMANDS_HELP;
#[cfg(feature = "unstable")]
pub use commands::DRAFT_COMMANDS_HELP;
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
    /// Remove the agent's sessions when it is dropped ([`DemoAgent::with_connection_sessions`]).
    clear_on_drop: bool,
    /// The LLM providers and their endpoints (`providers/*`, draft).
    #[cfg(feature = "unstable")]
    providers: draft::Providers,
}

/// The sessions of one or more [`DemoAgent`]s. Cheap to clone: clones share the sessions.
///
/// A server that makes an agent per connection gives each the view of the same `Sessions` that
/// its owner has ([`owned_by`](Self::owned_by)): an authenticated user finds their sessions
/// again from any connection (reconnect and `session/load`), and nobody lists, loads, prompts
/// into or deletes anyone else's. The default value is unscoped: it sees every session. Each
/// session's history is bounded by [`HISTORY_MAX_UPDATES`] and [`HISTORY_MAX_BYTES`]; the
/// sessions by [`acp_agent::StoreLimits`]'s defaults (10,000, 1,000 per owner, dropped after a
/// day unused).
#[derive(Debug, Clone, Default)]
pub struct Sessions(SessionStore<Session>);

impl Sessions {
    /// Sessions kept in a database: PostgreSQL for a `postgres://` or `postgresql://` URL,
    /// else a SQLite file at `location` (made when missing). They survive a restart of the
    /// agent, each still its owner's: give a user the same owner every time (an authenticated
    /// principal; a connection's owner never comes back).
    ///
    /// # Errors
    ///
    /// A database that cannot be opened (a message for the user).
    pub async fn open(location: &str) -> Result<Self, String> {
        let options = acp_agent::DurableOptions::DEFAULT;
        let store = if location.starts_with("postgres://") || location.starts_with("postgresql://")
        {
            let backend = acp_store_postgres::PostgresBackend::open(location)
                .await
                .map_err(|e| e.to_string())?;
            SessionStore::durable(backend, options)
        } else {
            let backend = acp_store_sqlite::SqliteBackend::open(location)
                .await
                .map_err(|e| e.to_string())?;
            SessionStore::durable(backend, options)
        };
        store.map(Self).map_err(|e| e.message)
    }

    /// Waits until every change is in the database (nothing to wait for in memory): before
    /// the program exits.
    ///
    /// # Errors
    ///
    /// The database does not answer.
    pub async fn flush(&self) -> Result<(), ErrorObject> {
        self.0.flush().await
    }

    /// The view of these sessions that `owner` has (the authenticated user, or the connection
    /// without authentication): it sees only `owner`'s sessions, and those it creates are
    /// `owner`'s.
    pub fn owned_by(&self, owner: &str) -> Self {
        Self(self.0.owned_by(owner))
    }
}

/// The owner of the sessions of an agent on stdio, which serves one client.
const LOCAL_OWNER: &str = "local";

impl DemoAgent {
    /// An agent that calls the client through `client`, with sessions of its own (for one
    /// client, as on stdio).
    pub fn new(client: ClientHandle) -> Self {
        Self::with_sessions(client, Sessions::default().owned_by(LOCAL_OWNER))
    }

    /// An agent for one client (as on stdio) whose sessions are `sessions`' (for example a
    /// durable store, [`Sessions::open`]), seen as the local user's: the same user after a
    /// restart.
    pub fn local(client: ClientHandle, sessions: &Sessions) -> Self {
        Self::with_sessions(client, sessions.owned_by(LOCAL_OWNER))
    }

    /// An agent that calls the client through `client` and keeps its sessions in `sessions`,
    /// which other agents may share (give each the view of its owner,
    /// [`Sessions::owned_by`]).
    pub fn with_sessions(client: ClientHandle, sessions: Sessions) -> Self {
        Self {
            client,
            sessions,
            clear_on_drop: false,
            #[cfg(feature = "unstable")]
            providers: draft::Providers::default(),
        }
    }

    /// An agent like [`with_sessions`](Self::with_sessions) whose sessions only its connection
    /// can reach (`sessions` is the view of the connection, without authentication): they are
    /// removed when the agent is dropped, as the connection ends, instead of waiting a day
    /// for the idle expiry, counted against the store's bound.
    pub fn with_connection_sessions(client: ClientHandle, sessions: Sessions) -> Self {
        let mut agent = Self::with_sessions(client, sessions);
        agent.clear_on_drop = true;
        agent
    }

    /// Runs `f` on a session, or fails with "resource not found".
    fn with_session<T>(
        &self,
        id: &SessionId,
        f: impl FnOnce(&mut Session) -> T,
    ) -> Result<T, ErrorObject> {
        self.sessions.0.with(id, f)
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
        // v2 has no modes: the `mode` config option, which mirrors them, says it there.
        #[cfg(feature = "unstable_protocol_v2")]
        let modes = !self.client.is_v2();
        #[cfg(not(feature = "unstable_protocol_v2"))]
        let modes = true;
        if modes {
            cx.update(SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(
                mode,
            )))
            .await?;
        }
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

impl Drop for DemoAgent {
    fn drop(&mut self) {
        if self.clear_on_drop {
            self.sessions.0.clear();
        }
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
        #[cfg(feature = "unstable")]
        let capabilities = draft::advertise(capabilities);
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
        let session = Session::new(request.cwd);
        let (modes, options) = (session.modes(), session.config_options(booleans));
        let id = self.sessions.0.create_async(session).await?;
        Ok(NewSessionResponse::new(id)
            .modes(modes)
            .config_options(options))
    }

    async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        check_absolute(&request.cwd)?;
        let booleans = self.client_takes_booleans();
        // The spec: the history goes out as updates before the answer (the newest updates,
        // within the bounds of `HISTORY_MAX_UPDATES` and `HISTORY_MAX_BYTES`).
        let load = |s: &mut Session| {
            s.cwd = request.cwd.clone();
            s.open = true;
            (s.modes(), s.config_options(booleans))
        };
        let (modes, options) = self
            .sessions
            .0
            .load(&self.client, &request.session_id, load)
            .await?;
        Ok(LoadSessionResponse::new()
            .modes(modes)
            .config_options(options))
    }

    async fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        // The cwd filter and the paging are the store's (a query, for a durable one).
        self.sessions
            .0
            .list_async(
                request.cursor.as_deref(),
                LIST_PAGE_LEN,
                request.cwd.as_deref(),
                |id, s| Some(s.info(id)),
            )
            .await
    }

    async fn resume_session(
        &self,
        request: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, ErrorObject> {
        check_absolute(&request.cwd)?;
        let booleans = self.client_takes_booleans();
        // Unlike `session/load`, no replay; the session may have been made before a restart,
        // or by another process sharing the store.
        self.sessions.0.fetch(&request.session_id).await?;
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
        self.sessions.0.fetch(&request.session_id).await?;
        self.with_session(&request.session_id, |s| s.open = false)?;
        Ok(CloseSessionResponse::new())
    }

    async fn delete_session(
        &self,
        request: DeleteSessionRequest,
    ) -> Result<DeleteSessionResponse, ErrorObject> {
        // Deleting an unknown session succeeds silently, as the spec asks.
        self.sessions.0.remove_async(&request.session_id).await?;
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
        // One turn at a time in a session, whichever connection prompts (-32600); -32002 for
        // a session that is not there or not this owner's.
        self.sessions.0.fetch(&request.session_id).await?;
        let _turn = self.sessions.0.begin_turn(&request.session_id)?;
        let open = self.with_session(&request.session_id, |s| s.open)?;
        if !open {
            return Err(ErrorObject::invalid_request(format_args!(
                "session {} is closed: load or resume it first",
                request.session_id
            )));
        }
        turn::run(self, request, context).await
    }

    #[cfg(feature = "unstable")]
    async fn fork_session(
        &self,
        request: ForkSessionRequest,
    ) -> Result<ForkSessionResponse, ErrorObject> {
        let booleans = self.client_takes_booleans();
        let id = draft::fork(&self.sessions, &request)?;
        let (modes, options) =
            self.with_session(&id, |s| (s.modes(), s.config_options(booleans)))?;
        Ok(ForkSessionResponse::new(id)
            .modes(modes)
            .config_options(options))
    }

    #[cfg(feature = "unstable")]
    async fn list_providers(
        &self,
        _request: ListProvidersRequest,
    ) -> Result<ListProvidersResponse, ErrorObject> {
        Ok(self.providers.list())
    }

    #[cfg(feature = "unstable")]
    async fn set_provider(
        &self,
        request: SetProviderRequest,
    ) -> Result<SetProviderResponse, ErrorObject> {
        self.providers.set(request)?;
        Ok(SetProviderResponse::new())
    }

    #[cfg(feature = "unstable")]
    async fn disable_provider(
        &self,
        request: DisableProviderRequest,
    ) -> Result<DisableProviderResponse, ErrorObject> {
        self.providers.disable(&request)?;
        Ok(DisableProviderResponse::new())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use acp_agent::{AgentOptions, serve};
    use acp_rpc::Router;
    use acp_types::methods::{Initialize, SessionNew};

    use super::*;

    /// Serves one connection whose agent `make` builds from `sessions`, opens a session on it,
    /// closes it, and returns once the agent's side has ended.
    async fn one_connection(sessions: Sessions, clear: bool) {
        let (agent_io, client_io) = tokio::io::duplex(64 * 1024);
        let (reader, writer) = tokio::io::split(agent_io);
        let make = move |client| match clear {
            true => DemoAgent::with_connection_sessions(client, sessions),
            false => DemoAgent::with_sessions(client, sessions),
        };
        let agent = tokio::spawn(serve(make, reader, writer, AgentOptions::default()).1);
        let (reader, writer) = tokio::io::split(client_io);
        let (peer, driver) =
            acp_rpc::connect(|_| Router::new(), reader, writer, Default::default());
        let client = tokio::spawn(driver);
        peer.request::<Initialize>(&InitializeRequest::new(ProtocolVersion::V1))
            .await
            .unwrap();
        let new = NewSessionRequest::new("/tmp", Vec::<McpServer>::new());
        peer.request::<SessionNew>(&new).await.unwrap();
        client.abort();
        drop(peer);
        let ended = tokio::time::timeout(Duration::from_secs(10), agent).await;
        assert!(ended.is_ok(), "the agent's connection did not end");
    }

    #[tokio::test]
    async fn a_connections_sessions_go_with_it_and_a_users_stay() {
        let store = Sessions::default();
        one_connection(store.owned_by("connection-1"), true).await;
        assert!(store.0.is_empty(), "{:?}", store.0);
        one_connection(store.owned_by("alice"), false).await;
        assert_eq!(store.owned_by("alice").0.len(), 1);
    }
}
