//! The toolkit's v2-only calls end to end (issue 22, item 3): message replacement and
//! clearing by `messageId` ([`acp_agent::MessageHandle`]), tool-call content chunks
//! ([`acp_agent::ToolCallHandle::content`]) and agent-owned display terminals
//! ([`acp_agent::DisplayTerminalHandle`]: output chunks splitting a UTF-8 code point and
//! holding invalid UTF-8, a snapshot replacing the output, exit status), rendered by our v2
//! client's [`SessionModel`]; and what the same agent code does on a v1 connection (chunks
//! become whole-content updates, the rest fails with a clear error and sends nothing). Every
//! message is checked against the schema of the negotiated version.

#![cfg(feature = "unstable_protocol_v2")]

use std::sync::{Arc, Mutex, PoisonError};

use acp_agent::{AgentOptions, PromptContext};
use acp_client::model::MessageRole;
use acp_e2e::{Direction, within};
use acp_types::*;
use serde_json::Value;

use crate::v2_pairings::{Editor, Pair, checker, v2_prompt};

/// What the agent's turn saw: the ids it made, and the errors its calls returned.
#[derive(Debug, Default)]
struct Seen {
    message: Option<MessageId>,
    thought: Option<MessageId>,
    call: Option<ToolCallId>,
    terminals: Vec<TerminalId>,
    errors: Vec<String>,
}

/// An agent whose one turn uses every v2-only call of the toolkit, the same code whatever the
/// connection speaks; a call that fails is noted and the turn goes on.
struct Showcase {
    seen: Arc<Mutex<Seen>>,
}

impl Showcase {
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn note<T>(&self, what: &str, result: Result<T, acp_agent::Error>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(e) => {
                self.seen().errors.push(format!("{what}: {e}"));
                None
            }
        }
    }

    async fn turn(&self, cx: &PromptContext) -> Result<(), acp_agent::Error> {
        // A message streamed, then replaced as a whole; a later chunk appends.
        let answer = cx.new_message();
        self.seen().message = Some(answer.id().clone());
        answer.chunk("Maybe ").await?;
        answer.chunk("41?").await?;
        self.note("replace", answer.replace(["The answer is 42."]).await);
        answer.chunk(" Sure.").await?;
        // A thought streamed, then cleared.
        let thought = cx.new_thought();
        self.seen().thought = Some(thought.id().clone());
        thought.chunk("secret reasoning").await?;
        self.note("clear", thought.clear().await);

        // A tool call whose content grows item by item, with a display terminal in it.
        let call = cx.tool_call("Run the tests", ToolKind::Execute).await?;
        self.seen().call = Some(call.id().clone());
        call.content("first").await?;
        call.content("second").await?;
        let shown = call
            .display_terminal("cargo test")
            .cwd("/work")
            .size(80, 24)
            .cancellable()
            .await;
        if let Some(terminal) = self.note("display terminal", shown) {
            self.seen().terminals.push(terminal.id().clone());
            // "é" is C3 A9: split across two chunks; FF is never UTF-8.
            terminal.output(b"caf\xC3").await?;
            terminal.output(b"\xA9 \xFF\n").await?;
            terminal
                .exit(v2::TerminalExitStatus::new().exit_code(0))
                .await?;
        }
        // A background terminal: a snapshot replaces what was shown, chunks append to it.
        let background = cx.display_terminal("tail -f log").cwd("/work").await;
        if let Some(terminal) = self.note("background terminal", background) {
            self.seen().terminals.push(terminal.id().clone());
            terminal.output("garbled").await?;
            terminal.snapshot("clean\n").await?;
            terminal.output("tail").await?;
            terminal
                .exit(v2::TerminalExitStatus::new().signal("SIGTERM"))
                .await?;
        }
        // A relative cwd is refused before anything is sent.
        let relative = cx.display_terminal("ls").cwd("relative/dir").await;
        self.note("relative cwd", relative);
        call.completed_with("done").await
    }
}

