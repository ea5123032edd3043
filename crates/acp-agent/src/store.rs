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
//!         let id = self.sessions.create(Session { cwd: req.cwd });
//!         Ok(NewSessionResponse::new(id))
//!     }
//!     async fn load_session(&self, req: LoadSessionRequest) -> Result<LoadSessionResponse, ErrorObject> {
//!         // Replays the recorded updates, then answers: the order the spec asks for.
//!         self.sessions.load(&self.client, &req.session_id, |s| s.cwd = req.cwd.clone()).await?;
//!         Ok(LoadSessionResponse::new())
//!     }
//!     async fn prompt(&self, req: PromptRequest, cx: PromptContext) -> Result<PromptResponse, ErrorObject> {
//!         self.sessions.with(&req.session_id, |_| ())?; // Unknown session: -32002.
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
//! let sessions = SessionStore::new(); // Share it between connections to load across them.
//! let store = sessions.clone();
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
//! // After one turn: the user's prompt and the agent's reply.
//! # let id = session.session_id;
//! assert_eq!(store.history(&id).map(|h| h.len()), Some(2));
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use acp_types::*;

use crate::{ClientHandle, PromptContext};

/// How much history a [`SessionStore`] keeps per session.
///
/// Past either bound, the **oldest** updates are dropped first, so a replay shows the end of a
/// long conversation. An update larger than `max_bytes` on its own is not kept at all (and
/// drops nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HistoryLimits {
    /// The most updates kept per session.
    pub max_updates: usize,
    /// The most bytes (of the updates' JSON) kept per session.
    pub max_bytes: usize,
}

impl HistoryLimits {
    /// The default bounds: [`DEFAULT_MAX_UPDATES`](Self::DEFAULT_MAX_UPDATES) updates and
    /// [`DEFAULT_MAX_BYTES`](Self::DEFAULT_MAX_BYTES) bytes.
    pub const DEFAULT: Self = Self {
        max_updates: Self::DEFAULT_MAX_UPDATES,
        max_bytes: Self::DEFAULT_MAX_BYTES,
    };
    /// The default count bound.
    pub const DEFAULT_MAX_UPDATES: usize = 2_000;
    /// The default size bound (2 MiB).
    pub const DEFAULT_MAX_BYTES: usize = 2 * 1024 * 1024;

    /// Bounds of `max_updates` updates and `max_bytes` bytes.
    pub const fn new(max_updates: usize, max_bytes: usize) -> Self {
        Self {
            max_updates,
            max_bytes,
        }
    }
}

impl Default for HistoryLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A bounded list of a session's updates, oldest first (see [`HistoryLimits`]).
#[derive(Debug, Clone, Default)]
pub struct History {
    limits: HistoryLimits,
    updates: VecDeque<(SessionUpdate, usize)>,
    bytes: usize,
}

impl History {
    /// An empty history within `limits`.
    pub fn new(limits: HistoryLimits) -> Self {
        Self {
            limits,
            updates: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Keeps `update`, dropping the oldest updates to stay within bounds. Returns false when
    /// `update` alone is over the byte bound, and is not kept.
    pub fn push(&mut self, update: SessionUpdate) -> bool {
        let size = json_len(&update);
        if size > self.limits.max_bytes || self.limits.max_updates == 0 {
            return false;
        }
        while self.updates.len() >= self.limits.max_updates
            || self.bytes + size > self.limits.max_bytes
        {
            match self.updates.pop_front() {
                Some((_, dropped)) => self.bytes -= dropped,
                None => break,
            }
        }
        self.bytes += size;
        self.updates.push_back((update, size));
        true
    }

    /// The updates kept, oldest first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &SessionUpdate> {
        self.updates.iter().map(|(update, _)| update)
    }

    /// How many updates are kept.
    pub fn len(&self) -> usize {
        self.updates.len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.updates.is_empty()
    }

    /// The size of the kept updates' JSON, in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets every update.
    pub fn clear(&mut self) {
        self.updates.clear();
        self.bytes = 0;
    }
}

/// The length of `update`'s JSON, measured without building it.
fn json_len(update: &SessionUpdate) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing a wire type into a counter cannot fail; count what was written if it did.
    let _ = serde_json::to_writer(&mut count, update);
    count.0
}

