//! A scripted conductor: it plays the editor (plain messages) and the successor (messages in
//! `proxy/successor`) toward one proxy, in raw NDJSON, with deadlines everywhere.

use std::collections::HashMap;
use std::time::Duration;

use acp_proxy::{Context, Proxy};
use acp_testkit::Spec;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::task::JoinHandle;

/// How long any one step may take.
pub(crate) const DEADLINE: Duration = Duration::from_secs(10);

/// The conductor's end of the pipe to one proxy.
pub(crate) struct Conductor {
    lines: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    spec: &'static Spec,
    /// Requests the conductor sent, by id: their method (and the wrapped one, for envelopes).
    sent: HashMap<String, (String, Option<String>)>,
    /// Requests the proxy sent, likewise.
    received: HashMap<String, (String, Option<String>)>,
    /// The proxy's connection, resolving when it ends.
    pub(crate) driver: JoinHandle<Result<(), acp_rpc::Error>>,
    /// The proxy's own handle.
    pub(crate) cx: Context,
}

fn key(id: &Value) -> String {
    id.to_string()
}

impl Conductor {
    /// Starts `proxy` on a pipe of `pipe` bytes.
    pub(crate) fn start_with(proxy: Proxy, pipe: usize) -> Self {
        let (proxy_io, conductor_io) = tokio::io::duplex(pipe);
        let (reader, writer) = tokio::io::split(proxy_io);
        let (cx, driver) = proxy.serve(reader, writer);
        let driver = tokio::spawn(driver);
        let (reader, writer) = tokio::io::split(conductor_io);
        Self {
            lines: BufReader::new(reader),
            writer,
            spec: Spec::load_unstable(),
            sent: HashMap::new(),
            received: HashMap::new(),
            driver,
            cx,
        }
    }

    /// Starts `proxy` on a 64 KiB pipe.
    pub(crate) fn start(proxy: Proxy) -> Self {
        Self::start_with(proxy, 64 * 1024)
    }

    /// Validates `message` (going either way) and, for an envelope, the message it wraps.
    fn check(
        spec: &Spec,
        pending: &mut HashMap<String, (String, Option<String>)>,
        message: &Value,
        record: bool,
    ) {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id");
        match (method, id) {
            (Some(method), Some(id)) if record => {
                spec.assert_valid_message(message);
                let inner = wrapped_method(method, message);
                if let Some(inner) = &inner {
                    let mut unwrapped = json!({"jsonrpc": "2.0", "id": id, "method": inner});
                    if let Some(params) = message["params"].get("params") {
                        unwrapped["params"] = params.clone();
                    }
                    spec.assert_valid_message(&unwrapped);
                }
                pending.insert(key(id), (method.to_owned(), inner));
            }
            (Some(method), None) => {
                spec.assert_valid_message(message);
                if let Some(inner) = wrapped_method(method, message) {
                    let mut unwrapped = json!({"jsonrpc": "2.0", "method": inner});
                    if let Some(params) = message["params"].get("params") {
                        unwrapped["params"] = params.clone();
                    }
                    spec.assert_valid_message(&unwrapped);
                }
            }
            (None, Some(id)) if !record => match pending.remove(&key(id)) {
                Some((method, inner)) => {
                    if let Err(e) = spec.check_response(message, &method) {
                        panic!("answer to `{method}` rejected by the schema: {e}\n{message}");
                    }
                    if let Some(inner) = inner {
                        if let Err(e) = spec.check_response(message, &inner) {
                            panic!("answer to the wrapped `{inner}` rejected: {e}\n{message}");
                        }
                    }
                }
                None => spec.assert_valid_message(message),
            },
            _ => spec.assert_valid_message(message),
        }
    }

    /// Sends `message` as one line, after validating it.
    pub(crate) async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    /// Sends `text` (one JSON message, byte for byte) as one line, after validating it.
    pub(crate) async fn send_text(&mut self, text: &str) {
        let message: Value = serde_json::from_str(text).expect("the test sends JSON");
        let record = message.get("method").is_some();
        if record {
            Self::check(self.spec, &mut self.sent, &message, true);
        } else {
            Self::check(self.spec, &mut self.received, &message, false);
        }
        self.send_unchecked(text).await;
    }

