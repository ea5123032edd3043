//! The test client: an editor with an in-memory file system, fake terminals, scripted answers
//! to elicitations, and permission requests answered by a policy or handed to the test.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use acp_client::{Client, async_trait};
use acp_types::*;
use tokio::sync::{mpsc, oneshot, watch};

/// How the test client answers `session/request_permission`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionPolicy {
    /// Choose the first `allow_*` option at once.
    Allow,
    /// Choose the first `reject_*` option at once.
    Reject,
    /// Hand the request to the test ([`ClientEvent::PermissionAsked`]) and wait for its answer,
    /// like a user who takes their time.
    AskTest,
}

/// Something the client reports to the test.
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientEvent {
    /// A permission request waits for the test's answer (policy [`PermissionPolicy::AskTest`]).
    PermissionAsked {
        /// The request.
        request: Box<RequestPermissionRequest>,
        /// Where to send the user's answer.
        reply: oneshot::Sender<RequestPermissionResponse>,
    },
    /// The permission handler of this session was dropped while waiting for the user (the
    /// library answered for it).
    PermissionHandlerDropped(SessionId),
    /// An `elicitation/complete` notification arrived.
    ElicitationCompleted(ElicitationId),
}

/// The exit of a fake terminal's command: exit code and signal.
type Exit = Option<(Option<u32>, Option<String>)>;

struct FakeTerminal {
    output: String,
    limit: Option<u64>,
    exit: watch::Sender<Exit>,
}

impl FakeTerminal {
    /// The output, truncated from the beginning (at a character boundary) to the byte limit.
    fn output(&self) -> (String, bool) {
        let Some(limit) = self.limit.and_then(|l| usize::try_from(l).ok()) else {
            return (self.output.clone(), false);
        };
        if self.output.len() <= limit {
            return (self.output.clone(), false);
        }
        let mut start = self.output.len() - limit;
        while !self.output.is_char_boundary(start) {
            start += 1;
        }
        (self.output[start..].to_owned(), true)
    }
}

struct Inner {
    policy: Mutex<PermissionPolicy>,
    files: Mutex<BTreeMap<String, String>>,
    terminals: Mutex<BTreeMap<TerminalId, FakeTerminal>>,
    next_terminal: AtomicU64,
    updates: Mutex<Vec<SessionNotification>>,
    elicitations: Mutex<Vec<CreateElicitationRequest>>,
    events: mpsc::UnboundedSender<ClientEvent>,
}

/// The test client. Clones share their state, so the test keeps one to look inside.
#[derive(Clone)]
pub struct TestClient {
    inner: Arc<Inner>,
}

impl fmt::Debug for TestClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestClient")
            .field("policy", &*lock(&self.inner.policy))
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The answers the client gives to the form of
/// [`elicitation_form`](crate::elicitation_form).
pub fn form_answers() -> BTreeMap<String, ElicitationContentValue> {
    BTreeMap::from([
        (
            "strategy".to_owned(),
            ElicitationContentValue::String("bold".into()),
        ),
        ("passes".to_owned(), ElicitationContentValue::Integer(2)),
        ("confirm".to_owned(), ElicitationContentValue::Boolean(true)),
    ])
}

impl TestClient {
    /// A client answering permission requests as `policy` says, and the stream of its events.
    pub fn new(policy: PermissionPolicy) -> (Self, mpsc::UnboundedReceiver<ClientEvent>) {
        let (events, rx) = mpsc::unbounded_channel();
        let inner = Inner {
            policy: Mutex::new(policy),
            files: Mutex::new(BTreeMap::new()),
            terminals: Mutex::new(BTreeMap::new()),
            next_terminal: AtomicU64::new(0),
            updates: Mutex::new(Vec::new()),
            elicitations: Mutex::new(Vec::new()),
            events,
        };
        (
            Self {
                inner: Arc::new(inner),
            },
            rx,
        )
    }

    /// Changes how permission requests are answered from now on.
    pub fn set_permission_policy(&self, policy: PermissionPolicy) {
        *lock(&self.inner.policy) = policy;
    }

