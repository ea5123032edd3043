//! An optional session store: each session's state and the history `session/load` replays.
//!
//! ```
//! use acp_agent::{Agent, ClientHandle, PromptContext, SessionStore};
//! use acp_types::*;
//!
//! /// What the agent keeps per session.
//! struct Session {
//!     cwd: String,
//! }
//!
//! struct MyAgent {
//!     client: ClientHandle,
//!     sessions: SessionStore<Session>,
//! }
//!
//! #[acp_agent::async_trait]
//! impl Agent for MyAgent {
//!     async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
//!         let capabilities = AgentCapabilities::new().load_session(true);
//!         Ok(InitializeResponse::new(ProtocolVersion::LATEST).agent_capabilities(capabilities))
//!     }
//!     async fn new_session(&self, req: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
//!         // `sess-` and 128 random bits; refused past the store's bounds.
//!         let id = self.sessions.create(Session { cwd: req.cwd })?;
//!         Ok(NewSessionResponse::new(id))
//!     }
//!     async fn load_session(&self, req: LoadSessionRequest) -> Result<LoadSessionResponse, ErrorObject> {
//!         // Replays the recorded updates, then answers: the order the spec asks for.
//!         self.sessions.load(&self.client, &req.session_id, |s| s.cwd = req.cwd.clone()).await?;
//!         Ok(LoadSessionResponse::new())
//!     }
//!     async fn prompt(&self, req: PromptRequest, cx: PromptContext) -> Result<PromptResponse, ErrorObject> {
//!         // One turn at a time in the session, over every connection; unknown: -32002.
//!         let _turn = self.sessions.begin_turn(&req.session_id)?;
//!         // Every conversation update sent through `cx` is now recorded.
//!         let cx = self.sessions.recording(cx);
//!         cx.record_prompt(&req.prompt);
//!         cx.message("Hello").await?;
//!         Ok(PromptResponse::new(StopReason::EndTurn))
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Share it between connections to load across them, each connection with the view of
//! // its user (or of the connection itself, without authentication).
//! let store = SessionStore::new();
//! let sessions = store.owned_by("alice");
//! let (agent_io, client_io) = tokio::io::duplex(64 * 1024);
//! let (reader, writer) = tokio::io::split(agent_io);
//! let make = move |client| MyAgent { client, sessions };
//! let (_client, driver) = acp_agent::serve(make, reader, writer, Default::default());
//! tokio::spawn(driver);
//! # let (reader, writer) = tokio::io::split(client_io);
//! # let (agent, client_driver) = acp_rpc::connect(|_| acp_rpc::Router::new(), reader, writer, Default::default());
//! # tokio::spawn(client_driver);
//! # agent.request::<methods::Initialize>(&InitializeRequest::new(ProtocolVersion::V1)).await?;
//! # let session = agent.request::<methods::SessionNew>(&NewSessionRequest::new("/tmp", Vec::<McpServer>::new())).await?;
//! # agent.request::<methods::SessionPrompt>(&PromptRequest::new(session.session_id.clone(), vec!["hi".into()])).await?;
//! # agent.request::<methods::SessionLoad>(&LoadSessionRequest::new(session.session_id.clone(), "/tmp", Vec::<McpServer>::new())).await?;
//! // After one turn: the user's prompt and the agent's reply. Another user's view of the
//! // store does not see the session; the unscoped store sees them all.
//! # let id = session.session_id;
//! assert_eq!(store.history(&id).map(|h| h.len()), Some(2));
//! assert!(!store.owned_by("mallory").contains(&id));
//! # Ok(()) }
//! ```

pub mod backend;
mod budget;
mod durable;
mod history;
mod id;
mod limits;
mod options;
mod queue;
#[cfg(test)]
mod tests;
mod turn;
mod writer;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use acp_types::*;

use futures::future::BoxFuture;

use crate::context::{Backpressure, Outgoing, Record};
use crate::{ClientHandle, PromptContext};

use budget::Owned;
use durable::Durable;
pub use durable::SessionState;
pub use history::{History, HistoryLimits, is_conversation};
use history::{has_terminals, json_len, strip_terminals};
pub use limits::StoreLimits;
pub use options::DurableOptions;
use queue::Pending;
use turn::EndTurn;
pub use turn::TurnGuard;

