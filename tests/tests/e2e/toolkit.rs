//! The agent's authoring toolkit on the wire: tool call and plan handles, files through the
//! client by path, a terminal handle released when dropped, permission decisions by option
//! kind, and `or_cancelled`. A real agent built on them faces a raw client that checks every
//! message both ways against the schema.

use crate::common;

use acp_agent::{AgentOptions, Cancelled, PromptContext, permission_options};
use acp_e2e::{PIPE_BYTES, RawPeer};
use acp_types::*;
use common::checker;
use serde_json::{Value, json};

struct Toolkit;

#[acp_agent::async_trait]
impl acp_agent::Agent for Toolkit {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::LATEST))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new("s1"))
    }

    async fn prompt(
        &self,
        _: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let plan = cx.plan(["Read a.txt", "Run echo"]).await?;
        let read = cx.tool_call("Read a.txt", ToolKind::Read).await?;
        plan.start(0).await?;
        let text = cx.read_text_file("/work/a.txt").await?;
        read.completed_with(text.clone()).await?;
        plan.complete(0).await?;

        let run = cx.tool_call("Run echo", ToolKind::Execute).await?;
        plan.start(1).await?;
        {
            let terminal = cx.terminal("echo", ["hi"]).await?;
            run.terminal(&terminal).await?;
            terminal.wait_for_exit().await?;
            // Dropped without `release`: the handle releases it.
        }
        let decision = run
            .ask(permission_options::allow_once_always_reject())
            .await?;
        cx.message(format!(
            "decision: {decision:?}, allowed: {}",
            decision.is_allowed()
        ))
        .await?;
        run.diff("/work/a.txt", Some(&text), "new").await?;
        run.completed().await?;
        plan.complete(1).await?;

        cx.message("waiting").await?;
        let waited = cx.or_cancelled(std::future::pending::<()>()).await;
        assert_eq!(waited, Err(Cancelled));
        cx.message("stopped").await?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

fn update_of(message: &Value) -> Option<&Value> {
    (message["method"] == "session/update").then(|| &message["params"]["update"])
}

#[tokio::test(flavor = "current_thread")]
async fn a_turn_written_with_the_toolkit_puts_the_expected_messages_on_the_wire() {
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let (read, write) = tokio::io::split(ours);
    let (_client, driver) = acp_agent::serve(|_| Toolkit, read, write, AgentOptions::default());
    tokio::spawn(driver);
    let mut raw = RawPeer::new(theirs, checker());
    raw.request(
        0,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}, "terminal": true}}),
    )
    .await;
    raw.expect_result(0).await;
    raw.request(1, "session/new", json!({"cwd": "/work", "mcpServers": []}))
        .await;
    raw.expect_result(1).await;
    raw.request(
        2,
        "session/prompt",
        json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "go"}]}),
    )
    .await;

    let mut updates = Vec::new();
    let mut released = Vec::new();
    let done = loop {
        let message = raw.recv().await;
        let id = message["id"].clone();
        match message["method"].as_str() {
            Some("session/update") => {
                let update = update_of(&message).unwrap().clone();
                let waiting = update["content"]["text"] == "waiting";
                updates.push(update);
                if waiting {
                    raw.notify("session/cancel", json!({"sessionId": "s1"}))
                        .await;
                }
            }
            Some("fs/read_text_file") => {
                assert_eq!(message["params"]["path"], "/work/a.txt");
                raw.respond(&id, json!({"content": "old"})).await;
            }
            Some("terminal/create") => {
                assert_eq!(message["params"]["command"], "echo");
                assert_eq!(message["params"]["args"], json!(["hi"]));
                raw.respond(&id, json!({"terminalId": "t1"})).await;
            }
            Some("terminal/wait_for_exit") => {
                raw.respond(&id, json!({"exitCode": 0})).await;
            }
            Some("terminal/release") => {
                released.push(message["params"]["terminalId"].clone());
                raw.respond(&id, json!({})).await;
            }
            Some("session/request_permission") => {
                let options: Vec<&str> = message["params"]["options"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o["optionId"].as_str().unwrap())
                    .collect();
                assert_eq!(options, ["allow", "allow-always", "reject"]);
                raw.respond(
                    &id,
                    json!({"outcome": {"outcome": "selected", "optionId": "allow-always"}}),
                )
                .await;
            }
            None if id == 2 => break message,
            other => panic!("unexpected {other:?}: {message}"),
        }
    };
    // The turn was cancelled: the library answers `cancelled`.
    assert_eq!(done["result"]["stopReason"], "cancelled", "{done}");
    assert_eq!(released, [json!("t1")], "the dropped terminal was released");

    let kinds: Vec<&str> = updates
        .iter()
        .map(|u| u["sessionUpdate"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "plan",
            "tool_call",
            "plan",
            "tool_call_update",
            "plan",
            "tool_call",
            "plan",
            "tool_call_update",
            "agent_message_chunk",
            "tool_call_update",
            "tool_call_update",
            "plan",
            "agent_message_chunk",
            "agent_message_chunk",
        ]
    );
    let statuses = |u: &Value| -> Vec<String> {
        u["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["status"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(statuses(&updates[0]), ["pending", "pending"]);
    assert_eq!(statuses(&updates[4]), ["completed", "pending"]);
    assert_eq!(statuses(&updates[11]), ["completed", "completed"]);
    assert_eq!(updates[1]["toolCallId"], "call-1");
    assert_eq!(updates[1]["status"], "pending");
    assert_eq!(updates[1]["kind"], "read");
    assert_eq!(updates[3]["status"], "completed");
    assert_eq!(updates[3]["content"][0]["content"]["text"], "old");
    assert_eq!(updates[5]["toolCallId"], "call-2");
    assert_eq!(
        updates[7]["content"],
        json!([{"type": "terminal", "terminalId": "t1"}])
    );
    assert_eq!(
        updates[8]["content"]["text"],
        "decision: AllowedAlways(PermissionOptionId(\"allow-always\")), allowed: true"
    );
    // Content accumulates: the terminal, then the diff beside it.
    assert_eq!(updates[9]["content"][0]["type"], "terminal");
    assert_eq!(updates[9]["content"][1]["type"], "diff");
    assert_eq!(updates[9]["content"][1]["oldText"], "old");
    assert_eq!(updates[10]["status"], "completed");
    assert_eq!(updates[13]["content"]["text"], "stopped");
    raw.close().await;
}

#[test]
fn permission_decisions_follow_the_kind_of_the_chosen_option() {
    use acp_agent::Permission;
    let options = permission_options::all();
    let chose = |id: &str| Permission::of(&RequestPermissionOutcome::selected(id), &options);
    assert_eq!(chose("allow"), Permission::AllowedOnce("allow".into()));
    assert_eq!(
        chose("allow-always"),
        Permission::AllowedAlways("allow-always".into())
    );
    assert_eq!(chose("reject"), Permission::RejectedOnce("reject".into()));
    assert_eq!(
        chose("reject-always"),
        Permission::RejectedAlways("reject-always".into())
    );
    assert!(chose("allow-always").is_remembered() && chose("allow").is_allowed());
    assert!(!chose("reject").is_allowed());
    assert_eq!(
        chose("reject-always").option_id().map(|id| id.as_str()),
        Some("reject-always")
    );
    assert_eq!(
        chose("made-up"),
        Permission::Unrecognized(Some("made-up".into()))
    );
    assert_eq!(
        Permission::of(&RequestPermissionOutcome::cancelled(), &options),
        Permission::Cancelled
    );
}
