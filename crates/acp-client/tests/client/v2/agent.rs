//! A scripted agent for the v2 tests: raw JSON lines over an in-process pipe, every message
//! either side puts on the wire validated against the protocol's schema, every wait bounded.
//!
//! The v2 schema is the official `v2/schema.json` beside v1 in `acp_testkit::spec_dir()`, or,
//! outside CI and with a notice, the repository's generated `schema/acp.v2.schema.json` (a
//! minimal loader of our own: acp-testkit's `Spec` loads v1 only).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use acp_client::model::SessionModel;
use acp_client::{AgentHandle, Client, ClientOptions, connect};
use acp_types::*;
use acp_validate::{Role, Validator};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::sync::mpsc;

use crate::common::DEADLINE;

/// The v2 schema's validator, loaded once.
#[allow(clippy::print_stderr)] // The fallback's notice, said once per run as acp-testkit does.
pub(crate) fn v2_schema() -> &'static Validator {
    static V2: OnceLock<Validator> = OnceLock::new();
    V2.get_or_init(|| {
        let official = acp_testkit::spec_dir().join("v2").join("schema.json");
        let path = if official.is_file() {
            official
        } else {
            assert!(
                !acp_testkit::in_ci(),
                "the official v2 schema is required under CI but {} is missing",
                official.display()
            );
            let generated = acp_testkit::workspace_root().join("schema/acp.v2.schema.json");
            eprintln!(
                "notice: the official ACP v2 schema was not found: validating against the \
                 repository's generated schema ({}) instead",
                generated.display()
            );
            generated
        };
        let text = std::fs::read_to_string(&path).expect("reading the v2 schema");
        Validator::new(serde_json::from_str(&text).expect("parsing the v2 schema"))
            .expect("a protocol schema")
    })
}

/// The v1 schema's validator (acp-testkit's choice of file), loaded once.
pub(crate) fn v1_schema() -> &'static Validator {
    static V1: OnceLock<Validator> = OnceLock::new();
    V1.get_or_init(|| {
        Validator::new(acp_testkit::Spec::load().schema().clone()).expect("a protocol schema")
    })
}

/// The agent's end of the pipe.
pub(crate) struct ScriptedAgent {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    /// The schemas every message is checked against (both while negotiating).
    pub(crate) schemas: Vec<&'static Validator>,
    /// Methods of the requests each side sent, by id, to check the answers' results.
    from_client: HashMap<String, String>,
    from_agent: HashMap<String, String>,
    next_id: i64,
}

impl ScriptedAgent {
    fn check(&self, from: Role, message: &Value) {
        let id = message.get("id").map(Value::to_string);
        let answered = match (message.get("method"), &id) {
            (None, Some(id)) => match from {
                Role::Agent => self.from_client.get(id),
                Role::Client => self.from_agent.get(id),
            },
            _ => None,
        };
        for schema in &self.schemas {
            if let Err(violation) = schema.check(from, message, answered.map(String::as_str)) {
                panic!("the {from:?}'s message breaks the schema: {violation}\nmessage: {message}");
            }
        }
    }

    /// The client's next message, validated.
    pub(crate) async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(DEADLINE, self.lines.next_line())
            .await
            .expect("the client sends within the deadline")
            .expect("reading the pipe")
            .expect("the client keeps the pipe open");
        let message: Value = serde_json::from_str(&line).expect("the client sends JSON");
        self.check(Role::Client, &message);
        if let (Some(method), Some(id)) = (message["method"].as_str(), message.get("id")) {
            self.from_client.insert(id.to_string(), method.to_owned());
        }
        message
    }

    /// The client's next message, which must be a request or notification for `method`.
    pub(crate) async fn expect(&mut self, method: &str) -> Value {
        let message = self.recv().await;
        assert_eq!(
            message["method"], method,
            "expected `{method}`, got {message}"
        );
        message
    }

    /// Sends a message, validated first.
    pub(crate) async fn send(&mut self, message: Value) {
        self.check(Role::Agent, &message);
        let mut line = serde_json::to_vec(&message).expect("JSON");
        line.push(b'\n');
        self.writer
            .write_all(&line)
            .await
            .expect("writing the pipe");
    }

    /// Answers the client's request `request` with `result`.
    pub(crate) async fn respond(&mut self, request: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            .await;
    }

    /// Sends a request to the client; returns its id.
    pub(crate) async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.from_agent.insert(id.to_string(), method.to_owned());
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a `session/update` of `session`.
    pub(crate) async fn update(&mut self, session: &str, update: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": session, "update": update}}))
            .await;
    }

    /// Sends a `state_update` of session `s1` to `state` (with `stopReason` when given).
    pub(crate) async fn state(&mut self, state: &str, stop_reason: Option<&str>) {
        let mut update = json!({"sessionUpdate": "state_update", "state": state});
        if let Some(stop_reason) = stop_reason {
            update["stopReason"] = json!(stop_reason);
        }
        self.update("s1", update).await;
    }

    /// Takes the client's `session/prompt` of `s1`: acknowledges it (message `u1`) and reports
    /// foreground work running.
    pub(crate) async fn accept_prompt(&mut self) {
        let request = self.expect("session/prompt").await;
        self.respond(&request, json!({"messageId": "u1"})).await;
        self.state("running", None).await;
    }

    /// The client's answer to our request `id`.
    pub(crate) async fn answer(&mut self, id: &Value) -> Value {
        let message = self.recv().await;
        assert_eq!(
            &message["id"], id,
            "expected the answer to {id}, got {message}"
        );
        assert!(message.get("method").is_none(), "an answer: {message}");
        message
    }

    /// Answers the client's `initialize` as a v2 agent advertising `capabilities`.
    pub(crate) async fn initialize_v2(&mut self, capabilities: Value, auth_methods: Value) {
        let init = self.expect("initialize").await;
        assert_eq!(
            init["params"]["protocolVersion"], 2,
            "the client asks for v2"
        );
        // From the answer on, the connection is v2 only.
        self.schemas = vec![v2_schema()];
        self.respond(
            &init,
            json!({"protocolVersion": 2,
            "info": {"name": "scripted", "version": "0.0.0"},
            "capabilities": capabilities, "authMethods": auth_methods}),
        )
        .await;
    }

    /// Answers `session/new` with `session`.
    pub(crate) async fn new_session(&mut self, session: &str) {
        let new = self.expect("session/new").await;
        self.respond(&new, json!({"sessionId": session})).await;
    }
}

