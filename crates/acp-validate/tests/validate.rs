//! acp-validate: messages of each kind, valid and not; correlation of responses to requests
//! (the right result definition, unknown ids, the bound on remembered requests); and the
//! observer on real acp-agent / acp-client connections.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_validate::{Checker, Conversation, Part, Role, SCHEMA_JSON, Validator, Violation};
use serde_json::{Value, json};

/// Bounds every connection test, so that a regression fails instead of hanging.
const DEADLINE: Duration = Duration::from_secs(30);

fn check(from: Role, message: Value) -> Result<(), Violation> {
    Validator::embedded().check(from, &message, None)
}

fn part(result: Result<(), Violation>) -> Part {
    result.expect_err("a violation").part
}

fn update(update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update",
           "params": {"sessionId": "s", "update": update}})
}

fn chunk() -> Value {
    update(
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}),
    )
}

fn new_session(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "session/new",
           "params": {"cwd": "/home", "mcpServers": []}})
}

// --- one message -------------------------------------------------------------------------

#[test]
fn valid_messages_of_each_kind_pass() {
    assert_eq!(check(Role::Client, new_session(1)), Ok(()));
    assert_eq!(check(Role::Agent, chunk()), Ok(()));
    let cancel =
        json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}});
    assert_eq!(check(Role::Client, cancel), Ok(()));
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s"}});
    let validator = Validator::embedded();
    assert_eq!(
        validator.check(Role::Agent, &answer, Some("session/new")),
        Ok(())
    );
    let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}});
    assert_eq!(check(Role::Agent, error), Ok(()));
    // An error about a message without a usable id.
    let error =
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse"}});
    assert_eq!(check(Role::Client, error), Ok(()));
}

#[test]
fn a_message_that_is_not_json_rpc_is_reported_as_such() {
    assert_eq!(part(check(Role::Agent, json!([1, 2]))), Part::Message);
    assert_eq!(
        part(check(Role::Agent, json!({"jsonrpc": "2.0"}))),
        Part::Message
    );
    assert_eq!(part(check(Role::Agent, json!("hello"))), Part::Message);
}

#[test]
fn a_broken_envelope_is_reported_with_its_path() {
    let mut message = chunk();
    message["jsonrpc"] = json!("1.0");
    let violation = check(Role::Agent, message).unwrap_err();
    assert_eq!(violation.part, Part::Envelope);
    assert!(
        violation
            .reason
            .starts_with("not a message the agent may send: "),
        "{violation}"
    );
    let no_version = json!({"id": 1, "method": "session/new", "params": {}});
    assert_eq!(part(check(Role::Client, no_version)), Part::Envelope);
    let bad_id = json!({"jsonrpc": "2.0", "id": {"n": 1}, "result": {}});
    let violation = check(Role::Agent, bad_id).unwrap_err();
    assert_eq!(violation.part, Part::Envelope);
    assert!(!violation.schema_path.is_empty(), "{violation:?}");
    let neither_result_nor_error = json!({"jsonrpc": "2.0", "id": 1});
    assert_eq!(
        part(check(Role::Agent, neither_result_nor_error)),
        Part::Envelope
    );
}

#[test]
fn methods_are_checked_for_name_direction_and_kind() {
    let unknown = json!({"jsonrpc": "2.0", "id": 1, "method": "session/nope", "params": {}});
    let violation = check(Role::Client, unknown).unwrap_err();
    assert_eq!(violation.part, Part::Method);
    assert_eq!(
        violation.reason,
        "`session/nope` is not a method of the protocol"
    );
    // The client serves `session/update`.
    let violation = check(Role::Client, chunk()).unwrap_err();
    assert_eq!(violation.part, Part::Method);
    assert!(
        violation.reason.contains("served by the client"),
        "{violation}"
    );
    // `session/cancel` is a notification, not a request.
    let as_request = json!({"jsonrpc": "2.0", "id": 4, "method": "session/cancel",
                            "params": {"sessionId": "s"}});
    let violation = check(Role::Client, as_request).unwrap_err();
    assert_eq!(
        violation.reason,
        "`session/cancel` sent as a request, which it is not"
    );
    assert_eq!(violation.id.as_deref(), Some("4"));
}

