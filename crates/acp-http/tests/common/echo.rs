//! The agent of the tests: a small echo agent served by this crate's server.

#![allow(unreachable_pub)] // Shared by test crates through `#[path]`.

use std::sync::atomic::{AtomicUsize, Ordering};

use acp_agent::{Agent, ClientHandle, PromptContext};
use acp_types::*;

/// A small agent: sessions `s-1`, `s-2`...; a prompt echoes its text as a message chunk;
/// the prompt `ask` first asks permission and reports the outcome; `load` replays one update.
pub struct EchoAgent {
    client: ClientHandle,
    sessions: AtomicUsize,
}

impl EchoAgent {
    pub fn new(client: ClientHandle) -> Self {
        Self {
            client,
            sessions: AtomicUsize::new(0),
        }
    }
}

#[acp_agent::async_trait]
impl Agent for EchoAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::LATEST)
            .agent_capabilities(AgentCapabilities::new().load_session(true)))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        let n = self.sessions.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(NewSessionResponse::new(format!("s-{n}")))
    }

    async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        self.client
            .session(request.session_id.clone())
            .message("replayed")
            .await
            .map_err(ErrorObject::internal_error)?;
        Ok(LoadSessionResponse::new())
    }

    async fn prompt(
        &self,
        request: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let text = request
            .prompt
            .first()
            .and_then(ContentBlock::as_text)
            .unwrap_or_default()
            .to_owned();
        if text == "ask" {
            let outcome = cx
                .request_permission(
                    ToolCallUpdate::new("call-1").title("Write a file"),
                    vec![PermissionOption::new(
                        "allow",
                        "Allow",
                        PermissionOptionKind::AllowOnce,
                    )],
                )
                .await
                .map_err(ErrorObject::internal_error)?;
            let said = match outcome {
                RequestPermissionOutcome::Selected(s) => format!("selected {}", s.option_id),
                _ => "cancelled".to_owned(),
            };
            cx.message(said)
                .await
                .map_err(ErrorObject::internal_error)?;
        } else if text == "wait" {
            cx.cancelled().await;
        } else if let Some(n) = text.strip_prefix("flood ") {
            let n: usize = n.parse().unwrap_or(1);
            for i in 0..n {
                cx.message(format!("chunk {i} {}", "x".repeat(1000)))
                    .await
                    .map_err(ErrorObject::internal_error)?;
            }
        } else {
            cx.message(format!("echo: {text}"))
                .await
                .map_err(ErrorObject::internal_error)?;
        }
        Ok(PromptResponse::new(if cx.is_cancelled() {
            StopReason::Cancelled
        } else {
            StopReason::EndTurn
        }))
    }
}