/// A session in the store.
struct Stored<S> {
    id: SessionId,
    state: S,
    history: History,
    /// Whose it is (see [`SessionStore::owned_by`]); `None` for one made by an unscoped store.
    owner: Option<Arc<str>>,
    /// When it was last used: its key in [`Sessions::idle`] while no turn runs, and in
    /// [`Sessions::holding`] while it has history.
    used: Instant,
    /// A turn is running (a [`TurnGuard`] of it lives).
    turn: bool,
    /// The sequence number of the next update recorded: the history holds the numbers
    /// `seq - history.len()..seq` (a durable store's history rows).
    seq: u64,
    /// When it was created, in milliseconds since the Unix epoch.
    created_ms: i64,
}

struct Sessions<S> {
    /// The last creation number given: numbers order the listing and key the sessions.
    next: u64,
    by_number: BTreeMap<u64, Stored<S>>,
    numbers: HashMap<SessionId, u64>,
    /// The sessions no turn runs in, least recently used first: the order they expire in.
    idle: BTreeSet<(Instant, u64)>,
    /// The sessions with history, least recently used first: the order the store's history
    /// budget takes from them.
    holding: BTreeSet<(Instant, u64)>,
    /// The history bytes of every session ([`History::cost`]).
    bytes: usize,
    /// What each owner holds (an owner holding no session is not there).
    owned: HashMap<Arc<str>, Owned>,
}

impl<S> Sessions<S> {
    fn new() -> Self {
        Self {
            next: 0,
            by_number: BTreeMap::new(),
            numbers: HashMap::new(),
            idle: BTreeSet::new(),
            holding: BTreeSet::new(),
            bytes: 0,
            owned: HashMap::new(),
        }
    }

    /// Adds a session (its id must be free), made at `created_ms`; returns its number.
    fn add(
        &mut self,
        id: SessionId,
        state: S,
        owner: Option<Arc<str>>,
        limits: HistoryLimits,
        used: Instant,
        created_ms: i64,
    ) -> u64 {
        self.next += 1;
        let number = self.next;
        if let Some(owner) = &owner {
            self.owned.entry(Arc::clone(owner)).or_default().sessions += 1;
        }
        self.numbers.insert(id.clone(), number);
        self.idle.insert((used, number));
        self.by_number.insert(
            number,
            Stored {
                id,
                state,
                history: History::new(limits),
                owner,
                used,
                turn: false,
                seq: 0,
                created_ms,
            },
        );
        number
    }

    /// Takes session `number` out of the store.
    fn take(&mut self, number: u64) -> Option<Stored<S>> {
        let stored = self.by_number.remove(&number)?;
        self.numbers.remove(&stored.id);
        let key = (stored.used, number);
        if !stored.turn {
            self.idle.remove(&key);
        }
        let cost = stored.history.cost();
        self.bytes -= cost;
        if !stored.history.is_empty() {
            self.holding.remove(&key);
        }
        if let Some(owner) = &stored.owner
            && let Some(held) = self.owned.get_mut(owner)
        {
            held.sessions -= 1;
            held.bytes -= cost;
            if !stored.history.is_empty() {
                held.holding.remove(&key);
            }
            if held.sessions == 0 {
                self.owned.remove(owner);
            }
        }
        Some(stored)
    }

    /// Marks session `number` used at `now` (moving it to the end of the orders it is in),
    /// and returns it.
    fn touch(&mut self, number: u64, now: Instant) -> Option<&mut Stored<S>> {
        let stored = self.by_number.get_mut(&number)?;
        if stored.used < now {
            let (old, new) = ((stored.used, number), (now, number));
            if !stored.turn {
                self.idle.remove(&old);
                self.idle.insert(new);
            }
            if !stored.history.is_empty() {
                self.holding.remove(&old);
                self.holding.insert(new);
                if let Some(owner) = &stored.owner
                    && let Some(held) = self.owned.get_mut(owner)
                {
                    held.holding.remove(&old);
                    held.holding.insert(new);
                }
            }
            stored.used = now;
        }
        Some(stored)
    }

    /// Drops the sessions idle for `expiry` or longer at `now`.
    fn expire(&mut self, now: Instant, expiry: Option<Duration>) {
        let Some(cutoff) = expiry.and_then(|expiry| now.checked_sub(expiry)) else {
            return;
        };
        while let Some(&(used, number)) = self.idle.first() {
            if used > cutoff {
                break;
            }
            if let Some(stored) = self.take(number) {
                tracing::debug!(session = %stored.id, "dropped an idle session");
            } else {
                // Not a session any more: never the case, but never loop on it.
                self.idle.pop_first();
            }
        }
    }
}

