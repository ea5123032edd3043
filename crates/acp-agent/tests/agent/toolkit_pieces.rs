//! The toolkit pieces of issue 20 over a real connection, against a raw `acp-rpc` client that
//! records what it gets: session modes, the absolute-`cwd` rule, the terminal builder, tool
//! calls ending with several contents and a raw output, plans changed whole and with
//! priorities, the chosen permission option, and the request timeout.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acp_agent::{
    Agent, AgentOptions, ClientHandle, Modes, Permission, PromptContext, ToolOutput, serve,
};
use acp_rpc::{Peer, Router};
use acp_types::methods;
use acp_types::*;
use serde_json::json;

/// The most any step of a test may take.
const DEADLINE: Duration = Duration::from_secs(10);

struct Pieces {
    client: ClientHandle,
    modes: Modes,
    sessions_opened: Arc<Mutex<usize>>,
}

#[acp_agent::async_trait]
impl Agent for Pieces {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(ProtocolVersion::LATEST))
    }

    async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
        let id = {
            let mut opened = self.sessions_opened.lock().unwrap();
            *opened += 1;
            SessionId::from(format!("s{opened}"))
        };
        let modes = self.modes.open(&id)?;
        Ok(NewSessionResponse::new(id).modes(modes))
    }

    async fn set_session_mode(
        &self,
        r: SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, ErrorObject> {
        self.modes
            .set(&self.client, &r.session_id, &r.mode_id)
            .await?;
        Ok(SetSessionModeResponse::new())
    }

    async fn prompt(
        &self,
        r: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let text = r.prompt[0].as_text().unwrap_or_default().to_owned();
        match text.as_str() {
            "plan" => {
                let plan = cx
                    .plan([
                        ("Read", PlanEntryPriority::High),
                        ("Write", PlanEntryPriority::Low),
                    ])
                    .await?;
                plan.set_all(PlanEntryStatus::InProgress).await?;
                plan.update(|entries| {
                    entries[0].status = PlanEntryStatus::Completed;
                    entries[1].priority = PlanEntryPriority::High;
                })
                .await?;
                plan.push("Check").await?;
            }
            "tool" => {
                let call = cx.tool_call("Search", ToolKind::Search).await?;
                let output = ToolOutput::new(["3 matches", "in 2 files"])
                    .raw_output(json!({ "matches": 3 }));
                call.completed_with(output).await?;
                let other = cx.tool_call("Fail", ToolKind::Other).await?;
                other.failed_with("no luck").await?;
            }
            "ask" => {
                let call = cx.tool_call("Edit", ToolKind::Edit).await?;
                let options = acp_agent::permission_options::all();
                let decision = call.ask(options).await;
                let said = match decision {
                    Ok(decision) => format!(
                        "allowed={} id={}",
                        decision.is_allowed(),
                        decision.option_id().map_or("-", |id| id.as_str())
                    ),
                    Err(error) => format!("error: {error}"),
                };
                cx.message(said).await?;
            }
            "terminal" => {
                let terminal = cx
                    .new_terminal("ls")
                    .args(["-l", "-a"])
                    .cwd("/tmp")
                    .env("K", "V")
                    .output_byte_limit(10)
                    .await?;
                cx.message(terminal.id().to_string()).await?;
                terminal.release().await?;
            }
            _ => {}
        }
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

/// What the raw client got.
#[derive(Default)]
struct Seen {
    updates: Mutex<Vec<SessionUpdate>>,
    terminals: Mutex<Vec<CreateTerminalRequest>>,
}

impl Seen {
    fn updates(&self) -> Vec<SessionUpdate> {
        std::mem::take(&mut *self.updates.lock().unwrap())
    }

    fn messages(&self) -> Vec<String> {
        self.updates()
            .into_iter()
            .filter_map(|u| match u {
                SessionUpdate::AgentMessageChunk(c) => c.content.as_text().map(str::to_owned),
                _ => None,
            })
            .collect()
    }
}

/// Serves `Pieces` and connects a raw client; `answer_permissions` false leaves permission
/// requests unanswered. Returns the agent's peer (initialized) and what the client saw.
async fn start(
    options: AgentOptions,
    answer_permissions: bool,
) -> (Peer, Arc<Seen>, Arc<Mutex<usize>>) {
    let (agent_io, client_io) = tokio::io::duplex(256 * 1024);
    let (reader, writer) = tokio::io::split(agent_io);
    let opened = Arc::new(Mutex::new(0));
    let sessions_opened = opened.clone();
    let modes = Modes::new([
        SessionMode::new("ask", "Ask"),
        SessionMode::new("code", "Code"),
    ]);
    let make = move |client| Pieces {
        client,
        modes,
        sessions_opened,
    };
    let (_client, driver) = serve(make, reader, writer, options);
    tokio::spawn(driver);

    let seen = Arc::new(Seen::default());
    let (on_update, on_terminal) = (seen.clone(), seen.clone());
    let router = Router::new()
        .notification::<methods::SessionUpdate, _, _>(move |n| {
            on_update.updates.lock().unwrap().push(n.update);
            async {}
        })
        .request::<methods::SessionRequestPermission, _, _>(move |_| async move {
            if !answer_permissions {
                std::future::pending::<()>().await;
            }
            Ok(RequestPermissionResponse::selected("allow-always"))
        })
        .request::<methods::TerminalCreate, _, _>(move |r| {
            on_terminal.terminals.lock().unwrap().push(r);
            async { Ok(CreateTerminalResponse::new("term-1")) }
        })
        .request::<methods::TerminalRelease, _, _>(|_| async {
            Ok(ReleaseTerminalResponse::new())
        });
    let (reader, writer) = tokio::io::split(client_io);
    let (agent, client_driver) = acp_rpc::connect(|_| router, reader, writer, Default::default());
    tokio::spawn(client_driver);
    let init = InitializeRequest::new(ProtocolVersion::V1)
        .client_capabilities(ClientCapabilities::new().terminal(true));
    call::<methods::Initialize>(&agent, init).await.unwrap();
    (agent, seen, opened)
}

async fn call<M: methods::Request>(
    agent: &Peer,
    params: M::Params,
) -> Result<M::Result, acp_rpc::Error> {
    tokio::time::timeout(DEADLINE, agent.request::<M>(&params))
        .await
        .expect("answered in time")
}

async fn new_session(agent: &Peer) -> NewSessionResponse {
    let new = NewSessionRequest::new("/work", Vec::<McpServer>::new());
    call::<methods::SessionNew>(agent, new).await.unwrap()
}

async fn prompt(agent: &Peer, session: &SessionId, text: &str) {
    let prompt = PromptRequest::new(session.clone(), vec![text.into()]);
    let done = call::<methods::SessionPrompt>(agent, prompt).await.unwrap();
    assert_eq!(done.stop_reason, StopReason::EndTurn);
}

fn remote(error: acp_rpc::Error) -> ErrorObject {
    match error {
        acp_rpc::Error::Remote(e) => e,
        other => panic!("expected an error answer, got {other:?}"),
    }
}

#[tokio::test]
async fn modes_are_offered_validated_and_announced() {
    let (agent, seen, _) = start(AgentOptions::default(), true).await;
    let session = new_session(&agent).await;
    let modes = session.modes.expect("the answer lists the modes");
    assert_eq!(modes.current_mode_id.as_str(), "ask");
    assert_eq!(modes.available_modes.len(), 2);
    let id = session.session_id;

    let unknown = SetSessionModeRequest::new(id.clone(), "yolo");
    let error = remote(
        call::<methods::SessionSetMode>(&agent, unknown)
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(
        error
            .message
            .contains("unknown mode `yolo`; offered: ask, code"),
        "{}",
        error.message
    );
    let other_session = SetSessionModeRequest::new("nope", "code");
    let error = remote(
        call::<methods::SessionSetMode>(&agent, other_session)
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert!(seen.updates().is_empty(), "a refused change sends nothing");

    let set = SetSessionModeRequest::new(id.clone(), "code");
    call::<methods::SessionSetMode>(&agent, set.clone())
        .await
        .unwrap();
    let updates = seen.updates();
    assert!(
        matches!(&updates[..], [SessionUpdate::CurrentModeUpdate(u)] if u.current_mode_id.as_str() == "code"),
        "{updates:?}"
    );
    // The same mode again: nothing to announce.
    call::<methods::SessionSetMode>(&agent, set).await.unwrap();
    assert!(seen.updates().is_empty());
}

#[tokio::test]
async fn a_relative_cwd_is_refused_before_the_agent_sees_it() {
    let (agent, _, opened) = start(AgentOptions::default(), true).await;
    for (cwd, more, field) in [
        ("work", None, "cwd"),
        (
            "/work",
            Some(vec!["/a".to_owned(), "b".to_owned()]),
            "additionalDirectories[1]",
        ),
    ] {
        let mut new = NewSessionRequest::new(cwd, Vec::<McpServer>::new());
        new.additional_directories = more;
        let error = remote(call::<methods::SessionNew>(&agent, new).await.unwrap_err());
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(
            error
                .message
                .contains(&format!("`{field}` must be an absolute path")),
            "{}",
            error.message
        );
        assert_eq!(error.data.unwrap()["field"], field);
    }
    assert_eq!(*opened.lock().unwrap(), 0, "the agent never saw them");
    new_session(&agent).await;
    assert_eq!(*opened.lock().unwrap(), 1);

    // The rule can be turned off.
    let mut options = AgentOptions::default();
    options.require_absolute_cwd = false;
    let (agent, _, opened) = start(options, true).await;
    let new = NewSessionRequest::new("work", Vec::<McpServer>::new());
    call::<methods::SessionNew>(&agent, new).await.unwrap();
    assert_eq!(*opened.lock().unwrap(), 1);
}

#[tokio::test]
async fn plans_change_whole_and_carry_priorities() {
    let (agent, seen, _) = start(AgentOptions::default(), true).await;
    let id = new_session(&agent).await.session_id;
    prompt(&agent, &id, "plan").await;
    let plans: Vec<Vec<String>> = seen
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            SessionUpdate::Plan(plan) => Some(plan.entries),
            _ => None,
        })
        .map(|entries| {
            entries
                .into_iter()
                .map(|e| {
                    format!(
                        "{} {} {}",
                        e.content,
                        e.priority.as_str(),
                        e.status.as_str()
                    )
                })
                .collect()
        })
        .collect();
    let entry = |c: &str, p: &str, s: &str| format!("{c} {p} {s}");
    assert_eq!(
        plans,
        [
            vec![
                entry("Read", "high", "pending"),
                entry("Write", "low", "pending")
            ],
            vec![
                entry("Read", "high", "in_progress"),
                entry("Write", "low", "in_progress")
            ],
            vec![
                entry("Read", "high", "completed"),
                entry("Write", "high", "in_progress")
            ],
            vec![
                entry("Read", "high", "completed"),
                entry("Write", "high", "in_progress"),
                entry("Check", "medium", "pending")
            ],
        ]
    );
}

#[tokio::test]
async fn tool_calls_end_with_several_contents_and_a_raw_output() {
    let (agent, seen, _) = start(AgentOptions::default(), true).await;
    let id = new_session(&agent).await.session_id;
    prompt(&agent, &id, "tool").await;
    let ends: Vec<ToolCallUpdate> = seen
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCallUpdate(u) => Some(*u),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2, "{ends:?}");
    let texts = |u: &ToolCallUpdate| -> Vec<String> {
        u.content
            .iter()
            .flatten()
            .map(|c| match c {
                ToolCallContent::Content(c) => c.content.as_text().unwrap_or("?").to_owned(),
                _ => "other".to_owned(),
            })
            .collect()
    };
    assert_eq!(ends[0].status, Some(ToolCallStatus::Completed));
    assert_eq!(texts(&ends[0]), ["3 matches", "in 2 files"]);
    assert_eq!(ends[0].raw_output, Some(json!({ "matches": 3 })));
    assert_eq!(ends[1].status, Some(ToolCallStatus::Failed));
    assert_eq!(texts(&ends[1]), ["no luck"]);
    assert_eq!(ends[1].raw_output, None);
}

#[tokio::test]
async fn the_chosen_option_id_is_kept() {
    let (agent, seen, _) = start(AgentOptions::default(), true).await;
    let id = new_session(&agent).await.session_id;
    prompt(&agent, &id, "ask").await;
    assert_eq!(seen.messages(), ["allowed=true id=allow-always"]);
    let outcome = RequestPermissionOutcome::selected("reject");
    let decision = Permission::of(&outcome, &acp_agent::permission_options::all());
    assert_eq!(decision, Permission::RejectedOnce("reject".into()));
    assert!(!decision.is_remembered());
}

#[tokio::test]
async fn the_terminal_builder_sends_everything_it_was_given() {
    let (agent, seen, _) = start(AgentOptions::default(), true).await;
    let id = new_session(&agent).await.session_id;
    prompt(&agent, &id, "terminal").await;
    assert_eq!(seen.messages(), ["term-1"]);
    let created = seen.terminals.lock().unwrap().clone();
    let [request] = &created[..] else {
        panic!("one terminal/create: {created:?}")
    };
    assert_eq!(request.session_id, id);
    assert_eq!(request.command, "ls");
    assert_eq!(
        request.args.as_deref(),
        Some(&["-l".to_owned(), "-a".to_owned()][..])
    );
    assert_eq!(request.cwd.as_deref(), Some("/tmp"));
    let env = request.env.as_ref().unwrap();
    assert_eq!((env[0].name.as_str(), env[0].value.as_str()), ("K", "V"));
    assert_eq!(request.output_byte_limit, Some(10));
}

#[tokio::test]
async fn an_unanswered_permission_request_fails_after_the_request_timeout() {
    let options = AgentOptions::default().request_timeout(Duration::from_millis(200));
    let (agent, seen, _) = start(options, false).await;
    let id = new_session(&agent).await.session_id;
    let started = Instant::now();
    prompt(&agent, &id, "ask").await;
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(
        seen.messages(),
        ["error: `session/request_permission` was not answered within 200ms"]
    );
}