#[test]
fn params_are_checked_against_the_method_definition() {
    let violation = check(
        Role::Agent,
        update(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}})),
    )
    .unwrap_err();
    assert_eq!(violation.part, Part::Params);
    assert_eq!(violation.from, Role::Agent);
    assert_eq!(violation.method.as_deref(), Some("session/update"));
    assert!(violation.path.starts_with("/params"), "{violation:?}");
    assert!(!violation.schema_path.is_empty(), "{violation:?}");
    assert!(
        violation
            .reason
            .starts_with("params of `session/update` are not a valid SessionNotification: at /"),
        "{violation}"
    );
    assert!(
        violation
            .to_string()
            .starts_with("the agent's `session/update` notification: params of"),
        "{violation}"
    );
    // Absent params are checked as `{}`: `session/new` needs its cwd.
    let bare = json!({"jsonrpc": "2.0", "id": 1, "method": "session/new"});
    let violation = check(Role::Client, bare).unwrap_err();
    assert_eq!(violation.part, Part::Params);
    assert!(violation.reason.contains("cwd"), "{violation}");
}

#[test]
fn results_and_errors_are_checked() {
    let validator = Validator::embedded();
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"session": "s"}});
    let violation = validator
        .check(Role::Agent, &answer, Some("session/new"))
        .unwrap_err();
    assert_eq!(violation.part, Part::Result);
    assert_eq!(violation.method.as_deref(), Some("session/new"));
    assert!(violation.path.starts_with("/result"), "{violation:?}");
    assert!(
        violation.reason.contains("NewSessionResponse"),
        "{violation}"
    );
    // Without the request's method the result cannot be checked.
    assert_eq!(validator.check(Role::Agent, &answer, None), Ok(()));
    let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "bad"}});
    let violation = validator.check(Role::Agent, &error, None).unwrap_err();
    assert!(
        matches!(violation.part, Part::Envelope | Part::Error),
        "{violation:?}"
    );
}

#[test]
fn extension_methods_are_checked_only_for_their_envelope() {
    let ext = json!({"jsonrpc": "2.0", "id": 1, "method": "_zed/anything", "params": {"any": [1]}});
    assert_eq!(check(Role::Agent, ext.clone()), Ok(()));
    assert_eq!(check(Role::Client, ext), Ok(()));
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"whatever": true}});
    let validator = Validator::embedded();
    assert_eq!(
        validator.check(Role::Client, &answer, Some("_zed/anything")),
        Ok(())
    );
    let no_version = json!({"id": 1, "method": "_zed/anything"});
    assert_eq!(part(check(Role::Agent, no_version)), Part::Envelope);
}

#[test]
fn a_validator_is_built_from_any_schema_value() {
    assert!(Validator::new(json!({})).is_err());
    assert!(Validator::new(json!({"$defs": {}, "anyOf": [true]})).is_err());
    let schema: Value = serde_json::from_str(SCHEMA_JSON).unwrap();
    let validator = Validator::new(schema).unwrap();
    assert_eq!(validator.check(Role::Agent, &chunk(), None), Ok(()));
    assert_eq!(
        part(validator.check(Role::Client, &chunk(), None)),
        Part::Method
    );
    let mismatch = validator
        .check_def("NewSessionRequest", &json!({}))
        .unwrap_err();
    assert!(mismatch.text.contains("cwd"), "{mismatch}");
    let unknown = validator.check_def("NoSuchThing", &json!({})).unwrap_err();
    assert!(unknown.text.contains("not a definition"), "{unknown}");
}

