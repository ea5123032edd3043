//! A remote client: connects to an ACP agent at a URL with `acp-http` (`http://…/acp` for
//! Streamable HTTP, `ws://…/acp` for WebSocket), opens a session, sends one prompt and prints
//! what the agent streams as it arrives: the message on stdout, thoughts, tool calls and plans
//! as lines of their own. A permission request gets the first "allow" option offered; ctrl-c
//! cancels the turn.
//!
//! Built with the feature `unstable_protocol_v2` it asks for ACP v2 and falls back to v1
//! (`AgentHandle::negotiate`); either way it prints the negotiated version first
//! (`[ACP v2]`), and on v2 it also shows replaced messages and display terminals.
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

    #[cfg(feature = "unstable_protocol_v2")]
    async fn request_permission_v2(
        &self,
        request: v2::RequestPermissionRequest,
    ) -> Result<v2::RequestPermissionResponse> {
        use v2::PermissionOptionKind::{AllowAlways, AllowOnce};
        let allow = request
            .options
            .iter()
            .find(|o| matches!(o.kind, AllowOnce | AllowAlways));
        println!(
            "\n[permission for {}: {}]",
            request.title,
            allow.map_or("none to allow", |o| &o.name)
        );
        Ok(match allow {
            Some(o) => v2::RequestPermissionResponse::new(v2::SelectedPermissionOutcome::new(
                o.option_id.clone(),
            )),
            None => v2::RequestPermissionResponse::new(v2::CancelledPermissionOutcome::new()),
        })
    }

    #[cfg(feature = "unstable_protocol_v2")]
    async fn session_notification_v2(
        &self,
        notification: v2::UpdateSessionNotification,
    ) -> Result<()> {
        use v2::SessionUpdate as U;
        let text = |c: &v2::ContentBlock| match c {
            v2::ContentBlock::Text(t) => t.text.clone(),
            _ => "[not text]".to_owned(),
        };
        match &notification.update {
            U::AgentMessageChunk(chunk) => {
                print!("{}", text(&chunk.content));
                let _ = std::io::stdout().flush(); // Show it as it streams.
            }
            U::AgentThoughtChunk(chunk) => println!("(thinking: {})", text(&chunk.content)),
            U::AgentMessage(message) => {
                let content = message
                    .content
                    .as_set()
                    .map(|c| c.iter().map(text).collect());
                let content: Option<Vec<String>> = content;
                println!(
                    "\n[message replaced: {}]",
                    content.unwrap_or_default().concat()
                );
            }
            U::ToolCallUpdate(call) => {
                if let Some(title) = call.title.as_set() {
                    println!("\n[tool call: {title}]");
                }
            }
            U::PlanUpdate(update) => {
                if let v2::PlanUpdateContent::Items(plan) = &update.plan {
                    println!("\n[plan of {} step(s)]", plan.entries.len());
                }
            }
            U::TerminalUpdate(terminal) => {
                if let Some(command) = terminal.command.as_set() {
                    println!("\n[terminal {}: {command}]", terminal.terminal_id);
                }
                if let Some(exit) = terminal.exit_status.as_set() {
                    println!(
                        "[terminal {} exited: {:?}]",
                        terminal.terminal_id, exit.exit_code
                    );
                }
            }
            U::TerminalOutputChunk(chunk) => {
                // Bytes as they are: a chunk may end inside a UTF-8 code point, which the next
                // one completes (decoding each chunk as text on its own would garble it).
                let mut out = std::io::stdout();
                let _ = out.write_all(&chunk.bytes().unwrap_or_default());
                let _ = out.flush();
            }
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

    let version = initialize(&agent).await?;
    println!("[ACP v{version}]");
    #[cfg(feature = "unstable_protocol_v2")]
    let turn = match agent.v2() {
        Some(v2) => v2_turn(&v2, prompt).await,
        None => v1_turn(&agent, prompt).await,
    };
    #[cfg(not(feature = "unstable_protocol_v2"))]
    let turn = v1_turn(&agent, prompt).await;
    println!("\n[{}]", turn?);

    connection.close(); // A `DELETE`, or a WebSocket close frame: the agent's side ends too.
    running.await??;
    Ok(())
}

/// `initialize`: v1 only.
#[cfg(not(feature = "unstable_protocol_v2"))]
async fn initialize(
    agent: &AgentHandle,
) -> std::result::Result<ProtocolVersion, acp_client::Error> {
    let init = InitializeRequest::new(ProtocolVersion::V1).client_info(client_info());
    Ok(agent.initialize(init).await?.protocol_version)
}

/// `initialize` asking for v2, falling back to v1 when the agent answers 1.
#[cfg(feature = "unstable_protocol_v2")]
async fn initialize(
    agent: &AgentHandle,
) -> std::result::Result<ProtocolVersion, acp_client::Error> {
    let mut request = v2::InitializeRequest::new(2u16, client_info());
    request.capabilities = Some(v2::ClientCapabilities::new());
    let fallback = InitializeRequest::new(ProtocolVersion::V1).client_info(client_info());
    Ok(agent.negotiate(request, fallback).await?.protocol_version())
}

fn client_info() -> Implementation {
    Implementation::new("remote-client", env!("CARGO_PKG_VERSION"))
}

/// A v1 session and one turn; its stop reason. ctrl-c cancels the turn.
async fn v1_turn(
    agent: &AgentHandle,
    prompt: String,
) -> std::result::Result<String, Box<dyn std::error::Error>> {
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
    Ok(done.stop_reason.to_string())
}

/// A v2 session and one turn, which ends at the agent's `idle`; its stop reason. ctrl-c
/// cancels the turn.
#[cfg(feature = "unstable_protocol_v2")]
async fn v2_turn(
    agent: &acp_client::v2::AgentHandle,
    prompt: String,
) -> std::result::Result<String, Box<dyn std::error::Error>> {
    let cwd = std::env::current_dir()?;
    let id = agent
        .new_session(v2::NewSessionRequest::new(
            cwd.to_string_lossy().into_owned(),
        ))
        .await?
        .session_id;
    let request = v2::PromptRequest::new(id.clone(), vec![v2::ContentBlock::from(prompt)]);
    let turn = agent.prompt(request);
    tokio::pin!(turn);
    let done = tokio::select! {
        done = &mut turn => done?,
        _ = tokio::signal::ctrl_c() => {
            // The turn ends at the `idle` that confirms the cancellation.
            agent.cancel(v2::CancelSessionNotification::new(id)).await?;
            turn.await?
        }
    };
    Ok(done
        .stop_reason()
        .map_or_else(|| "ended".to_owned(), ToString::to_string))
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
