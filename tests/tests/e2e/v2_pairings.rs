//! Every pairing of protocol versions between our agent and our client (issue 22, "Checks"),
//! in process over tapped pipes, every message both ways checked against the official schema
//! of the version the connection negotiated:
//!
//! - a v2 client and the v1+v2 agent: the v2 prompt lifecycle end to end (acknowledgement,
//!   `running`, `requires_action` around a permission request, `idle` with the stop reason),
//!   the updates folded into one [`SessionModel`], cancellation confirmed by `idle`, and
//!   `session/resume` with replay rebuilding the model;
//! - a v1 client and the same agent: v1 unchanged;
//! - a v2 client and an agent capped at v1 (`AgentOptions::max_protocol_version`): the client
//!   falls back to v1 and the whole session is v1;
//! - a v2 client and an agent giving no `agentInfo`: v2 with the library's default `info`.
//! - a v2 client and the `e2e_agent` program as a child process over stdio: a whole v2 turn,
//!   checked from the relay's record of both directions.
//!
//! Where the official specification is absent outside CI, `acp-testkit` validates against the
//! repository's generated schemas instead (with a notice), as the other end-to-end tests do.

#![cfg(feature = "unstable_protocol_v2")]

use std::sync::{Arc, Mutex, PoisonError};

use acp_agent::{AgentOptions, ClientHandle, PromptContext};
use acp_client::model::{MessageRole, SessionModel, TurnState};
use acp_client::{AgentHandle, ClientOptions};
use acp_codec::Framing;
use acp_e2e::wire::{TapRead, hangup_writer};
use acp_e2e::{AgentConfig, Checker, Direction, PIPE_BYTES, ScriptedAgent, Wire, script, within};
use acp_testkit::Spec;
use acp_types::*;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// The specification of protocol `version` (1 or 2).
pub(crate) fn spec(version: u16) -> &'static Spec {
    if version == 2 {
        Spec::load_v2()
    } else {
        Spec::load()
    }
}

/// Checks every message against the schema of `version`, the version the test expects the
/// connection to negotiate; the `initialize` answer must say that version. A client that
/// negotiates (`negotiating`) sends an `initialize` a v1 agent reads too: that request is
/// checked against both schemas.
pub(crate) fn checker(version: u16, negotiating: bool) -> Checker {
    Arc::new(move |message: &Value, answers: Option<&str>| {
        if message.get("method").is_none()
            && let Some(method) = answers
        {
            if method == "initialize"
                && let Some(result) = message.get("result")
                && result["protocolVersion"].as_u64() != Some(u64::from(version))
            {
                return Err(format!(
                    "the agent negotiated {}, the test expects {version}",
                    result["protocolVersion"]
                ));
            }
            return spec(version).check_response(message, method);
        }
        if negotiating && message["method"] == "initialize" {
            spec(1).check_message(message)?;
        }
        spec(version).check_message(message)
    })
}

/// A permission request of a v2 agent handed to the test, with where its answer goes.
type AskedV2 = (
    v2::RequestPermissionRequest,
    oneshot::Sender<v2::RequestPermissionResponse>,
);

/// The test's editor: one [`SessionModel`] per connection (the tests use one session) fed by
/// the updates of either version; permission requests answered `allow` at once, or handed to
/// the test.
#[derive(Default)]
pub(crate) struct Editor {
    model: Mutex<SessionModel>,
    errors: Mutex<Vec<String>>,
    /// The model's turn state when each v2 permission request arrived.
    states_at_permission: Mutex<Vec<TurnState>>,
    /// Where v2 permission requests go, when the test answers them.
    asks: Option<mpsc::UnboundedSender<AskedV2>>,
}

impl Editor {
    pub(crate) fn model(&self) -> std::sync::MutexGuard<'_, SessionModel> {
        self.model.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn record(&self, result: Result<(), acp_client::model::ModelError>) {
        if let Err(e) = result {
            self.errors
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(e.to_string());
        }
    }

