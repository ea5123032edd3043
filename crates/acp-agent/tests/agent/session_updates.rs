//! The stable session updates that need a client capability, over a real connection against a
//! raw `acp-rpc` client: notices (`session.notices`) and compactions (`session.compaction`)
//! reach a client that advertised them, and only such a client (otherwise the call fails and
//! nothing is sent); a compaction keeps its id from start to end and reports `cancelled` when
//! dropped unfinished, before the turn's answer; a tool call's name reaches the permission
//! request; `session/load` replays compactions (to a client that takes them) but never
//! notices. Every message on the wire is checked against the schema.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_agent::{
    Agent, AgentOptions, ClientHandle, PromptContext, SessionStore, permission_options, serve,
};
use acp_rpc::{Config, Observer, Peer, Router};
use acp_testkit::Spec;
use acp_types::methods;
use acp_types::*;

/// The most any step of a test may take.
const DEADLINE: Duration = Duration::from_secs(10);

struct Updates {
    client: ClientHandle,
    sessions: SessionStore<()>,
}

#[acp_agent::async_trait]
impl Agent for Updates {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        let caps = AgentCapabilities::new().load_session(true);
        Ok(InitializeResponse::new(ProtocolVersion::LATEST).agent_capabilities(caps))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new(self.sessions.create(())?))
    }

    async fn load_session(
        &self,
        r: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        self.sessions
            .load(&self.client, &r.session_id, |_| ())
            .await?;
        Ok(LoadSessionResponse::new())
    }

    async fn prompt(
        &self,
        r: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let cx = self.sessions.recording(cx);
        let text = r.prompt[0].as_text().unwrap_or_default().to_owned();
        let outcome = match text.as_str() {
            "notice" => cx.notice(NoticeSeverity::Warning, "Rate limited").await,
            "compact" => compact(&cx).await,
            "compact-and-drop" => compact_and_drop(&cx).await,
            "compact-and-fail" => match cx.start_compaction("mine").await {
                Ok(compaction) => compaction.failed("the model is unavailable").await,
                Err(error) => Err(error),
            },
            "named" => {
                let call = cx
                    .new_tool_call("Read notes", ToolKind::Read)
                    .name("read_file");
                let call = cx.start_tool_call(call).await?;
                assert_eq!(call.name(), Some("read_file"));
                call.ask(permission_options::allow_reject()).await.map(drop)
            }
            _ => Ok(()),
        };
        let said = match outcome {
            Ok(()) => "sent".to_owned(),
            Err(error) => format!("refused: {error}"),
        };
        cx.message(said).await?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

/// Starts a compaction and returns without ending it: the drop reports `cancelled`.
async fn compact_and_drop(cx: &PromptContext) -> Result<(), acp_agent::Error> {
    let compaction = cx.compaction().await?;
    compaction.summary_chunk("half a summary").await
}

async fn compact(cx: &PromptContext) -> Result<(), acp_agent::Error> {
    let compaction = cx.compaction().await?;
    compaction.summary_chunk("The user ").await?;
    compaction.summary_chunk("said hi.").await?;
    compaction.completed().await
}

/// What the raw client got: every update, every permission request, every message (both
/// ways, as JSON).
#[derive(Default)]
struct Seen {
    updates: Mutex<Vec<SessionUpdate>>,
    permissions: Mutex<Vec<RequestPermissionRequest>>,
    wire: Mutex<Vec<serde_json::Value>>,
}

impl Seen {
    fn updates(&self) -> Vec<SessionUpdate> {
        std::mem::take(&mut *self.updates.lock().unwrap())
    }

    /// Checks every message seen so far against the schema.
    fn check_wire(&self) {
        let spec = Spec::load();
        for message in self.wire.lock().unwrap().iter() {
            spec.assert_valid_message(message);
        }
    }
}

/// The last agent message of `updates`.
fn said(updates: &[SessionUpdate]) -> String {
    let text = updates.iter().rev().find_map(|u| match u {
        SessionUpdate::AgentMessageChunk(c) => c.content.as_text().map(str::to_owned),
        _ => None,
    });
    text.expect("the turn says how it went")
}

/// Serves `Updates` (on `sessions`) and connects a raw client advertising `session`. Returns
/// the agent's peer (initialized) and what the client saw.
async fn start(
    sessions: SessionStore<()>,
    session: ClientSessionCapabilities,
) -> (Peer, Arc<Seen>) {
    let (agent_io, client_io) = tokio::io::duplex(256 * 1024);
    let (reader, writer) = tokio::io::split(agent_io);
    let make = move |client| Updates { client, sessions };
    let (_client, driver) = serve(make, reader, writer, AgentOptions::default());
    tokio::spawn(driver);

    let seen = Arc::new(Seen::default());
    let (on_update, on_permission, on_wire) = (seen.clone(), seen.clone(), seen.clone());
    let router = Router::new()
        .notification::<methods::SessionUpdate, _, _>(move |n| {
            on_update.updates.lock().unwrap().push(n.update);
            async {}
        })
        .request::<methods::SessionRequestPermission, _, _>(move |r| {
            on_permission.permissions.lock().unwrap().push(r);
            async { Ok(RequestPermissionResponse::selected("allow")) }
        });
    let mut config = Config::default();
    config.observer = Some(Observer::new(move |_, bytes| {
        let message = serde_json::from_slice(bytes).expect("one JSON message per frame");
        on_wire.wire.lock().unwrap().push(message);
    }));
    let (reader, writer) = tokio::io::split(client_io);
    let (agent, client_driver) = acp_rpc::connect(|_| router, reader, writer, config);
    tokio::spawn(client_driver);
    let init = InitializeRequest::new(ProtocolVersion::V1)
        .client_capabilities(ClientCapabilities::new().session(session));
    call::<methods::Initialize>(&agent, init).await;
    (agent, seen)
}

fn advertising_both() -> ClientSessionCapabilities {
    ClientSessionCapabilities::new()
        .compaction(CompactionCapabilities::new())
        .notices(NoticeCapabilities::new())
}

async fn call<M: methods::Request>(agent: &Peer, params: M::Params) -> M::Result {
    tokio::time::timeout(DEADLINE, agent.request::<M>(&params))
        .await
        .expect("answered in time")
        .expect("answered with a result")
}

async fn new_session(agent: &Peer) -> SessionId {
    let new = NewSessionRequest::new("/work", Vec::<McpServer>::new());
    call::<methods::SessionNew>(agent, new).await.session_id
}

/// Runs a turn of `text`; returns the updates it sent (all before its answer).
async fn turn(agent: &Peer, seen: &Seen, session: &SessionId, text: &str) -> Vec<SessionUpdate> {
    let prompt = PromptRequest::new(session.clone(), vec![text.into()]);
    let done = call::<methods::SessionPrompt>(agent, prompt).await;
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    seen.updates()
}

#[tokio::test]
async fn notices_and_compactions_reach_a_client_that_advertised_them() {
    let (agent, seen) = start(SessionStore::new(), advertising_both()).await;
    let session = new_session(&agent).await;

    let updates = turn(&agent, &seen, &session, "notice").await;
    assert!(
        matches!(&updates[0], SessionUpdate::Notice(n)
            if n.severity == NoticeSeverity::Warning && n.title == "Rate limited"),
        "{updates:?}"
    );
    assert_eq!(said(&updates), "sent");

    let updates = turn(&agent, &seen, &session, "compact").await;
    let [
        SessionUpdate::CompactionUpdate(started),
        SessionUpdate::CompactionSummaryChunk(first),
        SessionUpdate::CompactionSummaryChunk(second),
        SessionUpdate::CompactionUpdate(ended),
        SessionUpdate::AgentMessageChunk(_),
    ] = &updates[..]
    else {
        panic!("a compaction from start to end: {updates:?}");
    };
    assert_eq!(started.status, CompactionStatus::InProgress);
    assert_eq!(first.content.as_text(), Some("The user "));
    assert_eq!(second.content.as_text(), Some("said hi."));
    assert_eq!(ended.status, CompactionStatus::Completed);
    let id = &started.compaction_id;
    assert!(id.as_str().starts_with("compaction-"), "{id}");
    assert!(
        [
            &first.compaction_id,
            &second.compaction_id,
            &ended.compaction_id
        ]
        .iter()
        .all(|other| *other == id)
    );

    // A second compaction has an id of its own.
    let again = turn(&agent, &seen, &session, "compact").await;
    let SessionUpdate::CompactionUpdate(next) = &again[0] else {
        panic!("{again:?}");
    };
    assert_ne!(&next.compaction_id, id);

    let updates = turn(&agent, &seen, &session, "compact-and-fail").await;
    let failed = updates.iter().find_map(|u| match u {
        SessionUpdate::CompactionUpdate(c) if c.status == CompactionStatus::Failed => Some(c),
        _ => None,
    });
    let failed = failed.expect("the failure is reported");
    assert_eq!(failed.compaction_id.as_str(), "mine");
    assert_eq!(failed.error.as_deref(), Some("the model is unavailable"));
    seen.check_wire();
}

#[tokio::test]
async fn a_compaction_dropped_unfinished_is_reported_cancelled_before_the_answer() {
    let (agent, seen) = start(SessionStore::new(), advertising_both()).await;
    let session = new_session(&agent).await;
    // The turn's updates all precede its answer: `turn` takes them once it is answered.
    let updates = turn(&agent, &seen, &session, "compact-and-drop").await;
    let statuses: Vec<&CompactionStatus> = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::CompactionUpdate(c) => Some(&c.status),
            _ => None,
        })
        .collect();
    assert_eq!(
        statuses,
        [&CompactionStatus::InProgress, &CompactionStatus::Cancelled],
        "{updates:?}"
    );
    assert_eq!(said(&updates), "sent");
    seen.check_wire();
}