struct Shared<S> {
    limits: StoreLimits,
    sessions: Mutex<Sessions<S>>,
    /// The database and its writer, for a durable store.
    durable: Option<Durable<S>>,
    /// The tests' clock: stopped, and moved only by [`SessionStore::advance`], so that the
    /// expiry and the least-recently-used order do not depend on how fast a test runs.
    #[cfg(test)]
    clock: Mutex<Instant>,
}

impl<S> Shared<S> {
    fn now(&self) -> Instant {
        #[cfg(test)]
        {
            *self.clock.lock().unwrap_or_else(PoisonError::into_inner)
        }
        #[cfg(not(test))]
        Instant::now()
    }

    /// The sessions, the idle ones expired, and the time they were looked at.
    fn lock(&self) -> (MutexGuard<'_, Sessions<S>>, Instant) {
        let now = self.now();
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.expire(now, self.limits.idle_expiry);
        (sessions, now)
    }
}

impl<S: Send> EndTurn for Shared<S> {
    fn end_turn(&self, number: u64) {
        let (mut sessions, now) = self.lock();
        let sessions = &mut *sessions;
        if let Some(stored) = sessions.by_number.get_mut(&number)
            && stored.turn
        {
            stored.turn = false;
            sessions.idle.insert((stored.used, number));
            if let Some(stored) = sessions.touch(number, now) {
                self.changed(Pending::State(stored.id.clone()));
            }
        }
    }
}

impl<S> Shared<S> {
    /// Queues `change` for the database of a durable store (nothing for one in memory).
    fn changed(&self, change: Pending) {
        if let Some(durable) = &self.durable {
            durable.channel.push(change);
        }
    }
}

/// The sessions of an agent: each one's state `S` and its bounded [`History`], which
/// [`load`](Self::load) replays to the client before `session/load` is answered.
///
/// Cheap to clone: clones share the sessions. Give every connection's agent a view of the same
/// store to let a client load a session started on another connection.
///
/// # Owners
///
/// A store shared by connections serves several clients, who must not see each other's
/// sessions. [`owned_by`](Self::owned_by) gives the view of one owner (the authenticated
/// user, or the connection when there is no authentication): the sessions it creates are that
/// owner's, and every other method sees only them; another owner's session is
/// [`ErrorObject::session_not_found`] (`-32002`) exactly as if it did not exist. The store
/// [`new`](Self::new) makes is unscoped: the administrative view, which sees every session
/// (and the default of an agent with a single user, such as one on stdio).
///
/// Ids are `sess-` and 128 random bits (32 hex digits): knowing its own sessions tells a client
/// nothing about anyone else's.
///
/// # One turn at a time
///
/// [`begin_turn`](Self::begin_turn) refuses a second prompt turn in a session while one runs,
/// whichever connection sends it (the library's own rule, see
/// [`AgentOptions`](crate::AgentOptions), only knows its connection's turns).
///
/// # What is recorded
///
/// Every conversation update (see [`is_conversation`]) sent through a [`PromptContext`] made by
/// [`recording`](Self::recording), and what [`record`](Self::record) is given. Terminal
/// content (`ToolCallContent::Terminal`) is left out of the recorded copy: a replay may come
/// after the terminal was released, when its id means nothing; record its output as text with
/// [`record`](Self::record) if the replay should show it (send the live update through
/// [`PromptContext::unrecorded`]).
///
/// An update is recorded as it is handed to the connection, before it is written: one sent by
/// a turn dropped at that very moment (a cancellation) may be in the history without having
/// reached the client.
///
/// # Bounds
///
/// [`StoreLimits`]: the history is bounded per session ([`HistoryLimits`]: count and bytes,
/// oldest dropped first), and in all and per owner (64 MiB per owner and 512 MiB in the store
/// by default: the oldest updates of the least recently used sessions are dropped first, see
/// [History budgets](StoreLimits#history-budgets)); the sessions are bounded in all and per
/// owner (creating more is refused, nothing live is evicted); a session unused for the idle
/// expiry (24 hours by default) is dropped. The state `S` is the agent's: no bound counts it.
pub struct SessionStore<S> {
    shared: Arc<Shared<S>>,
    /// The owner this view is scoped to; `None` sees every session.
    owner: Option<Arc<str>>,
}