    pub(crate) fn assert_no_model_errors(&self) {
        let errors = self.errors.lock().unwrap_or_else(PoisonError::into_inner);
        assert!(errors.is_empty(), "updates the model refused: {errors:?}");
    }
}

#[acp_client::async_trait]
impl acp_client::Client for Editor {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        Ok(RequestPermissionResponse::selected(
            request.options[0].option_id.clone(),
        ))
    }

    async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
        let result = self.model().apply_v1(n.update);
        self.record(result);
        Ok(())
    }

    async fn session_notification_v2(
        &self,
        n: v2::UpdateSessionNotification,
    ) -> Result<(), ErrorObject> {
        let result = self.model().apply_v2(n.update);
        self.record(result);
        Ok(())
    }

    async fn request_permission_v2(
        &self,
        request: v2::RequestPermissionRequest,
    ) -> Result<v2::RequestPermissionResponse, ErrorObject> {
        let state = {
            let mut model = self.model();
            model.apply_permission_request(&request);
            model.state().clone()
        };
        self.states_at_permission
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(state);
        let Some(asks) = &self.asks else {
            return Ok(v2::RequestPermissionResponse::new(
                v2::SelectedPermissionOutcome::new(request.options[0].option_id.clone()),
            ));
        };
        let (tx, rx) = oneshot::channel();
        asks.send((request, tx))
            .map_err(|_| ErrorObject::internal_error("the test stopped taking permissions"))?;
        rx.await
            .map_err(|_| ErrorObject::internal_error("the test dropped the permission request"))
    }
}

/// Our agent and our client over tapped in-memory pipes.
pub(crate) struct Pair {
    pub(crate) agent: AgentHandle,
    pub(crate) editor: Arc<Editor>,
    pub(crate) wire: Wire,
    agent_driver: JoinHandle<Result<(), acp_rpc::Error>>,
    client_driver: JoinHandle<Result<(), acp_rpc::Error>>,
    hangup: acp_e2e::wire::Hangup<tokio::io::DuplexStream>,
}

impl Pair {
    /// Serves `make(client)` with `options`, the editor with `editor`, checked by `check`.
    pub(crate) fn start<A: acp_agent::Agent>(
        make: impl FnOnce(ClientHandle) -> A,
        options: AgentOptions,
        editor: Editor,
        check: Checker,
    ) -> Self {
        let wire = Wire::new(Framing::Ndjson, check);
        let (client_out, agent_in) = tokio::io::duplex(PIPE_BYTES);
        let (agent_out, client_in) = tokio::io::duplex(PIPE_BYTES);
        let (client_out, hangup) = hangup_writer(client_out);
        let agent_in = TapRead::new(agent_in, wire.clone(), Direction::ClientToAgent);
        let client_in = TapRead::new(client_in, wire.clone(), Direction::AgentToClient);
        let (_client, agent_driver) = acp_agent::serve(make, agent_in, agent_out, options);
        let editor = Arc::new(editor);
        let connected = editor.clone();
        let (agent, client_driver) = acp_client::connect(
            move |_| connected,
            client_in,
            client_out,
            ClientOptions::default(),
        );
        Self {
            agent,
            editor,
            wire,
            agent_driver: tokio::spawn(agent_driver),
            client_driver: tokio::spawn(client_driver),
            hangup,
        }
    }

    /// The scripted agent of the end-to-end tests (advertising everything) with `options`.
    fn scripted(options: AgentOptions, editor: Editor, check: Checker) -> Self {
        let mut config = AgentConfig::full();
        config.crash = Arc::new(|| {});
        Self::start(
            |client| ScriptedAgent::new(client, config),
            options,
            editor,
            check,
        )
    }

    /// Negotiates as a v2 client does (see [`negotiate`]).
    async fn negotiate(&self) -> acp_client::v2::Negotiated {
        negotiate(&self.agent).await
    }

    /// Negotiates v2 and opens a session (see [`v2_session`]).
    pub(crate) async fn v2_session(&self) -> (acp_client::v2::AgentHandle, SessionId) {
        v2_session(&self.agent).await
    }

