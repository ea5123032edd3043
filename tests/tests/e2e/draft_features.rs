//! The draft (unstable) protocol features end to end (`--features unstable`): a real agent and
//! a real client, every message on the wire checked against the official draft schema
//! (`schema.unstable.json`).
//!
//! Session fork, LLM providers, next-edit suggestions with document events, MCP over ACP both
//! ways, the new session updates (plan operations, compaction, notices, tool call names),
//! end-of-turn token usage, and the capability gates of both sides.

#![cfg(feature = "unstable")]

use std::sync::{Arc, Mutex};

use acp_agent::{Agent, AgentOptions, ClientHandle, PromptContext};
use acp_client::{AgentHandle, Client, ClientOptions};
use acp_codec::Framing;
use acp_e2e::wire::{Hangup, HangupWrite, TapRead, hangup_writer};
use acp_e2e::{Checker, Direction, Wire, within};
use acp_testkit::Spec;
use acp_types::*;
use serde_json::{Value, json};

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
    client: ClientHandle,
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
                .mcp_capabilities(McpCapabilities::new().acp(true))
                .nes(
                    NesCapabilities::new().events(
                        NesEventCapabilities::new().document(
                            NesDocumentEventCapabilities::new()
                                .did_open(NesDocumentDidOpenCapabilities::new()),
                        ),
                    ),
                )
                .position_encoding(PositionEncodingKind::Utf16);
        }
        Ok(InitializeResponse::new(ProtocolVersion::V1).agent_capabilities(caps))
    }

    async fn new_session(&self, r: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        // MCP over ACP: connect to the server the client offered, call it, then disconnect.
        for server in &r.mcp_servers {
            if let McpServer::Acp(server) = server {
                let connection = self
                    .client
                    .connect_mcp(ConnectMcpRequest::new(server.server_id.clone()))
                    .await?
                    .connection_id;
                let result = self
                    .client
                    .message_mcp(MessageMcpRequest::new(connection.clone(), "tools/list"))
                    .await?;
                let tools: Value = result.parse().map_err(ErrorObject::internal_error)?;
                self.log.lock().unwrap().push(format!("mcp result {tools}"));
                self.client
                    .message_mcp_notification(MessageMcpNotification::new(
                        connection.clone(),
                        "notifications/initialized",
                    ))
                    .await?;
                self.client
                    .disconnect_mcp(DisconnectMcpRequest::new(connection))
                    .await?;
            }
        }
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
        cx.notice(NoticeSeverity::Warning, "Rate limited").await?;
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

    async fn start_nes(&self, _: StartNesRequest) -> Result<StartNesResponse, ErrorObject> {
        Ok(StartNesResponse::new("nes-1"))
    }

    async fn suggest_nes(&self, r: SuggestNesRequest) -> Result<SuggestNesResponse, ErrorObject> {
        let edit = NesTextEdit::new(Range::new(r.position.clone(), r.position.clone()), "x");
        Ok(SuggestNesResponse::new(vec![NesSuggestion::Edit(
            NesEditSuggestion::new("sug-1", r.uri, vec![edit]),
        )]))
    }

    async fn close_nes(&self, _: CloseNesRequest) -> Result<CloseNesResponse, ErrorObject> {
        Ok(CloseNesResponse::new())
    }

    async fn accept_nes(&self, n: AcceptNesNotification) -> Result<(), ErrorObject> {
        self.log.lock().unwrap().push(format!("accept {}", n.id));
        Ok(())
    }

    async fn did_open_document(&self, n: DidOpenDocumentNotification) -> Result<(), ErrorObject> {
        self.log.lock().unwrap().push(format!("open {}", n.uri));
        Ok(())
    }

    async fn message_mcp(&self, r: MessageMcpRequest) -> Result<MessageMcpResponse, ErrorObject> {
        MessageMcpResponse::new(&json!({ "echo": r.method })).map_err(ErrorObject::internal_error)
    }
}

/// The editor: serves its MCP server over ACP and records every session update.
struct DraftClient {
    updates: Arc<Mutex<Vec<SessionUpdate>>>,
    mcp: Log,
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

    async fn connect_mcp(&self, r: ConnectMcpRequest) -> Result<ConnectMcpResponse, ErrorObject> {
        self.mcp
            .lock()
            .unwrap()
            .push(format!("connect {}", r.server_id));
        Ok(ConnectMcpResponse::new("conn-1"))
    }

    async fn message_mcp(&self, r: MessageMcpRequest) -> Result<MessageMcpResponse, ErrorObject> {
        self.mcp
            .lock()
            .unwrap()
            .push(format!("request {}", r.method));
        MessageMcpResponse::new(&json!({ "tools": [{ "name": "grep" }] }))
            .map_err(ErrorObject::internal_error)
    }

    async fn message_mcp_notification(&self, n: MessageMcpNotification) -> Result<(), ErrorObject> {
        self.mcp
            .lock()
            .unwrap()
            .push(format!("notification {}", n.method));
        Ok(())
    }

