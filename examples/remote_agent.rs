//! A remote agent: an ACP agent served over the network with `acp-http`, on one endpoint in
//! both remote transports, Streamable HTTP (`http://ADDR/acp`) and WebSocket (`ws://ADDR/acp`).
//! Every connection gets an agent of its own, made by the factory given to [`AcpServer::new`];
//! this one streams the prompt back word by word and stops at once when the client cancels.
//!
//! ```text
//! cargo run -p acp-examples --example remote_agent             # serves 127.0.0.1:8123
//! cargo run -p acp-examples --example remote_client -- http://127.0.0.1:8123/acp hello there
//! ```
//!
//! `remote_agent ADDR` listens on `ADDR` instead (`127.0.0.1:0` picks a free port). It says where
//! it listens on stderr; ctrl-c closes every connection and exits.

// Where it listens, and why it could not, go to stderr.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use acp_agent::{Agent, Cancelled, ClientHandle, PromptContext, async_trait};
use acp_http::server::{AcpServer, ServerOptions, bind, serve};
use acp_types::*; // Brings `Result<T>`, short for `Result<T, ErrorObject>`.

/// The agent of one connection: its sessions are numbered from 1.
struct EchoAgent {
    sessions: AtomicU64,
}

#[async_trait]
impl Agent for EchoAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse> {
        let info = Implementation::new("remote-agent", env!("CARGO_PKG_VERSION"));
        Ok(InitializeResponse::new(ProtocolVersion::LATEST).agent_info(info))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse> {
        let n = self.sessions.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(NewSessionResponse::new(format!("echo-{n}")))
    }

    async fn prompt(&self, request: PromptRequest, cx: PromptContext) -> Result<PromptResponse> {
        let words: Vec<&str> = request
            .prompt
            .iter()
            .filter_map(ContentBlock::as_text)
            .flat_map(str::split_whitespace)
            .collect();
        // `session/cancel` drops the turn at whatever it awaits.
        match cx.or_cancelled(echo(&cx, &words)).await {
            Ok(done) => done,
            Err(Cancelled) => Ok(PromptResponse::new(StopReason::Cancelled)),
        }
    }
}

/// The turn: a thought, then every word as a message chunk of its own.
async fn echo(cx: &PromptContext, words: &[&str]) -> Result<PromptResponse> {
    cx.thought(format!("{} word(s) to send back.", words.len()))
        .await?;
    for word in words {
        cx.message(format!("{word} ")).await?;
        // Slow enough to watch it stream, and to cancel it.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(PromptResponse::new(StopReason::EndTurn))
}

#[tokio::main]
async fn main() -> ExitCode {
    acp_examples::init_tracing();
    let addr = std::env::args().nth(1);
    let addr = addr.as_deref().unwrap_or("127.0.0.1:8123");
    let listener = match bind(addr).await.and_then(|l| Ok((l.local_addr()?, l))) {
        Ok((local, listener)) => {
            eprintln!("listening on http://{local}/acp and ws://{local}/acp");
            listener
        }
        Err(error) => {
            eprintln!("remote_agent: cannot listen on {addr}: {error}");
            return ExitCode::from(2);
        }
    };
    let make = |_client: ClientHandle| EchoAgent {
        sessions: AtomicU64::new(0),
    };
    let server = AcpServer::new(make, ServerOptions::default());
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match serve(listener, server, ctrl_c).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("remote_agent: {error}");
            ExitCode::FAILURE
        }
    }
}
