//! Building messages by hand: setters take bare literals, `Option`s chain through `maybe`,
//! explicit `null`s are sent on request, paths go in as paths, and the conversions and error
//! constructors an author reaches for exist. Every built message is checked against the schema.

use std::path::PathBuf;

use acp_testkit::Spec;
use acp_types::*;
use serde_json::{Value, json};

fn valid(def: &str, value: &impl serde::Serialize) -> Value {
    let json = serde_json::to_value(value).expect("serializes");
    if let Err(e) = Spec::load().check_def(def, &json) {
        panic!("{def} rejected by the schema: {e}\n{json}");
    }
    json
}

#[test]
fn number_setters_take_bare_literals() {
    let read = ReadTextFileRequest::new("s", "/a.txt").line(1).limit(20);
    assert_eq!((read.line, read.limit), (Some(1), Some(20)));
    let location = ToolCallLocation::new("/a.txt").line(7);
    assert_eq!(location.line, Some(7));
    // A variable of the field's own type, too.
    let line: u32 = 3;
    assert_eq!(ToolCallLocation::new("/a").line(line).line, Some(3));
    valid("ReadTextFileRequest", &read);
}

#[test]
fn other_setters_still_convert() {
    let call = ToolCall::new("c", "Read")
        .kind(ToolKind::Read)
        .content(vec![ToolCallContent::from("text")]);
    assert_eq!(call.kind, Some(ToolKind::Read));
    let info = SessionInfo::new("s", "/w")
        .title("Title")
        .updated_at(String::from("now"));
    assert_eq!(info.title.as_deref(), Some("Title"));
}

#[test]
fn maybe_chains_a_setter_with_an_option() {
    let none: Option<u32> = None;
    let location = ToolCallLocation::new("/a")
        .maybe(Some(4), ToolCallLocation::line)
        .maybe(none, ToolCallLocation::line);
    assert_eq!(location.line, Some(4), "None leaves the field as it was");
    let title: Option<&str> = Some("T");
    let info = SessionInfo::new("s", "/w").maybe(title, SessionInfo::title);
    assert_eq!(info.title.as_deref(), Some("T"));
}

#[test]
fn set_null_sends_an_explicit_null_where_the_schema_allows_it() {
    let mut read = ReadTextFileRequest::new("s", "/a.txt").limit(5);
    assert!(read.set_null("limit"));
    assert_eq!(read.limit, None);
    let json = valid("ReadTextFileRequest", &read);
    assert_eq!(json["limit"], Value::Null);
    assert!(json.as_object().unwrap().contains_key("limit"));
    // Setting the field again replaces the null: the value is the same as one never null.
    let json = valid("ReadTextFileRequest", &read.clone().limit(9));
    assert_eq!(json["limit"], 9);
    assert_eq!(
        read.clone().limit(9),
        ReadTextFileRequest::new("s", "/a.txt").limit(9)
    );
    // Required fields, unknown names and non-nullable fields are refused.
    assert!(!read.set_null("path"));
    assert!(!read.set_null("nope"));
    let mut init = InitializeRequest::new(ProtocolVersion::V1);
    assert!(!init.set_null("clientCapabilities"));
    let json = serde_json::to_value(&init).unwrap();
    assert!(!json.as_object().unwrap().contains_key("clientCapabilities"));
}

#[test]
fn paths_go_in_as_paths() {
    let path = PathBuf::from("/work/src/main.rs");
    let read = ReadTextFileRequest::new("s", &path);
    assert_eq!(read.path, "/work/src/main.rs");
    let write = WriteTextFileRequest::new("s", path.as_path(), "x");
    assert_eq!(write.path, "/work/src/main.rs");
    let diff = Diff::new(&path, "new");
    assert_eq!(diff.path, "/work/src/main.rs");
    assert_eq!(ToolCallLocation::new(&path).path, "/work/src/main.rs");
    let cwd = std::env::temp_dir();
    let new = NewSessionRequest::new(&cwd, Vec::<McpServer>::new());
    assert_eq!(new.cwd, cwd.display().to_string());
    // Text still works.
    assert_eq!(NewSessionRequest::new("/w", vec![]).cwd, "/w");
}