/// What the test client saw, shared with the test.
#[derive(Default)]
pub(crate) struct Seen {
    /// Every update of either version, folded.
    pub(crate) model: Mutex<SessionModel>,
    /// Errors applying updates to the model.
    pub(crate) model_errors: Mutex<Vec<String>>,
}

/// The test's editor: folds every update into one model; answers permission requests through
/// the test (`permissions`), or with the first option when the test does not take them.
pub(crate) struct Editor {
    pub(crate) seen: Arc<Seen>,
    permissions: Option<
        mpsc::UnboundedSender<(
            v2::RequestPermissionRequest,
            tokio::sync::oneshot::Sender<v2::RequestPermissionResponse>,
        )>,
    >,
}

/// A permission request the test answers.
pub(crate) type PendingPermission = (
    v2::RequestPermissionRequest,
    tokio::sync::oneshot::Sender<v2::RequestPermissionResponse>,
);

#[acp_client::async_trait]
impl Client for Editor {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        Ok(RequestPermissionResponse::selected(
            request.options[0].option_id.clone(),
        ))
    }
    async fn session_notification(&self, n: SessionNotification) -> Result<(), ErrorObject> {
        let result = self.seen.model.lock().unwrap().apply_v1(n.update);
        self.record(result);
        Ok(())
    }
    async fn session_notification_v2(
        &self,
        n: v2::UpdateSessionNotification,
    ) -> Result<(), ErrorObject> {
        let result = self.seen.model.lock().unwrap().apply_v2(n.update);
        self.record(result);
        Ok(())
    }
    async fn create_elicitation_v2(
        &self,
        request: v2::CreateElicitationRequest,
    ) -> Result<v2::CreateElicitationResponse, ErrorObject> {
        assert_eq!(
            request.message, "Name?",
            "only the form the tests send reaches here"
        );
        Ok(v2::CreateElicitationResponse::new(
            v2::ElicitationAction::Decline,
        ))
    }
    async fn request_permission_v2(
        &self,
        request: v2::RequestPermissionRequest,
    ) -> Result<v2::RequestPermissionResponse, ErrorObject> {
        self.seen
            .model
            .lock()
            .unwrap()
            .apply_permission_request(&request);
        let Some(permissions) = &self.permissions else {
            let first = request.options[0].option_id.clone();
            return Ok(v2::RequestPermissionResponse::new(
                v2::SelectedPermissionOutcome::new(first),
            ));
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        permissions
            .send((request, tx))
            .expect("the test takes permission requests");
        // The test may never answer: then only a cancellation ends this.
        rx.await
            .map_err(|_| ErrorObject::internal_error("the test dropped the permission request"))
    }
}

impl Editor {
    fn record(&self, result: Result<(), acp_client::model::ModelError>) {
        if let Err(e) = result {
            self.seen.model_errors.lock().unwrap().push(e.to_string());
        }
    }
}

/// A client connected to a scripted agent; `take_permissions` routes permission requests to
/// the returned receiver.
pub(crate) fn pair(
    take_permissions: bool,
) -> (
    AgentHandle,
    ScriptedAgent,
    Arc<Seen>,
    mpsc::UnboundedReceiver<PendingPermission>,
) {
    let (client_io, agent_io) = tokio::io::duplex(1 << 20);
    let seen = Arc::new(Seen::default());
    let (tx, rx) = mpsc::unbounded_channel();
    let editor = Editor {
        seen: seen.clone(),
        permissions: take_permissions.then_some(tx),
    };
    let (reader, writer) = tokio::io::split(client_io);
    let (agent, driver) = connect(|_| editor, reader, writer, ClientOptions::default());
    tokio::spawn(driver);
    let (reader, writer) = tokio::io::split(agent_io);
    let scripted = ScriptedAgent {
        lines: BufReader::new(reader).lines(),
        writer,
        schemas: vec![v1_schema(), v2_schema()],
        from_client: HashMap::new(),
        from_agent: HashMap::new(),
        next_id: 0,
    };
    (agent, scripted, seen, rx)
}

