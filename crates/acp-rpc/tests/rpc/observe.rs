//! The traffic observer sees every message exactly as it crosses the wire, both ways, in wire
//! order, unframed, whatever the framing.

use crate::common;

use std::sync::{Arc, Mutex};

use acp_rpc::{Config, Direction, Router};
use acp_types::InitializeResponse;
use acp_types::methods::Initialize;
use common::{RawWire, guard, ping};
use serde_json::Value;

type Seen = Arc<Mutex<Vec<(Direction, Vec<u8>)>>>;

fn observed() -> (Config, Seen) {
    let seen = Seen::default();
    let log = seen.clone();
    let config = Config::default()
        .framing(acp_codec::FramingMode::Auto)
        .observe(move |direction, body| log.lock().unwrap().push((direction, body.to_vec())));
    (config, seen)
}

#[tokio::test(flavor = "current_thread")]
async fn observer_sees_each_message_both_ways_as_on_the_wire() {
    guard("the exchange", async {
        let (config, seen) = observed();
        let router = Router::new().request::<Initialize, _, _>(|req| async move {
            Ok(InitializeResponse::new(req.protocol_version))
        });
        let mut t = RawWire::new(|_| router, config);
        // A request, a line that is not JSON, and a Content-Length framed request: bodies come
        // to the observer without their framing, as received, invalid ones included.
        let first =
            br#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":1}}"#;
        let mut line = first.to_vec();
        line.push(b'\n');
        t.raw.send_raw(&line).await;
        let pong = t.raw.recv().await;
        t.raw.send_raw(b"not json\n").await;
        let parse_error = t.raw.recv().await;
        let seen = seen.lock().unwrap().clone();
        let received: Vec<&[u8]> = seen
            .iter()
            .filter(|(d, _)| *d == Direction::Received)
            .map(|(_, b)| b.as_slice())
            .collect();
        assert_eq!(received, [first.as_slice(), b"not json".as_slice()]);
        let sent: Vec<Value> = seen
            .iter()
            .filter(|(d, _)| *d == Direction::Sent)
            .map(|(_, b)| serde_json::from_slice(b).expect("a sent body is one JSON message"))
            .collect();
        assert_eq!(
            sent,
            [pong, parse_error],
            "what was sent, as the peer read it"
        );
        // Each answer is observed after the message it answers.
        let order: Vec<Direction> = seen.iter().map(|(d, _)| *d).collect();
        assert_eq!(
            order,
            [
                Direction::Received,
                Direction::Sent,
                Direction::Received,
                Direction::Sent
            ]
        );
        t.shutdown().await;
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn observer_sees_content_length_bodies_without_headers() {
    guard("the exchange", async {
        let (config, seen) = observed();
        let router = Router::new().request::<Initialize, _, _>(|req| async move {
            Ok(InitializeResponse::new(req.protocol_version))
        });
        let mut t = RawWire::new(|_| router, config);
        t.raw.send_content_length(ping(7)).await;
        let pong = t.raw.recv().await;
        assert_eq!(pong["id"], 7);
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 2);
        let (_, received) = &seen[0];
        let received: Value = serde_json::from_slice(received).expect("a bare JSON body");
        assert_eq!(received, ping(7));
        assert_eq!(seen[1].0, Direction::Sent);
        assert!(!seen[1].1.starts_with(b"Content-Length"), "no header");
        t.shutdown().await;
    })
    .await;
}

/// A `Write` into a shared buffer.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn line_logs_hold_one_message_per_line_per_direction() {
    guard("the exchange", async {
        let (received, sent) = (Buffer::default(), Buffer::default());
        let mut config = Config::default().framing(acp_codec::FramingMode::Auto);
        config.observer = Some(acp_rpc::Observer::write_lines(
            received.clone(),
            sent.clone(),
        ));
        let router = Router::new().request::<Initialize, _, _>(|req| async move {
            Ok(InitializeResponse::new(req.protocol_version))
        });
        let mut t = RawWire::new(|_| router, config);
        // Pretty-printed, as a Content-Length peer may send it.
        let pretty = serde_json::to_vec_pretty(&ping(1)).unwrap();
        let mut frame = format!("Content-Length: {}\r\n\r\n", pretty.len()).into_bytes();
        frame.extend_from_slice(&pretty);
        t.raw.send_raw(&frame).await;
        let pong = t.raw.recv().await;
        let lines = |b: &Buffer| -> Vec<Value> {
            let text = String::from_utf8(b.0.lock().unwrap().clone()).unwrap();
            text.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        };
        assert_eq!(lines(&received), [ping(1)]);
        assert_eq!(lines(&sent), [pong]);
        t.shutdown().await;
    })
    .await;
}
