//! One real connection end driven by the test over raw bytes: the test writes frames (malformed
//! ones on purpose) and reads the replies, which the wire validates against the official schema.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acp_codec::{Framing, FramingMode};
use acp_rpc::{Config, Error, Router};
use acp_types::methods::{Initialize, SessionPrompt, SessionRequestPermission, SessionUpdate};
use acp_types::{
    ErrorObject, InitializeResponse, PermissionOption, PermissionOptionKind, PromptResponse,
    RequestPermissionRequest, StopReason, ToolCallUpdate,
};
use common::{
    PIPE, RawWire, chunk, chunk_text, error_code, guard, notification, ping, request, response,
};
use futures::FutureExt;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::{Semaphore, mpsc, oneshot};

/// A router that answers `initialize` (the tests' ping) with the version it was given.
fn ping_router() -> Router {
    Router::new().request::<Initialize, _, _>(|req| async move {
        Ok(InitializeResponse::new(req.protocol_version))
    })
}

fn prompt_params(session: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]})
}

fn permission_params() -> RequestPermissionRequest {
    RequestPermissionRequest::new(
        "sess-0",
        ToolCallUpdate::new("call-0").title("Write src/main.rs"),
        vec![
            PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        ],
    )
}

/// Sends a ping and checks that the next message is its answer.
async fn assert_alive(t: &mut RawWire, id: &str) {
    t.raw.send(ping(id)).await;
    let pong = t.raw.recv().await;
    assert_eq!(
        pong["id"], id,
        "expected the answer to ping {id}, got {pong}"
    );
    assert_eq!(pong["result"]["protocolVersion"], 1, "{pong}");
}

struct Row {
    name: &'static str,
    input: Vec<u8>,
    /// The expected reply: its error code and id; `None` when the input must be ignored.
    reply: Option<(i64, Value)>,
    /// Further checks on the reply.
    check: fn(&Value),
}

fn line(text: &str) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(b'\n');
    bytes
}

fn no_check(_: &Value) {}

