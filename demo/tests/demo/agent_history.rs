//! The demo agent keeps a bounded history per session for `session/load` replay: past
//! its cap the oldest updates are dropped, so a long session cannot grow the agent's memory
//! without end.

use std::time::Duration;

use acp_agent::AgentOptions;
use acp_client::{AgentHandle, Client, ClientOptions};
use acp_demo::demo_agent::{DemoAgent, HISTORY_MAX_UPDATES};
use acp_types::*;

/// Bounds the whole test, so that a regression fails instead of hanging.
const DEADLINE: Duration = Duration::from_secs(120);

struct Quiet;

#[acp_client::async_trait]
impl Client for Quiet {
    async fn request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        Ok(RequestPermissionResponse::cancelled())
    }
    async fn session_notification(&self, _: SessionNotification) -> Result<(), ErrorObject> {
        Ok(())
    }
}

fn text_of(update: &SessionUpdate) -> Option<String> {
    match update {
        SessionUpdate::AgentMessageChunk(chunk) => chunk.content.as_text().map(str::to_owned),
        _ => None,
    }
}

#[tokio::test(flavor = "current_thread")]
async fn session_history_keeps_only_the_newest_updates() {
    tokio::time::timeout(DEADLINE, async {
        let (client_io, agent_io) = tokio::io::duplex(1024 * 1024);
        let (reader, writer) = tokio::io::split(agent_io);
        let (_client, agent_driver) =
            acp_agent::serve(DemoAgent::new, reader, writer, AgentOptions::default());
        let agent_driver = tokio::spawn(agent_driver);
        let (reader, writer) = tokio::io::split(client_io);
        let (agent, client_driver) = acp_client::connect(
            |_agent: AgentHandle| Quiet,
            reader,
            writer,
            ClientOptions::default(),
        );
        let client_driver = tokio::spawn(client_driver);

        agent
            .initialize(InitializeRequest::new(ProtocolVersion::LATEST))
            .await
            .expect("initialize");
        let cwd = std::env::temp_dir().display().to_string();
        let session = agent
            .new_session(NewSessionRequest::new(
                cwd.as_str(),
                Vec::<McpServer>::new(),
            ))
            .await
            .expect("session/new")
            .session_id;
        // Two long turns: together well past the cap.
        let first = HISTORY_MAX_UPDATES;
        let second = HISTORY_MAX_UPDATES / 2 + 10;
        for chunks in [first, second] {
            let prompt =
                PromptRequest::new(session.clone(), vec![format!("stream {chunks} 0").into()]);
            let done = agent.prompt(prompt).await.expect("session/prompt");
            assert_eq!(done.stop_reason, StopReason::EndTurn);
        }

        let mut updates = agent.session_updates(session.clone());
        agent
            .load_session(LoadSessionRequest::new(
                session.clone(),
                cwd.as_str(),
                Vec::<McpServer>::new(),
            ))
            .await
            .expect("session/load");
        let mut replayed = Vec::new();
        while let Some(notification) = updates.try_next() {
            replayed.push(notification.update);
        }
        assert_eq!(
            replayed.len(),
            HISTORY_MAX_UPDATES,
            "the replay holds as many updates as the cap, no more"
        );
        let texts: Vec<String> = replayed.iter().filter_map(text_of).collect();
        let last = format!("chunk {second} of {second}\n");
        assert!(texts.contains(&last), "the newest updates are kept");
        let oldest = format!("chunk 1 of {first}\n");
        assert!(!texts.contains(&oldest), "the oldest updates are dropped");

        drop(agent);
        client_driver.abort();
        let _ = client_driver.await;
        let _ = agent_driver.await;
    })
    .await
    .expect("the test finishes in time");
}
