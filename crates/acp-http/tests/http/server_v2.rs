//! ACP v2 over the server (feature `unstable_protocol_v2`), from raw HTTP clients whose every
//! message, both ways, is checked against the official v2 schema: a connection negotiates v2
//! or v1 by its own `initialize`, and a v2 session is its owner's alone. The server routes by
//! shape only, so the owner checks are the agent's (the factory sees [`Peer::owner`]); what
//! is checked here is that every v2 method naming a session (`session/resume` with and
//! without replay, `session/close`, `session/prompt`, `session/list`) reaches that agent
//! from the right owner, and that nothing of another owner's session leaks to a connection.

#![cfg(feature = "unstable_protocol_v2")]

use crate::common;

use acp_agent::{Agent, ClientHandle, PromptContext, SessionStore};
use acp_http::server::{AcpServer, AuthDecision, Peer, ServerOptions, serve};
use acp_types::*;
use common::{Raw, Sse, within};
use serde_json::{Value, json};

/// An agent keeping its sessions in a store shared by every connection, each connection seeing
/// only its owner's sessions (`SessionStore::owned_by`), as an author should write it.
struct Owned {
    client: ClientHandle,
    store: SessionStore<()>,
}

#[acp_agent::async_trait]
impl Agent for Owned {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        let sessions = SessionCapabilities::new()
            .list(SessionListCapabilities::new())
            .resume(SessionResumeCapabilities::new())
            .close(SessionCloseCapabilities::new());
        Ok(InitializeResponse::new(ProtocolVersion::V1)
            .agent_capabilities(
                AgentCapabilities::new()
                    .load_session(true)
                    .session_capabilities(sessions),
            )
            .agent_info(Implementation::new("owned", "0.1.0")))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new(self.store.create(())?))
    }

    async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        self.store
            .load(&self.client, &request.session_id, |_| ())
            .await?;
        Ok(LoadSessionResponse::new())
    }

    async fn resume_session(
        &self,
        request: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, ErrorObject> {
        self.store.with(&request.session_id, |_| ())?;
        Ok(ResumeSessionResponse::new())
    }

    async fn close_session(
        &self,
        request: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, ErrorObject> {
        self.store.with(&request.session_id, |_| ())?;
        Ok(CloseSessionResponse::new())
    }

    async fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        self.store.list(request.cursor.as_deref(), 50, |id, _| {
            Some(SessionInfo::new(id.clone(), "/work"))
        })
    }

    async fn prompt(
        &self,
        request: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let _turn = self.store.begin_turn(&request.session_id)?;
        let cx = self.store.recording(cx);
        cx.record_prompt(&request.prompt);
        cx.message("noted").await.map_err(ErrorObject::from)?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

/// A server of [`Owned`] agents sharing one store; with `principals`, the `x-user` header
/// names the principal (and no header is refused), else every connection is its own owner.
async fn owned_server(
    principals: bool,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let store = SessionStore::<()>::new();
    let mut options = ServerOptions::default();
    if principals {
        options =
            options.auth(
                |headers| match headers.get("x-user").and_then(|v| v.to_str().ok()) {
                    Some(user) => AuthDecision::AllowAs(user.to_owned()),
                    None => AuthDecision::Unauthorized,
                },
            );
    }
    let server = AcpServer::with_peer(
        move |client, peer: &Peer| Owned {
            client,
            store: store.owned_by(peer.owner()),
        },
        options,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/acp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(serve(listener, server, async move {
        let _ = stopped.await;
    }));
    (url, stop, task)
}

/// A v2 connection (as `user`, when given) and its connection stream.
struct V2 {
    raw: Raw,
    stream: Sse,
    next_id: u64,
}

impl V2 {
    async fn open(url: &str, user: Option<&str>) -> Self {
        let mut raw = Raw::with_version(url, 2);
        if let Some(user) = user {
            raw.headers.push(("x-user".into(), user.into()));
        }
        let answer = raw
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": 2,
                    "info": {"name": "raw", "version": "0.1.0"},
                    "capabilities": {},
                }}),
                &[],
            )
            .await;
        assert_eq!(answer.status, 200, "{answer:?}");
        let body = answer.json();
        common::check_version(&body, 2);
        assert_eq!(body["result"]["protocolVersion"], 2, "{body}");
        assert_eq!(body["result"]["info"]["name"], "owned", "{body}");
        raw.connection = answer.header("acp-connection-id").map(str::to_owned);
        let stream = raw.stream(None).await.expect("the connection stream");
        Self {
            raw,
            stream,
            next_id: 1,
        }
    }

    /// Sends a request and waits for its answer on the connection stream (the session's
    /// updates met on the way are returned too).
    async fn call(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        let posted = self
            .raw
            .post(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
                &[],
            )
            .await;
        assert_eq!(posted.status, 202, "{method}: {posted:?}");
        let mut seen = Vec::new();
        loop {
            let message = self.stream.expect().await;
            if message["id"] == id && message.get("method").is_none() {
                if let Some(result) = message.get("result") {
                    let result_check =
                        acp_testkit::Spec::load_v2().check_response(&message, method);
                    assert!(result_check.is_ok(), "{result_check:?}: {result}");
                }
                return (message, seen);
            }
            seen.push(message);
        }
    }

    /// Reads the connection stream until the session's `idle` state; every message on the way.
    async fn until_idle(&mut self) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.stream.expect().await;
            let idle = message["params"]["update"]["state"] == "idle";
            seen.push(message);
            if idle {
                return seen;
            }
        }
    }

    async fn new_session(&mut self) -> String {
        let (answer, _) = self.call("session/new", json!({"cwd": "/work"})).await;
        answer["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("a session: {answer}"))
            .to_owned()
    }

    /// A prompt's whole turn: the acknowledgement and every update until `idle`.
    async fn turn(&mut self, session: &str, text: &str) -> (Value, Vec<Value>) {
        let (ack, mut seen) = self
            .call(
                "session/prompt",
                json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
            )
            .await;
        if seen
            .last()
            .is_none_or(|m| m["params"]["update"]["state"] != "idle")
        {
            seen.extend(self.until_idle().await);
        }
        (ack, seen)
    }

    async fn close(self) {
        assert_eq!(self.raw.delete().await, 202);
    }
}

