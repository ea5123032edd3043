//! One agent, written once against the v1 trait and toolkit, served to a v2 client and to a v1
//! client (feature `unstable_protocol_v2`). The v2 client is scripted over raw JSON through a
//! duplex pipe; every message both ways is checked against the v2 schema (the official one when
//! it is there), and the v1 client's against the v1 schema.
//!
//! Covered: negotiation (2, 1 as a fallback, 0 refused with `-32022`), the whole v2 prompt
//! lifecycle (acknowledgement with the user message's id, `user_message`, `running`, chunks with
//! message ids, tool calls as `tool_call_update` upserts, `plan_update`, `idle` with the stop
//! reason), permission (`requires_action` while it waits), cancellation (`idle` with
//! `cancelled` after the turn's updates), the v2 connection's refusal of `null` ids and
//! batches, v1-only methods and client calls refused naming the version, resume with and
//! without `replayFrom` (the replay keeps the message ids), and a v1 client of the same agent
//! served as before.

use std::collections::HashMap;
use std::time::Duration;

use acp_agent::{
    Agent, AgentOptions, ClientHandle, PromptContext, SessionStore, permission_options, serve,
};
use acp_testkit::Spec;
use acp_types::v2;
use acp_types::*;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::sync::Notify;
use tokio::time::timeout;

/// The most any step of a test may take.
const DEADLINE: Duration = Duration::from_secs(10);

/// An agent written against v1's trait and toolkit only.
struct Both {
    client: ClientHandle,
    sessions: SessionStore<()>,
    /// Wakes the turn whose tool call the client cancelled.
    tool_cancelled: Notify,
}