    /// Negotiates v2 and resumes `session` with its whole history replayed.
    async fn resume_with_replay(&self, session: SessionId) {
        self.negotiate().await;
        let v2 = self.agent.v2().expect("a v2 connection");
        let mut request = v2::ResumeSessionRequest::new(session, "/work");
        request.replay_from = Some(v2::ReplayFrom::from(v2::ReplayFromStart::new()));
        within("session/resume", v2.resume_session(request))
            .await
            .expect("resumed");
    }

    /// Opens a session through the v1 surface and runs a prompt of `text` in it to its end.
    pub(crate) async fn v1_turn(&self, text: &str) -> PromptResponse {
        let session = within(
            "session/new",
            self.agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
        )
        .await
        .expect("session/new succeeds")
        .session_id;
        within(
            "the prompt",
            self.agent
                .prompt(PromptRequest::new(session, vec![text.into()])),
        )
        .await
        .expect("the turn ends")
    }

    /// The agent-to-client `state_update` states, in order.
    fn states(&self) -> Vec<String> {
        self.wire
            .calls(Direction::AgentToClient, "session/update")
            .iter()
            .filter(|m| m["params"]["update"]["sessionUpdate"] == "state_update")
            .map(|m| {
                m["params"]["update"]["state"]
                    .as_str()
                    .unwrap_or("?")
                    .to_owned()
            })
            .collect()
    }

    /// Hangs up; both drivers end cleanly and the wire was clean (at least `min` messages).
    pub(crate) async fn shutdown(self, min: usize) -> Wire {
        self.editor.assert_no_model_errors();
        self.hangup.hang_up();
        let agent = within("the agent's driver", self.agent_driver).await;
        let client = within("the client's driver", self.client_driver).await;
        assert!(
            matches!(agent, Ok(Ok(()))),
            "the agent ended badly: {agent:?}"
        );
        assert!(
            matches!(client, Ok(Ok(()))),
            "the client ended badly: {client:?}"
        );
        self.wire.assert_clean(min);
        self.wire
    }
}

/// Negotiates as a v2 client does: v2 asked, v1 as the fallback.
pub(crate) async fn negotiate(agent: &AgentHandle) -> acp_client::v2::Negotiated {
    let mut v2_request = v2::InitializeRequest::new(2u16, Implementation::new("e2e", "0.1.0"));
    v2_request.capabilities = Some(v2::ClientCapabilities::new());
    let v1_fallback = InitializeRequest::new(ProtocolVersion::V1)
        .client_info(Implementation::new("e2e", "0.1.0"));
    within("negotiate", agent.negotiate(v2_request, v1_fallback))
        .await
        .expect("initialize succeeds")
}

/// Negotiates v2 (which the agent must take) and opens a session: the v2 handle and the
/// session.
pub(crate) async fn v2_session(agent: &AgentHandle) -> (acp_client::v2::AgentHandle, SessionId) {
    let negotiated = negotiate(agent).await;
    assert_eq!(negotiated.protocol_version(), ProtocolVersion(2));
    let v2 = agent.v2().expect("a v2 connection");
    let session = within(
        "session/new",
        v2.new_session(v2::NewSessionRequest::new("/work")),
    )
    .await
    .expect("session/new succeeds")
    .session_id;
    (v2, session)
}

/// A v2 text prompt.
pub(crate) fn v2_prompt(session: &SessionId, text: &str) -> v2::PromptRequest {
    v2::PromptRequest::new(session.clone(), vec![v2::ContentBlock::from(text)])
}

/// What an editor renders of a model, ids left out: who said what, each tool call's title,
/// kind and status, each plan's entries.
pub(crate) fn rendered(
    model: &SessionModel,
) -> (Vec<(MessageRole, String)>, Vec<String>, Vec<usize>) {
    let messages = model
        .messages()
        .iter()
        .map(|m| (m.role, m.text()))
        .collect();
    let calls = model
        .tool_calls()
        .iter()
        .map(|c| format!("{} {:?} {:?} {:?}", c.id, c.title, c.kind, c.status))
        .collect();
    let plans = model.plans().iter().map(|p| p.entries.len()).collect();
    (messages, calls, plans)
}

