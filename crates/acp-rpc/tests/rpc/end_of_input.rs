//! The end of input is not the end of output: a peer that sends its last messages and closes its
//! side (a shell pipeline, `echo ... | agent`, a relay) still gets every message queued for it
//! and every answer given before the end, while the requests still running are cancelled;
//! output nobody reads does not hold the driver for ever; and a peer that hangs up (writing to
//! it fails as its input ends) ends the connection as the end of its input does.

use crate::common;

use std::collections::BTreeSet;
use std::time::Duration;

use acp_rpc::{Config, Error, Router, connect};
use acp_types::methods::{Initialize, SessionPrompt, SessionUpdate};
use acp_types::{InitializeResponse, PromptResponse, StopReason};
use common::{RawEnd, RawWire, chunk, chunk_text, guard, notification, ping};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::{Mutex, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The requests and the notifications the peer sends before closing its side (the requests,
/// all running at once, stay under the default cap on requests in flight).
const N: usize = 200;

/// A `session/update` notification with `text`, as a value.
fn update(text: &str) -> Value {
    notification(
        "session/update",
        serde_json::to_value(chunk("s", text)).unwrap(),
    )
}

/// The text of a `session/update` notification value.
fn update_text(message: &Value) -> &str {
    message["params"]["update"]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a text update: {message}"))
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn at_the_end_of_input_running_requests_are_cancelled_and_everything_queued_is_written() {
    // Pings are answered at once; the one prompt never finishes by itself (it is cancelled at
    // the end of input, which its drop shows); each notification is echoed back.
    let (dropped_tx, dropped_rx) = oneshot::channel::<()>();
    let dropped = std::sync::Arc::new(Mutex::new(Some(dropped_tx)));
    let t = RawWire::new(
        move |peer| {
            Router::new()
                .request::<Initialize, _, _>(|req| async move {
                    Ok(InitializeResponse::new(req.protocol_version))
                })
                .request::<SessionPrompt, _, _>(move |_req| {
                    let dropped = dropped.clone();
                    async move {
                        let _on_drop = OnDrop(dropped.lock().await.take());
                        std::future::pending::<()>().await;
                        Ok(PromptResponse::new(StopReason::EndTurn))
                    }
                })
                .notification::<SessionUpdate, _, _>(move |update| {
                    let peer = peer.clone();
                    async move {
                        let echo = format!("echo {}", chunk_text(&update));
                        peer.notify::<SessionUpdate>(&chunk("s", echo))
                            .await
                            .expect(
                                "sending is allowed until the queued notifications are handled",
                            );
                    }
                })
        },
        Config::default(),
    );
    let RawWire { mut raw, end, wire } = t;

    // A call of ours that the peer will never answer: it fails as soon as the input ends.
    let to_peer = end.peer.clone();
    let call = tokio::spawn(async move {
        to_peer
            .request_raw("fs/read_text_file", &read_params())
            .await
    });
    let unanswered = raw.recv().await;
    assert_eq!(unanswered["method"], "fs/read_text_file");

    raw.send(slow_request("slow")).await;
    for i in 0..N {
        raw.send(ping(i as i64)).await;
        raw.send(update(&i.to_string())).await;
    }
    let (mut reader, mut writer) = raw.into_parts();
    guard("closing our side", writer.shutdown()).await.unwrap();
    let read_all = tokio::spawn(async move {
        let mut messages = Vec::new();
        while let Some(frame) = futures::StreamExt::next(&mut reader).await {
            let acp_codec::Frame::Message(body) = frame.expect("readable output") else {
                panic!("unexpected frame");
            };
            messages.push(serde_json::from_slice::<Value>(&body).unwrap());
        }
        messages
    });

    let failed = guard("the unanswered call", call).await.unwrap();
    assert!(
        matches!(failed, Err(Error::ConnectionClosed)),
        "expected ConnectionClosed, got {failed:?}"
    );
    guard("the running prompt's cancellation", dropped_rx)
        .await
        .expect("the prompt's handler was dropped, not leaked");
    let messages = guard("reading the output to its end", read_all)
        .await
        .unwrap();
    // Calls made after the end fail at once.
    let late = guard(
        "a call after the end of input",
        end.peer.request_raw("fs/read_text_file", &read_params()),
    )
    .await;
    assert!(matches!(late, Err(Error::ConnectionClosed)), "{late:?}");
    end.join().await.expect("a clean end of input");
    wire.finish().await;

    let mut answers = BTreeSet::new();
    let mut echoes = Vec::new();
    for message in &messages {
        if message.get("method").is_some() {
            let n = update_text(message)
                .strip_prefix("echo ")
                .expect("an echo")
                .parse::<usize>()
                .unwrap();
            echoes.push(n);
        } else {
            assert!(message.get("result").is_some(), "an answer: {message}");
            answers.insert(message["id"].as_i64().expect("a ping's id"));
        }
    }
    assert_eq!(
        answers,
        (0..N as i64).collect(),
        "every ping answered, the prompt not"
    );
    assert_eq!(
        echoes,
        (0..N).collect::<Vec<_>>(),
        "every echo written, in order"
    );
}

/// Sends `Some(())` when dropped: shows that a handler was cancelled.
struct OnDrop(Option<oneshot::Sender<()>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

/// The params of the call the peer never answers.
fn read_params() -> Value {
    json!({"sessionId": "s", "path": "/tmp/never-read.txt"})
}

/// The slow request: a prompt.
fn slow_request(id: &str) -> Value {
    common::request(
        id,
        "session/prompt",
        json!({"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}),
    )
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_relay_of_a_long_stream_loses_nothing_at_its_end() {
    // A pass-through: each notification is sent back. The peer writes them all and closes its
    // side while reading: at the end of its input, many wait in the lane and in the small
    // outgoing buffer, and every one of them must still arrive, in order.
    const COUNT: usize = 5_000;
    let t = RawWire::new(
        |peer| {
            Router::new().notification::<SessionUpdate, _, _>(move |update| {
                let peer = peer.clone();
                async move {
                    peer.notify::<SessionUpdate>(&update)
                        .await
                        .expect("sending is allowed until the output is written");
                }
            })
        },
        Config::default().max_outgoing_bytes(4 * 1024),
    );
    let RawWire { raw, end, wire } = t;
    let (mut reader, mut writer) = raw.into_parts();
    let mut stream = Vec::new();
    for i in 0..COUNT {
        let message = update(&i.to_string());
        common::assert_valid(&message);
        stream.extend(serde_json::to_vec(&message).unwrap());
        stream.push(b'\n');
    }
    let write_all = tokio::spawn(async move {
        writer.write_all(&stream).await.unwrap();
        writer.shutdown().await.unwrap();
    });
    let mut relayed = Vec::with_capacity(COUNT);
    let read_all = async {
        while let Some(frame) = futures::StreamExt::next(&mut reader).await {
            let acp_codec::Frame::Message(body) = frame.expect("readable output") else {
                panic!("unexpected frame");
            };
            let message = serde_json::from_slice::<Value>(&body).expect("whole messages");
            relayed.push(update_text(&message).parse::<usize>().unwrap());
        }
    };
    common::guard_for(Duration::from_secs(60), "relaying the stream", read_all).await;
    guard("writing the stream", write_all).await.unwrap();
    end.join().await.expect("a clean end of input");
    wire.finish().await;
    assert_eq!(relayed.len(), COUNT, "every notification relayed");
    assert!(
        relayed.iter().enumerate().all(|(i, n)| i == *n),
        "relayed in order"
    );
}

/// A connection whose handler answers one notification with output until sending fails (far
/// more than the pipe and the outgoing buffer hold), and the test's raw end of it, after sending
/// that notification.
async fn flooded(config: Config) -> (JoinHandle<Result<(), Error>>, RawEnd) {
    let (ours, theirs) = tokio::io::duplex(common::PIPE);
    let (read, write) = tokio::io::split(ours);
    let (_peer, driver) = connect(
        |peer: acp_rpc::Peer| {
            Router::new().notification::<SessionUpdate, _, _>(move |update| {
                let peer = peer.clone();
                async move {
                    let text = format!("{:0>100}", chunk_text(&update));
                    while peer
                        .notify::<SessionUpdate>(&chunk("s", text.clone()))
                        .await
                        .is_ok()
                    {}
                }
            })
        },
        read,
        write,
        config,
    );
    let driver = tokio::spawn(driver);
    let mut raw = RawEnd::new(theirs);
    raw.send(update("1")).await;
    (driver, raw)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn output_nobody_reads_is_given_up_after_the_drain_timeout() {
    const DRAIN: Duration = Duration::from_secs(3);
    // The peer writes, closes its side, and never reads: the output fills the pipe and waits.
    let (driver, raw) = flooded(
        Config::default()
            .max_outgoing_bytes(8 * 1024)
            .drain_timeout(DRAIN),
    )
    .await;
    let (reader, mut writer) = raw.into_parts();
    writer.shutdown().await.unwrap();
    let start = Instant::now();
    let result = guard("the driver", driver).await.unwrap();
    let took = start.elapsed();
    assert!(
        result.is_ok(),
        "the peer ended its input cleanly: {result:?}"
    );
    assert!(
        took >= DRAIN,
        "gave up after {took:?}, before the drain timeout"
    );
    assert!(
        took < DRAIN + Duration::from_secs(1),
        "gave up after {took:?}, long after the drain timeout"
    );
    drop(reader);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_peer_gone_for_good_ends_the_drain_at_once() {
    // The peer writes and goes away entirely: writing fails, and the driver ends without waiting
    // for its (long) drain timeout.
    let (driver, raw) = flooded(Config::default().drain_timeout(Duration::from_secs(600))).await;
    drop(raw);
    let start = Instant::now();
    let result = guard("the driver", driver).await.unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "waited {:?} for a peer that is gone",
        start.elapsed()
    );
    // Writing fails (a broken pipe) as the input ends: the peer hung up, which is the end of
    // its input, whichever of the two the driver saw first.
    assert!(
        result.is_ok(),
        "the peer's end, not the failed write: {result:?}"
    );
}

/// A writer toward a peer that no longer reads: every write fails with a broken pipe.
struct Unread;

impl tokio::io::AsyncWrite for Unread {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        _buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::task::Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into()))
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_peer_that_stops_reading_but_still_writes_is_read_until_the_drain_timeout() {
    const DRAIN: Duration = Duration::from_secs(3);
    let (ours, theirs) = tokio::io::duplex(common::PIPE);
    let (read, _unused) = tokio::io::split(ours);
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let (peer, driver) = connect(
        move |_peer| {
            Router::new().notification::<SessionUpdate, _, _>(move |update| {
                let seen_tx = seen_tx.clone();
                async move {
                    let _ = seen_tx.send(chunk_text(&update));
                }
            })
        },
        read,
        Unread,
        Config::default().drain_timeout(DRAIN),
    );
    let driver = tokio::spawn(driver);
    // Our first message cannot be written: from then on nothing more is sent.
    let _ = peer.notify::<SessionUpdate>(&chunk("s", "lost")).await;
    guard("sends refused", async {
        while peer
            .notify::<SessionUpdate>(&chunk("s", "lost"))
            .await
            .is_ok()
        {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await;
    // What the peer still sends is handled, as long as it keeps its output open...
    let start = Instant::now();
    let mut raw = RawEnd::new(theirs);
    raw.send(update("after the failed write")).await;
    assert_eq!(
        guard("the update", seen.recv()).await.as_deref(),
        Some("after the failed write")
    );
    // ...and past the drain timeout the failed write ends the connection.
    let result = guard("the driver", driver).await.unwrap();
    assert!(
        matches!(&result, Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe),
        "the failed write: {result:?}"
    );
    let took = start.elapsed();
    assert!(
        took <= DRAIN + Duration::from_secs(1),
        "ended after {took:?}"
    );
    drop(raw);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_peer_that_stops_reading_then_ends_its_output_ends_cleanly() {
    let (ours, theirs) = tokio::io::duplex(common::PIPE);
    let (read, _unused) = tokio::io::split(ours);
    let (peer, driver) = connect(
        |_peer| Router::new(),
        read,
        Unread,
        Config::default().drain_timeout(Duration::from_secs(600)),
    );
    let driver = tokio::spawn(driver);
    let _ = peer.notify::<SessionUpdate>(&chunk("s", "lost")).await;
    guard("sends refused", async {
        while peer
            .notify::<SessionUpdate>(&chunk("s", "lost"))
            .await
            .is_ok()
        {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await;
    let start = Instant::now();
    drop(theirs);
    let result = guard("the driver", driver).await.unwrap();
    assert!(result.is_ok(), "the end of the peer's input: {result:?}");
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "waited {:?} after the end of input",
        start.elapsed()
    );
}
