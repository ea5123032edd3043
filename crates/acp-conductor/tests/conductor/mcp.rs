//! MCP tools of a proxy (acp-proxy's `mcp_tool` example: `project_info`) reaching the agent
//! through the conductor: over ACP (`mcp/message`) to an agent that takes it, and through the
//! conductor's HTTP bridge to one that does not (`examples/mcp_agent.rs`, which calls the tool
//! with an rmcp client there). Every message of every hop is checked against the schema.

use std::path::PathBuf;

use acp_conductor::{Component, Conductor, Link};
use acp_rpc::Direction;
use acp_types::methods::{Initialize, SessionNew, SessionPrompt};
use acp_types::{
    InitializeRequest, McpServer, NewSessionRequest, PromptRequest, ProtocolVersion, StopReason,
};
use serde_json::Value;

use crate::common::{Editor, within};

/// The MCP-tool proxy (acp-proxy's example), built once per run.
fn mcp_tool() -> PathBuf {
    acp_testkit::cargo_build(&["-p", "acp-proxy", "--example", "mcp_tool"]);
    acp_testkit::example_binary("mcp_tool")
}

fn example(name: &str) -> PathBuf {
    acp_testkit::example_binary(name)
}

/// A fresh directory holding exactly three files (and a subdirectory, not counted).
fn project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("acp-mcp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).expect("a temporary directory");
    for file in ["a.rs", "b.rs", "Cargo.toml"] {
        std::fs::write(dir.join(file), "x").expect("a file");
    }
    dir
}

/// The texts of the message chunks the editor got.
fn texts(editor: &Editor) -> Vec<String> {
    editor
        .updates
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .filter_map(|n| {
            let v = serde_json::to_value(n).ok()?;
            v["update"]["content"]["text"].as_str().map(str::to_owned)
        })
        .collect()
}