#[tokio::test]
async fn nothing_unadvertised_is_sent_and_the_call_says_why() {
    // Only compaction: notices are refused.
    let only_compaction =
        ClientSessionCapabilities::new().compaction(CompactionCapabilities::new());
    let (agent, seen) = start(SessionStore::new(), only_compaction).await;
    let session = new_session(&agent).await;
    let updates = turn(&agent, &seen, &session, "notice").await;
    assert_eq!(updates.len(), 1, "only the turn's message: {updates:?}");
    assert_eq!(
        said(&updates),
        "refused: the client did not advertise `session.notices`, so `session/update` was not sent"
    );

    // Neither: compactions are refused, from the start on.
    let (agent, seen) = start(SessionStore::new(), ClientSessionCapabilities::new()).await;
    let session = new_session(&agent).await;
    for text in ["compact", "compact-and-fail", "compact-and-drop", "notice"] {
        let updates = turn(&agent, &seen, &session, text).await;
        assert_eq!(
            updates.len(),
            1,
            "{text}: only the turn's message: {updates:?}"
        );
        assert!(
            said(&updates).starts_with("refused: "),
            "{text}: {updates:?}"
        );
    }
    seen.check_wire();
}

#[tokio::test]
async fn a_tool_call_name_reaches_the_client_and_the_permission_request() {
    let (agent, seen) = start(SessionStore::new(), ClientSessionCapabilities::new()).await;
    let session = new_session(&agent).await;
    let updates = turn(&agent, &seen, &session, "named").await;
    let SessionUpdate::ToolCall(call) = &updates[0] else {
        panic!("{updates:?}");
    };
    assert_eq!(call.name.as_deref(), Some("read_file"));
    let asked = seen.permissions.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool_call.name.as_deref(), Some("read_file"));
    assert_eq!(asked[0].tool_call.title.as_deref(), Some("Read notes"));
    seen.check_wire();
}

