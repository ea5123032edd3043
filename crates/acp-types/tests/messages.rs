//! JSON-RPC envelopes: what each kind of broken message is reported as, what built messages
//! look like on the wire, and the details of exactness (raw extension params, explicit nulls,
//! integer literals).

use acp_testkit::Spec;
use acp_types::*;
use serde_json::{Value, json};

fn no_pending(_: &RequestId) -> Option<&'static str> {
    None
}

fn kind_of_client_message(json: &str) -> DecodeErrorKind {
    ClientMessage::decode(json.as_bytes(), no_pending)
        .expect_err("the message is broken")
        .kind()
}

#[test]
fn broken_json_is_a_syntax_error() {
    assert_eq!(
        kind_of_client_message("{\"jsonrpc\":"),
        DecodeErrorKind::Syntax
    );
    assert_eq!(kind_of_client_message("nope"), DecodeErrorKind::Syntax);
    let err = RawMessage::parse(b"{\"jsonrpc\": \"2.0\", ").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Syntax);
}

#[test]
fn value_decoders_tell_syntax_errors_from_invalid_data() {
    let err = acp_types::from_str::<ContentBlock>("{\"type\": ").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Syntax);
    let err = acp_types::from_slice::<ContentBlock>(b"[1]").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::InvalidData);
    assert_eq!(err.path(), "");
    let err = acp_types::from_value::<ContentBlock>(json!({"type": "text"})).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::InvalidData);
    assert!(err.message().contains("text"), "{err}");
}

#[test]
fn trailing_garbage_is_a_syntax_error() {
    let json = r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}} x"#;
    assert_eq!(kind_of_client_message(json), DecodeErrorKind::Syntax);
}

#[test]
fn batches_are_rejected_as_invalid_messages() {
    let json = r#"[{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}]"#;
    let err = ClientMessage::decode(json.as_bytes(), no_pending).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::InvalidMessage);
    assert!(err.message().contains("batch"), "{err}");
    let err = RawMessage::parse(json.as_bytes()).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::InvalidMessage);
}

#[test]
fn envelope_violations_are_invalid_messages() {
    for json in [
        r#"{"jsonrpc":"1.0","method":"session/cancel","params":{"sessionId":"s"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"session/cancel","params":{"sessionId":"s"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"logout","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0"}"#,
    ] {
        let err =
            ClientMessage::decode(json.as_bytes(), |_| Some("fs/write_text_file")).expect_err(json);
        assert_eq!(err.kind(), DecodeErrorKind::InvalidMessage, "{json}: {err}");
        let err = RawMessage::parse(json.as_bytes()).expect_err(json);
        assert_eq!(err.kind(), DecodeErrorKind::InvalidMessage, "{json}: {err}");
    }
}

#[test]
fn unknown_methods_and_responses_are_told_apart() {
    let json = r#"{"jsonrpc":"2.0","id":1,"method":"session/frobnicate","params":{}}"#;
    assert_eq!(kind_of_client_message(json), DecodeErrorKind::UnknownMethod);
    // An agent method sent by the agent is unknown to the agent's message union.
    let json = r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}"#;
    let err = AgentMessage::decode(json.as_bytes(), no_pending).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::UnknownMethod);
    let json = r#"{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}"#;
    let err = AgentMessage::decode(json.as_bytes(), no_pending).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::UnknownResponse);
}

#[test]
fn invalid_params_name_the_offending_field_whatever_the_key_order() {
    for json in [
        r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":5}]}}"#,
        r#"{"params":{"prompt":[{"text":5,"type":"text"}],"sessionId":"s"},"method":"session/prompt","id":1,"jsonrpc":"2.0"}"#,
    ] {
        let err = ClientMessage::decode(json.as_bytes(), no_pending).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::InvalidData);
        assert_eq!(err.path(), "params.prompt[0].text", "{json}");
        assert!(
            err.to_string().starts_with("at `params.prompt[0].text`: "),
            "{err}"
        );
        let raw = RawMessage::parse(json.as_bytes()).unwrap();
        let err = raw.decode_params::<ClientRequestParams>().unwrap_err();
        assert_eq!(err.path(), "params.prompt[0].text");
    }
}

