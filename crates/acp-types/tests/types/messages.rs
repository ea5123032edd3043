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

// ---------------------------------------------------------------------------------------------
// Hardening: null ids, keys given twice, exact numbers in unknown fields, surrogates.

#[test]
fn a_request_with_a_null_id_is_a_request_on_every_path() {
    let json = br#"{"jsonrpc":"2.0","id":null,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#;
    let raw = RawMessage::parse(json).unwrap();
    assert!(raw.is_request(), "{raw:?}");
    assert_eq!(raw.id, Some(RequestId::Null));
    let Message::Request(request) = ClientMessage::decode(json, no_pending).unwrap() else {
        panic!("a request")
    };
    assert_eq!(request.id, RequestId::Null);
    assert_eq!(request.method(), "session/new");
    assert_eq!(serde_json::to_vec(&request).unwrap(), json);
    let request = ClientRequest::decode(json).unwrap();
    assert!(request.id.is_null());
    // A notification and a response are still told apart from it by `method` and `id`.
    let response =
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
    assert!(RawMessage::parse(response).unwrap().is_response());
}

#[test]
fn an_extension_request_whose_id_comes_after_its_params_decodes() {
    // The params are read before the id says it is a request (this used to panic).
    let json = br#"{"jsonrpc":"2.0","method":"_x/y","params":{"b":1.50,"a":[1]},"id":7}"#;
    let Message::Request(request) = ClientMessage::decode(json, no_pending).unwrap() else {
        panic!("a request")
    };
    assert_eq!(request.id, RequestId::Number(7));
    let ClientRequestParams::Ext(ext) = &request.params else {
        panic!("extension params")
    };
    assert_eq!(ext.get(), r#"{"b":1.50,"a":[1]}"#);
    let Message::Request(request) = AgentMessage::decode(json, no_pending).unwrap() else {
        panic!("a request")
    };
    assert_eq!(request.method(), "_x/y");
}

/// The envelope members, each given twice, in messages the connection layer and the typed
/// decoders must refuse alike.
const ENVELOPES_WITH_A_MEMBER_TWICE: [(&str, &str); 6] = [
    (
        r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/a","mcpServers":[]},"params":{"cwd":"/b","mcpServers":[]}}"#,
        "params",
    ),
    (
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a"},"method":"_x"}"#,
        "method",
    ),
    (
        r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/a","mcpServers":[]},"id":null}"#,
        "id",
    ),
    (
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a"}}"#,
        "jsonrpc",
    ),
    (
        r#"{"jsonrpc":"2.0","id":3,"result":{},"result":null}"#,
        "result",
    ),
    (
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"a"},"error":{"code":2,"message":"b"}}"#,
        "error",
    ),
];

#[test]
fn an_envelope_member_given_twice_is_refused_on_every_path() {
    for (json, member) in ENVELOPES_WITH_A_MEMBER_TWICE {
        let needle = format!("duplicate field `{member}`");
        let err = RawMessage::parse(json.as_bytes()).expect_err(json);
        assert_eq!(err.kind(), DecodeErrorKind::InvalidMessage, "{json}: {err}");
        assert!(err.message().contains(&needle), "{json}: {err}");
        for method in [None, Some("session/prompt")] {
            let err = ClientMessage::decode(json.as_bytes(), |_| method).expect_err(json);
            assert_eq!(err.kind(), DecodeErrorKind::InvalidMessage, "{json}: {err}");
            assert!(err.message().contains(&needle), "{json}: {err}");
            let err = AgentMessage::decode(json.as_bytes(), |_| method).expect_err(json);
            assert_eq!(err.kind(), DecodeErrorKind::InvalidMessage, "{json}: {err}");
        }
    }
    // Members JSON-RPC does not define are ignored, twice or not.
    let json =
        br#"{"jsonrpc":"2.0","x":1,"x":2,"method":"session/cancel","params":{"sessionId":"a"}}"#;
    assert!(RawMessage::parse(json).is_ok());
    assert!(ClientMessage::decode(json, no_pending).is_ok());
}

