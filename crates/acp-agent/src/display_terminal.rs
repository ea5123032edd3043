//! Agent-owned display terminals (ACP v2): output the agent shows, not a process the client
//! runs, as a handle that pushes output chunks, snapshots and the exit status.
//!
//! ```no_run
//! # use acp_agent::{Error, PromptContext};
//! # use acp_types::*;
//! # #[allow(dead_code)]
//! # async fn turn(cx: PromptContext) -> Result<(), Error> {
//! let call = cx.tool_call("Run the tests", ToolKind::Execute).await?;
//! if cx.client().is_v2() {
//!     let terminal = call.display_terminal("cargo test").cwd("/work/project").await?;
//!     terminal.output(b"running 3 tests\r\n").await?;
//!     terminal.output(b"test result: ok\r\n").await?;
//!     terminal.exit(acp_types::v2::TerminalExitStatus::new().exit_code(0)).await?;
//! }
//! call.completed().await?;
//! # Ok(()) }
//! ```

use std::future::{Future, IntoFuture};
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use acp_types::v2::{self, Patch};
use acp_types::{Terminal, TerminalId, ToolCallContent};

use crate::{Error, PromptContext, ToolCallHandle};

/// A display terminal being set up, made with [`PromptContext::display_terminal`] or
/// [`ToolCallHandle::display_terminal`]: awaiting it sends its first `terminal_update`
/// (command, working directory, size, controls) and, for a tool call's, the terminal's
/// reference as the call's content.
#[derive(Debug)]
#[must_use = "a display terminal is announced only when awaited"]
pub struct NewDisplayTerminal {
    cx: PromptContext,
    update: v2::TerminalUpdate,
    /// A working directory that is not absolute, refused when awaited.
    relative_cwd: Option<String>,
    call: Option<ToolCallHandle>,
}

impl NewDisplayTerminal {
    fn new(cx: &PromptContext, command: String, call: Option<ToolCallHandle>) -> Self {
        // The connection's message ids are unique across connections too (a resumed session
        // keeps the ids of earlier ones), as a terminal id must be within its session.
        let id = cx.client().cursors().new_id();
        let id = format!("term-{}", id.as_str().trim_start_matches("msg-"));
        Self {
            cx: cx.clone(),
            update: v2::TerminalUpdate::new(id).command(command),
            relative_cwd: None,
            call,
        }
    }

    /// Uses `id` as the terminal's id instead of a fresh one; it must not name another
    /// terminal of the session, ever.
    pub fn id(mut self, id: impl Into<TerminalId>) -> Self {
        self.update.terminal_id = id.into();
        self
    }

    /// The command's working directory; the protocol requires it absolute (a relative one
    /// fails when the terminal is awaited).
    pub fn cwd(mut self, cwd: impl AsRef<Path>) -> Self {
        let cwd = cwd.as_ref();
        let text = cwd.to_string_lossy().into_owned();
        if cwd.is_absolute() {
            self.update = self.update.cwd(text);
            self.relative_cwd = None;
        } else {
            self.relative_cwd = Some(text);
        }
        self
    }

    /// The terminal size the command runs with, so that the client lays the output out as the
    /// program wrote it.
    pub fn size(mut self, cols: u16, rows: u16) -> Self {
        self.update = self.update.size(v2::TerminalSize::new(cols, rows));
        self
    }

    /// Advertises that the client may cancel the command (`capabilities.cancel`): the client
    /// may then send `terminal/cancel`, which reaches
    /// [`Agent::cancel_terminal`](crate::Agent::cancel_terminal) (implement it).
    /// [`DisplayTerminalHandle::exit`] withdraws it.
    pub fn cancellable(mut self) -> Self {
        self.update = self.update.capabilities(
            v2::TerminalCapabilities::new().cancel(v2::TerminalCancelCapabilities::new()),
        );
        self
    }

    /// The first update as it stands.
    pub fn update(&self) -> &v2::TerminalUpdate {
        &self.update
    }

    async fn start(self) -> Result<DisplayTerminalHandle, Error> {
        self.cx.require_v2("an agent-owned display terminal")?;
        if let Some(cwd) = self.relative_cwd {
            return Err(Error::Unconvertible {
                what: "a display terminal's working directory".into(),
                version: crate::v2::V2,
                reason: format!("`{cwd}` is not an absolute path, as the protocol requires"),
            });
        }
        let handle = DisplayTerminalHandle {
            cx: self.cx,
            id: self.update.terminal_id.clone(),
            cancellable: Arc::new(AtomicBool::new(matches!(
                &self.update.capabilities,
                Patch::Set(c) if c.cancel.is_some()
            ))),
        };
        handle.cx.update_v2(self.update).await?;
        if let Some(call) = self.call {
            call.content(handle.content()).await?;
        }
        Ok(handle)
    }
}

