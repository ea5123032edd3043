//! The SDK checklist of the v2 migration guide at the type level: the prompt lifecycle,
//! cancellation, the permission flow, message upserts, tool-call content chunks, display
//! terminals (snapshots, split and invalid UTF-8 in output chunks, exit state), command
//! subjects, structured diffs, resume with replay, `auth/login` + `auth/logout`, `initialize`,
//! request ids, and open unions that stay strict for known kinds.
//!
//! Each document is labelled with the definition of the official v2 schema it is checked
//! against and the schema's verdict (checked here); a valid one decodes and encodes back to the
//! same JSON through every decoding API, an invalid one is refused.

use acp_types::v2::methods::{self, Request};
use acp_types::v2::{
    AgentResponse, ClientRequest, CommandPermissionSubject, DiffChange, DiffOperation, ErrorCode,
    ErrorData, IdleStateUpdate, LoginAuthRequest, Patch, PlanUpdateContent, PromptRequest,
    PromptResponse, ReplayFrom, RequestPermissionOutcome, RequestPermissionSubject,
    ResumeSessionRequest, SessionUpdate, StateUpdate, StopReason, TerminalOutputChunk,
    ToolCallContent, UpdateSessionNotification,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::fixtures::decode_v2;
use super::spec::V2Spec;
use crate::common::Outcome;

/// Checks the schema's verdict on `doc` as `def` and that our types agree; returns the typed
/// value of a valid document.
fn case<T: DeserializeOwned>(def: &str, doc: &Value, valid: bool) -> Option<T> {
    let spec = V2Spec::load();
    if spec.official {
        assert_eq!(
            spec.is_valid(def, doc),
            valid,
            "the schema's verdict on {def} {doc}"
        );
    }
    match decode_v2(def, doc).unwrap_or_else(|e| panic!("{def} {doc}: {e}")) {
        Outcome::Decoded(again) => {
            assert!(valid, "{def}: invalid per the schema but decoded: {doc}");
            assert_eq!(&again, doc, "{def}: not the same JSON again");
            Some(acp_types::from_value(doc.clone()).expect("decoded above"))
        }
        Outcome::Rejected { path, message } => {
            assert!(
                !valid,
                "{def}: valid per the schema but refused at `{path}`: {message}: {doc}"
            );
            None
        }
    }
}

fn valid<T: DeserializeOwned>(def: &str, doc: Value) -> T {
    case(def, &doc, true).expect("valid")
}

/// A document the schema refuses but whose `x-deserialize-default-on-error` member we treat as
/// absent, as the schema prescribes: it decodes into `expected`.
fn normalized<T: DeserializeOwned + serde::Serialize>(def: &str, doc: Value, expected: Value) -> T {
    let spec = V2Spec::load();
    if spec.official {
        assert!(!spec.is_valid(def, &doc), "the schema accepts {def} {doc}");
        assert!(
            spec.is_valid(def, &expected),
            "the schema refuses {def} {expected}"
        );
    }
    let value: T = acp_types::from_value(doc.clone()).unwrap_or_else(|e| panic!("{doc}: {e}"));
    assert_eq!(
        serde_json::to_value(&value).expect("encodes"),
        expected,
        "{def} {doc}"
    );
    value
}

fn invalid(def: &str, doc: Value) {
    assert!(case::<Value>(def, &doc, false).is_none());
}

fn update(doc: Value) -> SessionUpdate {
    let notification: UpdateSessionNotification = valid(
        "UpdateSessionNotification",
        json!({"sessionId": "s1", "update": doc}),
    );
    notification.update
}

#[test]
fn the_prompt_lifecycle() {
    // The client prompts; the agent acknowledges at once with the user message's id.
    let request: ClientRequest = valid(
        "ClientRequest",
        json!({"id": 2, "method": "session/prompt",
               "params": {"sessionId": "s1", "prompt": [{"type": "text", "text": "Hi"}]}}),
    );
    assert_eq!(request.method, methods::agent::SESSION_PROMPT);
    let params: PromptRequest = valid("PromptRequest", request.params.clone().expect("params"));
    assert_eq!(params.prompt.len(), 1);
    let response: AgentResponse = valid(
        "AgentResponse",
        json!({"id": 2, "result": {"messageId": "msg_user_1"}}),
    );
    let AgentResponse::Result { result, .. } = response else {
        panic!("a result")
    };
    let ack: <methods::SessionPrompt as Request>::Result = valid("PromptResponse", result);
    assert_eq!(ack.message_id.as_str(), "msg_user_1");
    // The response carries the message id: `{}` alone is no longer a prompt response.
    invalid("PromptResponse", json!({}));
    let _: PromptResponse = valid("PromptResponse", json!({"messageId": "m", "_meta": null}));

    // The user message acknowledgement, then running, output, requires_action, idle.
    let SessionUpdate::UserMessage(user) = update(json!({"sessionUpdate": "user_message",
        "messageId": "msg_user_1", "content": [{"type": "text", "text": "Hi"}]}))
    else {
        panic!("a user message")
    };
    assert_eq!(user.message_id.as_str(), "msg_user_1");
    let SessionUpdate::StateUpdate(StateUpdate::Running(_)) =
        update(json!({"sessionUpdate": "state_update", "state": "running"}))
    else {
        panic!("running")
    };
    update(
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m2",
                  "content": {"type": "text", "text": "Hel"}}),
    );
    // Chunks need their message id in v2.
    invalid(
        "UpdateSessionNotification",
        json!({"sessionId": "s1", "update": {"sessionUpdate": "agent_message_chunk",
               "content": {"type": "text", "text": "x"}}}),
    );
    let SessionUpdate::StateUpdate(StateUpdate::RequiresAction(_)) =
        update(json!({"sessionUpdate": "state_update", "state": "requires_action"}))
    else {
        panic!("requires_action")
    };
    let SessionUpdate::StateUpdate(StateUpdate::Idle(idle)) = update(json!({
        "sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn",
        "background": [{"type": "terminal", "terminalId": "t1"}]}))
    else {
        panic!("idle")
    };
    assert_eq!(idle.stop_reason, Some(StopReason::EndTurn));
    // Background updates while idle: any update, the state unchanged.
    update(json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": "eA=="}));
}