/// True for the updates that make up the conversation, the ones a [`SessionStore`] records
/// and `session/load` replays: the user's and agent's messages, thoughts, tool calls and
/// plans. Session state (mode, configuration options, commands, title, usage) is not
/// conversation: `session/load`'s answer and fresh updates carry it.
pub fn is_conversation(update: &SessionUpdate) -> bool {
    matches!(
        update,
        SessionUpdate::UserMessageChunk(_)
            | SessionUpdate::AgentMessageChunk(_)
            | SessionUpdate::AgentThoughtChunk(_)
            | SessionUpdate::ToolCall(_)
            | SessionUpdate::ToolCallUpdate(_)
            | SessionUpdate::Plan(_)
    )
}

/// A session in the store.
struct Stored<S> {
    id: SessionId,
    state: S,
    history: History,
}

struct Sessions<S> {
    /// Creation numbers, for stable listing and [`SessionStore::create`]'s ids.
    next: u64,
    by_number: BTreeMap<u64, Stored<S>>,
    numbers: HashMap<SessionId, u64>,
}

struct Shared<S> {
    limits: HistoryLimits,
    sessions: Mutex<Sessions<S>>,
}

/// The sessions of an agent: each one's state `S` and its bounded [`History`], which
/// [`load`](Self::load) replays to the client before `session/load` is answered.
///
/// Cheap to clone: clones share the sessions (give every connection's agent the same store
/// to let a client load a session started on another connection).
///
/// What is recorded: every conversation update (see [`is_conversation`]) sent through a
/// [`PromptContext`] made by [`recording`](Self::recording), and what
/// [`record`](Self::record) is given. Terminal content (`ToolCallContent::Terminal`) is left
/// out of the recorded copy: a replay may come after the terminal was released, when its id
/// means nothing; record its output as text with [`record`](Self::record) if the replay
/// should show it (send the live update through [`PromptContext::unrecorded`]).
///
/// An update is recorded as it is handed to the connection, before it is written: one sent by
/// a turn dropped at that very moment (a cancellation) may be in the history without having
/// reached the client.
///
/// The history is bounded per session by [`HistoryLimits`] (count and bytes, oldest dropped
/// first). Sessions themselves stay until [`remove`](Self::remove)d.
pub struct SessionStore<S> {
    shared: Arc<Shared<S>>,
}

impl<S> Clone for SessionStore<S> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<S> fmt::Debug for SessionStore<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionStore")
            .field("limits", &self.shared.limits)
            .field("sessions", &self.lock().by_number.len())
            .finish()
    }
}

impl<S> Default for SessionStore<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> SessionStore<S> {
    /// An empty store with the default [`HistoryLimits`].
    pub fn new() -> Self {
        Self::with_limits(HistoryLimits::DEFAULT)
    }

    /// An empty store keeping at most `limits` of history per session.
    pub fn with_limits(limits: HistoryLimits) -> Self {
        Self {
            shared: Arc::new(Shared {
                limits,
                sessions: Mutex::new(Sessions {
                    next: 0,
                    by_number: BTreeMap::new(),
                    numbers: HashMap::new(),
                }),
            }),
        }
    }

    /// The history bounds.
    pub fn limits(&self) -> HistoryLimits {
        self.shared.limits
    }

    fn lock(&self) -> MutexGuard<'_, Sessions<S>> {
        self.shared
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a session with a fresh id (`sess-1`, `sess-2`... in creation order) and returns
    /// the id.
    pub fn create(&self, state: S) -> SessionId {
        let mut sessions = self.lock();
        loop {
            let id = SessionId::from(format!("sess-{}", sessions.next + 1));
            if !sessions.numbers.contains_key(&id) {
                insert(&mut sessions, id.clone(), state, self.shared.limits);
                return id;
            }
            // An id taken by `insert`: try the next number.
            sessions.next += 1;
        }
    }

    /// Adds the session `id`, or replaces its state and forgets its history if it exists.
    /// Returns the state it replaced.
    pub fn insert(&self, id: impl Into<SessionId>, state: S) -> Option<S> {
        let id = id.into();
        let mut sessions = self.lock();
        let old = sessions.numbers.get(&id).copied();
        let old = old.and_then(|n| sessions.by_number.remove(&n));
        if let Some(old) = &old {
            sessions.numbers.remove(&old.id);
        }
        insert(&mut sessions, id, state, self.shared.limits);
        old.map(|s| s.state)
    }

    /// Removes a session and its history; returns its state, `None` if it was not there.
    pub fn remove(&self, id: &SessionId) -> Option<S> {
        let mut sessions = self.lock();
        let number = sessions.numbers.remove(id)?;
        sessions.by_number.remove(&number).map(|s| s.state)
    }

    /// True when the store holds session `id`.
    pub fn contains(&self, id: &SessionId) -> bool {
        self.lock().numbers.contains_key(id)
    }

    /// How many sessions the store holds.
    pub fn len(&self) -> usize {
        self.lock().by_number.len()
    }