    /// Answers the proxy's request `id` (its JSON text) with the result `result` (JSON text,
    /// sent byte for byte), and returns the line the proxy then writes.
    pub(crate) async fn answer_text(&mut self, id: &str, result: &str) -> String {
        self.send_text(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#
        ))
        .await;
        self.recv_text().await
    }

    /// Sends `text` as one line without validating it: for the malformed input of the tests
    /// that check how the proxy answers it.
    pub(crate) async fn send_unchecked(&mut self, text: &str) {
        let mut line = text.as_bytes().to_vec();
        line.push(b'\n');
        tokio::time::timeout(DEADLINE, self.writer.write_all(&line))
            .await
            .expect("the proxy reads in time")
            .expect("the pipe is open");
    }

    /// The next line from the proxy, as text, validated.
    pub(crate) async fn recv_text(&mut self) -> String {
        let mut line = String::new();
        let n = tokio::time::timeout(DEADLINE, self.lines.read_line(&mut line))
            .await
            .expect("the proxy writes in time")
            .expect("the pipe is readable");
        assert!(n > 0, "the proxy closed the connection");
        let message: Value = serde_json::from_str(&line).expect("the proxy writes JSON");
        if message.get("method").is_some() {
            Self::check(self.spec, &mut self.received, &message, true);
        } else {
            Self::check(self.spec, &mut self.sent, &message, false);
        }
        line.truncate(line.trim_end().len());
        line
    }

    /// The next message from the proxy, validated.
    pub(crate) async fn recv(&mut self) -> Value {
        let line = self.recv_text().await;
        serde_json::from_str(&line).expect("JSON")
    }

    /// Plays `initialize` through the proxy (in `spelling`, `proxy` or `_proxy`) with a
    /// successor answering `answer`; returns what the editor gets.
    pub(crate) async fn initialize_with(&mut self, spelling: &str, answer: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": 0, "method": format!("{spelling}/initialize"),
            "params": {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}}}}))
            .await;
        let forwarded = self.recv().await;
        assert_eq!(forwarded["method"], format!("{spelling}/successor"));
        assert_eq!(forwarded["params"]["method"], "initialize");
        assert_eq!(
            forwarded["params"]["params"]["clientCapabilities"]["fs"]["readTextFile"],
            true
        );
        self.send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": answer}))
            .await;
        let done = self.recv().await;
        assert_eq!(done["id"], 0);
        done
    }

    /// Initializes the proxy in the schema's spelling with a plain successor.
    pub(crate) async fn initialize(&mut self) -> Value {
        self.initialize_with(
            "proxy",
            json!({"protocolVersion": 1, "agentCapabilities": {}}),
        )
        .await
    }

    /// Closes the conductor's end, and waits for the proxy's connection to end.
    pub(crate) async fn close(self) -> Result<(), acp_rpc::Error> {
        drop(self.writer);
        drop(self.lines);
        tokio::time::timeout(DEADLINE, self.driver)
            .await
            .expect("the proxy stops in time")
            .expect("the driver does not panic")
    }
}

/// The method an envelope wraps, for `proxy/successor` and `_proxy/successor`.
fn wrapped_method(method: &str, message: &Value) -> Option<String> {
    if method == "proxy/successor" || method == "_proxy/successor" {
        message["params"]["method"].as_str().map(str::to_owned)
    } else {
        None
    }
}

/// A `session/update` agent message chunk for `session`.
pub(crate) fn chunk(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "update": {"sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text}}})
}

#[test]
fn the_schema_check_rejects_what_the_proxy_must_not_send() {
    let spec = Spec::load_unstable();
    let good = json!({"jsonrpc": "2.0", "id": 1, "method": "proxy/successor",
        "params": {"method": "session/new", "params": {"cwd": "/w", "mcpServers": []}}});
    spec.assert_valid_message(&good);
    // An envelope without the wrapped method, and a wrapped message that is not valid itself.
    let no_method =
        json!({"jsonrpc": "2.0", "id": 1, "method": "proxy/successor", "params": {"params": {}}});
    assert!(spec.check_message(&no_method).is_err());
    let bad_inner =
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": 3}});
    assert!(spec.check_message(&bad_inner).is_err());
}
