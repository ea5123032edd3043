//! A [`SessionStore`] kept in a database: what it needs of the agent's state, the checks of
//! what comes from the wire, and the calls that reach the database (load a session this
//! process does not hold, list and count by query, wait for the writer).

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use acp_types::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::backend::{Backend, ListQuery, MAX_CWD_LEN, MAX_ID_LEN, SessionRow, StoredSession};
use super::queue::{Channel, unavailable};
use super::{DurableOptions, SessionStore, Stored, not_found, writer};

/// What a durable store reads from the agent's state of a session besides its serialized
/// form: the columns `session/list` filters and shows.
///
/// ```
/// use acp_agent::SessionState;
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Session {
///     cwd: String,
///     title: Option<String>,
/// }
///
/// impl SessionState for Session {
///     fn cwd(&self) -> &str {
///         &self.cwd
///     }
///     fn title(&self) -> Option<&str> {
///         self.title.as_deref()
///     }
/// }
///
/// let session = Session { cwd: "/work".into(), title: None };
/// assert_eq!((session.cwd(), session.title()), ("/work", None));
/// ```
pub trait SessionState {
    /// The session's working directory (what `session/list`'s `cwd` matches).
    fn cwd(&self) -> &str;

    /// The session's title, if it has one.
    fn title(&self) -> Option<&str> {
        None
    }
}

/// The database of a durable store, how to read and write the agent's state, and the writer's
/// queue.
pub(super) struct Durable<S> {
    pub(super) backend: Arc<dyn Backend>,
    pub(super) channel: Arc<Channel>,
    encode: fn(&S) -> serde_json::Result<String>,
    decode: fn(&str) -> serde_json::Result<S>,
    cwd: for<'a> fn(&'a S) -> &'a str,
    title: for<'a> fn(&'a S) -> Option<&'a str>,
}

impl<S> Drop for Durable<S> {
    fn drop(&mut self) {
        // The writer ends once it wrote what it can.
        self.channel.close();
    }
}

impl<S> Durable<S> {
    /// Fails when a session of `state` cannot be made now: the database is down, or its cwd
    /// is over [`MAX_CWD_LEN`].
    pub(super) fn check_new(&self, state: &S) -> Result<(), ErrorObject> {
        check_cwd((self.cwd)(state))?;
        if !self.channel.healthy() {
            return Err(self.channel.failure());
        }
        Ok(())
    }

    /// `stored`'s row, used now.
    pub(super) fn row(&self, stored: &Stored<S>) -> serde_json::Result<SessionRow> {
        Ok(SessionRow::new(
            stored.id.as_str().to_owned(),
            stored.owner.as_deref().map(str::to_owned),
            (self.cwd)(&stored.state).to_owned(),
            (self.title)(&stored.state).map(str::to_owned),
            stored.created_ms,
            now_ms(),
            (self.encode)(&stored.state)?,
        ))
    }
}

/// Milliseconds since the Unix epoch, now.
pub(super) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A creation time for a new session: now, in milliseconds since the Unix epoch, and later
/// than any this process gave before, so that the sessions one process makes are listed in
/// the order it made them.
pub(super) fn created_ms() -> i64 {
    static LAST: AtomicI64 = AtomicI64::new(i64::MIN);
    let now = now_ms();
    let previous = LAST
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
            Some(now.max(last.saturating_add(1)))
        })
        .unwrap_or(now);
    now.max(previous.saturating_add(1))
}

/// `-32602` for a session id longer than any a durable store gives.
pub(super) fn check_id(id: &SessionId) -> Result<(), ErrorObject> {
    if id.as_str().len() > MAX_ID_LEN {
        return Err(ErrorObject::invalid_params(format_args!(
            "session id too long: at most {MAX_ID_LEN} bytes"
        )));
    }
    Ok(())
}

/// `-32602` for a cwd longer than a durable store keeps.
fn check_cwd(cwd: &str) -> Result<(), ErrorObject> {
    if cwd.len() > MAX_CWD_LEN {
        return Err(ErrorObject::invalid_params(format_args!(
            "cwd too long: at most {MAX_CWD_LEN} bytes"
        )));
    }
    Ok(())
}

/// The `-32603` of a database that failed a read, logged.
fn failed(error: &super::backend::BackendError) -> ErrorObject {
    tracing::warn!(%error, "the session storage failed");
    unavailable()
}

/// What a durable store's `session/list` cursor starts with (the memory store's is `after-`).
const CURSOR: &str = "at-";

