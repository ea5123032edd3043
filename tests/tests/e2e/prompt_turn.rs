//! Shows prompt turns end to end, in every framing: every content block kind in a prompt,
//! every session update kind streamed, and the per-session stream of updates arriving in order
//! with the prompt's response after them.

use crate::common;

use acp_e2e::{Direction, Duplex, Wiring, block_kind, script, within};
use acp_types::*;
use common::{duplex, prompt, remote_code};

fn every_block_kind() -> Vec<ContentBlock> {
    vec![
        ContentBlock::from("look at these"),
        ImageContent::from_bytes(&[0x89, b'P', b'N', b'G', 0, 1, 2, 255], "image/png").into(),
        AudioContent::from_bytes(&[1, 2, 3, 4], "audio/wav").into(),
        ResourceLink::new("main.rs", "file:///work/main.rs")
            .mime_type("text/x-rust")
            .size(42i64)
            .into(),
        EmbeddedResource::new(
            TextResourceContents::new("fn main() {}\n", "file:///work/main.rs")
                .mime_type("text/x-rust"),
        )
        .into(),
        EmbeddedResource::new(BlobResourceContents::from_bytes(
            "file:///work/logo.bin",
            &[0, 159, 146, 150],
        ))
        .into(),
    ]
}

async fn every_content_block_kind(wiring: Wiring) {
    let h = Duplex::start(duplex(wiring));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let blocks = every_block_kind();
    let mut updates = h.agent.session_updates(session.clone());
    let done = within(
        "prompt",
        h.agent
            .prompt(PromptRequest::new(session.clone(), blocks.clone())),
    )
    .await
    .expect("prompt");
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    let echoed: Vec<ContentBlock> = std::iter::from_fn(|| updates.try_next())
        .map(|n| match n.update {
            SessionUpdate::AgentMessageChunk(chunk) => chunk.content,
            other => panic!("unexpected update {other:?}"),
        })
        .collect();
    // Every block made the round trip unchanged, then the agent named their kinds.
    assert_eq!(echoed[..blocks.len()], blocks[..], "{wiring}");
    assert_eq!(
        echoed[blocks.len()].as_text(),
        Some("blocks: text,image,audio,resource_link,resource,resource")
    );
    assert_eq!(echoed.len(), blocks.len() + 1);
    let wire = h.shutdown(6).await;
    let sent = wire.calls(Direction::ClientToAgent, "session/prompt");
    let kinds: Vec<&str> = sent[0]["params"]["prompt"]
        .as_array()
        .expect("a prompt array")
        .iter()
        .map(|b| b["type"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(kinds, blocks.iter().map(block_kind).collect::<Vec<_>>());
}

#[tokio::test(flavor = "current_thread")]
async fn every_content_block_kind_makes_the_round_trip() {
    for wiring in Wiring::ALL {
        every_content_block_kind(wiring).await;
    }
}

async fn every_update_kind(wiring: Wiring) {
    let h = Duplex::start(duplex(wiring));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let mut updates = h.agent.session_updates(session.clone());
    let done = within(
        "prompt",
        h.agent.prompt(prompt(&session, script::STREAM_ALL_UPDATES)),
    )
    .await
    .expect("prompt");
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    let streamed: Vec<SessionUpdate> = std::iter::from_fn(|| updates.try_next())
        .map(|n| n.update)
        .collect();
    // The same updates reached the `Client` trait, in the same order, before the answer.
    assert_eq!(h.editor.updates_of(&session), streamed);
    let wire = h.shutdown(15).await;
    // On the wire: one notification per kind, in order, and the response after all of them.
    let from_agent: Vec<_> = wire
        .seen()
        .into_iter()
        .filter(|s| s.direction == Direction::AgentToClient)
        .collect();
    let tags: Vec<&str> = from_agent
        .iter()
        .filter(|s| s.is("session/update"))
        .filter_map(|s| s.message["params"]["update"]["sessionUpdate"].as_str())
        .collect();
    assert_eq!(tags, script::ALL_UPDATE_KINDS, "{wiring}");
    assert_eq!(streamed.len(), script::ALL_UPDATE_KINDS.len());
    let last_update = from_agent
        .iter()
        .rposition(|s| s.is("session/update"))
        .expect("updates");
    let response = from_agent
        .iter()
        .position(|s| s.message.pointer("/result/stopReason").is_some())
        .expect("the prompt's response");
    assert!(response > last_update, "the response overtook an update");
}

#[tokio::test(flavor = "current_thread")]
async fn every_session_update_kind_is_streamed() {
    for wiring in Wiring::ALL {
        every_update_kind(wiring).await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn each_sessions_updates_arrive_in_order_before_its_response() {
    const CHUNKS: usize = 300;
    for wiring in [Wiring::NDJSON, Wiring::CONTENT_LENGTH] {
        let h = Duplex::start(duplex(wiring));
        h.initialize(ClientCapabilities::new()).await;
        let (a, b) = (h.new_session().await, h.new_session().await);
        let mut updates_a = h.agent.session_updates(a.clone());
        let mut updates_b = h.agent.session_updates(b.clone());
        let count = format!("{} {CHUNKS}", script::COUNT);
        // Two turns at once, in two sessions: their updates interleave on the wire.
        let (done_a, done_b) = within("two prompts", async {
            tokio::join!(
                h.agent.prompt(prompt(&a, &count)),
                h.agent.prompt(prompt(&b, &count))
            )
        })
        .await;
        assert_eq!(done_a.expect("prompt a").stop_reason, StopReason::EndTurn);
        assert_eq!(done_b.expect("prompt b").stop_reason, StopReason::EndTurn);
        let expected: Vec<String> = (0..CHUNKS).map(|i| i.to_string()).collect();
        for (session, updates) in [(&a, &mut updates_a), (&b, &mut updates_b)] {
            // Without waiting: everything is there once the response is.
            let got: Vec<String> = std::iter::from_fn(|| updates.try_next())
                .filter_map(|n| match n.update {
                    SessionUpdate::AgentMessageChunk(c) => c.content.as_text().map(str::to_owned),
                    _ => None,
                })
                .collect();
            assert_eq!(got, expected, "session {session} over {wiring}");
            assert_eq!(h.editor.messages_of(session), expected);
        }
        h.shutdown(2 * CHUNKS).await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn stop_reasons_and_errors_reach_the_client() {
    let h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(ClientCapabilities::new()).await;
    let session = h.new_session().await;
    let refused = within("prompt", h.agent.prompt(prompt(&session, script::REFUSE)))
        .await
        .expect("prompt");
    assert_eq!(refused.stop_reason, StopReason::Refusal);
    let failed = within("prompt", h.agent.prompt(prompt(&session, script::FAIL))).await;
    assert_eq!(remote_code(failed), -32603);
    // The session goes on after a failed turn.
    let again = within("prompt", h.agent.prompt(prompt(&session, "hello")))
        .await
        .expect("prompt");
    assert_eq!(again.stop_reason, StopReason::EndTurn);
    h.shutdown(8).await;
}

/// The one test about threads: both drivers and the turns on a multi-threaded runtime, where
/// handlers and notifications really run in parallel with the callers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_stay_in_order_on_a_multi_threaded_runtime() {
    const CHUNKS: usize = 200;
    let h = Duplex::start(duplex(Wiring::CONTENT_LENGTH));
    h.initialize(ClientCapabilities::new()).await;
    let sessions = [
        h.new_session().await,
        h.new_session().await,
        h.new_session().await,
    ];
    let count = format!("{} {CHUNKS}", script::COUNT);
    let turns: Vec<_> = sessions
        .iter()
        .map(|session| {
            let agent = h.agent.clone();
            let request = prompt(session, &count);
            tokio::spawn(async move { agent.prompt(request).await })
        })
        .collect();
    for turn in turns {
        let done = within("a turn", turn).await.expect("task").expect("prompt");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
    }
    let expected: Vec<String> = (0..CHUNKS).map(|i| i.to_string()).collect();
    for session in &sessions {
        assert_eq!(h.editor.messages_of(session), expected, "session {session}");
    }
    h.shutdown(3 * CHUNKS).await;
}
