//! Many connections streaming at once in one process (a server with many clients) take turns:
//! a connection that starts streaming late is not kept waiting while each one before it fills
//! a whole write chunk.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common;

use acp_rpc::{Config, Direction, Router, connect};
use acp_types::methods::{SessionPrompt, SessionUpdate};
use acp_types::{PromptResponse, StopReason};
use common::{assert_valid, chunk, guard_for};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Connections streaming at once.
const CONNECTIONS: usize = 64;
/// Notifications each one sends for its one request.
const UPDATES: usize = 500;

/// How long the 32,000 updates of one run (each checked against the schema) may take: CPU
/// time, which a busy machine stretches.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The updates of every connection in the order they were framed: which connection sent each
/// one, and its size.
type Order = Arc<Mutex<Vec<(usize, usize)>>>;

/// An agent on a connection whose prompt turn streams [`UPDATES`] message chunks, logged in
/// `order` as `index`; returns the client's end, with the prompt already written.
async fn streaming_connection(index: usize, order: Order, burst: usize) -> tokio::io::DuplexStream {
    let (ours, mut theirs) = tokio::io::duplex(64 * 1024);
    let (reader, writer) = tokio::io::split(ours);
    let config = Config::default()
        .max_burst_bytes(burst)
        .observe(move |direction, body| {
            if direction == Direction::Sent && body.starts_with(br#"{"jsonrpc":"2.0","method""#) {
                order.lock().unwrap().push((index, body.len()));
            }
        });
    let (_peer, driver) = connect(
        |client| {
            Router::new().request::<SessionPrompt, _, _>(move |prompt| {
                let client = client.clone();
                async move {
                    for i in 0..UPDATES {
                        let text = format!("{i:010} The quick brown fox jumps over the lazy dog.");
                        client
                            .notify::<SessionUpdate>(&chunk(prompt.session_id.as_str(), text))
                            .await
                            .map_err(|e| e.to_error_object())?;
                    }
                    Ok(PromptResponse::new(StopReason::EndTurn))
                }
            })
        },
        reader,
        writer,
        config,
    );
    tokio::spawn(driver);
    let prompt = br#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"go"}]}}"#;
    assert_valid(&serde_json::from_slice::<Value>(prompt).unwrap());
    theirs.write_all(prompt).await.unwrap();
    theirs.write_all(b"\n").await.unwrap();
    theirs
}

/// Reads one connection's output until the answer to its prompt: how many updates came first.
/// Every message is checked against the schema.
async fn read_until_answered(peer: tokio::io::DuplexStream) -> usize {
    let mut lines = BufReader::new(peer).lines();
    let mut updates = 0;
    while let Some(line) = lines.next_line().await.unwrap() {
        assert_valid(&serde_json::from_str::<Value>(&line).unwrap());
        if line.starts_with(r#"{"jsonrpc":"2.0","id":1"#) {
            return updates;
        }
        updates += 1;
    }
    panic!("the connection ended before its answer");
}

/// Runs [`CONNECTIONS`] connections streaming at once on one thread, each with `burst` as its
/// [`Config::max_burst_bytes`]: how many updates were sent before the last connection to start
/// sent its first one, and the size of the smallest update.
async fn last_start(burst: usize) -> (usize, usize) {
    let order = Order::default();
    let mut peers = Vec::new();
    for index in 0..CONNECTIONS {
        peers.push(streaming_connection(index, order.clone(), burst).await);
    }
    let readers: Vec<_> = peers
        .into_iter()
        .map(|peer| tokio::spawn(read_until_answered(peer)))
        .collect();
    for reader in readers {
        assert_eq!(reader.await.unwrap(), UPDATES, "every update arrives");
    }
    let order = order.lock().unwrap();
    assert_eq!(order.len(), CONNECTIONS * UPDATES);
    let mut first = vec![None; CONNECTIONS];
    for (position, &(index, _)) in order.iter().enumerate() {
        first[index].get_or_insert(position);
    }
    let last_start = first
        .iter()
        .map(|p| p.expect("every connection sent"))
        .max();
    let smallest = order.iter().map(|&(_, len)| len).min();
    (last_start.unwrap(), smallest.unwrap())
}

#[tokio::test(flavor = "current_thread")]
async fn connections_streaming_at_once_take_turns_by_their_burst_size() {
    let burst: usize = 4096;
    let (late, smallest) = guard_for(RUN_LIMIT, "the turns", last_start(burst)).await;
    // Each connection sends at most one burst (plus the message that crosses it) per turn, so
    // the last one to start waits for at most that much from each of the others.
    let per_turn = burst.div_ceil(smallest);
    let bound = (CONNECTIONS - 1) * per_turn;
    assert!(
        late <= bound,
        "the last connection started after {late} updates (at most {bound} expected)"
    );
    // With the default burst (64 KiB, more than a whole turn here), each connection sends its
    // whole turn before the next starts: the setting is what makes the difference.
    let (late_by_default, _) = guard_for(
        RUN_LIMIT,
        "the turns",
        last_start(acp_rpc::DEFAULT_MAX_BURST_BYTES),
    )
    .await;
    assert!(
        late_by_default > 4 * bound,
        "{late_by_default} updates before the last start with the default burst"
    );
}