/// Objects with a key given twice, at some depth, and the path of the object that has it.
const OBJECTS_WITH_A_KEY_TWICE: [(&str, &str, &str); 10] = [
    // A known field of a wire object.
    (r#"{"cwd":"/a","mcpServers":[],"cwd":"/b"}"#, "", "cwd"),
    // An unknown field.
    (r#"{"cwd":"/a","mcpServers":[],"x":1,"x":2}"#, "", "x"),
    // The tag of a union, first and later.
    (
        r#"{"sessionId":"s","prompt":[{"type":"text","text":"a","type":"image"}]}"#,
        "prompt[0]",
        "type",
    ),
    // A union whose tag is not first.
    (
        r#"{"sessionId":"s","prompt":[{"text":"a","text":"b","type":"text"}]}"#,
        "prompt[0]",
        "text",
    ),
    (
        r#"{"sessionId":"s","prompt":[{"x":1,"x":2,"type":"text","text":"a"}]}"#,
        "prompt[0]",
        "x",
    ),
    // Inside `_meta`, and inside a JSON value kept in an unknown field.
    (
        r#"{"cwd":"/a","mcpServers":[],"_meta":{"k":1,"k":2}}"#,
        "_meta",
        "k",
    ),
    (
        r#"{"cwd":"/a","mcpServers":[],"x":{"deep":[{"k":1,"k":2}]}}"#,
        "x",
        "k",
    ),
    // Deeper inside `_meta`.
    (
        r#"{"cwd":"/a","mcpServers":[],"_meta":{"a":{"b":{},"b":{}}}}"#,
        "_meta",
        "b",
    ),
    // Inside an object decoded through a buffered value (tag not first, then nested).
    (
        r#"{"sessionId":"s","prompt":[{"resource":{"uri":"u","text":"t","uri":"v"},"type":"resource"}]}"#,
        "prompt[0]",
        "uri",
    ),
    (
        r#"{"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"u","text":"t","uri":"v"}}]}"#,
        "prompt[0]",
        "uri",
    ),
];

#[test]
fn a_key_given_twice_in_a_map_field_is_refused_even_where_invalid_values_default() {
    // `env` falls back to its default when invalid; a key given twice is not "invalid", it
    // makes the document ambiguous.
    let doc = r#"{"id":"t","name":"T","env":{"A":"1","A":"2"}}"#;
    let err = acp_types::from_str::<AuthMethodTerminal>(doc).unwrap_err();
    assert!(err.to_string().contains("duplicate field `A`"), "{err}");
    let doc = r#"{"content":{"a":"x","a":"y"}}"#;
    let err = acp_types::from_str::<ElicitationAcceptAction>(doc).unwrap_err();
    assert!(err.to_string().contains("duplicate field `a`"), "{err}");
}

#[test]
fn a_key_given_twice_is_refused_at_every_depth_on_every_path() {
    for (params, within, key) in OBJECTS_WITH_A_KEY_TWICE {
        let needle = format!("duplicate field `{key}`");
        let method = if params.contains("prompt") {
            "session/prompt"
        } else {
            "session/new"
        };
        // The params on their own, through every decoder of the crate.
        let check = |what: &str, err: Option<String>| {
            let err = err.unwrap_or_else(|| panic!("{what} accepted {params}"));
            assert!(err.contains(&needle), "{what}: {params}: {err}");
        };
        let message =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#);
        let typed = ClientMessage::decode(message.as_bytes(), no_pending).map(|_| ());
        let err = typed.expect_err(params);
        assert_eq!(err.kind(), DecodeErrorKind::InvalidData, "{params}: {err}");
        let object = format!("params.{within}");
        assert!(
            err.path().starts_with(object.trim_end_matches('.')),
            "{params}: {err}"
        );
        check("Message::decode", Some(err.to_string()));
        let raw = RawMessage::parse(message.as_bytes()).unwrap();
        check(
            "RawMessage::decode_params",
            raw.decode_params::<ClientRequestParams>()
                .err()
                .map(|e| e.to_string()),
        );
        if method == "session/prompt" {
            check(
                "from_str",
                acp_types::from_str::<PromptRequest>(params)
                    .err()
                    .map(|e| e.to_string()),
            );
            check(
                "serde_json",
                serde_json::from_str::<PromptRequest>(params)
                    .err()
                    .map(|e| e.to_string()),
            );
        } else {
            check(
                "from_slice",
                acp_types::from_slice::<NewSessionRequest>(params.as_bytes())
                    .err()
                    .map(|e| e.to_string()),
            );
            check(
                "serde_json",
                serde_json::from_str::<NewSessionRequest>(params)
                    .err()
                    .map(|e| e.to_string()),
            );
        }
    }
}

/// Number literals that a `serde_json::Value` would write back differently (or not at all).
const NUMBERS_A_VALUE_CHANGES: [&str; 10] = [
    "123456789012345678901234567890",
    "-123456789012345678901234567890",
    "18446744073709551616",
    "1e400",
    "-1e400",
    "-0",
    "1.0000000000000000001",
    "1.50",
    "1E5",
    "1e-400",
];

#[test]
fn unknown_fields_keep_the_exact_text_of_their_numbers() {
    for number in NUMBERS_A_VALUE_CHANGES {
        for doc in [
            format!(r#"{{"type":"text","text":"a","x":{number}}}"#),
            format!(r#"{{"x":[{number},{{"y":{number}}}],"type":"text","text":"a"}}"#),
            format!(r#"{{"type":"resource_link","name":"n","uri":"u","x":{{"deep":[{number}]}}}}"#),
        ] {
            let block: ContentBlock =
                acp_types::from_str(&doc).unwrap_or_else(|e| panic!("{doc}: {e}"));
            let again = serde_json::to_string(&block).unwrap();
            let again: ContentBlock = acp_types::from_str(&again).unwrap();
            assert_eq!(again, block, "{doc}");
            // Key order aside (unknown fields come last), the text is the same.
            let text = serde_json::to_string(&block).unwrap();
            assert!(text.contains(number), "{doc} -> {text}");
            let plain: ContentBlock = serde_json::from_str(&doc).unwrap();
            assert_eq!(serde_json::to_string(&plain).unwrap(), text, "{doc}");
        }
        // In a message, through the typed envelope decoder.
        let json = format!(
            r#"{{"jsonrpc":"2.0","method":"session/cancel","params":{{"sessionId":"s","x":{number}}}}}"#
        );
        let message = ClientMessage::decode(json.as_bytes(), no_pending).unwrap();
        assert_eq!(serde_json::to_string(&message).unwrap(), json);
    }
    // A changed value is written from the value; an unchanged one keeps its text.
    let mut block: TextContent = acp_types::from_str(r#"{"text":"a","x":1.50,"y":-0}"#).unwrap();
    block
        .extras_mut()
        .unknown_fields_mut()
        .insert("x".into(), json!(2));
    assert_eq!(
        serde_json::to_string(&block).unwrap(),
        r#"{"text":"a","x":2,"y":-0}"#
    );
    // The value shows the nearest number a `Value` holds.
    let block: TextContent = acp_types::from_str(r#"{"text":"a","x":1e400}"#).unwrap();
    assert_eq!(
        block.extras().unknown_fields().unwrap()["x"],
        json!(f64::MAX)
    );
    // Two texts of the same value are different values.
    let a: TextContent = acp_types::from_str(r#"{"text":"a","x":1.50}"#).unwrap();
    let b: TextContent = acp_types::from_str(r#"{"text":"a","x":1.5}"#).unwrap();
    assert_ne!(a, b);
}

#[test]
fn a_lone_surrogate_is_named_as_such_with_its_path() {
    for text in [
        r#""\ud800""#,
        r#""a\ud800b""#,
        r#""\udc00""#,
        r#""\ud800\u0041""#,
    ] {
        let doc = format!(r#"{{"sessionId":"s","prompt":[{{"type":"text","text":{text}}}]}}"#);
        let err = acp_types::from_str::<PromptRequest>(&doc).unwrap_err();
        assert!(
            err.message().starts_with("lone surrogate in string"),
            "{doc}: {err}"
        );
        assert_eq!(err.path(), "prompt[0].text", "{doc}: {err}");
        let message =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{doc}}}"#);
        let err = ClientMessage::decode(message.as_bytes(), no_pending).unwrap_err();
        assert!(
            err.message().starts_with("lone surrogate in string"),
            "{message}: {err}"
        );
        assert_eq!(err.path(), "params.prompt[0].text", "{message}: {err}");
    }
    let err = RawMessage::parse(br#"{"jsonrpc":"2.0","method":"\ud800"}"#).unwrap_err();
    assert!(
        err.message().starts_with("lone surrogate in string"),
        "{err}"
    );
    // A surrogate pair is a character.
    let doc = r#"{"type":"text","text":"\ud83d\ude00"}"#;
    assert!(acp_types::from_str::<ContentBlock>(doc).is_ok());
}

/// Floats in typed fields decode to the nearest double, so that what we write back (the
/// shortest text that reads as the same double) decodes to the very same value: a decode →
/// encode → decode is stable. serde_json's default float parser can be one unit off in the last
/// place; the workspace enables its `float_roundtrip` feature for this. (In this test build the
/// feature is on whatever the workspace says, as `jsonschema`, a dev-dependency, enables it too;
/// the fuzz smoke run, built without it, holds the regression that failed before.)
#[test]
fn floats_decode_to_the_nearest_double_and_re_encode_stably() {
    fn stable(text: &str) {
        let doc = format!(r#"{{"amount":{text},"currency":"USD"}}"#);
        let first: Cost = acp_types::from_str(&doc).unwrap_or_else(|e| panic!("{doc}: {e}"));
        let encoded = serde_json::to_string(&first).unwrap();
        let second: Cost = acp_types::from_str(&encoded).unwrap();
        assert_eq!(
            first.amount.to_bits(),
            second.amount.to_bits(),
            "{doc} -> {encoded}"
        );
        let value: ElicitationContentValue = acp_types::from_str(text).unwrap();
        let again: ElicitationContentValue =
            acp_types::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
        assert_eq!(value, again, "{text}");
    }
    // Found by the `types_definitions` fuzz target: an 86-digit integer read as a float.
    stable(&format!("{}2", "4".repeat(85)));
    stable("4.444444444444445e85");
    for text in [
        "0.1",
        "0.30000000000000004",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
    ] {
        stable(text);
    }
    // Finite doubles spread over the whole range (a fixed xorshift sequence of bit patterns).
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = f64::from_bits(state);
        if x.is_finite() {
            let text = serde_json::to_string(&x).unwrap();
            let back: Cost =
                acp_types::from_str(&format!(r#"{{"amount":{text},"currency":"USD"}}"#)).unwrap();
            assert_eq!(back.amount.to_bits(), x.to_bits(), "{text}");
        }
    }
}
