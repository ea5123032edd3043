//! The agent crate against the client crate over the network transports of `acp-http`:
//! Streamable HTTP (POST + SSE) and WebSocket, on real sockets on 127.0.0.1, with every message
//! checked against the official schema by the server's tap. The same turns as over stdio:
//! every update kind, permissions, the client's files and terminals, cancellation, the
//! protocol rules; and what only remote use has: a session outliving its connection, many
//! sessions on one connection, a lost connection, a stdio agent behind the bridge.

use crate::common;

use std::time::Duration;

use acp_client::ClientOptions;
use acp_e2e::{
    AgentConfig, AgentEvent, PermissionPolicy, RemoteServer, Transport, all_client_capabilities,
    script, within,
};
use acp_http::server::{AcpServer, BridgeOptions, ServerOptions};
use acp_types::*;
use common::{checker, prompt, remote_code};

async fn server(config: AgentConfig) -> RemoteServer {
    RemoteServer::start(config, ServerOptions::default(), checker()).await
}

#[tokio::test]
async fn a_whole_turn_over_each_transport() {
    for transport in Transport::ALL {
        let s = server(AgentConfig::full()).await;
        let c = s
            .connect(transport, PermissionPolicy::Allow, ClientOptions::default())
            .await;
        let init = c.initialize(all_client_capabilities()).await;
        assert_eq!(init.protocol_version, ProtocolVersion::V1, "{transport}");
        let session = c.new_session().await;

        // Every update kind, all delivered before the prompt's answer.
        let mut updates = c.agent.session_updates(session.clone());
        let done = within(
            "prompt",
            c.agent.prompt(prompt(&session, script::STREAM_ALL_UPDATES)),
        )
        .await
        .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::EndTurn, "{transport}");
        let streamed: Vec<SessionUpdate> = std::iter::from_fn(|| updates.try_next())
            .map(|n| n.update)
            .collect();
        assert_eq!(
            streamed.len(),
            script::ALL_UPDATE_KINDS.len(),
            "{transport}"
        );
        assert_eq!(c.editor.updates_of(&session), streamed);

        // A permission request, answered by the editor on the session's stream.
        let done = within(
            "prompt",
            c.agent.prompt(prompt(&session, script::ASK_PERMISSION)),
        )
        .await
        .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::EndTurn);

        // The client's files and terminals.
        c.editor.put_file("/work/notes.txt", "one\ntwo\nthree\n");
        let text = format!("{} /work/notes.txt /work/out.txt", script::READ_WRITE_FILE);
        within("prompt", c.agent.prompt(prompt(&session, &text)))
            .await
            .expect("prompt");
        assert_eq!(
            c.editor.file("/work/out.txt").as_deref(),
            Some("ONE\nTWO\nTHREE\n")
        );
        let before = c.editor.messages_of(&session).len();
        within("prompt", c.agent.prompt(prompt(&session, script::TERMINAL)))
            .await
            .expect("prompt");
        let terminal = &c.editor.messages_of(&session)[before..];
        assert!(
            terminal[0].starts_with("echo: output \"hello\\n\""),
            "{terminal:?}"
        );

        // Cancellation: the turn ends `cancelled`.
        let agent = c.agent.clone();
        let waiting = session.clone();
        let turn = tokio::spawn(async move {
            agent
                .prompt(prompt(&waiting, script::WAIT_FOR_CANCEL))
                .await
        });
        let mut s = s;
        loop {
            if let AgentEvent::WaitingForCancel(_) = s.agent_event().await {
                break;
            }
        }
        c.agent
            .cancel(CancelNotification::new(session.clone()))
            .await
            .expect("cancel");
        let cancelled = within("the cancelled turn", turn)
            .await
            .unwrap()
            .expect("prompt");
        assert_eq!(cancelled.stop_reason, StopReason::Cancelled, "{transport}");

        // The rules hold: one prompt per session.
        let agent = c.agent.clone();
        let waiting = session.clone();
        let first = tokio::spawn(async move {
            agent
                .prompt(prompt(&waiting, script::WAIT_FOR_CANCEL))
                .await
        });
        loop {
            if let AgentEvent::WaitingForCancel(_) = s.agent_event().await {
                break;
            }
        }
        assert_eq!(
            remote_code(c.agent.prompt(prompt(&session, "hello")).await),
            -32600,
            "{transport}"
        );
        c.agent
            .cancel(CancelNotification::new(session.clone()))
            .await
            .unwrap();
        within("the first turn", first)
            .await
            .unwrap()
            .expect("prompt");

        c.close().await;
        s.finish(10).await;
    }
}

#[tokio::test]
async fn a_session_outlives_its_connection_through_session_load() {
    for transport in Transport::ALL {
        let s = server(AgentConfig::full()).await;
        let first = s
            .connect(transport, PermissionPolicy::Allow, ClientOptions::default())
            .await;
        first.initialize(all_client_capabilities()).await;
        let session = first.new_session().await;
        within(
            "prompt",
            first.agent.prompt(prompt(&session, "remember me")),
        )
        .await
        .expect("prompt");
        first.close().await;

        // Reconnect: a new connection, and `session/load` replays the history before it
        // answers.
        let second = s
            .connect(transport, PermissionPolicy::Allow, ClientOptions::default())
            .await;
        second.initialize(all_client_capabilities()).await;
        let mut replay = second.agent.session_updates(session.clone());
        within(
            "session/load",
            second.agent.load_session(LoadSessionRequest::new(
                session.clone(),
                "/work",
                Vec::<McpServer>::new(),
            )),
        )
        .await
        .expect("load");
        let replayed: Vec<SessionUpdate> = std::iter::from_fn(|| replay.try_next())
            .map(|n| n.update)
            .collect();
        assert!(
            replayed
                .iter()
                .any(|u| matches!(u, SessionUpdate::AgentMessageChunk(c)
                if c.content.as_text() == Some("remember me"))),
            "{transport}: {replayed:?}"
        );
        within("prompt", second.agent.prompt(prompt(&session, "again")))
            .await
            .expect("the loaded session works");
        second.close().await;
        s.finish(6).await;
    }
}