#[tokio::test]
async fn a_v2_client_runs_a_whole_prompt_lifecycle_with_the_v1_v2_agent() {
    let pair = Pair::scripted(AgentOptions::default(), Editor::default(), checker(2, true));
    let (v2, session) = pair.v2_session().await;
    let info = v2.initialize_response().info.clone();
    assert_eq!(info.name, "e2e-agent", "the agent's own agentInfo");

    let end = within(
        "the prompt",
        v2.prompt(v2_prompt(&session, script::STREAM_ALL_UPDATES)),
    )
    .await
    .expect("the turn ends");
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn), "{end:?}");

    {
        let model = pair.editor.model();
        assert_eq!(
            model.state(),
            &TurnState::Idle(Some(v2::StopReason::EndTurn)),
            "the model ends at idle"
        );
        // The user message is the one the acknowledgement named.
        let user = model
            .message(&end.message_id)
            .expect("the acknowledged user message is in the model");
        assert_eq!(user.role, MessageRole::User);
        assert_eq!(user.text(), script::STREAM_ALL_UPDATES);
        assert!(
            model
                .messages()
                .iter()
                .any(|m| m.role == MessageRole::Agent && !m.text().is_empty()),
            "agent text landed: {:?}",
            model.messages()
        );
        assert!(
            model
                .messages()
                .iter()
                .any(|m| m.role == MessageRole::Thought),
            "the thought landed"
        );
        assert!(!model.tool_calls().is_empty(), "the tool call landed");
        assert!(
            model.plans().iter().any(|p| !p.entries.is_empty()),
            "the plan landed"
        );
        assert!(model.usage().is_some(), "the usage landed");
        assert_eq!(model.title(), Some("E2E session"));
    }

    // On the wire: the acknowledgement first, then the turn, `running` ... `idle`.
    let seen = pair.wire.seen();
    let prompt_id = seen
        .iter()
        .find(|s| s.direction == Direction::ClientToAgent && s.is("session/prompt"))
        .and_then(|s| s.message.get("id").cloned())
        .expect("the prompt went out");
    let ack = seen
        .iter()
        .position(|s| {
            s.direction == Direction::AgentToClient
                && s.method().is_none()
                && s.message.get("id") == Some(&prompt_id)
        })
        .expect("the prompt was acknowledged");
    let first_update = seen
        .iter()
        .position(|s| s.direction == Direction::AgentToClient && s.is("session/update"))
        .expect("updates");
    assert!(ack < first_update, "the acknowledgement precedes the turn");
    assert_eq!(
        seen[first_update].message["params"]["update"]["sessionUpdate"], "user_message",
        "the turn opens with the user message"
    );
    assert_eq!(
        seen[first_update].message["params"]["update"]["messageId"],
        Value::from(end.message_id.as_str())
    );
    assert_eq!(pair.states(), ["running", "idle"]);
    let wire = pair.shutdown(8).await;
    // No v1-only shape went out on a v2 connection.
    for s in wire.seen() {
        let kind = &s.message["params"]["update"]["sessionUpdate"];
        assert!(
            kind != "tool_call" && kind != "plan" && kind != "current_mode_update",
            "a v1 update on a v2 connection: {}",
            s.message
        );
    }
}