/// The `(created_ms, id)` a durable store's cursor holds.
fn parse_cursor(cursor: &str) -> Result<(i64, &str), ErrorObject> {
    cursor
        .strip_prefix(CURSOR)
        .and_then(|rest| rest.split_once('-'))
        .and_then(|(ms, id)| Some((ms.parse::<i64>().ok()?, id)))
        .filter(|(_, id)| id.len() <= MAX_ID_LEN)
        .ok_or_else(|| ErrorObject::invalid_params("invalid cursor"))
}

impl<S> SessionStore<S>
where
    S: SessionState + Serialize + DeserializeOwned + Send + 'static,
{
    /// An empty view of the sessions kept in `backend` (a database: see the
    /// `acp-store-sqlite` and `acp-store-postgres` crates), unscoped like [`new`](Self::new)'s,
    /// within `options`.
    ///
    /// Memory holds the sessions this process uses, and every change goes to the database
    /// through a group-commit writer (see [`DurableOptions`]): the sync methods serve what
    /// memory holds, and the async ones reach the database for the rest, so that a session
    /// made before a restart, or by another process sharing the database, is listed
    /// ([`list_async`](Self::list_async)), loaded ([`load`](Self::load)) and taken up
    /// ([`fetch`](Self::fetch)) here. Owners ([`owned_by`](Self::owned_by)) are kept with the
    /// sessions: give each user the same owner on every process and after every restart.
    ///
    /// The runtime needs timers (`enable_time`, or `enable_all`): the writer waits out its
    /// window. On one without them the writer stops at once, and the store says why (see
    /// [`is_available`](Self::is_available)) instead of making producers wait for it.
    ///
    /// # Errors
    ///
    /// An internal error when called outside a Tokio runtime (the writer is a task of it).
    pub fn durable(backend: impl Backend, options: DurableOptions) -> Result<Self, ErrorObject> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            ErrorObject::internal_error("a durable session store needs a Tokio runtime")
        })?;
        let backend: Arc<dyn Backend> = Arc::new(backend);
        let channel = Arc::new(Channel::new(options.max_queued, options.max_queued_bytes));
        let mut store = Self::with_store_limits(options.limits);
        let shared = Arc::get_mut(&mut store.shared)
            .ok_or_else(|| ErrorObject::internal_error("a new store is shared: never the case"))?;
        shared.durable = Some(Durable {
            backend: Arc::clone(&backend),
            channel: Arc::clone(&channel),
            encode: |state| serde_json::to_string(state),
            decode: |json| serde_json::from_str(json),
            cwd: |state| state.cwd(),
            title: |state| state.title(),
        });
        runtime.spawn(writer::supervised(
            Arc::downgrade(&store.shared),
            channel,
            backend,
            options,
        ));
        Ok(store)
    }
}

impl<S> SessionStore<S> {
    /// True when the sessions are kept in a database ([`durable`](Self::durable)).
    pub fn is_durable(&self) -> bool {
        self.shared.durable.is_some()
    }

    /// False while the database of a durable store fails (the writer retries by itself), and
    /// for good once its writer stopped (a panic, or a runtime without timers: see
    /// [`durable`](Self::durable)); always true in memory.
    pub fn is_available(&self) -> bool {
        self.shared
            .durable
            .as_ref()
            .is_none_or(|durable| durable.channel.healthy())
    }

    /// Waits until every change made so far is in the database (at once in memory). Call it
    /// before the process exits on purpose, so that the last window is not lost.
    ///
    /// # Errors
    ///
    /// An internal error while the database does not answer.
    pub async fn flush(&self) -> Result<(), ErrorObject> {
        match &self.shared.durable {
            Some(durable) => durable.channel.flushed().await,
            None => Ok(()),
        }
    }

    /// Waits while the write queue is full (never in memory, nor while the database is down):
    /// the backpressure of a recording [`PromptContext`](crate::PromptContext), for code that
    /// calls [`record`](Self::record) itself in a loop.
    pub async fn ready(&self) {
        if let Some(durable) = &self.shared.durable {
            durable.channel.room().await;
        }
    }

    /// True when the write queue is full (see [`ready`](Self::ready)).
    pub(super) fn queue_full(&self) -> bool {
        self.shared
            .durable
            .as_ref()
            .is_some_and(|durable| durable.channel.full())
    }