#[test]
fn idle_stop_reasons_are_open_and_strict() {
    let idle: IdleStateUpdate = valid(
        "IdleStateUpdate",
        json!({"stopReason": "error", "error": {"code": -32603, "message": "model failed"}}),
    );
    assert_eq!(idle.stop_reason, Some(StopReason::Error));
    assert_eq!(
        idle.error.expect("the error").code,
        ErrorCode::INTERNAL_ERROR
    );
    // The stop reason is optional (`null` or omitted: no stop reason) and a malformed one is
    // treated as absent (`x-deserialize-default-on-error`).
    let idle: IdleStateUpdate = valid("IdleStateUpdate", json!({}));
    assert_eq!(idle.stop_reason, None);
    let _: IdleStateUpdate = valid("IdleStateUpdate", json!({"stopReason": null}));
    let idle: IdleStateUpdate = normalized("IdleStateUpdate", json!({"stopReason": 3}), json!({}));
    assert_eq!(idle.stop_reason, None);
    // An unknown stop reason is kept, like every open enum's value.
    let idle: IdleStateUpdate = valid("IdleStateUpdate", json!({"stopReason": "_vendor_pause"}));
    assert_eq!(
        idle.stop_reason,
        Some(StopReason::Unknown("_vendor_pause".into()))
    );
    // An unknown state is kept; a known one with a malformed payload is refused.
    let SessionUpdate::StateUpdate(StateUpdate::Unknown(raw)) =
        update(json!({"sessionUpdate": "state_update", "state": "_vendor_waiting", "x": 1}))
    else {
        panic!("an unknown state")
    };
    assert_eq!(raw["x"], 1);
    // Malformed members the schema marks `x-deserialize-default-on-error` are dropped.
    let _: StateUpdate = normalized(
        "StateUpdate",
        json!({"state": "idle", "stopReason": "end_turn", "background": "not a list", "_meta": 1}),
        json!({"state": "idle", "stopReason": "end_turn"}),
    );
    // A known state with an unknown member keeps it.
    let _: StateUpdate = valid("StateUpdate", json!({"state": "running", "x-next": [1]}));
}