#[tokio::test]
async fn many_sessions_on_one_connection_stay_apart() {
    for transport in Transport::ALL {
        let s = server(AgentConfig::full()).await;
        let c = s
            .connect(transport, PermissionPolicy::Allow, ClientOptions::default())
            .await;
        c.initialize(all_client_capabilities()).await;
        let mut sessions = Vec::new();
        for _ in 0..6 {
            sessions.push(c.new_session().await);
        }
        let turns: Vec<_> = sessions
            .iter()
            .map(|session| {
                let agent = c.agent.clone();
                let request = prompt(session, &format!("hello from {session}"));
                tokio::spawn(async move { agent.prompt(request).await })
            })
            .collect();
        for turn in turns {
            within("a turn", turn).await.unwrap().expect("prompt");
        }
        for session in &sessions {
            let said = c.editor.messages_of(session);
            assert!(
                said.contains(&format!("hello from {session}")),
                "{transport}: {session} got {said:?}"
            );
            let others = sessions.iter().filter(|other| *other != session);
            for other in others {
                assert!(
                    !said
                        .iter()
                        .any(|m| m.contains(&format!("hello from {other}"))),
                    "{transport}: {session} got {other}'s messages: {said:?}"
                );
            }
        }
        c.close().await;
        s.finish(12).await;
    }
}

#[tokio::test]
async fn a_lost_connection_fails_pending_calls_promptly() {
    for transport in Transport::ALL {
        let mut s = server(AgentConfig::full()).await;
        let c = s
            .connect(transport, PermissionPolicy::Allow, ClientOptions::default())
            .await;
        c.initialize(all_client_capabilities()).await;
        let session = c.new_session().await;
        let agent = c.agent.clone();
        let turn = tokio::spawn(async move {
            agent
                .prompt(prompt(&session, script::WAIT_FOR_CANCEL))
                .await
        });
        loop {
            if let AgentEvent::WaitingForCancel(_) = s.agent_event().await {
                break;
            }
        }
        // The server goes away under the pending prompt.
        s.server.shutdown();
        let started = std::time::Instant::now();
        let failed = within("the pending prompt", turn).await.unwrap();
        assert!(failed.is_err(), "{transport}: {failed:?}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{transport}: took {:?}",
            started.elapsed()
        );
        let ended = within("the client driver", c.driver).await.unwrap();
        assert!(
            ended.is_err() || transport == Transport::WebSocket,
            "{transport}: {ended:?}"
        );
        s.finish(2).await;
    }
}

/// Whether process `pid` still exists.
fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.split_whitespace().nth(2) == Some("Z"))
}

#[tokio::test]
async fn a_stdio_agent_program_through_the_bridge() {
    for transport in Transport::ALL {
        let dir =
            std::env::temp_dir().join(format!("acp-bridge-{}-{transport}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pids = dir.join("pids");
        let _ = std::fs::remove_file(&pids);
        let agent = env!("CARGO_BIN_EXE_e2e_agent").to_owned();
        let record = pids.clone();
        let server = AcpServer::bridge(
            move || {
                // The shell records the agent's pid, then becomes the agent.
                let mut command = tokio::process::Command::new("sh");
                command
                    .arg("-c")
                    .arg(format!("echo $$ >> '{}'; exec '{agent}'", record.display()));
                command
            },
            ServerOptions::default(),
            BridgeOptions::default(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = match transport {
            Transport::Sse => format!("http://{}/acp", listener.local_addr().unwrap()),
            Transport::WebSocket => format!("ws://{}/acp", listener.local_addr().unwrap()),
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(acp_http::server::serve(
            listener,
            server.clone(),
            async move {
                let _ = stopped.await;
            },
        ));

        let (editor, _events) = acp_e2e::TestClient::new(PermissionPolicy::Allow);
        let connected = editor.clone();
        let (agent, driver) = acp_http::client::connect(
            &url,
            move |_| connected,
            acp_http::client::ConnectOptions::default(),
        )
        .await
        .expect("connect");
        let connection = driver.connection();
        let driver = tokio::spawn(driver);
        let init = within(
            "initialize",
            agent.initialize(
                InitializeRequest::new(ProtocolVersion::LATEST)
                    .client_capabilities(all_client_capabilities()),
            ),
        )
        .await
        .expect("initialize through the bridge");
        assert_eq!(
            init.agent_info.as_ref().map(|i| i.name.as_str()),
            Some("e2e-agent")
        );
        let session = within(
            "session/new",
            agent.new_session(NewSessionRequest::new("/work", Vec::<McpServer>::new())),
        )
        .await
        .expect("session")
        .session_id;
        let done = within(
            "prompt",
            agent.prompt(prompt(&session, script::STREAM_ALL_UPDATES)),
        )
        .await
        .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
        assert_eq!(
            editor.updates_of(&session).len(),
            script::ALL_UPDATE_KINDS.len(),
            "{transport}"
        );
        let pid: u32 = std::fs::read_to_string(&pids)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(alive(pid), "the agent runs while its connection is open");

        // Closing the connection ends the agent's process.
        connection.close();
        let _ = within("the client driver", driver).await;
        let mut gone = false;
        for _ in 0..500 {
            if !alive(pid) {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            gone,
            "{transport}: the agent (pid {pid}) outlived its connection"
        );
        let _ = stop.send(());
        within("the server's end", serving).await.unwrap().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
