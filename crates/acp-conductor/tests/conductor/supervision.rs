//! A component that dies, an editor that hangs up, a component that cannot start, messages a
//! conductor refuses.

use std::time::Duration;

use acp_conductor::{Component, Conductor, Error};
use acp_types::methods::SessionPrompt;
use acp_types::{ErrorCode, InitializeRequest, PromptRequest, ProtocolVersion};

use crate::common::{Editor, agent, proxy, token, within};

/// The processes of `token`, once the conductor has returned: there are none left.
fn assert_all_gone(token: &str) {
    #[cfg(target_os = "linux")]
    {
        let alive = crate::common::alive(token);
        assert!(
            alive.is_empty(),
            "processes of the chain still run: {alive:?}"
        );
    }
    #[cfg(not(target_os = "linux"))]
    let _ = token;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_dying_mid_turn_ends_the_chain_with_a_clear_error() {
    let t = token("dies");
    let editor = Editor::start(Conductor::agent([proxy(&t, &["die-mid-turn"]), agent(&t)]));
    let session = editor.open_session().await;
    let answer = within(
        "the prompt's answer",
        editor
            .agent
            .request::<SessionPrompt>(&PromptRequest::new(session, vec!["stream 100 100".into()])),
    )
    .await;
    let Err(acp_rpc::Error::Remote(error)) = answer else {
        panic!("the prompt of a dead chain fails: {answer:?}");
    };
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(
        error.message.contains("chain_proxy") && error.message.contains("exited with code 3"),
        "the error names the component and how it ended: {}",
        error.message
    );
    let ended = within("the conductor's end", editor.conductor)
        .await
        .expect("the conductor task");
    assert!(
        matches!(ended, Err(Error::ComponentEnded { index: 0, .. })),
        "{ended:?}"
    );
    assert_all_gone(&t);
    editor.checker.assert_clean();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_dying_without_proxies_answers_the_open_request() {
    let editor = Editor::start(Conductor::agent([Component::parse(
        "sh -c 'read -r request; exit 5'",
    )
    .expect("a command")]));
    let answer = within(
        "initialize's answer",
        editor
            .agent
            .request::<acp_types::methods::Initialize>(&InitializeRequest::new(
                ProtocolVersion::LATEST,
            )),
    )
    .await;
    let Err(acp_rpc::Error::Remote(error)) = answer else {
        panic!("initialize to a dead agent fails: {answer:?}");
    };
    assert!(
        error.message.contains("`initialize` was not answered")
            && error.message.contains("exited with code 5"),
        "{}",
        error.message
    );
    let ended = within("the conductor's end", editor.conductor)
        .await
        .expect("the conductor task");
    assert!(
        matches!(ended, Err(Error::ComponentEnded { .. })),
        "{ended:?}"
    );
    editor.checker.assert_clean();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_hanging_up_mid_turn_stops_every_process() {
    for proxies in [0, 2] {
        let t = token(&format!("hangup{proxies}"));
        let mut chain: Vec<Component> = (0..proxies).map(|_| proxy(&t, &["pass"])).collect();
        chain.push(agent(&t));
        let editor = Editor::start(Conductor::agent(chain));
        let session = editor.open_session().await;
        let long_turn = PromptRequest::new(session, vec!["stream 100 100".into()]);
        let prompt = editor.agent.request::<SessionPrompt>(&long_turn);
        let running = tokio::time::timeout(Duration::from_millis(500), prompt).await;
        assert!(running.is_err(), "the turn is still running");
        editor.driver.abort();
        drop(editor.agent);
        let ended = within("the conductor's end", editor.conductor)
            .await
            .expect("the conductor task");
        assert!(ended.is_ok(), "{proxies} proxies: {ended:?}");
        assert_all_gone(&t);
        editor.checker.assert_clean();
    }
}

#[tokio::test]
async fn a_component_that_cannot_start_is_reported_and_the_others_stopped() {
    let t = token("nostart");
    let chain = [
        proxy(&t, &["pass"]),
        Component::new("/nonexistent/acp-agent", Vec::<String>::new()),
    ];
    let (_editor, conductor_io) = tokio::io::duplex(1024);
    let (reader, writer) = tokio::io::split(conductor_io);
    let ended = within("the conductor", Conductor::agent(chain).run(reader, writer)).await;
    let Err(Error::Spawn { component, .. }) = ended else {
        panic!("{ended:?}");
    };
    assert_eq!(component, "/nonexistent/acp-agent");
    assert_all_gone(&t);
    let empty = Conductor::proxy([])
        .run(tokio::io::empty(), tokio::io::sink())
        .await;
    assert!(matches!(empty, Err(Error::Chain(_))), "{empty:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_messages_from_an_editor_are_refused() {
    let t = token("refused");
    let editor = Editor::start(Conductor::agent([proxy(&t, &["pass"]), agent(&t)]));
    let refused = within(
        "proxy/initialize",
        editor.agent.request_raw(
            "proxy/initialize",
            &InitializeRequest::new(ProtocolVersion::LATEST),
        ),
    )
    .await;
    let Err(acp_rpc::Error::Remote(error)) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_REQUEST);
    // The chain is unharmed.
    editor.open_session().await;
    editor.driver.abort();
    drop(editor.agent);
    within("the conductor's end", editor.conductor)
        .await
        .expect("the conductor task")
        .expect("a clean end");
    assert_all_gone(&t);
}
