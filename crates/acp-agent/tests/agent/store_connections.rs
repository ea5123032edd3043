//! A `SessionStore` shared by the agents of several connections, driven over the wire: each
//! connection's agent has the view of its owner, so one client cannot list, load, prompt into
//! or delete another's session, and one session runs one turn at a time whichever connection
//! prompts.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_agent::{Agent, AgentOptions, ClientHandle, PromptContext, SessionStore, serve};
use acp_rpc::{Error, Peer, Router};
use acp_types::methods::{
    Initialize, SessionDelete, SessionList, SessionLoad, SessionNew, SessionPrompt, SessionUpdate,
};
use acp_types::*;
use tokio::sync::Notify;
use tokio::time::timeout;

/// The most any step of a test may take.
const DEADLINE: Duration = Duration::from_secs(10);

/// Lets a test hold a turn open: a prompt of `hold` waits for `release`.
#[derive(Default)]
struct Hold {
    started: Notify,
    release: Notify,
}

struct StoreAgent {
    client: ClientHandle,
    sessions: SessionStore<()>,
    hold: Arc<Hold>,
}

#[acp_agent::async_trait]
impl Agent for StoreAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        let capabilities = AgentCapabilities::new()
            .load_session(true)
            .session_capabilities(
                SessionCapabilities::new()
                    .list(SessionListCapabilities::new())
                    .delete(SessionDeleteCapabilities::new()),
            );
        Ok(InitializeResponse::new(ProtocolVersion::LATEST).agent_capabilities(capabilities))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        Ok(NewSessionResponse::new(self.sessions.create(())?))
    }

    async fn load_session(
        &self,
        req: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, ErrorObject> {
        self.sessions
            .load(&self.client, &req.session_id, |_| ())
            .await?;
        Ok(LoadSessionResponse::new())
    }

    async fn list_sessions(
        &self,
        req: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, ErrorObject> {
        self.sessions.list(req.cursor.as_deref(), 10, |id, _| {
            Some(SessionInfo::new(id.clone(), "/"))
        })
    }

    async fn delete_session(
        &self,
        req: DeleteSessionRequest,
    ) -> Result<DeleteSessionResponse, ErrorObject> {
        self.sessions.remove(&req.session_id);
        Ok(DeleteSessionResponse::new())
    }

    async fn prompt(
        &self,
        req: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let _turn = self.sessions.begin_turn(&req.session_id)?;
        let cx = self.sessions.recording(cx);
        cx.record_prompt(&req.prompt);
        if req.prompt.first().and_then(|b| b.as_text()) == Some("hold") {
            let released = self.hold.release.notified();
            self.hold.started.notify_one();
            released.await;
        }
        cx.message("done").await?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

/// One client connection to an agent with `sessions`, and the updates it received.
struct Client {
    peer: Peer,
    updates: Arc<Mutex<Vec<SessionNotification>>>,
}

impl Client {
    async fn connect(sessions: SessionStore<()>, hold: &Arc<Hold>) -> Self {
        let (agent_io, client_io) = tokio::io::duplex(64 * 1024);
        let (reader, writer) = tokio::io::split(agent_io);
        let hold = Arc::clone(hold);
        let make = move |client| StoreAgent {
            client,
            sessions,
            hold,
        };
        tokio::spawn(serve(make, reader, writer, AgentOptions::default()).1);
        let updates = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&updates);
        let router = Router::new().notification::<SessionUpdate, _, _>(move |update| {
            seen.lock().unwrap().push(update);
            async {}
        });
        let (reader, writer) = tokio::io::split(client_io);
        let (peer, driver) = acp_rpc::connect(|_| router, reader, writer, Default::default());
        tokio::spawn(driver);
        let client = Self { peer, updates };
        client
            .call::<Initialize>(&InitializeRequest::new(ProtocolVersion::V1))
            .await
            .unwrap();
        client
    }

    async fn call<M: acp_types::methods::Request>(
        &self,
        params: &M::Params,
    ) -> Result<M::Result, ErrorObject> {
        match timeout(DEADLINE, self.peer.request::<M>(params)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(Error::Remote(error))) => Err(error),
            Ok(Err(other)) => panic!("{} failed: {other}", M::METHOD),
            Err(_) => panic!("{} was not answered within {DEADLINE:?}", M::METHOD),
        }
    }

    async fn new_session(&self) -> SessionId {
        let request = NewSessionRequest::new("/tmp", Vec::<McpServer>::new());
        self.call::<SessionNew>(&request).await.unwrap().session_id
    }

    async fn prompt(&self, id: &SessionId, text: &str) -> Result<StopReason, ErrorObject> {
        let request = PromptRequest::new(id.clone(), vec![text.into()]);
        Ok(self.call::<SessionPrompt>(&request).await?.stop_reason)
    }

    async fn load(&self, id: &SessionId) -> Result<LoadSessionResponse, ErrorObject> {
        let request = LoadSessionRequest::new(id.clone(), "/tmp", Vec::<McpServer>::new());
        self.call::<SessionLoad>(&request).await
    }

    async fn list(&self) -> Vec<SessionId> {
        let listed = self
            .call::<SessionList>(&ListSessionsRequest::new())
            .await
            .unwrap();
        listed.sessions.into_iter().map(|s| s.session_id).collect()
    }

    fn updates_of(&self, id: &SessionId) -> usize {
        let updates = self.updates.lock().unwrap();
        updates.iter().filter(|u| u.session_id == *id).count()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_owners_on_two_connections_cannot_reach_each_others_sessions() {
    let store = SessionStore::new();
    let hold = Arc::default();
    let alice = Client::connect(store.owned_by("alice"), &hold).await;
    let bob = Client::connect(store.owned_by("bob"), &hold).await;
    let a = alice.new_session().await;
    assert_eq!(
        alice.prompt(&a, "alice's secret").await,
        Ok(StopReason::EndTurn)
    );
    let b = bob.new_session().await;
    assert_ne!(a, b);

    assert_eq!(alice.list().await, std::slice::from_ref(&a));
    assert_eq!(bob.list().await, std::slice::from_ref(&b));
    let not_found = ErrorObject::session_not_found(a.as_str());
    assert_eq!(bob.load(&a).await.unwrap_err(), not_found);
    assert_eq!(
        bob.updates_of(&a),
        0,
        "nothing of alice's was replayed to bob"
    );
    assert_eq!(bob.prompt(&a, "bob's words").await.unwrap_err(), not_found);
    let delete = DeleteSessionRequest::new(a.clone());
    bob.call::<SessionDelete>(&delete).await.unwrap();

    // Alice's session is whole: her history replays to a new connection of hers.
    let again = Client::connect(store.owned_by("alice"), &hold).await;
    again.load(&a).await.unwrap();
    assert_eq!(
        again.updates_of(&a),
        2,
        "alice's prompt and its reply, nothing of bob's"
    );
    assert_eq!(store.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_runs_one_turn_at_a_time_across_connections() {
    let store = SessionStore::new();
    let hold = Arc::<Hold>::default();
    let first = Arc::new(Client::connect(store.owned_by("alice"), &hold).await);
    let second = Client::connect(store.owned_by("alice"), &hold).await;
    let id = first.new_session().await;

    let started = hold.started.notified();
    let held = tokio::spawn({
        let (first, id) = (Arc::clone(&first), id.clone());
        async move { first.prompt(&id, "hold").await }
    });
    timeout(DEADLINE, started).await.expect("the turn started");
    let refused = second.prompt(&id, "meanwhile").await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::INVALID_REQUEST, "{refused:?}");
    assert!(refused.message.contains("already running"), "{refused:?}");

    hold.release.notify_one();
    let ended = timeout(DEADLINE, held).await.unwrap().unwrap();
    assert_eq!(ended, Ok(StopReason::EndTurn));
    // The turn is over: the other connection's prompt runs now.
    assert_eq!(second.prompt(&id, "now").await, Ok(StopReason::EndTurn));
}
