//! What each side lets through from its peer, on the raw wire: only the methods it advertised,
//! only for sessions it has; and the answers foreign peers give that must be accepted (a
//! `null` result where the result type has no required field).

use crate::common;

use acp_agent::AgentOptions;
use acp_client::{AgentHandle, ClientOptions};
use acp_e2e::{
    AgentConfig, PIPE_BYTES, PermissionPolicy, RawPeer, ScriptedAgent, TestClient, within,
};
use acp_types::*;
use common::checker;
use serde_json::{Value, json};

/// An editor built on acp-client (the [`TestClient`]) facing a raw agent written by the test.
struct RawAgent {
    agent: AgentHandle,
    editor: TestClient,
    raw: RawPeer,
}

fn raw_agent(options: ClientOptions) -> RawAgent {
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let (read, write) = tokio::io::split(ours);
    let (editor, _events) = TestClient::new(PermissionPolicy::Allow);
    let served = editor.clone();
    let (agent, driver) = acp_client::connect(move |_| served, read, write, options);
    tokio::spawn(driver);
    RawAgent {
        agent,
        editor,
        raw: RawPeer::new(theirs, checker()),
    }
}

/// What the raw agent advertises: session loading and closing.
fn agent_capabilities() -> Value {
    json!({"loadSession": true, "sessionCapabilities": {"close": {}}})
}

impl RawAgent {
    /// `initialize` with `capabilities`, answered by the raw agent.
    async fn initialize(&mut self, capabilities: ClientCapabilities) {
        let agent = self.agent.clone();
        let call = tokio::spawn(async move {
            agent
                .initialize(
                    InitializeRequest::new(ProtocolVersion::LATEST)
                        .client_capabilities(capabilities),
                )
                .await
        });
        let (id, _) = self.raw.expect_request("initialize").await;
        self.raw
            .respond(
                &id,
                json!({"protocolVersion": 1, "agentCapabilities": agent_capabilities()}),
            )
            .await;
        within("initialize", call)
            .await
            .unwrap()
            .expect("initialized");
    }

    /// `session/new`, answered with `session_id`; `then` is written in the same write as the
    /// answer (the session's first updates, typically).
    async fn new_session(&mut self, session_id: &str, then: &[Value]) {
        let agent = self.agent.clone();
        let call = tokio::spawn(async move {
            agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new()))
                .await
        });
        let (id, _) = self.raw.expect_request("session/new").await;
        let mut bytes = Vec::new();
        for message in std::iter::once(
            json!({"jsonrpc": "2.0", "id": id, "result": {"sessionId": session_id}}),
        )
        .chain(then.iter().cloned())
        {
            bytes.extend(serde_json::to_vec(&message).unwrap());
            bytes.push(b'\n');
        }
        self.raw.write_raw(&bytes).await;
        let created = within("session/new", call).await.unwrap().expect("created");
        assert_eq!(created.session_id.as_str(), session_id);
    }

    /// Sends a `session/update` with an agent message chunk.
    async fn say(&mut self, session_id: &str, text: &str) {
        self.raw
            .notify("session/update", chunk(session_id, text))
            .await;
    }

    /// Round trip that proves every earlier message was handled: the editor answers a
    /// permission request of a known session only after the updates before it.
    async fn sync(&mut self, session_id: &str, id: u64) {
        self.raw
            .request(id, "session/request_permission", permission(session_id))
            .await;
        self.raw.expect_result(id).await;
    }
}

fn chunk(session_id: &str, text: &str) -> Value {
    json!({
        "sessionId": session_id,
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
    })
}

fn permission(session_id: &str) -> Value {
    json!({
        "sessionId": session_id,
        "toolCall": {"toolCallId": "call-1", "title": "Edit"},
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
    })
}

/// Answers `id` with a `null` result, as the official SDKs do where the result type has no
/// required field (the official schema wants `{}` there, so this is not checked).
async fn null_result(raw: &mut RawPeer, id: &Value) {
    raw.send_unchecked(json!({"jsonrpc": "2.0", "id": id, "result": null}))
        .await;
}