    /// The oldest last use of a session that has not expired, in milliseconds since the Unix
    /// epoch.
    fn cutoff_ms(&self) -> i64 {
        self.shared.limits.idle_expiry.map_or(i64::MIN, |expiry| {
            now_ms().saturating_sub(i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX))
        })
    }

    /// True when this view may see a session of `owner`.
    fn may_see(&self, owner: Option<&str>) -> bool {
        self.owner.is_none() || self.owner.as_deref() == owner
    }

    /// Makes session `id` this process's when memory does not hold it, as the database has
    /// it (a durable store; in memory, only checks that this view sees it): after a restart,
    /// or when another process made it. Call it before the sync methods in the requests that
    /// name a session (`session/resume`, `session/prompt`, ...). A session memory holds is
    /// served from memory without a query; [`load`](Self::load) reads it again from the
    /// database (another process may have served it since), unless a turn of it runs here.
    ///
    /// While the database does not answer, a session memory holds is served from memory.
    ///
    /// # Errors
    ///
    /// `-32002` for a session this view does not see (none, expired, or another owner's);
    /// `-32602` for an id longer than [`MAX_ID_LEN`]; `-32603` when the database does not
    /// answer and memory does not hold the session, or its stored form is unreadable.
    pub async fn fetch(&self, id: &SessionId) -> Result<(), ErrorObject> {
        self.take_up(id, false).await
    }

    /// Like [`fetch`](Self::fetch), reading the database even when memory holds the session
    /// (another process may have served it since): what [`load`](Self::load) does first. A
    /// session whose turn runs here is kept as memory has it.
    ///
    /// # Errors
    ///
    /// Those of [`fetch`](Self::fetch).
    pub async fn refresh(&self, id: &SessionId) -> Result<(), ErrorObject> {
        self.take_up(id, true).await
    }

    /// [`fetch`](Self::fetch), and with `refresh` a read of the database even when memory
    /// holds the session.
    async fn take_up(&self, id: &SessionId, refresh: bool) -> Result<(), ErrorObject> {
        let Some(durable) = &self.shared.durable else {
            return match self.contains(id) {
                true => Ok(()),
                false => Err(not_found(id)),
            };
        };
        check_id(id)?;
        let cached = self.contains(id);
        if cached && !refresh {
            return Ok(());
        }
        if let Err(error) = durable.channel.flushed().await {
            return if cached { Ok(()) } else { Err(error) };
        }
        let found = match durable.backend.load(id.as_str()).await {
            Ok(found) => found,
            Err(error) if cached => {
                tracing::warn!(%error, session = %id, "serving a session from memory");
                return Ok(());
            }
            Err(error) => return Err(failed(&error)),
        };
        let cutoff = self.cutoff_ms();
        let Some(found) = found.filter(|found| found.row.updated_ms >= cutoff) else {
            // Deleted or expired, here or by another process.
            if cached {
                let (mut sessions, _) = self.shared.lock();
                if let Some(number) = self.number(&sessions, id) {
                    sessions.take(number);
                }
            }
            return Err(not_found(id));
        };
        if !self.may_see(found.row.owner.as_deref()) {
            return Err(not_found(id));
        }
        self.install(durable, id, found)
    }

    /// Puts `found` in memory in place of what memory holds of session `id`.
    fn install(
        &self,
        durable: &Durable<S>,
        id: &SessionId,
        found: StoredSession,
    ) -> Result<(), ErrorObject> {
        let unreadable = |error: serde_json::Error| {
            tracing::error!(session = %id, %error, "a stored session is unreadable");
            ErrorObject::internal_error(format_args!(
                "the stored session {id} is unreadable: {error}"
            ))
        };
        let state = (durable.decode)(&found.row.state).map_err(unreadable)?;
        let mut history = Vec::with_capacity(found.history.len());
        for (_, json) in &found.history {
            let update: SessionUpdate = serde_json::from_str(json).map_err(unreadable)?;
            history.push((update, json.len()));
        }
        let seq = found
            .history
            .last()
            .map_or(0, |(seq, _)| seq.saturating_add(1));
        let limits = &self.shared.limits;
        let (mut sessions, now) = self.shared.lock();
        match sessions.numbers.get(id).copied() {
            Some(number) if sessions.by_number.get(&number).is_some_and(|s| s.turn) => {
                return Ok(());
            }
            Some(number) => {
                sessions.take(number);
            }
            None => self.check_room(&sessions)?,
        }
        let owner = found.row.owner.map(Arc::<str>::from);
        let number = sessions.add(
            id.clone(),
            state,
            owner,
            limits.history,
            now,
            found.row.created_ms,
        );
        for (update, size) in history {
            sessions.record(number, now, update, size, limits);
        }
        if let Some(stored) = sessions.by_number.get_mut(&number) {
            stored.seq = seq;
        }
        Ok(())
    }

    /// Like [`create`](Self::create), with the bounds counted in the database for a durable
    /// store: the sessions of this view's owner and of the store on every process sharing it,
    /// and those made before a restart.
    ///
    /// # Errors
    ///
    /// Those of [`create`](Self::create); `-32603` when the database does not answer (the
    /// session is not made); `-32602` for a cwd over [`MAX_CWD_LEN`].
    pub async fn create_async(&self, state: S) -> Result<SessionId, ErrorObject> {
        if let Some(durable) = &self.shared.durable {
            durable.check_new(&state)?;
            durable.channel.flushed().await?;
            let cutoff = self.cutoff_ms();
            let owner = match self.owner.as_deref() {
                Some(owner) => Some(
                    durable
                        .backend
                        .count(Some(owner), cutoff)
                        .await
                        .map_err(|e| failed(&e))?,
                ),
                None => None,
            };
            let all = durable
                .backend
                .count(None, cutoff)
                .await
                .map_err(|e| failed(&e))?;
            let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
            self.room_for(owner.map(count), count(all))?;
        }
        self.create(state)
    }

    /// Like [`remove`](Self::remove), for a session memory may not hold (a durable store
    /// [`fetch`](Self::fetch)es it first, so that the owner is checked).
    ///
    /// # Errors
    ///
    /// Those of [`fetch`](Self::fetch) but `-32002` (`Ok(None)`).
    pub async fn remove_async(&self, id: &SessionId) -> Result<Option<S>, ErrorObject> {
        match self.fetch(id).await {
            Ok(()) => Ok(self.remove(id)),
            Err(error) if error.code == ErrorObject::session_not_found("").code => Ok(None),
            Err(error) => Err(error),
        }
    }
}

