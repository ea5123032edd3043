//! Peers of both eras of protocol v1 against our agent and our client: the August 2026 schema
//! (v1 1.21, 170 definitions) and the November 2026 one (178 definitions, the schemas of the
//! official TypeScript SDK 2.4.0). Both are version 1, so an August peer and a November peer
//! must both work with us.
//!
//! Each peer is scripted by the test ([`RawPeer`]) and sends recorded message sequences, each
//! labelled with the era whose schema it follows. Every message is validated against the
//! November schema (the only one the tests read): v1 stayed compatible, so an August message is
//! a valid November message. Where November is stricter than August (the list and map fields
//! annotated `x-deserialize-default-on-null`, which August read with "default on error" and
//! "skip invalid items"), the input is deliberately outside the schema
//! ([`RawPeer::send_unchecked`]) and the tests show what we do with it: `null` takes the
//! default, a wrong type is refused with a clear error, as the November schema says.
//!
//! Asserted each time: every request gets exactly one answer, and what we send to an August
//! peer holds nothing it did not advertise (no `notice` or compaction update without the
//! client capabilities).

use crate::common::checker;

use acp_client::{AgentHandle, ClientOptions};
use acp_e2e::{AgentConfig, PIPE_BYTES, PermissionPolicy, RawPeer, ScriptedAgent, TestClient};
use acp_types::*;
use serde_json::{Value, json};

/// The `sessionUpdate` kinds of the August schema: all an August client knows.
const AUGUST_UPDATE_KINDS: [&str; 11] = [
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
];

/// The kinds November added to stable v1; each needs a client capability, except none.
const NOVEMBER_UPDATE_KINDS: [&str; 3] =
    ["notice", "compaction_update", "compaction_summary_chunk"];

/// JSON-RPC "Invalid params".
const INVALID_PARAMS: i64 = -32602;

// --- Our agent ---

/// Our agent (the scripted agent, advertising everything including MCP servers over HTTP),
/// with the test as its client.
fn our_agent() -> RawPeer {
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let (read, write) = tokio::io::split(ours);
    let (_client, driver) = acp_agent::serve(
        |client| {
            let mut config = AgentConfig::full();
            config.capabilities.mcp_capabilities =
                Some(McpCapabilities::new().http(true).sse(true));
            ScriptedAgent::new(client, config)
        },
        read,
        write,
        acp_agent::AgentOptions::default(),
    );
    tokio::spawn(driver);
    RawPeer::new(theirs, checker())
}

/// What a client peer saw of one request's exchange.
#[derive(Debug, Default)]
struct Exchange {
    /// The `session/update` notifications before the answer, in order.
    updates: Vec<Value>,
    /// The methods of the requests the agent sent meanwhile (each answered by the peer).
    asked: Vec<String>,
}

/// Sends a client request and plays the client until its answer, answering the agent's
/// requests as an editor of either era would; returns the answer (result or error) and the
/// exchange.
async fn call(raw: &mut RawPeer, id: u64, method: &str, params: Value) -> (Value, Exchange) {
    raw.request(id, method, params).await;
    let mut exchange = Exchange::default();
    loop {
        let message = raw.recv().await;
        if message.get("method").is_none() {
            assert_eq!(
                message["id"],
                json!(id),
                "an answer to a request never sent: {message}"
            );
            return (message, exchange);
        }
        let asked = message["method"].as_str().unwrap_or_default().to_owned();
        match asked.as_str() {
            "session/update" => exchange.updates.push(message["params"]["update"].clone()),
            "session/request_permission" => {
                let option = message["params"]["options"][0]["optionId"].clone();
                raw.respond(
                    &message["id"],
                    json!({"outcome": {"outcome": "selected", "optionId": option}}),
                )
                .await;
            }
            "fs/read_text_file" => {
                raw.respond(&message["id"], json!({"content": "one\ntwo\n"}))
                    .await;
            }
            "fs/write_text_file" => raw.respond(&message["id"], json!({})).await,
            other => panic!("our agent sent `{other}`, which this client never advertised"),
        }
        if message.get("id").is_some() {
            exchange.asked.push(asked);
        }
    }
}