#[tokio::test]
async fn a_v2_permission_request_comes_during_requires_action_and_the_turn_goes_on() {
    let (tx, mut asks) = mpsc::unbounded_channel();
    let editor = Editor {
        asks: Some(tx),
        ..Editor::default()
    };
    let pair = Pair::scripted(AgentOptions::default(), editor, checker(2, true));
    let (v2, session) = pair.v2_session().await;
    let turn = {
        let v2 = v2.clone();
        let request = v2_prompt(&session, script::ASK_PERMISSION);
        tokio::spawn(async move { v2.prompt(request).await })
    };
    let (asked, answer) = within("the permission request", asks.recv())
        .await
        .expect("asked");
    assert!(
        matches!(
            &asked.subject,
            Some(v2::RequestPermissionSubject::ToolCall(_))
        ),
        "the tool call is the subject: {:?}",
        asked.subject
    );
    assert_eq!(asked.title, "Write notes.txt");
    assert_eq!(
        pair.editor
            .states_at_permission
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_slice(),
        [TurnState::RequiresAction],
        "the model was in requires_action when the request arrived"
    );
    assert!(!turn.is_finished(), "the turn waits for the user");
    answer
        .send(v2::RequestPermissionResponse::new(
            v2::SelectedPermissionOutcome::new("allow"),
        ))
        .expect("the editor waits for the answer");
    let end = within("the turn", turn)
        .await
        .expect("no panic")
        .expect("the turn ends");
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
    {
        let model = pair.editor.model();
        let call = model
            .tool_call(&ToolCallId::from("call-perm"))
            .expect("the tool call is in the model");
        assert_eq!(call.status, v2::ToolCallStatus::Completed, "{call:?}");
        assert!(
            model
                .messages()
                .iter()
                .any(|m| m.text() == "permission: selected allow"),
            "{:?}",
            model.messages()
        );
    }
    assert_eq!(
        pair.states(),
        ["running", "requires_action", "running", "idle"]
    );
    pair.shutdown(8).await;
}