#[test]
fn cancellation_and_the_permission_flow() {
    let _: Value = valid("CancelSessionNotification", json!({"sessionId": "s1"}));
    let SessionUpdate::StateUpdate(StateUpdate::Idle(idle)) = update(
        json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"}),
    ) else {
        panic!("idle")
    };
    assert_eq!(idle.stop_reason, Some(StopReason::Cancelled));

    let request: acp_types::v2::RequestPermissionRequest = valid(
        "RequestPermissionRequest",
        json!({"sessionId": "s1", "title": "Run this script?",
               "subject": {"type": "tool_call", "toolCall": {"toolCallId": "c1", "status": "pending"}},
               "options": [{"optionId": "allow", "name": "Allow once", "kind": "allow_once"}]}),
    );
    let Some(RequestPermissionSubject::ToolCall(subject)) = &request.subject else {
        panic!("a tool-call subject")
    };
    assert_eq!(subject.tool_call.tool_call_id.as_str(), "c1");
    // The title is required; the subject is not.
    invalid(
        "RequestPermissionRequest",
        json!({"sessionId": "s1", "options": [{"optionId": "a", "name": "A", "kind": "allow_once"}]}),
    );
    let _: Value = valid(
        "RequestPermissionRequest",
        json!({"sessionId": "s1", "title": "Continue?",
               "options": [{"optionId": "a", "name": "A", "kind": "_vendor_kind"}]}),
    );
    // Outcomes: selected, cancelled, and an unknown one that is never an approval.
    for (doc, approved) in [
        (
            json!({"outcome": {"outcome": "selected", "optionId": "allow"}}),
            true,
        ),
        (json!({"outcome": {"outcome": "cancelled"}}), false),
        (
            json!({"outcome": {"outcome": "_vendor_deferred", "until": 5}}),
            false,
        ),
    ] {
        let response: acp_types::v2::RequestPermissionResponse =
            valid("RequestPermissionResponse", doc);
        let is_approval = matches!(response.outcome, RequestPermissionOutcome::Selected(_));
        assert_eq!(is_approval, approved);
    }
    invalid(
        "RequestPermissionResponse",
        json!({"outcome": {"outcome": "selected"}}),
    );
}

#[test]
fn command_subjects() {
    let subject: CommandPermissionSubject = valid(
        "CommandPermissionSubject",
        json!({"command": "cargo test", "cwd": "/work", "toolCallId": null, "terminalId": "t1"}),
    );
    assert_eq!(subject.command, "cargo test");
    assert_eq!(subject.tool_call_id, None);
    assert!(subject.extras().was_null("toolCallId"));
    invalid("CommandPermissionSubject", json!({"command": "cargo test"}));
    let RequestPermissionSubject::Command(_) = valid::<RequestPermissionSubject>(
        "RequestPermissionSubject",
        json!({"type": "command", "command": "ls", "cwd": "/"}),
    ) else {
        panic!("a command subject")
    };
    // A known subject kind without what it requires is an error, not an unknown subject.
    invalid(
        "RequestPermissionSubject",
        json!({"type": "command", "command": "ls"}),
    );
    let RequestPermissionSubject::Unknown(_) = valid::<RequestPermissionSubject>(
        "RequestPermissionSubject",
        json!({"type": "_vendor_network", "host": "example.com"}),
    ) else {
        panic!("an unknown subject")
    };
}