impl<S> Clone for SessionStore<S> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            owner: self.owner.clone(),
        }
    }
}

impl<S> fmt::Debug for SessionStore<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionStore")
            .field("owner", &self.owner)
            .field("limits", &self.shared.limits)
            .field("sessions", &self.len())
            .finish()
    }
}

impl<S> Default for SessionStore<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> SessionStore<S> {
    /// An empty, unscoped store (it sees every session: see [`owned_by`](Self::owned_by)) with
    /// the default [`StoreLimits`].
    pub fn new() -> Self {
        Self::with_store_limits(StoreLimits::DEFAULT)
    }

    /// An empty store keeping at most `limits` of history per session (and the default
    /// [`StoreLimits`] otherwise).
    pub fn with_limits(limits: HistoryLimits) -> Self {
        Self::with_store_limits(StoreLimits::DEFAULT.history(limits))
    }

    /// An empty store within `limits`.
    pub fn with_store_limits(limits: StoreLimits) -> Self {
        Self {
            shared: Arc::new(Shared {
                limits,
                sessions: Mutex::new(Sessions::new()),
                durable: None,
                #[cfg(test)]
                clock: Mutex::new(Instant::now()),
            }),
            owner: None,
        }
    }

    /// The history bounds.
    pub fn limits(&self) -> HistoryLimits {
        self.shared.limits.history
    }

    /// The store's bounds.
    pub fn store_limits(&self) -> StoreLimits {
        self.shared.limits
    }