    /// Puts a file in the editor's file system.
    pub fn put_file(&self, path: &str, content: &str) {
        lock(&self.inner.files).insert(path.into(), content.into());
    }

    /// A file of the editor's file system.
    pub fn file(&self, path: &str) -> Option<String> {
        lock(&self.inner.files).get(path).cloned()
    }

    /// Every `session/update` handled so far, in order.
    pub fn updates(&self) -> Vec<SessionNotification> {
        lock(&self.inner.updates).clone()
    }

    /// The `session/update`s of one session handled so far, in order.
    pub fn updates_of(&self, session_id: &SessionId) -> Vec<SessionUpdate> {
        lock(&self.inner.updates)
            .iter()
            .filter(|n| &n.session_id == session_id)
            .map(|n| n.update.clone())
            .collect()
    }

    /// The text of every `agent_message_chunk` of one session so far, in order.
    pub fn messages_of(&self, session_id: &SessionId) -> Vec<String> {
        self.updates_of(session_id)
            .iter()
            .filter_map(|u| match u {
                SessionUpdate::AgentMessageChunk(chunk) => {
                    chunk.content.as_text().map(str::to_owned)
                }
                _ => None,
            })
            .collect()
    }

    /// Every elicitation request received so far.
    pub fn elicitations(&self) -> Vec<CreateElicitationRequest> {
        lock(&self.inner.elicitations).clone()
    }

    /// How many terminals were created and not released.
    pub fn open_terminals(&self) -> usize {
        lock(&self.inner.terminals).len()
    }

    fn emit(&self, event: ClientEvent) {
        // The test may have stopped listening; that is its business.
        let _ = self.inner.events.send(event);
    }

    fn terminal<T>(
        &self,
        id: &TerminalId,
        f: impl FnOnce(&mut FakeTerminal) -> T,
    ) -> Result<T, ErrorObject> {
        lock(&self.inner.terminals)
            .get_mut(id)
            .map(f)
            .ok_or_else(|| ErrorObject::terminal_not_found(id.as_str()))
    }
}

/// Reports a permission handler dropped before the user answered.
struct PermissionWait {
    client: TestClient,
    session_id: SessionId,
    answered: bool,
}

impl Drop for PermissionWait {
    fn drop(&mut self) {
        if !self.answered {
            self.client.emit(ClientEvent::PermissionHandlerDropped(
                self.session_id.clone(),
            ));
        }
    }
}