#[acp_agent::async_trait]
impl acp_agent::Agent for Showcase {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::V1)
            .agent_info(Implementation::new("showcase", "0.1.0")))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new("showcase-1"))
    }

    async fn prompt(
        &self,
        _: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        self.turn(&cx).await?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

fn showcase() -> (
    Arc<Mutex<Seen>>,
    impl FnOnce(acp_agent::ClientHandle) -> Showcase,
) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let shared = seen.clone();
    (seen, move |_| Showcase { seen: shared })
}

/// The `session/update`s the agent sent, by kind.
fn updates(pair: &Pair, kind: &str) -> Vec<Value> {
    pair.wire
        .calls(Direction::AgentToClient, "session/update")
        .into_iter()
        .map(|m| m["params"]["update"].clone())
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}

/// The text of a v2 tool-call content item.
fn content_text(content: &v2::ToolCallContent) -> String {
    serde_json::to_value(content).expect("serializes")["content"]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

#[tokio::test]
async fn a_v2_client_renders_replaced_messages_content_chunks_and_display_terminals() {
    let (seen, make) = showcase();
    let pair = Pair::start(
        make,
        AgentOptions::default(),
        Editor::default(),
        checker(2, true),
    );
    let (v2, session) = pair.v2_session().await;
    let end = within("the prompt", v2.prompt(v2_prompt(&session, "go")))
        .await
        .expect("the turn ends");
    assert_eq!(end.stop_reason(), Some(&v2::StopReason::EndTurn), "{end:?}");

    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(PoisonError::into_inner));
    assert_eq!(
        seen.errors.len(),
        1,
        "only the relative cwd fails on v2: {:?}",
        seen.errors
    );
    assert!(
        seen.errors[0].contains("relative/dir") && seen.errors[0].contains("absolute"),
        "{:?}",
        seen.errors
    );
    let message_id = seen.message.clone().expect("a message");
    let thought_id = seen.thought.clone().expect("a thought");
    let call_id = seen.call.clone().expect("a tool call");
    assert_eq!(seen.terminals.len(), 2);
    assert_ne!(seen.terminals[0], seen.terminals[1], "fresh terminal ids");

    {
        let model = pair.editor.model();
        let answer = model.message(&message_id).expect("the message, by its id");
        assert_eq!(answer.role, MessageRole::Agent);
        assert_eq!(
            answer.text(),
            "The answer is 42. Sure.",
            "the replacement dropped the streamed draft; the later chunk appended"
        );
        let thought = model.message(&thought_id).expect("the thought, by its id");
        assert_eq!(thought.role, MessageRole::Thought);
        assert!(thought.content.is_empty(), "cleared: {:?}", thought.content);

        let call = model.tool_call(&call_id).expect("the tool call");
        let texts: Vec<String> = call.content.iter().map(content_text).collect();
        assert_eq!(
            texts,
            ["first", "second", "", "done"],
            "chunks appended, the terminal reference, then the final output"
        );

        let shown = model
            .terminal(&seen.terminals[0])
            .expect("the call's terminal");
        assert_eq!(shown.output(), b"caf\xC3\xA9 \xFF\n", "bytes kept as sent");
        assert_eq!(shown.output_lossy(), "café \u{FFFD}\n");
        assert_eq!(shown.command.as_deref(), Some("cargo test"));
        assert_eq!(
            shown.exit_status.as_ref().and_then(|s| s.exit_code),
            Some(0)
        );
        assert!(
            shown.capabilities.is_none(),
            "the exit withdrew the cancel control"
        );
        let background = model
            .terminal(&seen.terminals[1])
            .expect("the background terminal");
        assert_eq!(
            background.output(),
            b"clean\ntail",
            "the snapshot replaced the output"
        );
        assert_eq!(
            background
                .exit_status
                .as_ref()
                .and_then(|s| s.signal.as_deref()),
            Some("SIGTERM")
        );
    }

    // On the wire: one whole-message upsert each, chunks of content, never a re-sent list
    // before the end.
    let replaced = updates(&pair, "agent_message");
    assert_eq!(replaced.len(), 1, "{replaced:?}");
    assert_eq!(replaced[0]["messageId"], message_id.as_str());
    assert_eq!(replaced[0]["content"][0]["text"], "The answer is 42.");
    let cleared = updates(&pair, "agent_thought");
    assert_eq!(cleared.len(), 1, "{cleared:?}");
    assert!(cleared[0]["content"].is_null(), "{cleared:?}");
    assert!(
        updates(&pair, "agent_message_chunk")
            .iter()
            .all(|u| u["messageId"] == message_id.as_str()),
        "every chunk names the message"
    );
    let chunks = updates(&pair, "tool_call_content_chunk");
    assert_eq!(chunks.len(), 3, "first, second, the terminal: {chunks:?}");
    assert_eq!(chunks[2]["content"]["type"], "terminal");
    assert_eq!(
        chunks[2]["content"]["terminalId"],
        seen.terminals[0].as_str()
    );
    let with_content: Vec<Value> = updates(&pair, "tool_call_update")
        .into_iter()
        .filter(|u| u.get("content").is_some())
        .collect();
    assert_eq!(
        with_content.len(),
        1,
        "only the completion sends the whole list: {with_content:?}"
    );
    let outputs = updates(&pair, "terminal_output_chunk");
    assert_eq!(outputs.len(), 4, "{outputs:?}");
    assert_eq!(
        outputs[0]["data"], "Y2Fmww==",
        "each chunk encoded on its own"
    );
    let terminal_updates = updates(&pair, "terminal_update");
    assert_eq!(
        terminal_updates[0]["capabilities"]["cancel"],
        serde_json::json!({}),
        "the cancel control advertised"
    );
    assert!(
        terminal_updates.iter().all(|u| u["command"] != "ls"),
        "the refused terminal was never announced"
    );
    pair.shutdown(10).await;
}

