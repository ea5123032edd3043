//! A burst of messages that arrive together is answered together: the reading loop takes the
//! frames that are ready before the writer runs, so their answers go out in a few writes
//! instead of one write per message (a relay forwarding a stream pays one system call, and
//! wakes its reader once, per burst).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use crate::common;

use acp_rpc::{Config, Router, connect};
use acp_types::methods::SessionPrompt;
use acp_types::{PromptResponse, StopReason};
use common::{assert_valid, guard};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// Requests in the burst.
const BURST: usize = 200;

/// A writer that counts the writes it is given.
struct Counting<W> {
    inner: W,
    writes: Arc<AtomicUsize>,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Counting<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            self.writes.fetch_add(1, Ordering::Relaxed);
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_burst_of_requests_is_answered_in_a_few_writes() {
    let (mut input, ours_in) = tokio::io::duplex(1024 * 1024);
    let (ours_out, output) = tokio::io::duplex(1024 * 1024);
    // The whole burst is there before the connection reads anything.
    let mut burst = Vec::new();
    for id in 0..BURST {
        let prompt = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"session/prompt","params":{{"sessionId":"s","prompt":[{{"type":"text","text":"go"}}]}}}}"#
        );
        assert_valid(&serde_json::from_str::<Value>(&prompt).unwrap());
        burst.extend_from_slice(prompt.as_bytes());
        burst.push(b'\n');
    }
    input.write_all(&burst).await.unwrap();

    let writes = Arc::new(AtomicUsize::new(0));
    let (_peer, driver) = connect(
        |_| {
            Router::new().request::<SessionPrompt, _, _>(|_| async {
                Ok(PromptResponse::new(StopReason::EndTurn))
            })
        },
        ours_in,
        Counting {
            inner: ours_out,
            writes: writes.clone(),
        },
        Config::default(),
    );
    tokio::spawn(driver);

    let mut lines = BufReader::new(output).lines();
    let mut answered = [false; BURST];
    guard("the answers to the burst", async {
        for _ in 0..BURST {
            let line = lines.next_line().await.unwrap().expect("an answer");
            let answer: Value = serde_json::from_str(&line).unwrap();
            assert_valid(&answer);
            assert_eq!(answer["result"]["stopReason"], "end_turn", "{line}");
            let id = usize::try_from(answer["id"].as_u64().expect("an integer id")).unwrap();
            assert!(!answered[id], "request {id} was answered twice");
            answered[id] = true;
        }
    })
    .await;
    let writes = writes.load(Ordering::Relaxed);
    // Frames are taken 64 at a time at most before the writer runs: 200 answers in about 4
    // writes. One write per answer (200) is what the reading loop did before.
    assert!(
        writes <= BURST / 10,
        "{BURST} answers took {writes} writes: the burst was not batched"
    );
}
