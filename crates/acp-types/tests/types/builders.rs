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

#[test]
fn optional_path_setters_take_paths_and_lists_of_paths() {
    let dir = PathBuf::from("/work/project");
    let terminal = CreateTerminalRequest::new("s", "make").cwd(&dir);
    assert_eq!(terminal.cwd.as_deref(), Some("/work/project"));
    valid("CreateTerminalRequest", &terminal);
    let list = ListSessionsRequest::new().cwd(dir.as_path());
    assert_eq!(list.cwd.as_deref(), Some("/work/project"));
    let extra = [dir.join("lib"), dir.join("docs")];
    let new = NewSessionRequest::new(&dir, vec![]).additional_directories(&extra);
    let expected = Some(vec![
        "/work/project/lib".to_owned(),
        "/work/project/docs".to_owned(),
    ]);
    assert_eq!(new.additional_directories, expected);
    valid("NewSessionRequest", &new);
    // Text still works, as a list of strings or of string slices.
    let load =
        LoadSessionRequest::new("s", "/w", vec![]).additional_directories(vec![String::from("/a")]);
    assert_eq!(load.additional_directories, Some(vec!["/a".to_owned()]));
    let resume = ResumeSessionRequest::new("s", "/w").additional_directories(["/a", "/b"]);
    assert_eq!(resume.additional_directories.map(|d| d.len()), Some(2));
    let info = SessionInfo::new("s", "/w").additional_directories(Vec::<PathBuf>::new());
    assert_eq!(info.additional_directories, Some(vec![]));
    // Required path fields are set the same way, and setting clears a received explicit null.
    let moved = NewSessionRequest::new("/w", vec![]).cwd(dir.join("sub"));
    assert_eq!(moved.cwd, "/work/project/sub");
    let mut list = ListSessionsRequest::new();
    assert!(list.set_null("cwd"));
    assert_eq!(serde_json::to_value(&list).unwrap()["cwd"], Value::Null);
    let json = serde_json::to_value(list.cwd(&dir)).unwrap();
    assert_eq!(json["cwd"], "/work/project");
    // A setter chains with an `Option` of a path too.
    let none: Option<PathBuf> = None;
    let terminal = CreateTerminalRequest::new("s", "make")
        .maybe(Some(&dir), CreateTerminalRequest::cwd)
        .maybe(none, CreateTerminalRequest::cwd);
    assert_eq!(terminal.cwd.as_deref(), Some("/work/project"));
}

#[test]
fn ids_convert_from_a_borrowed_id() {
    let session = SessionId::new("sess-1");
    let call = ToolCallId::new("call-1");
    let terminal = TerminalId::new("term-1");
    // Constructors and setters take `&Id` wherever they take an id.
    let update = ToolCallUpdate::new(&call);
    assert_eq!(update.tool_call_id, call);
    let output = TerminalOutputRequest::new(&session, &terminal);
    assert_eq!(
        (&output.session_id, &output.terminal_id),
        (&session, &terminal)
    );
    let prompt = PromptRequest::new(&session, vec![ContentBlock::from("hi")]);
    assert_eq!(prompt.session_id, session);
    // The copy shares the text rather than copying it.
    let copy = SessionId::from(&session);
    assert!(std::sync::Arc::ptr_eq(&copy.0, &session.0));
    assert_eq!(ToolCallId::from(&call).as_str(), "call-1");
    assert_eq!(
        AuthMethodId::from(&AuthMethodId::new("login")).as_str(),
        "login"
    );
    assert_eq!(
        SessionModeId::from(&SessionModeId::new("ask")).as_str(),
        "ask"
    );
    let option = PermissionOptionId::new("allow");
    let selected = SelectedPermissionOutcome::new(&option);
    assert_eq!(selected.option_id, option);
}