#[tokio::test]
async fn on_a_v1_connection_the_same_agent_sends_whole_content_and_refuses_the_v2_only_calls() {
    let (seen, make) = showcase();
    let pair = Pair::start(
        make,
        AgentOptions::default(),
        Editor::default(),
        checker(1, false),
    );
    let request = InitializeRequest::new(ProtocolVersion::V1)
        .client_info(Implementation::new("e2e", "0.1.0"));
    within("initialize", pair.agent.initialize(request))
        .await
        .expect("initialize succeeds");
    let done = pair.v1_turn("go").await;
    assert_eq!(done.stop_reason, StopReason::EndTurn);

    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(PoisonError::into_inner));
    let refused: Vec<&str> = seen
        .errors
        .iter()
        .map(|e| e.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        refused,
        [
            "replace",
            "clear",
            "display terminal",
            "background terminal",
            "relative cwd"
        ],
        "{:?}",
        seen.errors
    );
    assert!(
        seen.errors
            .iter()
            .all(|e| e.contains("not part of ACP protocol version 1")),
        "a clear error naming the version: {:?}",
        seen.errors
    );
    let message_id = seen.message.clone().expect("a message");
    let call_id = seen.call.clone().expect("a tool call");

    {
        let model = pair.editor.model();
        let answer = model
            .message(&message_id)
            .expect("v1 chunks carry the message id");
        assert_eq!(answer.text(), "Maybe 41? Sure.", "nothing replaced on v1");
        let call = model.tool_call(&call_id).expect("the tool call");
        let texts: Vec<String> = call.content.iter().map(content_text).collect();
        assert_eq!(texts, ["first", "second", "done"]);
    }
    // v1 has no chunks for tool calls: each addition sends the whole list so far.
    let lengths: Vec<usize> = updates(&pair, "tool_call_update")
        .iter()
        .filter_map(|u| u["content"].as_array().map(Vec::len))
        .collect();
    assert_eq!(
        lengths,
        [1, 2, 3],
        "whole content, accumulated by the handle"
    );
    for kind in [
        "agent_message",
        "agent_thought",
        "tool_call_content_chunk",
        "terminal_update",
        "terminal_output_chunk",
    ] {
        assert!(updates(&pair, kind).is_empty(), "no {kind} on v1");
    }
    pair.shutdown(6).await;
}
