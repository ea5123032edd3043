//! The editor side of the connection: what the client does when the agent calls it.

#[cfg(feature = "unstable_protocol_v2")]
mod v2;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use acp_client::{Client, async_trait};
use acp_types::*;
use serde_json::json;
use tokio::sync::{oneshot, watch};

use super::output::Output;
use acp_client::Terminals;
use acp_client::Workspace;

/// How permission requests are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Allow (once if offered), naming who decided (`--yes`, `demo`).
    Allow(&'static str),
    /// Reject (once if offered), naming who decided (`--no`, `default`).
    Reject(&'static str),
    /// Ask at the keyboard.
    Ask,
}

/// What the editor and the driver share.
#[derive(Debug)]
pub struct Shared {
    /// Where everything is shown.
    pub output: Output,
    /// The directory served to the agent.
    pub workspace: Workspace,
    /// The terminals started for the agent.
    pub terminals: Terminals,
    policy: Mutex<Policy>,
    /// A keyboard question waiting for the driver to pass it a line.
    question: Mutex<Option<oneshot::Sender<String>>>,
    /// The message chunks received during the current turn.
    chunks: watch::Sender<u64>,
    /// The latest configuration options seen, per session.
    options: Mutex<HashMap<SessionId, Vec<SessionConfigOption>>>,
    /// Set once the client was asked to stop (a signal): the running turn is cancelled and
    /// no further step runs.
    stop: watch::Sender<bool>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// State for a client serving `workspace`, showing on `output`.
    pub fn new(output: Output, workspace: Workspace, policy: Policy) -> Self {
        Self {
            output,
            workspace,
            terminals: Terminals::default(),
            policy: Mutex::new(policy),
            question: Mutex::new(None),
            chunks: watch::Sender::new(0),
            options: Mutex::new(HashMap::new()),
            stop: watch::Sender::new(false),
        }
    }

    /// Asks the client to stop: the running turn is cancelled, waits give up, no further step
    /// runs.
    pub fn request_stop(&self) {
        self.stop.send_replace(true);
    }

    /// True once [`request_stop`](Self::request_stop) was called.
    pub fn stop_requested(&self) -> bool {
        *self.stop.borrow()
    }

    /// Resolves once [`request_stop`](Self::request_stop) is called.
    pub async fn stopped(&self) {
        let mut rx = self.stop.subscribe();
        let _ = rx.wait_for(|stop| *stop).await;
    }

    /// Changes how permission requests are answered.
    pub fn set_policy(&self, policy: Policy) {
        *lock(&self.policy) = policy;
    }

    /// Passes a line to a pending keyboard question; false when none is pending.
    pub fn answer(&self, line: String) -> bool {
        match lock(&self.question).take() {
            Some(tx) => tx.send(line).is_ok(),
            None => false,
        }
    }

    /// Restarts the count of message chunks (at the start of a turn).
    pub fn reset_chunks(&self) {
        self.chunks.send_replace(0);
    }

    /// Resolves once `n` message chunks arrived in this turn.
    pub async fn chunks_reached(&self, n: u64) {
        let mut rx = self.chunks.subscribe();
        let _ = rx.wait_for(|count| *count >= n).await;
    }

    /// Remembers the configuration options of a session.
    pub fn set_options(&self, session: &SessionId, options: Vec<SessionConfigOption>) {
        lock(&self.options).insert(session.clone(), options);
    }

    /// True when the session's option `id` is an on/off switch.
    pub fn is_boolean_option(&self, session: &SessionId, id: &str) -> bool {
        lock(&self.options).get(session).is_some_and(|options| {
            options
                .iter()
                .any(|o| o.id.as_str() == id && matches!(o.kind, SessionConfigKind::Boolean(_)))
        })
    }
}

/// The [`Client`] implementation: serves permission questions, files and terminals, and
/// renders updates.
#[derive(Debug, Clone)]
pub struct Editor {
    shared: Arc<Shared>,
}

impl Editor {
    /// An editor over the shared state.
    pub fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }

    /// Answers by policy, or at the keyboard through `keyboard` (registered by the caller
    /// before the question was shown, so that no answer can arrive too early): the chosen
    /// option's id (`None`: nothing fits, or the keyboard is gone) and who decided. The same for
    /// both protocol versions: `options` are the offered options in a version-neutral form.
    pub(super) async fn decide(
        &self,
        options: &[Choice<'_>],
        policy: Policy,
        keyboard: Option<oneshot::Receiver<String>>,
    ) -> (Option<String>, String) {
        let find = |kinds: &[&str]| {
            kinds.iter().find_map(|kind| {
                options
                    .iter()
                    .find(|o| o.kind == *kind)
                    .map(|o| o.id.to_owned())
            })
        };
        match (policy, keyboard) {
            (Policy::Allow(by), _) => (find(&["allow_once", "allow_always"]), by.to_owned()),
            (Policy::Reject(by), _) => (find(&["reject_once", "reject_always"]), by.to_owned()),
            (Policy::Ask, keyboard) => (self.ask_user(options, keyboard).await, "user".to_owned()),
        }
    }

    /// Registers a keyboard question when the policy is to ask; the policy and its receiver.
    pub(super) fn question(&self) -> (Policy, Option<oneshot::Receiver<String>>) {
        let policy = *lock(&self.shared.policy);
        let keyboard = (policy == Policy::Ask).then(|| self.register_question());
        (policy, keyboard)
    }

    /// The shared state.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(super) fn shared(&self) -> &Shared {
        &self.shared
    }

    fn register_question(&self) -> oneshot::Receiver<String> {
        let (tx, rx) = oneshot::channel();
        *lock(&self.shared.question) = Some(tx);
        rx
    }

    /// Asks at the keyboard until the answer names an option; `None` if input ends.
    async fn ask_user(
        &self,
        options: &[Choice<'_>],
        mut keyboard: Option<oneshot::Receiver<String>>,
    ) -> Option<String> {
        let output = &self.shared.output;
        loop {
            let rx = keyboard.take().unwrap_or_else(|| self.register_question());
            output.ask(
                &output
                    .style()
                    .yellow(&format!("  Choose 1-{} (or type a name): ", options.len())),
            );
            let line = rx.await.ok()?;
            output.answered();
            let line = line.trim().to_lowercase();
            let picked = line
                .parse::<usize>()
                .ok()
                .and_then(|n| options.get(n.wrapping_sub(1)))
                .or_else(|| {
                    options.iter().find(|o| {
                        !line.is_empty()
                            && (o.name.to_lowercase().starts_with(&line) || o.id == line)
                    })
                });
            if let Some(option) = picked {
                return Some(option.id.to_owned());
            }
        }
    }
}

/// A permission option as the policy and the keyboard see it, whatever the protocol version:
/// its id, its name, and its kind (`allow_once`, ...).
pub(super) struct Choice<'a> {
    pub(super) id: &'a str,
    pub(super) name: &'a str,
    pub(super) kind: &'a str,
}