#[test]
fn content_blocks_tell_their_uri_and_mime_type() {
    let image = ContentBlock::from(ImageContent::new("AAAA", "image/png"));
    assert_eq!((image.uri(), image.mime_type()), (None, Some("image/png")));
    let image = ContentBlock::from(ImageContent::new("AAAA", "image/png").uri("file:///shot.png"));
    assert_eq!(image.uri(), Some("file:///shot.png"));
    let audio = ContentBlock::from(AudioContent::new("AAAA", "audio/wav"));
    assert_eq!((audio.uri(), audio.mime_type()), (None, Some("audio/wav")));
    let link = ContentBlock::from(ResourceLink::new("a.rs", "file:///a.rs"));
    assert_eq!((link.uri(), link.mime_type()), (Some("file:///a.rs"), None));
    let link =
        ContentBlock::from(ResourceLink::new("a.rs", "file:///a.rs").mime_type("text/x-rust"));
    assert_eq!(link.mime_type(), Some("text/x-rust"));
    let text = TextResourceContents::new("fn main() {}", "file:///m.rs").mime_type("text/x-rust");
    let embedded = ContentBlock::from(EmbeddedResource::new(text));
    assert_eq!(
        (embedded.uri(), embedded.mime_type()),
        (Some("file:///m.rs"), Some("text/x-rust"))
    );
    let blob = ContentBlock::from(EmbeddedResource::new(BlobResourceContents::new(
        "AAEC",
        "file:///b.bin",
    )));
    assert_eq!(
        (blob.uri(), blob.mime_type()),
        (Some("file:///b.bin"), None)
    );
    let plain = ContentBlock::from("hello");
    assert_eq!((plain.uri(), plain.mime_type()), (None, None));
    // A block of an unknown type carries neither, whatever fields it has.
    let unknown: ContentBlock =
        acp_types::from_str(r#"{"type":"video","uri":"file:///v.mp4","mimeType":"video/mp4"}"#)
            .unwrap();
    assert_eq!((unknown.uri(), unknown.mime_type()), (None, None));
}

/// The generated constructors set exactly the required fields, in the documented order, and
/// leave every optional field absent: what they encode is the schema's minimal object.
#[test]
fn generated_constructors_leave_optional_fields_absent() {
    let info = SessionInfo::new("s", "/w");
    assert_eq!(
        valid("SessionInfo", &info),
        json!({"sessionId": "s", "cwd": "/w"})
    );
    let terminal = CreateTerminalRequest::new("s", "make");
    assert_eq!(
        valid("CreateTerminalRequest", &terminal),
        json!({"sessionId": "s", "command": "make"})
    );
    let option = PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce);
    assert_eq!(
        valid("PermissionOption", &option),
        json!({"optionId": "allow", "name": "Allow", "kind": "allow_once"})
    );
    let usage = UsageUpdate::new(10, 100);
    assert_eq!(
        valid("SessionUpdate", &SessionUpdate::from(usage)),
        json!({"sessionUpdate": "usage_update", "used": 10, "size": 100})
    );
    let error = ErrorObject::new(-32000, "boom");
    assert_eq!(
        serde_json::to_value(&error).unwrap(),
        json!({"code": -32000, "message": "boom"})
    );
    assert!(error.extras().is_empty());
}

#[test]
fn notices_compaction_and_tool_names_build_from_literals() {
    // Stable since November 2026: no feature needed.
    let notice = Notice::new(NoticeSeverity::Warning, "Rate limited").description("Retrying");
    let update = SessionNotification::new("s", SessionUpdate::Notice(notice));
    assert_eq!(
        valid("SessionNotification", &update)["update"]["sessionUpdate"],
        "notice"
    );
    let compaction = CompactionUpdate::new("cmp-1", CompactionStatus::Completed)
        .summary(vec![ContentBlock::from("kept")]);
    valid("CompactionUpdate", &compaction);
    let chunk = CompactionSummaryChunk::new("cmp-1", "more");
    let update = SessionNotification::new("s", SessionUpdate::CompactionSummaryChunk(chunk));
    valid("SessionNotification", &update);
    let call = ToolCall::new("t", "Read a.rs").name("read_file");
    assert_eq!(valid("ToolCall", &call)["name"], "read_file");
    let caps = ClientSessionCapabilities::new()
        .compaction(CompactionCapabilities::new())
        .notices(NoticeCapabilities::new());
    assert_eq!(
        valid("ClientSessionCapabilities", &caps),
        json!({"compaction": {}, "notices": {}})
    );
}
