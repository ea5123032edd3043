//! The scripts of the scripted agent's prompt turns (see [`crate::script`]).

use std::collections::BTreeMap;
use std::sync::PoisonError;

use acp_agent::PromptContext;
use acp_types::*;
use tokio::sync::oneshot;

use crate::AgentEvent;
use crate::agent::ScriptedAgent;
use crate::script;

/// Describes the outcome of a call to the client, for a report.
fn outcome<T>(result: &Result<T, acp_agent::Error>) -> String {
    match result {
        Ok(_) => "ok".into(),
        Err(acp_agent::Error::CapabilityNotAdvertised { capability, .. }) => {
            format!("not advertised ({capability})")
        }
        Err(e) => match e.remote() {
            Some(error) => format!("error {}", error.code.0),
            None => format!("failed: {e}"),
        },
    }
}

/// The name of a content block's kind, as on the wire.
pub fn block_kind(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text(_) => "text",
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::ResourceLink(_) => "resource_link",
        ContentBlock::Resource(_) => "resource",
        _ => "unknown",
    }
}

fn permission_options() -> Vec<PermissionOption> {
    vec![
        PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
        PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
    ]
}

/// The form the [`ELICIT`](script::ELICIT) script asks the user to fill in.
pub fn elicitation_form() -> ElicitationSchema {
    let properties = BTreeMap::from([
        (
            "strategy".to_owned(),
            ElicitationPropertySchema::String(
                StringPropertySchema::new()
                    .title("Strategy")
                    .enum_values(vec!["conservative".into(), "bold".into()]),
            ),
        ),
        (
            "passes".to_owned(),
            ElicitationPropertySchema::Integer(
                IntegerPropertySchema::new()
                    .minimum(1i64)
                    .maximum(5i64)
                    .default(1i64),
            ),
        ),
        (
            "confirm".to_owned(),
            ElicitationPropertySchema::Boolean(BooleanPropertySchema::new()),
        ),
    ]);
    ElicitationSchema::new()
        .schema_type(ElicitationSchemaType::Object)
        .properties(properties)
        .required(vec!["strategy".into()])
}

/// The URL elicitation of the [`ELICIT`](script::ELICIT) script.
pub const ELICITATION_ID: &str = "el-1";