    /// The view of this store that `owner` has, sharing its sessions: what it creates is
    /// `owner`'s, and it sees only `owner`'s sessions (any other is "not found").
    ///
    /// Make one per connection: with the authenticated principal as the owner, a user finds
    /// their sessions again from any connection; without authentication, use something that
    /// names the connection, and each connection sees only its own.
    pub fn owned_by(&self, owner: impl Into<Arc<str>>) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            owner: Some(owner.into()),
        }
    }

    /// The owner this view is scoped to; `None` for the unscoped (administrative) view.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// True when this view may see `stored`.
    fn sees(&self, stored: &Stored<S>) -> bool {
        self.owner.is_none() || stored.owner == self.owner
    }

    /// The creation number of session `id`, if this view sees it.
    fn number(&self, sessions: &Sessions<S>, id: &SessionId) -> Option<u64> {
        let number = *sessions.numbers.get(id)?;
        let stored = sessions.by_number.get(&number)?;
        self.sees(stored).then_some(number)
    }

    /// Session `id`, marked used at `now`, if this view sees it.
    fn find<'a>(
        &self,
        sessions: &'a mut Sessions<S>,
        id: &SessionId,
        now: Instant,
    ) -> Option<&'a mut Stored<S>> {
        let number = self.number(sessions, id)?;
        let stored = sessions.touch(number, now)?;
        // A use keeps a durable session's row fresh (the database's idle expiry).
        self.shared.changed(Pending::State(stored.id.clone()));
        Some(stored)
    }

    /// Fails when this view may not add a session.
    fn check_room(&self, sessions: &Sessions<S>) -> Result<(), ErrorObject> {
        let held = self
            .owner
            .as_ref()
            .map(|owner| sessions.owned.get(owner).map_or(0, |held| held.sessions));
        self.room_for(held, sessions.by_number.len())
    }

    /// Fails when this view may not add a session to `all` sessions, its owner holding `held`
    /// (`None` for the unscoped store).
    fn room_for(&self, held: Option<usize>, all: usize) -> Result<(), ErrorObject> {
        let limits = &self.shared.limits;
        if let Some(held) = held {
            if held >= limits.max_sessions_per_owner {
                return Err(ErrorObject::internal_error(format_args!(
                    "too many sessions: you have {held}, the most the agent keeps for one \
                     user; delete one first"
                )));
            }
        }
        if all >= limits.max_sessions {
            return Err(ErrorObject::internal_error(format_args!(
                "too many sessions: the agent keeps at most {}; delete one first, or try \
                 again later",
                limits.max_sessions
            )));
        }
        Ok(())
    }

    /// Adds a session with a fresh id (`sess-` and 32 random hex digits) and returns the id.
    /// The session is this view's owner's.
    ///
    /// # Errors
    ///
    /// An internal error (`-32603`) when the store holds [`StoreLimits::max_sessions`], or the
    /// owner [`StoreLimits::max_sessions_per_owner`] (idle sessions past their expiry are
    /// dropped first; nothing live is evicted), or when the operating system has no
    /// randomness for the id.
    pub fn create(&self, state: S) -> Result<SessionId, ErrorObject> {
        let mut id = id::random()?;
        if let Some(durable) = &self.shared.durable {
            durable.check_new(&state)?;
        }
        let (mut sessions, now) = self.shared.lock();
        self.check_room(&sessions)?;
        // 128 random bits do not collide; an id `insert`ed by hand could be anything.
        while sessions.numbers.contains_key(&id) {
            id = id::random()?;
        }
        sessions.add(
            id.clone(),
            state,
            self.owner.clone(),
            self.shared.limits.history,
            now,
            durable::created_ms(),
        );
        self.shared.changed(Pending::State(id.clone()));
        Ok(id)
    }

    /// Adds the session `id` (this view's owner's), or replaces the state of this view's
    /// session `id` and forgets its history. Returns the state it replaced.
    ///
    /// # Errors
    ///
    /// `-32602` when `id` is another owner's session; for a new session, the errors of
    /// [`create`](Self::create) at the store's bounds.
    pub fn insert(&self, id: impl Into<SessionId>, state: S) -> Result<Option<S>, ErrorObject> {
        let id = id.into();
        if let Some(durable) = &self.shared.durable {
            durable::check_id(&id)?;
            durable.check_new(&state)?;
        }
        let (mut sessions, now) = self.shared.lock();
        if sessions.numbers.contains_key(&id) {
            let Some(number) = self.number(&sessions, &id) else {
                return Err(ErrorObject::invalid_params(format_args!(
                    "session id `{id}` is already in use"
                )));
            };
            sessions.clear_history(number);
            let stored = sessions.touch(number, now).ok_or_else(|| not_found(&id))?;
            self.shared.changed(Pending::Clear(id.clone()));
            self.shared.changed(Pending::State(id));
            return Ok(Some(std::mem::replace(&mut stored.state, state)));
        }
        self.check_room(&sessions)?;
        sessions.add(
            id.clone(),
            state,
            self.owner.clone(),
            self.shared.limits.history,
            now,
            durable::created_ms(),
        );
        self.shared.changed(Pending::State(id));
        Ok(None)
    }

    /// Removes a session and its history; returns its state, `None` if this view does not see
    /// it. A turn running in it goes on, but records nothing more.
    pub fn remove(&self, id: &SessionId) -> Option<S> {
        let (mut sessions, _) = self.shared.lock();
        let number = self.number(&sessions, id)?;
        let stored = sessions.take(number)?;
        self.shared.changed(Pending::Delete(stored.id));
        Some(stored.state)
    }

    /// Removes every session this view sees (for an owner's view, the owner's), with their
    /// histories; returns how many. For sessions nobody can reach any more, such as those of a
    /// connection without authentication once it closed: they would otherwise wait for the
    /// idle expiry, counted against the store's bound.
    pub fn clear(&self) -> usize {
        let (mut sessions, _) = self.shared.lock();
        let numbers: Vec<u64> = sessions
            .by_number
            .iter()
            .filter(|(_, stored)| self.sees(stored))
            .map(|(number, _)| *number)
            .collect();
        for number in &numbers {
            if let Some(stored) = sessions.take(*number) {
                self.shared.changed(Pending::Delete(stored.id));
            }
        }
        numbers.len()
    }

    /// True when this view sees session `id`.
    pub fn contains(&self, id: &SessionId) -> bool {
        let (sessions, _) = self.shared.lock();
        self.number(&sessions, id).is_some()
    }

    /// How many sessions this view sees.
    pub fn len(&self) -> usize {
        let (sessions, _) = self.shared.lock();
        match &self.owner {
            Some(owner) => sessions.owned.get(owner).map_or(0, |held| held.sessions),
            None => sessions.by_number.len(),
        }
    }

    /// True when this view sees no session.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `f` on session `id`'s state, under the store's lock (keep it short, and never
    /// await in it).
    ///
    /// # Errors
    ///
    /// [`ErrorObject::session_not_found`] (`-32002`) for a session this view does not see:
    /// return it as is.
    pub fn with<T>(&self, id: &SessionId, f: impl FnOnce(&mut S) -> T) -> Result<T, ErrorObject> {
        let (mut sessions, now) = self.shared.lock();
        let stored = self
            .find(&mut sessions, id, now)
            .ok_or_else(|| not_found(id))?;
        Ok(f(&mut stored.state))
    }

    /// Runs `f` on the id and state of every session this view sees, in creation order,
    /// collecting what it returns (`None` skips the session).
    pub fn collect<T>(&self, mut f: impl FnMut(&SessionId, &S) -> Option<T>) -> Vec<T> {
        let (sessions, _) = self.shared.lock();
        sessions
            .by_number
            .values()
            .filter(|s| self.sees(s))
            .filter_map(|s| f(&s.id, &s.state))
            .collect()
    }

    /// One page of `session/list`: the sessions this view sees after `cursor` (from an earlier
    /// page; `None` starts at the first) in creation order, as `info` describes them (`None`
    /// leaves a session out, for example when it does not match the request's `cwd`), at most
    /// `page_len` of them, with the cursor of the next page when there are more.
    ///
    /// A cursor holds a creation number, never an id.
    ///
    /// # Errors
    ///
    /// `-32602` for a cursor this store did not give.
    pub fn list(
        &self,
        cursor: Option<&str>,
        page_len: usize,
        mut info: impl FnMut(&SessionId, &S) -> Option<SessionInfo>,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        let after = match cursor {
            None => 0,
            Some(cursor) => cursor
                .strip_prefix("after-")
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| ErrorObject::invalid_params("invalid cursor"))?,
        };
        let (sessions, _) = self.shared.lock();
        let mut page = Vec::new();
        let mut next = None;
        let visible = sessions
            .by_number
            .range(after.saturating_add(1)..)
            .filter(|(_, stored)| self.sees(stored));
        for (number, stored) in visible {
            let Some(entry) = info(&stored.id, &stored.state) else {
                continue;
            };
            if page.len() == page_len {
                next = page.last().map(|(n, _)| format!("after-{n}"));
                break;
            }
            page.push((*number, entry));
        }
        let response =
            ListSessionsResponse::new(page.into_iter().map(|(_, i)| i).collect::<Vec<_>>());
        Ok(match next {
            Some(next) => response.next_cursor(next),
            None => response,
        })
    }

    /// Keeps `update` in session `id`'s history (if it is conversation, see
    /// [`is_conversation`]; terminal content left out), without sending it. Returns false when
    /// it was not kept: not conversation, larger than a whole byte bound (the session's, the
    /// owner's or the store's), or a session this view does not see.
    ///
    /// To stay within the bounds, older updates are dropped: the session's own oldest past its
    /// [`HistoryLimits`], then the oldest of the least recently used other sessions past the
    /// history budgets (see [History budgets](StoreLimits#history-budgets)). `update` itself
    /// is always kept when it fits.
    pub fn record(&self, id: &SessionId, update: &SessionUpdate) -> bool {
        if !is_conversation(update) {
            return false;
        }
        self.keep(id, update.clone()).kept
    }

    /// [`record`](Self::record) of an update the caller gives away: kept as it is (terminal
    /// content left out), with no copy.
    fn keep(&self, id: &SessionId, update: SessionUpdate) -> Kept {
        if !is_conversation(&update) {
            return Kept::NOT;
        }
        let mut update = update;
        strip_terminals(&mut update);
        // Encoded (or, in memory, measured) before the lock, which other connections wait
        // for.
        let json = match self.shared.durable {
            Some(_) => match serde_json::to_string(&update) {
                Ok(json) => Some(json),
                Err(error) => {
                    tracing::error!(session = %id, %error, "cannot encode an update to record");
                    return Kept::NOT;
                }
            },
            None => None,
        };
        self.keep_encoded(id, update, json)
    }

    /// Keeps `update` (conversation, without terminal content), whose JSON is `json` in a
    /// durable store (`None` in memory), in session `id`'s history (see
    /// [`record`](Self::record)).
    fn keep_encoded(&self, id: &SessionId, update: SessionUpdate, json: Option<String>) -> Kept {
        let size = json.as_ref().map_or_else(|| json_len(&update), String::len);
        let (mut sessions, now) = self.shared.lock();
        let Some(number) = self.number(&sessions, id) else {
            return Kept::NOT;
        };
        let before = sessions
            .by_number
            .get(&number)
            .map_or(0, |s| s.history.len());
        if !sessions.record(number, now, update, size, &self.shared.limits) {
            return Kept::NOT;
        }
        let mut queue_full = Some(false);
        if let Some(json) = json
            && let Some(stored) = sessions.by_number.get_mut(&number)
        {
            let seq = stored.seq;
            stored.seq += 1;
            let kept = stored.history.len();
            let keep_from = stored.seq - kept as u64;
            // The session's own bounds dropped its oldest: so does the database.
            let trim = (kept <= before).then(|| Pending::Trim {
                id: id.clone(),
                keep_from,
            });
            if let Some(durable) = &self.shared.durable {
                let append = Pending::Append {
                    id: id.clone(),
                    seq,
                    json,
                };
                let state = Pending::State(id.clone());
                queue_full = Some(
                    durable
                        .channel
                        .push_all([state, append].into_iter().chain(trim)),
                );
            }
        }
        Kept {
            kept: true,
            queue_full,
        }
    }

    /// The history bytes this view's sessions keep, as the history budgets count them (see
    /// [History budgets](StoreLimits#history-budgets)): an owner's view, the owner's, within
    /// [`StoreLimits::max_history_bytes_per_owner`]; the unscoped store, every session's,
    /// within [`StoreLimits::max_history_bytes`].
    pub fn history_bytes(&self) -> usize {
        let (sessions, _) = self.shared.lock();
        match &self.owner {
            Some(owner) => sessions.owned.get(owner).map_or(0, |held| held.bytes),
            None => sessions.bytes,
        }
    }

    /// A copy of session `id`'s history, oldest first; `None` for a session this view does not
    /// see.
    pub fn history(&self, id: &SessionId) -> Option<Vec<SessionUpdate>> {
        let (mut sessions, now) = self.shared.lock();
        self.find(&mut sessions, id, now)
            .map(|s| s.history.iter().cloned().collect())
    }

    /// Sends session `id`'s history to the client as `session/update` notifications, oldest
    /// first. The connection delivers them before any response sent afterwards, so return
    /// `session/load`'s answer after this.
    ///
    /// The history may have been recorded for another client: updates this one did not
    /// advertise (compaction updates without `session.compaction`) are left out of its replay.
    ///
    /// # Errors
    ///
    /// `-32002` for a session this view does not see; the connection's error when it closes.
    pub async fn replay(&self, client: &ClientHandle, id: &SessionId) -> Result<(), ErrorObject> {
        let history = self.history(id).ok_or_else(|| not_found(id))?;
        let cx = client.session(id.clone());
        for update in history {
            if cx.unadvertised(&update).is_none() {
                cx.update(update).await?;
            }
        }
        Ok(())
    }

    /// `session/load` in one call: runs `f` on the session's state (to take the request's
    /// `cwd`, reopen it...), then [`replay`](Self::replay)s its history. A durable store
    /// reads the session from its database first (see [`fetch`](Self::fetch)). Returns what `f`
    /// returned, to build the answer from.
    ///
    /// # Errors
    ///
    /// `-32002` for a session this view does not see; the connection's error when it closes.
    pub async fn load<T>(
        &self,
        client: &ClientHandle,
        id: &SessionId,
        f: impl FnOnce(&mut S) -> T,
    ) -> Result<T, ErrorObject> {
        self.refresh(id).await?;
        let value = self.with(id, f)?;
        self.replay(client, id).await?;
        Ok(value)
    }

    /// Moves the store's clock `by` forward (tests of the expiry).
    #[cfg(test)]
    fn advance(&self, by: Duration) {
        *self
            .shared
            .clock
            .lock()
            .unwrap_or_else(PoisonError::into_inner) += by;
    }
}