#[test]
fn tool_call_updates_and_content_chunks() {
    let SessionUpdate::ToolCallUpdate(call) = update(json!({"sessionUpdate": "tool_call_update",
        "toolCallId": "call_001", "title": "Reading configuration file", "kind": "read",
        "status": "pending", "capabilities": {"cancel": {}}}))
    else {
        panic!("a tool call update")
    };
    assert_eq!(call.title, Patch::Set("Reading configuration file".into()));
    let SessionUpdate::ToolCallContentChunk(chunk) = update(json!({
        "sessionUpdate": "tool_call_content_chunk", "toolCallId": "call_001",
        "content": {"type": "content", "content": {"type": "text", "text": "Checked syntax..."}}}))
    else {
        panic!("a content chunk")
    };
    let ToolCallContent::Content(content) = &chunk.content else {
        panic!("content")
    };
    assert_eq!(
        content.content,
        acp_types::v2::ContentBlock::from("Checked syntax...")
    );
    let SessionUpdate::ToolCallContentChunk(chunk) = update(json!({
        "sessionUpdate": "tool_call_content_chunk", "toolCallId": "call_001",
        "content": {"type": "terminal", "terminalId": "term_001"}}))
    else {
        panic!("a terminal reference")
    };
    assert!(matches!(chunk.content, ToolCallContent::Terminal(_)));
    // `tool_call` is gone in v2: an unknown update, kept as it came.
    let SessionUpdate::Unknown(_) =
        update(json!({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t"}))
    else {
        panic!("v1's tool_call is unknown to v2")
    };
    // A known update kind without its id is refused.
    invalid(
        "UpdateSessionNotification",
        json!({"sessionId": "s1", "update": {"sessionUpdate": "tool_call_update", "title": "t"}}),
    );
}

#[test]
fn display_terminals_snapshots_chunks_and_exit_state() {
    use base64::Engine as _;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    // "é" is C3 A9: the chunks split it; FF is never UTF-8. Each chunk decodes on its own.
    let chunks = [&b"caf\xc3"[..], b"\xa9 \xff\x1b[3", b"1mred"];
    let mut bytes = Vec::new();
    for part in chunks {
        let SessionUpdate::TerminalOutputChunk(chunk) = update(json!({
            "sessionUpdate": "terminal_output_chunk", "terminalId": "term_001", "data": b64(part)}))
        else {
            panic!("a chunk")
        };
        let decoded = chunk.bytes().expect("base64");
        assert_eq!(decoded, part);
        bytes.extend(decoded);
    }
    assert_eq!(bytes, b"caf\xc3\xa9 \xff\x1b[31mred");
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the output holds invalid UTF-8"
    );
    let built = TerminalOutputChunk::from_bytes("term_001", b"\xc3");
    assert_eq!(built.data, "ww==");
    // A snapshot replaces everything before it, and chunks append to it.
    let SessionUpdate::TerminalUpdate(snapshot) = update(json!({
        "sessionUpdate": "terminal_update", "terminalId": "term_001", "command": "cargo test",
        "cwd": "/workspace/project", "output": {"data": b64(b"running 123 tests\r\n")},
        "size": {"cols": 80, "rows": 24}}))
    else {
        panic!("a terminal update")
    };
    let Patch::Set(output) = &snapshot.output else {
        panic!("a snapshot")
    };
    assert_eq!(output.bytes().expect("base64"), b"running 123 tests\r\n");
    // Exit state: a concrete exit status marks the terminal exited.
    let SessionUpdate::TerminalUpdate(exited) = update(json!({
        "sessionUpdate": "terminal_update", "terminalId": "term_001",
        "exitStatus": {"exitCode": null, "signal": "SIGTERM"}}))
    else {
        panic!("a terminal update")
    };
    let Patch::Set(status) = &exited.exit_status else {
        panic!("an exit status")
    };
    assert_eq!(
        (status.exit_code, status.signal.as_deref()),
        (None, Some("SIGTERM"))
    );
    // A size out of bounds is refused; inside an update (where `size` defaults on error) the
    // update keeps its size unchanged.
    invalid("TerminalSize", json!({"cols": 0, "rows": 24}));
    let update: acp_types::v2::TerminalUpdate = normalized(
        "TerminalUpdate",
        json!({"terminalId": "t1", "size": {"cols": 0, "rows": 24}}),
        json!({"terminalId": "t1"}),
    );
    assert_eq!(update.size, Patch::Unchanged);
    invalid("TerminalOutputChunk", json!({"terminalId": "t1"}));
}

#[test]
fn structured_diffs() {
    let diff: acp_types::v2::Diff = valid(
        "Diff",
        json!({"changes": [
            {"operation": "modify", "path": "/p/src/config.json", "fileType": "text",
             "mimeType": "application/json"},
            {"operation": "move", "oldPath": "/p/a.rs", "path": "/p/b.rs"},
            {"operation": "delete", "path": "/p/old.bin", "fileType": "binary"},
            {"operation": "_vendor_chmod", "path": "/p/run.sh", "mode": 493}],
         "patch": {"format": "git_patch", "text": "diff --git a/x b/x\n"}}),
    );
    assert_eq!(diff.changes[1].operation, DiffOperation::Move);
    assert_eq!(
        diff.changes[1].old_path.as_ref().map(|p| p.as_str()),
        Some("/p/a.rs")
    );
    assert_eq!(
        diff.changes[3].operation,
        DiffOperation::Unknown("_vendor_chmod".into())
    );
    // Each known operation needs its paths; an unknown one needs only the operation.
    invalid(
        "DiffChange",
        json!({"operation": "move", "path": "/p/b.rs"}),
    );
    invalid("DiffChange", json!({"operation": "add"}));
    let _: DiffChange = valid("DiffChange", json!({"operation": "_vendor_touch"}));
    invalid("DiffChange", json!({"path": "/p/a.rs"}));
    let _: acp_types::v2::Diff = valid(
        "Diff",
        json!({"changes": [{"operation": "add", "path": "/p/n.txt"}], "patch": null}),
    );
    invalid(
        "Diff",
        json!({"patch": {"format": "git_patch", "text": ""}}),
    );
}

#[test]
fn plans_by_id() {
    let SessionUpdate::PlanUpdate(plan) = update(json!({"sessionUpdate": "plan_update",
        "plan": {"type": "items", "planId": "plan-1", "entries": [
            {"content": "Check syntax", "priority": "high", "status": "cancelled"}]}}))
    else {
        panic!("a plan update")
    };
    let PlanUpdateContent::Items(items) = &plan.plan else {
        panic!("items")
    };
    assert_eq!(items.plan_id.as_str(), "plan-1");
    let _: PlanUpdateContent = valid(
        "PlanUpdateContent",
        json!({"type": "_vendor_markdown", "planId": "p", "text": "#"}),
    );
    // Every plan names its id, known type or not.
    invalid(
        "PlanUpdateContent",
        json!({"type": "_vendor_markdown", "text": "#"}),
    );
    invalid("PlanUpdateContent", json!({"type": "items", "entries": []}));
}

#[test]
fn resume_with_replay() {
    let resume: ResumeSessionRequest = valid(
        "ResumeSessionRequest",
        json!({"sessionId": "s1", "cwd": "/home/user/project", "replayFrom": {"type": "start"}}),
    );
    assert!(matches!(resume.replay_from, Some(ReplayFrom::Start(_))));
    let resume: ResumeSessionRequest = valid(
        "ResumeSessionRequest",
        json!({"sessionId": "s1", "cwd": "/p", "replayFrom": null}),
    );
    assert_eq!(resume.replay_from, None);
    let resume: ResumeSessionRequest = valid(
        "ResumeSessionRequest",
        json!({"sessionId": "s1", "cwd": "/p", "replayFrom": {"type": "_vendor_since", "at": 9}}),
    );
    assert!(matches!(resume.replay_from, Some(ReplayFrom::Unknown(_))));
    invalid("ResumeSessionRequest", json!({"sessionId": "s1"}));
}

#[test]
fn auth_login_and_logout() {
    let login: LoginAuthRequest = valid("LoginAuthRequest", json!({"methodId": "agent-login"}));
    assert_eq!(login.method_id.as_str(), "agent-login");
    invalid("LoginAuthRequest", json!({}));
    let _: Value = valid("LogoutAuthRequest", json!({}));
    let _: Value = valid("LogoutAuthResponse", json!({}));
    let method: acp_types::v2::AuthMethod = valid(
        "AuthMethod",
        json!({"methodId": "agent-login", "type": "agent", "name": "Agent login"}),
    );
    assert!(matches!(method, acp_types::v2::AuthMethod::Agent(_)));
    // The type is required now, and an unknown type still names its method.
    invalid(
        "AuthMethod",
        json!({"methodId": "agent-login", "name": "Agent login"}),
    );
    let _: acp_types::v2::AuthMethod = valid(
        "AuthMethod",
        json!({"methodId": "x", "type": "_vendor_sso", "name": "SSO"}),
    );
    invalid("AuthMethod", json!({"type": "_vendor_sso", "name": "SSO"}));
}

#[test]
fn initialize_and_version_errors() {
    let request: acp_types::v2::InitializeRequest = valid(
        "InitializeRequest",
        json!({"protocolVersion": 2, "info": {"name": "my-client", "title": "My Client",
               "version": "1.0.0"}, "capabilities": {}}),
    );
    assert_eq!(request.info.name, "my-client");
    invalid(
        "InitializeRequest",
        json!({"protocolVersion": 2, "capabilities": {}}),
    );
    let response: acp_types::v2::InitializeResponse = valid(
        "InitializeResponse",
        json!({"protocolVersion": 2, "info": {"name": "my-agent", "version": "0.3.0"},
               "capabilities": {"session": {"prompt": {"image": {}, "embeddedContext": {}},
                   "mcp": {"stdio": {}, "http": {}}, "delete": {}, "additionalDirectories": {}}},
               "authMethods": []}),
    );
    let session = response
        .capabilities
        .and_then(|c| c.session)
        .expect("session capabilities");
    assert!(session.prompt.and_then(|p| p.image).is_some());
    // -32022 carries the version asked for and the supported ones.
    let error: acp_types::v2::Error = valid(
        "Error",
        json!({"code": -32022, "message": "Unsupported protocol version",
               "data": {"requested": 3, "supported": [1, 2]}}),
    );
    assert_eq!(error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
    let Some(ErrorData::UnsupportedProtocolVersion(data)) = &error.data else {
        panic!("the version data: {error:?}")
    };
    assert_eq!(data.supported.len(), 2);
    let error: acp_types::v2::Error = valid(
        "Error",
        json!({"code": -32002, "message": "Resource not found", "data": {"sessionId": "s9"}}),
    );
    assert!(matches!(error.data, Some(ErrorData::SessionNotFound(_))));
    let error: acp_types::v2::Error = valid(
        "Error",
        json!({"code": 1, "message": "m", "data": ["anything"]}),
    );
    assert!(matches!(error.data, Some(ErrorData::Other(_))));
}

#[test]
fn v2_request_ids_are_never_null() {
    invalid(
        "ClientRequest",
        json!({"id": null, "method": "session/list"}),
    );
    invalid(
        "AgentRequest",
        json!({"id": null, "method": "session/request_permission"}),
    );
    let _: ClientRequest = valid(
        "ClientRequest",
        json!({"id": "a", "method": "session/list"}),
    );
    // Only an error response to an unreadable request has a `null` id.
    let response: AgentResponse = valid(
        "AgentResponse",
        json!({"id": null, "error": {"code": -32700, "message": "Parse error"}}),
    );
    assert_eq!(response.id(), None);
    invalid("AgentResponse", json!({"id": null, "result": {}}));
    // Both a result and an error: the schema's `anyOf` lets the result branch take it (extra
    // members are allowed), but JSON-RPC 2.0 (§5) says a response has exactly one of them, and
    // a response cannot be both an answer and a failure: we refuse it.
    let both = json!({"id": 1, "result": {}, "error": {"code": 1, "message": "m"}});
    if V2Spec::load().official {
        assert!(V2Spec::load().is_valid("AgentResponse", &both));
    }
    let error = acp_types::from_value::<AgentResponse>(both).expect_err("refused");
    assert!(error.to_string().contains("not both"), "{error}");
}

#[test]
fn slash_commands_and_mcp_servers_are_tagged() {
    let SessionUpdate::AvailableCommandsUpdate(commands) = update(json!({
        "sessionUpdate": "available_commands_update", "availableCommands": [
            {"type": "command", "name": "search", "description": "Search the codebase",
             "input": {"type": "text", "hint": "query"}}]}))
    else {
        panic!("commands")
    };
    assert_eq!(commands.available_commands.len(), 1);
    invalid(
        "AvailableCommand",
        json!({"name": "search", "description": "d"}),
    );
    invalid("McpServer", json!({"name": "fs", "command": "/bin/mcp-fs"}));
    let _: acp_types::v2::McpServer = valid(
        "McpServer",
        json!({"type": "stdio", "name": "fs", "command": "/bin/mcp-fs"}),
    );
}
