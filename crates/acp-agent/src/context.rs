//! What a running prompt turn gets: its session, the client, and the cancellation signal.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use acp_types::*;

use crate::signal::Signal;
use crate::terminal::NewTerminal;
use crate::tools::{IntoPlanEntry, PlanHandle, ToolCallHandle};
use crate::{ClientHandle, Error, TerminalHandle};

/// The turn was cancelled while waiting: see [`PromptContext::or_cancelled`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the prompt turn was cancelled")
    }
}

impl std::error::Error for Cancelled {}

impl From<Cancelled> for ErrorObject {
    /// `-32800`: the library ends a cancelled turn with `stopReason: "cancelled"` anyway.
    fn from(_: Cancelled) -> Self {
        ErrorObject::request_cancelled()
    }
}

/// Keeps a copy of the updates a context sends (see [`SessionStore::recording`](crate::SessionStore::recording)).
pub(crate) trait Record: Send + Sync {
    /// Keeps `update` of session `id`, which is not sent.
    fn keep(&self, id: &SessionId, update: SessionUpdate) -> Backpressure;

    /// Keeps a copy of `update` of session `id`, which is sent next: returns what to send.
    fn record(&self, id: &SessionId, update: SessionUpdate) -> (Outgoing, Backpressure);
}

/// While the store's write queue is full, the wait for room before sending (backpressure on
/// the turn).
pub(crate) type Backpressure = Option<futures::future::BoxFuture<'static, ()>>;

/// A v1 `session/update`'s update as [`Record::record`] gives it back to be sent.
#[allow(
    clippy::large_enum_variant,
    reason = "moved once from the recorder to the send; boxing would allocate per update (a v1 update is large only with the draft features)"
)]
pub(crate) enum Outgoing {
    /// The update itself (the recorder kept a copy, or did not keep it).
    Update(SessionUpdate),
    /// The update's JSON: the recorder encoded it to keep it, exactly as it goes on the wire,
    /// and kept the update itself. Sending it saves encoding the update a second time.
    Encoded(Box<serde_json::value::RawValue>),
}

/// A context's [`Record`].
pub(crate) type Recorder = Arc<dyn Record>;

/// The context of one prompt turn: pushes updates for its session without repeating the
/// session id, reaches the client, and tells when the client cancelled the turn.
///
/// Cheap to clone; clones share the cancellation signal.
#[derive(Clone)]
pub struct PromptContext {
    client: ClientHandle,
    session_id: SessionId,
    cancel: Signal,
    recorder: Option<Recorder>,
    /// On a v2 connection, the id of the turn's user message: its recorded chunks carry it.
    #[cfg(feature = "unstable_protocol_v2")]
    user_message: Option<MessageId>,
}

impl fmt::Debug for PromptContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptContext")
            .field("session_id", &self.session_id)
            .field("cancelled", &self.is_cancelled())
            .field("recording", &self.recorder.is_some())
            .finish_non_exhaustive()
    }
}

impl PromptContext {
    pub(crate) fn new(client: ClientHandle, session_id: SessionId, cancel: Signal) -> Self {
        Self {
            client,
            session_id,
            cancel,
            recorder: None,
            #[cfg(feature = "unstable_protocol_v2")]
            user_message: None,
        }
    }

