//! Prompt turns through chains of 0, 1 and 3 proxies, a nested chain, and cancellation.

use std::time::Duration;

use acp_conductor::{Component, Conductor, Direction, Link};
use acp_types::methods::{SessionCancel, SessionPrompt};
use acp_types::{CancelNotification, PromptRequest, SessionId, StopReason};
use serde_json::Value;

use crate::common::{Editor, agent, chain_proxy, proxy, token, within};

/// One ordinary turn: it ends with `end_turn`, after at least one update.
async fn turn(editor: &Editor, session: &SessionId, text: &str) {
    let response = within(
        "session/prompt",
        editor
            .agent
            .request::<SessionPrompt>(&PromptRequest::new(session.clone(), vec![text.into()])),
    )
    .await
    .expect("session/prompt through the chain");
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert!(editor.update_count() > 0, "the turn's updates arrived");
}

/// Ends the editor's connection and expects the conductor to end cleanly.
async fn hang_up(editor: Editor) {
    editor.driver.abort();
    drop(editor.agent);
    within("the conductor's end", editor.conductor)
        .await
        .expect("the conductor task")
        .expect("the editor's hang-up is a clean end");
}

/// The texts of the prompts component `i` received from the conductor.
fn prompts_at(editor: &Editor, i: usize) -> Vec<Vec<String>> {
    editor
        .checker
        .messages(Link::Component(i), Direction::Sent)
        .iter()
        .filter(|m| m["method"] == "session/prompt")
        .map(|m| {
            m["params"]["prompt"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|block| block["text"].as_str().map(str::to_owned))
                .collect()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_proxies_the_agent_is_relayed_unchanged() {
    let t = token("relay");
    let editor = Editor::start(Conductor::agent([agent(&t)]));
    let session = editor.open_session().await;
    turn(&editor, &session, "hello").await;
    // The same bytes on both hops.
    let from_editor = editor
        .checker
        .messages(Link::Predecessor, Direction::Received);
    let to_agent = editor.checker.messages(Link::Component(0), Direction::Sent);
    assert_eq!(from_editor, to_agent);
    editor.checker.assert_clean();
    hang_up(editor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_proxy_gets_proxy_initialize_and_wraps_what_it_forwards() {
    let t = token("one");
    let editor = Editor::start(Conductor::agent([proxy(&t, &["pass"]), agent(&t)]));
    let session = editor.open_session().await;
    turn(&editor, &session, "hello").await;

    let to_proxy = editor.checker.messages(Link::Component(0), Direction::Sent);
    assert_eq!(to_proxy[0]["method"], "proxy/initialize");
    let from_proxy = editor
        .checker
        .messages(Link::Component(0), Direction::Received);
    assert!(
        from_proxy
            .iter()
            .any(|m| m["method"] == "proxy/successor" && m["params"]["method"] == "initialize"),
        "the proxy initializes its successor through proxy/successor"
    );
    // The agent gets plain ACP, and its updates reach the proxy wrapped.
    let to_agent = editor.checker.messages(Link::Component(1), Direction::Sent);
    assert_eq!(to_agent[0]["method"], "initialize");
    assert!(to_agent.iter().all(|m| m["method"] != "proxy/successor"));
    assert!(
        to_proxy.iter().any(|m| m["method"] == "proxy/successor"
            && m["params"]["method"] == "session/update"
            && m.get("id").is_none()),
        "updates reach the proxy wrapped, as notifications"
    );
    editor.checker.assert_clean();
    hang_up(editor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_proxies_each_see_the_turn_and_context_reaches_the_agent() {
    let t = token("three");
    let editor = Editor::start(Conductor::agent([
        proxy(&t, &["inject", "Project: acp-rs."]),
        proxy(&t, &["pass"]),
        proxy(&t, &["inject", "Spelling: British."]),
        agent(&t),
    ]));
    let session = editor.open_session().await;
    turn(&editor, &session, "hello").await;
    turn(&editor, &session, "again").await;

    for i in 0..3 {
        let to_proxy = editor.checker.messages(Link::Component(i), Direction::Sent);
        assert_eq!(to_proxy[0]["method"], "proxy/initialize", "proxy {i}");
    }
    assert_eq!(
        prompts_at(&editor, 3),
        [
            ["Spelling: British.", "Project: acp-rs.", "hello"],
            ["Spelling: British.", "Project: acp-rs.", "again"]
        ]
    );
    editor.checker.assert_clean();
    hang_up(editor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conductor_in_proxy_mode_nests_inside_another_chain() {
    let t = token("nested");
    // The nested conductor: `chain_proxy nest CMD…` runs `Conductor::proxy`.
    let command = |text: &str| {
        format!(
            "env ACP_CONDUCTOR_TEST={t} '{}' inject '{text}'",
            chain_proxy().display()
        )
    };
    let inner = Component::new(
        chain_proxy(),
        ["nest".to_owned(), command("inner 1"), command("inner 2")],
    );
    let editor = Editor::start(Conductor::agent([
        proxy(&t, &["inject", "outer"]),
        inner,
        agent(&t),
    ]));
    let session = editor.open_session().await;
    turn(&editor, &session, "hello").await;
    assert_eq!(
        prompts_at(&editor, 2),
        [["inner 2", "inner 1", "outer", "hello"]]
    );
    // The nested conductor is a proxy: it was started with proxy/initialize, and reached its
    // successor with proxy/successor.
    let to_inner = editor.checker.messages(Link::Component(1), Direction::Sent);
    assert_eq!(to_inner[0]["method"], "proxy/initialize");
    let from_inner = editor
        .checker
        .messages(Link::Component(1), Direction::Received);
    assert!(
        from_inner
            .iter()
            .any(|m| m["method"] == "proxy/successor" && m["params"]["method"] == "initialize")
    );
    editor.checker.assert_clean();
    hang_up(editor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_cancel_and_cancel_request_pass_through_the_chain() {
    let t = token("cancel");
    let editor = Editor::start(Conductor::agent([
        proxy(&t, &["pass"]),
        proxy(&t, &["pass"]),
        agent(&t),
    ]));
    let session = editor.open_session().await;

    // session/cancel: the turn ends as cancelled.
    let long_turn = PromptRequest::new(session.clone(), vec!["stream 100 100".into()]);
    let prompt = editor.agent.request::<SessionPrompt>(&long_turn);
    let cancel = async {
        within("the first update", async {
            while editor.update_count() == 0 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        editor
            .agent
            .notify::<SessionCancel>(&CancelNotification::new(session.clone()))
            .await
            .expect("session/cancel");
    };
    let (response, ()) = within("the cancelled turn", async { tokio::join!(prompt, cancel) }).await;
    assert_eq!(
        response.expect("the cancelled prompt's answer").stop_reason,
        StopReason::Cancelled
    );

    // $/cancel_request: dropping the call cancels it hop by hop, down to the agent.
    let before = editor.update_count();
    let long_turn = PromptRequest::new(session.clone(), vec!["stream 100 100".into()]);
    let prompt = editor.agent.request::<SessionPrompt>(&long_turn);
    let abandoned = tokio::time::timeout(Duration::from_millis(700), prompt).await;
    assert!(abandoned.is_err(), "the long turn was still running");
    assert!(editor.update_count() > before);
    within("the agent's cancel_request", async {
        loop {
            let to_agent = editor.checker.messages(Link::Component(2), Direction::Sent);
            if to_agent.iter().any(|m| m["method"] == "$/cancel_request") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    // Each hop cancels the id of its own hop.
    for link in [Link::Component(0), Link::Component(1), Link::Component(2)] {
        let sent = editor.checker.messages(link, Direction::Sent);
        let cancelled: Vec<&Value> = sent
            .iter()
            .filter(|m| m["method"] == "$/cancel_request")
            .map(|m| &m["params"]["requestId"])
            .collect();
        assert!(
            !cancelled.is_empty(),
            "{link:?} got a $/cancel_request: {sent:?}"
        );
        for id in cancelled {
            assert!(
                sent.iter()
                    .any(|m| m.get("method").is_some() && &m["id"] == id),
                "{link:?}: the cancelled id {id} is one of that hop's requests"
            );
        }
    }
    editor.checker.assert_clean();
    hang_up(editor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_of_the_official_spelling_is_spoken_to_in_it() {
    let t = token("spelling");
    let editor = Editor::start(Conductor::agent([
        proxy(&t, &["extension-spelling"]),
        agent(&t),
    ]));
    let session = editor.open_session().await;
    turn(&editor, &session, "hello").await;
    let to_proxy = editor.checker.messages(Link::Component(0), Direction::Sent);
    // `proxy/initialize` was refused as unknown; `_proxy/initialize` followed, and the
    // agent's updates came wrapped in `_proxy/successor`.
    assert_eq!(to_proxy[0]["method"], "proxy/initialize");
    assert_eq!(to_proxy[1]["method"], "_proxy/initialize");
    assert!(
        to_proxy
            .iter()
            .any(|m| m["method"] == "_proxy/successor" && m["params"]["method"] == "session/update")
    );
    assert!(to_proxy.iter().all(|m| m["method"] != "proxy/successor"));
    let to_agent = editor.checker.messages(Link::Component(1), Direction::Sent);
    assert_eq!(to_agent[0]["method"], "initialize");
    editor.checker.assert_clean();
    hang_up(editor).await;
}
