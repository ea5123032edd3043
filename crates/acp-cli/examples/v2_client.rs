//! A client of the `acp-client` library for the tests of `acp check client --protocol 2`: it
//! asks for v2 and falls back to v1 when its agent answers 1 (the library negotiates).
//!
//! `v2_client -- AGENT ARGS…` spawns the agent, initializes, opens a session in its working
//! directory and sends one prompt. Like a user who does not answer, it leaves permission
//! requests pending; after a second of turn it cancels, and the library answers them
//! `cancelled` as the spec requires. It exits when the turn is over.

#![allow(clippy::print_stderr)] // Usage errors go to stderr.

use std::process::ExitCode;
use std::time::Duration;

use acp_client::v2::Negotiated;
use acp_client::{Client, ErrorObject, SpawnOptions, async_trait, spawn};
use acp_types::{
    CancelNotification, ContentBlock, Implementation, InitializeRequest, NewSessionRequest,
    PromptRequest, ProtocolVersion, RequestPermissionRequest, RequestPermissionResponse,
    SessionNotification, v2,
};

/// How long the turn runs before the client cancels it.
const CANCEL_AFTER: Duration = Duration::from_secs(1);

/// How long the whole run may take.
const DEADLINE: Duration = Duration::from_secs(60);

/// Takes every update, leaves every permission request to the user (who never answers).
struct Editor;

#[async_trait]
impl Client for Editor {
    async fn request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        std::future::pending().await
    }

    async fn session_notification(&self, _: SessionNotification) -> Result<(), ErrorObject> {
        Ok(())
    }

    async fn request_permission_v2(
        &self,
        _: v2::RequestPermissionRequest,
    ) -> Result<v2::RequestPermissionResponse, ErrorObject> {
        std::future::pending().await
    }

    async fn session_notification_v2(
        &self,
        _: v2::UpdateSessionNotification,
    ) -> Result<(), ErrorObject> {
        Ok(())
    }
}

/// Initializes, opens a session, prompts, and cancels the turn once it has run a while.
async fn run(agent: acp_client::AgentHandle) -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::current_dir()?;
    let cwd = dir.to_str().ok_or("the working directory is not UTF-8")?;
    let info = Implementation::new("v2-test-client", "1.0.0");
    let request = v2::InitializeRequest::new(2u16, info.clone());
    let fallback = InitializeRequest::new(ProtocolVersion::V1).client_info(info);
    let text = ContentBlock::from("hi");
    match agent.negotiate(request, fallback).await? {
        Negotiated::V2(_) => {
            let v2 = agent.v2().ok_or("negotiated v2 without its surface")?;
            let session = v2
                .new_session(v2::NewSessionRequest::new(cwd))
                .await?
                .session_id;
            let prompt =
                v2::PromptRequest::new(session.clone(), vec![v2::ContentBlock::from("hi")]);
            let turn = v2.prompt(prompt);
            tokio::pin!(turn);
            tokio::select! {
                ended = &mut turn => { ended?; }
                () = tokio::time::sleep(CANCEL_AFTER) => {
                    v2.cancel(v2::CancelSessionNotification::new(session)).await?;
                    turn.await?;
                }
            }
        }
        _ => {
            let session = agent
                .new_session(NewSessionRequest::new(cwd, Vec::new()))
                .await?
                .session_id;
            let turn = agent.prompt(PromptRequest::new(session.clone(), vec![text]));
            tokio::pin!(turn);
            tokio::select! {
                ended = &mut turn => { ended?; }
                () = tokio::time::sleep(CANCEL_AFTER) => {
                    agent.cancel(CancelNotification::new(session)).await?;
                    turn.await?;
                }
            }
        }
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some(("--", command)) = argv.split_first().map(|(a, rest)| (a.as_str(), rest)) else {
        eprintln!("usage: v2_client -- AGENT ARGS…");
        return ExitCode::from(2);
    };
    let Some((program, args)) = command.split_first() else {
        eprintln!("usage: v2_client -- AGENT ARGS…");
        return ExitCode::from(2);
    };
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let spawned = match spawn(command, |_| Editor, SpawnOptions::default()) {
        Ok(spawned) => spawned,
        Err(error) => {
            eprintln!("v2_client: {error}");
            return ExitCode::FAILURE;
        }
    };
    tokio::spawn(spawned.driver);
    match tokio::time::timeout(DEADLINE, run(spawned.agent)).await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(error)) => {
            eprintln!("v2_client: {error}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("v2_client: not done within {DEADLINE:?}");
            ExitCode::FAILURE
        }
    }
}