#[test]
fn the_schema_methods_are_the_typed_method_table() {
    let validator = Validator::embedded();
    // A workspace build compiles acp-types with the draft features other crates turn on (the
    // proxy crates need `unstable_proxy_chains`): those methods are in the draft schema.
    let drafts = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../schema/acp.unstable.schema.json"
    ))
    .expect("the repository's draft schema");
    let drafts = Validator::new(serde_json::from_str(&drafts).unwrap()).unwrap();
    let mut stable = 0;
    for definition in acp_types::methods::DEFINITIONS {
        let method = match validator.method(definition.method) {
            Some(method) => {
                stable += 1;
                method
            }
            None => drafts
                .method(definition.method)
                .unwrap_or_else(|| panic!("{} not in the schema", definition.method)),
        };
        let params = if definition.is_notification() {
            method.notification.as_deref()
        } else {
            method.request.as_deref()
        };
        assert_eq!(params, Some(definition.params), "{}", definition.method);
        // The notification entry of a method that is also a request has the request's result.
        if !definition.is_notification() || method.request.is_none() {
            assert_eq!(
                method.result.as_deref(),
                definition.result,
                "{}",
                definition.method
            );
        }
        // A method that is a request of one side and a notification of the other
        // (`mcp/message`) is served by either.
        let two_sides = acp_types::methods::DEFINITIONS
            .iter()
            .any(|d| d.method == definition.method && d.side != definition.side);
        let served_by = match definition.side.as_str() {
            _ if two_sides => None,
            "agent" => Some(Role::Agent),
            "client" => Some(Role::Client),
            _ => None,
        };
        assert_eq!(method.served_by, served_by, "{}", definition.method);
    }
    // Every method of the stable schema is typed (a method with a request and a notification
    // entry, `mcp/message` or `proxy/successor`, is a draft).
    assert_eq!(validator.methods().count(), stable);
}

// --- a conversation ----------------------------------------------------------------------

fn answer(id: u64, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

#[test]
fn a_response_is_checked_against_its_request_method() {
    let mut conversation: Conversation = Conversation::new(Validator::embedded().clone());
    assert_eq!(conversation.check(Role::Client, &new_session(1)), []);
    let prompt = json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                        "params": {"sessionId": "s", "prompt": []}});
    assert_eq!(conversation.check(Role::Client, &prompt), []);
    // Answered out of order, each against its own method.
    assert_eq!(
        conversation.check(Role::Agent, &answer(2, json!({"stopReason": "end_turn"}))),
        []
    );
    let found = conversation.check(Role::Agent, &answer(1, json!({"stopReason": "end_turn"})));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].part, Part::Result);
    assert_eq!(found[0].method.as_deref(), Some("session/new"));
    assert_eq!(found[0].id.as_deref(), Some("1"));
    assert_eq!(conversation.open().count(), 0);
}

#[test]
fn requests_of_both_sides_are_told_apart() {
    let mut conversation: Conversation = Conversation::new(Validator::embedded().clone());
    assert_eq!(conversation.check(Role::Client, &new_session(0)), []);
    let read = json!({"jsonrpc": "2.0", "id": 0, "method": "fs/read_text_file",
                      "params": {"sessionId": "s", "path": "/a"}});
    assert_eq!(conversation.check(Role::Agent, &read), []);
    // The client's answer to the agent's request 0 is a file's content, not a session.
    assert_eq!(
        conversation.check(Role::Client, &answer(0, json!({"content": "x"}))),
        []
    );
    assert_eq!(
        conversation.check(Role::Agent, &answer(0, json!({"sessionId": "s"}))),
        []
    );
}

#[test]
fn an_answer_to_an_unknown_id_is_a_violation() {
    let mut conversation: Conversation = Conversation::new(Validator::embedded().clone());
    let found = conversation.check(Role::Agent, &answer(7, json!({})));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].part, Part::Id);
    assert_eq!(
        found[0].reason,
        "a response to request 7, which the client never sent"
    );
    // A second answer too.
    conversation.check(Role::Client, &new_session(1));
    assert_eq!(
        conversation.check(Role::Agent, &answer(1, json!({"sessionId": "s"}))),
        []
    );
    let found = conversation.check(Role::Agent, &answer(1, json!({"sessionId": "s"})));
    assert_eq!(found[0].part, Part::Id);
    // An error with a null id answers nothing, and is no violation.
    let error =
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse"}});
    assert_eq!(conversation.check(Role::Agent, &error), []);
}

#[test]
fn reusing_an_open_id_is_a_violation() {
    let mut conversation: Conversation = Conversation::new(Validator::embedded().clone());
    assert_eq!(conversation.check(Role::Client, &new_session(1)), []);
    let found = conversation.check(Role::Client, &new_session(1));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].part, Part::Id);
    assert!(found[0].reason.contains("reused the id 1"), "{}", found[0]);
}