#[acp_agent::async_trait]
impl Agent for Both {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        let capabilities = AgentCapabilities::new()
            .load_session(true)
            .session_capabilities(
                SessionCapabilities::new()
                    .list(SessionListCapabilities::new())
                    .resume(SessionResumeCapabilities::new()),
            );
        Ok(InitializeResponse::new(ProtocolVersion::LATEST)
            .agent_capabilities(capabilities)
            .agent_info(Implementation::new("both", "1.0.0")))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        let modes = SessionModeState::new(
            "ask",
            vec![
                SessionMode::new("ask", "Ask"),
                SessionMode::new("code", "Code").description("Edits files"),
            ],
        );
        Ok(NewSessionResponse::new(self.sessions.create(())?).modes(modes))
    }

    async fn set_session_mode(
        &self,
        r: SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, ErrorObject> {
        let say = format!("mode {}", r.mode_id);
        self.client.session(r.session_id).message(say).await?;
        Ok(SetSessionModeResponse::new())
    }

    async fn load_session(
        &self,
        r: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        self.sessions
            .load(&self.client, &r.session_id, |_| ())
            .await?;
        Ok(LoadSessionResponse::new())
    }

    async fn list_sessions(
        &self,
        r: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        self.sessions.list(r.cursor.as_deref(), 10, |id, _| {
            Some(SessionInfo::new(id.clone(), "/work"))
        })
    }

    async fn cancel_tool_call(
        &self,
        _: v2::CancelToolCallRequest,
    ) -> Result<v2::CancelToolCallResponse, ErrorObject> {
        self.tool_cancelled.notify_one();
        Ok(v2::CancelToolCallResponse::new())
    }

    async fn resume_session(
        &self,
        r: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, ErrorObject> {
        self.sessions.with(&r.session_id, |_| ())?;
        Ok(ResumeSessionResponse::new())
    }

    async fn prompt(
        &self,
        r: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let cx = self.sessions.recording(cx);
        cx.record_prompt(&r.prompt);
        let text = r.prompt[0].as_text().unwrap_or_default().to_owned();
        match text.as_str() {
            "hello" => {
                cx.message("Hi ").await?;
                cx.message("there.").await?;
                let plan = cx.plan(["Read the notes"]).await?;
                let read = cx.tool_call("Read notes.txt", ToolKind::Read).await?;
                read.in_progress().await?;
                read.diff("/work/notes.txt", Some("old\n"), "new\n").await?;
                read.completed_with("2 lines").await?;
                plan.complete(0).await?;
                cx.message("Done.").await?;
            }
            "ask" => {
                let edit = cx.tool_call("Edit notes.txt", ToolKind::Edit).await?;
                let answer = edit.ask(permission_options::allow_reject()).await?;
                cx.message(if answer.is_allowed() {
                    "allowed"
                } else {
                    "rejected"
                })
                .await?;
            }
            "wait" => {
                cx.message("waiting").await?;
                cx.or_cancelled(std::future::pending::<()>()).await?;
            }
            "fs" => {
                let said = match cx.read_text_file("/work/notes.txt").await {
                    Ok(_) => "read".to_owned(),
                    Err(error) => format!("refused: {error}"),
                };
                cx.message(said).await?;
            }
            "mode" => {
                let update = SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new("ask"));
                let said = match cx.update(update).await {
                    Ok(()) => "sent".to_owned(),
                    Err(error) => format!("refused: {error}"),
                };
                cx.message(said).await?;
            }
            "notice" => cx.notice(NoticeSeverity::Info, "Indexed").await?,
            "replace" => {
                let draft = ContentChunk::new("draft").message_id("m-draft");
                cx.update(SessionUpdate::AgentMessageChunk(draft)).await?;
                let whole =
                    v2::AgentMessage::new("m-draft").content(vec![v2::ContentBlock::from("final")]);
                let said = match cx.update_v2(whole).await {
                    Ok(()) => "replaced".to_owned(),
                    Err(error) => format!("refused: {error}"),
                };
                cx.message(said).await?;
            }
            "cancellable" => {
                let call = cx.tool_call("Search the web", ToolKind::Search).await?;
                let cancel =
                    v2::ToolCallCapabilities::new().cancel(v2::ToolCallCancelCapabilities::new());
                cx.update_v2(v2::ToolCallUpdate::new(call.id().clone()).capabilities(cancel))
                    .await?;
                cx.or_cancelled(self.tool_cancelled.notified()).await?;
                // v1 has no `cancelled` status: the v2 update says it.
                let cancelled = v2::ToolCallUpdate::new(call.id().clone())
                    .status(v2::ToolCallStatus::Cancelled);
                cx.update_v2(cancelled).await?;
            }
            "terminal" => {
                let start = v2::TerminalUpdate::new("term-1")
                    .command("cargo test")
                    .cwd("/work")
                    .output(v2::TerminalOutput::from_bytes(b"start\n"));
                cx.update_v2(start).await?;
                let content = vec![v2::ToolCallContent::from(Terminal::new("term-1"))];
                cx.update_v2(
                    v2::ToolCallUpdate::new("call-t")
                        .title("Run the tests")
                        .content(content),
                )
                .await?;
                // A euro sign split across two chunks, then a byte that is not UTF-8.
                cx.update_v2(v2::TerminalOutputChunk::from_bytes("term-1", &[0xe2, 0x82]))
                    .await?;
                cx.update_v2(v2::TerminalOutputChunk::from_bytes(
                    "term-1",
                    &[0xac, b'\n', 0xff],
                ))
                .await?;
                let exit = v2::TerminalExitStatus::new().exit_code(0);
                cx.update_v2(v2::TerminalUpdate::new("term-1").exit_status(exit))
                    .await?;
            }
            _ => cx.message("?").await?,
        }
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

/// A client scripted over raw JSON lines, checking every message both ways against `spec`.
struct RawClient {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    spec: &'static Spec,
    /// The methods of our requests, by id, to check their answers.
    asked: HashMap<String, String>,
    /// The methods of the agent's requests, by id, to check our answers.
    theirs: HashMap<String, String>,
    next_id: u64,
}

impl RawClient {
    /// Serves `Both` on `sessions` and connects a raw client checked against `spec`.
    fn start(sessions: SessionStore<()>, spec: &'static Spec) -> Self {
        let (agent_io, client_io) = tokio::io::duplex(256 * 1024);
        let (reader, writer) = tokio::io::split(agent_io);
        let make = move |client| Both {
            client,
            sessions,
            tool_cancelled: Notify::new(),
        };
        let (_client, driver) = serve(make, reader, writer, AgentOptions::default());
        tokio::spawn(driver);
        let (reader, writer) = tokio::io::split(client_io);
        Self {
            lines: BufReader::new(reader).lines(),
            writer,
            spec,
            asked: HashMap::new(),
            theirs: HashMap::new(),
            next_id: 0,
        }
    }

    /// Writes one line as it is (malformed input on purpose).
    async fn send_raw(&mut self, line: &str) {
        let write = async {
            self.writer.write_all(line.as_bytes()).await?;
            self.writer.write_all(b"\n").await
        };
        timeout(DEADLINE, write)
            .await
            .expect("writing hung")
            .expect("the pipe is open");
    }

    /// Sends a message, checked against the schema first.
    async fn send(&mut self, message: Value) {
        let checked = match message
            .get("id")
            .and_then(|id| self.theirs.get(&id.to_string()))
        {
            Some(method) if message.get("method").is_none() => {
                self.spec.check_response(&message, method)
            }
            _ => self.spec.check_message(&message),
        };
        if let Err(error) = checked {
            panic!("the test client sent an invalid message: {error}\n{message}");
        }
        if let (Some(id), Some(method)) = (message.get("id"), message.get("method")) {
            let method = method.as_str().unwrap_or_default().to_owned();
            self.asked.insert(id.to_string(), method);
        }
        self.send_raw(&message.to_string()).await;
    }

    /// The next message of the agent, checked against the schema.
    async fn recv(&mut self) -> Value {
        let line = timeout(DEADLINE, self.lines.next_line())
            .await
            .expect("the agent said nothing in time")
            .expect("the pipe is readable")
            .expect("the agent closed the connection");
        let message: Value = serde_json::from_str(&line).expect("the agent writes JSON");
        let is_response = message.get("method").is_none();
        let checked = match message.get("id") {
            Some(id) if is_response => match self.asked.get(&id.to_string()) {
                Some(method) => self.spec.check_response(&message, method),
                None => self.spec.check_message(&message),
            },
            Some(id) => {
                let method = message["method"].as_str().unwrap_or_default().to_owned();
                self.theirs.insert(id.to_string(), method);
                self.spec.check_message(&message)
            }
            None => self.spec.check_message(&message),
        };
        if let Err(error) = checked {
            panic!("the agent sent an invalid message: {error}\n{message}");
        }
        message
    }

    /// Sends a request and returns its id.
    async fn ask(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a request and waits for its answer, which must be the next message.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.ask(method, params).await;
        let answer = self.recv().await;
        assert_eq!(
            answer["id"], id,
            "expected the answer to `{method}`, got {answer}"
        );
        answer
    }

    /// The session updates up to and including the next `idle` state (answering nothing).
    async fn until_idle(&mut self) -> Vec<Value> {
        let mut updates = Vec::new();
        loop {
            let message = self.recv().await;
            assert_eq!(message["method"], "session/update", "{message}");
            let update = message["params"]["update"].clone();
            let idle = update["sessionUpdate"] == "state_update" && update["state"] == "idle";
            updates.push(update);
            if idle {
                return updates;
            }
        }
    }

    /// `initialize` asking for v2, and `session/new`: the session's id.
    async fn open_v2(&mut self) -> String {
        let init = self
            .call(
                "initialize",
                json!({"protocolVersion": 2, "info": {"name": "raw", "version": "0.1.0"}, "capabilities": {}}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], 2, "{init}");
        let new = self
            .call("session/new", json!({"cwd": "/work", "mcpServers": []}))
            .await;
        let modes = &new["result"]["configOptions"][0];
        assert_eq!(
            modes["configId"], "mode",
            "the modes as a config option: {new}"
        );
        assert_eq!(modes["currentValue"], "ask", "{new}");
        new["result"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }

    /// Sends a prompt of `text`: the acknowledgement must come first; returns its message id.
    async fn prompt(&mut self, session: &str, text: &str) -> String {
        let ack = self
            .call(
                "session/prompt",
                json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
            )
            .await;
        ack["result"]["messageId"]
            .as_str()
            .unwrap_or_else(|| panic!("the acknowledgement carries a messageId: {ack}"))
            .to_owned()
    }
}

/// The kinds of `updates`, with the state for `state_update`s (`state_update:running`).
fn kinds(updates: &[Value]) -> Vec<String> {
    updates
        .iter()
        .map(|u| match u["sessionUpdate"].as_str() {
            Some("state_update") => format!("state_update:{}", u["state"].as_str().unwrap_or("?")),
            Some(kind) => kind.to_owned(),
            None => "?".to_owned(),
        })
        .collect()
}

/// The text of the agent message chunks of `updates`, by message id, in order.
fn texts(updates: &[Value]) -> Vec<(String, String)> {
    updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .map(|u| {
            (
                u["messageId"].as_str().unwrap_or_default().to_owned(),
                u["content"]["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_v2_client_gets_the_v2_prompt_lifecycle() {
    // The checks bite: a v1 chunk (no messageId) is not a v2 message.
    let v1_chunk = json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s",
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi"}}}});
    assert!(Spec::load_v2().check_message(&v1_chunk).is_err());

    let mut c = RawClient::start(SessionStore::new(), Spec::load_v2());
    let init = c
        .call(
            "initialize",
            json!({"protocolVersion": 5, "info": {"name": "raw", "version": "0.1.0"}}),
        )
        .await;
    // The highest version supported at or below the one asked for.
    assert_eq!(init["result"]["protocolVersion"], 2, "{init}");
    assert_eq!(init["result"]["info"]["name"], "both", "{init}");
    assert!(
        init["result"]["capabilities"]["session"].is_object(),
        "{init}"
    );
    let new = c
        .call("session/new", json!({"cwd": "/work", "mcpServers": []}))
        .await;
    let session = new["result"]["sessionId"]
        .as_str()
        .expect("a session id")
        .to_owned();

    let user_id = c.prompt(&session, "hello").await;
    let updates = c.until_idle().await;
    assert_eq!(
        kinds(&updates),
        [
            "user_message",
            "state_update:running",
            "agent_message_chunk",
            "agent_message_chunk",
            "plan_update",
            "tool_call_update",
            "tool_call_update",
            "tool_call_content_chunk",
            "tool_call_update",
            "plan_update",
            "agent_message_chunk",
            "state_update:idle",
        ],
        "{updates:#?}"
    );
    // The acknowledgement's id is the user message's.
    assert_eq!(updates[0]["messageId"], user_id.as_str());
    assert_eq!(updates[0]["content"][0]["text"], "hello");
    // Chunks in a row share a message; a tool call in between starts a new one.
    let said = texts(&updates);
    assert_eq!(said[0].0, said[1].0, "{said:?}");
    assert_ne!(said[1].0, said[2].0, "{said:?}");
    assert_ne!(said[0].0, user_id, "{said:?}");
    assert_eq!(
        said.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>(),
        ["Hi ", "there.", "Done."]
    );
    // Upserts by id: the first carries the whole call, the later ones what changed.
    let call_id = updates[5]["toolCallId"].clone();
    assert_eq!(updates[5]["title"], "Read notes.txt");
    assert_eq!(updates[5]["status"], "pending");
    assert!(updates[5..9].iter().all(|u| u["toolCallId"] == call_id));
    assert_eq!(updates[6]["status"], "in_progress");
    assert!(
        updates[6].get("title").is_none(),
        "unchanged fields are left out"
    );
    // The diff in v2's structured form, with a git patch, appended as a content chunk.
    let diff = &updates[7]["content"];
    assert_eq!(diff["type"], "diff", "{diff}");
    assert_eq!(diff["changes"][0]["operation"], "modify", "{diff}");
    assert_eq!(diff["changes"][0]["path"], "/work/notes.txt", "{diff}");
    let patch = diff["patch"]["text"].as_str().unwrap_or_default();
    assert!(patch.contains("-old\n+new\n"), "{patch}");
    assert_eq!(updates[8]["status"], "completed");
    assert_eq!(updates[4]["plan"]["type"], "items");
    assert_eq!(updates[9]["plan"]["entries"][0]["status"], "completed");
    assert_eq!(updates[11]["stopReason"], "end_turn");
}

#[tokio::test]
async fn a_permission_request_puts_the_turn_in_requires_action() {
    let mut c = RawClient::start(SessionStore::new(), Spec::load_v2());
    let session = c.open_v2().await;
    c.prompt(&session, "ask").await;
    let mut seen = Vec::new();
    let request = loop {
        let message = c.recv().await;
        if message["method"] == "session/request_permission" {
            break message;
        }
        seen.push(message["params"]["update"].clone());
    };
    assert_eq!(
        kinds(&seen),
        [
            "user_message",
            "state_update:running",
            "tool_call_update",
            "state_update:requires_action"
        ]
    );
    let params = &request["params"];
    assert_eq!(params["title"], "Edit notes.txt", "{request}");
    assert_eq!(params["subject"]["type"], "tool_call", "{request}");
    assert_eq!(
        params["subject"]["toolCall"]["toolCallId"],
        seen[2]["toolCallId"]
    );
    c.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}))
        .await;
    let rest = c.until_idle().await;
    assert_eq!(
        kinds(&rest),
        [
            "state_update:running",
            "agent_message_chunk",
            "state_update:idle"
        ]
    );
    assert_eq!(rest[1]["content"]["text"], "allowed");
    assert_eq!(rest[2]["stopReason"], "end_turn");
}

#[tokio::test]
async fn a_cancelled_turn_ends_idle_cancelled_after_its_updates() {
    let mut c = RawClient::start(SessionStore::new(), Spec::load_v2());
    let session = c.open_v2().await;
    c.prompt(&session, "wait").await;
    let mut updates = Vec::new();
    while updates.len() < 3 {
        updates.push(c.recv().await["params"]["update"].clone());
    }
    assert_eq!(
        kinds(&updates),
        [
            "user_message",
            "state_update:running",
            "agent_message_chunk"
        ]
    );
    // A prompt sent while the turn runs is held; the cancel cancels it too (the schema's
    // `CancelSessionNotification`: prompts not yet inserted), so it answers -32800 and never
    // runs, in whichever order with the turn's `idle`.
    let held = c
        .ask(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "other"}]}),
        )
        .await;
    c.send(json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}))
        .await;
    let mut rest = Vec::new();
    let mut refused = None;
    while refused.is_none() || rest.last().is_none_or(|u: &Value| u["state"] != "idle") {
        let message = c.recv().await;
        if message["id"] == held {
            refused = Some(message);
        } else {
            rest.push(message["params"]["update"].clone());
        }
    }
    assert_eq!(kinds(&rest), ["state_update:idle"], "{rest:#?}");
    assert_eq!(rest[0]["stopReason"], "cancelled");
    let refused = refused.unwrap_or_default();
    assert_eq!(refused["error"]["code"], -32800, "{refused}");
    // The next prompt runs as usual.
    c.prompt(&session, "other").await;
    let next = c.until_idle().await;
    assert_eq!(
        next.last().map(|u| u["stopReason"].clone()),
        Some(json!("end_turn"))
    );
}

