//! MCP servers of a proxy (`Proxy::mcp_server`): declared in the sessions it forwards when the
//! successor takes MCP over ACP, answered through `mcp/message`, bounded, and other servers'
//! messages forwarded toward the editor.

use std::path::PathBuf;
use std::time::Duration;

use acp_proxy::Proxy;
use acp_proxy::mcp::MAX_IN_FLIGHT;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use crate::conductor::Conductor;

/// The tools of one session: its directory, and a slow one.
#[derive(Debug, Clone)]
struct Tools {
    cwd: PathBuf,
    #[expect(dead_code, reason = "read by the code `#[tool_handler]` generates")]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Tools {
    #[tool(description = "The session's working directory.")]
    async fn cwd(&self) -> String {
        self.cwd.display().to_string()
    }

    #[tool(description = "Answers after a second.")]
    async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_secs(1)).await;
        "slept".to_owned()
    }
}

#[tool_handler]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn proxy() -> Proxy {
    Proxy::new().mcp_server("project", |session| Tools {
        cwd: session.cwd().to_owned(),
        tool_router: Tools::tool_router(),
    })
}

/// Initializes with a successor whose `mcpCapabilities.acp` is `acp`.
async fn start(acp: bool) -> Conductor {
    let mut conductor = Conductor::start(proxy());
    conductor
        .initialize_with(
            "proxy",
            json!({"protocolVersion": 1, "agentCapabilities": {"mcpCapabilities": {"acp": acp}}}),
        )
        .await;
    conductor
}

/// `session/new` through the proxy: the servers the successor got.
async fn new_session(conductor: &mut Conductor, cwd: &str) -> Value {
    conductor
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
            "params": {"cwd": cwd, "mcpServers": []}}))
        .await;
    let forwarded = conductor.recv().await;
    assert_eq!(forwarded["params"]["method"], "session/new");
    let servers = forwarded["params"]["params"]["mcpServers"].clone();
    conductor
        .send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"sessionId": "s1"}}))
        .await;
    let done = conductor.recv().await;
    assert_eq!(done["result"]["sessionId"], "s1");
    servers
}

/// The agent's `mcp/message` (wrapped: it comes from the successor) with outer id `id`.
fn mcp_message(id: &str, server: &Value, method: &str, params: Option<Value>) -> Value {
    let mut inner = json!({"serverId": server, "requestId": format!("r-{id}"), "method": method});
    if let Some(params) = params {
        inner["params"] = params;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "proxy/successor",
        "params": {"method": "mcp/message", "params": inner}})
}

#[tokio::test]
async fn the_server_is_declared_and_answers_mcp_message() {
    let mut conductor = start(true).await;
    let servers = new_session(&mut conductor, "/work/project").await;
    assert_eq!(servers.as_array().map(Vec::len), Some(1), "{servers}");
    assert_eq!(servers[0]["type"], "acp");
    assert_eq!(servers[0]["name"], "project");
    let server = servers[0]["serverId"].clone();

    conductor
        .send(mcp_message("m1", &server, "tools/list", None))
        .await;
    let listed = conductor.recv().await;
    assert_eq!(listed["id"], "m1");
    let names: Vec<&str> = listed["result"]["result"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names.len(), 2, "{listed}");
    assert!(
        names.contains(&"cwd") && names.contains(&"slow"),
        "{listed}"
    );

    conductor
        .send(mcp_message(
            "m2",
            &server,
            "tools/call",
            Some(json!({"name": "cwd", "arguments": {}})),
        ))
        .await;
    let called = conductor.recv().await;
    assert_eq!(
        called["result"]["result"]["content"][0]["text"], "/work/project",
        "the session's server: {called}"
    );

    // An inner method the server does not know: an inner MCP error, not an outer one.
    conductor
        .send(mcp_message("m3", &server, "nothing/here", None))
        .await;
    let refused = conductor.recv().await;
    assert!(refused.get("error").is_none(), "{refused}");
    assert_eq!(refused["result"]["error"]["code"], -32601, "{refused}");
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn another_components_server_is_asked_toward_the_editor() {
    let mut conductor = start(true).await;
    new_session(&mut conductor, "/w").await;
    conductor
        .send(mcp_message(
            "m1",
            &json!("the-editors-server"),
            "tools/list",
            None,
        ))
        .await;
    let forwarded = conductor.recv().await;
    assert_eq!(
        forwarded["method"], "mcp/message",
        "plain, to the editor: {forwarded}"
    );
    assert_eq!(forwarded["params"]["serverId"], "the-editors-server");
    conductor
        .send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"result": {"tools": []}}}))
        .await;
    let answered = conductor.recv().await;
    assert_eq!(answered["id"], "m1");
    assert_eq!(answered["result"]["result"]["tools"], json!([]));
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn a_successor_without_acp_transport_gets_no_server() {
    let mut conductor = start(false).await;
    let servers = new_session(&mut conductor, "/w").await;
    assert_eq!(servers, json!([]), "nothing it did not advertise");
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn inner_requests_in_flight_are_bounded() {
    let mut conductor = start(true).await;
    let servers = new_session(&mut conductor, "/w").await;
    let server = servers[0]["serverId"].clone();
    let slow = Some(json!({"name": "slow", "arguments": {}}));
    for i in 0..=MAX_IN_FLIGHT {
        conductor
            .send(mcp_message(
                &format!("m{i}"),
                &server,
                "tools/call",
                slow.clone(),
            ))
            .await;
    }
    // The one over the bound is refused at once, with an outer error saying why; the others
    // are answered by the server.
    let first = conductor.recv().await;
    assert_eq!(first["id"], format!("m{MAX_IN_FLIGHT}"), "{first}");
    let message = first["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("in flight"), "{first}");
    for _ in 0..MAX_IN_FLIGHT {
        let answer = conductor.recv().await;
        assert_eq!(
            answer["result"]["result"]["content"][0]["text"], "slept",
            "{answer}"
        );
    }
    conductor.close().await.expect("a clean end");
}