#[test]
fn remembered_requests_are_bounded_and_the_oldest_forgotten() {
    let mut conversation: Conversation = Conversation::new(Validator::embedded().clone()).limit(2);
    for id in 1..=3 {
        assert_eq!(conversation.check(Role::Client, &new_session(id)), []);
    }
    assert_eq!(conversation.open().count(), 2);
    assert_eq!(conversation.forgotten(), 1);
    let found = conversation.check(Role::Agent, &answer(1, json!({"sessionId": "s"})));
    assert_eq!(found[0].part, Part::Id);
    assert!(found[0].reason.contains("forgotten"), "{}", found[0]);
    for id in 2..=3 {
        assert_eq!(
            conversation.check(Role::Agent, &answer(id, json!({"sessionId": "s"}))),
            []
        );
    }
    // A peer that never answers: memory stays at the limit.
    let mut conversation: Conversation = Conversation::new(Validator::embedded().clone()).limit(16);
    let read = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "fs/read_text_file",
               "params": {"sessionId": "s", "path": "/a"}})
    };
    for id in 0..5_000 {
        conversation.check(Role::Agent, &read(id));
    }
    assert_eq!(conversation.open().count(), 16);
    assert_eq!(conversation.forgotten(), 5_000 - 16);
    let newest = conversation.take_open();
    assert_eq!(newest.first().map(|(_, id, _)| id.as_str()), Some("4984"));
    assert_eq!(newest.last().map(|(_, id, _)| id.as_str()), Some("4999"));
}

#[test]
fn a_batch_is_checked_member_by_member() {
    let mut conversation: Conversation = Conversation::new(Validator::embedded().clone());
    let batch = json!([new_session(1), {"jsonrpc": "2.0", "id": 2, "method": "nope"}]);
    let found = conversation.check(Role::Client, &batch);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].part, Part::Method);
    assert_eq!(conversation.open().count(), 2);
}

#[test]
fn a_conversation_keeps_data_with_each_request() {
    let mut conversation = Conversation::<usize>::new(Validator::embedded().clone());
    conversation.feed(Role::Client, &new_session(1), || 10);
    for (_, _, open) in conversation.open_mut() {
        open.data += 1;
    }
    let fed = conversation.feed(Role::Agent, &answer(1, json!({"sessionId": "s"})), || 0);
    let answered = fed.answered.expect("the request it answers");
    assert_eq!(
        (answered.method.as_str(), answered.data),
        ("session/new", 11)
    );
    assert!(fed.violations.is_empty());
}

// --- the observer on a connection --------------------------------------------------------

/// Collects what an observer reports.
fn collector() -> (
    Arc<Mutex<Vec<Violation>>>,
    impl Fn(&Violation) + Send + Sync + 'static,
) {
    let found = Arc::new(Mutex::new(Vec::new()));
    let keep = found.clone();
    (found, move |violation: &Violation| {
        keep.lock().unwrap().push(violation.clone());
    })
}

struct QuietClient;

#[acp_client::async_trait]
impl acp_client::Client for QuietClient {
    async fn request_permission(
        &self,
        _: acp_types::RequestPermissionRequest,
    ) -> Result<acp_types::RequestPermissionResponse, acp_types::ErrorObject> {
        Ok(acp_types::RequestPermissionResponse::cancelled())
    }
    async fn session_notification(
        &self,
        _: acp_types::SessionNotification,
    ) -> Result<(), acp_types::ErrorObject> {
        Ok(())
    }
}

/// A client on `io` whose traffic `observe` sees, its driver running.
fn client_checking(
    io: tokio::io::DuplexStream,
    observe: impl Fn(acp_client::Direction, &[u8]) + Send + Sync + 'static,
) -> (
    acp_client::AgentHandle,
    tokio::task::JoinHandle<Result<(), acp_rpc::Error>>,
) {
    let (reader, writer) = tokio::io::split(io);
    let options = acp_client::ClientOptions::default().observe(observe);
    let (agent, driver) = acp_client::connect(|_| QuietClient, reader, writer, options);
    (agent, tokio::spawn(driver))
}

