//! The client's local tools, ready made: the seven `fs/*` and `terminal/*` methods served
//! from a [`Workspace`] and [`Terminals`], so that a client writes only what is its own
//! (asking the user, showing updates).
//!
//! ```no_run
//! use acp_client::{Client, Local, Workspace};
//! use acp_types::*;
//!
//! struct Editor;
//!
//! #[acp_client::async_trait]
//! impl Client for Editor {
//!     async fn request_permission(&self, r: RequestPermissionRequest) -> Result<RequestPermissionResponse> {
//!         Ok(RequestPermissionResponse::selected(r.options[0].option_id.clone()))
//!     }
//!     async fn session_notification(&self, _: SessionNotification) -> Result<()> {
//!         Ok(())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
//! let local = Local::new(Workspace::new("/work/project")?)
//!     .on_call(|call| eprintln!("{call}"));
//! // Advertise what it serves in `initialize`.
//! let capabilities = local.capabilities();
//! let command = tokio::process::Command::new("my-agent");
//! let spawned = acp_client::spawn(command, |_agent| local.serve(Editor), Default::default())?;
//! # let _ = (capabilities, spawned); Ok(()) }
//! ```
//!
//! A terminal's `cwd` goes through the workspace: it must be absolute, exist and lie inside
//! the root (`-32602` otherwise, `-32002` when it does not exist); without one the command runs
//! in the root.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use acp_types::methods::client as m;
use acp_types::*;
use async_trait::async_trait;

use crate::{Client, Terminals, Workspace};

/// A hook that sees every call [`Local`] served (see [`Local::on_call`]).
type Hook = Arc<dyn Fn(&LocalCall<'_>) + Send + Sync>;

/// The files and terminals a client serves its agent (see the [module](self) docs).
#[derive(Clone)]
pub struct Local {
    workspace: Workspace,
    terminals: Arc<Terminals>,
    hook: Option<Hook>,
}

impl fmt::Debug for Local {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Local")
            .field("workspace", &self.workspace)
            .field("terminals", &self.terminals)
            .field("hook", &self.hook.is_some())
            .finish()
    }
}

/// One call [`Local`] served, for its [hook](Local::on_call): displayed as
/// `method summary: ok` or `method summary: error message`.
#[derive(Debug)]
#[non_exhaustive]
pub struct LocalCall<'a> {
    /// The ACP method (`fs/read_text_file`, `terminal/create`...).
    pub method: &'static str,
    /// Its session.
    pub session_id: &'a SessionId,
    /// What it was about: the path, the command and its arguments, or the terminal.
    pub summary: String,
    /// What it answered: `Ok` or the error sent back to the agent.
    pub outcome: Result<(), &'a ErrorObject>,
}

impl fmt::Display for LocalCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.method, self.summary)?;
        match self.outcome {
            Ok(()) => f.write_str("ok"),
            Err(error) => write!(f, "{error}"),
        }
    }
}

impl Local {
    /// Serves `workspace`'s files and runs terminals (with [`Terminals`]' default limits)
    /// inside it.
    pub fn new(workspace: Workspace) -> Self {
        Self {
            workspace,
            terminals: Arc::new(Terminals::new()),
            hook: None,
        }
    }

    /// Runs terminals with `terminals` (its limits, its lifetime bound) instead.
    #[must_use]
    pub fn terminals(mut self, terminals: Terminals) -> Self {
        self.terminals = Arc::new(terminals);
        self
    }