#[tokio::test]
async fn a_v2_cancel_waits_for_the_idle_that_confirms_it() {
    let pair = Pair::scripted(AgentOptions::default(), Editor::default(), checker(2, true));
    let (v2, session) = pair.v2_session().await;
    let turn = {
        let v2 = v2.clone();
        let request = v2_prompt(&session, script::WAIT_FOR_CANCEL);
        tokio::spawn(async move { v2.prompt(request).await })
    };
    // The agent reports `waiting` once it waits for the cancellation.
    within("the agent waiting", async {
        while !pair
            .editor
            .model()
            .messages()
            .iter()
            .any(|m| m.text().contains("waiting"))
        {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await;
    let idle = within(
        "cancel",
        v2.cancel(v2::CancelSessionNotification::new(session.clone())),
    )
    .await
    .expect("cancelled")
    .expect("the session had foreground work");
    assert_eq!(idle.stop_reason, Some(v2::StopReason::Cancelled));
    // Once cancel returned, the turn's last words are in the model.
    assert!(
        pair.editor
            .model()
            .messages()
            .iter()
            .any(|m| m.text().contains("stopping")),
        "the updates before idle are in"
    );
    let end = within("the turn", turn)
        .await
        .expect("no panic")
        .expect("the turn ends");
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::Cancelled));
    assert_eq!(pair.states().last().map(String::as_str), Some("idle"));
    pair.shutdown(8).await;
}

#[tokio::test]
async fn a_v2_resume_with_replay_rebuilds_the_same_model() {
    let state = acp_e2e::SharedState::default();
    let config = || {
        let mut config = AgentConfig::full();
        config.crash = Arc::new(|| {});
        config
    };
    let first = {
        let state = state.clone();
        let config = config();
        Pair::start(
            move |client| ScriptedAgent::with_state(client, config, state),
            AgentOptions::default(),
            Editor::default(),
            checker(2, true),
        )
    };
    let (v2, session) = first.v2_session().await;
    for text in [script::STREAM_ALL_UPDATES, "hello there"] {
        within("a turn", v2.prompt(v2_prompt(&session, text)))
            .await
            .expect("the turn ends");
    }
    let live = rendered(&first.editor.model());
    assert!(
        live.0.len() >= 4 && !live.1.is_empty() && !live.2.is_empty(),
        "both turns are in the live model: {live:?}"
    );
    first.shutdown(8).await;

    // A second connection resumes the session with the whole history replayed.
    let second = Pair::start(
        move |client| ScriptedAgent::with_state(client, config(), state),
        AgentOptions::default(),
        Editor::default(),
        checker(2, true),
    );
    second.resume_with_replay(session.clone()).await;
    let replayed = rendered(&second.editor.model());
    assert_eq!(replayed, live, "the replay rebuilds what the editor showed");
    let resume = second
        .wire
        .calls(Direction::ClientToAgent, "session/resume");
    assert_eq!(resume[0]["params"]["replayFrom"]["type"], "start");
    second.shutdown(4).await;
}

#[tokio::test]
async fn a_v1_client_of_the_v1_v2_agent_speaks_v1_unchanged() {
    let pair = Pair::scripted(
        AgentOptions::default(),
        Editor::default(),
        checker(1, false),
    );
    let request = InitializeRequest::new(ProtocolVersion::V1)
        .client_info(Implementation::new("e2e", "0.1.0"));
    let response = within("initialize", pair.agent.initialize(request))
        .await
        .expect("initialize succeeds");
    assert_eq!(response.protocol_version, ProtocolVersion::V1);
    assert!(pair.agent.v2().is_none());
    let done = pair.v1_turn(script::STREAM_ALL_UPDATES).await;
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    // v1 shapes: `tool_call` and `plan`, no `state_update`, no message ids added.
    let kinds: Vec<String> = pair
        .wire
        .calls(Direction::AgentToClient, "session/update")
        .iter()
        .map(|m| {
            m["params"]["update"]["sessionUpdate"]
                .as_str()
                .unwrap_or("?")
                .to_owned()
        })
        .collect();
    assert_eq!(kinds, script::ALL_UPDATE_KINDS, "v1 updates as ever");
    assert!(!pair.editor.model().tool_calls().is_empty());
    pair.shutdown(8).await;
}

#[tokio::test]
async fn a_v2_client_falls_back_to_v1_against_an_agent_capped_at_v1() {
    let options = AgentOptions::default().max_protocol_version(ProtocolVersion::V1);
    let pair = Pair::scripted(options, Editor::default(), checker(1, true));
    let negotiated = pair.negotiate().await;
    assert!(
        matches!(negotiated, acp_client::v2::Negotiated::V1(_)),
        "{negotiated:?}"
    );
    assert_eq!(pair.agent.protocol_version(), Some(ProtocolVersion::V1));
    assert!(pair.agent.v2().is_none(), "no v2 calls on a v1 connection");
    let done = pair.v1_turn("hello").await;
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert!(
        pair.editor
            .model()
            .messages()
            .iter()
            .any(|m| m.text().contains("hello")),
        "the echo landed in the model"
    );
    assert!(pair.states().is_empty(), "no state_update on v1");
    pair.shutdown(6).await;
}

/// An agent that gives no `agentInfo`: v2 requires `info`, which the library fills in.
struct Nameless;

#[acp_agent::async_trait]
impl acp_agent::Agent for Nameless {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::V1))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new("nameless-1"))
    }

    async fn prompt(
        &self,
        _: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        cx.message("hi").await.map_err(ErrorObject::from)?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

#[tokio::test]
async fn a_v2_client_of_an_agent_without_agent_info_gets_the_default_info() {
    let pair = Pair::start(
        |_| Nameless,
        AgentOptions::default(),
        Editor::default(),
        checker(2, true),
    );
    let (v2, session) = pair.v2_session().await;
    let info = &v2.initialize_response().info;
    assert_eq!(info.name, "acp-rs agent");
    assert!(!info.version.is_empty());
    let end = within("the prompt", v2.prompt(v2_prompt(&session, "hello")))
        .await
        .expect("the turn ends");
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
    pair.shutdown(6).await;

    // An author's own default.
    let options = AgentOptions::default().agent_info(Implementation::new("my-agent", "2.1.0"));
    let pair = Pair::start(|_| Nameless, options, Editor::default(), checker(2, true));
    let (v2, _) = pair.v2_session().await;
    assert_eq!(v2.initialize_response().info.name, "my-agent");
    pair.shutdown(4).await;
}

#[tokio::test]
async fn a_v2_client_and_the_agent_as_a_child_process_speak_v2_over_stdio() {
    let c = acp_e2e::ChildAgent::spawn(crate::common::child(
        acp_e2e::Wiring::NDJSON,
        &[],
        acp_e2e::PermissionPolicy::Allow,
    ));
    let (v2, session) = v2_session(&c.agent).await;
    let mut updates = v2.session_updates(session.clone());
    let end = within(
        "the prompt",
        v2.prompt(v2_prompt(&session, script::STREAM_ALL_UPDATES)),
    )
    .await
    .expect("the turn ends");
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn));
    // Every update of the turn is in the stream once `prompt` returned: fold them.
    let mut model = SessionModel::new();
    while let Some(update) = updates.try_next() {
        model.apply_v2(update.update).expect("a valid update");
    }
    drop(updates);
    assert_eq!(
        model.state(),
        &TurnState::Idle(Some(v2::StopReason::EndTurn))
    );
    assert_eq!(
        model.message(&end.message_id).map(|m| m.text()),
        Some(script::STREAM_ALL_UPDATES.to_owned())
    );
    assert!(!model.tool_calls().is_empty() && !model.plans().is_empty());
    c.drop_client();
    let ended = c.ended(checker(2, true)).await;
    assert!(ended.status.success(), "{:?}", ended.status);
    ended.wire.assert_clean(8);
}