impl<S: Send + 'static> SessionStore<S> {
    /// The wait for room in the write queue after `kept` (see [`ready`](Self::ready)).
    fn backpressure(&self, kept: &Kept) -> Option<BoxFuture<'static, ()>> {
        let full = match kept.queue_full {
            Some(full) => full,
            None => self.queue_full(),
        };
        if !full {
            return None;
        }
        let store = self.clone();
        Some(Box::pin(async move { store.ready().await }))
    }

    /// Starts a prompt turn in session `id`: until the returned guard is dropped, another turn
    /// of the session is refused, from any connection and through any view of the store.
    /// Call it first in [`Agent::prompt`](crate::Agent::prompt), and keep the guard until the
    /// answer:
    ///
    /// ```no_run
    /// # use acp_agent::{PromptContext, SessionStore};
    /// # use acp_types::*;
    /// # #[allow(dead_code)]
    /// async fn prompt(
    ///     sessions: &SessionStore<()>,
    ///     req: PromptRequest,
    ///     cx: PromptContext,
    /// ) -> Result<PromptResponse, ErrorObject> {
    ///     let _turn = sessions.begin_turn(&req.session_id)?; // Ends when dropped, at the answer.
    ///     let cx = sessions.recording(cx);
    ///     cx.record_prompt(&req.prompt);
    ///     cx.message("Hello").await?;
    ///     Ok(PromptResponse::new(StopReason::EndTurn))
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// `-32002` for a session this view does not see; `-32600` (invalid request, as the
    /// library answers a second prompt on one connection) while a turn of the session runs.
    pub fn begin_turn(&self, id: &SessionId) -> Result<TurnGuard, ErrorObject> {
        let (mut sessions, now) = self.shared.lock();
        let sessions = &mut *sessions;
        let number = self.number(sessions, id).ok_or_else(|| not_found(id))?;
        let stored = sessions.touch(number, now).ok_or_else(|| not_found(id))?;
        self.shared.changed(Pending::State(id.clone()));
        if stored.turn {
            return Err(ErrorObject::invalid_request(format_args!(
                "a prompt is already running in session {id}"
            )));
        }
        stored.turn = true;
        let used = stored.used;
        sessions.idle.remove(&(used, number));
        let shared: Arc<dyn EndTurn> = self.shared.clone();
        Ok(TurnGuard::new(shared, number, id.clone()))
    }

    /// `cx` recording every conversation update it (and the tool-call and plan handles made
    /// from it) sends into this store, under its session's history. Updates for a session
    /// this view does not see are sent but not kept. Pair it with
    /// [`begin_turn`](Self::begin_turn), which keeps turns of one session apart.
    ///
    /// With a durable store, a context whose update finds the write queue full waits for
    /// room before it sends (see [`DurableOptions`]).
    pub fn recording(&self, cx: PromptContext) -> PromptContext {
        cx.with_recorder(Arc::new(self.clone()))
    }
}