impl IntoFuture for NewDisplayTerminal {
    type Output = Result<DisplayTerminalHandle, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    /// Announces the terminal.
    ///
    /// # Errors
    ///
    /// [`Error::NotInProtocolVersion`] on a v1 connection (display terminals are v2 only;
    /// nothing is sent); [`Error::Unconvertible`] for a relative working directory; or when
    /// the connection is closed.
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.start())
    }
}

/// An agent-owned display terminal of a session (ACP v2, feature `unstable_protocol_v2`):
/// the agent runs the command and shows its output; the client only displays it (no input, no
/// process control besides an advertised `terminal/cancel`).
///
/// Output goes as bytes: each [`output`](Self::output) is one `terminal_output_chunk`,
/// base64-encoded on its own, so chunks may split UTF-8 code points or escape sequences and
/// may hold bytes that are not UTF-8 at all (the client decodes each chunk and appends the
/// bytes). A [`snapshot`](Self::snapshot) replaces everything shown so far.
///
/// Display terminals are baseline in v2 (no client capability gates them) and do not exist in
/// v1: on a v1 connection the terminal cannot be made ([`Error::NotInProtocolVersion`]).
/// They are not recorded by a [`SessionStore`](crate::SessionStore), which keeps v1 updates.
#[derive(Debug, Clone)]
pub struct DisplayTerminalHandle {
    cx: PromptContext,
    id: TerminalId,
    /// Whether the terminal still advertises `capabilities.cancel`.
    cancellable: Arc<AtomicBool>,
}

impl DisplayTerminalHandle {
    /// The terminal's id.
    pub fn id(&self) -> &TerminalId {
        &self.id
    }

    /// The terminal's reference, to show it in a tool call's content
    /// ([`ToolCallHandle::content`], [`ToolOutput`](crate::ToolOutput)).
    pub fn content(&self) -> ToolCallContent {
        ToolCallContent::Terminal(Terminal::new(self.id.clone()))
    }

    /// Appends `bytes` to the output (a `terminal_output_chunk`); nothing is sent for no
    /// bytes.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn output(&self, bytes: impl AsRef<[u8]>) -> Result<(), Error> {
        let bytes = bytes.as_ref();
        if bytes.is_empty() {
            return Ok(());
        }
        self.cx
            .update_v2(v2::TerminalOutputChunk::from_bytes(self.id.clone(), bytes))
            .await
    }

    /// Replaces the whole output with `bytes` (a `terminal_update` with an `output`
    /// snapshot); later chunks append to it.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn snapshot(&self, bytes: impl AsRef<[u8]>) -> Result<(), Error> {
        let snapshot = v2::TerminalOutput::from_bytes(bytes.as_ref());
        self.update(v2::TerminalUpdate::new(self.id.clone()).output(snapshot))
            .await
    }

    /// Marks the command as ended with `status` (its exit code or signal, when known), and
    /// withdraws `capabilities.cancel` if it was advertised, as the protocol asks.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn exit(&self, status: v2::TerminalExitStatus) -> Result<(), Error> {
        let mut update = v2::TerminalUpdate::new(self.id.clone()).exit_status(status);
        if self.cancellable.load(Ordering::Relaxed) {
            update.capabilities = Patch::Clear;
        }
        self.update(update).await
    }

    /// Sends `update` as is, its id made this terminal's (any patch: command, working
    /// directory, size, controls, metadata).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn update(&self, mut update: v2::TerminalUpdate) -> Result<(), Error> {
        update.terminal_id = self.id.clone();
        match &update.capabilities {
            Patch::Set(c) => self
                .cancellable
                .store(c.cancel.is_some(), Ordering::Relaxed),
            Patch::Clear => self.cancellable.store(false, Ordering::Relaxed),
            Patch::Unchanged => {}
        }
        self.cx.update_v2(update).await
    }
}

impl PromptContext {
    /// A display terminal for `command` in this session, not attached to a tool call (for
    /// background work), to set up and then await, which announces it; see
    /// [`DisplayTerminalHandle`]. v2 only.
    pub fn display_terminal(&self, command: impl Into<String>) -> NewDisplayTerminal {
        NewDisplayTerminal::new(self, command.into(), None)
    }
}

impl ToolCallHandle {
    /// A display terminal for `command` shown in this tool call: once announced, its
    /// reference is added to the call's content (a content chunk). See
    /// [`DisplayTerminalHandle`]; v2 only.
    pub fn display_terminal(&self, command: impl Into<String>) -> NewDisplayTerminal {
        NewDisplayTerminal::new(self.context(), command.into(), Some(self.clone()))
    }
}