/// The v2 `initialize` of the tests' editor, with the v1 fallback.
pub(crate) fn initialize_requests() -> (v2::InitializeRequest, InitializeRequest) {
    let mut v2_request = v2::InitializeRequest::new(2u16, Implementation::new("editor", "1.0.0"));
    // Forms only: the tests see both an advertised and an unadvertised elicitation mode.
    let elicitation = ElicitationCapabilities::new().form(ElicitationFormCapabilities::new());
    v2_request.capabilities = Some(v2::ClientCapabilities::new().elicitation(elicitation));
    let v1_request = InitializeRequest::new(ProtocolVersion::V1)
        .client_capabilities(ClientCapabilities::new().terminal(true))
        .client_info(Implementation::new("editor", "1.0.0"));
    (v2_request, v1_request)
}

/// Awaits a spawned call within the deadline.
pub(crate) async fn done<T>(task: tokio::task::JoinHandle<T>) -> T {
    tokio::time::timeout(DEADLINE, task)
        .await
        .expect("the call ends within the deadline")
        .expect("the call does not panic")
}

/// Negotiates with the scripted agent answering v2 (advertising `capabilities` and
/// `auth_methods`); the v2 handle.
pub(crate) async fn negotiate_v2(
    agent: &AgentHandle,
    scripted: &mut ScriptedAgent,
    capabilities: Value,
    auth_methods: Value,
) -> acp_client::v2::AgentHandle {
    let (v2_request, v1_request) = initialize_requests();
    let negotiate = {
        let agent = agent.clone();
        tokio::spawn(async move { agent.negotiate(v2_request, v1_request).await })
    };
    scripted.initialize_v2(capabilities, auth_methods).await;
    let negotiated = done(negotiate).await.expect("v2 negotiated");
    assert!(matches!(negotiated, acp_client::v2::Negotiated::V2(_)));
    agent.v2().expect("the v2 handle")
}

/// Negotiates with the scripted agent answering as a v1 agent (`answer`, its v1 result).
pub(crate) async fn negotiate_v1(agent: &AgentHandle, scripted: &mut ScriptedAgent, answer: Value) {
    let (v2_request, v1_request) = initialize_requests();
    let negotiate = {
        let agent = agent.clone();
        tokio::spawn(async move { agent.negotiate(v2_request, v1_request).await })
    };
    let init = scripted.expect("initialize").await;
    // A v1 agent answers in v1 only.
    scripted.schemas = vec![v1_schema()];
    scripted.respond(&init, answer).await;
    let negotiated = done(negotiate).await.expect("v1 negotiated");
    assert!(matches!(negotiated, acp_client::v2::Negotiated::V1(_)));
}

/// [`negotiate_v2`] without auth methods, then session `s1`.
pub(crate) async fn v2_session(
    agent: &AgentHandle,
    scripted: &mut ScriptedAgent,
    capabilities: Value,
) -> acp_client::v2::AgentHandle {
    let v2 = negotiate_v2(agent, scripted, capabilities, json!([])).await;
    let new = {
        let v2 = v2.clone();
        tokio::spawn(async move { v2.new_session(v2::NewSessionRequest::new("/work")).await })
    };
    scripted.new_session("s1").await;
    done(new).await.expect("session/new");
    v2
}

/// [`negotiate_v1`], then session `s1` through the v1 surface.
pub(crate) async fn v1_session(agent: &AgentHandle, scripted: &mut ScriptedAgent) {
    negotiate_v1(
        agent,
        scripted,
        json!({"protocolVersion": 1, "agentCapabilities": {}}),
    )
    .await;
    let new = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new()))
                .await
        })
    };
    scripted.new_session("s1").await;
    done(new).await.expect("session/new");
}

/// A v1 prompt of session `s1`, running.
pub(crate) fn v1_prompt(
    agent: &AgentHandle,
    text: &str,
) -> tokio::task::JoinHandle<Result<PromptResponse, acp_client::Error>> {
    let agent = agent.clone();
    let request = PromptRequest::new("s1", vec![text.into()]);
    tokio::spawn(async move { agent.prompt(request).await })
}

/// A v2 prompt of session `s1`, running.
pub(crate) fn v2_prompt(
    v2: &acp_client::v2::AgentHandle,
    text: &str,
) -> tokio::task::JoinHandle<Result<acp_client::v2::TurnEnd, acp_client::Error>> {
    let v2 = v2.clone();
    let request = v2::PromptRequest::new("s1", vec![v2::ContentBlock::from(text)]);
    tokio::spawn(async move { v2.prompt(request).await })
}