/// Initializes the connection (which must succeed) and asks for a session.
async fn initialize_and_open(
    agent: &acp_client::AgentHandle,
) -> Result<acp_types::NewSessionResponse, acp_client::Error> {
    let latest = acp_types::ProtocolVersion::LATEST;
    agent
        .initialize(acp_types::InitializeRequest::new(latest))
        .await
        .expect("initialize");
    let cwd = "/home";
    let servers = Vec::<acp_types::McpServer>::new();
    agent
        .new_session(acp_types::NewSessionRequest::new(cwd, servers))
        .await
}

/// A hand-written agent: answers `initialize` well, sends a malformed `session/update`, and
/// answers `session/new` with a result missing its `sessionId`.
async fn broken_agent(io: tokio::io::DuplexStream) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (reader, mut writer) = tokio::io::split(io);
    let mut lines = BufReader::new(reader).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let request: Value = serde_json::from_str(&line).unwrap();
        let id = request["id"].clone();
        let replies = match request["method"].as_str() {
            Some("initialize") => vec![json!({"jsonrpc": "2.0", "id": id,
                "result": {"protocolVersion": 1, "agentCapabilities": {}}})],
            Some("session/new") => vec![
                json!({"jsonrpc": "2.0", "method": "session/update", "params": {
                    "sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk"}}}),
                json!({"jsonrpc": "2.0", "id": id, "result": {"session": "s"}}),
            ],
            _ => continue,
        };
        for reply in replies {
            let mut text = reply.to_string();
            text.push('\n');
            writer.write_all(text.as_bytes()).await.unwrap();
        }
    }
}

#[tokio::test]
async fn the_observer_reports_what_a_real_peer_sends_wrong() {
    let (found, report) = collector();
    let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
    let agent_task = tokio::spawn(broken_agent(agent_io));
    let (agent, driver) =
        client_checking(client_io, acp_validate::peer_checker(Role::Agent, report));
    tokio::time::timeout(DEADLINE, async {
        let refused = initialize_and_open(&agent).await;
        assert!(
            refused.is_err(),
            "the library refuses the malformed result too"
        );
    })
    .await
    .expect("within the deadline");
    drop(agent);
    driver.abort();
    agent_task.abort();
    let found = found.lock().unwrap();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!((found[0].part, found[0].from), (Part::Params, Role::Agent));
    assert_eq!(found[0].method.as_deref(), Some("session/update"));
    // The answer is checked against the request this side sent, although this side's own
    // messages are not checked.
    assert_eq!(found[1].part, Part::Result);
    assert_eq!(found[1].method.as_deref(), Some("session/new"));
    assert_eq!(found[1].id.as_deref(), Some("1"));
}

struct GoodAgent;

#[acp_agent::async_trait]
impl acp_agent::Agent for GoodAgent {
    async fn initialize(
        &self,
        _: acp_types::InitializeRequest,
    ) -> Result<acp_types::InitializeResponse, acp_types::ErrorObject> {
        Ok(acp_types::InitializeResponse::new(
            acp_types::ProtocolVersion::LATEST,
        ))
    }
    async fn new_session(
        &self,
        _: acp_types::NewSessionRequest,
    ) -> Result<acp_types::NewSessionResponse, acp_types::ErrorObject> {
        Ok(acp_types::NewSessionResponse::new("s1"))
    }
    async fn prompt(
        &self,
        _: acp_types::PromptRequest,
        cx: acp_agent::PromptContext,
    ) -> Result<acp_types::PromptResponse, acp_types::ErrorObject> {
        cx.message("Hi")
            .await
            .map_err(acp_types::ErrorObject::internal_error)?;
        Ok(acp_types::PromptResponse::new(
            acp_types::StopReason::EndTurn,
        ))
    }
}