    /// Calls `hook` after every call served (its method, a summary of the params, and the
    /// outcome), to log or show them. Each call is also logged with `tracing` at debug level.
    #[must_use]
    pub fn on_call(mut self, hook: impl Fn(&LocalCall<'_>) + Send + Sync + 'static) -> Self {
        self.hook = Some(Arc::new(hook));
        self
    }

    /// The workspace served.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The terminals run (for [`Terminals::display_output`] or [`Terminals::shutdown`]).
    pub fn running(&self) -> &Terminals {
        &self.terminals
    }

    /// What to advertise in `initialize`: `fs.readTextFile`, `fs.writeTextFile` unless the
    /// workspace is read-only, and `terminal`.
    pub fn capabilities(&self) -> ClientCapabilities {
        let fs = FileSystemCapabilities::new()
            .read_text_file(true)
            .write_text_file(!self.workspace.is_read_only());
        ClientCapabilities::new().fs(fs).terminal(true)
    }

    /// `client` with the seven file and terminal methods served by this value: the
    /// [`Client`] to connect.
    pub fn serve<C: Client>(self, client: C) -> WithLocal<C> {
        WithLocal {
            client,
            local: self,
        }
    }

    /// Reports a call to the hook and to `tracing`, and passes its result on.
    fn report<T>(
        &self,
        method: &'static str,
        session_id: &SessionId,
        summary: impl FnOnce() -> String,
        result: Result<T, ErrorObject>,
    ) -> Result<T, ErrorObject> {
        if self.hook.is_none() && !tracing::enabled!(tracing::Level::DEBUG) {
            return result;
        }
        let call = LocalCall {
            method,
            session_id,
            summary: summary(),
            outcome: result.as_ref().map(drop),
        };
        tracing::debug!(session = %session_id, "{call}");
        if let Some(hook) = &self.hook {
            hook(&call);
        }
        result
    }

    /// `fs/read_text_file`, through [`Workspace::read`].
    ///
    /// # Errors
    ///
    /// As [`Workspace::read`].
    pub async fn read_text_file(
        &self,
        r: &ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, ErrorObject> {
        let result = self.workspace.read(r).await;
        self.report(
            m::FS_READ_TEXT_FILE,
            &r.session_id,
            || r.path.clone(),
            result,
        )
    }

    /// `fs/write_text_file`, through [`Workspace::write`].
    ///
    /// # Errors
    ///
    /// As [`Workspace::write`].
    pub async fn write_text_file(
        &self,
        r: &WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, ErrorObject> {
        let result = self.workspace.write(r).await;
        let summary = || format!("{} ({} bytes)", r.path, r.content.len());
        self.report(m::FS_WRITE_TEXT_FILE, &r.session_id, summary, result)
    }

    /// `terminal/create`, in the request's `cwd` resolved through the workspace (the root
    /// without one).
    ///
    /// # Errors
    ///
    /// `-32602` for a relative `cwd` or one outside the root, `-32002` for one that does not
    /// exist; otherwise as [`Terminals::create`].
    pub async fn create_terminal(
        &self,
        r: &CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse, ErrorObject> {
        let result = self
            .terminal_cwd(r.cwd.as_deref())
            .and_then(|cwd| self.terminals.create(r, &cwd));
        let summary = || {
            let mut line = r.command.clone();
            for arg in r.args.iter().flatten() {
                line.push(' ');
                line.push_str(arg);
            }
            line
        };
        self.report(m::TERMINAL_CREATE, &r.session_id, summary, result)
    }

    /// Where a terminal runs: `cwd` inside the workspace, or its root.
    fn terminal_cwd(&self, cwd: Option<&str>) -> Result<PathBuf, ErrorObject> {
        let Some(cwd) = cwd else {
            return Ok(self.workspace.root().to_path_buf());
        };
        let resolved = self.workspace.resolve_existing(cwd)?;
        if resolved.is_dir() {
            Ok(resolved)
        } else {
            Err(ErrorObject::invalid_params(format_args!(
                "the terminal's cwd `{cwd}` is not a directory"
            )))
        }
    }

    /// `terminal/output`, through [`Terminals::output`].
    ///
    /// # Errors
    ///
    /// As [`Terminals::output`].
    pub fn terminal_output(
        &self,
        r: &TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, ErrorObject> {
        let result = self.terminals.output(r);
        let summary = || r.terminal_id.to_string();
        self.report(m::TERMINAL_OUTPUT, &r.session_id, summary, result)
    }

    /// `terminal/wait_for_exit`, through [`Terminals::wait_for_exit`].
    ///
    /// # Errors
    ///
    /// As [`Terminals::wait_for_exit`].
    pub async fn wait_for_terminal_exit(
        &self,
        r: &WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, ErrorObject> {
        let result = self.terminals.wait_for_exit(r).await;
        let summary = || r.terminal_id.to_string();
        self.report(m::TERMINAL_WAIT_FOR_EXIT, &r.session_id, summary, result)
    }

    /// `terminal/kill`, through [`Terminals::kill`].
    ///
    /// # Errors
    ///
    /// As [`Terminals::kill`].
    pub fn kill_terminal(
        &self,
        r: &KillTerminalRequest,
    ) -> Result<KillTerminalResponse, ErrorObject> {
        let result = self.terminals.kill(r);
        let summary = || r.terminal_id.to_string();
        self.report(m::TERMINAL_KILL, &r.session_id, summary, result)
    }

    /// `terminal/release`, through [`Terminals::release`].
    ///
    /// # Errors
    ///
    /// As [`Terminals::release`].
    pub fn release_terminal(
        &self,
        r: &ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, ErrorObject> {
        let result = self.terminals.release(r);
        let summary = || r.terminal_id.to_string();
        self.report(m::TERMINAL_RELEASE, &r.session_id, summary, result)
    }
}

/// A [`Client`] whose file and terminal methods are served by a [`Local`] (made with
/// [`Local::serve`]); every other method goes to the wrapped client.
#[derive(Debug)]
pub struct WithLocal<C> {
    client: C,
    local: Local,
}

impl<C> WithLocal<C> {
    /// The wrapped client.
    pub fn client(&self) -> &C {
        &self.client
    }

    /// The files and terminals served.
    pub fn local(&self) -> &Local {
        &self.local
    }
}

#[async_trait]
impl<C: Client> Client for WithLocal<C> {
    async fn request_permission(
        &self,
        r: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        self.client.request_permission(r).await
    }
    async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
        self.client.session_notification(n).await
    }
    async fn read_text_file(
        &self,
        r: ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, ErrorObject> {
        self.local.read_text_file(&r).await
    }
    async fn write_text_file(
        &self,
        r: WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, ErrorObject> {
        self.local.write_text_file(&r).await
    }
    async fn create_terminal(
        &self,
        r: CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse, ErrorObject> {
        self.local.create_terminal(&r).await
    }
    async fn terminal_output(
        &self,
        r: TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, ErrorObject> {
        self.local.terminal_output(&r)
    }
    async fn wait_for_terminal_exit(
        &self,
        r: WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, ErrorObject> {
        self.local.wait_for_terminal_exit(&r).await
    }
    async fn kill_terminal(
        &self,
        r: KillTerminalRequest,
    ) -> Result<KillTerminalResponse, ErrorObject> {
        self.local.kill_terminal(&r)
    }
    async fn release_terminal(
        &self,
        r: ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, ErrorObject> {
        self.local.release_terminal(&r)
    }
    async fn create_elicitation(
        &self,
        r: CreateElicitationRequest,
    ) -> Result<CreateElicitationResponse, ErrorObject> {
        self.client.create_elicitation(r).await
    }
    async fn complete_elicitation(
        &self,
        n: CompleteElicitationNotification,
    ) -> Result<(), ErrorObject> {
        self.client.complete_elicitation(n).await
    }
    async fn ext_method(&self, r: ExtRequest) -> Result<ExtResponse, ErrorObject> {
        self.client.ext_method(r).await
    }
    async fn ext_notification(&self, n: ExtNotification) -> Result<(), ErrorObject> {
        self.client.ext_notification(n).await
    }
    #[cfg(feature = "unstable_mcp_over_acp")]
    async fn message_mcp(&self, r: MessageMcpRequest) -> Result<MessageMcpResponse, ErrorObject> {
        self.client.message_mcp(r).await
    }
    #[cfg(feature = "unstable_auth_status")]
    async fn auth_status_update(&self, n: AuthStatusUpdateNotification) -> Result<(), ErrorObject> {
        self.client.auth_status_update(n).await
    }
    // v2 has no client file system or terminals: its calls all go to the wrapped client.
    #[cfg(feature = "unstable_protocol_v2")]
    async fn request_permission_v2(
        &self,
        r: acp_types::v2::RequestPermissionRequest,
    ) -> Result<acp_types::v2::RequestPermissionResponse, ErrorObject> {
        self.client.request_permission_v2(r).await
    }
    #[cfg(feature = "unstable_protocol_v2")]
    async fn session_notification_v2(
        &self,
        n: acp_types::v2::UpdateSessionNotification,
    ) -> Result<(), ErrorObject> {
        self.client.session_notification_v2(n).await
    }
    #[cfg(feature = "unstable_protocol_v2")]
    async fn create_elicitation_v2(
        &self,
        r: acp_types::v2::CreateElicitationRequest,
    ) -> Result<acp_types::v2::CreateElicitationResponse, ErrorObject> {
        self.client.create_elicitation_v2(r).await
    }
}