    /// True when the store holds no session.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `f` on session `id`'s state, under the store's lock (keep it short, and never
    /// await in it).
    ///
    /// # Errors
    ///
    /// [`ErrorObject::session_not_found`] (`-32002`) for an unknown session: return it as is.
    pub fn with<T>(&self, id: &SessionId, f: impl FnOnce(&mut S) -> T) -> Result<T, ErrorObject> {
        let mut sessions = self.lock();
        let stored = find(&mut sessions, id).ok_or_else(|| not_found(id))?;
        Ok(f(&mut stored.state))
    }

    /// Runs `f` on every session's id and state in creation order, collecting what it
    /// returns (`None` skips the session).
    pub fn collect<T>(&self, mut f: impl FnMut(&SessionId, &S) -> Option<T>) -> Vec<T> {
        let sessions = self.lock();
        sessions
            .by_number
            .values()
            .filter_map(|s| f(&s.id, &s.state))
            .collect()
    }

    /// One page of `session/list`: the sessions after `cursor` (from an earlier page; `None`
    /// starts at the first) in creation order, as `info` describes them (`None` leaves a
    /// session out, for example when it does not match the request's `cwd`), at most
    /// `page_len` of them, with the cursor of the next page when there are more.
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
        let sessions = self.lock();
        let mut page = Vec::new();
        let mut next = None;
        for (number, stored) in sessions.by_number.range(after.saturating_add(1)..) {
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
    /// it was not kept: not conversation, larger than the whole byte bound, or the session is
    /// unknown.
    pub fn record(&self, id: &SessionId, update: &SessionUpdate) -> bool {
        if !is_conversation(update) {
            return false;
        }
        let mut sessions = self.lock();
        match find(&mut sessions, id) {
            Some(stored) => stored.history.push(without_terminals(update)),
            None => false,
        }
    }

    /// A copy of session `id`'s history, oldest first; `None` for an unknown session.
    pub fn history(&self, id: &SessionId) -> Option<Vec<SessionUpdate>> {
        let mut sessions = self.lock();
        find(&mut sessions, id).map(|s| s.history.iter().cloned().collect())
    }

    /// Sends session `id`'s history to the client as `session/update` notifications, oldest
    /// first. The connection delivers them before any response sent afterwards, so return
    /// `session/load`'s answer after this.
    ///
    /// # Errors
    ///
    /// `-32002` for an unknown session; the connection's error when it closes.
    pub async fn replay(&self, client: &ClientHandle, id: &SessionId) -> Result<(), ErrorObject> {
        let history = self.history(id).ok_or_else(|| not_found(id))?;
        let cx = client.session(id.clone());
        for update in history {
            cx.update(update).await?;
        }
        Ok(())
    }

    /// `session/load` in one call: runs `f` on the session's state (to take the request's
    /// `cwd`, reopen it...), then [`replay`](Self::replay)s its history. Returns what `f`
    /// returned, to build the answer from.
    ///
    /// # Errors
    ///
    /// `-32002` for an unknown session; the connection's error when it closes.
    pub async fn load<T>(
        &self,
        client: &ClientHandle,
        id: &SessionId,
        f: impl FnOnce(&mut S) -> T,
    ) -> Result<T, ErrorObject> {
        let value = self.with(id, f)?;
        self.replay(client, id).await?;
        Ok(value)
    }
}

impl<S: Send + 'static> SessionStore<S> {
    /// `cx` recording every conversation update it (and the tool-call and plan handles made
    /// from it) sends into this store, under its session's history. Updates for a session
    /// the store does not hold are sent but not kept.
    pub fn recording(&self, cx: PromptContext) -> PromptContext {
        let store = self.clone();
        cx.with_recorder(Arc::new(move |id: &SessionId, update: &SessionUpdate| {
            store.record(id, update);
        }))
    }
}

fn insert<S>(sessions: &mut Sessions<S>, id: SessionId, state: S, limits: HistoryLimits) {
    sessions.next += 1;
    let number = sessions.next;
    sessions.numbers.insert(id.clone(), number);
    sessions.by_number.insert(
        number,
        Stored {
            id,
            state,
            history: History::new(limits),
        },
    );
}

fn find<'a, S>(sessions: &'a mut Sessions<S>, id: &SessionId) -> Option<&'a mut Stored<S>> {
    let number = *sessions.numbers.get(id)?;
    sessions.by_number.get_mut(&number)
}

fn not_found(id: &SessionId) -> ErrorObject {
    ErrorObject::session_not_found(id.as_str())
}