/// `initialize` and `session/new` with these params, both answered with a result; returns the
/// new session's id.
async fn open(raw: &mut RawPeer, initialize: Value, new_session: Value) -> Value {
    let (answer, _) = call(raw, 0, "initialize", initialize).await;
    assert_eq!(result(&answer)["protocolVersion"], 1, "{answer}");
    let (answer, _) = call(raw, 1, "session/new", new_session).await;
    result(&answer)["sessionId"].clone()
}

/// The result of an answer, failing on an error.
#[track_caller]
fn result(answer: &Value) -> &Value {
    answer
        .get("result")
        .unwrap_or_else(|| panic!("expected a result, got {answer}"))
}

/// The error code of an answer, failing on a result.
#[track_caller]
fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error, got {answer}"))
}

/// The kinds of a list of updates.
fn kinds(updates: &[Value]) -> Vec<&str> {
    updates
        .iter()
        .map(|u| u["sessionUpdate"].as_str().unwrap_or_default())
        .collect()
}

/// Closes the client's side and checks that no further message comes: no request was answered
/// twice, nothing was left over.
async fn no_more(mut raw: RawPeer) {
    raw.request(999, "session/list", json!({})).await;
    let last = raw.recv().await;
    assert_eq!(last["id"], 999, "a message after every answer: {last}");
    raw.close().await;
}

/// An August-era client (recorded from the August schema: no `session` client capabilities,
/// MCP servers over stdio with `args` and `env`, the fs and terminal capabilities) talks to our
/// agent: everything answered, and no update of a kind August does not know.
#[tokio::test(flavor = "current_thread")]
async fn an_august_client_gets_only_what_august_knows_from_our_agent() {
    let mut raw = our_agent();
    // August 2026 (v1 1.21): initialize, then session/new with an MCP server over stdio.
    let session = open(
        &mut raw,
        json!({
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false},
            "clientInfo": {"name": "august-editor", "version": "1.21.0"},
        }),
        json!({
            "cwd": "/work",
            "mcpServers": [{"name": "files", "command": "/usr/bin/mcp-files", "args": ["--root", "/work"], "env": [{"name": "LOG", "value": "1"}]}],
        }),
    )
    .await;
    // August 2026: prompts that make the agent stream every kind of update it has, and use
    // the client's files and permission.
    let mut updates = Vec::new();
    let mut asked = Vec::new();
    for (id, text) in [
        (2, acp_e2e::script::STREAM_ALL_UPDATES.to_owned()),
        (
            3,
            format!(
                "{} /work/a.txt /work/b.txt",
                acp_e2e::script::READ_WRITE_FILE
            ),
        ),
        (4, acp_e2e::script::ASK_PERMISSION.to_owned()),
    ] {
        let (answer, exchange) = call(
            &mut raw,
            id,
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
        )
        .await;
        assert_eq!(
            result(&answer)["stopReason"],
            "end_turn",
            "{text}: {answer}"
        );
        updates.extend(exchange.updates);
        asked.extend(exchange.asked);
    }
    assert_eq!(
        asked,
        [
            "fs/read_text_file",
            "fs/read_text_file",
            "fs/write_text_file",
            "session/request_permission"
        ]
    );
    let seen = kinds(&updates);
    for kind in &seen {
        assert!(
            AUGUST_UPDATE_KINDS.contains(kind),
            "an August client got a `{kind}` update, which it never advertised"
        );
    }
    assert!(seen.len() >= AUGUST_UPDATE_KINDS.len(), "{seen:?}");
    // A tool call's `name` (stable in November) is an optional string: an August client, whose
    // ToolCall has no `name` but allows other properties, ignores it.
    for update in &updates {
        if let Some(name) = update.get("name") {
            assert!(name.as_str().is_some_and(|n| !n.is_empty()), "{update}");
        }
    }
    no_more(raw).await;
}

