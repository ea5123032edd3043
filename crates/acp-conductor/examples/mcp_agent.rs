//! The agent of the conductor's MCP tests, written with `acp-agent`: `mcp_agent acp|http|none`.
//!
//! It advertises MCP servers of the ACP transport (`acp`: `mcpCapabilities.acp`), of
//! Streamable HTTP only (`http`: `mcpCapabilities.http`, so a conductor must bridge), or
//! neither (`none`: only stdio, which every agent takes). On every
//! prompt it lists the tools of each MCP server of the session, calls `project_info` where it
//! is, and reports what it found as message chunks: `tools: a, b` and `project_info: TEXT`
//! (or `mcp failed: WHY`). Over ACP it sends `mcp/message` requests itself; over HTTP it uses
//! an rmcp client.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use acp_agent::{Agent, AgentOptions, ClientHandle, PromptContext, serve_stdio};
use acp_types::methods::McpMessage;
use acp_types::*;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;

/// How the agent reaches MCP servers.
#[derive(Clone, Copy, PartialEq)]
enum Transport {
    Acp,
    Http,
    Stdio,
}

struct McpAgent {
    transport: Transport,
    client: ClientHandle,
    sessions: Mutex<HashMap<SessionId, Vec<McpServer>>>,
    next: Mutex<u64>,
}

impl McpAgent {
    /// One inner request over ACP: the inner result, or why not.
    async fn over_acp(
        &self,
        server: &McpServerAcpId,
        method: &str,
        params: Option<Meta>,
    ) -> Result<serde_json::Value, String> {
        let id = {
            let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
            *next += 1;
            next.to_string()
        };
        let mut request = MessageMcpRequest::new(server.clone(), id, method);
        request.params = params;
        let answer = self
            .client
            .peer()
            .request::<McpMessage>(&request)
            .await
            .map_err(|e| e.to_string())?;
        match answer.outcome {
            McpOutcome::Result(raw) => {
                serde_json::from_str(raw.raw.get()).map_err(|e| e.to_string())
            }
            McpOutcome::Error(e) => Err(format!("MCP error {}: {}", e.code, e.message)),
            _ => Err("an unknown outcome".to_owned()),
        }
    }

    /// The tool names and the `project_info` text of one server.
    async fn use_server(&self, server: &McpServer) -> Result<(Vec<String>, String), String> {
        match (server, self.transport) {
            (McpServer::Acp(acp), Transport::Acp) => {
                let tools = self.over_acp(&acp.server_id, "tools/list", None).await?;
                let names = tools["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t["name"].as_str().map(str::to_owned))
                    .collect();
                let mut params = Meta::new();
                params.insert("name".into(), "project_info".into());
                params.insert("arguments".into(), serde_json::json!({}));
                let called = self
                    .over_acp(&acp.server_id, "tools/call", Some(params))
                    .await?;
                let text = called["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                Ok((names, text))
            }
            (McpServer::Http(http), Transport::Http) => {
                let transport = StreamableHttpClientTransport::from_uri(http.url.as_str());
                let client = ().serve(transport).await.map_err(|e| e.to_string())?;
                let tools = client.list_tools(None).await.map_err(|e| e.to_string())?;
                let names = tools.tools.iter().map(|t| t.name.to_string()).collect();
                let called = client
                    .call_tool(CallToolRequestParams::new("project_info"))
                    .await
                    .map_err(|e| e.to_string())?;
                let text = serde_json::to_value(&called).map_err(|e| e.to_string())?["content"][0]
                    ["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                let _ = client.cancel().await;
                Ok((names, text))
            }
            _ => Err("a server of a transport this agent did not advertise".to_owned()),
        }
    }
}

#[async_trait::async_trait]
impl Agent for McpAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        let mut mcp = McpCapabilities::new();
        match self.transport {
            Transport::Acp => mcp.acp = Some(true),
            Transport::Http => mcp.http = Some(true),
            Transport::Stdio => {}
        }
        let mut capabilities = AgentCapabilities::new();
        capabilities.mcp_capabilities = Some(mcp);
        let mut response = InitializeResponse::new(ProtocolVersion::V1);
        response.agent_capabilities = Some(capabilities);
        Ok(response)
    }

    async fn new_session(&self, r: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        let id = SessionId::from(format!("mcp-session-{}", std::process::id()));
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), r.mcp_servers);
        Ok(NewSessionResponse::new(id))
    }

    async fn prompt(
        &self,
        r: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let servers = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&r.session_id)
            .cloned()
            .unwrap_or_default();
        if servers.is_empty() {
            let _ = cx.message("no MCP servers").await;
        }
        for server in &servers {
            let line = match self.use_server(server).await {
                Ok((names, text)) => format!("tools: {}\nproject_info: {text}", names.join(", ")),
                Err(why) => format!("mcp failed: {why}"),
            };
            let _ = cx.message(line).await;
        }
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let transport = match std::env::args().nth(1).as_deref() {
        Some("http") => Transport::Http,
        Some("none") => Transport::Stdio,
        _ => Transport::Acp,
    };
    let (_client, driver) = serve_stdio(
        move |client| McpAgent {
            transport,
            client,
            sessions: Mutex::default(),
            next: Mutex::new(0),
        },
        AgentOptions::default(),
    );
    driver.await?;
    Ok(())
}
