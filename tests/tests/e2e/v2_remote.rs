//! Every pairing of protocol versions between our agent and our client over the network
//! transports of `acp-http` (issue 22, "Checks": "over stdio and remote"): Streamable HTTP
//! (POST + SSE) and WebSocket on 127.0.0.1, the agent served in process and a stdio agent
//! program behind the bridge. The server's tap checks every message both ways against the
//! official schema of the version the connection negotiated (as `v2_pairings` does in
//! process):
//!
//! - a v2 client and the v1+v2 agent: the v2 prompt lifecycle (acknowledgement, `running`,
//!   `requires_action` around a permission request, `idle`), cancellation confirmed by `idle`,
//!   and `session/resume` with replay on a second connection rebuilding the same model;
//! - a v1 client and the same server: v1 unchanged;
//! - a v2 client and an agent capped at v1: the client falls back, and the whole session is v1;
//! - updates an agent sends while its session is idle (background work) reach the v2 client
//!   between turns;
//! - the bridge relays v2 unchanged, both ways, to an agent program that speaks it.

#![cfg(feature = "unstable_protocol_v2")]

use std::sync::Arc;
use std::time::Duration;

use acp_agent::{AgentOptions, ClientHandle, PromptContext};
use acp_client::AgentHandle;
use acp_client::model::{MessageRole, TurnState};
use acp_e2e::{AgentConfig, AgentEvent, RemoteServer, Transport, script, within};
use acp_http::client::{ConnectOptions, Connection, RemoteDriver};
use acp_http::server::ServerOptions;
use acp_types::*;
use tokio::task::JoinHandle;

use crate::v2_pairings::{Editor, checker, negotiate, rendered, v2_prompt, v2_session};

/// Our client, with the test's [`Editor`], connected to `server` over `transport`.
struct Remote {
    agent: AgentHandle,
    editor: Arc<Editor>,
    connection: Connection,
    driver: JoinHandle<Result<(), acp_http::client::Error>>,
}

impl Remote {
    async fn connect(server: &RemoteServer, transport: Transport) -> Self {
        let editor = Arc::new(Editor::default());
        let connected = editor.clone();
        let (agent, driver): (AgentHandle, RemoteDriver) = within(
            "connecting",
            acp_http::client::connect(
                &server.url(transport),
                move |_| connected,
                ConnectOptions::default(),
            ),
        )
        .await
        .unwrap_or_else(|e| panic!("connecting over {transport}: {e}"));
        Self {
            agent,
            editor,
            connection: driver.connection(),
            driver: tokio::spawn(driver),
        }
    }

    /// Closes the connection; its driver ends cleanly, and the editor's model took every
    /// update.
    async fn close(self) {
        self.editor.assert_no_model_errors();
        self.connection.close();
        let ended = within("the client driver's end", self.driver).await;
        assert!(
            matches!(ended, Ok(Ok(()))),
            "the client ended badly: {ended:?}"
        );
    }
}

/// A server of scripted agents (sessions shared by every connection) whose tap checks each
/// message against the schema of `version`.
async fn scripted(version: u16, agent: AgentOptions) -> RemoteServer {
    let mut config = AgentConfig::full();
    config.crash = Arc::new(|| {});
    let mut options = ServerOptions::default();
    options.agent = agent;
    RemoteServer::start(config, options, checker(version, true)).await
}

/// Waits for the scripted agent to wait for a cancellation.
async fn waiting_for_cancel(server: &mut RemoteServer) {
    loop {
        if let AgentEvent::WaitingForCancel(_) = server.agent_event().await {
            return;
        }
    }
}