    /// The context of a v2 turn whose user message is `id`.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn with_user_message(mut self, id: MessageId) -> Self {
        self.user_message = Some(id);
        self
    }

    pub(crate) fn with_recorder(mut self, recorder: Recorder) -> Self {
        self.recorder = Some(recorder);
        self
    }

    /// The same context without recording: what it sends is not kept in a
    /// [`SessionStore`](crate::SessionStore)'s history (for a live-only update whose
    /// recorded form differs).
    pub fn unrecorded(&self) -> PromptContext {
        Self {
            recorder: None,
            ..self.clone()
        }
    }

    /// Records the user's prompt as `user_message_chunk`s, without sending them (the client
    /// has it), so that a replay shows both sides. Does nothing unless the context is
    /// [recording](crate::SessionStore::recording).
    pub fn record_prompt(&self, prompt: &[ContentBlock]) {
        if let Some(record) = &self.recorder {
            for block in prompt {
                #[allow(unused_mut)] // Without v2 the chunk is recorded as it is.
                let mut chunk = ContentChunk::new(block.clone());
                #[cfg(feature = "unstable_protocol_v2")]
                {
                    chunk.message_id = self.user_message.clone();
                }
                // Not sent: nothing to hold back.
                let _ = record.keep(&self.session_id, SessionUpdate::UserMessageChunk(chunk));
            }
        }
    }

    /// The session of this turn.
    pub fn session_id(&self) -> &SessionId {
        &self.session_id
    }

    /// The handle to call the client.
    pub fn client(&self) -> &ClientHandle {
        &self.client
    }

    /// True once the client sent `session/cancel` for this session (or closed it).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_set()
    }

    /// Resolves when the client cancels the turn; use it in `tokio::select!` around long work.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn cancelled(&self) {
        self.cancel.wait().await;
    }

    /// Awaits `work` unless the turn is cancelled first: `Err(Cancelled)` then, and `work` is
    /// dropped (stopped). Use it around every long await of a turn; `?` turns [`Cancelled`]
    /// into an error that ends the turn (the library answers `stopReason: "cancelled"`).
    ///
    /// ```no_run
    /// # use acp_agent::{PromptContext};
    /// # use acp_types::*;
    /// # #[allow(dead_code)]
    /// # async fn turn(cx: PromptContext) -> Result<PromptResponse, ErrorObject> {
    /// let answer = cx.or_cancelled(async { /* call the model */ "42" }).await?;
    /// cx.message(answer).await?;
    /// # Ok(PromptResponse::new(StopReason::EndTurn)) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Cancelled`] when the client cancelled the turn before `work` finished (or before it
    /// started).
    pub async fn or_cancelled<F: Future>(&self, work: F) -> Result<F::Output, Cancelled> {
        if self.is_cancelled() {
            return Err(Cancelled);
        }
        tokio::select! {
            biased;
            () = self.cancelled() => Err(Cancelled),
            output = work => Ok(output),
        }
    }

    /// Reads a text file through the client (`fs/read_text_file`), which sees unsaved editor
    /// state.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `fs.readTextFile`; [`Error::Rpc`] when the
    /// client fails it (a missing file is `-32002`) or the connection closes.
    pub async fn read_text_file(&self, path: impl AsRef<Path>) -> Result<String, Error> {
        let request = ReadTextFileRequest::new(self.session_id.clone(), path);
        Ok(self.client.read_text_file(request).await?.content)
    }

    /// Writes a text file through the client (`fs/write_text_file`).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `fs.writeTextFile`; [`Error::Rpc`] when the
    /// client fails it or the connection closes.
    pub async fn write_text_file(
        &self,
        path: impl AsRef<Path>,
        content: impl Into<String>,
    ) -> Result<(), Error> {
        let request = WriteTextFileRequest::new(self.session_id.clone(), path, content.into());
        self.client.write_text_file(request).await.map(drop)
    }

    /// Runs `command` with `args` in a client terminal of this session; see
    /// [`TerminalHandle`].
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] without `terminal`; [`Error::Rpc`] when the client
    /// fails it or the connection closes.
    pub async fn terminal(
        &self,
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Result<TerminalHandle, Error> {
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        let mut request = CreateTerminalRequest::new(self.session_id.clone(), command);
        if !args.is_empty() {
            request = request.args(args);
        }
        self.client.terminal(request).await
    }

    /// A client terminal for `command` in this session, to set up (arguments, `cwd`,
    /// environment, output limit) and then await, which starts it (`terminal/create`).
    ///
    /// ```no_run
    /// # use acp_agent::{Error, PromptContext};
    /// # #[allow(dead_code)]
    /// # async fn turn(cx: PromptContext) -> Result<(), Error> {
    /// let terminal = cx
    ///     .new_terminal("cargo")
    ///     .args(["test", "--quiet"])
    ///     .cwd("/work/project")
    ///     .env("RUST_BACKTRACE", "1")
    ///     .output_byte_limit(64 * 1024)
    ///     .await?;
    /// let exit = terminal.wait_for_exit().await?;
    /// # let _ = exit; Ok(()) }
    /// ```
    pub fn new_terminal(&self, command: impl Into<String>) -> NewTerminal {
        NewTerminal::new(
            self.client.clone(),
            CreateTerminalRequest::new(self.session_id.clone(), command),
        )
    }

    /// Starts a tool call (a `tool_call` update, `pending`) with a fresh id; see
    /// [`ToolCallHandle`].
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn tool_call(
        &self,
        title: impl Into<String>,
        kind: ToolKind,
    ) -> Result<ToolCallHandle, Error> {
        self.start_tool_call(self.new_tool_call(title, kind)).await
    }

    /// A `pending` tool call with a fresh id (unique on the connection), not sent yet: add
    /// its tool's programmatic name (`name`, for the client's logic, where the title is for
    /// display), locations, raw input or content, then
    /// [`start_tool_call`](Self::start_tool_call).
    ///
    /// ```no_run
    /// # use acp_agent::{Error, PromptContext};
    /// # use acp_types::*;
    /// # #[allow(dead_code)]
    /// # async fn turn(cx: PromptContext) -> Result<(), Error> {
    /// let call = cx.new_tool_call("Read main.rs", ToolKind::Read)
    ///     .name("read_file")
    ///     .locations(vec![ToolCallLocation::new("/src/main.rs").line(1)])
    ///     .raw_input(serde_json::json!({"path": "/src/main.rs"}));
    /// let read = cx.start_tool_call(call).await?;
    /// # let _ = read; Ok(()) }
    /// ```
    pub fn new_tool_call(&self, title: impl Into<String>, kind: ToolKind) -> ToolCall {
        ToolCall::new(self.client.next_tool_call_id(), title)
            .kind(kind)
            .status(ToolCallStatus::Pending)
    }

    /// Starts the tool call `call` as given (its id, locations, raw input, content...); the
    /// handle's content starts with `call`'s.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn start_tool_call(&self, call: ToolCall) -> Result<ToolCallHandle, Error> {
        let handle = ToolCallHandle::new(self.clone(), &call);
        self.update(SessionUpdate::from(call)).await?;
        Ok(handle)
    }

    /// Publishes a plan; see [`PlanHandle`]. Entries are texts (pending, medium priority),
    /// `(text, priority)` pairs (pending) or whole [`PlanEntry`]s ([`IntoPlanEntry`]).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn plan(
        &self,
        entries: impl IntoIterator<Item = impl IntoPlanEntry>,
    ) -> Result<PlanHandle, Error> {
        let entries: Vec<PlanEntry> = entries
            .into_iter()
            .map(IntoPlanEntry::into_plan_entry)
            .collect();
        self.update(Plan::new(entries.clone())).await?;
        Ok(PlanHandle::new(self.clone(), entries))
    }

    /// Sends a `session/update` for this session.
    ///
    /// An update that needs a client capability (compaction updates need `session.compaction`,
    /// notices `session.notices`, draft plan operations `plan`, draft subagent updates
    /// `subagents`) goes only to a client that
    /// advertised it, unless gating is
    /// off ([`AgentOptions::gate_client_capabilities`](crate::AgentOptions::gate_client_capabilities)).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotAdvertised`] for an update the client did not advertise (nothing is
    /// sent or recorded); or when the connection is closed.
    pub async fn update(&self, update: impl Into<SessionUpdate>) -> Result<(), Error> {
        #[allow(unused_mut)] // Only v2 stamps the update.
        let mut update = update.into();
        if let Some(capability) = self.unadvertised(&update) {
            return Err(Error::CapabilityNotAdvertised {
                method: methods::client::SESSION_UPDATE,
                capability,
            });
        }
        // On v2, chunks get their message ids before they are recorded: a replay keeps them.
        #[cfg(feature = "unstable_protocol_v2")]
        if self.client.is_v2() {
            self.client.cursors().stamp(&self.session_id, &mut update);
            if let Some(record) = &self.recorder {
                // The v2 update is made from the v1 one: the store keeps a copy.
                if let Some(room) = record.keep(&self.session_id, update.clone()) {
                    room.await;
                }
            }
            // A streamed chunk of text, the common case, is written as it is.
            if let Some(chunk) = crate::v2::TextChunk::of(&self.session_id, &update) {
                return self.client.send_text_chunk_v2(&chunk).await;
            }
            // Converted before the await: the future holds one update.
            return match self.client.stamped_to_v2(&self.session_id, update)? {
                Some(update) => {
                    self.client
                        .send_stamped_v2(&self.session_id, update, None)
                        .await
                }
                None => Ok(()),
            };
        }
        let outgoing = match &self.recorder {
            Some(record) => {
                let (outgoing, room) = record.record(&self.session_id, update);
                if let Some(room) = room {
                    room.await;
                }
                outgoing
            }
            None => Outgoing::Update(update),
        };
        match outgoing {
            Outgoing::Update(update) => {
                self.client
                    .session_update(SessionNotification::new(self.session_id.clone(), update))
                    .await
            }
            Outgoing::Encoded(update) => {
                self.client
                    .session_update_encoded(&self.session_id, &update)
                    .await
            }
        }
    }

    /// Sends a v2 `session/update` for this session (feature `unstable_protocol_v2`): what v1
    /// cannot say, such as replacing or clearing a whole message
    /// ([`v2::AgentMessage`](acp_types::v2::AgentMessage) with its `messageId`), an
    /// agent-owned display terminal ([`v2::TerminalUpdate`](acp_types::v2::TerminalUpdate)
    /// with its snapshot, [`v2::TerminalOutputChunk`](acp_types::v2::TerminalOutputChunk) for
    /// live bytes) or a tool call's content chunk. It is not recorded (a
    /// [`SessionStore`](crate::SessionStore) keeps v1 updates).
    ///
    /// ```no_run
    /// # use acp_agent::{Error, PromptContext};
    /// use acp_types::v2::{TerminalOutputChunk, TerminalUpdate, ToolCallUpdate, Terminal, ToolCallContent};
    /// # #[allow(dead_code)]
    /// # async fn turn(cx: PromptContext) -> Result<(), Error> {
    /// if cx.client().is_v2() {
    ///     cx.update_v2(TerminalUpdate::new("term-1").command("cargo test").cwd("/work")).await?;
    ///     cx.update_v2(ToolCallUpdate::new("call-1").content(vec![ToolCallContent::from(Terminal::new("term-1"))])).await?;
    ///     cx.update_v2(TerminalOutputChunk::from_bytes("term-1", b"running 3 tests\n")).await?;
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NotInProtocolVersion`] on a v1 connection (nothing is sent); or when the
    /// connection is closed.
    #[cfg(feature = "unstable_protocol_v2")]
    pub async fn update_v2(
        &self,
        update: impl Into<acp_types::v2::SessionUpdate>,
    ) -> Result<(), Error> {
        let update = update.into();
        // Whatever it is, the current messages of the toolkit's chunks end here.
        if self.client.is_v2() {
            self.client.cursors().close(&self.session_id);
        }
        self.client
            .session_update_v2(&self.session_id, update)
            .await
    }

    /// Fails with [`Error::NotInProtocolVersion`] naming `what` unless the connection speaks
    /// v2.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn require_v2(&self, what: &'static str) -> Result<(), Error> {
        if self.client.is_v2() {
            return Ok(());
        }
        Err(Error::NotInProtocolVersion {
            what: what.into(),
            version: self
                .client
                .peer()
                .protocol_version()
                .unwrap_or(ProtocolVersion::V1),
        })
    }

    /// True when what this context sends is kept in a [`SessionStore`](crate::SessionStore).
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    /// On a v2 connection, sends `live` and records `recorded`, the v1 update a replay shows
    /// for it (the store keeps v1 updates): for what v2 says shorter than v1, such as a tool
    /// call's content chunk, recorded as the whole content.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) async fn update_v2_recorded(
        &self,
        live: impl Into<acp_types::v2::SessionUpdate>,
        recorded: impl FnOnce() -> SessionUpdate,
    ) -> Result<(), Error> {
        if let Some(record) = &self.recorder {
            if let Some(room) = record.keep(&self.session_id, recorded()) {
                room.await;
            }
        }
        self.update_v2(live).await
    }

    /// The client capability `update` needs and the client did not advertise (`None` when it
    /// may be sent, or when gating is off).
    pub(crate) fn unadvertised(&self, update: &SessionUpdate) -> Option<&'static str> {
        if !self.client.gates() {
            return None;
        }
        match update {
            SessionUpdate::CompactionUpdate(_) | SessionUpdate::CompactionSummaryChunk(_)
                if !self.client_supports_compaction() =>
            {
                Some("session.compaction")
            }
            SessionUpdate::Notice(_) if !self.client_supports_notices() => Some("session.notices"),
            #[cfg(feature = "unstable")]
            SessionUpdate::PlanUpdate(_) | SessionUpdate::PlanRemoved(_)
                if !self.client_supports_plan_operations() =>
            {
                Some("plan")
            }
            #[cfg(feature = "unstable_subagents")]
            SessionUpdate::SubagentUpdate(_)
            | SessionUpdate::SessionMessage(_)
            | SessionUpdate::SessionMessageChunk(_)
                if !self.client_supports_subagents() =>
            {
                Some("subagents")
            }
            _ => None,
        }
    }

    /// Streams a chunk of the agent's reply (`agent_message_chunk`).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn message(&self, content: impl Into<ContentBlock>) -> Result<(), Error> {
        self.update(SessionUpdate::AgentMessageChunk(ContentChunk::new(content)))
            .await
    }

    /// Streams a chunk of the agent's reasoning (`agent_thought_chunk`).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn thought(&self, content: impl Into<ContentBlock>) -> Result<(), Error> {
        self.update(SessionUpdate::AgentThoughtChunk(ContentChunk::new(content)))
            .await
    }

    /// Asks the user to approve `tool_call`, offering `options` (`session/request_permission`).
    ///
    /// If the turn is cancelled while waiting, the client answers with the `cancelled` outcome.
    ///
    /// # Errors
    ///
    /// When the client fails the request or the connection closes.
    pub async fn request_permission(
        &self,
        tool_call: ToolCallUpdate,
        options: Vec<PermissionOption>,
    ) -> Result<RequestPermissionOutcome, Error> {
        let request = RequestPermissionRequest::new(self.session_id.clone(), tool_call, options);
        Ok(self.client.request_permission(request).await?.outcome)
    }
}