#[test]
fn load_takes_the_session_then_the_arguments_of_new() {
    let load = LoadSessionRequest::new("sess-1", "/w", Vec::<McpServer>::new());
    assert_eq!(load.session_id.as_str(), "sess-1");
    assert_eq!(load.cwd, "/w");
    valid("LoadSessionRequest", &load);
}

#[test]
fn updates_convert_into_session_updates() {
    let mode = SessionUpdate::from(CurrentModeUpdate::new("ask"));
    assert_eq!(
        valid("SessionUpdate", &mode)["sessionUpdate"],
        "current_mode_update"
    );
    let chunk = SessionUpdate::from(ContentChunk::new("hi"));
    assert_eq!(
        valid("SessionUpdate", &chunk)["sessionUpdate"],
        "agent_message_chunk"
    );
    let usage = SessionUpdate::from(UsageUpdate::new(10, 100).cost(Cost::new(1, "USD")));
    assert_eq!(
        valid("SessionUpdate", &usage)["sessionUpdate"],
        "usage_update"
    );
    let content = ToolCallContent::from(String::from("done"));
    assert_eq!(
        valid("ToolCallContent", &content)["content"]["text"],
        "done"
    );
    let method = AuthMethod::from(AuthMethodAgent::new("login", "Log in"));
    assert_eq!(valid("AuthMethod", &method)["id"], "login");
}

#[test]
fn error_constructors_say_what_was_not_found_and_carry_data() {
    let e = ErrorObject::invalid_params_with("bad line", json!({"field": "line"}));
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(e.data, Some(json!({"field": "line"})));
    let e = ErrorObject::session_not_found("sess-9");
    assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(e.data, Some(json!({"sessionId": "sess-9"})));
    let e = ErrorObject::terminal_not_found("term-1");
    assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(e.data, Some(json!({"terminalId": "term-1"})));
    assert!(e.message.contains("term-1"), "{}", e.message);
    let e = ErrorObject::resource_not_found("file:///a");
    assert_eq!(e.data, Some(json!({"uri": "file:///a"})));
}

/// The alias trait methods return: `Result<T>` is `Result<T, ErrorObject>`, and the standard
/// two-parameter form still works with the glob import.
#[test]
fn the_result_alias_defaults_to_the_error_object() {
    fn answer(ok: bool) -> Result<PromptResponse> {
        if ok {
            Ok(PromptResponse::new(StopReason::EndTurn))
        } else {
            Err(ErrorObject::request_cancelled())
        }
    }
    fn standard() -> Result<u8, std::num::ParseIntError> {
        "7".parse()
    }
    assert!(answer(true).is_ok());
    assert_eq!(
        answer(false).unwrap_err().code,
        ErrorCode::REQUEST_CANCELLED
    );
    assert_eq!(standard(), Ok(7));
}

#[test]
fn equality_does_not_depend_on_the_order_of_keys() {
    let decode = |text: &str| acp_types::from_slice::<NewSessionResponse>(text.as_bytes()).unwrap();
    let a = decode(r#"{"sessionId":"s","modes":null,"configOptions":null,"x":1,"y":[2]}"#);
    let b = decode(r#"{"configOptions":null,"y":[2],"modes":null,"sessionId":"s","x":1}"#);
    assert_eq!(a, b);
    // Unknown fields whose numbers only their text keeps, in either order.
    let big = "123456789012345678901234567890";
    let c = decode(&format!(r#"{{"sessionId":"s","p":{big},"q":{big}.5}}"#));
    let d = decode(&format!(r#"{{"q":{big}.5,"sessionId":"s","p":{big}}}"#));
    assert_eq!(c, d);
    // Still told apart when they differ.
    assert_ne!(a, decode(r#"{"sessionId":"s","modes":null,"x":1,"y":[2]}"#));
    assert_ne!(
        c,
        decode(&format!(r#"{{"sessionId":"s","p":{big},"q":{big}.25}}"#))
    );
}