#[tokio::test]
async fn a_v2_client_runs_the_v2_lifecycle_with_the_v1_v2_agent_over_each_transport() {
    for transport in Transport::ALL {
        let mut server = scripted(2, AgentOptions::default()).await;
        let first = Remote::connect(&server, transport).await;
        let (v2, session) = v2_session(&first.agent).await;
        assert_eq!(v2.initialize_response().info.name, "e2e-agent");

        // A whole turn, every update kind.
        let end = within(
            "the prompt",
            v2.prompt(v2_prompt(&session, script::STREAM_ALL_UPDATES)),
        )
        .await
        .expect("the turn ends");
        assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
        {
            let model = first.editor.model();
            assert_eq!(
                model.state(),
                &TurnState::Idle(Some(v2::StopReason::EndTurn)),
                "{transport}"
            );
            let user = model
                .message(&end.message_id)
                .expect("the acknowledged user message is in the model");
            assert_eq!(user.role, MessageRole::User);
            assert_eq!(user.text(), script::STREAM_ALL_UPDATES);
            assert!(!model.tool_calls().is_empty(), "{transport}: the tool call");
            assert!(
                model.plans().iter().any(|p| !p.entries.is_empty()),
                "{transport}: the plan"
            );
        }

        // A permission request, answered on the session's stream, during `requires_action`.
        let end = within(
            "the prompt",
            v2.prompt(v2_prompt(&session, script::ASK_PERMISSION)),
        )
        .await
        .expect("the turn ends");
        assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
        assert!(
            first
                .editor
                .model()
                .messages()
                .iter()
                .any(|m| m.text() == "permission: selected allow"),
            "{transport}"
        );

        // Cancellation: confirmed by `idle` with `cancelled`.
        let turn = {
            let v2 = v2.clone();
            let request = v2_prompt(&session, script::WAIT_FOR_CANCEL);
            tokio::spawn(async move { v2.prompt(request).await })
        };
        waiting_for_cancel(&mut server).await;
        let idle = within(
            "the cancellation",
            v2.cancel(v2::CancelSessionNotification::new(session.clone())),
        )
        .await
        .expect("cancelled")
        .expect("the session had a turn to cancel");
        assert_eq!(idle.stop_reason, Some(v2::StopReason::Cancelled));
        let ended = within("the cancelled turn", turn)
            .await
            .expect("no panic")
            .expect("the turn ends");
        assert_eq!(ended.stop_reason(), Some(&v2::StopReason::Cancelled));
        let live = rendered(&first.editor.model());
        first.close().await;

        // A second connection resumes the session, its whole history replayed.
        let second = Remote::connect(&server, transport).await;
        negotiate(&second.agent).await;
        let v2 = second.agent.v2().expect("a v2 connection");
        let mut request = v2::ResumeSessionRequest::new(session.clone(), "/work");
        request.replay_from = Some(v2::ReplayFrom::from(v2::ReplayFromStart::new()));
        within("session/resume", v2.resume_session(request))
            .await
            .expect("resumed");
        assert_eq!(
            rendered(&second.editor.model()),
            live,
            "{transport}: the replay rebuilds what the editor showed"
        );
        let end = within("a turn", v2.prompt(v2_prompt(&session, "again")))
            .await
            .expect("the resumed session works");
        assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
        second.close().await;
        server.finish(10).await;
    }
}

#[tokio::test]
async fn a_v1_client_of_the_v1_v2_agent_speaks_v1_over_each_transport() {
    for transport in Transport::ALL {
        let server = scripted(1, AgentOptions::default()).await;
        let c = Remote::connect(&server, transport).await;
        let init = within(
            "initialize",
            c.agent.initialize(
                InitializeRequest::new(ProtocolVersion::V1)
                    .client_info(Implementation::new("e2e", "0.1.0")),
            ),
        )
        .await
        .expect("initialize");
        assert_eq!(init.protocol_version, ProtocolVersion::V1, "{transport}");
        assert!(c.agent.v2().is_none());
        let session = within(
            "session/new",
            c.agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
        )
        .await
        .expect("session/new")
        .session_id;
        let done = within(
            "the prompt",
            c.agent.prompt(PromptRequest::new(
                session,
                vec![script::STREAM_ALL_UPDATES.into()],
            )),
        )
        .await
        .expect("the turn ends");
        assert_eq!(done.stop_reason, StopReason::EndTurn, "{transport}");
        assert!(!c.editor.model().tool_calls().is_empty(), "{transport}");
        c.close().await;
        server.finish(3).await;
    }
}

