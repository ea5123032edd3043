//! MCP servers of a proxy (`Proxy::mcp_server`): declared in the sessions it forwards when the
//! successor takes MCP over ACP, answered through `mcp/message`, bounded, stopped with their
//! session (closed, refused, or the connection's end), and other servers' messages forwarded
//! toward the editor.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use acp_proxy::Proxy;
use acp_proxy::mcp::{MAX_IN_FLIGHT, MAX_SERVERS};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use crate::conductor::{Conductor, DEADLINE};

/// The tools of one session: its directory, and a slow one.
#[derive(Debug, Clone)]
struct Tools {
    cwd: PathBuf,
    #[expect(dead_code, reason = "read by the code `#[tool_handler]` generates")]
    tool_router: ToolRouter<Self>,
    /// Counts the servers alive, for the tests of their lifetime.
    _alive: Alive,
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
        _alive: Alive::default(),
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
    new_session_named(conductor, cwd, "s1").await
}

/// `session/new` through the proxy, the agent naming the session `session`: the servers the
/// successor got.
async fn new_session_named(conductor: &mut Conductor, cwd: &str, session: &str) -> Value {
    conductor
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
            "params": {"cwd": cwd, "mcpServers": []}}))
        .await;
    let forwarded = conductor.recv().await;
    assert_eq!(forwarded["params"]["method"], "session/new");
    let servers = forwarded["params"]["params"]["mcpServers"].clone();
    conductor
        .send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"sessionId": session}}))
        .await;
    let done = conductor.recv().await;
    assert_eq!(done["result"]["sessionId"], session);
    servers
}

/// `session/close` of `session` through the proxy, the agent answering `answer` (a `result`
/// or an `error` member); returns what the editor got.
async fn close_session(conductor: &mut Conductor, session: &str, answer: Value) -> Value {
    conductor
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/close",
            "params": {"sessionId": session}}))
        .await;
    let forwarded = conductor.recv().await;
    assert_eq!(
        forwarded["params"]["method"], "session/close",
        "{forwarded}"
    );
    let mut reply = json!({"jsonrpc": "2.0", "id": forwarded["id"]});
    if let (Some(reply), Some(answer)) = (reply.as_object_mut(), answer.as_object()) {
        reply.extend(answer.clone());
    }
    conductor.send(reply).await;
    let done = conductor.recv().await;
    assert_eq!(done["id"], 2, "{done}");
    done
}

/// `tools/call cwd` on `server`: the whole answer.
async fn call_cwd(conductor: &mut Conductor, id: &str, server: &Value) -> Value {
    conductor
        .send(mcp_message(
            id,
            server,
            "tools/call",
            Some(json!({"name": "cwd", "arguments": {}})),
        ))
        .await;
    let answer = conductor.recv().await;
    assert_eq!(answer["id"], id, "{answer}");
    answer
}

