//! The draft (unstable) protocol features end to end (`--features unstable`): a real agent and
//! a real client, every message on the wire checked against the official draft schema
//! (`schema.unstable.json`).
//!
//! Session fork, LLM providers, plan operations (with compaction, notices and tool call names,
//! stable since November 2026, in the same prompt), end-of-turn token usage, the November
//! groups (auth status, session archive, status and title, system prompts, subagent updates,
//! request-scoped MCP over ACP), and the capability gates of both sides.

#![cfg(feature = "unstable")]

use std::sync::{Arc, Mutex};

use acp_agent::{Agent, AgentOptions, PromptContext};
use acp_client::{AgentHandle, Client, ClientOptions};
use acp_codec::Framing;
use acp_e2e::wire::{Hangup, HangupWrite, TapRead, hangup_writer};
use acp_e2e::{Checker, Direction, Wire, within};
use acp_testkit::Spec;
use acp_types::*;
use serde_json::Value;

/// Checks each message against the official draft schema, as `common::checker` does against
/// the stable one.
fn draft_checker() -> Checker {
    let spec = Spec::load_unstable();
    Arc::new(
        move |message: &Value, answers: Option<&str>| match answers {
            Some(method) if message.get("method").is_none() => spec.check_response(message, method),
            _ => spec.check_message(message),
        },
    )
}

/// What the agent saw of the client's notifications.
type Log = Arc<Mutex<Vec<String>>>;

struct DraftAgent {
    log: Log,
    advertise: bool,
    client: acp_agent::ClientHandle,
}

/// The first prompt block's text.
fn text_of(r: &PromptRequest) -> &str {
    match r.prompt.first() {
        Some(ContentBlock::Text(t)) => &t.text,
        _ => "",
    }
}