#[tokio::test]
async fn a_v2_connection_refuses_null_ids_batches_and_v1_only_methods() {
    let mut c = RawClient::start(SessionStore::new(), Spec::load_v2());
    let session = c.open_v2().await;

    c.send_raw(r#"{"jsonrpc":"2.0","id":null,"method":"session/list","params":{}}"#)
        .await;
    let refused = c.recv().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");

    c.send_raw(r#"[{"jsonrpc":"2.0","id":40,"method":"session/list","params":{}}]"#)
        .await;
    let refused = c.recv().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");

    // v1 methods v2 does not have: not found, naming the version.
    c.send_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":41,"method":"session/set_mode","params":{{"sessionId":"{session}","modeId":"plan"}}}}"#
    ))
    .await;
    let refused = c.recv().await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("version 2"), "{refused}");

    // The client's file system and session modes are not offered on v2.
    c.prompt(&session, "fs").await;
    let updates = c.until_idle().await;
    let said = texts(&updates);
    assert!(
        said[0].1.starts_with("refused:") && said[0].1.contains("version 2"),
        "{said:?}"
    );

    // Modes are a config option of category `mode` on v2, switched through set_session_mode.
    let id = c
        .ask(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "mode", "type": "id", "value": "code"}),
        )
        .await;
    // The agent's set_session_mode ran (it says so, a background update while idle).
    let switched = c.recv().await;
    assert_eq!(
        switched["params"]["update"]["content"]["text"], "mode code",
        "{switched}"
    );
    let options = c.recv().await;
    assert_eq!(options["id"], id, "{options}");
    let said = options["result"]["configOptions"][0].clone();
    assert_eq!(said["category"], "mode", "{options}");
    assert_eq!(said["currentValue"], "code", "{options}");
    assert_eq!(
        said["options"][1]["description"], "Edits files",
        "{options}"
    );
    let refused = c
        .call(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "mode", "type": "id", "value": "fly"}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    c.prompt(&session, "mode").await;
    let updates = c.until_idle().await;
    assert_eq!(
        updates[2]["sessionUpdate"], "config_option_update",
        "{updates:#?}"
    );
    assert_eq!(
        updates[2]["configOptions"][0]["currentValue"], "ask",
        "{updates:#?}"
    );

    // No authMethods advertised: no auth/login.
    let refused = c.call("auth/login", json!({"methodId": "key"})).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");

    // The baseline: listing, closing.
    let list = c.call("session/list", json!({})).await;
    assert_eq!(
        list["result"]["sessions"][0]["sessionId"],
        session.as_str(),
        "{list}"
    );
    assert_eq!(list["result"]["sessions"][0]["cwd"], "/work", "{list}");
    let closed = c.call("session/close", json!({"sessionId": session})).await;
    assert!(closed.get("result").is_some(), "{closed}");
}

