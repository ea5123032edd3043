//! The tool calls of a turn: reading, editing (with a diff and a permission request),
//! running a command in a client terminal (on v2, here in a display terminal: `display.rs`),
//! switching modes, and asking the user.

use acp_agent::{Error as CallError, Permission, ToolCallHandle, permission_options};
use acp_types::*;
use serde_json::json;

use super::super::session::MODES;
use super::{Stop, TERMINAL_OUTPUT_LIMIT_BYTES, Turn, describe_error, fenced, newline_if_needed};

impl Turn<'_> {
    /// Reads a file as a `read` tool call; `None` when it could not (the call says why).
    pub(super) async fn read(
        &mut self,
        path: &str,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> Result<Option<(String, String)>, Stop> {
        let abs = self.absolute(path)?;
        let location = ToolCallLocation::new(&abs).maybe(line, ToolCallLocation::line);
        let call = ToolCall::new("", format!("Read {path}"))
            .kind(ToolKind::Read)
            .locations(vec![location])
            .raw_input(json!({ "path": abs, "line": line, "limit": limit }))
            .name("read_file");
        let call = self.start(call).await?;
        if !self.agent.client.can_read_text_file() {
            let why = match self.v2() {
                true => {
                    "ACP v2 has no client file system (`fs/*` is v1 only), so I cannot \
                         read files in this editor."
                }
                false => {
                    "The client does not offer `fs/read_text_file`, so I cannot read \
                          files in this editor."
                }
            };
            self.give_up(&call, why).await?;
            return Ok(None);
        }
        self.guard(call.in_progress()).await?;
        let request = ReadTextFileRequest::new(self.session_id.clone(), &abs)
            .maybe(line, ReadTextFileRequest::line)
            .maybe(limit, ReadTextFileRequest::limit);
        match self
            .cx
            .or_cancelled(self.agent.client.read_text_file(request))
            .await?
        {
            Ok(response) => {
                let content = response.content;
                let lines = content.lines().count();
                let done = ToolCallUpdate::new(call.id().clone())
                    .status(ToolCallStatus::Completed)
                    .content(vec![ToolCallContent::from(fenced(&content))])
                    .raw_output(json!({ "lines": lines, "bytes": content.len() }));
                self.guard(call.update(done)).await?;
                Ok(Some((abs, content)))
            }
            Err(error) => {
                let why = format!("Could not read `{path}`: {}", describe_error(&error));
                self.give_up(&call, &why).await?;
                Ok(None)
            }
        }
    }

    pub(super) async fn edit(
        &mut self,
        path: &str,
        replace: Option<(String, String)>,
    ) -> Result<(), Stop> {
        let steps = [
            format!("Read {path}"),
            "Propose an edit".to_owned(),
            "Apply the edit".to_owned(),
        ];
        self.plan(&steps, 0).await?;
        let Some((abs, old)) = self.read(path, None, None).await? else {
            return Ok(());
        };
        let (new, what) = match &replace {
            Some((from, to)) => (
                old.replace(from.as_str(), to),
                format!("replaced `{from}` with `{to}`"),
            ),
            None if old.contains("TODO") => (
                old.replace("TODO", "DONE"),
                "turned every TODO into DONE".to_owned(),
            ),
            None => (
                format!(
                    "{old}{}Reviewed by the demo agent.\n",
                    newline_if_needed(&old)
                ),
                "added a review note".to_owned(),
            ),
        };
        if new == old {
            self.plan(&steps, 3).await?;
            let from = replace.map(|r| r.0).unwrap_or_default();
            self.say(&format!(
                "`{from}` does not occur in `{path}`: nothing to change."
            ))
            .await?;
            return Ok(());
        }
        self.plan(&steps, 1).await?;
        let first_change = old
            .lines()
            .zip(new.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| old.lines().count());
        let line = u32::try_from(first_change + 1).unwrap_or(u32::MAX);
        let call = ToolCall::new("", format!("Edit {path}"))
            .kind(ToolKind::Edit)
            .locations(vec![ToolCallLocation::new(&abs).line(line)])
            .raw_input(json!({ "path": abs, "edit": what }))
            .content(vec![ToolCallContent::from(
                Diff::new(&abs, new.as_str()).old_text(old.as_str()),
            )])
            .name("edit_file");
        let call = self.start(call).await?;
        self.plan(&steps, 2).await?;
        let (mode, always) = self.session(|s| (s.mode.clone(), s.always_allow))?;
        if mode == "read-only" {
            let why = "Not applied: the session is in read-only mode.";
            self.fail_call(&call, why).await?;
            self.say(&format!("{why} The proposal is the diff above."))
                .await?;
            return Ok(());
        }
        if !self.agent.client.can_write_text_file() {
            let why = match self.v2() {
                true => {
                    "ACP v2 has no client file system (`fs/*` is v1 only), so I can only \
                         propose this edit."
                }
                false => {
                    "The client does not offer `fs/write_text_file`, so I can only \
                          propose this edit."
                }
            };
            return self.give_up(&call, why).await;
        }
        if mode == "ask" && !always && !self.ask(&call, &format!("Edit {path}")).await? {
            self.fail_call(&call, "Rejected by the user.").await?;
            return self.say(&format!("OK, I left `{path}` unchanged.")).await;
        }
        self.guard(call.in_progress()).await?;
        let written = self
            .cx
            .or_cancelled(self.cx.write_text_file(&abs, new))
            .await?;
        if let Err(error) = written {
            let why = format!("Could not write `{path}`: {}", describe_error(&error));
            return self.give_up(&call, &why).await;
        }
        self.guard(call.completed()).await?;
        self.plan(&steps, 3).await?;
        self.say(&format!("Done: I {what} in `{path}`.")).await
    }

    pub(super) async fn run_command(&mut self, command: &str, args: &[String]) -> Result<(), Stop> {
        let (mode, always, cwd) =
            self.session(|s| (s.mode.clone(), s.always_allow, s.cwd.clone()))?;
        if mode == "read-only" {
            return self
                .say("The session is in read-only mode, so I do not run commands. `mode ask` switches back.")
                .await;
        }
        let line = std::iter::once(command)
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let call = ToolCall::new("", format!("Run `{line}`"))
            .kind(ToolKind::Execute)
            .raw_input(json!({ "command": command, "args": args, "cwd": cwd }))
            .name("run_command");
        let call = self.start(call).await?;
        // v2 has no client terminals: the agent runs the command itself (`run_here`).
        if !self.v2() && !self.agent.client.can_use_terminal() {
            let why = format!(
                "The client offers no terminal (the `terminal` capability), so I cannot run \
                 `{line}`."
            );
            return self.give_up(&call, &why).await;
        }
        if mode == "ask" && !always && !self.ask(&call, &format!("Run `{line}`")).await? {
            self.fail_call(&call, "Rejected by the user.").await?;
            return self.say(&format!("OK, I did not run `{line}`.")).await;
        }
        #[cfg(feature = "unstable_protocol_v2")]
        if self.v2() {
            return self.run_here(&call, command, args, &cwd, &line).await;
        }
        let request = CreateTerminalRequest::new(self.session_id.clone(), command)
            .args(args.to_vec())
            .cwd(cwd.as_str())
            .output_byte_limit(TERMINAL_OUTPUT_LIMIT_BYTES);
        // Released (and its command killed) when dropped, whatever happens.
        let terminal = match self
            .cx
            .or_cancelled(self.cx.client().terminal(request))
            .await?
        {
            Ok(terminal) => terminal,
            Err(error) => {
                let why = format!("Could not start `{line}`: {}", describe_error(&error));
                return self.give_up(&call, &why).await;
            }
        };
        // Live only: a replay may come after the terminal is gone (see below).
        let running = ToolCallUpdate::new(call.id().clone())
            .status(ToolCallStatus::InProgress)
            .content(vec![terminal.content()]);
        let live = self.cx.unrecorded();
        let waited = self
            .cx
            .or_cancelled(async {
                live.update(running).await?;
                let exit = terminal.wait_for_exit().await?;
                Ok::<_, CallError>((exit, terminal.output().await?))
            })
            .await;
        let Ok(waited) = waited else {
            // Cancelled: stop the command, then let go of the terminal.
            let _ = terminal.kill().await;
            let _ = terminal.release().await;
            return Err(Stop::Cancelled);
        };
        let (exit, output) = waited?;
        let embedded = terminal.content();
        self.guard(terminal.release()).await?;
        let exit_code = exit.exit_code.map(i64::from);
        let ran = Ran {
            line: &line,
            exit_code,
            signal: exit.signal.as_deref(),
            truncated: output.truncated,
            output: &output.output,
        };
        self.report_run(&call, &ran, embedded).await
    }

    /// Ends the tool call of a command that ran (`run`, in a client terminal or, on v2, here)
    /// and says how it went. Live, `shown` (the terminal) stays embedded (clients keep showing
    /// released terminals); in the history, whose replay may come after the terminal is gone,
    /// its output as text.
    pub(super) async fn report_run(
        &mut self,
        call: &ToolCallHandle,
        ran: &Ran<'_>,
        shown: ToolCallContent,
    ) -> Result<(), Stop> {
        let status = match (ran.exit_code, ran.signal) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(signal)) => format!("was killed by {signal}"),
            (None, None) => "ended".to_owned(),
        };
        let truncated = if ran.truncated {
            " (output truncated)"
        } else {
            ""
        };
        let summary = format!("`{}` {status}{truncated}.", ran.line);
        let state = if ran.exit_code == Some(0) {
            ToolCallStatus::Completed
        } else {
            ToolCallStatus::Failed
        };
        let raw =
            json!({ "exitCode": ran.exit_code, "signal": ran.signal, "truncated": ran.truncated });
        let done = |shown: ToolCallContent| {
            ToolCallUpdate::new(call.id().clone())
                .status(state.clone())
                .content(vec![shown, ToolCallContent::from(summary.as_str())])
                .raw_output(raw.clone())
        };
        let recorded = done(ToolCallContent::from(fenced(ran.output)));
        self.agent
            .sessions
            .0
            .record(&self.session_id, &recorded.into());
        self.guard(self.cx.unrecorded().update(done(shown))).await?;
        let lines = ran.output.lines().count();
        self.say(&format!("{summary} It printed {lines} line(s)."))
            .await
    }

    pub(super) async fn switch_mode(&mut self, mode: &str) -> Result<(), Stop> {
        let Some((id, name, description)) = MODES.iter().find(|m| m.0 == mode) else {
            let ids: Vec<&str> = MODES.iter().map(|m| m.0).collect();
            return self
                .say(&format!(
                    "There is no `{mode}` mode; the modes are {}.",
                    ids.join(", ")
                ))
                .await;
        };
        let call = ToolCall::new("", format!("Switch to {name} mode"))
            .kind(ToolKind::SwitchMode)
            .status(ToolCallStatus::Completed)
            .raw_input(json!({ "modeId": id }))
            .name("switch_mode");
        self.start(call).await?;
        self.session(|s| s.mode = (*id).to_owned())?;
        let sid = self.session_id.clone();
        self.cx
            .or_cancelled(self.agent.announce_mode(&sid, true))
            .await??;
        self.say(&format!("Switched to {name} mode: {description}."))
            .await
    }

    /// Asks the user about `call`; true when allowed. "Always allow" is remembered for the
    /// session; a cancelled request cancels the turn.
    async fn ask(&mut self, call: &ToolCallHandle, title: &str) -> Result<bool, Stop> {
        let options = permission_options::allow_once_always_reject();
        let request = ToolCallUpdate::new(call.id().clone()).title(title);
        let outcome = self
            .guard(self.cx.request_permission(request, options.clone()))
            .await?;
        match Permission::of(&outcome, &options) {
            Permission::Cancelled => Err(Stop::Cancelled),
            Permission::AllowedAlways(_) => {
                self.session(|s| s.always_allow = true)?;
                Ok(true)
            }
            decision => Ok(decision.is_allowed()),
        }
    }
}

/// How a command of `run` ended, for [`Turn::report_run`].
pub(super) struct Ran<'a> {
    /// The command line shown.
    pub(super) line: &'a str,
    /// Its exit code, when it exited.
    pub(super) exit_code: Option<i64>,
    /// The signal that ended it, when one did.
    pub(super) signal: Option<&'a str>,
    /// True when the output kept is not all of it.
    pub(super) truncated: bool,
    /// The output kept, as text.
    pub(super) output: &'a str,
}