#[async_trait::async_trait]
impl Agent for DraftAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        let mut caps = AgentCapabilities::new();
        if self.advertise {
            caps = caps
                .session_capabilities(
                    SessionCapabilities::new().fork(SessionForkCapabilities::new()),
                )
                .providers(ProvidersCapabilities::new())
                .mcp_capabilities(McpCapabilities::new().acp(true))
                .auth(AgentAuthCapabilities::new().status(AuthStatusCapabilities::new()));
            let session = caps.session_capabilities.take().unwrap_or_default();
            caps = caps.session_capabilities(
                session
                    .list(SessionListCapabilities::new())
                    .archive(SessionArchiveCapabilities::new())
                    .status(SessionStatusCapabilities::new())
                    .title(SessionTitleCapabilities::new())
                    .system_prompt(SessionSystemPromptCapabilities::new()),
            );
        }
        Ok(InitializeResponse::new(ProtocolVersion::V1).agent_capabilities(caps))
    }

    async fn new_session(&self, r: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        if let Some(prompt) = &r.system_prompt {
            self.log
                .lock()
                .unwrap()
                .push(format!("system prompt {}", prompt.mode.as_str()));
        }
        Ok(NewSessionResponse::new("s-1"))
    }

    async fn prompt(
        &self,
        r: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        if text_of(&r) == "november" {
            return self.november_prompt(&cx).await;
        }
        let plan = PlanMarkdown::new("plan-1", "# Plan");
        if cx.client_supports_plan_operations() {
            cx.plan_update(PlanUpdateContent::Markdown(plan)).await?;
            cx.plan_removed("plan-1").await?;
        } else {
            // Without `plan`, the helper refuses: the agent falls back to the stable plan.
            let refused = cx.plan_update(PlanUpdateContent::Markdown(plan)).await;
            assert!(matches!(
                refused,
                Err(acp_agent::Error::CapabilityNotAdvertised { .. })
            ));
            cx.plan(["step"]).await?;
        }
        if cx.client_supports_compaction() {
            cx.compaction_update(CompactionUpdate::new("c-1", CompactionStatus::InProgress))
                .await?;
            cx.compaction_summary_chunk("c-1", "summary").await?;
            cx.compaction_update(CompactionUpdate::new("c-1", CompactionStatus::Completed))
                .await?;
        }
        if cx.client_supports_notices() {
            cx.notice(NoticeSeverity::Warning, "Rate limited").await?;
        }
        cx.start_tool_call(ToolCall::new("call-1", "Read a file").name("read"))
            .await?;
        let usage = Usage::new(15, 10, 5).thought_tokens(2u64);
        let _ = r;
        Ok(PromptResponse::new(StopReason::EndTurn).usage(usage))
    }

    async fn fork_session(
        &self,
        r: ForkSessionRequest,
    ) -> Result<ForkSessionResponse, ErrorObject> {
        Ok(ForkSessionResponse::new(format!("{}-fork", r.session_id)))
    }

    async fn list_providers(
        &self,
        _: ListProvidersRequest,
    ) -> Result<ListProvidersResponse, ErrorObject> {
        Ok(ListProvidersResponse::new(vec![
            ProviderInfo::new(
                "main",
                vec![LlmProtocol::Anthropic, LlmProtocol::from("gemini")],
                true,
            )
            .current(ProviderCurrentConfig::new(
                LlmProtocol::Anthropic,
                "https://api.example",
            )),
        ]))
    }

    async fn set_provider(
        &self,
        r: SetProviderRequest,
    ) -> Result<SetProviderResponse, ErrorObject> {
        self.log
            .lock()
            .unwrap()
            .push(format!("set {} {}", r.provider_id, r.base_url));
        Ok(SetProviderResponse::new())
    }

    async fn disable_provider(
        &self,
        r: DisableProviderRequest,
    ) -> Result<DisableProviderResponse, ErrorObject> {
        self.log
            .lock()
            .unwrap()
            .push(format!("disable {}", r.provider_id));
        Ok(DisableProviderResponse::new())
    }

    async fn auth_status(&self, _: AuthStatusRequest) -> Result<AuthStatusResponse, ErrorObject> {
        Ok(AuthStatusResponse::new(AuthState::Authenticated)
            .accounts(vec![AuthAccount::new("Team key").active(true)]))
    }

    async fn archive_session(
        &self,
        r: ArchiveSessionRequest,
    ) -> Result<ArchiveSessionResponse, ErrorObject> {
        self.log
            .lock()
            .unwrap()
            .push(format!("archive {}", r.session_id));
        Ok(ArchiveSessionResponse::new())
    }

    async fn unarchive_session(
        &self,
        r: UnarchiveSessionRequest,
    ) -> Result<UnarchiveSessionResponse, ErrorObject> {
        self.log
            .lock()
            .unwrap()
            .push(format!("unarchive {}", r.session_id));
        Ok(UnarchiveSessionResponse::new())
    }

    async fn session_status(
        &self,
        r: SessionStatusRequest,
    ) -> Result<SessionStatusResponse, ErrorObject> {
        if r.session_id.as_str() == "s-1" {
            Ok(SessionStatusResponse::new(SessionStatus::Open))
        } else {
            Err(ErrorObject::session_not_found(r.session_id.as_str()))
        }
    }

    async fn set_session_title(
        &self,
        r: SetSessionTitleRequest,
    ) -> Result<SetSessionTitleResponse, ErrorObject> {
        // The agent normalizes the title it stores.
        Ok(SetSessionTitleResponse::new(r.title.trim()))
    }

    async fn message_mcp_notification(&self, n: MessageMcpNotification) -> Result<(), ErrorObject> {
        self.log
            .lock()
            .unwrap()
            .push(format!("mcp {} {} {}", n.server_id, n.request_id, n.method));
        Ok(())
    }
}