#[test]
fn invalid_results_name_the_offending_field() {
    let json = r#"{"jsonrpc":"2.0","id":1,"result":{"stopReason":7}}"#;
    let err = AgentMessage::decode(json.as_bytes(), |_| Some("session/prompt")).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::InvalidData);
    assert_eq!(err.path(), "result.stopReason");
}

#[test]
fn raw_message_classifies_messages() {
    let request = RawMessage::parse(br#"{"jsonrpc":"2.0","id":"a","method":"logout"}"#).unwrap();
    assert!(request.is_request() && !request.is_notification() && !request.is_response());
    let note = RawMessage::parse(br#"{"jsonrpc":"2.0","method":"_x/y"}"#).unwrap();
    assert!(note.is_notification());
    let response = RawMessage::parse(br#"{"jsonrpc":"2.0","id":3,"result":null}"#).unwrap();
    assert!(response.is_response());
    assert_eq!(response.id, Some(RequestId::Number(3)));
}

#[test]
fn extension_params_are_kept_as_the_exact_text() {
    let json = br#"{"jsonrpc":"2.0","id":1,"method":"_zed/x","params":{"b": 1.50, "a":[ 1 ]}}"#;
    let Message::Request(request) = ClientMessage::decode(json, no_pending).unwrap() else {
        panic!("a request")
    };
    assert_eq!(request.method(), "_zed/x");
    let ClientRequestParams::Ext(ext) = &request.params else {
        panic!("extension params")
    };
    assert_eq!(ext.get(), r#"{"b": 1.50, "a":[ 1 ]}"#);
    assert_eq!(ext.method, "_zed/x");
}

#[test]
fn built_messages_are_valid_on_the_wire() {
    let prompt = ClientRequest::new(
        7,
        PromptRequest::new("sess-1", vec![ContentBlock::from("hi")]),
    );
    let json = serde_json::to_value(&prompt).unwrap();
    assert_eq!(
        json,
        json!({"jsonrpc": "2.0", "id": 7, "method": "session/prompt",
               "params": {"sessionId": "sess-1", "prompt": [{"type": "text", "text": "hi"}]}})
    );
    let ok = AgentResponse::ok(7, PromptResponse::new(StopReason::EndTurn));
    let failed = AgentResponse::error("x", acp_types::Error::auth_required());
    let update = AgentNotification::new(SessionNotification::new(
        "sess-1",
        SessionUpdate::AgentMessageChunk(ContentChunk::new("Hello")),
    ));
    let permission = ClientResponse::ok(3, RequestPermissionResponse::cancelled());
    let messages = [
        json,
        serde_json::to_value(&ok).unwrap(),
        serde_json::to_value(&failed).unwrap(),
        serde_json::to_value(&update).unwrap(),
        serde_json::to_value(&permission).unwrap(),
    ];
    assert_eq!(
        messages[4],
        json!({"jsonrpc": "2.0", "id": 3, "result": {"outcome": {"outcome": "cancelled"}}})
    );
    let Some(spec) = Spec::load_or_skip() else {
        return;
    };
    for message in &messages {
        spec.assert_valid_message(message);
    }
}

#[test]
fn a_null_result_is_written_back_while_the_result_stays_empty() {
    let json = br#"{"jsonrpc":"2.0","id":4,"result":null}"#;
    let Message::Response(mut response) =
        ClientMessage::decode(json, |_| Some("terminal/wait_for_exit")).unwrap()
    else {
        panic!("a response")
    };
    assert_eq!(
        serde_json::to_value(&response).unwrap(),
        json!({"jsonrpc": "2.0", "id": 4, "result": null})
    );
    if let Ok(ClientResult::WaitForTerminalExit(exit)) = &mut response.result {
        exit.exit_code = Some(0);
    } else {
        panic!("typed by the method");
    }
    assert_eq!(
        serde_json::to_value(&response).unwrap(),
        json!({"jsonrpc": "2.0", "id": 4, "result": {"exitCode": 0}})
    );
}

#[test]
fn explicit_nulls_and_unknown_fields_survive_and_setters_override_them() {
    let doc = json!({"toolCallId": "t", "title": null, "x-new": [1]});
    let update: ToolCallUpdate = acp_types::from_value(doc.clone()).unwrap();
    assert!(update.extras().was_null("title"));
    assert_eq!(
        update.extras().unknown_fields().unwrap()["x-new"],
        json!([1])
    );
    assert_eq!(serde_json::to_value(&update).unwrap(), doc);
    let renamed = update.title("Read");
    assert_eq!(
        serde_json::to_value(&renamed).unwrap(),
        json!({"toolCallId": "t", "title": "Read", "x-new": [1]})
    );
}

#[test]
fn numbers_keep_their_integer_or_float_form() {
    let cost: Cost = acp_types::from_str(r#"{"amount":5,"currency":"EUR"}"#).unwrap();
    assert_eq!(cost.amount, 5.0);
    assert!(cost.extras().number_form_kept("amount"));
    assert_eq!(
        serde_json::to_string(&cost).unwrap(),
        r#"{"amount":5,"currency":"EUR"}"#
    );
    let float: Cost = acp_types::from_str(r#"{"amount":5.0,"currency":"EUR"}"#).unwrap();
    assert_eq!(
        serde_json::to_string(&float).unwrap(),
        r#"{"amount":5.0,"currency":"EUR"}"#
    );
    // A value that is no longer integral is written as a float.
    let mut changed = cost.clone();
    changed.amount = 5.25;
    assert_eq!(
        serde_json::to_value(&changed).unwrap()["amount"],
        json!(5.25)
    );
    // Integer fields keep the float form that JSON Schema counts as an integer.
    let usage: UsageUpdate = acp_types::from_str(r#"{"used":5.0,"size":10}"#).unwrap();
    assert_eq!(usage.used, 5);
    assert!(usage.extras().number_form_kept("used"));
    assert_eq!(
        serde_json::to_string(&usage).unwrap(),
        r#"{"used":5.0,"size":10}"#
    );
    assert!(acp_types::from_str::<UsageUpdate>(r#"{"used":5.5,"size":10}"#).is_err());
    // A built value has no integer form to keep.
    let built = Cost::new(5.0, "EUR");
    assert_eq!(
        serde_json::to_string(&built).unwrap(),
        r#"{"amount":5.0,"currency":"EUR"}"#
    );
}

#[test]
fn decode_errors_of_plain_serde_carry_the_path_in_the_message() {
    let json = r#"{"sessionId":"s","prompt":[{"text":5,"type":"text"}]}"#;
    let err = serde_json::from_str::<PromptRequest>(json).unwrap_err();
    assert!(err.to_string().starts_with("at `text`: "), "{err}");
    let err = acp_types::from_str::<PromptRequest>(json).unwrap_err();
    assert_eq!(err.path(), "prompt[0].text");
    assert!(!err.message().contains("at `"), "{err:?}");
}

#[test]
fn request_ids_keep_their_form() {
    for id in [json!(0), json!(-1), json!(i64::MAX), json!("7"), json!("")] {
        let parsed: RequestId = acp_types::from_value(id.clone()).unwrap();
        assert_eq!(serde_json::to_value(&parsed).unwrap(), id);
    }
    assert_eq!(RequestId::from(7).to_string(), "7");
    assert_eq!(RequestId::from("7").to_string(), "\"7\"");
    let value: Value = serde_json::to_value(RequestId::Null).unwrap();
    assert!(value.is_null());
}
