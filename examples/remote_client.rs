//! A remote client: connects to an ACP agent at a URL with `acp-http` (`http://…/acp` for
//! Streamable HTTP, `ws://…/acp` for WebSocket), opens a session, sends one prompt and prints
//! what the agent streams as it arrives: the message on stdout, thoughts, tool calls and plans
//! as lines of their own. A permission request gets the first "allow" option offered; ctrl-c
//! cancels the turn.
//!
//! ```text
//! cargo run -p acp-examples --example remote_agent &
//! cargo run -p acp-examples --example remote_client -- http://127.0.0.1:8123/acp hello there
//! cargo run -p acp-examples --example remote_client -- ws://127.0.0.1:8123/acp hello again
//! ```

// A command-line program: the agent's answer goes to stdout, problems to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write as _;
use std::process::ExitCode;

use acp_client::{AgentHandle, Client, async_trait};
use acp_http::client::{ConnectOptions, connect};
use acp_types::*; // Brings `Result<T>`, short for `Result<T, ErrorObject>`.

/// Prints every update of the session; allows what the agent asks.
struct Printer;

#[async_trait]
impl Client for Printer {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse> {
        use PermissionOptionKind::{AllowAlways, AllowOnce};
        let allow = request
            .options
            .iter()
            .find(|o| matches!(o.kind, AllowOnce | AllowAlways));
        let title = request.tool_call.title.as_deref().unwrap_or("a tool call");
        println!(
            "\n[permission for {title}: {}]",
            allow.map_or("none to allow", |o| &o.name)
        );
        Ok(
            allow.map_or_else(RequestPermissionResponse::cancelled, |o| {
                RequestPermissionResponse::selected(o.option_id.clone())
            }),
        )
    }

    async fn session_notification(&self, notification: SessionNotification) -> Result<()> {
        match &notification.update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                print!("{}", chunk.content.as_text().unwrap_or("[not text]"));
                let _ = std::io::stdout().flush(); // Show it as it streams.
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                println!("(thinking: {})", chunk.content.as_text().unwrap_or("…"));
            }
            SessionUpdate::ToolCall(call) => println!("\n[tool call: {}]", call.title),
            SessionUpdate::Plan(plan) => println!("\n[plan of {} step(s)]", plan.entries.len()),
            _ => {}
        }
        Ok(())
    }
}

async fn run(url: &str, prompt: String) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let make = |_agent: AgentHandle| Printer;
    let (agent, driver) = connect(url, make, ConnectOptions::default()).await?;
    let connection = driver.connection();
    let running = tokio::spawn(driver);

    agent
        .initialize(InitializeRequest::new(ProtocolVersion::LATEST))
        .await?;
    let cwd = std::env::current_dir()?;
    let session = agent
        .new_session(NewSessionRequest::new(cwd, Vec::<McpServer>::new()))
        .await?;
    let id = session.session_id;
    let turn = agent.prompt(PromptRequest::new(id.clone(), vec![prompt.into()]));
    tokio::pin!(turn);
    let done = tokio::select! {
        done = &mut turn => done?,
        _ = tokio::signal::ctrl_c() => {
            // The agent ends the turn `cancelled`; its answer still comes.
            agent.cancel(CancelNotification::new(id)).await?;
            turn.await?
        }
    };
    println!("\n[{}]", done.stop_reason);

    connection.close(); // A `DELETE`, or a WebSocket close frame: the agent's side ends too.
    running.await??;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    acp_examples::init_tracing();
    let mut args = std::env::args().skip(1);
    let (Some(url), prompt) = (args.next(), args.collect::<Vec<_>>().join(" ")) else {
        eprintln!("usage: remote_client URL [PROMPT...]");
        return ExitCode::from(2);
    };
    match run(&url, prompt).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("remote_client: {error}");
            ExitCode::FAILURE
        }
    }
}