fn code(error: &Value) -> i64 {
    error["code"].as_i64().expect("an error code")
}

#[tokio::test(flavor = "current_thread")]
async fn the_client_accepts_a_null_result_where_the_result_has_no_required_field() {
    let mut t = raw_agent(ClientOptions::default());
    t.initialize(ClientCapabilities::new()).await;
    t.new_session("s1", &[]).await;

    // `session/set_mode`, `session/load` and `session/close` results have no required field:
    // official SDKs answer them with `null`.
    let agent = t.agent.clone();
    let set_mode = tokio::spawn(async move {
        agent
            .set_session_mode(SetSessionModeRequest::new("s1", "code"))
            .await
    });
    let (id, _) = t.raw.expect_request("session/set_mode").await;
    null_result(&mut t.raw, &id).await;
    within("set_mode", set_mode)
        .await
        .unwrap()
        .expect("a null result is the empty result");

    let agent = t.agent.clone();
    let load = tokio::spawn(async move {
        agent
            .load_session(LoadSessionRequest::new(
                "s1",
                "/work",
                Vec::<McpServer>::new(),
            ))
            .await
    });
    let (id, _) = t.raw.expect_request("session/load").await;
    null_result(&mut t.raw, &id).await;
    within("load", load).await.unwrap().expect("loaded");

    // A result with a required field still fails on `null`.
    let agent = t.agent.clone();
    let new = tokio::spawn(async move {
        agent
            .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new()))
            .await
    });
    let (id, _) = t.raw.expect_request("session/new").await;
    t.raw
        .send_unchecked(json!({"jsonrpc": "2.0", "id": id, "result": null}))
        .await;
    let error = within("session/new", new)
        .await
        .unwrap()
        .expect_err("sessionId is required");
    let mut chain = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        chain = format!("{chain}: {cause}");
        source = cause.source();
    }
    assert!(chain.contains("sessionId"), "{chain}");
    t.raw.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_agent_accepts_a_null_result_from_the_client() {
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let (read, write) = tokio::io::split(ours);
    let (_client, driver) = acp_agent::serve(
        |client| ScriptedAgent::new(client, AgentConfig::full()),
        read,
        write,
        AgentOptions::default(),
    );
    tokio::spawn(driver);
    let mut raw = RawPeer::new(theirs, checker());
    raw.request(
        0,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}}}),
    )
    .await;
    raw.expect_result(0).await;
    raw.request(1, "session/new", json!({"cwd": "/work", "mcpServers": []}))
        .await;
    let session = raw.expect_result(1).await["sessionId"].clone();
    raw.request(
        2,
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": format!("{} /work/a.txt /work/b.txt", acp_e2e::script::READ_WRITE_FILE)}]}),
    )
    .await;
    let mut writes = 0;
    let done = loop {
        let message = raw.recv().await;
        match message["method"].as_str() {
            Some("fs/read_text_file") => {
                raw.respond(&message["id"], json!({"content": "one\ntwo\n"}))
                    .await;
            }
            Some("fs/write_text_file") => {
                writes += 1;
                // What official clients answer to a write; the official schema wants `{}`.
                null_result(&mut raw, &message["id"]).await;
            }
            _ if message["id"] == 2 => break message,
            _ => {}
        }
    };
    assert_eq!(writes, 1);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    raw.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_client_refuses_methods_it_did_not_advertise_before_the_editor_sees_them() {
    let mut t = raw_agent(ClientOptions::default());
    // As `client --no-terminal --read-only`: reading only.
    t.initialize(
        ClientCapabilities::new().fs(FileSystemCapabilities::new()
            .read_text_file(true)
            .write_text_file(false)),
    )
    .await;
    t.new_session("s1", &[]).await;
    t.editor.put_file("/work/a.txt", "old");
    let requests = [
        (
            "fs/write_text_file",
            json!({"sessionId": "s1", "path": "/work/a.txt", "content": "new"}),
            "fs.writeTextFile",
        ),
        (
            "terminal/create",
            json!({"sessionId": "s1", "command": "rm", "args": ["-rf", "/"]}),
            "terminal",
        ),
        (
            "terminal/output",
            json!({"sessionId": "s1", "terminalId": "term-0"}),
            "terminal",
        ),
        (
            "terminal/release",
            json!({"sessionId": "s1", "terminalId": "term-0"}),
            "terminal",
        ),
        (
            "elicitation/create",
            json!({"sessionId": "s1", "mode": "form", "message": "?", "requestedSchema": {"type": "object", "properties": {}}}),
            "elicitation",
        ),
    ];
    for (n, (method, params, capability)) in requests.into_iter().enumerate() {
        t.raw.request(n, method, params).await;
        let error = t.raw.expect_error(n).await;
        assert_eq!(code(&error), -32601, "{method}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(method) && message.contains(capability),
            "{message}"
        );
    }
    // Nothing reached the editor: the file is untouched and no terminal was started.
    assert_eq!(t.editor.file("/work/a.txt").as_deref(), Some("old"));
    assert_eq!(t.editor.open_terminals(), 0);
    // What was advertised is served.
    t.raw
        .request(
            9,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": "/work/a.txt"}),
        )
        .await;
    assert_eq!(t.raw.expect_result(9).await["content"], "old");
    t.raw.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_client_refuses_requests_and_drops_updates_for_sessions_it_does_not_have() {
    let mut t = raw_agent(ClientOptions::default());
    t.initialize(
        ClientCapabilities::new()
            .fs(FileSystemCapabilities::new()
                .read_text_file(true)
                .write_text_file(true))
            .terminal(true),
    )
    .await;
    // The session's first update follows its creation in the same write: it is the session's.
    t.new_session(
        "s1",
        &[json!({"jsonrpc": "2.0", "method": "session/update", "params": chunk("s1", "first")})],
    )
    .await;
    t.editor.put_file("/work/a.txt", "old");

    t.say("ghost", "not yours").await;
    let requests = [
        (
            "fs/read_text_file",
            json!({"sessionId": "ghost", "path": "/work/a.txt"}),
        ),
        (
            "fs/write_text_file",
            json!({"sessionId": "ghost", "path": "/work/a.txt", "content": "x"}),
        ),
        (
            "terminal/create",
            json!({"sessionId": "ghost", "command": "echo"}),
        ),
        ("session/request_permission", permission("ghost")),
    ];
    for (n, (method, params)) in requests.into_iter().enumerate() {
        t.raw.request(n, method, params).await;
        let error = t.raw.expect_error(n).await;
        assert_eq!(code(&error), -32002, "{method}: {error}");
        assert_eq!(error["data"]["sessionId"], "ghost", "{error}");
    }
    t.say("s1", "second").await;
    t.sync("s1", 10).await;
    assert_eq!(
        t.editor.messages_of(&SessionId::from("s1")),
        ["first", "second"]
    );
    assert!(t.editor.messages_of(&SessionId::from("ghost")).is_empty());
    assert_eq!(t.editor.updates().len(), 2, "{:?}", t.editor.updates());
    assert_eq!(t.editor.file("/work/a.txt").as_deref(), Some("old"));
    assert_eq!(t.editor.open_terminals(), 0);

    // A loaded session's replay is accepted before the load's answer...
    let agent = t.agent.clone();
    let load = tokio::spawn(async move {
        agent
            .load_session(LoadSessionRequest::new(
                "old-1",
                "/work",
                Vec::<McpServer>::new(),
            ))
            .await
    });
    let (id, _) = t.raw.expect_request("session/load").await;
    t.say("old-1", "replayed").await;
    t.raw.respond(&id, json!({})).await;
    within("load", load).await.unwrap().expect("loaded");
    assert_eq!(
        t.editor.messages_of(&SessionId::from("old-1")),
        ["replayed"]
    );

    // ...and a refused load leaves the session unknown.
    let agent = t.agent.clone();
    let load = tokio::spawn(async move {
        agent
            .load_session(LoadSessionRequest::new(
                "old-2",
                "/work",
                Vec::<McpServer>::new(),
            ))
            .await
    });
    let (id, _) = t.raw.expect_request("session/load").await;
    t.raw
        .send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32002, "message": "no such session"}}))
        .await;
    within("load", load).await.unwrap().expect_err("refused");
    t.raw
        .request(20, "session/request_permission", permission("old-2"))
        .await;
    assert_eq!(code(&t.raw.expect_error(20).await), -32002);

    // A closed session is no longer the connection's.
    let agent = t.agent.clone();
    let close =
        tokio::spawn(async move { agent.close_session(CloseSessionRequest::new("s1")).await });
    let (id, _) = t.raw.expect_request("session/close").await;
    t.raw.respond(&id, json!({})).await;
    within("close", close).await.unwrap().expect("closed");
    t.say("s1", "after close").await;
    t.raw
        .request(21, "session/request_permission", permission("s1"))
        .await;
    assert_eq!(code(&t.raw.expect_error(21).await), -32002);
    assert_eq!(
        t.editor.messages_of(&SessionId::from("s1")),
        ["first", "second"]
    );
    t.raw.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_agent_refuses_what_it_did_not_advertise_before_its_implementation_sees_it() {
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let (read, write) = tokio::io::split(ours);
    let closed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = closed.clone();
    let mut config = AgentConfig::bare();
    config.events =
        std::sync::Arc::new(move |event| seen.lock().unwrap().push(format!("{event:?}")));
    let (_client, driver) = acp_agent::serve(
        move |client| ScriptedAgent::new(client, config),
        read,
        write,
        AgentOptions::default(),
    );
    tokio::spawn(driver);
    let mut raw = RawPeer::new(theirs, checker());
    raw.request(0, "initialize", json!({"protocolVersion": 1}))
        .await;
    raw.expect_result(0).await;
    raw.request(1, "session/new", json!({"cwd": "/work", "mcpServers": []}))
        .await;
    let session = raw.expect_result(1).await["sessionId"].clone();
    let refused = [
        (
            "session/load",
            json!({"sessionId": session, "cwd": "/work", "mcpServers": []}),
            "loadSession",
        ),
        ("session/list", json!({}), "sessionCapabilities.list"),
        (
            "session/resume",
            json!({"sessionId": session, "cwd": "/work"}),
            "sessionCapabilities.resume",
        ),
        (
            "session/close",
            json!({"sessionId": session}),
            "sessionCapabilities.close",
        ),
        (
            "session/delete",
            json!({"sessionId": session}),
            "sessionCapabilities.delete",
        ),
        ("logout", json!({}), "auth.logout"),
    ];
    for (n, (method, params, capability)) in refused.into_iter().enumerate() {
        let id = 10 + n;
        raw.request(id, method, params).await;
        let error = raw.expect_error(id).await;
        assert_eq!(code(&error), -32601, "{method}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(method) && message.contains(capability),
            "{message}"
        );
    }
    // Content and MCP transports beyond what was advertised.
    let image = json!({"type": "image", "data": "aGk=", "mimeType": "image/png"});
    raw.request(
        20,
        "session/prompt",
        json!({"sessionId": session, "prompt": [image]}),
    )
    .await;
    let error = raw.expect_error(20).await;
    assert_eq!(code(&error), -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("promptCapabilities.image"),
        "{error}"
    );
    raw.request(
        21,
        "session/new",
        json!({"cwd": "/work", "mcpServers": [{"type": "http", "name": "m", "url": "http://127.0.0.1:1/mcp", "headers": []}]}),
    )
    .await;
    let error = raw.expect_error(21).await;
    assert_eq!(code(&error), -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("mcpCapabilities.http"),
        "{error}"
    );
    // The agent's implementation saw none of it: no prompt started, no session closed.
    assert!(
        closed.lock().unwrap().is_empty(),
        "{:?}",
        closed.lock().unwrap()
    );
    raw.close().await;
}