#[tokio::test]
async fn a_load_replays_compactions_to_a_client_that_takes_them_and_never_notices() {
    let store = SessionStore::new();
    let (agent, seen) = start(store.clone(), advertising_both()).await;
    let session = new_session(&agent).await;
    turn(&agent, &seen, &session, "notice").await;
    let live = turn(&agent, &seen, &session, "compact").await;
    let history = store.history(&session).unwrap();
    assert!(
        !history
            .iter()
            .any(|u| matches!(u, SessionUpdate::Notice(_)))
    );

    let load = || LoadSessionRequest::new(session.clone(), "/work", Vec::<McpServer>::new());
    call::<methods::SessionLoad>(&agent, load()).await;
    let replayed = seen.updates();
    assert!(
        !replayed
            .iter()
            .any(|u| matches!(u, SessionUpdate::Notice(_)))
    );
    // The compaction's four updates, as they went out live.
    let compaction = |updates: &[SessionUpdate]| -> Vec<SessionUpdate> {
        let gated = updates.iter().filter(|u| {
            matches!(
                u,
                SessionUpdate::CompactionUpdate(_) | SessionUpdate::CompactionSummaryChunk(_)
            )
        });
        gated.cloned().collect()
    };
    assert_eq!(compaction(&replayed).len(), 4, "{replayed:?}");
    assert_eq!(compaction(&replayed), compaction(&live));
    seen.check_wire();

    // Another client, on another connection, that takes no compaction: the same history
    // without it.
    let (other, other_seen) = start(store.clone(), ClientSessionCapabilities::new()).await;
    call::<methods::SessionLoad>(&other, load()).await;
    let replayed_there = other_seen.updates();
    assert!(compaction(&replayed_there).is_empty(), "{replayed_there:?}");
    assert_eq!(replayed_there.len(), replayed.len() - 4);
    other_seen.check_wire();
}