    async fn disconnect_mcp(
        &self,
        r: DisconnectMcpRequest,
    ) -> Result<DisconnectMcpResponse, ErrorObject> {
        self.mcp
            .lock()
            .unwrap()
            .push(format!("disconnect {}", r.connection_id));
        Ok(DisconnectMcpResponse::new())
    }
}

struct Ends {
    agent: AgentHandle,
    /// The agent's handle to call the client, for calls the [`DraftAgent`] does not make.
    client: ClientHandle,
    log: Log,
    mcp: Log,
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
    let (client, agent_driver) = acp_agent::serve(
        move |client| DraftAgent {
            client,
            log: agent_log,
            advertise,
        },
        TapRead::new(agent_read, wire.clone(), Direction::ClientToAgent),
        agent_write,
        AgentOptions::default(),
    );
    let mcp = Log::default();
    let updates = Arc::new(Mutex::new(Vec::new()));
    let (client_mcp, client_updates) = (mcp.clone(), updates.clone());
    // Closing the client's writer ends both sides: the agent sees the end of its input.
    let (client_write, hangup): (HangupWrite<_>, _) = hangup_writer(client_write);
    let (agent, client_driver) = acp_client::connect(
        move |_| DraftClient {
            updates: client_updates,
            mcp: client_mcp,
        },
        TapRead::new(client_read, wire.clone(), Direction::AgentToClient),
        client_write,
        client_options,
    );
    Ends {
        agent,
        client,
        log,
        mcp,
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
        .session(ClientSessionCapabilities::new().compaction(CompactionCapabilities::new()))
        .nes(ClientNesCapabilities::new())
        .position_encodings(vec![PositionEncodingKind::Utf16])
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

    // MCP over ACP, agent to client, while the session is created.
    let server = McpServer::Acp(McpServerAcp::new("editor", "srv-1"));
    let session = within(
        "session/new",
        agent.new_session(NewSessionRequest::new("/w", vec![server])),
    )
    .await
    .expect("session/new")
    .session_id;
    assert_eq!(
        *ends.mcp.lock().unwrap(),
        [
            "connect srv-1",
            "request tools/list",
            "notification notifications/initialized",
            "disconnect conn-1"
        ]
    );
    assert_eq!(
        ends.log.lock().unwrap()[0],
        r#"mcp result {"tools":[{"name":"grep"}]}"#
    );

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

    // NES, with the document events the agent asked for.
    let nes = agent
        .start_nes(StartNesRequest::new())
        .await
        .expect("nes/start")
        .session_id;
    agent
        .did_open_document(DidOpenDocumentNotification::new(
            nes.clone(),
            "file:///a.rs",
            "rust",
            1,
            "fn a() {}",
        ))
        .await
        .expect("document/didOpen");
    // The agent did not ask for `didSave`: the call fails locally.
    let refused = agent
        .did_save_document(DidSaveDocumentNotification::new(
            nes.clone(),
            "file:///a.rs",
        ))
        .await;
    assert!(matches!(
        refused,
        Err(acp_client::Error::CapabilityNotAdvertised {
            capability: "nes.events.document.didSave",
            ..
        })
    ));
    let suggestions = agent
        .suggest_nes(SuggestNesRequest::new(
            nes.clone(),
            "file:///a.rs",
            1,
            Position::new(0, 3),
            NesTriggerKind::Manual,
        ))
        .await
        .expect("nes/suggest")
        .suggestions;
    let NesSuggestion::Edit(edit) = &suggestions[0] else {
        panic!("not an edit")
    };
    agent
        .accept_nes(AcceptNesNotification::new(nes.clone(), edit.id.clone()))
        .await
        .expect("nes/accept");
    agent
        .close_nes(CloseNesRequest::new(nes))
        .await
        .expect("nes/close");

    // MCP over ACP, client to agent, on a connection the agent opened.
    let connection = ends
        .client
        .connect_mcp(ConnectMcpRequest::new("srv-1"))
        .await
        .expect("mcp/connect")
        .connection_id;
    let echoed = agent
        .message_mcp(MessageMcpRequest::new(connection, "ping"))
        .await
        .expect("mcp/message");
    assert_eq!(echoed.parse::<Value>().unwrap(), json!({ "echo": "ping" }));

    let log = ends.log.lock().unwrap().clone();
    assert_eq!(
        log[1..],
        [
            "set main https://gw.example",
            "disable main",
            "open file:///a.rs",
            "accept sug-1"
        ]
    );
    ends.shutdown(32).await;
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
            ends.agent.start_nes(StartNesRequest::new()).await.map(drop),
            "nes",
        ),
        (
            ends.agent
                .message_mcp(MessageMcpRequest::new("c", "ping"))
                .await
                .map(drop),
            "mcpCapabilities.acp",
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
    // Notifications of features the agent did not advertise are dropped before it sees them.
    ends.agent
        .accept_nes(AcceptNesNotification::new("nes-1", "sug-1"))
        .await
        .expect("sent");
    ends.agent
        .did_open_document(DidOpenDocumentNotification::new(
            "nes-1",
            "file:///a.rs",
            "rust",
            1,
            "fn a() {}",
        ))
        .await
        .expect("sent");
    // A round trip after them: both were read by the agent before its answer.
    ends.agent
        .new_session(NewSessionRequest::new("/", Vec::<McpServer>::new()))
        .await
        .expect("session/new");
    let log = ends.log.clone();
    ends.shutdown(12).await;
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
    // No compaction updates either: the client did not advertise `session.compaction`.
    assert_eq!(tags, ["plan", "notice", "tool_call"]);
    ends.shutdown(8).await;
}

/// The code and `data` of the client's answer to a call the agent made.
fn refusal<T: std::fmt::Debug>(answer: Result<T, acp_agent::Error>) -> (ErrorCode, Value) {
    let error = answer
        .expect_err("refused")
        .remote()
        .cloned()
        .expect("an answer");
    (error.code, error.data.unwrap_or_default())
}

#[tokio::test(flavor = "current_thread")]
async fn the_agent_reaches_only_the_mcp_servers_and_connections_the_client_gave_it() {
    let ends = start(true, ClientOptions::default());
    ends.agent
        .initialize(InitializeRequest::new(ProtocolVersion::V1))
        .await
        .expect("initialize");
    let client = &ends.client;

    // Before any session offered it, no server can be reached.
    let refused = client.connect_mcp(ConnectMcpRequest::new("srv-1")).await;
    assert_eq!(
        refusal(refused),
        (
            ErrorCode::RESOURCE_NOT_FOUND,
            json!({ "serverId": "srv-1" })
        )
    );
    // The session offers `srv-1`: the agent connects, calls it and disconnects (`conn-1`).
    let server = McpServer::Acp(McpServerAcp::new("editor", "srv-1"));
    ends.agent
        .new_session(NewSessionRequest::new("/w", vec![server]))
        .await
        .expect("session/new");
    // Another server id, and the connection closed by the agent, are refused.
    let refused = client.connect_mcp(ConnectMcpRequest::new("srv-2")).await;
    assert_eq!(
        refusal(refused),
        (
            ErrorCode::RESOURCE_NOT_FOUND,
            json!({ "serverId": "srv-2" })
        )
    );
    for refused in [
        client
            .message_mcp(MessageMcpRequest::new("conn-1", "tools/list"))
            .await
            .map(drop),
        client
            .disconnect_mcp(DisconnectMcpRequest::new("conn-1"))
            .await
            .map(drop),
    ] {
        assert_eq!(
            refusal(refused),
            (
                ErrorCode::RESOURCE_NOT_FOUND,
                json!({ "connectionId": "conn-1" })
            )
        );
    }
    // A notification on a closed connection is dropped, never shown to the editor.
    client
        .message_mcp_notification(MessageMcpNotification::new("conn-1", "notifications/late"))
        .await
        .expect("sent");
    // Reconnecting to the offered server opens the connection again.
    let connection = client
        .connect_mcp(ConnectMcpRequest::new("srv-1"))
        .await
        .expect("mcp/connect")
        .connection_id;
    client
        .message_mcp(MessageMcpRequest::new(connection, "tools/list"))
        .await
        .expect("mcp/message");
    // The agent's side: the client's MCP messages only on a connection the agent has open.
    let refused = ends
        .agent
        .message_mcp(MessageMcpRequest::new("conn-7", "sampling/createMessage"))
        .await
        .expect_err("refused")
        .remote()
        .cloned()
        .expect("an answer");
    assert_eq!(
        (refused.code, refused.data),
        (
            ErrorCode::RESOURCE_NOT_FOUND,
            Some(json!({ "connectionId": "conn-7" }))
        )
    );
    let mcp = ends.mcp.clone();
    ends.shutdown(14).await;
    assert_eq!(
        *mcp.lock().unwrap(),
        [
            "connect srv-1",
            "request tools/list",
            "notification notifications/initialized",
            "disconnect conn-1",
            "connect srv-1",
            "request tools/list"
        ]
    );

    // With `refuse_unadvertised` off, the editor sees everything.
    let mut options = ClientOptions::default();
    options.refuse_unadvertised = false;
    let ends = start(true, options);
    ends.agent
        .initialize(InitializeRequest::new(ProtocolVersion::V1))
        .await
        .expect("initialize");
    ends.client
        .connect_mcp(ConnectMcpRequest::new("srv-2"))
        .await
        .expect("mcp/connect");
    let mcp = ends.mcp.clone();
    ends.shutdown(4).await;
    assert_eq!(*mcp.lock().unwrap(), ["connect srv-2"]);
}