/// An agent keeping its sessions in a [`SessionStore`](acp_agent::SessionStore) shared by its
/// connections, recording every turn: what an author writes for `session/load`.
struct Storing {
    client: ClientHandle,
    store: acp_agent::SessionStore<()>,
}

#[acp_agent::async_trait]
impl acp_agent::Agent for Storing {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::V1)
            .agent_capabilities(AgentCapabilities::new().load_session(true))
            .agent_info(Implementation::new("storing", "0.1.0")))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new(self.store.create(())?))
    }

    async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        self.store
            .load(&self.client, &request.session_id, |_| ())
            .await?;
        Ok(LoadSessionResponse::new())
    }

    async fn prompt(
        &self,
        request: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let _turn = self.store.begin_turn(&request.session_id)?;
        let cx = self.store.recording(cx);
        cx.record_prompt(&request.prompt);
        cx.thought("thinking").await.map_err(ErrorObject::from)?;
        cx.message("Hello ").await.map_err(ErrorObject::from)?;
        cx.message("there").await.map_err(ErrorObject::from)?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

#[tokio::test]
async fn a_v2_resume_of_a_stored_session_replays_the_same_message_ids() {
    let store = acp_agent::SessionStore::<()>::new();
    let storing = |store: &acp_agent::SessionStore<()>| {
        let store = store.clone();
        move |client| Storing { client, store }
    };
    let first = Pair::start(
        storing(&store),
        AgentOptions::default(),
        Editor::default(),
        checker(2, true),
    );
    let (v2, session) = first.v2_session().await;
    for text in ["one", "two"] {
        within("a turn", v2.prompt(v2_prompt(&session, text)))
            .await
            .expect("the turn ends");
    }
    let ids = |model: &SessionModel| -> Vec<(Option<String>, MessageRole, String)> {
        model
            .messages()
            .iter()
            .map(|m| (m.id.as_ref().map(ToString::to_string), m.role, m.text()))
            .collect()
    };
    let live = ids(&first.editor.model());
    assert_eq!(live.len(), 6, "two turns of three messages: {live:?}");
    first.shutdown(8).await;

    let second = Pair::start(
        storing(&store),
        AgentOptions::default(),
        Editor::default(),
        checker(2, true),
    );
    second.resume_with_replay(session).await;
    assert_eq!(
        ids(&second.editor.model()),
        live,
        "the replay keeps every message and its id"
    );
    second.shutdown(4).await;
}
