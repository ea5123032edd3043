//! A proxy that gives the agent one MCP tool, `project_info`: how many files the session's
//! working directory holds. The tool is an rmcp server; the proxy declares it in every session
//! as an MCP server of the ACP transport and answers the agent's `mcp/message` requests with
//! it (draft feature `unstable_mcp_over_acp`). Under `acp conduct`, an agent that does not take
//! ACP-transport servers gets it bridged as an ordinary MCP server.
//!
//! ```text
//! acp conduct -- "mcp_tool" "my-agent"
//! ```

use std::path::PathBuf;

use acp_proxy::Proxy;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

/// The tools of one session.
#[derive(Debug, Clone)]
struct ProjectTools {
    cwd: PathBuf,
    #[expect(dead_code, reason = "read by the code `#[tool_handler]` generates")]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl ProjectTools {
    fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            tool_router: Self::tool_router(),
        }
    }

    /// Counts the files directly in the session's working directory.
    #[tool(
        description = "How many files the session's working directory holds (its own files, not those of its subdirectories)."
    )]
    async fn project_info(&self) -> String {
        match std::fs::read_dir(&self.cwd) {
            Ok(entries) => {
                let files = entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .count();
                format!("{} holds {files} files", self.cwd.display())
            }
            Err(e) => format!("{} cannot be read: {e}", self.cwd.display()),
        }
    }
}

#[tool_handler]
impl ServerHandler for ProjectTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), acp_rpc::Error> {
    let proxy = Proxy::new().mcp_server("project", |session| {
        ProjectTools::new(session.cwd().to_owned())
    });
    let (_cx, driver) = proxy.serve_stdio();
    driver.await
}