impl DraftAgent {
    /// The November groups in one turn: subagent updates (when the client advertised them),
    /// an auth status change, and an inner MCP request to the client's server.
    async fn november_prompt(&self, cx: &PromptContext) -> Result<PromptResponse, ErrorObject> {
        let failed = |e: acp_agent::Error| ErrorObject::internal_error(e.to_string());
        if cx.client_supports_subagents() {
            let idle = IdleStateUpdate::new()
                .stop_reason(StopReason::EndTurn)
                .usage(Usage::new(3, 2, 1));
            cx.subagent_update(
                SubagentUpdate::new("child-1")
                    .title("Test runner")
                    .capabilities(
                        SubagentSessionCapabilities::new().cancel(SessionCancelCapabilities::new()),
                    )
                    .state(StateUpdate::Running(RunningStateUpdate::new())),
            )
            .await?;
            cx.session_message(
                SessionMessage::new("m-1")
                    .sender_session_id("s-1")
                    .recipient_session_id("child-1"),
            )
            .await?;
            cx.session_message_chunk("m-1", "run the tests").await?;
            cx.subagent_update(SubagentUpdate::new("child-1").state(StateUpdate::Idle(idle)))
                .await?;
        } else {
            let refused = cx.subagent_update(SubagentUpdate::new("child-1")).await;
            assert!(matches!(
                refused,
                Err(acp_agent::Error::CapabilityNotAdvertised {
                    capability: "subagents",
                    ..
                })
            ));
        }
        self.client
            .auth_status_update(AuthStatusUpdateNotification::new(
                AuthState::Unauthenticated,
            ))
            .await
            .map_err(failed)?;
        let answer = self
            .client
            .message_mcp(
                MessageMcpRequest::new("srv-1", "mcp-1", "tools/call")
                    .params(serde_json::Map::from_iter([("name".into(), "grep".into())])),
            )
            .await
            .map_err(failed)?;
        let McpOutcome::Result(result) = &answer.outcome else {
            return Err(ErrorObject::internal_error("an MCP error"));
        };
        assert_eq!(
            result.get(),
            MCP_RESULT,
            "the inner result is forwarded exactly"
        );
        self.log.lock().unwrap().push("mcp result".to_owned());
        // A server the client never offered: the client refuses it, naming the server.
        let refused = self
            .client
            .message_mcp(MessageMcpRequest::new("srv-9", "mcp-2", "tools/list"))
            .await;
        let error = refused.expect_err("an unknown server");
        let error = error.remote().cloned().expect("an answer from the client");
        assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

/// The inner MCP result of the client's server, key order and spacing included.
const MCP_RESULT: &str = r#"{"content": [{"type": "text", "text": "3 hits"}], "isError": false}"#;

/// The editor: records every session update and auth status change, and provides the MCP
/// server `srv-1` over ACP.
struct DraftClient {
    updates: Arc<Mutex<Vec<SessionUpdate>>>,
    auth: Arc<Mutex<Vec<AuthState>>>,
    agent: AgentHandle,
}

#[async_trait::async_trait]
impl Client for DraftClient {
    async fn request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        Err(ErrorObject::method_not_found("session/request_permission"))
    }

    async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
        self.updates.lock().unwrap().push(n.update);
        Ok(())
    }

    async fn auth_status_update(&self, n: AuthStatusUpdateNotification) -> Result<(), ErrorObject> {
        self.auth.lock().unwrap().push(n.state);
        Ok(())
    }

    async fn message_mcp(&self, r: MessageMcpRequest) -> Result<MessageMcpResponse, ErrorObject> {
        // Progress for the active inner request, before its answer.
        let progress = MessageMcpNotification::new(
            r.server_id.clone(),
            r.request_id.clone(),
            "notifications/progress",
        );
        self.agent
            .message_mcp_notification(progress)
            .await
            .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
        // The inner result travels as raw JSON, exactly as written here.
        let result = serde_json::value::RawValue::from_string(MCP_RESULT.to_owned())
            .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
        Ok(MessageMcpResponse::result(RawJson::from_raw(result)))
    }
}

struct Ends {
    agent: AgentHandle,
    log: Log,
    updates: Arc<Mutex<Vec<SessionUpdate>>>,
    auth: Arc<Mutex<Vec<AuthState>>>,
    wire: Wire,
    hangup: Hangup<tokio::io::DuplexStream>,
    drivers: Vec<tokio::task::JoinHandle<Result<(), acp_rpc::Error>>>,
}