#[tokio::test]
async fn a_v2_client_falls_back_to_v1_against_a_remote_agent_capped_at_v1() {
    for transport in Transport::ALL {
        let options = AgentOptions::default().max_protocol_version(ProtocolVersion::V1);
        let server = scripted(1, options).await;
        let c = Remote::connect(&server, transport).await;
        let negotiated = negotiate(&c.agent).await;
        assert!(
            matches!(negotiated, acp_client::v2::Negotiated::V1(_)),
            "{transport}: {negotiated:?}"
        );
        assert!(c.agent.v2().is_none(), "no v2 calls on a v1 connection");
        let session = within(
            "session/new",
            c.agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
        )
        .await
        .expect("session/new")
        .session_id;
        let done = within(
            "the prompt",
            c.agent
                .prompt(PromptRequest::new(session, vec!["hello".into()])),
        )
        .await
        .expect("the turn ends");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
        assert!(
            c.editor
                .model()
                .messages()
                .iter()
                .any(|m| m.text().contains("hello")),
            "{transport}: the echo landed in the model"
        );
        c.close().await;
        server.finish(3).await;
    }
}

/// An agent whose turn only says it started work in the background: the work runs after the
/// turn ended, while the session is idle (a `running` state, a message, `idle` again).
struct Background {
    client: ClientHandle,
    /// Why a background update could not be sent, for the test to report.
    failures: Arc<std::sync::Mutex<Vec<String>>>,
}

/// What the background work says.
const BACKGROUND_TEXT: &str = "done in the background";

/// The `messageId` of the background work's message.
const BACKGROUND_MESSAGE: &str = "bg-message";