impl<S: Send + 'static> Record for SessionStore<S> {
    fn keep(&self, id: &SessionId, update: SessionUpdate) -> Backpressure {
        let kept = SessionStore::keep(self, id, update);
        self.backpressure(&kept)
    }

    fn record(&self, id: &SessionId, update: SessionUpdate) -> (Outgoing, Backpressure) {
        if !is_conversation(&update) {
            return (Outgoing::Update(update), self.backpressure(&Kept::NOT));
        }
        // A durable store encodes what it keeps: when that is the update as it goes out (no
        // terminal content left out), the same JSON is sent, and the update itself is kept.
        if self.shared.durable.is_some() && !has_terminals(&update) {
            return match serde_json::value::to_raw_value(&update) {
                Ok(json) => {
                    let kept = self.keep_encoded(id, update, Some(json.get().to_owned()));
                    (Outgoing::Encoded(json), self.backpressure(&kept))
                }
                Err(error) => {
                    tracing::error!(session = %id, %error, "cannot encode an update to record");
                    (Outgoing::Update(update), self.backpressure(&Kept::NOT))
                }
            };
        }
        let kept = SessionStore::keep(self, id, update.clone());
        (Outgoing::Update(update), self.backpressure(&kept))
    }
}

/// What keeping an update did.
struct Kept {
    /// The update is in the history.
    kept: bool,
    /// Whether the write queue was at its bound once the update was queued; `None` when
    /// nothing was queued (look at the queue).
    queue_full: Option<bool>,
}

impl Kept {
    /// Nothing kept, nothing queued.
    const NOT: Self = Self {
        kept: false,
        queue_full: None,
    };
}

fn not_found(id: &SessionId) -> ErrorObject {
    ErrorObject::session_not_found(id.as_str())
}