impl<S: SessionState> SessionStore<S> {
    /// One page of `session/list`: like [`list`](Self::list), only the sessions in `cwd`
    /// (when given), and for a durable store a database query (every session of this view's
    /// owner, wherever it was made). Cursors are opaque: a durable store's hold a creation
    /// time and an id, never anything of another owner.
    ///
    /// # Errors
    ///
    /// `-32602` for a cursor this store did not give or a cwd over [`MAX_CWD_LEN`];
    /// `-32603` when the database does not answer.
    pub async fn list_async(
        &self,
        cursor: Option<&str>,
        page_len: usize,
        cwd: Option<&str>,
        mut info: impl FnMut(&SessionId, &S) -> Option<SessionInfo>,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        if let Some(cwd) = cwd {
            check_cwd(cwd)?;
        }
        let Some(durable) = &self.shared.durable else {
            return self.list(cursor, page_len, |id, state| {
                cwd.is_none_or(|cwd| cwd == state.cwd())
                    .then(|| info(id, state))
                    .flatten()
            });
        };
        let after = cursor.map(parse_cursor).transpose()?;
        durable.channel.flushed().await?;
        let page_len = page_len.max(1);
        let query = ListQuery {
            owner: self.owner.as_deref(),
            cwd,
            after,
            updated_since_ms: self.cutoff_ms(),
            limit: page_len + 1,
        };
        let rows = durable.backend.list(&query).await.map_err(|e| failed(&e))?;
        let mut page = Vec::with_capacity(rows.len().min(page_len));
        for row in rows.iter().take(page_len) {
            let state = match (durable.decode)(&row.state) {
                Ok(state) => state,
                Err(error) => {
                    tracing::error!(session = %row.id, %error, "a stored session is unreadable: not listed");
                    continue;
                }
            };
            if let Some(entry) = info(&SessionId::from(row.id.clone()), &state) {
                page.push(entry);
            }
        }
        let response = ListSessionsResponse::new(page);
        Ok(
            match rows.get(page_len - 1).filter(|_| rows.len() > page_len) {
                Some(last) => {
                    response.next_cursor(format!("{CURSOR}{}-{}", last.created_ms, last.id))
                }
                None => response,
            },
        )
    }
}

/// Session `id` in memory (whoever owns it).
pub(super) fn lookup<'a, S>(
    sessions: &'a super::Sessions<S>,
    id: &SessionId,
) -> Option<&'a Stored<S>> {
    sessions.by_number.get(sessions.numbers.get(id)?)
}