/// Asserts that `answer` is the clear error for a stopped server.
fn assert_gone(answer: &Value, server: &Value) {
    assert_eq!(answer["error"]["code"], -32002, "{answer}");
    assert_eq!(answer["error"]["data"]["serverId"], *server, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("is gone"), "{answer}");
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

/// Counts the tokens alive beside the test's own: the factory's (while the proxy lives) and
/// one per server it made.
#[derive(Debug, Clone, Default)]
struct Alive(Arc<()>);

impl Alive {
    /// Tokens alive now, the test's own not counted.
    fn count(&self) -> usize {
        Arc::strong_count(&self.0) - 1
    }

    /// Waits (within the deadline) until `n` tokens are alive.
    async fn until(&self, n: usize) {
        tokio::time::timeout(DEADLINE, async {
            while self.count() != n {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{} servers alive, not {n}", self.count()));
    }
}

/// Like [`start`] with a successor taking MCP over ACP, its servers counted by `alive`.
async fn start_counted(alive: &Alive) -> Conductor {
    let alive = alive.clone();
    let proxy = Proxy::new().mcp_server("project", move |session| Tools {
        cwd: session.cwd().to_owned(),
        tool_router: Tools::tool_router(),
        _alive: alive.clone(),
    });
    let mut conductor = Conductor::start(proxy);
    conductor
        .initialize_with(
            "proxy",
            json!({"protocolVersion": 1, "agentCapabilities": {"mcpCapabilities": {"acp": true}}}),
        )
        .await;
    conductor
}

#[tokio::test]
async fn a_closed_sessions_server_stops_and_says_it_is_gone() {
    let alive = Alive::default();
    let mut conductor = start_counted(&alive).await;
    let first = new_session_named(&mut conductor, "/one", "s1").await[0]["serverId"].clone();
    let second = new_session_named(&mut conductor, "/two", "s2").await[0]["serverId"].clone();
    let answer = call_cwd(&mut conductor, "m1", &first).await;
    assert_eq!(
        answer["result"]["result"]["content"][0]["text"], "/one",
        "{answer}"
    );
    let answer = call_cwd(&mut conductor, "m2", &second).await;
    assert_eq!(
        answer["result"]["result"]["content"][0]["text"], "/two",
        "{answer}"
    );
    // The factory's token and the two servers'.
    alive.until(3).await;

    let closed = close_session(&mut conductor, "s1", json!({"result": {}})).await;
    assert_eq!(closed["result"], json!({}), "the agent's answer: {closed}");
    alive.until(2).await;
    // The closed session's server: a clear error, not forwarded toward the editor.
    assert_gone(&call_cwd(&mut conductor, "m3", &first).await, &first);
    // The other session's is untouched.
    let answer = call_cwd(&mut conductor, "m4", &second).await;
    assert_eq!(
        answer["result"]["result"]["content"][0]["text"], "/two",
        "{answer}"
    );

    // A close the agent refuses for another reason keeps the server.
    let refused = close_session(
        &mut conductor,
        "s2",
        json!({"error": {"code": -32603, "message": "Internal error"}}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let answer = call_cwd(&mut conductor, "m5", &second).await;
    assert_eq!(
        answer["result"]["result"]["content"][0]["text"], "/two",
        "{answer}"
    );
    // One the agent does not know any more is gone anyway.
    let unknown = close_session(
        &mut conductor,
        "s2",
        json!({"error": {"code": -32002, "message": "Resource not found"}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32002, "{unknown}");
    alive.until(1).await;
    assert_gone(&call_cwd(&mut conductor, "m6", &second).await, &second);
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn a_refused_session_gets_no_server() {
    let mut conductor = start(true).await;
    conductor
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
            "params": {"cwd": "/w", "mcpServers": []}}))
        .await;
    let forwarded = conductor.recv().await;
    let server = forwarded["params"]["params"]["mcpServers"][0]["serverId"].clone();
    assert!(server.is_string(), "{forwarded}");
    conductor
        .send(json!({"jsonrpc": "2.0", "id": forwarded["id"],
            "error": {"code": -32603, "message": "Internal error"}}))
        .await;
    let refused = conductor.recv().await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert_gone(&call_cwd(&mut conductor, "m1", &server).await, &server);
    conductor.close().await.expect("a clean end");
}

#[tokio::test]
async fn servers_stop_when_the_connection_ends() {
    let alive = Alive::default();
    let mut conductor = start_counted(&alive).await;
    for (i, session) in ["s1", "s2", "s3"].into_iter().enumerate() {
        let server = new_session_named(&mut conductor, "/w", session).await[0]["serverId"].clone();
        let answer = call_cwd(&mut conductor, &format!("m{i}"), &server).await;
        assert_eq!(
            answer["result"]["result"]["content"][0]["text"], "/w",
            "{answer}"
        );
    }
    // The factory's token and the three servers'.
    alive.until(4).await;
    conductor.close().await.expect("a clean end");
    // The proxy is gone: its factory and every server.
    alive.until(0).await;
}

#[tokio::test]
async fn closing_sessions_makes_room_within_the_bound() {
    let mut conductor = start(true).await;
    let mut servers = Vec::with_capacity(MAX_SERVERS + 10);
    for i in 0..MAX_SERVERS {
        let declared = new_session_named(&mut conductor, &format!("/w{i}"), &format!("s{i}")).await;
        servers.push(declared[0]["serverId"].clone());
    }
    // Close ten sessions in the middle, then open ten more: the bound counts open sessions
    // only, so no open session's server is stopped for them (the oldest included).
    for i in 100..110 {
        close_session(&mut conductor, &format!("s{i}"), json!({"result": {}})).await;
    }
    for i in MAX_SERVERS..MAX_SERVERS + 10 {
        let declared = new_session_named(&mut conductor, &format!("/w{i}"), &format!("s{i}")).await;
        servers.push(declared[0]["serverId"].clone());
    }
    for i in [0, 99, 110, MAX_SERVERS - 1, MAX_SERVERS, MAX_SERVERS + 9] {
        let answer = call_cwd(&mut conductor, &format!("m{i}"), &servers[i]).await;
        assert_eq!(
            answer["result"]["result"]["content"][0]["text"],
            format!("/w{i}"),
            "session {i}: {answer}"
        );
    }
    assert_gone(
        &call_cwd(&mut conductor, "m100", &servers[100]).await,
        &servers[100],
    );

    // Beyond the bound with all of them open, the oldest session's server is stopped.
    let declared = new_session_named(&mut conductor, "/extra", "extra").await;
    assert!(declared[0]["serverId"].is_string(), "{declared}");
    assert_gone(
        &call_cwd(&mut conductor, "old", &servers[0]).await,
        &servers[0],
    );
    let answer = call_cwd(&mut conductor, "next", &servers[1]).await;
    assert_eq!(
        answer["result"]["result"]["content"][0]["text"], "/w1",
        "{answer}"
    );
    conductor.close().await.expect("a clean end");
}
