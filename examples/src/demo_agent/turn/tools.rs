//! The tool calls of a turn: reading, editing (with a diff and a permission request),
//! running a command in a client terminal, switching modes, and asking the user.

use acp_types::*;
use serde_json::json;

use super::super::session::MODES;
use super::{
    Decision, Stop, TERMINAL_OUTPUT_LIMIT_BYTES, Turn, describe_error, fenced, newline_if_needed,
};

impl Turn<'_> {
    /// Reads a file as a `read` tool call; `None` when it could not (the call says why).
    pub(super) async fn read(
        &mut self,
        path: &str,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> Result<Option<(String, String)>, Stop> {
        let abs = self.absolute(path)?;
        let id = self.next_call_id();
        let mut location = ToolCallLocation::new(abs.as_str());
        location.line = line;
        self.send(
            ToolCall::new(id.clone(), format!("Read {path}"))
                .kind(ToolKind::Read)
                .status(ToolCallStatus::Pending)
                .locations(vec![location])
                .raw_input(json!({ "path": abs, "line": line, "limit": limit })),
        )
        .await?;
        let can_read = self
            .agent
            .client
            .client_initialize()
            .is_some_and(InitializeRequest::can_read_text_file);
        if !can_read {
            let why = "The client does not offer `fs/read_text_file`, so I cannot read files \
                       in this editor.";
            self.fail_call(&id, why).await?;
            self.say(why).await?;
            return Ok(None);
        }
        self.set_status(&id, ToolCallStatus::InProgress).await?;
        let mut request = ReadTextFileRequest::new(self.session_id.clone(), abs.as_str());
        request.line = line;
        request.limit = limit;
        let read = self
            .guard(self.agent.client.read_text_file(request))
            .await?;
        match read {
            Ok(response) => {
                let content = response.content;
                let lines = content.lines().count();
                self.send(
                    ToolCallUpdate::new(id)
                        .status(ToolCallStatus::Completed)
                        .content(vec![ToolCallContent::from(fenced(&content).as_str())])
                        .raw_output(json!({ "lines": lines, "bytes": content.len() })),
                )
                .await?;
                Ok(Some((abs, content)))
            }
            Err(error) => {
                let why = format!("Could not read `{path}`: {}", describe_error(&error));
                self.fail_call(&id, &why).await?;
                self.say(&why).await?;
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
        let id = self.next_call_id();
        let first_change = old
            .lines()
            .zip(new.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| old.lines().count());
        let line = u32::try_from(first_change + 1).unwrap_or(u32::MAX);
        self.send(
            ToolCall::new(id.clone(), format!("Edit {path}"))
                .kind(ToolKind::Edit)
                .status(ToolCallStatus::Pending)
                .locations(vec![ToolCallLocation::new(abs.as_str()).line(line)])
                .raw_input(json!({ "path": abs, "edit": what }))
                .content(vec![ToolCallContent::from(
                    Diff::new(abs.as_str(), new.as_str()).old_text(old.as_str()),
                )]),
        )
        .await?;
        self.plan(&steps, 2).await?;
        let (mode, always) = self.session(|s| (s.mode.clone(), s.always_allow))?;
        if mode == "read-only" {
            let why = "Not applied: the session is in read-only mode.";
            self.fail_call(&id, why).await?;
            self.say(&format!("{why} The proposal is the diff above."))
                .await?;
            return Ok(());
        }
        let can_write = self
            .agent
            .client
            .client_initialize()
            .is_some_and(InitializeRequest::can_write_text_file);
        if !can_write {
            let why = "The client does not offer `fs/write_text_file`, so I can only propose \
                       this edit.";
            self.fail_call(&id, why).await?;
            self.say(why).await?;
            return Ok(());
        }
        if mode == "ask" && !always {
            if let Decision::Reject = self.ask(&id, &format!("Edit {path}")).await? {
                self.fail_call(&id, "Rejected by the user.").await?;
                self.say(&format!("OK, I left `{path}` unchanged.")).await?;
                return Ok(());
            }
        }
        self.set_status(&id, ToolCallStatus::InProgress).await?;
        let request = WriteTextFileRequest::new(self.session_id.clone(), abs.as_str(), new);
        let written = self
            .guard(self.agent.client.write_text_file(request))
            .await?;
        if let Err(error) = written {
            let why = format!("Could not write `{path}`: {}", describe_error(&error));
            self.fail_call(&id, &why).await?;
            self.say(&why).await?;
            return Ok(());
        }
        self.set_status(&id, ToolCallStatus::Completed).await?;
        self.plan(&steps, 3).await?;
        self.say(&format!("Done: I {what} in `{path}`.")).await?;
        Ok(())
    }

    pub(super) async fn run_command(&mut self, command: &str, args: &[String]) -> Result<(), Stop> {
        let (mode, always, cwd) =
            self.session(|s| (s.mode.clone(), s.always_allow, s.cwd.clone()))?;
        if mode == "read-only" {
            self.say("The session is in read-only mode, so I do not run commands. `mode ask` switches back.")
                .await?;
            return Ok(());
        }
        let line = std::iter::once(command)
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let id = self.next_call_id();
        self.send(
            ToolCall::new(id.clone(), format!("Run `{line}`"))
                .kind(ToolKind::Execute)
                .status(ToolCallStatus::Pending)
                .raw_input(json!({ "command": command, "args": args, "cwd": cwd })),
        )
        .await?;
        let can_run = self
            .agent
            .client
            .client_initialize()
            .is_some_and(InitializeRequest::can_use_terminal);
        if !can_run {
            let why = format!(
                "The client offers no terminal (the `terminal` capability), so I cannot run `{line}`."
            );
            self.fail_call(&id, &why).await?;
            self.say(&why).await?;
            return Ok(());
        }
        if mode == "ask" && !always {
            if let Decision::Reject = self.ask(&id, &format!("Run `{line}`")).await? {
                self.fail_call(&id, "Rejected by the user.").await?;
                self.say(&format!("OK, I did not run `{line}`.")).await?;
                return Ok(());
            }
        }
        let client = &self.agent.client;
        let request = CreateTerminalRequest::new(self.session_id.clone(), command)
            .args(args.to_vec())
            .cwd(cwd.as_str())
            .output_byte_limit(TERMINAL_OUTPUT_LIMIT_BYTES);
        let terminal = match self.guard(client.create_terminal(request)).await? {
            Ok(created) => created.terminal_id,
            Err(error) => {
                let why = format!("Could not start `{line}`: {}", describe_error(&error));
                self.fail_call(&id, &why).await?;
                self.say(&why).await?;
                return Ok(());
            }
        };
        self.terminal = Some(terminal.clone());
        self.send_live(
            ToolCallUpdate::new(id.clone())
                .status(ToolCallStatus::InProgress)
                .content(vec![ToolCallContent::from(Terminal::new(terminal.clone()))]),
        )
        .await?;
        let sid = self.session_id.clone();
        let exit = self
            .guard(
                client.wait_for_terminal_exit(WaitForTerminalExitRequest::new(
                    sid.clone(),
                    terminal.clone(),
                )),
            )
            .await??;
        let output = self
            .guard(
                client.terminal_output(TerminalOutputRequest::new(sid.clone(), terminal.clone())),
            )
            .await??;
        self.terminal = None;
        self.guard(client.release_terminal(ReleaseTerminalRequest::new(sid, terminal.clone())))
            .await??;
        let status = match (exit.exit_code, &exit.signal) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(signal)) => format!("was killed by {signal}"),
            (None, None) => "ended".to_owned(),
        };
        let truncated = if output.truncated {
            " (output truncated)"
        } else {
            ""
        };
        let summary = format!("`{line}` {status}{truncated}.");
        let ok = exit.exit_code == Some(0);
        let state = if ok {
            ToolCallStatus::Completed
        } else {
            ToolCallStatus::Failed
        };
        let raw = json!({ "exitCode": exit.exit_code, "signal": exit.signal, "truncated": output.truncated });
        // Live: the terminal stays embedded (clients keep showing released terminals). In the
        // history, whose replay may come after the terminal is gone, its output as text.
        self.record(
            ToolCallUpdate::new(id.clone())
                .status(state.clone())
                .content(vec![
                    ToolCallContent::from(fenced(&output.output).as_str()),
                    ToolCallContent::from(summary.as_str()),
                ])
                .raw_output(raw.clone())
                .into(),
        );
        self.send_live(
            ToolCallUpdate::new(id)
                .status(state)
                .content(vec![
                    ToolCallContent::from(Terminal::new(terminal)),
                    ToolCallContent::from(summary.as_str()),
                ])
                .raw_output(raw),
        )
        .await?;
        let lines = output.output.lines().count();
        self.say(&format!("{summary} It printed {lines} line(s)."))
            .await?;
        Ok(())
    }

    pub(super) async fn switch_mode(&mut self, mode: &str) -> Result<(), Stop> {
        let Some((id, name, description)) = MODES.iter().find(|m| m.0 == mode) else {
            let ids: Vec<&str> = MODES.iter().map(|m| m.0).collect();
            self.say(&format!(
                "There is no `{mode}` mode; the modes are {}.",
                ids.join(", ")
            ))
            .await?;
            return Ok(());
        };
        let call = self.next_call_id();
        self.send(
            ToolCall::new(call, format!("Switch to {name} mode"))
                .kind(ToolKind::SwitchMode)
                .status(ToolCallStatus::Completed)
                .raw_input(json!({ "modeId": id })),
        )
        .await?;
        self.session(|s| s.mode = (*id).to_owned())?;
        let sid = self.session_id.clone();
        self.guard(self.agent.announce_mode(&sid, true)).await??;
        self.say(&format!("Switched to {name} mode: {description}."))
            .await?;
        Ok(())
    }

    /// Asks the user about tool call `id`.
    async fn ask(&mut self, id: &ToolCallId, title: &str) -> Result<Decision, Stop> {
        let options = vec![
            PermissionOption::new("allow", "Allow once", PermissionOptionKind::AllowOnce),
            PermissionOption::new(
                "allow-always",
                "Always allow",
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        ];
        let call = ToolCallUpdate::new(id.clone()).title(title);
        let outcome = self
            .guard(self.cx.request_permission(call, options))
            .await??;
        Ok(match outcome {
            RequestPermissionOutcome::Cancelled(_) => return Err(Stop::Cancelled),
            RequestPermissionOutcome::Selected(s) if s.option_id.as_str() == "allow" => {
                Decision::Allow
            }
            RequestPermissionOutcome::Selected(s) if s.option_id.as_str() == "allow-always" => {
                self.session(|s| s.always_allow = true)?;
                Decision::AllowAlways
            }
            _ => Decision::Reject,
        })
    }
}