/// The error code of an answer.
fn code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}

/// The sessions a `session/list` answer names.
fn listed(answer: &Value) -> Vec<String> {
    answer["result"]["sessions"]
        .as_array()
        .unwrap_or_else(|| panic!("a list: {answer}"))
        .iter()
        .filter_map(|s| s["sessionId"].as_str().map(str::to_owned))
        .collect()
}

/// The checks of one owner against another: `theirs` (another owner's connection) cannot
/// resume, replay, close, list or prompt `owner`'s session; `again` (the owner's second
/// connection, if the owner can have one) can.
async fn others_cannot_reach_the_session(mut owner: V2, mut theirs: V2, again: Option<V2>) {
    let session = owner.new_session().await;
    let (ack, turn) = owner.turn(&session, "mine").await;
    assert!(ack["result"]["messageId"].is_string(), "{ack}");
    let idle = turn.last().expect("the turn's updates");
    assert_eq!(idle["params"]["update"]["stopReason"], "end_turn", "{idle}");

    // Another owner's requests for the session: not found, as for a session that never was.
    let (resumed, _) = theirs
        .call(
            "session/resume",
            json!({"sessionId": session, "cwd": "/work"}),
        )
        .await;
    assert_eq!(code(&resumed), Some(-32002), "{resumed}");
    let (replayed, leaked) = theirs
        .call(
            "session/resume",
            json!({"sessionId": session, "cwd": "/work", "replayFrom": {"type": "start"}}),
        )
        .await;
    assert_eq!(code(&replayed), Some(-32002), "{replayed}");
    assert!(leaked.is_empty(), "another owner got a replay: {leaked:?}");
    let (closed, _) = theirs
        .call("session/close", json!({"sessionId": session}))
        .await;
    assert_eq!(code(&closed), Some(-32002), "{closed}");
    let (list, _) = theirs.call("session/list", json!({})).await;
    assert!(listed(&list).is_empty(), "another owner lists {list}");
    // A prompt in a session not open on this connection is refused before it is
    // acknowledged, and nothing of the session reaches this connection.
    let (refused, leaked) = theirs
        .call(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "not yours"}]}),
        )
        .await;
    assert_eq!(code(&refused), Some(-32002), "{refused}");
    assert!(
        leaked.is_empty(),
        "another owner's prompt got updates: {leaked:?}"
    );
    theirs.close().await;

    // The owner's session is as it was: its own list has it, and it still works.
    let (list, _) = owner.call("session/list", json!({})).await;
    assert_eq!(listed(&list), std::slice::from_ref(&session));
    owner.close().await;
    if let Some(mut again) = again {
        let (resumed, replay) = again
            .call(
                "session/resume",
                json!({"sessionId": session, "cwd": "/work", "replayFrom": {"type": "start"}}),
            )
            .await;
        assert!(resumed.get("result").is_some(), "{resumed}");
        // Chunks carry one content block, whole messages a list of them.
        let texts: Vec<&str> = replay
            .iter()
            .map(|m| &m["params"]["update"]["content"])
            .flat_map(|c| {
                c.as_array()
                    .map_or_else(|| vec![c], |all| all.iter().collect())
            })
            .filter_map(|c| c["text"].as_str())
            .collect();
        assert!(texts.contains(&"mine"), "the owner's history: {replay:?}");
        assert!(
            !texts.contains(&"not yours"),
            "another owner's prompt was recorded: {replay:?}"
        );
        let (closed, _) = again
            .call("session/close", json!({"sessionId": session}))
            .await;
        assert!(closed.get("result").is_some(), "{closed}");
        again.close().await;
    }
}