/// `[1] Allow  [2] Reject`: the options as the question shows them.
pub(super) fn choices_line(options: &[Choice<'_>]) -> String {
    let choices: Vec<String> = options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("[{}] {}", i + 1, o.name))
        .collect();
    choices.join("  ")
}

fn error_json(error: &ErrorObject) -> serde_json::Value {
    json!({ "code": error.code, "message": error.message, "data": error.data })
}

#[async_trait]
impl Client for Editor {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        let output = &self.shared.output;
        let s = output.style();
        let (policy, keyboard) = self.question();
        let call = &request.tool_call;
        let title = call
            .title
            .clone()
            .unwrap_or_else(|| call.tool_call_id.to_string());
        let options: Vec<Choice<'_>> = request
            .options
            .iter()
            .map(|o| Choice {
                id: o.option_id.as_str(),
                name: &o.name,
                kind: o.kind.as_str(),
            })
            .collect();
        output.event(
            json!({
                "event": "permission_request",
                "sessionId": request.session_id,
                "toolCallId": call.tool_call_id,
                "title": title,
                "options": request.options,
            }),
            Some(s.yellow(&format!(
                "  ? Permission for \u{201c}{title}\u{201d}: {}",
                choices_line(&options)
            ))),
        );
        let (choice, by) = self.decide(&options, policy, keyboard).await;
        let (response, outcome, name) = match choice {
            Some(option) => {
                let name = options
                    .iter()
                    .find(|o| o.id == option)
                    .map_or_else(String::new, |o| o.name.to_owned());
                let response = RequestPermissionResponse::selected(option.as_str());
                (response, "selected", name)
            }
            // Nothing fits (no such option, or the keyboard is gone): the only other answer
            // the protocol has.
            None => (
                RequestPermissionResponse::cancelled(),
                "cancelled",
                "no answer (cancelled)".to_owned(),
            ),
        };
        let option = match &response.outcome {
            RequestPermissionOutcome::Selected(selected) => Some(selected.option_id.clone()),
            _ => None,
        };
        output.event(
            json!({
                "event": "permission_response",
                "sessionId": request.session_id,
                "toolCallId": call.tool_call_id,
                "outcome": outcome,
                "optionId": option,
                "by": by,
            }),
            Some(s.yellow(&format!("  \u{2192} {name} (answered by {by})"))),
        );
        Ok(response)
    }

    async fn session_notification(
        &self,
        notification: SessionNotification,
    ) -> Result<(), ErrorObject> {
        if let SessionUpdate::ConfigOptionUpdate(update) = &notification.update {
            self.shared
                .set_options(&notification.session_id, update.config_options.clone());
        }
        self.shared
            .output
            .update(&notification, &self.shared.terminals);
        // Counted once shown, so that a cancellation it triggers is shown after it.
        if let SessionUpdate::AgentMessageChunk(_) = &notification.update {
            self.shared.chunks.send_modify(|n| *n += 1);
        }
        Ok(())
    }

    #[cfg(feature = "unstable_protocol_v2")]
    async fn session_notification_v2(
        &self,
        notification: acp_types::v2::UpdateSessionNotification,
    ) -> Result<(), ErrorObject> {
        self.shared.output.update_v2(&notification);
        // Counted once shown, so that a cancellation it triggers is shown after it.
        if let acp_types::v2::SessionUpdate::AgentMessageChunk(_) = &notification.update {
            self.shared.chunks.send_modify(|n| *n += 1);
        }
        Ok(())
    }

    #[cfg(feature = "unstable_protocol_v2")]
    async fn request_permission_v2(
        &self,
        request: acp_types::v2::RequestPermissionRequest,
    ) -> Result<acp_types::v2::RequestPermissionResponse, ErrorObject> {
        self.permission_v2(request).await
    }

    async fn read_text_file(
        &self,
        request: ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, ErrorObject> {
        let output = &self.shared.output;
        let result = self
            .shared
            .workspace
            .read(&request)
            .await
            .map(|read| read.content);
        let shown = output.path(&request.path);
        let (json, human) = match &result {
            Ok(text) => (
                json!({ "ok": true, "lines": text.lines().count(), "bytes": text.len() }),
                format!("{} line(s)", text.lines().count()),
            ),
            Err(e) => (
                json!({ "ok": false, "error": error_json(e) }),
                format!("refused: {e}"),
            ),
        };
        let mut event = json!({
            "event": "fs_read",
            "path": request.path,
            "line": request.line,
            "limit": request.limit,
        });
        merge(&mut event, json);
        output.event(
            event,
            Some(
                output
                    .style()
                    .dim(&format!("  \u{00b7} fs/read_text_file {shown}: {human}")),
            ),
        );
        result.map(ReadTextFileResponse::new)
    }

    async fn write_text_file(
        &self,
        request: WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, ErrorObject> {
        let output = &self.shared.output;
        let result = self.shared.workspace.write(&request).await;
        let shown = output.path(&request.path);
        let (json, human) = match &result {
            Ok(_) => (
                json!({ "ok": true }),
                format!("wrote {} bytes", request.content.len()),
            ),
            Err(e) => (
                json!({ "ok": false, "error": error_json(e) }),
                format!("refused: {e}"),
            ),
        };
        let mut event = json!({
            "event": "fs_write",
            "path": request.path,
            "bytes": request.content.len(),
        });
        merge(&mut event, json);
        output.event(
            event,
            Some(
                output
                    .style()
                    .dim(&format!("  \u{00b7} fs/write_text_file {shown}: {human}")),
            ),
        );
        result
    }

    async fn create_terminal(
        &self,
        request: CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse, ErrorObject> {
        let shared = &self.shared;
        let result = match &request.cwd {
            Some(cwd) => shared.workspace.resolve_existing(cwd),
            None => Ok(shared.workspace.root().to_path_buf()),
        }
        .and_then(|cwd| shared.terminals.create(&request, &cwd))
        .map(|created| created.terminal_id);
        let line = std::iter::once(request.command.as_str())
            .chain(request.args.iter().flatten().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let (json, human) = match &result {
            Ok(id) => (
                json!({ "ok": true, "terminalId": id }),
                format!("{id} runs `{line}`"),
            ),
            Err(e) => (
                json!({ "ok": false, "error": error_json(e) }),
                format!("refused: {e}"),
            ),
        };
        let mut event = json!({
            "event": "terminal_create",
            "command": request.command,
            "args": request.args,
            "cwd": request.cwd,
            "outputByteLimit": request.output_byte_limit,
        });
        merge(&mut event, json);
        shared.output.event(
            event,
            Some(
                shared
                    .output
                    .style()
                    .dim(&format!("  \u{00b7} terminal/create: {human}")),
            ),
        );
        result.map(CreateTerminalResponse::new)
    }

    async fn terminal_output(
        &self,
        request: TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, ErrorObject> {
        let output = &self.shared.output;
        let response = self.shared.terminals.output(&request)?;
        let (text, truncated) = (&response.output, response.truncated);
        let exit = &response.exit_status;
        output.event(
            json!({
                "event": "terminal_output",
                "terminalId": request.terminal_id,
                "bytes": text.len(),
                "truncated": truncated,
                "exited": exit.is_some(),
            }),
            Some(output.style().dim(&format!(
                "  \u{00b7} terminal/output {}: {} bytes",
                request.terminal_id,
                text.len()
            ))),
        );
        Ok(response)
    }

    async fn wait_for_terminal_exit(
        &self,
        request: WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, ErrorObject> {
        let output = &self.shared.output;
        let exit = self.shared.terminals.wait_for_exit(&request).await?;
        let how = match (&exit.exit_code, &exit.signal) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(signal)) => format!("killed by {signal}"),
            (None, None) => "ended".to_owned(),
        };
        output.event(
            json!({
                "event": "terminal_exit",
                "terminalId": request.terminal_id,
                "exitCode": exit.exit_code,
                "signal": exit.signal,
            }),
            Some(output.style().dim(&format!(
                "  \u{00b7} terminal/wait_for_exit {}: {how}",
                request.terminal_id
            ))),
        );
        Ok(exit)
    }

    async fn kill_terminal(
        &self,
        request: KillTerminalRequest,
    ) -> Result<KillTerminalResponse, ErrorObject> {
        self.shared.terminals.kill(&request)?;
        let output = &self.shared.output;
        output.event(
            json!({ "event": "terminal_kill", "terminalId": request.terminal_id }),
            Some(
                output
                    .style()
                    .dim(&format!("  \u{00b7} terminal/kill {}", request.terminal_id)),
            ),
        );
        Ok(KillTerminalResponse::new())
    }

    async fn release_terminal(
        &self,
        request: ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, ErrorObject> {
        self.shared.terminals.release(&request)?;
        let output = &self.shared.output;
        output.event(
            json!({ "event": "terminal_release", "terminalId": request.terminal_id }),
            Some(output.style().dim(&format!(
                "  \u{00b7} terminal/release {}",
                request.terminal_id
            ))),
        );
        Ok(ReleaseTerminalResponse::new())
    }
}

/// Adds the fields of `extra` (an object) to `event`.
fn merge(event: &mut serde_json::Value, extra: serde_json::Value) {
    if let (Some(event), serde_json::Value::Object(extra)) = (event.as_object_mut(), extra) {
        event.extend(extra);
    }
}