/// A November-era client (recorded from the November schema: `session.compaction` and
/// `session.notices` advertised) talks to our agent: everything answered, every update of a
/// kind the November schema has.
#[tokio::test(flavor = "current_thread")]
async fn a_november_client_advertising_the_new_capabilities_is_served() {
    let mut raw = our_agent();
    // November 2026: initialize with the newly stable client capabilities, then session/new
    // with MCP servers over stdio and HTTP.
    let session = open(
        &mut raw,
        json!({
            "protocolVersion": 1,
            "clientCapabilities": {
                "fs": {"readTextFile": true, "writeTextFile": true},
                "terminal": false,
                "session": {"compaction": {}, "notices": {}},
            },
            "clientInfo": {"name": "november-editor", "version": "2.4.0"},
        }),
        json!({
            "cwd": "/work",
            "mcpServers": [
                {"name": "files", "command": "/usr/bin/mcp-files", "args": [], "env": []},
                {"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp", "headers": []},
            ],
        }),
    )
    .await;
    let (answer, exchange) = call(
        &mut raw,
        2,
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": acp_e2e::script::STREAM_ALL_UPDATES}]}),
    )
    .await;
    assert_eq!(result(&answer)["stopReason"], "end_turn");
    for kind in kinds(&exchange.updates) {
        assert!(
            AUGUST_UPDATE_KINDS.contains(&kind) || NOVEMBER_UPDATE_KINDS.contains(&kind),
            "`{kind}` is no stable v1 update kind"
        );
    }
    // November 2026: session/close and session/list, each answered once.
    let (answer, _) = call(&mut raw, 3, "session/close", json!({"sessionId": session})).await;
    result(&answer);
    no_more(raw).await;
}

/// The fields November reads with `x-deserialize-default-on-null` where August read them with
/// "default on error" (and "skip invalid items" for lists), in the requests our agent serves:
/// `null` is the default; a wrong type or an invalid item, which August turned into the
/// default, is refused with "Invalid params" naming the field, and the agent serves on.
#[tokio::test(flavor = "current_thread")]
async fn null_lists_are_defaults_and_wrong_ones_are_refused_by_our_agent() {
    let mut raw = our_agent();
    let existing = open(
        &mut raw,
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
        json!({"cwd": "/work", "mcpServers": []}),
    )
    .await;

    let stdio = |args: Value, env: Value| json!({"name": "s", "command": "/bin/s", "args": args, "env": env});
    let http = |headers: Value| json!({"type": "http", "name": "h", "url": "http://127.0.0.1:9/mcp", "headers": headers});
    let sse = |headers: Value| json!({"type": "sse", "name": "e", "url": "http://127.0.0.1:9/sse", "headers": headers});
    // (what is sent in place of a valid value, the field it is in, taken as the default?)
    let cases: Vec<(Value, &str, bool)> = vec![
        (json!({"mcpServers": null}), "mcpServers", true),
        (
            json!({"mcpServers": [], "additionalDirectories": null}),
            "additionalDirectories",
            true,
        ),
        (
            json!({"mcpServers": [stdio(Value::Null, Value::Null)]}),
            "args",
            true,
        ),
        (json!({"mcpServers": [http(Value::Null)]}), "headers", true),
        (json!({"mcpServers": [sse(Value::Null)]}), "headers", true),
        (json!({"mcpServers": "none"}), "mcpServers", false),
        (json!({"mcpServers": [42]}), "mcpServers", false),
        (
            json!({"mcpServers": [], "additionalDirectories": "/tmp"}),
            "additionalDirectories",
            false,
        ),
        (
            json!({"mcpServers": [], "additionalDirectories": ["/tmp", 7]}),
            "additionalDirectories",
            false,
        ),
        (
            json!({"mcpServers": [stdio(json!("--flag"), json!([]))]}),
            "args",
            false,
        ),
        (
            json!({"mcpServers": [stdio(json!([]), json!({"LOG": "1"}))]}),
            "env",
            false,
        ),
        (
            json!({"mcpServers": [http(json!({"X": "1"}))]}),
            "headers",
            false,
        ),
    ];
    let mut id = 10;
    for method in ["session/new", "session/load", "session/resume"] {
        for (fields, field, tolerated) in &cases {
            let mut params = json!({"cwd": "/work"});
            if method != "session/new" {
                params["sessionId"] = existing.clone();
            }
            params
                .as_object_mut()
                .unwrap()
                .extend(fields.as_object().unwrap().clone());
            id += 1;
            // Deliberately outside the November schema: these lists are not nullable there.
            raw.send_unchecked(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            )
            .await;
            let answer = loop {
                let message = raw.recv().await;
                if message.get("method").is_none() {
                    break message;
                }
                // session/load replays the history: updates only.
                assert_eq!(message["method"], "session/update", "{message}");
            };
            assert_eq!(answer["id"], id, "{answer}");
            if *tolerated {
                assert!(
                    answer.get("result").is_some(),
                    "{method} {fields}: {answer}"
                );
            } else {
                assert_eq!(
                    error_code(&answer),
                    INVALID_PARAMS,
                    "{method} {fields}: {answer}"
                );
                let text = answer["error"].to_string();
                assert!(
                    text.contains(field),
                    "{method} {fields}: the error does not name `{field}`: {text}"
                );
            }
        }
    }
    no_more(raw).await;
}