#[tokio::test(flavor = "current_thread")]
async fn malformed_input_gets_the_reply_of_its_table_row() {
    const LIMIT: usize = 4096;
    let router = ping_router().request::<SessionPrompt, _, _>(|_req| async {
        Err(ErrorObject::new(-32042, "The handler's own error.")
            .with_data(json!({"why": "chosen by the handler"})))
    });
    let mut t = RawWire::new(|_| router, Config::default().max_frame_len(LIMIT));

    let rows = vec![
        Row {
            name: "bytes that are not JSON",
            input: line("this is not json"),
            reply: Some((-32700, Value::Null)),
            check: |reply| assert!(reply["error"]["data"].is_string(), "{reply}"),
        },
        Row {
            name: "JSON cut short",
            input: line(r#"{"jsonrpc":"2.0","id":1,"method":"#),
            reply: Some((-32700, Value::Null)),
            check: no_check,
        },
        Row {
            name: "wrong jsonrpc version",
            input: line(
                r#"{"jsonrpc":"1.0","id":2,"method":"initialize","params":{"protocolVersion":1}}"#,
            ),
            reply: Some((-32600, json!(2))),
            check: no_check,
        },
        Row {
            name: "no jsonrpc member",
            input: line(r#"{"id":"three","method":"initialize","params":{"protocolVersion":1}}"#),
            reply: Some((-32600, json!("three"))),
            check: no_check,
        },
        Row {
            name: "a batch",
            input: line(
                r#"[{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1}}]"#,
            ),
            reply: Some((-32600, Value::Null)),
            check: no_check,
        },
        Row {
            // Read as a struct's fields in order, it would echo `5` as the id.
            name: "an array whose first element looks like an id",
            input: line(r#"[5, "initialize"]"#),
            reply: Some((-32600, Value::Null)),
            check: no_check,
        },
        Row {
            name: "JSON that is not an object",
            input: line("42"),
            reply: Some((-32600, Value::Null)),
            check: no_check,
        },
        Row {
            name: "an id that is neither a string nor an integer",
            input: line(
                r#"{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":1}}"#,
            ),
            reply: Some((-32600, Value::Null)),
            check: no_check,
        },
        Row {
            name: "a method with a result",
            input: line(r#"{"jsonrpc":"2.0","id":5,"method":"initialize","result":{}}"#),
            reply: Some((-32600, json!(5))),
            check: no_check,
        },
        Row {
            // A response is never answered, however malformed (and echoing this id would
            // answer the peer's own request 6, if it has one).
            name: "a response with both result and error",
            input: line(r#"{"jsonrpc":"2.0","id":6,"result":{},"error":{"code":1,"message":"x"}}"#),
            reply: None,
            check: no_check,
        },
        Row {
            name: "neither method nor id",
            input: line(r#"{"jsonrpc":"2.0","params":{}}"#),
            reply: Some((-32600, Value::Null)),
            check: no_check,
        },
        Row {
            name: "a request for an unknown method",
            input: line(r#"{"jsonrpc":"2.0","id":7,"method":"no/such_method","params":{}}"#),
            reply: Some((-32601, json!(7))),
            check: |reply| {
                let message = reply["error"]["message"].as_str().unwrap();
                assert!(message.contains("no/such_method"), "{reply}");
            },
        },
        Row {
            name: "params that do not fit the method",
            input: line(
                r#"{"jsonrpc":"2.0","id":"eight","method":"session/prompt","params":{"sessionId":1,"prompt":[]}}"#,
            ),
            reply: Some((-32602, json!("eight"))),
            check: |reply| {
                let data = reply["error"]["data"].as_str().unwrap();
                assert!(
                    data.contains("sessionId"),
                    "the data names the field: {reply}"
                );
            },
        },
        Row {
            name: "missing params of a method that needs them",
            input: line(r#"{"jsonrpc":"2.0","id":9,"method":"session/prompt"}"#),
            reply: Some((-32602, json!(9))),
            check: |reply| assert!(reply["error"]["data"].is_string(), "{reply}"),
        },
        Row {
            name: "a frame over the size limit",
            input: line(&format!(
                r#"{{"jsonrpc":"2.0","id":10,"method":"initialize","params":{{"pad":"{}"}}}}"#,
                "x".repeat(LIMIT)
            )),
            reply: Some((-32600, Value::Null)),
            check: |reply| {
                let data = reply["error"]["data"].as_str().unwrap();
                assert!(data.contains("4096"), "the data names the limit: {reply}");
            },
        },
        Row {
            name: "the handler's own error",
            input: line(
                &serde_json::to_string(&request(11, "session/prompt", prompt_params("s"))).unwrap(),
            ),
            reply: Some((-32042, json!(11))),
            check: |reply| {
                assert_eq!(reply["error"]["message"], "The handler's own error.");
                assert_eq!(
                    reply["error"]["data"],
                    json!({"why": "chosen by the handler"})
                );
            },
        },
        Row {
            name: "a notification for an unknown method",
            input: line(r#"{"jsonrpc":"2.0","method":"no/such_notification","params":{}}"#),
            reply: None,
            check: no_check,
        },
        Row {
            name: "a notification with params that do not fit",
            input: line(r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":[]}}"#),
            reply: None,
            check: no_check,
        },
        Row {
            name: "a malformed $/cancel_request",
            input: line(r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"id":1}}"#),
            reply: None,
            check: no_check,
        },
        Row {
            name: "a response to an unknown numeric id",
            input: line(r#"{"jsonrpc":"2.0","id":12345,"result":{}}"#),
            reply: None,
            check: no_check,
        },
        Row {
            name: "a response to an unknown string id",
            input: line(r#"{"jsonrpc":"2.0","id":"nobody","error":{"code":-32603,"message":"x"}}"#),
            reply: None,
            check: no_check,
        },
        Row {
            name: "an error response with a null id",
            input: line(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            ),
            reply: None,
            check: no_check,
        },
    ];

    for (i, row) in rows.iter().enumerate() {
        t.raw.send_raw(&row.input).await;
        // A ping after each row: the connection must still answer, and the row's own reply (if
        // any) must come first.
        let ping_id = format!("ping-{i}");
        t.raw.send(ping(ping_id.as_str())).await;
        let first = t.raw.recv().await;
        match &row.reply {
            Some((code, id)) => {
                assert_eq!(error_code(&first), Some(*code), "{}: {first}", row.name);
                assert_eq!(&first["id"], id, "{}: {first}", row.name);
                assert!(
                    first["error"]["message"].is_string(),
                    "{}: {first}",
                    row.name
                );
                (row.check)(&first);
                let pong = t.raw.recv().await;
                assert_eq!(pong["id"], ping_id.as_str(), "{}: {pong}", row.name);
            }
            None => assert_eq!(
                first["id"],
                ping_id.as_str(),
                "{}: expected no reply, got {first}",
                row.name
            ),
        }
    }
    let replies = rows.iter().filter(|row| row.reply.is_some()).count();
    let written = t.shutdown().await;
    assert_eq!(
        written,
        rows.len() + replies,
        "every reply and pong was validated"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_handlers_notifications_precede_its_response_and_keep_their_order() {
    const SESSIONS: usize = 4;
    const UPDATES: usize = 50;
    let mut t = RawWire::new(
        |client: acp_rpc::Peer| {
            ping_router().request::<SessionPrompt, _, _>(move |req| {
                let client = client.clone();
                async move {
                    for i in 0..UPDATES {
                        let update = chunk(req.session_id.as_str(), format!("{i}"));
                        client
                            .notify::<SessionUpdate>(&update)
                            .await
                            .map_err(|e| e.to_error_object())?;
                        // Let the other handlers interleave their updates with these.
                        common::yield_times(i as u64 % 3).await;
                    }
                    Ok(PromptResponse::new(StopReason::EndTurn))
                }
            })
        },
        Config::default(),
    );
    for s in 0..SESSIONS {
        let session = format!("s{s}");
        t.raw
            .send(request(s, "session/prompt", prompt_params(&session)))
            .await;
    }
    let mut next = [0usize; SESSIONS];
    let mut answered = 0;
    let mut interleaved = false;
    let mut last_session = None;
    while answered < SESSIONS {
        let message = t.raw.recv().await;
        if message["method"] == "session/update" {
            let session = message["params"]["sessionId"].as_str().unwrap();
            let s: usize = session[1..].parse().unwrap();
            let text = message["params"]["update"]["content"]["text"]
                .as_str()
                .unwrap();
            assert_eq!(
                text,
                next[s].to_string(),
                "updates of {session} out of order"
            );
            next[s] += 1;
            interleaved |= last_session.is_some_and(|last| last != s) && next[s] > 1;
            last_session = Some(s);
        } else {
            let s = message["id"].as_u64().unwrap() as usize;
            assert_eq!(message["result"]["stopReason"], "end_turn", "{message}");
            assert_eq!(
                next[s], UPDATES,
                "the response of s{s} overtook its updates"
            );
            answered += 1;
        }
    }
    assert!(interleaved, "the handlers should have run concurrently");
    t.shutdown().await;
}

/// Signals on a channel when dropped: shows that a handler's future was dropped.
struct SignalOnDrop(Option<oneshot::Sender<()>>);

impl Drop for SignalOnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn incoming_cancel_request_drops_the_handler_and_answers_32800() {
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let (dropped_tx, dropped) = oneshot::channel();
    let dropped_tx = Arc::new(Mutex::new(Some(dropped_tx)));
    let router = ping_router().request::<SessionPrompt, _, _>(move |_req| {
        let started = started_tx.clone();
        let on_drop = SignalOnDrop(dropped_tx.lock().unwrap().take());
        async move {
            let _on_drop = on_drop;
            started.send(()).unwrap();
            std::future::pending::<Result<PromptResponse, ErrorObject>>().await
        }
    });
    let mut t = RawWire::new(|_| router, Config::default());
    t.raw
        .send(request("turn-1", "session/prompt", prompt_params("s")))
        .await;
    guard("the handler to start", started.recv()).await.unwrap();
    t.raw
        .send(notification(
            "$/cancel_request",
            json!({"requestId": "turn-1"}),
        ))
        .await;
    let reply = t.raw.recv().await;
    assert_eq!(reply["id"], "turn-1", "{reply}");
    assert_eq!(error_code(&reply), Some(-32800), "{reply}");
    guard("the handler to be dropped", dropped).await.unwrap();

    // Cancelling it again, or cancelling an unknown request, is ignored.
    t.raw
        .send(notification(
            "$/cancel_request",
            json!({"requestId": "turn-1"}),
        ))
        .await;
    t.raw
        .send(notification("$/cancel_request", json!({"requestId": 99})))
        .await;
    assert_alive(&mut t, "after").await;
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn an_id_reused_after_a_cancellation_names_the_new_request() {
    const UPDATES: usize = 2000;
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let router = ping_router().request::<SessionPrompt, _, _>(move |_req| {
        let started = started_tx.clone();
        async move {
            started.send(()).unwrap();
            std::future::pending::<Result<PromptResponse, ErrorObject>>().await
        }
    });
    let mut t = RawWire::new(|_| router, Config::default().max_outgoing_bytes(1024));
    let cancel = || notification("$/cancel_request", json!({"requestId": 1}));
    t.raw
        .send(request(1, "session/prompt", prompt_params("s")))
        .await;
    guard("the first handler", started.recv()).await.unwrap();

    // Fill the real end's outgoing buffer while the test does not read, so that the answer to
    // the cancellation has to wait.
    let streamer = {
        let peer = t.end.peer.clone();
        tokio::spawn(async move {
            for i in 0..UPDATES {
                peer.notify::<SessionUpdate>(&chunk("s", i.to_string()))
                    .await
                    .unwrap();
            }
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;

    // Cancel the request, and reuse its id before its answer could even be written.
    t.raw.send(cancel()).await;
    t.raw
        .send(request(1, "session/prompt", prompt_params("s")))
        .await;
    guard("the second handler", started.recv()).await.unwrap();

    let mut updates = 0;
    loop {
        let message = t.raw.recv().await;
        if message["method"] == "session/update" {
            updates += 1;
            continue;
        }
        assert_eq!(
            (message["id"].clone(), error_code(&message)),
            (json!(1), Some(-32800))
        );
        break;
    }
    // The id now names the second request, which can be cancelled in turn.
    t.raw.send(cancel()).await;
    loop {
        let message = t.raw.recv().await;
        if message["method"] == "session/update" {
            updates += 1;
            continue;
        }
        assert_eq!(
            (message["id"].clone(), error_code(&message)),
            (json!(1), Some(-32800))
        );
        break;
    }
    while updates < UPDATES {
        assert_eq!(t.raw.recv().await["method"], "session/update");
        updates += 1;
    }
    guard("the streamer", streamer).await.unwrap();
    assert_alive(&mut t, "after").await;
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn dropping_a_call_sends_cancel_request_and_ignores_the_late_answer() {
    let mut t = RawWire::new(|_| ping_router(), Config::default());
    let agent_side = t.end.peer.clone();
    let (stop, stopped) = oneshot::channel::<()>();
    let call = tokio::spawn(async move {
        let params = permission_params();
        tokio::select! {
            result = agent_side.request::<SessionRequestPermission>(&params) => Some(result),
            _ = stopped => None,
        }
    });
    let sent = t.raw.recv().await;
    assert_eq!(sent["method"], "session/request_permission", "{sent}");
    let id = sent["id"].clone();
    stop.send(()).unwrap();
    assert!(guard("the caller", call).await.unwrap().is_none());

    let cancel = t.raw.recv().await;
    assert_eq!(cancel["method"], "$/cancel_request", "{cancel}");
    assert_eq!(cancel["params"]["requestId"], id, "{cancel}");

    // The peer answers anyway (late), then as the protocol asks; both are ignored.
    t.raw
        .send(response(
            id.clone(),
            json!({"outcome": {"outcome": "cancelled"}}),
        ))
        .await;
    t.raw
        .send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "Request cancelled"}}))
        .await;
    assert_alive(&mut t, "after").await;
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_request_id_still_in_use_is_refused() {
    let gate = Arc::new(Semaphore::new(0));
    let router = {
        let gate = gate.clone();
        ping_router().request::<SessionPrompt, _, _>(move |_req| {
            let gate = gate.clone();
            async move {
                let _permit = gate.acquire().await.unwrap();
                Ok(PromptResponse::new(StopReason::EndTurn))
            }
        })
    };
    let mut t = RawWire::new(|_| router, Config::default());
    t.raw
        .send(request(7, "session/prompt", prompt_params("s")))
        .await;
    t.raw.send(ping(7)).await;
    let refused = t.raw.recv().await;
    assert_eq!(refused["id"], 7, "{refused}");
    assert_eq!(error_code(&refused), Some(-32600), "{refused}");

    gate.add_permits(1);
    let answered = t.raw.recv().await;
    assert_eq!(answered["id"], 7, "{answered}");
    assert_eq!(answered["result"]["stopReason"], "end_turn", "{answered}");
    // Once answered, the id may be used again.
    assert_alive(&mut t, "7").await;
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn requests_over_the_cap_are_refused_while_reading_goes_on() {
    let gate = Arc::new(Semaphore::new(0));
    let router = {
        let gate = gate.clone();
        ping_router().request::<SessionPrompt, _, _>(move |_req| {
            let gate = gate.clone();
            async move {
                let _permit = gate.acquire().await.unwrap();
                Ok(PromptResponse::new(StopReason::EndTurn))
            }
        })
    };
    let mut t = RawWire::new(|_| router, Config::default().max_in_flight(2));
    for id in 1..=2 {
        t.raw
            .send(request(id, "session/prompt", prompt_params("s")))
            .await;
    }
    // A third request, and a ping: both over the cap, both refused at once.
    t.raw
        .send(request(3, "session/prompt", prompt_params("s")))
        .await;
    t.raw.send(ping(4)).await;
    for id in [3, 4] {
        let refused = t.raw.recv().await;
        assert_eq!(refused["id"], id, "{refused}");
        assert_eq!(error_code(&refused), Some(-32603), "{refused}");
        let message = refused["error"]["data"].as_str().unwrap_or_default();
        assert!(message.contains("busy"), "{refused}");
    }

    // Reading goes on: a call from the real end gets its answer while the cap is reached.
    let agent_side = t.end.peer.clone();
    let call = tokio::spawn(async move {
        agent_side
            .request::<SessionRequestPermission>(&permission_params())
            .await
    });
    let sent = t.raw.recv().await;
    t.raw
        .send(response(
            sent["id"].clone(),
            json!({"outcome": {"outcome": "selected", "optionId": "allow"}}),
        ))
        .await;
    let answer = guard("the call", call).await.unwrap().unwrap();
    assert_eq!(
        answer.outcome,
        acp_types::RequestPermissionOutcome::selected("allow")
    );

    gate.add_permits(2);
    let mut ids = vec![
        t.raw.recv().await["id"].clone(),
        t.raw.recv().await["id"].clone(),
    ];
    ids.sort_by_key(|id| id.as_i64());
    assert_eq!(ids, vec![json!(1), json!(2)]);
    assert_alive(&mut t, "after").await;
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn peer_death_fails_pending_calls_within_milliseconds() {
    let t = RawWire::new(|_| ping_router(), Config::default());
    let RawWire { mut raw, end, wire } = t;
    let agent_side = end.peer.clone();
    let call = tokio::spawn(async move {
        let result = agent_side
            .request::<SessionRequestPermission>(&permission_params())
            .await;
        (result, Instant::now())
    });
    let sent = raw.recv().await;
    assert_eq!(sent["method"], "session/request_permission");

    let died = Instant::now();
    drop(raw);
    let (result, failed) = guard("the pending call", call).await.unwrap();
    assert!(matches!(result, Err(Error::ConnectionClosed)), "{result:?}");
    let latency = failed - died;
    assert!(
        latency < Duration::from_millis(50),
        "the pending call failed only after {latency:?}"
    );
    end.join().await.expect("a clean end of input");
    wire.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn calls_after_close_fail_immediately() {
    let t = RawWire::new(|_| ping_router(), Config::default());
    let peer = t.end.peer.clone();
    assert!(!peer.is_closed());
    t.shutdown().await;

    assert!(peer.is_closed());
    peer.closed()
        .now_or_never()
        .expect("closed() resolves at once");
    let call = peer
        .request::<SessionRequestPermission>(&permission_params())
        .now_or_never()
        .expect("a call after close completes at once");
    assert!(matches!(call, Err(Error::ConnectionClosed)), "{call:?}");
    let notify = peer
        .notify::<SessionUpdate>(&chunk("s", "late"))
        .now_or_never()
        .expect("a notification after close completes at once");
    assert!(matches!(notify, Err(Error::ConnectionClosed)), "{notify:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn messages_received_before_the_end_of_input_are_still_handled() {
    const UPDATES: usize = 200;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let t = RawWire::new(
        {
            let seen = seen.clone();
            move |_| {
                ping_router().notification::<SessionUpdate, _, _>(move |update| {
                    let seen = seen.clone();
                    async move {
                        // A slow handler: the input is read long before it is handled.
                        common::yield_times(3).await;
                        seen.lock().unwrap().push(chunk_text(&update));
                    }
                })
            }
        },
        Config::default(),
    );
    let RawWire { mut raw, end, wire } = t;
    let client_side = end.peer.clone();
    let call = tokio::spawn(async move {
        client_side
            .request_raw("session/prompt", &prompt_params("s"))
            .await
    });
    let sent = raw.recv().await;
    // The peer streams its updates, answers, and goes away at once.
    let mut burst = Vec::new();
    for i in 0..UPDATES {
        let update = notification(
            "session/update",
            serde_json::to_value(chunk("s", i.to_string())).unwrap(),
        );
        common::assert_valid(&update);
        burst.extend(serde_json::to_vec(&update).unwrap());
        burst.push(b'\n');
    }
    let answer = response(sent["id"].clone(), json!({"stopReason": "end_turn"}));
    common::assert_valid(&answer);
    burst.extend(serde_json::to_vec(&answer).unwrap());
    burst.push(b'\n');
    let (_reader, mut writer) = raw.into_parts();
    guard("writing the burst", writer.write_all(&burst))
        .await
        .unwrap();
    writer.shutdown().await.unwrap();

    let result = guard("the call", call).await.unwrap();
    let result = result.expect("the answer arrived before the end of input");
    assert_eq!(result.as_bytes(), br#"{"stopReason":"end_turn"}"#);
    let seen = seen.lock().unwrap().clone();
    let expected: Vec<String> = (0..UPDATES).map(|i| i.to_string()).collect();
    assert_eq!(
        seen, expected,
        "every update handled, in order, before the answer"
    );
    end.join().await.expect("a clean end of input");
    wire.finish().await;
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_peer_that_does_not_read_makes_senders_wait_with_bounded_memory() {
    const OUTBOX: usize = 8 * 1024;
    const TOTAL: usize = 20_000;
    let (heard_tx, mut heard) = mpsc::unbounded_channel();
    let t = RawWire::new(
        move |_| {
            ping_router().notification::<SessionUpdate, _, _>(move |update| {
                let _ = heard_tx.send(chunk_text(&update));
                async {}
            })
        },
        Config::default().max_outgoing_bytes(OUTBOX),
    );
    let RawWire { mut raw, end, wire } = t;
    let sent = Arc::new(AtomicUsize::new(0));
    let sender = {
        let (peer, sent) = (end.peer.clone(), sent.clone());
        tokio::spawn(async move {
            for i in 0..TOTAL {
                peer.notify::<SessionUpdate>(&chunk("s", format!("{i:010}")))
                    .await
                    .unwrap();
                sent.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    // Paused time advances only once every task is blocked: the sender is then stuck.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let stuck_at = sent.load(Ordering::SeqCst);
    let line_len = serde_json::to_vec(&notification(
        "session/update",
        serde_json::to_value(chunk("s", format!("{:010}", 0))).unwrap(),
    ))
    .unwrap()
    .len()
        + 1;
    // What can be buffered: the two pipes and the pass-through's chunk, the batch being
    // written, and the outbox itself (one message may overshoot it).
    let bound = 2 * common::PIPE + 8 * 1024 + 2 * (OUTBOX + line_len);
    assert!(stuck_at < TOTAL, "the sender never waited");
    assert!(
        stuck_at * line_len <= bound,
        "{stuck_at} notifications ({} bytes) buffered, over the {bound}-byte bound",
        stuck_at * line_len
    );

    // Reading goes on meanwhile.
    raw.send(notification(
        "session/update",
        serde_json::to_value(chunk("s", "while stuck")).unwrap(),
    ))
    .await;
    assert_eq!(
        guard("the notification", heard.recv()).await.unwrap(),
        "while stuck"
    );

    // Once the peer reads, everything arrives, in order.
    for i in 0..TOTAL {
        let message = raw.recv().await;
        let text = message["params"]["update"]["content"]["text"]
            .as_str()
            .unwrap();
        assert_eq!(text, format!("{i:010}"));
    }
    guard("the sender", sender).await.unwrap();
    let rest = raw.close().await;
    assert!(rest.is_empty());
    end.join().await.unwrap();
    wire.finish().await;
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_slow_notification_handler_pauses_reading_with_bounded_memory() {
    const QUEUE: usize = 64;
    const TOTAL: usize = 20_000;
    let gate = Arc::new(Semaphore::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let t = RawWire::new(
        {
            let (gate, seen) = (gate.clone(), seen.clone());
            move |_| {
                ping_router().notification::<SessionUpdate, _, _>(move |update| {
                    let (gate, seen) = (gate.clone(), seen.clone());
                    async move {
                        gate.acquire().await.unwrap().forget();
                        seen.lock().unwrap().push(chunk_text(&update));
                    }
                })
            }
        },
        Config::default().max_queued_notifications(QUEUE),
    );
    let RawWire { raw, end, wire } = t;
    let (_reader, mut writer) = raw.into_parts();
    let mut line = Vec::new();
    let written = Arc::new(AtomicUsize::new(0));
    let feeder = {
        let written = written.clone();
        tokio::spawn(async move {
            for i in 0..TOTAL {
                let update = notification(
                    "session/update",
                    serde_json::to_value(chunk("s", format!("{i:010}"))).unwrap(),
                );
                line.clear();
                serde_json::to_writer(&mut line, &update).unwrap();
                line.push(b'\n');
                writer.write_all(&line).await.unwrap();
                written.fetch_add(1, Ordering::SeqCst);
            }
            writer
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let stuck_at = written.load(Ordering::SeqCst);
    let line_len = 200;
    // The pipes, the pass-through's chunk, the read buffer, and the queue.
    let bound = 2 * common::PIPE + 8 * 1024 + 64 * 1024 + QUEUE * line_len;
    assert!(stuck_at < TOTAL, "the peer was never slowed down");
    assert!(
        stuck_at * line_len <= bound,
        "{stuck_at} notifications accepted while the handler was stuck"
    );

    gate.add_permits(TOTAL);
    let mut writer = guard("the feeder", feeder).await.unwrap();
    writer.shutdown().await.unwrap();
    end.join().await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), TOTAL);
    assert!(
        seen.iter()
            .enumerate()
            .all(|(i, s)| *s == format!("{i:010}"))
    );
    wire.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn auto_framing_answers_content_length_in_kind() {
    let mut t = RawWire::new(
        |_| ping_router(),
        Config::default().framing(FramingMode::Auto),
    );
    t.raw.send_content_length(ping("cl-1")).await;
    let pong = t.raw.recv().await;
    assert_eq!(pong["id"], "cl-1");
    assert_eq!(t.raw.framing(), Some(Framing::ContentLength));

    // Malformed input is answered in the same framing.
    t.raw.send_raw("Content-Length: 8\r\n\r\nnot json").await;
    assert_eq!(error_code(&t.raw.recv().await), Some(-32700));

    // So are the real end's own calls.
    t.end
        .peer
        .notify::<SessionUpdate>(&chunk("s", "hello"))
        .await
        .unwrap();
    let update = t.raw.recv().await;
    assert_eq!(update["params"]["update"]["content"]["text"], "hello");
    assert_eq!(
        t.wire.log().framing.lock().unwrap()[1],
        Some(Framing::ContentLength)
    );
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn auto_framing_answers_ndjson_in_kind_and_speaks_ndjson_first() {
    let mut t = RawWire::new(
        |_| ping_router(),
        Config::default().framing(FramingMode::Auto),
    );
    // Before anything was received, the real end speaks NDJSON, the framing of the spec.
    t.end
        .peer
        .notify::<SessionUpdate>(&chunk("s", "first"))
        .await
        .unwrap();
    let update = t.raw.recv().await;
    assert_eq!(update["params"]["update"]["content"]["text"], "first");
    assert_eq!(t.raw.framing(), Some(Framing::Ndjson));

    assert_alive(&mut t, "nd-1").await;
    assert_eq!(
        t.wire.log().framing.lock().unwrap()[1],
        Some(Framing::Ndjson)
    );
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn content_length_frames_over_the_limit_are_refused_and_skipped() {
    let mut t = RawWire::new(
        |_| ping_router(),
        Config::default()
            .framing(FramingMode::ContentLength)
            .max_frame_len(256),
    );
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"pad":"{}"}}}}"#,
        "y".repeat(300)
    );
    t.raw
        .send_raw(format!("Content-Length: {}\r\n\r\n{big}", big.len()))
        .await;
    let refused = t.raw.recv().await;
    assert_eq!(error_code(&refused), Some(-32600), "{refused}");
    assert_eq!(refused["id"], Value::Null);
    assert_eq!(t.raw.framing(), Some(Framing::ContentLength));

    t.raw.send_content_length(ping("after")).await;
    assert_eq!(t.raw.recv().await["id"], "after");
    t.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Hardening (issue 10): null ids, framing errors, keys given twice, surrogates.

#[tokio::test(flavor = "current_thread")]
async fn a_request_with_a_null_id_is_answered_with_a_null_id() {
    let mut t = RawWire::new(|_| ping_router(), Config::default());
    t.raw.send(ping(Value::Null)).await;
    let pong = t.raw.recv().await;
    assert_eq!(pong["id"], Value::Null, "{pong}");
    assert_eq!(pong["result"]["protocolVersion"], 1, "{pong}");
    assert_alive(&mut t, "after").await;
    t.shutdown().await;
}

/// A `null` id is an id like any other: one request at a time may use it (a second one while
/// the first runs is refused, as for any id in use), and `$/cancel_request` can name it.
#[tokio::test(flavor = "current_thread")]
async fn a_null_id_names_one_running_request_at_a_time() {
    let gate = Arc::new(Semaphore::new(0));
    let router = {
        let gate = gate.clone();
        ping_router().request::<SessionPrompt, _, _>(move |_req| {
            let gate = gate.clone();
            async move {
                // Each permit lets one turn end.
                gate.acquire().await.unwrap().forget();
                Ok(PromptResponse::new(StopReason::EndTurn))
            }
        })
    };
    let mut t = RawWire::new(|_| router, Config::default());
    t.raw
        .send(request(Value::Null, "session/prompt", prompt_params("s")))
        .await;
    t.raw.send(ping(Value::Null)).await;
    let refused = t.raw.recv().await;
    assert_eq!(refused["id"], Value::Null, "{refused}");
    assert_eq!(error_code(&refused), Some(-32600), "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already in use"),
        "{refused}"
    );
    gate.add_permits(1);
    let answered = t.raw.recv().await;
    assert_eq!(answered["id"], Value::Null, "{answered}");
    assert_eq!(answered["result"]["stopReason"], "end_turn", "{answered}");

    // Once answered, the null id may be used again, and cancelled by name.
    t.raw
        .send(request(Value::Null, "session/prompt", prompt_params("s")))
        .await;
    assert_alive(&mut t, "between").await;
    t.raw
        .send(notification("$/cancel_request", json!({"requestId": null})))
        .await;
    let cancelled = t.raw.recv().await;
    assert_eq!(cancelled["id"], Value::Null, "{cancelled}");
    assert_eq!(error_code(&cancelled), Some(-32800), "{cancelled}");
    assert_alive(&mut t, "after").await;
    t.shutdown().await;
}

/// Content-Length header sections that give no usable length, each followed by a body the
/// peer meant to send.
const MALFORMED_HEADERS: [(&str, &str); 5] = [
    (
        "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
        "missing Content-Length header",
    ),
    ("Content-Length: twelve\r\n\r\n", "not a decimal number"),
    (
        "Content-Length: 99999999999999999999999\r\n\r\n",
        "out of range",
    ),
    ("Content-Length: -3\r\n\r\n", "negative"),
    (
        "Content-Length: 60\r\nContent-Length: 61\r\n\r\n",
        "conflicting Content-Length headers: 60 and 61",
    ),
];

#[tokio::test(flavor = "current_thread")]
async fn a_malformed_content_length_header_is_answered_32700_and_the_next_request_is_served() {
    for mode in [FramingMode::ContentLength, FramingMode::Auto] {
        let mut t = RawWire::new(|_| ping_router(), Config::default().framing(mode));
        for (i, (header, reason)) in MALFORMED_HEADERS.iter().enumerate() {
            let body = serde_json::to_string(&ping(i)).unwrap();
            t.raw.send_raw(format!("{header}{body}")).await;
            let ping_id = format!("after-{i}");
            t.raw.send_content_length(ping(ping_id.as_str())).await;
            let refused = t.raw.recv().await;
            assert_eq!(
                error_code(&refused),
                Some(-32700),
                "{mode} {header:?}: {refused}"
            );
            assert_eq!(refused["id"], Value::Null, "{mode} {header:?}: {refused}");
            let message = refused["error"]["message"].as_str().unwrap();
            assert!(message.contains(reason), "{mode} {header:?}: {refused}");
            let pong = t.raw.recv().await;
            assert_eq!(pong["id"], ping_id.as_str(), "{mode} {header:?}: {pong}");
        }
        assert_eq!(t.raw.framing(), Some(Framing::ContentLength));
        t.shutdown().await;
    }
}

/// Sends `bytes` to a fresh Content-Length connection and returns how its driver ended.
async fn driver_end_after(bytes: Vec<u8>) -> Result<(), Error> {
    // Pipes large enough for all of it, so that the writer never waits for the driver.
    let mut t = RawWire::with_capacity(
        |_| ping_router(),
        Config::default().framing(FramingMode::ContentLength),
        bytes.len() + PIPE,
    );
    t.raw.send_content_length(ping("before")).await;
    assert_eq!(t.raw.recv().await["id"], "before");
    t.raw.send_raw(&bytes).await;
    let ended = t.end.join().await;
    // Nothing was answered to the unreadable input; the driver's output ended.
    assert_eq!(t.raw.recv_or_eof().await, None);
    t.wire.cut();
    t.wire.finish().await;
    ended
}

/// The reason a connection ended with a framing error, from the error's source.
fn framing_reason(ended: Result<(), Error>) -> String {
    let error = ended.expect_err("the driver must fail");
    assert!(matches!(error, Error::Codec(_)), "{error:?}");
    assert!(error.is_connection_closed());
    std::error::Error::source(&error)
        .expect("the codec error is the source")
        .to_string()
}

#[tokio::test(flavor = "current_thread")]
async fn a_header_line_of_a_megabyte_ends_the_connection_with_the_reason() {
    let mut bytes = b"Content-Length: 2\r\nX-Padding: ".to_vec();
    bytes.resize(1 << 20, b'p');
    bytes.extend_from_slice(b"\r\n\r\n{}");
    let reason = framing_reason(driver_end_after(bytes).await);
    assert!(
        reason.contains("header section longer than 8 KiB")
            && reason.contains("the next frame cannot be found"),
        "{reason}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn an_absurd_content_length_ends_the_connection_instead_of_swallowing_the_stream() {
    // Skipping a terabyte by count would drop every later message without a word.
    let mut bytes = b"Content-Length: 1099511627776\r\n\r\n{}".to_vec();
    let body = serde_json::to_vec(&ping("lost")).unwrap();
    bytes.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    bytes.extend_from_slice(&body);
    let reason = framing_reason(driver_end_after(bytes).await);
    assert!(
        reason.contains("1099511627776") && reason.contains("frame limit"),
        "{reason}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn bytes_that_are_not_a_header_end_a_content_length_connection_with_the_reason() {
    let line = serde_json::to_vec(&ping("nd")).unwrap();
    let reason = framing_reason(driver_end_after([&line[..], b"\n"].concat()).await);
    assert!(
        reason.contains("not a header, so the stream cannot be read as Content-Length framed"),
        "{reason}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn auto_framing_answers_a_first_line_that_is_not_json_as_ndjson_does() {
    for first in ["this is not json", "Error: not a header either"] {
        let mut t = RawWire::new(
            |_| ping_router(),
            Config::default().framing(FramingMode::Auto),
        );
        t.raw.send_raw(format!("{first}\n")).await;
        let refused = t.raw.recv().await;
        assert_eq!(error_code(&refused), Some(-32700), "{first}: {refused}");
        assert_eq!(refused["id"], Value::Null, "{first}: {refused}");
        assert_eq!(t.raw.framing(), Some(Framing::Ndjson));
        assert_alive(&mut t, "after").await;
        t.shutdown().await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_key_given_twice_is_refused_wherever_it_is() {
    let mut t = RawWire::new(|_| ping_router(), Config::default());
    // An envelope member: the message has no one meaning, so it is not a valid request.
    t.raw
        .send_raw(line(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1},"params":{"protocolVersion":2}}"#,
        ))
        .await;
    let refused = t.raw.recv().await;
    assert_eq!(error_code(&refused), Some(-32600), "{refused}");
    assert_eq!(refused["id"], 1, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate field `params`"),
        "{refused}"
    );
    // Two ids: which one to echo is unknown.
    t.raw
        .send_raw(line(
            r#"{"jsonrpc":"2.0","id":2,"id":3,"method":"initialize","params":{"protocolVersion":1}}"#,
        ))
        .await;
    let refused = t.raw.recv().await;
    assert_eq!(error_code(&refused), Some(-32600), "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");
    // A field of the params: they do not fit the method.
    t.raw
        .send_raw(line(
            r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1,"protocolVersion":2}}"#,
        ))
        .await;
    let refused = t.raw.recv().await;
    assert_eq!(error_code(&refused), Some(-32602), "{refused}");
    assert_eq!(refused["id"], 4, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate field `protocolVersion`"),
        "{refused}"
    );
    assert_alive(&mut t, "after").await;
    t.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_lone_surrogate_is_named_with_its_field() {
    let mut t = RawWire::new(|_| ping_router(), Config::default());
    t.raw
        .send_raw(line(
            r#"{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"\ud800","version":"1"}}}"#,
        ))
        .await;
    let refused = t.raw.recv().await;
    assert_eq!(refused["id"], 5, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("lone surrogate in string") && message.contains("clientInfo.name"),
        "{refused}"
    );
    assert_alive(&mut t, "after").await;
    t.shutdown().await;
}
