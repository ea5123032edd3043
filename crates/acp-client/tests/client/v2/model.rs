//! The session model fed over the wire: v2 upserts and chunks, and v1 updates into the same
//! model.

use acp_client::model::SessionModel;
use acp_types::*;
use serde_json::{Value, json};

use super::agent::{done, pair, v1_prompt, v1_session, v2_prompt, v2_session};

/// Runs one v2 turn in which the agent sends `updates`, and folds the session's updates into a
/// model.
async fn v2_turn(updates: Vec<Value>) -> SessionModel {
    let (agent, mut scripted, seen, _) = pair(false);
    let v2 = v2_session(&agent, &mut scripted, json!({"session": {}})).await;
    let mut stream = v2.session_updates("s1");
    let turn = v2_prompt(&v2, "go");
    scripted.accept_prompt().await;
    for update in updates {
        scripted.update("s1", update).await;
    }
    scripted.state("idle", Some("end_turn")).await;
    done(turn).await.unwrap();
    let mut model = SessionModel::new();
    while let Some(update) = stream.try_next() {
        model.apply_v2(update.update).unwrap();
    }
    assert!(seen.model_errors.lock().unwrap().is_empty());
    model
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

#[tokio::test]
async fn whole_message_updates_replace_and_clear_and_chunks_append() {
    let message = |content: Value| json!({"sessionUpdate": "agent_message", "messageId": "m1", "content": content});
    let chunk = |t: &str| json!({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text(t)});
    // An update kind this library does not know is tolerated (v2's unions are open).
    let future = json!({"sessionUpdate": "_vendor_progress", "percent": 50});
    let model = v2_turn(vec![message(json!([text("A")])), future, chunk("B")]).await;
    assert_eq!(
        model.messages()[0].text(),
        "AB",
        "a chunk appends to the upserted content"
    );

    let model = v2_turn(vec![
        message(json!([text("A")])),
        chunk("B"),
        message(json!([text("C")])),
        chunk("D"),
    ])
    .await;
    assert_eq!(
        model.messages()[0].text(),
        "CD",
        "an upsert replaces what the chunks built"
    );

    let model = v2_turn(vec![chunk("A"), message(Value::Null)]).await;
    assert!(model.messages()[0].content.is_empty(), "null clears");
    let model = v2_turn(vec![chunk("A"), message(json!([]))]).await;
    assert!(model.messages()[0].content.is_empty(), "[] clears");

    let model = v2_turn(vec![
        chunk("kept"),
        json!({"sessionUpdate": "agent_message", "messageId": "m1", "_meta": {"k": 1}}),
    ])
    .await;
    assert_eq!(model.messages()[0].text(), "kept", "omitted content stays");
    assert_eq!(model.messages()[0].meta.as_ref().unwrap()["k"], 1);
    assert_eq!(model.messages().len(), 1, "one message per messageId");
}

#[tokio::test]
async fn tool_call_patches_have_three_states_and_content_chunks_append() {
    let update = |fields: Value| {
        let mut update = json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1"});
        update
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        update
    };
    let content = |t: &str| json!({"type": "content", "content": text(t)});
    let model = v2_turn(vec![
        update(json!({"title": "Run", "kind": "execute", "status": "pending", "rawInput": {"cmd": "ls"}})),
        // Omitted fields stay; null clears (kind back to `other`); values replace.
        update(json!({"title": null, "status": "in_progress", "kind": null})),
        update(json!({"content": [content("A")]})),
        json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t1", "content": content("B")}),
    ])
    .await;
    let call = model.tool_call(&ToolCallId::from("t1")).unwrap();
    assert_eq!(call.title, None);
    assert_eq!(call.kind, v2::ToolKind::Other);
    assert_eq!(call.status, v2::ToolCallStatus::InProgress);
    assert_eq!(
        call.raw_input,
        Some(json!({"cmd": "ls"})),
        "omitted: unchanged"
    );
    assert_eq!(
        call.content.len(),
        2,
        "a chunk appends to the content an update set"
    );

    let model = v2_turn(vec![
        update(json!({"title": "Run", "content": [content("A")]})),
        json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t1", "content": content("B")}),
        update(json!({"content": [content("C")]})),
        update(json!({"rawInput": null})),
    ])
    .await;
    let call = model.tool_call(&ToolCallId::from("t1")).unwrap();
    assert_eq!(
        call.content.len(),
        1,
        "an update's content replaces the accumulated content"
    );
    assert_eq!(call.title.as_deref(), Some("Run"));
    assert_eq!(
        model.tool_calls().len(),
        1,
        "the first update created it, the rest patched it"
    );
}

#[tokio::test]
async fn terminal_snapshots_replace_and_chunks_append_bytes_split_anywhere() {
    let b64 = |bytes: &[u8]| v2::TerminalOutput::from_bytes(bytes).data;
    let chunk = |bytes: &[u8]| json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "term1", "data": b64(bytes)});
    let model = v2_turn(vec![
        json!({"sessionUpdate": "terminal_update", "terminalId": "term1", "command": "cargo test",
            "cwd": "/work", "output": {"data": b64(b"old\n")}}),
        // "é" split across two chunks, then a byte that is not UTF-8 at all.
        chunk(b"caf\xc3"),
        chunk(b"\xa9 \xff"),
    ])
    .await;
    let terminal = model.terminal(&TerminalId::from("term1")).unwrap();
    assert_eq!(terminal.output(), b"old\ncaf\xc3\xa9 \xff");
    assert_eq!(terminal.output_lossy(), "old\ncafé \u{fffd}");
    assert!(!terminal.exited());

    let model = v2_turn(vec![
        chunk(b"lots of old output"),
        json!({"sessionUpdate": "terminal_update", "terminalId": "term1", "output": {"data": b64(b"fresh")}}),
        chunk(b"!"),
        json!({"sessionUpdate": "terminal_update", "terminalId": "term1", "exitStatus": {"exitCode": 1, "signal": null}}),
    ])
    .await;
    let terminal = model.terminal(&TerminalId::from("term1")).unwrap();
    assert_eq!(
        terminal.output(),
        b"fresh!",
        "a snapshot replaces every byte before it"
    );
    assert!(terminal.exited());
    assert_eq!(terminal.exit_status.as_ref().unwrap().exit_code, Some(1));
    assert_eq!(terminal.command, None, "never told");
}