/// An agent built on acp-agent whose every turn tries the newly stable updates through the
/// library's helpers (a compaction with its summary, a notice), reports a tool call with a
/// `name`, then says in a message chunk what the library let through.
struct NoticingAgent;

#[async_trait::async_trait]
impl acp_agent::Agent for NoticingAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::LATEST))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new("era-1"))
    }

    async fn prompt(
        &self,
        _: PromptRequest,
        cx: acp_agent::PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let outcome = |sent: Result<(), acp_agent::Error>| match sent {
            Ok(()) => "sent".to_owned(),
            Err(acp_agent::Error::CapabilityNotAdvertised { capability, .. }) => {
                format!("refused ({capability})")
            }
            Err(e) => format!("failed: {e}"),
        };
        let compaction = async {
            cx.compaction_update(CompactionUpdate::new("k1", CompactionStatus::InProgress))
                .await?;
            cx.compaction_summary_chunk("k1", "The user asked twice.")
                .await?;
            cx.compaction_update(CompactionUpdate::new("k1", CompactionStatus::Completed))
                .await
        }
        .await;
        let notice = cx.notice(NoticeSeverity::Warning, "Disk almost full").await;
        let call = cx
            .new_tool_call("Read a.txt", ToolKind::Read)
            .name("read_file");
        let started = cx.start_tool_call(call).await.map(drop);
        let report = format!(
            "compaction: {}; notice: {}; tool call: {}",
            outcome(compaction),
            outcome(notice),
            outcome(started)
        );
        cx.message(report)
            .await
            .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

/// The same agent code facing a client of each era: to the August-era client (neither
/// `session.compaction` nor `session.notices`) the library sends no compaction and no notice,
/// and says so to the agent; the November-era client advertising both gets them all. Both get
/// the tool call's `name` (an August client ignores the unknown property).
#[tokio::test(flavor = "current_thread")]
async fn our_agent_sends_compaction_and_notices_only_to_clients_that_advertised_them() {
    for (era, session_capabilities) in [
        ("August", None),
        ("November", Some(json!({"compaction": {}, "notices": {}}))),
    ] {
        let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
        let (read, write) = tokio::io::split(ours);
        let (_client, driver) = acp_agent::serve(
            |_| NoticingAgent,
            read,
            write,
            acp_agent::AgentOptions::default(),
        );
        tokio::spawn(driver);
        let mut raw = RawPeer::new(theirs, checker());
        let mut capabilities = json!({"fs": {"readTextFile": false, "writeTextFile": false}});
        if let Some(session) = session_capabilities.clone() {
            capabilities["session"] = session;
        }
        let session = open(
            &mut raw,
            json!({"protocolVersion": 1, "clientCapabilities": capabilities}),
            json!({"cwd": "/work", "mcpServers": []}),
        )
        .await;
        let (answer, exchange) = call(
            &mut raw,
            2,
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
        assert_eq!(result(&answer)["stopReason"], "end_turn", "{era}: {answer}");
        let report = exchange
            .updates
            .last()
            .and_then(|u| u["content"]["text"].as_str())
            .unwrap_or_else(|| panic!("{era}: no report: {:?}", exchange.updates))
            .to_owned();
        let calls: Vec<&Value> = exchange
            .updates
            .iter()
            .filter(|u| u["sessionUpdate"] == "tool_call")
            .collect();
        assert_eq!(calls.len(), 1, "{era}");
        assert_eq!(calls[0]["name"], "read_file", "{era}");
        if session_capabilities.is_none() {
            assert_eq!(
                kinds(&exchange.updates),
                ["tool_call", "agent_message_chunk"],
                "{era}: {report}"
            );
            assert_eq!(
                report,
                "compaction: refused (session.compaction); notice: refused (session.notices); \
                 tool call: sent"
            );
        } else {
            assert_eq!(
                kinds(&exchange.updates),
                [
                    "compaction_update",
                    "compaction_summary_chunk",
                    "compaction_update",
                    "notice",
                    "tool_call",
                    "agent_message_chunk"
                ],
                "{era}: {report}"
            );
            assert_eq!(report, "compaction: sent; notice: sent; tool call: sent");
        }
        raw.close().await;
    }
}

// --- Our client ---

/// Our client (acp-client serving the test editor), with the test as its agent.
struct OurClient {
    agent: AgentHandle,
    editor: TestClient,
    raw: RawPeer,
}

fn our_client() -> OurClient {
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let (read, write) = tokio::io::split(ours);
    let (editor, _events) = TestClient::new(PermissionPolicy::Allow);
    let served = editor.clone();
    let (agent, driver) =
        acp_client::connect(move |_| served, read, write, ClientOptions::default());
    tokio::spawn(driver);
    OurClient {
        agent,
        editor,
        raw: RawPeer::new(theirs, checker()),
    }
}

impl OurClient {
    /// Our `initialize` with `capabilities`, answered with `answer` (the agent's era speaks;
    /// not checked against the schema unless `checked`); returns the call's outcome and the
    /// params our client sent.
    async fn initialize(
        &mut self,
        capabilities: ClientCapabilities,
        answer: Value,
        checked: bool,
    ) -> (Result<InitializeResponse, acp_client::Error>, Value) {
        let agent = self.agent.clone();
        let call = tokio::spawn(async move {
            agent
                .initialize(
                    InitializeRequest::new(ProtocolVersion::LATEST)
                        .client_capabilities(capabilities),
                )
                .await
        });
        let (id, sent) = self.raw.expect_request("initialize").await;
        assert_eq!(sent["protocolVersion"], 1, "{sent}");
        let message = json!({"jsonrpc": "2.0", "id": id, "result": answer});
        if checked {
            self.raw.send(message).await;
        } else {
            self.raw.send_unchecked(message).await;
        }
        let response = acp_e2e::within("initialize", call)
            .await
            .expect("the call ran");
        (response, sent)
    }

    /// `session/new` answered with `session_id`.
    async fn new_session(&mut self, session_id: &str) -> SessionId {
        let agent = self.agent.clone();
        let call = tokio::spawn(async move {
            agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new()))
                .await
        });
        let (id, _) = self.raw.expect_request("session/new").await;
        self.raw
            .respond(&id, json!({"sessionId": session_id}))
            .await;
        acp_e2e::within("session/new", call)
            .await
            .expect("the call ran")
            .expect("created")
            .session_id
    }

    /// A prompt turn in which the agent streams `updates` before ending the turn: once our
    /// `prompt` returns, the editor has handled every one of them (a response is delivered
    /// after the notifications that arrived before it).
    async fn turn(&mut self, session: &SessionId, updates: &[Value]) {
        let agent = self.agent.clone();
        let request = PromptRequest::new(session.clone(), vec!["go".into()]);
        let call = tokio::spawn(async move { agent.prompt(request).await });
        let (id, _) = self.raw.expect_request("session/prompt").await;
        for update in updates {
            self.raw
                .notify(
                    "session/update",
                    json!({"sessionId": session, "update": update}),
                )
                .await;
        }
        self.raw
            .respond(&id, json!({"stopReason": "end_turn"}))
            .await;
        let done = acp_e2e::within("session/prompt", call)
            .await
            .expect("the call ran")
            .expect("the turn ended");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
    }

    /// Sends an agent request and returns our client's answer to it.
    async fn ask(&mut self, id: u64, method: &str, params: Value, checked: bool) -> Value {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if checked {
            self.raw.send(message).await;
        } else {
            self.raw.send_unchecked(message).await;
        }
        let answer = self.raw.recv().await;
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }
}