#[tokio::test]
async fn a_version_below_1_is_refused_with_the_schemas_error() {
    let mut c = RawClient::start(SessionStore::new(), Spec::load_v2());
    let refused = c
        .call(
            "initialize",
            json!({"protocolVersion": 0, "info": {"name": "raw", "version": "0.1.0"}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    assert_eq!(refused["error"]["data"]["requested"], 0, "{refused}");
    assert_eq!(
        refused["error"]["data"]["supported"],
        json!([1, 2]),
        "{refused}"
    );
    // Nothing was settled: a later initialize still negotiates.
    let init = c
        .call(
            "initialize",
            json!({"protocolVersion": 2, "info": {"name": "raw", "version": "0.1.0"}}),
        )
        .await;
    assert_eq!(init["result"]["protocolVersion"], 2, "{init}");
}

#[tokio::test]
async fn a_v1_client_of_the_same_agent_is_served_v1() {
    let mut c = RawClient::start(SessionStore::new(), Spec::load());
    let init = c.call("initialize", json!({"protocolVersion": 1})).await;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    assert!(init["result"]["agentCapabilities"].is_object(), "{init}");
    assert!(init["result"].get("info").is_none(), "{init}");
    let new = c
        .call("session/new", json!({"cwd": "/work", "mcpServers": []}))
        .await;
    let session = new["result"]["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let id = c
        .ask(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]}),
        )
        .await;
    let mut updates = Vec::new();
    let answer = loop {
        let message = c.recv().await;
        if message.get("method").is_none() {
            break message;
        }
        updates.push(message["params"]["update"].clone());
    };
    assert_eq!(answer["id"], id);
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    assert_eq!(
        kinds(&updates),
        [
            "agent_message_chunk",
            "agent_message_chunk",
            "plan",
            "tool_call",
            "tool_call_update",
            "tool_call_update",
            "tool_call_update",
            "plan",
            "agent_message_chunk",
        ]
    );
    assert!(
        updates[0].get("messageId").is_none(),
        "v1 is unchanged: {updates:#?}"
    );
    assert_eq!(updates[5]["content"][0]["oldText"], "old\n");

    // v2-only updates are refused on v1, naming the version.
    let id = c
        .ask(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "replace"}]}),
        )
        .await;
    let mut said = Vec::new();
    loop {
        let message = c.recv().await;
        if message["id"] == id {
            break;
        }
        said.push(message["params"]["update"]["content"]["text"].clone());
    }
    let refusal = said.last().and_then(Value::as_str).unwrap_or_default();
    assert!(
        refusal.starts_with("refused:") && refusal.contains("version 1"),
        "{said:?}"
    );
}