#[tokio::test]
async fn another_principal_cannot_resume_close_list_or_prompt_a_v2_session() {
    let (url, stop, task) = owned_server(true).await;
    let alice = V2::open(&url, Some("alice")).await;
    let mallory = V2::open(&url, Some("mallory")).await;
    let alice_again = V2::open(&url, Some("alice")).await;
    others_cannot_reach_the_session(alice, mallory, Some(alice_again)).await;
    let _ = stop.send(());
    within("the server's end", task).await.unwrap().unwrap();
}

#[tokio::test]
async fn without_principals_another_connection_cannot_reach_a_v2_session() {
    let (url, stop, task) = owned_server(false).await;
    let first = V2::open(&url, None).await;
    let second = V2::open(&url, None).await;
    others_cannot_reach_the_session(first, second, None).await;
    let _ = stop.send(());
    within("the server's end", task).await.unwrap().unwrap();
}

#[tokio::test]
async fn v1_and_v2_connections_share_one_server() {
    let (url, stop, task) = owned_server(false).await;
    let mut v1 = Raw::new(&url);
    let init = v1.initialize().await;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    let mut v1_stream = v1.stream(None).await.expect("the connection stream");
    let mut v2 = V2::open(&url, None).await;
    let v1_session = common::new_session(&v1, &mut v1_stream, 1).await;
    let v2_session = v2.new_session().await;
    // v1: the answer ends the turn.
    let posted = v1
        .post(
            common::request(2, "session/prompt", common::prompt(&v1_session, "one")),
            &[],
        )
        .await;
    assert_eq!(posted.status, 202);
    let mut updates = Vec::new();
    let answer = loop {
        let message = v1_stream.expect().await;
        if message["id"] == 2 {
            break message;
        }
        updates.push(message);
    };
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    assert_eq!(
        common::chunk_text(&updates[0]),
        Some("noted"),
        "{updates:?}"
    );
    // v2: the answer acknowledges, `idle` ends the turn.
    let (ack, turn) = v2.turn(&v2_session, "two").await;
    assert!(ack["result"]["messageId"].is_string(), "{ack}");
    let kinds: Vec<&str> = turn
        .iter()
        .filter_map(|m| m["params"]["update"]["sessionUpdate"].as_str())
        .collect();
    assert_eq!(kinds.first(), Some(&"user_message"), "{turn:?}");
    assert!(kinds.contains(&"agent_message_chunk"), "{turn:?}");
    assert_eq!(kinds.last(), Some(&"state_update"), "{turn:?}");
    v2.close().await;
    assert_eq!(v1.delete().await, 202);
    let _ = stop.send(());
    within("the server's end", task).await.unwrap().unwrap();
}