/// An August-era agent's answer to `initialize`: the August capabilities, an agent auth
/// method (recorded from the August schema).
fn august_initialize_result() -> Value {
    json!({
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": false,
            "promptCapabilities": {"image": false, "audio": false, "embeddedContext": true},
            "mcpCapabilities": {"http": false, "sse": false},
        },
        "authMethods": [{"id": "login", "name": "Log in"}],
        "agentInfo": {"name": "august-agent", "version": "1.21.0"},
    })
}

/// Our client with an August-era agent: the August messages are understood and answered,
/// and what our client sends stays within what the agent advertised (no session/close, list
/// or resume it never offered).
#[tokio::test(flavor = "current_thread")]
async fn our_client_and_an_august_agent() {
    let mut t = our_client();
    let (response, sent) = t
        .initialize(common_capabilities(), august_initialize_result(), true)
        .await;
    response.expect("initialized");
    // Our client adds no capability the editor did not give (none of the November ones).
    assert!(
        sent["clientCapabilities"].get("session").is_none(),
        "{sent}"
    );
    let session = t.new_session("aug-1").await;
    t.editor.put_file("/work/a.txt", "one\ntwo\nthree\n");
    // August 2026: a turn with updates of August kinds, then the agent's requests.
    let august_updates = [
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Reading."}}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read a.txt", "kind": "read", "status": "pending"}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}),
        json!({"sessionUpdate": "plan", "entries": [{"content": "Read", "priority": "high", "status": "completed"}]}),
    ];
    t.turn(&session, &august_updates).await;
    let read = t
        .ask(
            1,
            "fs/read_text_file",
            json!({"sessionId": "aug-1", "path": "/work/a.txt", "line": 2, "limit": 1}),
            true,
        )
        .await;
    assert_eq!(result(&read)["content"], "two\n");
    let permission = t
        .ask(
            2,
            "session/request_permission",
            json!({
                "sessionId": "aug-1",
                "toolCall": {"toolCallId": "c1", "title": "Edit a.txt"},
                "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}],
            }),
            true,
        )
        .await;
    assert_eq!(result(&permission)["outcome"]["optionId"], "yes");
    let terminal = t
        .ask(
            3,
            "terminal/create",
            json!({"sessionId": "aug-1", "command": "echo", "args": ["hi"], "env": [], "cwd": "/work", "outputByteLimit": 1024}),
            true,
        )
        .await;
    assert!(result(&terminal)["terminalId"].is_string());
    // The four updates reached the editor whole.
    let got: Vec<Value> = t
        .editor
        .updates_of(&session)
        .iter()
        .map(|u| serde_json::to_value(u).expect("an update serializes"))
        .collect();
    assert_eq!(got, august_updates);
    // The agent offered no session/close, list or resume: our client refuses them itself.
    for refused in [
        t.agent
            .close_session(CloseSessionRequest::new(session.clone()))
            .await
            .err(),
        t.agent
            .list_sessions(ListSessionsRequest::new())
            .await
            .err(),
    ] {
        let error = refused.expect("refused without the agent's capability");
        assert!(error.remote().is_none(), "sent to the agent: {error:?}");
    }
    // Nothing else went on the wire: the next message is our next request.
    let agent = t.agent.clone();
    let cancel = tokio::spawn(async move { agent.cancel(CancelNotification::new("aug-1")).await });
    let next = t.raw.recv().await;
    assert_eq!(next["method"], "session/cancel", "{next}");
    cancel.await.unwrap().expect("sent");
    t.raw.close().await;
}

