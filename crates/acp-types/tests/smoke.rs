use serde_json::json;
fn rt<T: serde::de::DeserializeOwned + serde::Serialize>(v: serde_json::Value) {
    let t: T = acp_types::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"));
    assert_eq!(serde_json::to_value(&t).unwrap(), v);
    let t2: T = acp_types::from_slice(v.to_string().as_bytes()).unwrap();
    assert_eq!(serde_json::to_value(&t2).unwrap(), v);
}
#[test]
fn smoke() {
    rt::<acp_types::SessionNotification>(
        json!({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","annotations":null},"messageId":null,"zzz":1}}),
    );
    rt::<acp_types::SessionNotification>(
        json!({"update":{"content":{"text":"hi","type":"text"},"sessionUpdate":"agent_message_chunk"},"sessionId":"s"}),
    );
    rt::<acp_types::ContentBlock>(json!({"type":"future","x":1}));
    rt::<acp_types::McpServer>(json!({"name":"a","command":"b","args":[],"env":[]}));
    rt::<acp_types::McpServer>(json!({"type":"stdio","name":"a","command":"b","args":[],"env":[]}));
    rt::<acp_types::ToolKind>(json!("frob"));
    rt::<acp_types::SessionConfigOption>(
        json!({"id":"m","name":"Model","type":"select","currentValue":"a","options":[{"value":"a","name":"A"}]}),
    );
    let e = acp_types::from_value::<acp_types::RequestPermissionRequest>(json!({"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"a","name":"A","kind":5}]})).unwrap_err();
    println!("{e}");
    assert!(e.path().contains("options[0].kind"), "{e}");
    let e = acp_types::from_slice::<acp_types::RequestPermissionRequest>(br#"{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"a","name":"A","kind":5}]}"#).unwrap_err();
    assert!(e.path().contains("options[0].kind"), "{e}");
    // lenient: DOE
    let t: acp_types::ToolCall = acp_types::from_value(
        json!({"toolCallId":"t","title":"x","kind":5,"locations":[{"path":"/a"},{"nope":1}]}),
    )
    .unwrap();
    assert_eq!(t.kind, None);
    assert_eq!(t.locations.as_ref().unwrap().len(), 1);
    let t: acp_types::ToolCall = acp_types::from_slice(
        br#"{"toolCallId":"t","title":"x","kind":5,"locations":[{"path":"/a"},{"nope":1}]}"#,
    )
    .unwrap();
    assert_eq!(t.kind, None);
    assert_eq!(t.locations.as_ref().unwrap().len(), 1);
    let m = acp_types::ClientMessage::decode(br#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"x"}]}}"#, |_| None::<&str>).unwrap();
    println!("{m:?}");
    let m = acp_types::AgentMessage::decode(
        br#"{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}"#,
        |_| Some("session/prompt"),
    )
    .unwrap();
    println!("{m:?}");
    let e = acp_types::ClientMessage::decode(br#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":5}]}}"#, |_| None::<&str>).unwrap_err();
    println!("{e} {:?}", e.kind());
    let b = acp_types::schema::bundle();
    assert_eq!(b["$defs"].as_object().unwrap().len(), 170);
}