/// Wires a [`DraftAgent`] (advertising the draft capabilities or not) to a [`DraftClient`]
/// through a validating tap.
fn start(advertise: bool, client_options: ClientOptions) -> Ends {
    let wire = Wire::new(Framing::Ndjson, draft_checker());
    let (client_write, agent_read) = tokio::io::duplex(64 * 1024);
    let (agent_write, client_read) = tokio::io::duplex(64 * 1024);
    let log = Log::default();
    let agent_log = log.clone();
    let (_client, agent_driver) = acp_agent::serve(
        move |client| DraftAgent {
            log: agent_log,
            advertise,
            client,
        },
        TapRead::new(agent_read, wire.clone(), Direction::ClientToAgent),
        agent_write,
        AgentOptions::default(),
    );
    let updates = Arc::new(Mutex::new(Vec::new()));
    let client_updates = updates.clone();
    let auth = Arc::new(Mutex::new(Vec::new()));
    let client_auth = auth.clone();
    // Closing the client's writer ends both sides: the agent sees the end of its input.
    let (client_write, hangup): (HangupWrite<_>, _) = hangup_writer(client_write);
    let (agent, client_driver) = acp_client::connect(
        move |agent| DraftClient {
            updates: client_updates,
            auth: client_auth,
            agent,
        },
        TapRead::new(client_read, wire.clone(), Direction::AgentToClient),
        client_write,
        client_options,
    );
    Ends {
        agent,
        log,
        updates,
        auth,
        wire,
        hangup,
        drivers: vec![tokio::spawn(agent_driver), tokio::spawn(client_driver)],
    }
}

impl Ends {
    async fn shutdown(self, min_messages: usize) {
        self.hangup.hang_up();
        for driver in self.drivers {
            let ended = within("driver", driver).await;
            assert!(
                matches!(ended, Ok(Ok(()))),
                "a driver ended badly: {ended:?}"
            );
        }
        self.wire.assert_clean(min_messages);
    }
}

fn draft_client_capabilities() -> ClientCapabilities {
    ClientCapabilities::new()
        .plan(PlanCapabilities::new())
        .session(
            ClientSessionCapabilities::new()
                .compaction(CompactionCapabilities::new())
                .notices(NoticeCapabilities::new()),
        )
}

#[tokio::test(flavor = "current_thread")]
async fn every_draft_feature_works_end_to_end_and_on_the_draft_schema() {
    let ends = start(true, ClientOptions::default());
    let agent = &ends.agent;
    within(
        "initialize",
        agent.initialize(
            InitializeRequest::new(ProtocolVersion::V1)
                .client_capabilities(draft_client_capabilities()),
        ),
    )
    .await
    .expect("initialize");

    // An MCP server over ACP offered to an agent that advertised `mcpCapabilities.acp`.
    let server = McpServer::Acp(McpServerAcp::new("editor", "srv-1"));
    let session = within(
        "session/new",
        agent.new_session(NewSessionRequest::new("/w", vec![server])),
    )
    .await
    .expect("session/new")
    .session_id;

    // Fork: the fork is a session of this connection, its updates accepted.
    let fork = within(
        "session/fork",
        agent.fork_session(ForkSessionRequest::new(session.clone(), "/w")),
    )
    .await
    .expect("session/fork")
    .session_id;
    assert_eq!(fork.as_str(), "s-1-fork");
    let done = within(
        "prompt",
        agent.prompt(PromptRequest::new(fork, vec!["hi".into()])),
    )
    .await
    .expect("prompt");
    let usage = done.usage.expect("usage");
    assert_eq!((usage.total_tokens, usage.thought_tokens), (15, Some(2)));
    let tags: Vec<String> = ends
        .updates
        .lock()
        .unwrap()
        .iter()
        .map(|u| u.tag().unwrap_or("?").to_owned())
        .collect();
    assert_eq!(
        tags,
        [
            "plan_update",
            "plan_removed",
            "compaction_update",
            "compaction_summary_chunk",
            "compaction_update",
            "notice",
            "tool_call"
        ]
    );
    let SessionUpdate::ToolCall(call) = ends.updates.lock().unwrap()[6].clone() else {
        panic!("not a tool call")
    };
    assert_eq!(call.name.as_deref(), Some("read"));

    // Providers.
    let providers = agent
        .list_providers(ListProvidersRequest::new())
        .await
        .expect("providers/list");
    assert_eq!(
        providers.providers[0].supported[1],
        LlmProtocol::Other("gemini".into())
    );
    agent
        .set_provider(SetProviderRequest::new(
            "main",
            LlmProtocol::Openai,
            "https://gw.example",
        ))
        .await
        .expect("providers/set");
    agent
        .disable_provider(DisableProviderRequest::new("main"))
        .await
        .expect("providers/disable");

    let log = ends.log.lock().unwrap().clone();
    assert_eq!(log, ["set main https://gw.example", "disable main"]);
    ends.shutdown(20).await;
}