#[tokio::test]
async fn v1_updates_fold_into_the_same_model() {
    let (agent, mut scripted, seen, _) = pair(false);
    v1_session(&agent, &mut scripted).await;
    let turn = v1_prompt(&agent, "go");
    let request = scripted.expect("session/prompt").await;
    for update in [
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text("Look")}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text("ing")}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit main.rs", "kind": "edit",
            "status": "pending", "content": [{"type": "diff", "path": "/work/main.rs",
            "oldText": "a\n", "newText": "b\n"}]}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        json!({"sessionUpdate": "plan", "entries": [{"content": "edit", "priority": "high", "status": "completed"}]}),
        json!({"sessionUpdate": "usage_update", "used": 10, "size": 100}),
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "test", "description": "Run the tests", "input": {"hint": "filter"}}]}),
    ] {
        scripted.update("s1", update).await;
    }
    scripted
        .respond(&request, json!({"stopReason": "end_turn"}))
        .await;
    done(turn).await.unwrap();
    assert!(
        seen.model_errors.lock().unwrap().is_empty(),
        "{:?}",
        seen.model_errors.lock().unwrap()
    );
    let model = seen.model.lock().unwrap();
    assert_eq!(
        model.message(&MessageId::from("m1")).unwrap().text(),
        "Looking"
    );
    let call = model.tool_call(&ToolCallId::from("t1")).unwrap();
    assert_eq!(call.title.as_deref(), Some("Edit main.rs"));
    assert_eq!(call.status, v2::ToolCallStatus::Completed);
    let v2::ToolCallContent::Diff(diff) = &call.content[0] else {
        panic!("a diff: {:?}", call.content)
    };
    assert_eq!(diff.changes[0].operation, v2::DiffOperation::Modify);
    let patch = &diff.patch.as_ref().unwrap().text;
    assert!(patch.contains("-a\n+b\n"), "{patch}");
    // The converted diff is a valid v2 diff.
    super::agent::v2_schema()
        .check_def("Diff", &serde_json::to_value(diff).unwrap())
        .unwrap();
    assert_eq!(model.plan(None).unwrap().entries[0].content, "edit");
    assert_eq!(model.usage().unwrap().used, 10);
    // A v1 command is a v2 `command` with a `text` input.
    let commands = serde_json::to_value(model.commands()).unwrap();
    assert_eq!(
        commands,
        json!([{"type": "command", "name": "test", "description": "Run the tests",
            "input": {"type": "text", "hint": "filter"}}])
    );
    super::agent::v2_schema()
        .check_def("AvailableCommand", &commands[0])
        .unwrap();
}

#[test]
fn terminal_output_that_is_not_base64_is_an_error_and_changes_nothing() {
    let mut model = SessionModel::new();
    let snapshot = v2::TerminalUpdate::new("term1").output(v2::TerminalOutput::from_bytes(b"kept"));
    model.apply_v2(snapshot.into()).unwrap();
    let bad = v2::TerminalOutputChunk::new("term1", "not base64!");
    let error = model.apply_v2(bad.into()).unwrap_err();
    assert!(
        matches!(error, acp_client::model::ModelError::InvalidBase64 { .. }),
        "{error}"
    );
    let mut bad_snapshot = v2::TerminalUpdate::new("term1").output(v2::TerminalOutput::new("%%%"));
    bad_snapshot.command = v2::Patch::Set("ls".into());
    assert!(model.apply_v2(bad_snapshot.into()).is_err());
    let terminal = model.terminal(&TerminalId::from("term1")).unwrap();
    assert_eq!(terminal.output(), b"kept");
    assert_eq!(terminal.command, None, "a failed update changes nothing");
    // A content chunk for a tool call the session never saw is an error too.
    let orphan =
        v2::ToolCallContentChunk::new("nope", v2::Content::new(v2::ContentBlock::from("x")));
    assert!(model.apply_v2(orphan.into()).is_err());
}