/// `update` without terminal content.
fn without_terminals(update: &SessionUpdate) -> SessionUpdate {
    let mut update = update.clone();
    let content = match &mut update {
        SessionUpdate::ToolCall(call) => &mut call.content,
        SessionUpdate::ToolCallUpdate(call) => &mut call.content,
        _ => return update,
    };
    if let Some(list) = content {
        list.retain(|c| !matches!(c, ToolCallContent::Terminal(_)));
    }
    update
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(text: &str) -> SessionUpdate {
        SessionUpdate::AgentMessageChunk(ContentChunk::new(text.to_owned()))
    }

    fn texts(history: &History) -> Vec<String> {
        history
            .iter()
            .map(|u| match u {
                SessionUpdate::AgentMessageChunk(c) => match &c.content {
                    ContentBlock::Text(t) => t.text.clone(),
                    _ => String::new(),
                },
                _ => String::new(),
            })
            .collect()
    }

    #[test]
    fn history_drops_the_oldest_past_its_count() {
        let mut history = History::new(HistoryLimits::new(3, usize::MAX));
        for i in 0..5 {
            assert!(history.push(chunk(&i.to_string())));
        }
        assert_eq!(texts(&history), ["2", "3", "4"]);
    }

    #[test]
    fn history_drops_the_oldest_past_its_bytes_and_refuses_an_update_over_the_bound() {
        let one = json_len(&chunk("aaaa"));
        assert_eq!(one, serde_json::to_vec(&chunk("aaaa")).unwrap().len());
        let mut history = History::new(HistoryLimits::new(100, 2 * one));
        for text in ["aaaa", "bbbb", "cccc"] {
            history.push(chunk(text));
        }
        assert_eq!(texts(&history), ["bbbb", "cccc"]);
        assert_eq!(history.bytes(), 2 * one);
        // Too large for the whole bound: not kept, and nothing dropped for it.
        assert!(!history.push(chunk(&"x".repeat(2 * one))));
        assert_eq!(texts(&history), ["bbbb", "cccc"]);
    }

    #[test]
    fn only_conversation_is_recorded_and_terminals_are_left_out() {
        let store = SessionStore::new();
        let id = store.create(());
        assert_eq!(id.as_str(), "sess-1");
        assert!(!store.record(
            &id,
            &SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new("ask"))
        ));
        let update = ToolCallUpdate::new("call-1").content(vec![
            ToolCallContent::from(Terminal::new("term-1")),
            ToolCallContent::from("done"),
        ]);
        assert!(store.record(&id, &SessionUpdate::from(update)));
        let history = store.history(&id).unwrap();
        let SessionUpdate::ToolCallUpdate(kept) = &history[0] else {
            panic!("{history:?}");
        };
        assert_eq!(kept.content.as_ref().map(Vec::len), Some(1));
        assert!(!store.record(&SessionId::from("nope"), &chunk("x")));
    }

    #[test]
    fn sessions_are_created_replaced_and_removed() {
        let store = SessionStore::new();
        assert_eq!(store.create(1).as_str(), "sess-1");
        assert_eq!(store.insert("sess-2", 2), None);
        assert_eq!(store.create(3).as_str(), "sess-3", "sess-2 was taken");
        store.record(&"sess-2".into(), &chunk("x"));
        assert_eq!(store.insert("sess-2", 20), Some(2));
        assert_eq!(store.history(&"sess-2".into()).map(|h| h.len()), Some(0));
        assert_eq!(store.with(&"sess-2".into(), |s| *s), Ok(20));
        assert_eq!(store.remove(&"sess-1".into()), Some(1));
        let err = store.with(&"sess-1".into(), |_| ()).unwrap_err();
        assert_eq!(err.code, ErrorCode::RESOURCE_NOT_FOUND);
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn listing_pages_in_creation_order() {
        let store = SessionStore::new();
        for n in 0..5 {
            store.create(n);
        }
        let info =
            |id: &SessionId, n: &i32| (n % 2 == 0).then(|| SessionInfo::new(id.clone(), "/"));
        let page = store.list(None, 2, info).unwrap();
        let ids: Vec<_> = page
            .sessions
            .iter()
            .map(|s| s.session_id.as_str())
            .collect();
        assert_eq!(ids, ["sess-1", "sess-3"]);
        let page = store.list(page.next_cursor.as_deref(), 2, info).unwrap();
        let ids: Vec<_> = page
            .sessions
            .iter()
            .map(|s| s.session_id.as_str())
            .collect();
        assert_eq!(ids, ["sess-5"]);
        assert_eq!(page.next_cursor, None);
        assert!(store.list(Some("bogus"), 2, info).is_err());
    }
}
