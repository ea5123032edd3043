//! The draft (unstable) protocol features end to end (`--features unstable`): a real agent and
//! a real client, every message on the wire checked against the official draft schema
//! (`schema.unstable.json`).
//!
//! Session fork, LLM providers, plan operations (with compaction, notices and tool call names,
//! stable since November 2026, in the same prompt), end-of-turn token usage, and the capability
//! gates of both sides. (MCP over ACP takes the November draft's request-scoped `mcp/message`
//! shape with the draft groups of issue 21; its end-to-end test comes with it.)

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
                .mcp_capabilities(McpCapabilities::new().acp(true));
        }
        Ok(InitializeResponse::new(ProtocolVersion::V1).agent_capabilities(caps))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new("s-1"))
    }

    async fn prompt(
        &self,
        r: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
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
}

/// The editor: records every session update.
struct DraftClient {
    updates: Arc<Mutex<Vec<SessionUpdate>>>,
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
}

struct Ends {
    agent: AgentHandle,
    log: Log,
    updates: Arc<Mutex<Vec<SessionUpdate>>>,
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
        move |_| DraftAgent {
            log: agent_log,
            advertise,
        },
        TapRead::new(agent_read, wire.clone(), Direction::ClientToAgent),
        agent_write,
        AgentOptions::default(),
    );
    let updates = Arc::new(Mutex::new(Vec::new()));
    let client_updates = updates.clone();
    // Closing the client's writer ends both sides: the agent sees the end of its input.
    let (client_write, hangup): (HangupWrite<_>, _) = hangup_writer(client_write);
    let (agent, client_driver) = acp_client::connect(
        move |_| DraftClient {
            updates: client_updates,
        },
        TapRead::new(client_read, wire.clone(), Direction::AgentToClient),
        client_write,
        client_options,
    );
    Ends {
        agent,
        log,
        updates,
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