#[tokio::test]
async fn resume_replays_the_history_with_its_message_ids() {
    let sessions = SessionStore::new();
    let mut first = RawClient::start(sessions.clone(), Spec::load_v2());
    let session = first.open_v2().await;
    let user_id = first.prompt(&session, "hello").await;
    let live = first.until_idle().await;
    let live_said = texts(&live);

    let mut second = RawClient::start(sessions, Spec::load_v2());
    second
        .call(
            "initialize",
            json!({"protocolVersion": 2, "info": {"name": "raw", "version": "0.1.0"}}),
        )
        .await;

    // A cursor the agent does not know is refused, as the schema requires.
    let refused = second
        .call(
            "session/resume",
            json!({"sessionId": session, "cwd": "/work", "replayFrom": {"type": "_since", "at": 3}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    let id = second
        .ask(
            "session/resume",
            json!({"sessionId": session, "cwd": "/work", "replayFrom": {"type": "start"}}),
        )
        .await;
    let mut replayed = Vec::new();
    let answer = loop {
        let message = second.recv().await;
        if message.get("method").is_none() {
            break message;
        }
        replayed.push(message["params"]["update"].clone());
    };
    assert_eq!(answer["id"], id);
    assert!(answer.get("result").is_some(), "{answer}");
    let kinds = kinds(&replayed);
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("user_message_chunk"),
        "{kinds:?}"
    );
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("state_update:idle"),
        "{kinds:?}"
    );
    // The replay keeps the ids the live session gave.
    assert_eq!(replayed[0]["messageId"], user_id.as_str());
    assert_eq!(texts(&replayed), live_said);

    // Without replayFrom: the current state, and nothing replayed.
    let id = second
        .ask(
            "session/resume",
            json!({"sessionId": session, "cwd": "/work"}),
        )
        .await;
    let state = second.recv().await;
    assert_eq!(state["params"]["update"]["state"], "idle", "{state}");
    let answer = second.recv().await;
    assert_eq!(answer["id"], id, "{answer}");
}

#[tokio::test]
async fn v2_only_updates_replacement_display_terminals_and_tool_call_cancel() {
    let mut c = RawClient::start(SessionStore::new(), Spec::load_v2());
    let session = c.open_v2().await;

    // A whole-message upsert replaces the draft, under the id the agent chose.
    c.prompt(&session, "replace").await;
    let updates = c.until_idle().await;
    assert_eq!(updates[2]["messageId"], "m-draft", "{updates:#?}");
    assert_eq!(updates[3]["sessionUpdate"], "agent_message", "{updates:#?}");
    assert_eq!(updates[3]["messageId"], "m-draft");
    assert_eq!(updates[3]["content"][0]["text"], "final");
    assert_eq!(texts(&updates)[1].1, "replaced");

    // A display terminal: snapshot, chunks of raw bytes (each decoded on its own), exit.
    c.prompt(&session, "terminal").await;
    let updates = c.until_idle().await;
    assert_eq!(
        kinds(&updates)[2..7],
        [
            "terminal_update",
            "tool_call_update",
            "terminal_output_chunk",
            "terminal_output_chunk",
            "terminal_update"
        ]
    );
    let mut bytes = Vec::new();
    for chunk in &updates[4..6] {
        let chunk: v2::TerminalOutputChunk = acp_types::from_value(chunk.clone()).expect("a chunk");
        bytes.extend(chunk.bytes().expect("base64"));
    }
    assert_eq!(bytes, [0xe2, 0x82, 0xac, b'\n', 0xff]);
    assert_eq!(updates[6]["exitStatus"]["exitCode"], 0);

    // Notices are baseline in v2.
    c.prompt(&session, "notice").await;
    let updates = c.until_idle().await;
    assert_eq!(updates[2]["sessionUpdate"], "notice", "{updates:#?}");

    // tool_call/cancel: only for a tool call that advertises it, while it is not final.
    c.prompt(&session, "cancellable").await;
    let mut call = None;
    while call.is_none() {
        let update = c.recv().await["params"]["update"].clone();
        if update["sessionUpdate"] == "tool_call_update" && update.get("capabilities").is_some() {
            call = Some(update["toolCallId"].clone());
        }
    }
    let call = call.unwrap_or_default();
    let unknown = c
        .call(
            "tool_call/cancel",
            json!({"sessionId": session, "toolCallId": "nope"}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let accepted = c
        .call(
            "tool_call/cancel",
            json!({"sessionId": session, "toolCallId": call}),
        )
        .await;
    assert!(accepted.get("result").is_some(), "{accepted}");
    let rest = c.until_idle().await;
    assert_eq!(rest[0]["status"], "cancelled", "{rest:#?}");
    let again = c
        .call(
            "tool_call/cancel",
            json!({"sessionId": session, "toolCallId": call}),
        )
        .await;
    assert_eq!(again["error"]["code"], -32602, "a final tool call: {again}");
}

/// v2 asks a client to make or resume a session before working in it: the session methods of
/// a connection refuse a session it did not open (or closed) with `-32002` before the agent
/// runs anything, a prompt included (it is never acknowledged), even when the agent's store
/// knows the session.
#[tokio::test]
async fn a_session_not_open_on_the_connection_is_not_found() {
    let sessions = SessionStore::new();
    let mut owner = RawClient::start(sessions.clone(), Spec::load_v2());
    let session = owner.open_v2().await;
    let mut other = RawClient::start(sessions, Spec::load_v2());
    let init = other
        .call(
            "initialize",
            json!({"protocolVersion": 2, "info": {"name": "other", "version": "0.1.0"}, "capabilities": {}}),
        )
        .await;
    assert_eq!(init["result"]["protocolVersion"], 2, "{init}");
    let prompt = json!({"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]});
    for (method, params) in [
        ("session/prompt", prompt.clone()),
        ("session/close", json!({"sessionId": session})),
        (
            "session/set_config_option",
            json!({"sessionId": session, "configId": "mode", "type": "id", "value": "ask"}),
        ),
    ] {
        let refused = other.call(method, params).await;
        assert_eq!(refused["error"]["code"], -32002, "{method}: {refused}");
    }

    // The owner's session works; closed, it is not open any more.
    owner.prompt(&session, "hi").await;
    owner.until_idle().await;
    let closed = owner
        .call("session/close", json!({"sessionId": session}))
        .await;
    assert!(closed.get("result").is_some(), "{closed}");
    let refused = owner.call("session/prompt", prompt).await;
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
}