#[tokio::test]
async fn a_correct_exchange_checked_on_both_sides_reports_nothing() {
    let (found, report) = collector();
    let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
    let (reader, writer) = tokio::io::split(agent_io);
    let agent_side = Checker::new(Role::Client).check_sent(true).report({
        let found = found.clone();
        move |v: &Violation| found.lock().unwrap().push(v.clone())
    });
    let (_client, agent_driver) = acp_agent::serve(
        |_| GoodAgent,
        reader,
        writer,
        acp_agent::AgentOptions::default().observe(agent_side.into_observer()),
    );
    let agent_driver = tokio::spawn(agent_driver);
    let client_side = Checker::new(Role::Agent).check_sent(true).report(report);
    let (agent, client_driver) = client_checking(client_io, client_side.into_observer());
    tokio::time::timeout(DEADLINE, async {
        let session = initialize_and_open(&agent)
            .await
            .expect("session/new")
            .session_id;
        let done = agent
            .prompt(acp_types::PromptRequest::new(session, vec!["Hello".into()]))
            .await
            .expect("session/prompt");
        assert_eq!(done.stop_reason, acp_types::StopReason::EndTurn);
    })
    .await
    .expect("within the deadline");
    drop(agent);
    client_driver.abort();
    agent_driver.abort();
    assert_eq!(*found.lock().unwrap(), []);
}

#[test]
fn bytes_that_are_not_json_are_reported() {
    let (found, report) = collector();
    let observe = acp_validate::peer_checker(Role::Client, report);
    observe(acp_client::Direction::Received, b"{not json");
    let found = found.lock().unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].part, found[0].from),
        (Part::Message, Role::Client)
    );
}

#[cfg(feature = "unstable")]
#[test]
fn the_draft_schema_knows_the_draft_methods() {
    let fork = json!({"jsonrpc": "2.0", "id": 1, "method": "session/fork",
                      "params": {"sessionId": "s", "cwd": "/home"}});
    let draft = Validator::embedded_unstable();
    assert_eq!(draft.check(Role::Client, &fork, None), Ok(()));
    assert_eq!(draft.method("mcp/message").and_then(|m| m.served_by), None);
    // `mcp/message`: a request the agent sends (the client serves it), a notification the
    // client sends (the agent serves it); not the other way round.
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "mcp/message",
                         "params": {"serverId": "tools", "requestId": "r1", "method": "tools/list"}});
    let notification = json!({"jsonrpc": "2.0", "method": "mcp/message",
                              "params": {"serverId": "tools", "requestId": "r1",
                                         "method": "notifications/progress"}});
    assert_eq!(draft.check(Role::Agent, &request, None), Ok(()));
    assert_eq!(draft.check(Role::Client, &notification, None), Ok(()));
    assert_eq!(
        draft
            .check(Role::Client, &request, None)
            .map_err(|e| e.part),
        Err(Part::Method)
    );
    assert_eq!(
        draft
            .check(Role::Agent, &notification, None)
            .map_err(|e| e.part),
        Err(Part::Method)
    );
    // The stable schema does not.
    assert_eq!(part(check(Role::Client, fork)), Part::Method);
}

// --- ACP v2 ------------------------------------------------------------------------------

/// A v2 `initialize` request asking for `version`.
#[cfg(feature = "unstable_protocol_v2")]
fn initialize_v2(version: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "info": {"name": "test-client", "version": "1"}}})
}