/// A November-era agent (recorded from the November schema) streams the newly stable updates
/// to our client, which advertised them: tool calls with a `name`, a compaction with its
/// summary, a notice. The editor gets each one, in order and whole (written back, it is the
/// message the agent sent), and our `initialize` carried the capabilities.
#[tokio::test(flavor = "current_thread")]
async fn our_client_and_a_november_agent() {
    let mut t = our_client();
    // The November client capabilities, as JSON: what the editor advertises is what goes out.
    let capabilities: ClientCapabilities = serde_json::from_value(json!({
        "fs": {"readTextFile": true, "writeTextFile": true},
        "terminal": true,
        "session": {"compaction": {}, "notices": {}},
    }))
    .expect("November client capabilities");
    // November 2026: the answer of an agent on the new schema.
    let answer = json!({
        "protocolVersion": 1,
        "agentCapabilities": {"loadSession": true, "sessionCapabilities": {"close": {}}},
        "agentInfo": {"name": "november-agent", "version": "2.4.0"},
    });
    let (response, sent) = t.initialize(capabilities, answer, true).await;
    response.expect("initialized");
    assert_eq!(
        sent["clientCapabilities"]["session"],
        json!({"compaction": {}, "notices": {}}),
        "{sent}"
    );
    let session = t.new_session("nov-1").await;
    // November 2026: the newly stable session updates.
    let updates = [
        json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "name": "read_file", "title": "Read a.txt", "kind": "read", "status": "in_progress"}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "name": "read_file", "status": "completed"}),
        json!({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "in_progress"}),
        json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "k1", "content": {"type": "text", "text": "Read a.txt."}}),
        json!({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "completed"}),
        json!({"sessionUpdate": "notice", "severity": "warning", "title": "Disk almost full", "description": "2% left"}),
    ];
    t.turn(&session, &updates).await;
    // A tool call's `name` in a permission request too.
    let permission = t
        .ask(
            1,
            "session/request_permission",
            json!({
                "sessionId": "nov-1",
                "toolCall": {"toolCallId": "c2", "name": "write_file", "title": "Write a.txt"},
                "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}],
            }),
            true,
        )
        .await;
    assert_eq!(result(&permission)["outcome"]["optionId"], "yes");
    let got: Vec<Value> = t
        .editor
        .updates_of(&session)
        .iter()
        .map(|u| serde_json::to_value(u).expect("an update serializes"))
        .collect();
    assert_eq!(got, updates);
    t.raw.close().await;
}