impl ScriptedAgent {
    async fn stream_all_updates(&self, cx: &PromptContext) -> Result<StopReason, ErrorObject> {
        let session = self.with_session(cx.session_id(), |s| {
            s.mode = "code".into();
            s.title = Some("E2E session".into());
            Ok(s.clone())
        })?;
        let updates = vec![
            SessionUpdate::UserMessageChunk(
                ContentChunk::new("what was asked before").message_id("user-1"),
            ),
            SessionUpdate::AgentThoughtChunk(ContentChunk::new("thinking it over")),
            SessionUpdate::Plan(Plan::new(vec![
                PlanEntry::new("look", PlanEntryPriority::High, PlanEntryStatus::Completed),
                PlanEntry::new(
                    "edit",
                    PlanEntryPriority::Medium,
                    PlanEntryStatus::InProgress,
                ),
                PlanEntry::new("test", PlanEntryPriority::Low, PlanEntryStatus::Pending),
            ])),
            SessionUpdate::from(
                ToolCall::new("call-1", "Edit main.rs")
                    .kind(ToolKind::Edit)
                    .status(ToolCallStatus::Pending)
                    .locations(vec![ToolCallLocation::new("/work/main.rs").line(3u32)])
                    .content(vec![
                        ToolCallContent::from(Diff::new("/work/main.rs", "new").old_text("old")),
                        ToolCallContent::from("a note"),
                    ]),
            ),
            SessionUpdate::from(
                ToolCallUpdate::new("call-1")
                    .status(ToolCallStatus::Completed)
                    .content(vec![ToolCallContent::from(Terminal::new("term-0"))]),
            ),
            SessionUpdate::AgentMessageChunk(ContentChunk::new("all done").message_id("agent-1")),
            SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(vec![
                AvailableCommand::new("test", "Run the tests")
                    .input(UnstructuredCommandInput::new("which tests")),
            ])),
            SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new("code")),
            SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(
                self.config_options(&session),
            )),
            SessionUpdate::SessionInfoUpdate(
                SessionInfoUpdate::new()
                    .title("E2E session")
                    .updated_at("2025-01-01T00:00:00Z"),
            ),
            SessionUpdate::UsageUpdate(
                UsageUpdate::new(53_000u64, 200_000u64).cost(Cost::new(0.045, "USD")),
            ),
        ];
        for update in updates {
            self.send(cx, update).await?;
        }
        Ok(StopReason::EndTurn)
    }

    async fn ask_permission(&self, cx: &PromptContext) -> Result<StopReason, ErrorObject> {
        self.send(
            cx,
            SessionUpdate::from(
                ToolCall::new("call-perm", "Write notes.txt")
                    .kind(ToolKind::Edit)
                    .status(ToolCallStatus::Pending),
            ),
        )
        .await?;
        let outcome = cx
            .request_permission(
                ToolCallUpdate::new("call-perm").title("Write notes.txt"),
                permission_options(),
            )
            .await?;
        let (status, text, stop) = match &outcome {
            RequestPermissionOutcome::Selected(selected) => (
                if selected.option_id.as_str() == "allow" {
                    ToolCallStatus::Completed
                } else {
                    ToolCallStatus::Failed
                },
                format!("permission: selected {}", selected.option_id),
                StopReason::EndTurn,
            ),
            RequestPermissionOutcome::Cancelled(_) => (
                ToolCallStatus::Failed,
                "permission: cancelled".to_owned(),
                StopReason::Cancelled,
            ),
            other => {
                return Err(ErrorObject::invalid_params(format_args!(
                    "unexpected outcome {other:?}"
                )));
            }
        };
        self.send(
            cx,
            SessionUpdate::from(ToolCallUpdate::new("call-perm").status(status)),
        )
        .await?;
        self.say(cx, text).await?;
        Ok(stop)
    }

    async fn ask_permission_detached(&self, cx: &PromptContext) -> Result<StopReason, ErrorObject> {
        let client = cx.client().clone();
        let events = self.config.events.clone();
        let request = RequestPermissionRequest::new(
            cx.session_id().clone(),
            ToolCallUpdate::new("call-detached").title("Delete build/"),
            permission_options(),
        );
        let (tx, rx) = oneshot::channel();
        let task = tokio::spawn(async move {
            let result = client.request_permission(request).await;
            let connection_closed = matches!(
                &result,
                Err(acp_agent::Error::Rpc(e)) if e.is_connection_closed()
            );
            let text = match &result {
                Ok(response) => format!("{:?}", response.outcome),
                Err(e) => e.to_string(),
            };
            events(AgentEvent::DetachedCall {
                method: methods::client::SESSION_REQUEST_PERMISSION.into(),
                outcome: text.clone(),
                connection_closed,
            });
            let _ = tx.send(text);
        });
        self.detached
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(task);
        let text = rx
            .await
            .map_err(|_| ErrorObject::internal_error("the detached call vanished"))?;
        self.say(cx, format!("detached permission: {text}")).await?;
        Ok(StopReason::EndTurn)
    }

    async fn read_write_file(
        &self,
        cx: &PromptContext,
        args: &[&str],
    ) -> Result<StopReason, ErrorObject> {
        let [from, to] = args else {
            return Err(ErrorObject::invalid_params(
                "usage: read-write-file FROM TO",
            ));
        };
        let client = cx.client();
        let sid = cx.session_id().clone();
        let whole = client
            .read_text_file(ReadTextFileRequest::new(sid.clone(), *from))
            .await?
            .content;
        let line = client
            .read_text_file(
                ReadTextFileRequest::new(sid.clone(), *from)
                    .line(2u32)
                    .limit(1u32),
            )
            .await?
            .content;
        client
            .write_text_file(WriteTextFileRequest::new(sid, *to, whole.to_uppercase()))
            .await?;
        self.say(cx, format!("read: {whole}")).await?;
        self.say(cx, format!("line 2: {line}")).await?;
        self.say(cx, format!("wrote: {to}")).await?;
        Ok(StopReason::EndTurn)
    }

    async fn terminal(&self, cx: &PromptContext) -> Result<StopReason, ErrorObject> {
        let client = cx.client();
        let sid = cx.session_id().clone();
        // A command that exits at once.
        let echo = client
            .create_terminal(
                CreateTerminalRequest::new(sid.clone(), "echo").args(vec!["hello".to_owned()]),
            )
            .await?
            .terminal_id;
        self.send(
            cx,
            SessionUpdate::from(
                ToolCall::new("call-term", "echo hello")
                    .kind(ToolKind::Execute)
                    .status(ToolCallStatus::InProgress)
                    .content(vec![ToolCallContent::from(Terminal::new(echo.clone()))]),
            ),
        )
        .await?;
        let exit = client
            .wait_for_terminal_exit(WaitForTerminalExitRequest::new(sid.clone(), echo.clone()))
            .await?;
        let output = client
            .terminal_output(TerminalOutputRequest::new(sid.clone(), echo.clone()))
            .await?;
        client
            .release_terminal(ReleaseTerminalRequest::new(sid.clone(), echo.clone()))
            .await?;
        self.say(
            cx,
            format!(
                "echo: output {:?}, exit code {:?}, reported {:?}",
                output.output,
                exit.exit_code,
                output.exit_status.and_then(|s| s.exit_code)
            ),
        )
        .await?;
        // A command that runs until killed.
        let long = client
            .create_terminal(
                CreateTerminalRequest::new(sid.clone(), "sleep")
                    .args(vec!["1000".to_owned()])
                    .output_byte_limit(4u64),
            )
            .await?
            .terminal_id;
        let running = client
            .terminal_output(TerminalOutputRequest::new(sid.clone(), long.clone()))
            .await?;
        client
            .kill_terminal(KillTerminalRequest::new(sid.clone(), long.clone()))
            .await?;
        let killed = client
            .wait_for_terminal_exit(WaitForTerminalExitRequest::new(sid.clone(), long.clone()))
            .await?;
        let after_kill = client
            .terminal_output(TerminalOutputRequest::new(sid.clone(), long.clone()))
            .await?;
        client
            .release_terminal(ReleaseTerminalRequest::new(sid.clone(), long.clone()))
            .await?;
        self.say(
            cx,
            format!(
                "sleep: running {}, killed by {:?}, output {:?} truncated {}",
                running.exit_status.is_none(),
                killed.signal,
                after_kill.output,
                after_kill.truncated
            ),
        )
        .await?;
        let released = client
            .terminal_output(TerminalOutputRequest::new(sid, long))
            .await;
        self.say(cx, format!("after release: {}", outcome(&released)))
            .await?;
        self.send(
            cx,
            SessionUpdate::from(ToolCallUpdate::new("call-term").status(ToolCallStatus::Completed)),
        )
        .await?;
        Ok(StopReason::EndTurn)
    }

    async fn elicit(&self, cx: &PromptContext) -> Result<StopReason, ErrorObject> {
        let client = cx.client();
        let sid = cx.session_id().clone();
        let form = client
            .create_elicitation(CreateElicitationRequest::new(
                "How bold should the refactoring be?",
                ElicitationMode::Form(ElicitationFormMode::new(
                    elicitation_form(),
                    ElicitationSessionScope::new(sid.clone()),
                )),
            ))
            .await;
        let text = match &form {
            Ok(response) => match &response.action {
                ElicitationAction::Accept(accept) => format!(
                    "form: accept {}",
                    serde_json::to_string(&accept.content).unwrap_or_default()
                ),
                ElicitationAction::Decline => "form: decline".into(),
                ElicitationAction::Cancel => "form: cancel".into(),
                other => format!("form: {other:?}"),
            },
            Err(_) => format!("form: {}", outcome(&form)),
        };
        self.say(cx, text).await?;
        let url = client
            .create_elicitation(CreateElicitationRequest::new(
                "Authorize access to your repositories",
                ElicitationMode::Url(ElicitationUrlMode::new(
                    ELICITATION_ID,
                    format!("https://example.invalid/connect?elicitationId={ELICITATION_ID}"),
                    ElicitationSessionScope::new(sid),
                )),
            ))
            .await;
        let text = match &url {
            Ok(response) => format!("url: {:?}", response.action),
            Err(_) => format!("url: {}", outcome(&url)),
        };
        self.say(cx, text).await?;
        let complete = client
            .complete_elicitation(CompleteElicitationNotification::new(ELICITATION_ID))
            .await;
        self.say(cx, format!("complete: {}", outcome(&complete)))
            .await?;
        Ok(StopReason::EndTurn)
    }

    async fn try_gated_calls(&self, cx: &PromptContext) -> Result<StopReason, ErrorObject> {
        let client = cx.client();
        let sid = cx.session_id().clone();
        let mut report = Vec::new();
        let read = client
            .read_text_file(ReadTextFileRequest::new(sid.clone(), "/gated.txt"))
            .await;
        report.push(format!("fs/read_text_file: {}", outcome(&read)));
        let write = client
            .write_text_file(WriteTextFileRequest::new(sid.clone(), "/gated.txt", "x"))
            .await;
        report.push(format!("fs/write_text_file: {}", outcome(&write)));
        let terminal = client
            .create_terminal(CreateTerminalRequest::new(sid.clone(), "echo"))
            .await;
        report.push(format!("terminal/create: {}", outcome(&terminal)));
        if let Ok(created) = terminal {
            client
                .release_terminal(ReleaseTerminalRequest::new(
                    sid.clone(),
                    created.terminal_id,
                ))
                .await?;
        }
        let form = client
            .create_elicitation(CreateElicitationRequest::new(
                "form",
                ElicitationMode::Form(ElicitationFormMode::new(
                    elicitation_form(),
                    ElicitationSessionScope::new(sid.clone()),
                )),
            ))
            .await;
        report.push(format!("elicitation/create form: {}", outcome(&form)));
        let url = client
            .create_elicitation(CreateElicitationRequest::new(
                "url",
                ElicitationMode::Url(ElicitationUrlMode::new(
                    "el-gated",
                    "https://example.invalid/gated",
                    ElicitationSessionScope::new(sid),
                )),
            ))
            .await;
        report.push(format!("elicitation/create url: {}", outcome(&url)));
        let complete = client
            .complete_elicitation(CompleteElicitationNotification::new("el-gated"))
            .await;
        report.push(format!("elicitation/complete: {}", outcome(&complete)));
        for line in report {
            self.say(cx, line).await?;
        }
        Ok(StopReason::EndTurn)
    }

    pub(crate) async fn run_script(
        &self,
        cx: &PromptContext,
        command: &str,
        args: &[&str],
        prompt: &[ContentBlock],
    ) -> Result<StopReason, ErrorObject> {
        match command {
            script::STREAM_ALL_UPDATES => self.stream_all_updates(cx).await,
            script::COUNT => {
                let n: usize = args.first().and_then(|n| n.parse().ok()).unwrap_or(0);
                for i in 0..n {
                    self.say(cx, i.to_string()).await?;
                }
                Ok(StopReason::EndTurn)
            }
            script::ASK_PERMISSION => self.ask_permission(cx).await,
            script::PERMISSION_AFTER_CANCEL => {
                self.until_cancelled(cx, false).await?;
                self.ask_permission(cx).await
            }
            script::ASK_PERMISSION_DETACHED => self.ask_permission_detached(cx).await,
            script::READ_WRITE_FILE => self.read_write_file(cx, args).await,
            script::TERMINAL => self.terminal(cx).await,
            script::ELICIT => self.elicit(cx).await,
            script::TRY_GATED_CALLS => self.try_gated_calls(cx).await,
            script::WAIT_FOR_CANCEL | script::POLL_FOR_CANCEL => {
                self.until_cancelled(cx, command == script::POLL_FOR_CANCEL)
                    .await?;
                self.say(cx, "stopping").await?;
                // Deliberately not `cancelled`: the library must fix the stop reason.
                Ok(StopReason::EndTurn)
            }
            script::FAIL_AFTER_CANCEL => {
                self.until_cancelled(cx, false).await?;
                Err(ErrorObject::internal_error("the model call was aborted"))
            }
            script::CRASH => {
                self.say(cx, "crashing").await?;
                (self.config.crash)();
                std::future::pending::<()>().await;
                unreachable!("a crashed agent does not go on")
            }
            script::FAIL => Err(ErrorObject::internal_error("scripted failure")),
            script::REFUSE => Ok(StopReason::Refusal),
            _ => {
                for block in prompt {
                    self.send(
                        cx,
                        SessionUpdate::AgentMessageChunk(ContentChunk::new(block.clone())),
                    )
                    .await?;
                }
                let kinds: Vec<&str> = prompt.iter().map(block_kind).collect();
                self.say(cx, format!("blocks: {}", kinds.join(","))).await?;
                Ok(StopReason::EndTurn)
            }
        }
    }

    async fn until_cancelled(&self, cx: &PromptContext, poll: bool) -> Result<(), ErrorObject> {
        self.say(cx, if poll { "polling" } else { "waiting" })
            .await?;
        self.emit(AgentEvent::WaitingForCancel(cx.session_id().clone()));
        if poll {
            while !cx.is_cancelled() {
                tokio::task::yield_now().await;
            }
        } else {
            cx.cancelled().await;
        }
        Ok(())
    }
}
