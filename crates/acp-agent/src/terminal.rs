//! A terminal the client runs for the agent, as a handle: its output, its exit, killing it,
//! and releasing it, which happens by itself when the handle is dropped.

use std::future::{Future, IntoFuture};
use std::path::Path;
use std::pin::Pin;

use acp_types::*;

use crate::{ClientHandle, Error};

/// A client terminal being set up, made with
/// [`PromptContext::new_terminal`](crate::PromptContext::new_terminal): awaiting it starts the
/// command (`terminal/create`) and gives its [`TerminalHandle`].
#[derive(Debug)]
#[must_use = "a terminal starts only when awaited"]
pub struct NewTerminal {
    client: ClientHandle,
    request: CreateTerminalRequest,
}

impl NewTerminal {
    pub(crate) fn new(client: ClientHandle, request: CreateTerminalRequest) -> Self {
        Self { client, request }
    }

    /// Adds arguments.
    pub fn args(mut self, args: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let list = self.request.args.get_or_insert_with(Vec::new);
        list.extend(args.into_iter().map(Into::into));
        self
    }

    /// Runs the command in `cwd` (absolute, as the protocol requires; the client decides
    /// whether it may).
    pub fn cwd(mut self, cwd: impl AsRef<Path>) -> Self {
        self.request.cwd = Some(cwd.as_ref().to_string_lossy().into_owned());
        self
    }

    /// Sets an environment variable for the command.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let vars = self.request.env.get_or_insert_with(Vec::new);
        vars.push(EnvVariable::new(name, value));
        self
    }

    /// Asks the client to keep at most `bytes` of output (the oldest goes first).
    pub fn output_byte_limit(mut self, bytes: u64) -> Self {
        self.request.output_byte_limit = Some(bytes);
        self
    }

    /// The request as it stands.
    pub fn request(&self) -> &CreateTerminalRequest {
        &self.request
    }
}

impl IntoFuture for NewTerminal {
    type Output = Result<TerminalHandle, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    /// Starts the command; fails as [`ClientHandle::terminal`] does.
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { TerminalHandle::create(&self.client, self.request).await })
    }
}

/// A client terminal (`terminal/create`), made with [`PromptContext::terminal`] or
/// [`ClientHandle::terminal`].
///
/// ```no_run
/// # use acp_agent::{Error, PromptContext};
/// # use acp_types::*;
/// # #[allow(dead_code)]
/// # async fn turn(cx: PromptContext) -> Result<(), Error> {
/// let call = cx.tool_call("Run the tests", ToolKind::Execute).await?;
/// let terminal = cx.terminal("cargo", ["test"]).await?;
/// call.terminal(&terminal).await?; // the client shows the output live
/// let exit = terminal.wait_for_exit().await?;
/// let output = terminal.output().await?;
/// terminal.release().await?;
/// if exit.exit_code == Some(0) { call.completed().await? } else { call.failed_with(output.output).await? }
/// # Ok(()) }
/// ```
///
/// [`PromptContext::terminal`]: crate::PromptContext::terminal
#[derive(Debug)]
pub struct TerminalHandle {
    client: ClientHandle,
    session_id: SessionId,
    id: TerminalId,
    released: bool,
}

impl TerminalHandle {
    pub(crate) async fn create(
        client: &ClientHandle,
        request: CreateTerminalRequest,
    ) -> Result<Self, Error> {
        let session_id = request.session_id.clone();
        let created = client.create_terminal(request).await?;
        Ok(Self {
            client: client.clone(),
            session_id,
            id: created.terminal_id,
            released: false,
        })
    }

    /// The terminal's id.
    pub fn id(&self) -> &TerminalId {
        &self.id
    }

    /// The content that embeds this terminal in a tool call.
    pub fn content(&self) -> ToolCallContent {
        ToolCallContent::Terminal(Terminal::new(self.id.clone()))
    }

    /// The output so far (`terminal/output`), with the exit status once the command ended.
    ///
    /// # Errors
    ///
    /// When the client fails the request or the connection closes.
    pub async fn output(&self) -> Result<TerminalOutputResponse, Error> {
        self.client
            .terminal_output(TerminalOutputRequest::new(
                self.session_id.clone(),
                self.id.clone(),
            ))
            .await
    }

    /// Waits for the command to exit (`terminal/wait_for_exit`).
    ///
    /// # Errors
    ///
    /// When the client fails the request or the connection closes.
    pub async fn wait_for_exit(&self) -> Result<WaitForTerminalExitResponse, Error> {
        self.client
            .wait_for_terminal_exit(WaitForTerminalExitRequest::new(
                self.session_id.clone(),
                self.id.clone(),
            ))
            .await
    }

    /// Kills the command, keeping the terminal and its output (`terminal/kill`).
    ///
    /// # Errors
    ///
    /// When the client fails the request or the connection closes.
    pub async fn kill(&self) -> Result<(), Error> {
        self.client
            .kill_terminal(KillTerminalRequest::new(
                self.session_id.clone(),
                self.id.clone(),
            ))
            .await
            .map(drop)
    }

    /// Releases the terminal (`terminal/release`), killing the command if it still runs.
    ///
    /// # Errors
    ///
    /// When the client fails the request or the connection closes.
    pub async fn release(mut self) -> Result<(), Error> {
        self.released = true;
        self.client
            .release_terminal(ReleaseTerminalRequest::new(
                self.session_id.clone(),
                self.id.clone(),
            ))
            .await
            .map(drop)
    }
}

impl Drop for TerminalHandle {
    /// A terminal not released by hand is released now, without waiting for the client's
    /// answer, so that no command outlives its handle.
    fn drop(&mut self) {
        if self.released {
            return;
        }
        let request = ReleaseTerminalRequest::new(self.session_id.clone(), self.id.clone());
        let sent = self
            .client
            .peer()
            .request_detached::<acp_types::methods::TerminalRelease>(&request);
        if let Err(error) = sent {
            tracing::debug!(terminal = %self.id, %error, "could not release a dropped terminal");
        }
    }
}