#[async_trait]
impl Client for TestClient {
    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        let policy = *lock(&self.inner.policy);
        let pick = |allow: bool| {
            request
                .options
                .iter()
                .find(|o| {
                    let is_allow = matches!(
                        o.kind,
                        PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
                    );
                    is_allow == allow
                })
                .map(|o| RequestPermissionResponse::selected(o.option_id.clone()))
                .ok_or_else(|| ErrorObject::invalid_params("no option to pick"))
        };
        match policy {
            PermissionPolicy::Allow => pick(true),
            PermissionPolicy::Reject => pick(false),
            PermissionPolicy::AskTest => {
                let mut wait = PermissionWait {
                    client: self.clone(),
                    session_id: request.session_id.clone(),
                    answered: false,
                };
                let (reply, answer) = oneshot::channel();
                self.emit(ClientEvent::PermissionAsked {
                    request: Box::new(request),
                    reply,
                });
                let answer = answer.await;
                wait.answered = true;
                answer.map_err(|_| ErrorObject::internal_error("the test dropped the question"))
            }
        }
    }

    async fn session_notification(
        &self,
        notification: SessionNotification,
    ) -> Result<(), ErrorObject> {
        // Yield a little, as a real editor would while rendering: ordering bugs show up then.
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
        lock(&self.inner.updates).push(notification);
        Ok(())
    }

    async fn read_text_file(
        &self,
        request: ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, ErrorObject> {
        let files = lock(&self.inner.files);
        let content = files
            .get(&request.path)
            .ok_or_else(|| ErrorObject::resource_not_found(request.path.as_str()))?;
        let skip = request.line.map_or(0, |l| l.saturating_sub(1) as usize);
        let take = request.limit.map_or(usize::MAX, |l| l as usize);
        let selected: String = content
            .split_inclusive('\n')
            .skip(skip)
            .take(take)
            .collect();
        Ok(ReadTextFileResponse::new(selected))
    }

    async fn write_text_file(
        &self,
        request: WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, ErrorObject> {
        lock(&self.inner.files).insert(request.path, request.content);
        Ok(WriteTextFileResponse::new())
    }

    async fn create_terminal(
        &self,
        request: CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse, ErrorObject> {
        let n = self.inner.next_terminal.fetch_add(1, Ordering::Relaxed);
        let id = TerminalId::from(format!("term-{n}"));
        let args = request.args.unwrap_or_default();
        // `echo` exits at once; anything else runs until killed.
        let (output, exit) = if request.command == "echo" {
            (format!("{}\n", args.join(" ")), Some((Some(0), None)))
        } else {
            ("started\n".to_owned(), None)
        };
        let terminal = FakeTerminal {
            output,
            limit: request.output_byte_limit,
            exit: watch::Sender::new(exit),
        };
        lock(&self.inner.terminals).insert(id.clone(), terminal);
        Ok(CreateTerminalResponse::new(id))
    }

    async fn terminal_output(
        &self,
        request: TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, ErrorObject> {
        self.terminal(&request.terminal_id, |t| {
            let (output, truncated) = t.output();
            let response = TerminalOutputResponse::new(output, truncated);
            match t.exit.borrow().clone() {
                Some((code, signal)) => {
                    let mut status = TerminalExitStatus::new();
                    status.exit_code = code;
                    status.signal = signal;
                    response.exit_status(status)
                }
                None => response,
            }
        })
    }

    async fn wait_for_terminal_exit(
        &self,
        request: WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, ErrorObject> {
        let mut exit = self.terminal(&request.terminal_id, |t| t.exit.subscribe())?;
        let (code, signal) = exit
            .wait_for(Option::is_some)
            .await
            .map_err(|_| ErrorObject::internal_error("the terminal was released"))?
            .clone()
            .unwrap_or_default();
        let mut response = WaitForTerminalExitResponse::new();
        response.exit_code = code;
        response.signal = signal;
        Ok(response)
    }

    async fn kill_terminal(
        &self,
        request: KillTerminalRequest,
    ) -> Result<KillTerminalResponse, ErrorObject> {
        self.terminal(&request.terminal_id, |t| {
            t.exit.send_if_modified(|exit| {
                let running = exit.is_none();
                if running {
                    *exit = Some((None, Some("SIGKILL".into())));
                }
                running
            });
        })?;
        Ok(KillTerminalResponse::new())
    }

    async fn release_terminal(
        &self,
        request: ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, ErrorObject> {
        lock(&self.inner.terminals)
            .remove(&request.terminal_id)
            .ok_or_else(|| ErrorObject::terminal_not_found(request.terminal_id.as_str()))?;
        Ok(ReleaseTerminalResponse::new())
    }

    async fn create_elicitation(
        &self,
        request: CreateElicitationRequest,
    ) -> Result<CreateElicitationResponse, ErrorObject> {
        let action = match &request.mode {
            ElicitationMode::Form(_) => {
                ElicitationAction::Accept(ElicitationAcceptAction::new().content(form_answers()))
            }
            // Consent to open the URL; the interaction itself happens out of band.
            ElicitationMode::Url(_) => ElicitationAction::Accept(ElicitationAcceptAction::new()),
            _ => ElicitationAction::Decline,
        };
        lock(&self.inner.elicitations).push(request);
        Ok(CreateElicitationResponse::new(action))
    }

    async fn complete_elicitation(
        &self,
        notification: CompleteElicitationNotification,
    ) -> Result<(), ErrorObject> {
        self.emit(ClientEvent::ElicitationCompleted(
            notification.elicitation_id,
        ));
        Ok(())
    }
}
