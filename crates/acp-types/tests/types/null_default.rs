//! The November 2026 annotation `x-deserialize-default-on-null`: `null` takes the field's
//! default (an optional field is absent, a required list is empty), any other wrong value is an
//! error, and the explicit `null` is written back for as long as the field keeps that default.

use acp_types::{CreateTerminalRequest, McpServer, McpServerStdio, NewSessionRequest};
use serde_json::{Value, json};

fn encode<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("encodes")
}

#[test]
fn a_null_required_list_is_empty_and_written_back_as_null() {
    let doc = json!({"cwd": "/w", "mcpServers": null});
    let request: NewSessionRequest = acp_types::from_value(doc.clone()).expect("null is allowed");
    assert!(request.mcp_servers.is_empty());
    assert_eq!(encode(&request), doc);
    // The same through the text decoder (the strict fast path, then the lenient pass).
    let request: NewSessionRequest = acp_types::from_str(&doc.to_string()).expect("decodes");
    assert!(request.mcp_servers.is_empty());
    assert_eq!(encode(&request), doc);
}

#[test]
fn a_changed_field_is_written_as_it_is_now() {
    let doc = json!({"cwd": "/w", "mcpServers": null});
    let mut request: NewSessionRequest = acp_types::from_value(doc).expect("decodes");
    let server = McpServer::Stdio(McpServerStdio::new("fs", "/bin/fs", [], []));
    request.mcp_servers.push(server.clone());
    assert_eq!(encode(&request)["mcpServers"], json!([encode(&server)]));
    // The setter forgets the null too, even when it sets the default again.
    let request: NewSessionRequest =
        acp_types::from_value(json!({"cwd": "/w", "mcpServers": null})).expect("decodes");
    let request = request.mcp_servers(Vec::<McpServer>::new());
    assert_eq!(encode(&request)["mcpServers"], json!([]));
}

#[test]
fn a_null_optional_field_is_absent_and_written_back_as_null() {
    let doc = json!({"sessionId": "s", "command": "ls", "args": null, "env": null});
    let request: CreateTerminalRequest = acp_types::from_value(doc.clone()).expect("decodes");
    assert_eq!((request.args.as_ref(), request.env.as_ref()), (None, None));
    assert_eq!(encode(&request), doc);
    let request = request.args(vec!["-l".to_owned()]);
    assert_eq!(
        encode(&request),
        json!({"sessionId": "s", "command": "ls", "args": ["-l"], "env": null})
    );
}

#[test]
fn any_other_wrong_value_is_an_error_naming_the_field() {
    for (doc, path) in [
        (json!({"cwd": "/", "mcpServers": 5}), "mcpServers"),
        (json!({"cwd": "/", "mcpServers": [5]}), "mcpServers[0]"),
        (
            json!({"cwd": "/", "mcpServers": [], "additionalDirectories": [1]}),
            "additionalDirectories[0]",
        ),
    ] {
        let error = acp_types::from_str::<NewSessionRequest>(&doc.to_string())
            .expect_err("a wrong value is refused");
        assert!(error.to_string().contains(path), "{doc}: {error}");
    }
    let doc = json!({"sessionId": "s", "command": "ls", "args": "-l"});
    let error = acp_types::from_str::<CreateTerminalRequest>(&doc.to_string())
        .expect_err("a wrong value is refused");
    assert!(error.to_string().contains("args"), "{error}");
    // Null is not absence: a required field left out is still missing.
    assert!(acp_types::from_value::<NewSessionRequest>(json!({"cwd": "/"})).is_err());
}

#[test]
fn a_null_list_inside_a_union_member_round_trips() {
    // McpServer decodes its members from a buffered object (untagged stdio).
    let doc = json!({"name": "fs", "command": "/bin/fs", "args": null, "env": null});
    let server: McpServer = acp_types::from_value(doc.clone()).expect("decodes");
    let McpServer::Stdio(stdio) = &server else {
        panic!("not a stdio server: {server:?}")
    };
    assert!(stdio.args.is_empty() && stdio.env.is_empty());
    assert_eq!(encode(&server), doc);
}

#[test]
fn the_generated_schema_carries_the_official_annotation() {
    let bundle = acp_types::schema::bundle();
    let field = &bundle["$defs"]["NewSessionRequest"]["properties"]["mcpServers"];
    assert_eq!(field["x-deserialize-default-on-null"], true);
    assert_eq!(
        field["type"], "array",
        "null is a default, not an allowed value"
    );
    assert!(field.get("x-deserialize-default-on-error").is_none());
    let limit = &bundle["$defs"]["CreateTerminalRequest"]["properties"]["outputByteLimit"];
    assert!(
        limit.get("x-deserialize-default-on-error").is_none(),
        "strict since November"
    );
}