/// A v2 `initialize` answer naming `version`.
#[cfg(feature = "unstable_protocol_v2")]
fn initialized(version: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": version,
        "capabilities": {"session": {}}, "info": {"name": "test-agent", "version": "1"}}})
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn the_v2_schema_knows_the_v2_methods_and_not_the_v1_only_ones() {
    let v2 = Validator::embedded_v2();
    assert!(std::ptr::eq(Validator::embedded_for(2).unwrap(), v2));
    assert!(std::ptr::eq(
        Validator::embedded_for(1).unwrap(),
        Validator::embedded()
    ));
    assert!(Validator::embedded_for(3).is_none());
    let cancel = json!({"jsonrpc": "2.0", "id": 1, "method": "tool_call/cancel",
                        "params": {"sessionId": "s", "toolCallId": "t"}});
    assert_eq!(v2.check(Role::Client, &cancel, None), Ok(()));
    assert_eq!(part(check(Role::Client, cancel)), Part::Method);
    let load = json!({"jsonrpc": "2.0", "id": 2, "method": "session/load",
                      "params": {"sessionId": "s", "cwd": "/home", "mcpServers": []}});
    assert_eq!(
        v2.check(Role::Client, &load, None).map_err(|e| e.part),
        Err(Part::Method)
    );
    // v2 refuses `null` request ids.
    let null_id = json!({"jsonrpc": "2.0", "id": null, "method": "session/list", "params": {}});
    assert_eq!(
        v2.check(Role::Client, &null_id, None).map_err(|e| e.part),
        Err(Part::Id)
    );
    assert_eq!(check(Role::Client, null_id), Ok(()));
    // The prompt's answer is the acknowledgement, carrying the user message's id.
    let ack = json!({"jsonrpc": "2.0", "id": 3, "result": {}});
    assert_eq!(
        v2.check(Role::Agent, &ack, Some("session/prompt"))
            .map_err(|e| e.part),
        Err(Part::Result)
    );
    let ack = json!({"jsonrpc": "2.0", "id": 3, "result": {"messageId": "m1"}});
    assert_eq!(v2.check(Role::Agent, &ack, Some("session/prompt")), Ok(()));
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn a_conversation_follows_the_version_its_initialize_negotiates() {
    let idle = update(json!({"sessionUpdate": "state_update", "state": "idle",
                             "stopReason": "end_turn"}));
    let v2_chunk = update(
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m",
                                 "content": {"type": "text", "text": "x"}}),
    );
    // Negotiated 2: v2 messages pass, a v1 chunk (no `messageId`) does not.
    let mut conversation: Conversation =
        Conversation::new(Validator::embedded().clone()).follow_version();
    assert_eq!(conversation.check(Role::Client, &initialize_v2(2)), vec![]);
    assert_eq!(conversation.check(Role::Agent, &initialized(2)), vec![]);
    assert_eq!(conversation.negotiated_version(), Some(2));
    assert_eq!(conversation.check(Role::Agent, &idle), vec![]);
    assert_eq!(conversation.check(Role::Agent, &v2_chunk), vec![]);
    assert_eq!(
        conversation.check(Role::Agent, &chunk())[0].part,
        Part::Params
    );
    // Asked for 2, answered 1: from then on, v1.
    let mut conversation: Conversation =
        Conversation::new(Validator::embedded().clone()).follow_version();
    assert_eq!(conversation.check(Role::Client, &initialize_v2(2)), vec![]);
    let v1_answer = json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}});
    assert_eq!(conversation.check(Role::Agent, &v1_answer), vec![]);
    assert_eq!(conversation.negotiated_version(), Some(1));
    assert_eq!(conversation.check(Role::Agent, &chunk()), vec![]);
    // Not following: the validator stays v1 whatever is negotiated (the v2 answer's
    // `capabilities` are unknown fields to v1), and a v2 chunk is checked as v1's.
    let mut conversation: Conversation = Conversation::new(Validator::embedded().clone());
    conversation.check(Role::Client, &initialize_v2(2));
    conversation.check(Role::Agent, &initialized(2));
    assert_eq!(conversation.negotiated_version(), Some(2));
    assert_eq!(conversation.check(Role::Agent, &chunk()), vec![]);
    // Asking for a version beyond those known: the request is checked as the highest known.
    let mut conversation: Conversation =
        Conversation::new(Validator::embedded().clone()).follow_version();
    assert_eq!(conversation.check(Role::Client, &initialize_v2(7)), vec![]);
}

#[cfg(all(feature = "unstable_protocol_v2", feature = "unstable"))]
#[test]
fn the_v2_draft_schema_knows_the_v2_draft_methods() {
    let fork = json!({"jsonrpc": "2.0", "id": 1, "method": "session/fork",
                      "params": {"sessionId": "s", "cwd": "/home"}});
    let draft = Validator::embedded_v2_unstable();
    assert_eq!(draft.check(Role::Client, &fork, None), Ok(()));
    // The stable v2 schema does not.
    assert_eq!(
        Validator::embedded_v2()
            .check(Role::Client, &fork, None)
            .map_err(|e| e.part),
        Err(Part::Method)
    );
    assert!(draft.method("session/load").is_none());
}
