//! `Local` through a real connection: an agent (raw `acp-rpc`) calls the seven file and
//! terminal methods of a client that writes only the permission and update methods; and the
//! timeouts of the agent handle (`request_timeout`, `prompt_with_timeout`).

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acp_client::{AgentHandle, ClientOptions, Local, Terminals, Workspace, connect};
use acp_rpc::{Peer, Router};
use acp_types::methods::{self, Request};
use acp_types::*;
use common::{DEADLINE, Quiet};

/// The calls the hook saw, as displayed.
type Calls = Arc<Mutex<Vec<String>>>;

/// A fresh root holding `a.txt` and `sub/`.
fn root(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("acp-local-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("a.txt"), "one\ntwo\n").unwrap();
    dir.canonicalize().unwrap()
}

/// An agent answering `initialize` and `session/new` (`s1`), plus `extra` routes; returns
/// the client's handle and the agent's peer, to call the client with.
fn pair(
    make_client: impl FnOnce(AgentHandle) -> acp_client::WithLocal<Quiet>,
    options: ClientOptions,
    extra: impl FnOnce(Router) -> Router,
) -> (AgentHandle, Peer) {
    let (client_io, agent_io) = tokio::io::duplex(256 * 1024);
    let (reader, writer) = tokio::io::split(agent_io);
    let router = Router::new()
        .request::<methods::Initialize, _, _>(|_| async {
            Ok(InitializeResponse::new(ProtocolVersion::V1))
        })
        .request::<methods::SessionNew, _, _>(|_| async { Ok(NewSessionResponse::new("s1")) });
    let (agent, agent_driver) =
        acp_rpc::connect(|_| extra(router), reader, writer, Default::default());
    tokio::spawn(agent_driver);
    let (reader, writer) = tokio::io::split(client_io);
    let (handle, driver) = connect(make_client, reader, writer, options);
    tokio::spawn(driver);
    (handle, agent)
}

async fn open(handle: &AgentHandle, capabilities: ClientCapabilities, dir: &Path) {
    let init = InitializeRequest::new(ProtocolVersion::V1).client_capabilities(capabilities);
    handle.initialize(init).await.unwrap();
    let new = NewSessionRequest::new(dir, Vec::<McpServer>::new());
    assert_eq!(
        handle.new_session(new).await.unwrap().session_id.as_str(),
        "s1"
    );
}

async fn call<M: Request>(agent: &Peer, params: M::Params) -> Result<M::Result, acp_rpc::Error> {
    tokio::time::timeout(DEADLINE, agent.request::<M>(&params))
        .await
        .expect("answered in time")
}

fn code<T: std::fmt::Debug>(result: Result<T, acp_rpc::Error>) -> ErrorCode {
    match result {
        Err(acp_rpc::Error::Remote(e)) => e.code,
        other => panic!("expected an error answer, got {other:?}"),
    }
}

/// A fresh root served by a `Local` whose hook records the calls, initialized with its
/// capabilities and holding session `s1`. The handle must live for the connection to.
async fn served(name: &str) -> (PathBuf, AgentHandle, Peer, Calls) {
    let dir = root(name);
    let calls = Calls::default();
    let seen = calls.clone();
    let local = Local::new(Workspace::new(&dir).unwrap())
        .on_call(move |call| seen.lock().unwrap().push(call.to_string()));
    let capabilities = local.capabilities();
    let (handle, agent) = pair(|_| local.serve(Quiet), ClientOptions::default(), |r| r);
    open(&handle, capabilities, &dir).await;
    (dir, handle, agent, calls)
}

#[tokio::test]
async fn files_are_served_inside_the_workspace_and_every_call_is_reported() {
    let (dir, _handle, agent, calls) = served("fs").await;

    let a = dir.join("a.txt");
    let read = call::<methods::FsReadTextFile>(&agent, ReadTextFileRequest::new("s1", &a));
    assert_eq!(read.await.unwrap().content, "one\ntwo\n");
    let b = dir.join("sub/new/b.txt");
    let write = WriteTextFileRequest::new("s1", &b, "written");
    call::<methods::FsWriteTextFile>(&agent, write)
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "written");
    // Outside the root, and relative: refused, and reported.
    let outside = ReadTextFileRequest::new("s1", "/etc/hostname");
    let refused = call::<methods::FsReadTextFile>(&agent, outside).await;
    assert_eq!(code(refused), ErrorCode::INVALID_PARAMS);

    let calls = calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[0], format!("fs/read_text_file {}: ok", a.display()));
    assert_eq!(
        calls[1],
        format!("fs/write_text_file {} (7 bytes): ok", b.display())
    );
    assert!(
        calls[2].starts_with("fs/read_text_file /etc/hostname: ") && calls[2].contains("outside"),
        "{}",
        calls[2]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn terminals_run_in_the_workspace_and_answer_every_terminal_method() {
    let (dir, _handle, agent, calls) = served("term").await;

    // In `sub`, given as an absolute cwd; and in the root without one.
    let sub = dir.join("sub");
    for (cwd, expected) in [(Some(&sub), &sub), (None, &dir)] {
        let mut create = CreateTerminalRequest::new("s1", "pwd");
        create.cwd = cwd.map(|c| c.display().to_string());
        let id = call::<methods::TerminalCreate>(&agent, create)
            .await
            .unwrap()
            .terminal_id;
        let wait = WaitForTerminalExitRequest::new("s1", id.clone());
        let exit = call::<methods::TerminalWaitForExit>(&agent, wait)
            .await
            .unwrap();
        assert_eq!(exit.exit_code, Some(0));
        let output = TerminalOutputRequest::new("s1", id.clone());
        let output = call::<methods::TerminalOutput>(&agent, output)
            .await
            .unwrap();
        assert_eq!(output.output.trim(), expected.display().to_string());
        let release = ReleaseTerminalRequest::new("s1", id.clone());
        call::<methods::TerminalRelease>(&agent, release)
            .await
            .unwrap();
        let gone = TerminalOutputRequest::new("s1", id);
        let gone = call::<methods::TerminalOutput>(&agent, gone).await;
        assert_eq!(code(gone), ErrorCode::RESOURCE_NOT_FOUND);
    }

    // A relative cwd, one outside the root, and a file are refused.
    for cwd in ["sub", "/", dir.join("a.txt").to_str().unwrap()] {
        let mut create = CreateTerminalRequest::new("s1", "pwd");
        create.cwd = Some(cwd.to_owned());
        let refused = call::<methods::TerminalCreate>(&agent, create).await;
        assert_eq!(code(refused), ErrorCode::INVALID_PARAMS, "cwd {cwd}");
    }

    // Kill keeps the terminal, with its exit.
    let sleep = CreateTerminalRequest::new("s1", "sleep").args(vec!["30".into()]);
    let id = call::<methods::TerminalCreate>(&agent, sleep)
        .await
        .unwrap()
        .terminal_id;
    let kill = KillTerminalRequest::new("s1", id.clone());
    call::<methods::TerminalKill>(&agent, kill).await.unwrap();
    let wait = WaitForTerminalExitRequest::new("s1", id.clone());
    let exit = call::<methods::TerminalWaitForExit>(&agent, wait)
        .await
        .unwrap();
    assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));

    let calls = calls.lock().unwrap().clone();
    let methods: Vec<&str> = calls.iter().map(|c| c.split_once(' ').unwrap().0).collect();
    for method in [
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
    ] {
        assert!(
            methods.contains(&method),
            "{method} not reported: {calls:?}"
        );
    }
    assert!(
        calls.contains(&"terminal/create sleep 30: ok".to_owned()),
        "{calls:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn the_lifetime_limit_of_local_terminals_applies() {
    let dir = root("life");
    let terminals = Terminals::new().max_lifetime(Duration::from_millis(200));
    let local = Local::new(Workspace::new(&dir).unwrap()).terminals(terminals);
    let capabilities = local.capabilities();
    let (handle, agent) = pair(|_| local.serve(Quiet), ClientOptions::default(), |r| r);
    open(&handle, capabilities, &dir).await;
    let sleep = CreateTerminalRequest::new("s1", "sleep").args(vec!["30".into()]);
    let id = call::<methods::TerminalCreate>(&agent, sleep)
        .await
        .unwrap()
        .terminal_id;
    let wait = WaitForTerminalExitRequest::new("s1", id);
    let exit = call::<methods::TerminalWaitForExit>(&agent, wait)
        .await
        .unwrap();
    assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_read_only_workspace_is_advertised_and_refuses_writes() {
    let dir = root("ro");
    let local = Local::new(Workspace::new(&dir).unwrap().read_only(true));
    let capabilities = local.capabilities();
    let fs = capabilities.fs.clone().unwrap();
    assert_eq!(
        (fs.read_text_file, fs.write_text_file),
        (Some(true), Some(false))
    );
    assert_eq!(capabilities.terminal, Some(true));
    let (handle, agent) = pair(|_| local.serve(Quiet), ClientOptions::default(), |r| r);
    open(&handle, capabilities, &dir).await;
    // Not advertised: the library refuses it before `Local` sees it.
    let write = WriteTextFileRequest::new("s1", dir.join("a.txt"), "x");
    let refused = call::<methods::FsWriteTextFile>(&agent, write).await;
    assert_eq!(code(refused), ErrorCode::METHOD_NOT_FOUND);
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn quiet_local(dir: &Path) -> Local {
    Local::new(Workspace::new(dir).unwrap())
}

#[tokio::test]
async fn an_unanswered_request_fails_after_the_request_timeout() {
    let dir = root("timeout");
    let local = quiet_local(&dir);
    let options = ClientOptions::default().request_timeout(Duration::from_millis(200));
    let (handle, _agent) = pair(
        |_| local.serve(Quiet),
        options,
        |router| router.request::<methods::SessionSetMode, _, _>(|_| std::future::pending()),
    );
    open(&handle, ClientCapabilities::new(), &dir).await;
    let started = Instant::now();
    let set = SetSessionModeRequest::new("s1", "code");
    let error = tokio::time::timeout(DEADLINE, handle.set_session_mode(set))
        .await
        .expect("bounded")
        .unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(200));
    let message = error.to_string();
    assert!(
        message.contains("`session/set_mode` was not answered within 200ms"),
        "{message}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// An agent whose first turn runs until `session/cancel`, then answers `cancelled`; later
/// turns end at once. With `answer_cancel` false, a cancelled turn never answers.
fn slow_turns(answer_cancel: bool) -> impl FnOnce(Router) -> Router {
    move |router| {
        let cancelled = Arc::new(tokio::sync::Notify::new());
        let turns = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let on_cancel = cancelled.clone();
        router
            .notification::<methods::SessionCancel, _, _>(move |_| {
                let on_cancel = on_cancel.clone();
                async move { on_cancel.notify_one() }
            })
            .request::<methods::SessionPrompt, _, _>(move |_| {
                let (cancelled, turns) = (cancelled.clone(), turns.clone());
                async move {
                    if turns.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0 {
                        return Ok(PromptResponse::new(StopReason::EndTurn));
                    }
                    cancelled.notified().await;
                    if !answer_cancel {
                        std::future::pending::<()>().await;
                    }
                    Ok(PromptResponse::new(StopReason::Cancelled))
                }
            })
    }
}

#[tokio::test]
async fn a_prompt_past_its_timeout_is_cancelled_and_the_session_stays_usable() {
    let dir = root("prompt");
    let local = quiet_local(&dir);
    // The connection-wide timeout does not bound turns.
    let options = ClientOptions::default().request_timeout(Duration::from_millis(50));
    let (handle, _agent) = pair(|_| local.serve(Quiet), options, slow_turns(true));
    open(&handle, ClientCapabilities::new(), &dir).await;
    let started = Instant::now();
    let prompt = PromptRequest::new("s1", vec!["work".into()]);
    let done = tokio::time::timeout(
        DEADLINE,
        handle.prompt_with_timeout(prompt.clone(), Duration::from_millis(300)),
    )
    .await
    .expect("bounded")
    .unwrap();
    assert_eq!(done.stop_reason, StopReason::Cancelled);
    assert!(started.elapsed() >= Duration::from_millis(300));
    // The next turn runs normally.
    let next = tokio::time::timeout(DEADLINE, handle.prompt(prompt))
        .await
        .expect("bounded")
        .unwrap();
    assert_eq!(next.stop_reason, StopReason::EndTurn);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_prompt_not_answered_after_its_cancellation_fails_with_a_timeout() {
    let dir = root("prompt-stuck");
    let local = quiet_local(&dir);
    let (handle, _agent) = pair(
        |_| local.serve(Quiet),
        ClientOptions::default(),
        slow_turns(false),
    );
    open(&handle, ClientCapabilities::new(), &dir).await;
    let prompt = PromptRequest::new("s1", vec!["work".into()]);
    let started = Instant::now();
    let error = tokio::time::timeout(
        DEADLINE,
        handle.prompt_with_timeout(prompt, Duration::from_millis(100)),
    )
    .await
    .expect("bounded")
    .unwrap_err();
    assert!(started.elapsed() >= acp_client::PROMPT_CANCEL_GRACE);
    assert!(
        matches!(
            error,
            acp_client::Error::Rpc(acp_rpc::Error::Timeout {
                method: "session/prompt",
                ..
            })
        ),
        "{error:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