#[tokio::test(flavor = "current_thread")]
async fn draft_methods_the_agent_did_not_advertise_are_refused_on_both_sides() {
    // The client's gate: nothing is sent.
    let ends = start(false, ClientOptions::default());
    ends.agent
        .initialize(InitializeRequest::new(ProtocolVersion::V1))
        .await
        .expect("initialize");
    let refused = ends
        .agent
        .fork_session(ForkSessionRequest::new("s", "/"))
        .await;
    assert!(matches!(
        refused,
        Err(acp_client::Error::CapabilityNotAdvertised {
            capability: "sessionCapabilities.fork",
            ..
        })
    ));
    let refused = ends.agent.list_providers(ListProvidersRequest::new()).await;
    assert!(matches!(
        refused,
        Err(acp_client::Error::CapabilityNotAdvertised {
            capability: "providers",
            ..
        })
    ));
    ends.shutdown(2).await;

    // With the client's gate off, the agent refuses them itself, naming the capability.
    let mut options = ClientOptions::default();
    options.gate_agent_capabilities = false;
    let ends = start(false, options);
    ends.agent
        .initialize(InitializeRequest::new(ProtocolVersion::V1))
        .await
        .expect("initialize");
    for (call, capability) in [
        (
            ends.agent
                .fork_session(ForkSessionRequest::new("s", "/"))
                .await
                .map(drop),
            "sessionCapabilities.fork",
        ),
        (
            ends.agent
                .list_providers(ListProvidersRequest::new())
                .await
                .map(drop),
            "providers",
        ),
    ] {
        let error = call
            .expect_err("refused")
            .remote()
            .cloned()
            .expect("an answer from the agent");
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
        assert!(error.message.contains(capability), "{}", error.message);
    }
    // An MCP server over ACP for an agent without `mcpCapabilities.acp`: invalid params.
    let server = McpServer::Acp(McpServerAcp::new("editor", "srv-1"));
    let error = ends
        .agent
        .new_session(NewSessionRequest::new("/", vec![server]))
        .await
        .expect_err("refused");
    assert_eq!(
        error.remote().expect("an answer").code,
        ErrorCode::INVALID_PARAMS
    );
    // The agent's code saw none of the refused calls.
    let log = ends.log.clone();
    ends.shutdown(8).await;
    assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());
}

#[tokio::test(flavor = "current_thread")]
async fn an_agent_falls_back_to_the_stable_plan_for_a_client_without_plan_operations() {
    let ends = start(true, ClientOptions::default());
    ends.agent
        .initialize(InitializeRequest::new(ProtocolVersion::V1))
        .await
        .expect("initialize");
    let session = ends
        .agent
        .new_session(NewSessionRequest::new("/", Vec::<McpServer>::new()))
        .await
        .expect("session/new")
        .session_id;
    ends.agent
        .prompt(PromptRequest::new(session, vec!["hi".into()]))
        .await
        .expect("prompt");
    let tags: Vec<String> = ends
        .updates
        .lock()
        .unwrap()
        .iter()
        .map(|u| u.tag().unwrap_or("?").to_owned())
        .collect();
    // No compaction updates or notices either: the client advertised neither
    // `session.compaction` nor `session.notices`.
    assert_eq!(tags, ["plan", "tool_call"]);
    ends.shutdown(8).await;
}

