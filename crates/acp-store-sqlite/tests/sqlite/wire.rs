//! What a durable store records over a real connection: the `session/update`s a recording
//! turn sends are, byte for byte, the notifications the updates encode to (the store's JSON
//! of an update goes on the wire as it is), valid against the schema; and the database keeps
//! each update's JSON as it went out, terminal content left out.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_agent::backend::Backend;
use acp_agent::{Agent, AgentOptions, PromptContext, SessionStore, serve};
use acp_rpc::{Config, Direction, Observer, Router};
use acp_store_sqlite::SqliteBackend;
use acp_testkit::Spec;
use acp_types::methods;
use acp_types::*;

use crate::common::Note;
use crate::scratch::{Scratch, open};

/// The most any step of the test may take.
const DEADLINE: Duration = Duration::from_secs(10);

/// What every turn sends: text that JSON escapes, a tool call with content, one with terminal
/// content (recorded without it), a plan, and an update with `_meta`.
fn script() -> Vec<SessionUpdate> {
    let mut meta = Meta::new();
    meta.insert(
        "trace".into(),
        serde_json::json!({"n": [1, 2.5], "s": "\u{2028}"}),
    );
    vec![
        SessionUpdate::AgentMessageChunk(ContentChunk::new("line\n\t\"é\" \u{1} 😀")),
        SessionUpdate::ToolCall(Box::new(
            ToolCall::new("call-1", "Read a file")
                .kind(ToolKind::Read)
                .content(vec![ToolCallContent::from("out")]),
        )),
        SessionUpdate::ToolCallUpdate(Box::new(ToolCallUpdate::new("call-1").content(vec![
            ToolCallContent::from("kept"),
            ToolCallContent::Terminal(Terminal::new("term-1")),
        ]))),
        SessionUpdate::Plan(Plan::new(vec![PlanEntry::new(
            "step",
            PlanEntryPriority::High,
            PlanEntryStatus::Pending,
        )])),
        SessionUpdate::AgentThoughtChunk(ContentChunk::new("thought").meta(meta)),
    ]
}

/// `update` as the store keeps it: without terminal content.
fn kept(update: &SessionUpdate) -> SessionUpdate {
    let mut update = update.clone();
    if let SessionUpdate::ToolCallUpdate(call) = &mut update
        && let Some(content) = &mut call.content
    {
        content.retain(|c| !matches!(c, ToolCallContent::Terminal(_)));
    }
    update
}

/// The frames a connection saw, in order, with their direction.
type Frames = Vec<(Direction, Vec<u8>)>;

struct Recording {
    sessions: SessionStore<Note>,
}

#[acp_agent::async_trait]
impl Agent for Recording {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::V1))
    }

    async fn new_session(&self, r: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new(
            self.sessions.create(Note::new(&r.cwd))?,
        ))
    }

    async fn prompt(
        &self,
        r: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let _turn = self.sessions.begin_turn(&r.session_id)?;
        let cx = self.sessions.recording(cx);
        for update in script() {
            cx.update(update).await?;
        }
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

#[tokio::test]
async fn a_recorded_turn_goes_out_and_into_the_database_as_its_updates_encode() {
    let dir = Scratch::new("recorded-turn");
    let path = dir.file("sessions.db");
    let sessions = open(&path, acp_agent::DurableOptions::DEFAULT).await;

    let (agent_io, client_io) = tokio::io::duplex(256 * 1024);
    let (reader, writer) = tokio::io::split(agent_io);
    let store = sessions.clone();
    let make = move |_| Recording { sessions: store };
    let (_client, driver) = serve(make, reader, writer, AgentOptions::default());
    tokio::spawn(driver);

    let frames: Arc<Mutex<Frames>> = Arc::default();
    let seen = Arc::clone(&frames);
    let mut config = Config::default();
    config.observer = Some(Observer::new(move |direction, bytes| {
        seen.lock().unwrap().push((direction, bytes.to_vec()));
    }));
    let router = Router::new().notification::<methods::SessionUpdate, _, _>(|_| async {});
    let (reader, writer) = tokio::io::split(client_io);
    let (agent, client_driver) = acp_rpc::connect(|_| router, reader, writer, config);
    tokio::spawn(client_driver);

    let call = async {
        agent
            .request::<methods::Initialize>(&InitializeRequest::new(ProtocolVersion::V1))
            .await?;
        let new = NewSessionRequest::new("/work", Vec::<McpServer>::new());
        let id = agent.request::<methods::SessionNew>(&new).await?.session_id;
        let prompt = PromptRequest::new(id.clone(), vec!["go".into()]);
        let done = agent.request::<methods::SessionPrompt>(&prompt).await?;
        Ok::<_, acp_rpc::Error>((id, done.stop_reason))
    };
    let (id, stop) = tokio::time::timeout(DEADLINE, call)
        .await
        .expect("answered in time")
        .expect("answered with results");
    assert_eq!(stop, StopReason::EndTurn);

    // On the wire: the notifications as the updates encode, and every message valid.
    let spec = Spec::load();
    let frames = std::mem::take(&mut *frames.lock().unwrap());
    let mut sent = Vec::new();
    for (direction, bytes) in &frames {
        let message: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
        spec.assert_valid_message(&message);
        if *direction == Direction::Received && message["method"] == "session/update" {
            sent.push(String::from_utf8(bytes.clone()).expect("UTF-8"));
        }
    }
    let expected: Vec<String> = script()
        .into_iter()
        .map(|update| {
            let params = serde_json::to_string(&SessionNotification::new(id.clone(), update));
            format!(
                r#"{{"jsonrpc":"2.0","method":"session/update","params":{}}}"#,
                params.expect("encodes")
            )
        })
        .collect();
    assert_eq!(sent, expected);

    // In the database: each update's JSON, terminal content left out.
    tokio::time::timeout(DEADLINE, sessions.flush())
        .await
        .expect("flushed in time")
        .expect("flushed");
    let backend = SqliteBackend::open(&path).await.expect("open the database");
    let stored = tokio::time::timeout(DEADLINE, backend.load(id.as_str()))
        .await
        .expect("loaded in time")
        .expect("loaded")
        .expect("the session is there");
    let history: Vec<String> = stored.history.into_iter().map(|(_, json)| json).collect();
    let expected: Vec<String> = script()
        .iter()
        .map(|update| serde_json::to_string(&kept(update)).expect("encodes"))
        .collect();
    assert_eq!(history, expected);
    assert!(
        !history[2].contains("term-1") && history[2].contains("kept"),
        "{}",
        history[2]
    );
}