/// The capabilities our editor advertises in these tests: files and terminals.
fn common_capabilities() -> ClientCapabilities {
    ClientCapabilities::new()
        .fs(FileSystemCapabilities::new()
            .read_text_file(true)
            .write_text_file(true))
        .terminal(true)
}

/// The fields of the agent's requests (and of its `initialize` answer) that November reads
/// with `x-deserialize-default-on-null` or no longer defaults on error: our client takes
/// `null` as the default and refuses a wrong type with "Invalid params", where August took the
/// default; the connection goes on.
#[tokio::test(flavor = "current_thread")]
async fn null_lists_are_defaults_and_wrong_types_are_refused_by_our_client() {
    let mut t = our_client();
    // November 2026: a terminal auth method with null `args` and `env` (the defaults).
    let mut answer = august_initialize_result();
    answer["authMethods"] = json!([{"type": "terminal", "id": "tui", "name": "Log in in a terminal", "args": null, "env": null}]);
    // Deliberately outside the November schema: these lists are not nullable there.
    let (response, _) = t.initialize(common_capabilities(), answer, false).await;
    let init = response.expect("null args and env are the defaults");
    assert_eq!(init.auth_methods.map(|m| m.len()), Some(1));
    t.new_session("nov-1").await;
    t.editor.put_file("/work/a.txt", "x\n");

    let terminal = |extra: Value| {
        let mut params = json!({"sessionId": "nov-1", "command": "echo"});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        params
    };
    let tolerated = [
        terminal(json!({"args": null})),
        terminal(json!({"env": null})),
    ];
    let mut id = 0;
    for params in tolerated {
        id += 1;
        // Deliberately outside the November schema: these lists are not nullable there.
        let answer = t.ask(id, "terminal/create", params.clone(), false).await;
        assert!(
            result(&answer)["terminalId"].is_string(),
            "{params}: {answer}"
        );
    }
    let refused = [
        ("terminal/create", terminal(json!({"args": "hi"})), "args"),
        (
            "terminal/create",
            terminal(json!({"args": ["hi", 1]})),
            "args",
        ),
        (
            "terminal/create",
            terminal(json!({"env": {"LOG": "1"}})),
            "env",
        ),
        ("terminal/create", terminal(json!({"cwd": 5})), "cwd"),
        (
            "terminal/create",
            terminal(json!({"outputByteLimit": "big"})),
            "outputByteLimit",
        ),
        (
            "fs/read_text_file",
            json!({"sessionId": "nov-1", "path": "/work/a.txt", "line": "two"}),
            "line",
        ),
        (
            "fs/read_text_file",
            json!({"sessionId": "nov-1", "path": "/work/a.txt", "limit": -1}),
            "limit",
        ),
    ];
    for (method, params, field) in refused {
        id += 1;
        let answer = t.ask(id, method, params.clone(), false).await;
        assert_eq!(error_code(&answer), INVALID_PARAMS, "{params}: {answer}");
        let text = answer["error"].to_string();
        assert!(
            text.contains(field),
            "{params}: the error does not name `{field}`: {text}"
        );
    }
    // The connection goes on: a valid request is served.
    let read = t
        .ask(
            id + 1,
            "fs/read_text_file",
            json!({"sessionId": "nov-1", "path": "/work/a.txt"}),
            true,
        )
        .await;
    assert_eq!(result(&read)["content"], "x\n");
    t.raw.close().await;
}

/// A terminal auth method whose `args` is not a list, in the agent's `initialize` answer:
/// August took the default for `args` and kept the method; November refuses the wrong type,
/// so the method is invalid, and the answer's `authMethods` (which skips invalid items) drops
/// it. Our client keeps the valid methods beside it and offers no method the agent did not
/// describe correctly.
#[tokio::test(flavor = "current_thread")]
async fn a_terminal_auth_method_with_wrong_args_is_dropped_not_defaulted() {
    let mut t = our_client();
    let mut answer = august_initialize_result();
    answer["authMethods"] = json!([
        {"type": "terminal", "id": "tui", "name": "Log in", "args": "--login"},
        {"id": "login", "name": "Log in here"},
    ]);
    // Deliberately outside the November schema: `args` is a list there.
    let (response, _) = t.initialize(common_capabilities(), answer, false).await;
    let init = response.expect("an invalid auth method is skipped, not fatal");
    let methods = serde_json::to_value(init.auth_methods).expect("serializes");
    assert_eq!(methods, json!([{"id": "login", "name": "Log in here"}]));
}