/// Waits (bounded) until the agent's log has `entry`: a notification is handled after the
/// response that follows it on the wire may already have arrived.
async fn logged(log: &Log, entry: &str) {
    within("the agent's log", async {
        while !log.lock().unwrap().iter().any(|e| e == entry) {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_november_draft_groups_work_end_to_end_and_on_the_draft_schema() {
    let ends = start(true, ClientOptions::default());
    let agent = &ends.agent;
    let caps = ClientCapabilities::new().subagents(SubagentCapabilities::new());
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::V1).client_capabilities(caps)),
    )
    .await
    .expect("initialize");

    // Auth status.
    let status = within("auth/status", agent.auth_status(AuthStatusRequest::new()))
        .await
        .expect("auth/status");
    assert_eq!(status.state, AuthState::Authenticated);
    assert_eq!(status.accounts.expect("accounts")[0].label, "Team key");

    // A session with a system prompt (append mode, advertised) and an MCP server over ACP.
    let server = McpServer::Acp(McpServerAcp::new("editor", "srv-1"));
    let session = within(
        "session/new",
        agent.new_session(NewSessionRequest::new("/w", vec![server]).system_prompt(
            SystemPrompt::new(SystemPromptMode::Append, vec!["Be brief.".into()]),
        )),
    )
    .await
    .expect("session/new")
    .session_id;

    // Status, title, archive and unarchive.
    let status = within(
        "session/status",
        agent.session_status(SessionStatusRequest::new(session.clone())),
    )
    .await
    .expect("session/status");
    assert_eq!(status.status, SessionStatus::Open);
    let unknown = within(
        "session/status",
        agent.session_status(SessionStatusRequest::new("nope")),
    )
    .await
    .expect_err("an unknown session");
    assert_eq!(
        unknown.remote().expect("an answer").code,
        ErrorCode::RESOURCE_NOT_FOUND
    );
    let titled = within(
        "session/set_title",
        agent.set_session_title(SetSessionTitleRequest::new(session.clone(), "  Fix it ")),
    )
    .await
    .expect("session/set_title");
    assert_eq!(titled.title, "Fix it");
    within(
        "session/archive",
        agent.archive_session(ArchiveSessionRequest::new(session.clone())),
    )
    .await
    .expect("session/archive");
    within(
        "session/unarchive",
        agent.unarchive_session(UnarchiveSessionRequest::new(session.clone())),
    )
    .await
    .expect("session/unarchive");

    // One turn: subagent updates, an auth status change, an inner MCP request with its
    // progress notification.
    within(
        "prompt",
        agent.prompt(PromptRequest::new(session, vec!["november".into()])),
    )
    .await
    .expect("prompt");
    let tags: Vec<String> = ends
        .updates
        .lock()
        .unwrap()
        .iter()
        .map(|u| u.tag().unwrap_or("?").to_owned())
        .collect();
    assert_eq!(
        tags,
        [
            "subagent_update",
            "session_message",
            "session_message_chunk",
            "subagent_update"
        ]
    );
    let SessionUpdate::SubagentUpdate(last) = ends.updates.lock().unwrap()[3].clone() else {
        panic!("not a subagent update")
    };
    let Some(StateUpdate::Idle(idle)) = last.state else {
        panic!("not idle: {:?}", last.state)
    };
    assert_eq!(idle.stop_reason, Some(StopReason::EndTurn));
    assert_eq!(*ends.auth.lock().unwrap(), [AuthState::Unauthenticated]);
    logged(&ends.log, "mcp srv-1 mcp-1 notifications/progress").await;
    let mut log = ends.log.lock().unwrap().clone();
    // The notification's handler and the end of the request may finish in either order.
    log[3..].sort();
    assert_eq!(
        log,
        [
            "system prompt append",
            "archive s-1",
            "unarchive s-1",
            "mcp result",
            "mcp srv-1 mcp-1 notifications/progress",
        ],
    );
    // The inner MCP request and its notification were on the wire, in the draft's shape.
    assert_eq!(
        ends.wire
            .calls(Direction::AgentToClient, "mcp/message")
            .len(),
        2
    );
    assert_eq!(
        ends.wire
            .calls(Direction::ClientToAgent, "mcp/message")
            .len(),
        1
    );
    ends.shutdown(20).await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_november_draft_methods_not_advertised_are_refused_and_nothing_is_sent() {
    let ends = start(false, ClientOptions::default());
    let agent = &ends.agent;
    agent
        .initialize(InitializeRequest::new(ProtocolVersion::V1))
        .await
        .expect("initialize");
    let refusals = [
        (
            agent.auth_status(AuthStatusRequest::new()).await.map(drop),
            "auth.status",
        ),
        (
            agent
                .archive_session(ArchiveSessionRequest::new("s-1"))
                .await
                .map(drop),
            "sessionCapabilities.archive",
        ),
        (
            agent
                .unarchive_session(UnarchiveSessionRequest::new("s-1"))
                .await
                .map(drop),
            "sessionCapabilities.archive",
        ),
        (
            agent
                .session_status(SessionStatusRequest::new("s-1"))
                .await
                .map(drop),
            "sessionCapabilities.status",
        ),
        (
            agent
                .set_session_title(SetSessionTitleRequest::new("s-1", "t"))
                .await
                .map(drop),
            "sessionCapabilities.title",
        ),
        (
            agent
                .new_session(
                    NewSessionRequest::new("/", Vec::<McpServer>::new()).system_prompt(
                        SystemPrompt::new(SystemPromptMode::Append, vec!["x".into()]),
                    ),
                )
                .await
                .map(drop),
            "sessionCapabilities.systemPrompt",
        ),
        (
            agent
                .message_mcp_notification(MessageMcpNotification::new("srv-1", "r", "m"))
                .await,
            "mcpCapabilities.acp",
        ),
    ];
    for (result, capability) in refusals {
        match result {
            Err(acp_client::Error::CapabilityNotAdvertised {
                capability: refused,
                ..
            }) => assert_eq!(refused, capability),
            other => panic!("{capability}: not refused locally: {other:?}"),
        }
    }
    // Nothing but `initialize` went on the wire.
    let sent: Vec<String> = ends
        .wire
        .seen()
        .iter()
        .filter_map(|m| m.method().map(str::to_owned))
        .collect();
    assert_eq!(sent, ["initialize"]);
    // The agent's own gates: a status change it never advertised, updates the client never
    // advertised (checked in the turn), nothing sent.
    let session = agent
        .new_session(NewSessionRequest::new("/", Vec::<McpServer>::new()))
        .await
        .expect("session/new")
        .session_id;
    let error = agent
        .prompt(PromptRequest::new(session, vec!["november".into()]))
        .await
        .expect_err("auth/status_update without `auth.status`");
    assert!(
        error
            .remote()
            .expect("an answer")
            .message
            .contains("auth.status"),
        "{error:?}"
    );
    assert!(
        ends.wire
            .calls(Direction::AgentToClient, "auth/status_update")
            .is_empty()
    );
    assert!(ends.updates.lock().unwrap().is_empty());
    assert!(ends.auth.lock().unwrap().is_empty());
    ends.shutdown(6).await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_agent_refuses_november_draft_calls_it_did_not_advertise() {
    // With the client's gate off, the calls reach the agent, which refuses them itself.
    let mut options = ClientOptions::default();
    options.gate_agent_capabilities = false;
    let ends = start(false, options);
    let agent = &ends.agent;
    agent
        .initialize(InitializeRequest::new(ProtocolVersion::V1))
        .await
        .expect("initialize");
    for (call, capability) in [
        (
            agent.auth_status(AuthStatusRequest::new()).await.map(drop),
            "auth.status",
        ),
        (
            agent
                .archive_session(ArchiveSessionRequest::new("s-1"))
                .await
                .map(drop),
            "sessionCapabilities.archive",
        ),
        (
            agent
                .session_status(SessionStatusRequest::new("s-1"))
                .await
                .map(drop),
            "sessionCapabilities.status",
        ),
        (
            agent
                .set_session_title(SetSessionTitleRequest::new("s-1", "t"))
                .await
                .map(drop),
            "sessionCapabilities.title",
        ),
    ] {
        let error = call
            .expect_err("refused")
            .remote()
            .cloned()
            .expect("an answer from the agent");
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
        assert!(error.message.contains(capability), "{}", error.message);
    }
    // A system prompt the agent did not advertise: invalid params, no session.
    let error = agent
        .new_session(
            NewSessionRequest::new("/", Vec::<McpServer>::new()).system_prompt(SystemPrompt::new(
                SystemPromptMode::Override,
                vec!["x".into()],
            )),
        )
        .await
        .expect_err("refused");
    let error = error.remote().expect("an answer");
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("system prompt"), "{}", error.message);
    let log = ends.log.clone();
    ends.shutdown(12).await;
    assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());
}