/// One turn through `mcp_tool` → `mcp_agent transport`: the agent found and called the tool.
async fn turn_with_tool(transport: &str) -> Editor {
    let dir = project(transport);
    let editor = Editor::start(Conductor::agent([
        Component::new(mcp_tool().display().to_string(), Vec::<String>::new()),
        Component::new(
            example("mcp_agent").display().to_string(),
            [transport.to_owned()],
        ),
    ]));
    within(
        "initialize",
        editor
            .agent
            .request::<Initialize>(&InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .expect("initialize through the chain");
    let session = within(
        "session/new",
        editor
            .agent
            .request::<SessionNew>(&NewSessionRequest::new(&dir, Vec::<McpServer>::new())),
    )
    .await
    .expect("session/new through the chain");
    let done = within(
        "session/prompt",
        editor.agent.request::<SessionPrompt>(&PromptRequest::new(
            session.session_id,
            vec!["How big is the project?".into()],
        )),
    )
    .await
    .expect("session/prompt through the chain");
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    let said = texts(&editor).join("\n");
    assert!(
        said.contains("tools: project_info"),
        "the agent listed the tool: {said}"
    );
    assert!(
        said.contains(&format!("project_info: {} holds 3 files", dir.display())),
        "the agent called the tool for its session's directory: {said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    editor.checker.assert_clean();
    editor
}

/// The `session/new` the agent (component 1) got.
fn agent_session_new(editor: &Editor) -> Value {
    editor
        .checker
        .messages(Link::Component(1), Direction::Sent)
        .into_iter()
        .find(|m| m["method"] == "session/new")
        .expect("the agent got a session/new")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_taking_acp_transport_calls_the_proxys_tool_over_mcp_message() {
    let editor = turn_with_tool("acp").await;
    let servers = agent_session_new(&editor)["params"]["mcpServers"].clone();
    assert_eq!(
        servers[0]["type"], "acp",
        "declared as an ACP server: {servers}"
    );
    let asked = editor
        .checker
        .messages(Link::Component(1), Direction::Received)
        .into_iter()
        .filter(|m| m["method"] == "mcp/message")
        .count();
    assert!(
        asked >= 2,
        "tools/list and tools/call went over mcp/message"
    );
    editor.driver.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_without_it_gets_a_loopback_http_server_bridged_to_the_proxy() {
    let editor = turn_with_tool("http").await;
    let servers = agent_session_new(&editor)["params"]["mcpServers"].clone();
    assert_eq!(servers[0]["type"], "http", "bridged: {servers}");
    let url = servers[0]["url"].as_str().unwrap_or_default();
    assert!(url.starts_with("http://127.0.0.1:"), "on loopback: {url}");
    // The agent never sees mcp/message; the proxy does, from the conductor.
    let to_agent = editor.checker.messages(Link::Component(1), Direction::Sent);
    assert!(!to_agent.iter().any(|m| m["method"] == "mcp/message"));
    let from_bridge = editor
        .checker
        .messages(Link::Component(0), Direction::Sent)
        .into_iter()
        .filter(|m| m["params"]["method"] == "mcp/message")
        .count();
    assert!(
        from_bridge >= 2,
        "the bridge relayed tools/list and tools/call"
    );

    // The endpoint takes POST only, at the declared path only, and JSON-RPC only.
    let (address, path) = url
        .trim_start_matches("http://")
        .split_once('/')
        .expect("a URL with a path");
    let path = format!("/{path}");
    let get = http(
        address,
        &format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert!(get.starts_with("HTTP/1.1 405"), "{get}");
    let elsewhere = post(address, "/mcp/0123456789abcdef", "{}").await;
    assert!(elsewhere.starts_with("HTTP/1.1 404"), "{elsewhere}");
    let garbage = post(address, &path, "not json").await;
    assert!(garbage.starts_with("HTTP/1.1 400"), "{garbage}");
    let notification = post(
        address,
        &path,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert!(notification.starts_with("HTTP/1.1 202"), "{notification}");
    let listed = post(
        address,
        &path,
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
    )
    .await;
    assert!(listed.starts_with("HTTP/1.1 200"), "{listed}");
    assert!(
        listed.contains(r#""id":7"#) && listed.contains("project_info"),
        "{listed}"
    );
    editor.driver.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_taking_neither_transport_gets_no_server() {
    let editor = turn_without_tool().await;
    let servers = agent_session_new(&editor)["params"]["mcpServers"].clone();
    assert_eq!(
        servers,
        serde_json::json!([]),
        "nothing it did not advertise"
    );
    editor.driver.abort();
}

/// One turn through `mcp_tool` → `mcp_agent none`.
async fn turn_without_tool() -> Editor {
    let editor = Editor::start(Conductor::agent([
        Component::new(mcp_tool().display().to_string(), Vec::<String>::new()),
        Component::new(
            example("mcp_agent").display().to_string(),
            ["none".to_owned()],
        ),
    ]));
    let session = editor.open_session().await;
    let done = within(
        "session/prompt",
        editor
            .agent
            .request::<SessionPrompt>(&PromptRequest::new(session, vec!["Hi".into()])),
    )
    .await
    .expect("session/prompt through the chain");
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    let said = texts(&editor).join("\n");
    assert!(said.contains("no MCP servers"), "{said}");
    editor.checker.assert_clean();
    editor
}

/// A POST of `body` to `path`: the whole response, as text.
async fn post(address: &str, path: &str, body: &str) -> String {
    http(
        address,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        ),
    )
    .await
}

/// Sends `request` to `address` and reads the response to its end.
async fn http(address: &str, request: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    within("an HTTP exchange with the bridge", async {
        let mut stream = tokio::net::TcpStream::connect(address)
            .await
            .expect("the bridge listens");
        stream
            .write_all(request.as_bytes())
            .await
            .expect("the request is sent");
        let mut response = String::new();
        stream
            .read_to_string(&mut response)
            .await
            .expect("the response is read");
        response
    })
    .await
}
