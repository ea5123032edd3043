//! Ordering and backpressure through the proxy: a turn's updates reach the editor before the
//! turn's end; an editor that does not read slows the successor down, and the proxy's memory
//! stays bounded.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use acp_proxy::{Config, Proxy};
use acp_testkit::Spec;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::conductor::{Conductor, DEADLINE, chunk};

#[tokio::test]
async fn a_turn_s_updates_reach_the_editor_before_its_end() {
    let mut conductor = Conductor::start(Proxy::new());
    conductor.initialize().await;
    conductor
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}),
        )
        .await;
    let forwarded = conductor.recv().await;
    for i in 0..200 {
        conductor
            .send(json!({"jsonrpc": "2.0", "method": "proxy/successor",
                "params": {"method": "session/update", "params": chunk("s", &i.to_string())}}))
            .await;
    }
    conductor
        .send(
            json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"stopReason": "end_turn"}}),
        )
        .await;
    for i in 0..200 {
        let update = conductor.recv().await;
        assert_eq!(
            update["params"],
            chunk("s", &i.to_string()),
            "in order, before the end"
        );
    }
    let done = conductor.recv().await;
    assert_eq!(done["id"], 1);
    assert_eq!(done["result"]["stopReason"], "end_turn");
    conductor.close().await.expect("a clean end");
}

/// A wrapped update of about 8 KiB carrying its sequence number.
fn big_update(i: usize) -> String {
    let text = format!("{i:08}:{}", "x".repeat(8 * 1024));
    json!({"jsonrpc": "2.0", "method": "proxy/successor",
        "params": {"method": "session/update", "params": chunk("s", &text)}})
    .to_string()
}

#[tokio::test]
async fn a_slow_editor_slows_the_successor_and_memory_stays_bounded() {
    const TOTAL: usize = 2_000; // about 16 MiB
    let spec = Spec::load_unstable();
    spec.assert_valid_message(&serde_json::from_str(&big_update(0)).expect("json"));

    let config = Config::default()
        .max_queued_notifications(16)
        .max_outgoing_bytes(64 * 1024);
    let (proxy_io, conductor_io) = tokio::io::duplex(16 * 1024);
    let (reader, writer) = tokio::io::split(proxy_io);
    let (_cx, driver) = Proxy::new().config(config).serve(reader, writer);
    let driver = tokio::spawn(driver);
    let (from_proxy, mut to_proxy) = tokio::io::split(conductor_io);

    // The successor's side writes as fast as the proxy reads.
    let written = Arc::new(AtomicUsize::new(0));
    let counter = written.clone();
    let successor = tokio::spawn(async move {
        for i in 0..TOTAL {
            let mut line = big_update(i).into_bytes();
            line.push(b'\n');
            to_proxy.write_all(&line).await.expect("the pipe is open");
            counter.store(i + 1, Ordering::SeqCst);
        }
        to_proxy
    });

    // The editor's side does not read for a while: the successor must stall, far from done.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let stalled_at = written.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        written.load(Ordering::SeqCst),
        stalled_at,
        "the successor is held back"
    );
    // Pipe (16 KiB) + read buffer + 16 queued + one being sent + 64 KiB outgoing + pipe back:
    // a few dozen updates of 8 KiB, nowhere near the 2,000 sent.
    assert!(
        stalled_at < 100,
        "{stalled_at} updates were taken in without the editor reading"
    );

    // The editor reads: everything arrives, in order, valid.
    let mut lines = BufReader::new(from_proxy);
    let mut line = String::new();
    for i in 0..TOTAL {
        line.clear();
        let n = tokio::time::timeout(DEADLINE, lines.read_line(&mut line))
            .await
            .expect("the proxy writes in time")
            .expect("readable");
        assert!(n > 0, "the proxy ended early");
        let update: Value = serde_json::from_str(&line).expect("json");
        if i % 100 == 0 {
            spec.assert_valid_message(&update);
        }
        let text = update["params"]["update"]["content"]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.starts_with(&format!("{i:08}:")),
            "update {i} out of order"
        );
    }
    let to_proxy = tokio::time::timeout(DEADLINE, successor)
        .await
        .expect("the successor finishes once the editor reads")
        .expect("no panic");
    drop(to_proxy);
    drop(lines);
    let end = tokio::time::timeout(DEADLINE, driver)
        .await
        .expect("in time")
        .expect("no panic");
    assert!(end.is_ok(), "{end:?}");
}