#[acp_agent::async_trait]
impl acp_agent::Agent for Background {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::V1)
            .agent_info(Implementation::new("background", "0.1.0")))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new("bg-1"))
    }

    async fn prompt(
        &self,
        request: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        cx.message("started").await.map_err(ErrorObject::from)?;
        let client = self.client.clone();
        let failures = self.failures.clone();
        let session = request.session_id;
        tokio::spawn(async move {
            // After the turn's `idle`.
            tokio::time::sleep(Duration::from_millis(50)).await;
            let message = v2::AgentMessage::new(BACKGROUND_MESSAGE)
                .content(vec![v2::ContentBlock::from(BACKGROUND_TEXT)]);
            let updates = [
                v2::SessionUpdate::from(v2::StateUpdate::from(v2::RunningStateUpdate::new())),
                v2::SessionUpdate::from(message),
                v2::SessionUpdate::from(v2::StateUpdate::from(v2::IdleStateUpdate::new())),
            ];
            for update in updates {
                if let Err(error) = client.session_update_v2(&session, update).await {
                    failures
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(error.to_string());
                    return;
                }
            }
        });
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

#[tokio::test]
async fn updates_of_an_idle_session_reach_a_remote_v2_client_between_turns() {
    for transport in Transport::ALL {
        let failures = Arc::<std::sync::Mutex<Vec<String>>>::default();
        let failed = failures.clone();
        let server = RemoteServer::serve_agents(
            move |client| Background {
                client,
                failures: failed.clone(),
            },
            ServerOptions::default(),
            checker(2, true),
        )
        .await;
        let c = Remote::connect(&server, transport).await;
        let (v2, session) = v2_session(&c.agent).await;
        let mut updates = v2.session_updates(session.clone());
        let end = within("the prompt", v2.prompt(v2_prompt(&session, "go")))
            .await
            .expect("the turn ends");
        assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
        // The turn's updates, then the background work's, with no request pending.
        let mut kinds = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while kinds.last().map(String::as_str) != Some("idle")
            || !kinds.iter().any(|k| k == "agent_message")
        {
            // Waits in short steps, so that a failed send is reported as such, not as a hang.
            let failed = failures
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            assert!(failed.is_empty(), "{transport}: {failed:?}");
            assert!(
                tokio::time::Instant::now() < deadline,
                "{transport}: the background updates did not come: {kinds:?}"
            );
            let Ok(update) = tokio::time::timeout(Duration::from_millis(100), updates.next()).await
            else {
                continue;
            };
            let update = update.expect("the session's updates go on");
            let json = serde_json::to_value(&update.update).expect("an update");
            let kind = json["sessionUpdate"].as_str().unwrap_or("?");
            kinds.push(match kind {
                "state_update" => json["state"].as_str().unwrap_or("?").to_owned(),
                other => other.to_owned(),
            });
        }
        let after_turn = kinds
            .iter()
            .position(|k| k == "idle")
            .expect("the turn's idle");
        assert_eq!(
            kinds[after_turn + 1..],
            ["running", "agent_message", "idle"],
            "{transport}: {kinds:?}"
        );
        assert_eq!(
            c.editor
                .model()
                .message(&BACKGROUND_MESSAGE.into())
                .map(|m| m.text()),
            Some(BACKGROUND_TEXT.to_owned()),
            "{transport}"
        );
        c.close().await;
        server.finish(3).await;
    }
}

#[tokio::test]
async fn the_bridge_relays_v2_unchanged_over_each_transport() {
    for transport in Transport::ALL {
        let program = env!("CARGO_BIN_EXE_e2e_agent");
        let server = RemoteServer::bridge(
            move || tokio::process::Command::new(program),
            ServerOptions::default(),
            checker(2, true),
        )
        .await;
        let c = Remote::connect(&server, transport).await;
        let (v2, session) = v2_session(&c.agent).await;
        assert_eq!(v2.initialize_response().info.name, "e2e-agent");
        let end = within(
            "the prompt",
            v2.prompt(v2_prompt(&session, script::STREAM_ALL_UPDATES)),
        )
        .await
        .expect("the turn ends");
        assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
        {
            let model = c.editor.model();
            assert_eq!(
                model.state(),
                &TurnState::Idle(Some(v2::StopReason::EndTurn))
            );
            assert_eq!(
                model.message(&end.message_id).map(|m| m.text()),
                Some(script::STREAM_ALL_UPDATES.to_owned()),
                "{transport}"
            );
            assert!(!model.tool_calls().is_empty() && !model.plans().is_empty());
        }
        c.close().await;
        server.finish(3).await;
    }
}

#[tokio::test]
async fn the_bridge_relays_a_v2_client_falling_back_to_a_v1_only_program() {
    for transport in Transport::ALL {
        let program = env!("CARGO_BIN_EXE_e2e_agent");
        let server = RemoteServer::bridge(
            move || {
                let mut command = tokio::process::Command::new(program);
                command.args(["--max-protocol-version", "1"]);
                command
            },
            ServerOptions::default(),
            checker(1, true),
        )
        .await;
        let c = Remote::connect(&server, transport).await;
        let negotiated = negotiate(&c.agent).await;
        assert!(
            matches!(negotiated, acp_client::v2::Negotiated::V1(_)),
            "{transport}: {negotiated:?}"
        );
        let session = within(
            "session/new",
            c.agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
        )
        .await
        .expect("session/new")
        .session_id;
        let done = within(
            "the prompt",
            c.agent
                .prompt(PromptRequest::new(session, vec!["hello".into()])),
        )
        .await
        .expect("the turn ends");
        assert_eq!(done.stop_reason, StopReason::EndTurn, "{transport}");
        c.close().await;
        server.finish(3).await;
    }
}
