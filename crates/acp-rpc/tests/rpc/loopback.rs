//! Two real connection ends over an in-memory pipe (`tokio::io::duplex`), an agent and a client,
//! with every message on the wire validated against the official schema: the ordering contract,
//! cancellation both ways, peer death, concurrency, and both framings.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acp_codec::{Framing, FramingMode};
use acp_rpc::{Config, Error, Peer, Router};
use acp_types::methods::{Initialize, SessionPrompt, SessionRequestPermission, SessionUpdate};
use acp_types::{
    ErrorObject, InitializeRequest, InitializeResponse, PermissionOption, PermissionOptionKind,
    PromptRequest, PromptResponse, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, StopReason, ToolCallUpdate,
};
use common::{Loopback, Rng, chunk, chunk_text, guard, yield_times};
use futures::future::join_all;
use tokio::sync::{mpsc, oneshot};

fn prompt(session: &str) -> PromptRequest {
    PromptRequest::new(session, vec!["go".into()])
}

fn permission(session: &str, call: &str) -> RequestPermissionRequest {
    RequestPermissionRequest::new(
        session,
        ToolCallUpdate::new(call).title("Write src/main.rs"),
        vec![
            PermissionOption::new(
                format!("allow-{call}"),
                "Allow",
                PermissionOptionKind::AllowOnce,
            ),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        ],
    )
}

/// A client that answers permission requests with their first option, after yielding a while.
fn allowing_client(seed: u64) -> Router {
    let rng = Arc::new(Mutex::new(Rng::new(seed)));
    Router::new().request::<SessionRequestPermission, _, _>(move |req| {
        let yields = rng.lock().unwrap().below(8);
        async move {
            yield_times(yields).await;
            Ok(RequestPermissionResponse::new(
                RequestPermissionOutcome::selected(req.options[0].option_id.clone()),
            ))
        }
    })
}

/// An agent whose prompt turn streams `updates` chunks, yielding between them.
fn streaming_agent(client: Peer, updates: usize) -> Router {
    Router::new().request::<SessionPrompt, _, _>(move |req| {
        let client = client.clone();
        async move {
            for i in 0..updates {
                client
                    .notify::<SessionUpdate>(&chunk(req.session_id.as_str(), i.to_string()))
                    .await
                    .map_err(|e| e.to_error_object())?;
                yield_times(i as u64 % 2).await;
            }
            Ok(PromptResponse::new(StopReason::EndTurn))
        }
    })
}

#[tokio::test(flavor = "current_thread")]
async fn notifications_are_handled_one_at_a_time_in_arrival_order() {
    const UPDATES: usize = 500;
    let busy = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let lb = Loopback::new(|client| streaming_agent(client, UPDATES), {
        let (busy, seen) = (busy.clone(), seen.clone());
        move |_agent| {
            let rng = Arc::new(Mutex::new(Rng::new(7)));
            Router::new().notification::<SessionUpdate, _, _>(move |update| {
                let (busy, seen) = (busy.clone(), seen.clone());
                let yields = rng.lock().unwrap().below(5);
                async move {
                    assert!(
                        !busy.swap(true, Ordering::SeqCst),
                        "two notification handlers overlapped"
                    );
                    yield_times(yields).await;
                    seen.lock().unwrap().push(chunk_text(&update));
                    busy.store(false, Ordering::SeqCst);
                }
            })
        }
    });
    let response = guard(
        "the prompt",
        lb.to_agent().request::<SessionPrompt>(&prompt("s")),
    )
    .await
    .unwrap();
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let seen = seen.lock().unwrap().clone();
    let expected: Vec<String> = (0..UPDATES).map(|i| i.to_string()).collect();
    assert_eq!(seen, expected);
    let checked = lb.shutdown().await;
    assert_eq!(checked, [1, UPDATES + 1], "every message was validated");
}

#[tokio::test(flavor = "current_thread")]
async fn a_response_is_released_only_after_the_notifications_before_it() {
    const SESSIONS: usize = 6;
    const UPDATES: usize = 100;
    let handled = Arc::new(Mutex::new(vec![0usize; SESSIONS]));
    let lb = Loopback::new(|client| streaming_agent(client, UPDATES), {
        let handled = handled.clone();
        move |_agent| {
            let rng = Arc::new(Mutex::new(Rng::new(11)));
            Router::new().notification::<SessionUpdate, _, _>(move |update| {
                let handled = handled.clone();
                // Slow handlers: without the barrier, responses would overtake them.
                let yields = rng.lock().unwrap().below(6);
                async move {
                    yield_times(yields).await;
                    let s: usize = update.session_id.as_str()[1..].parse().unwrap();
                    handled.lock().unwrap()[s] += 1;
                }
            })
        }
    });
    let agent = lb.to_agent();
    let turns = (0..SESSIONS).map(|s| {
        let (agent, handled) = (agent.clone(), handled.clone());
        async move {
            let response = agent
                .request::<SessionPrompt>(&prompt(&format!("s{s}")))
                .await
                .unwrap();
            assert_eq!(response.stop_reason, StopReason::EndTurn);
            assert_eq!(
                handled.lock().unwrap()[s],
                UPDATES,
                "s{s}'s response was released before its updates were handled"
            );
        }
    });
    guard("the prompts", join_all(turns)).await;
    lb.shutdown().await;
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_notification_handler_that_awaits_the_peer_deadlocks_and_spawning_does_not() {
    let (outcome_tx, mut outcomes) = mpsc::unbounded_channel::<(String, bool)>();
    let lb = Loopback::new(
        |_client| {
            Router::new().request::<Initialize, _, _>(|req| async move {
                Ok(InitializeResponse::new(req.protocol_version))
            })
        },
        move |agent: Peer| {
            Router::new().notification::<SessionUpdate, _, _>(move |update| {
                let (agent, outcome_tx) = (agent.clone(), outcome_tx.clone());
                let how = chunk_text(&update);
                let call = async move {
                    let params = InitializeRequest::new(1);
                    let call = agent.request::<Initialize>(&params);
                    let answered = tokio::time::timeout(Duration::from_secs(1), call).await;
                    let _ = outcome_tx.send((how, answered.is_ok()));
                };
                async move {
                    if chunk_text(&update) == "await" {
                        // BAD: the answer is held back until this very handler has finished.
                        call.await;
                    } else {
                        // GOOD: the handler returns, the call goes on in its own task.
                        tokio::spawn(call);
                    }
                }
            })
        },
    );
    let client = lb.to_client();
    client
        .notify::<SessionUpdate>(&chunk("s", "await"))
        .await
        .unwrap();
    let (how, answered) = guard("the awaiting handler", outcomes.recv())
        .await
        .unwrap();
    assert_eq!(
        (how.as_str(), answered),
        ("await", false),
        "it should deadlock"
    );

    client
        .notify::<SessionUpdate>(&chunk("s", "spawn"))
        .await
        .unwrap();
    let (how, answered) = guard("the spawned call", outcomes.recv()).await.unwrap();
    assert_eq!((how.as_str(), answered), ("spawn", true));
    lb.shutdown().await;
}

/// Signals when dropped: shows that a handler was cancelled.
struct SignalOnDrop(Option<oneshot::Sender<()>>);

impl Drop for SignalOnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

/// A handler body that reports its start, then waits forever, reporting when it is dropped.
fn hang_until_dropped<T>(
    started: mpsc::UnboundedSender<()>,
    dropped: &Mutex<Option<oneshot::Sender<()>>>,
) -> impl Future<Output = Result<T, ErrorObject>> + use<T> {
    let on_drop = SignalOnDrop(dropped.lock().unwrap().take());
    async move {
        let _on_drop = on_drop;
        let _ = started.send(());
        std::future::pending().await
    }
}

#[tokio::test(flavor = "current_thread")]
async fn dropping_a_call_cancels_the_remote_handler_both_ways() {
    let (agent_started_tx, mut agent_started) = mpsc::unbounded_channel();
    let (agent_dropped_tx, agent_dropped) = oneshot::channel();
    let agent_dropped_tx = Arc::new(Mutex::new(Some(agent_dropped_tx)));
    let (client_started_tx, mut client_started) = mpsc::unbounded_channel();
    let (client_dropped_tx, client_dropped) = oneshot::channel();
    let client_dropped_tx = Arc::new(Mutex::new(Some(client_dropped_tx)));
    let (stop_agent_call_tx, stop_agent_call) = oneshot::channel::<()>();
    let stop_agent_call = Arc::new(Mutex::new(Some(stop_agent_call)));

    let lb = Loopback::new(
        move |client: Peer| {
            Router::new().request::<SessionPrompt, _, _>(move |req| {
                let client = client.clone();
                let session = req.session_id.as_str().to_owned();
                let stop = if session == "ask" {
                    stop_agent_call.lock().unwrap().take()
                } else {
                    None
                };
                let hang = (session == "hang")
                    .then(|| hang_until_dropped(agent_started_tx.clone(), &agent_dropped_tx));
                async move {
                    if let Some(stop) = stop {
                        // This turn asks the client, then gives up on the answer.
                        let params = permission("ask", "call-0");
                        tokio::select! {
                            _ = client.request::<SessionRequestPermission>(&params) => {
                                panic!("the client never answers")
                            }
                            _ = stop => Ok(PromptResponse::new(StopReason::Cancelled)),
                        }
                    } else if let Some(hang) = hang {
                        hang.await
                    } else {
                        Ok(PromptResponse::new(StopReason::EndTurn))
                    }
                }
            })
        },
        move |_agent| {
            Router::new().request::<SessionRequestPermission, _, _>(move |_req| {
                hang_until_dropped(client_started_tx.clone(), &client_dropped_tx)
            })
        },
    );
    let agent = lb.to_agent();

    // Client to agent: the client drops its call; the agent's handler is dropped.
    let (stop_tx, stop) = oneshot::channel::<()>();
    let call = tokio::spawn({
        let agent = agent.clone();
        async move {
            let params = prompt("hang");
            tokio::select! {
                _ = agent.request::<SessionPrompt>(&params) => panic!("never answered"),
                _ = stop => {}
            }
        }
    });
    guard("the agent's handler to start", agent_started.recv())
        .await
        .unwrap();
    stop_tx.send(()).unwrap();
    guard("the client's call", call).await.unwrap();
    guard("the agent's handler to be dropped", agent_dropped)
        .await
        .unwrap();

    // Agent to client: the agent gives up on its permission request; the client's handler is
    // dropped, and the turn ends.
    let turn = tokio::spawn({
        let agent = agent.clone();
        async move { agent.request::<SessionPrompt>(&prompt("ask")).await }
    });
    guard("the client's handler to start", client_started.recv())
        .await
        .unwrap();
    stop_agent_call_tx.send(()).unwrap();
    guard("the client's handler to be dropped", client_dropped)
        .await
        .unwrap();
    let response = guard("the turn", turn).await.unwrap().unwrap();
    assert_eq!(response.stop_reason, StopReason::Cancelled);

    // The connection goes on.
    let response = guard(
        "another turn",
        agent.request::<SessionPrompt>(&prompt("other")),
    )
    .await
    .unwrap();
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    lb.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn peer_death_mid_request_fails_pending_calls_within_milliseconds() {
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let dropped = Mutex::new(None);
    let lb = Loopback::new(
        move |_client| {
            Router::new().request::<SessionPrompt, _, _>(move |_req| {
                hang_until_dropped(started_tx.clone(), &dropped)
            })
        },
        |_agent| Router::new(),
    );
    let agent = lb.to_agent();
    let calls: Vec<_> = (0..3)
        .map(|s| {
            let agent = agent.clone();
            tokio::spawn(async move {
                let result = agent
                    .request::<SessionPrompt>(&prompt(&format!("s{s}")))
                    .await;
                (result, Instant::now())
            })
        })
        .collect();
    for _ in 0..3 {
        guard("the handlers to start", started.recv())
            .await
            .unwrap();
    }

    // The agent process dies: its driver and everything it owns are gone at once.
    let died = Instant::now();
    lb.agent.driver.abort();
    for call in calls {
        let (result, failed) = guard("a pending call", call).await.unwrap();
        assert!(matches!(result, Err(Error::ConnectionClosed)), "{result:?}");
        let latency = failed - died;
        assert!(
            latency < Duration::from_millis(50),
            "a pending call failed only after {latency:?}"
        );
    }
    assert!(agent.is_closed());
    lb.client.join().await.expect("a clean end of input");
    lb.wire.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn dropping_the_driver_closes_the_connection() {
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let dropped = Mutex::new(None);
    let lb = Loopback::new(
        move |_client| {
            Router::new().request::<SessionPrompt, _, _>(move |_req| {
                hang_until_dropped(started_tx.clone(), &dropped)
            })
        },
        |_agent| Router::new(),
    );
    let agent = lb.to_agent();
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.request::<SessionPrompt>(&prompt("s")).await }
    });
    guard("the handler to start", started.recv()).await.unwrap();

    // The client stops its own driver: its pending call fails and its handle is closed.
    lb.client.driver.abort();
    let result = guard("the pending call", call).await.unwrap();
    assert!(matches!(result, Err(Error::ConnectionClosed)), "{result:?}");
    assert!(agent.is_closed());
    guard("closed()", agent.closed()).await;
    let late = agent.request::<SessionPrompt>(&prompt("s")).await;
    assert!(matches!(late, Err(Error::ConnectionClosed)), "{late:?}");
    // The agent sees the end of its input.
    lb.agent.join().await.expect("a clean end of input");
    lb.wire.finish().await;
}

/// An agent whose prompt handler asks the client before answering (a re-entrant call).
fn asking_agent(client: Peer, seed: u64) -> Router {
    let rng = Arc::new(Mutex::new(Rng::new(seed)));
    Router::new().request::<SessionPrompt, _, _>(move |req| {
        let client = client.clone();
        let yields = rng.lock().unwrap().below(8);
        async move {
            yield_times(yields).await;
            let call = format!("call-{}", req.session_id);
            let answer = client
                .request::<SessionRequestPermission>(&permission(req.session_id.as_str(), &call))
                .await
                .map_err(|e| e.to_error_object())?;
            let expected = RequestPermissionOutcome::selected(format!("allow-{call}"));
            if answer.outcome != expected {
                return Err(ErrorObject::internal_error(format_args!(
                    "answer mixed up: {:?}",
                    answer.outcome
                )));
            }
            Ok(PromptResponse::new(StopReason::EndTurn))
        }
    })
}

/// Runs `CALLS` prompts (each asking the client back) and `CALLS` permission requests from the
/// agent, all at once.
async fn many_calls_both_ways(lb: &Loopback) {
    const CALLS: usize = 120;
    let (agent, client) = (lb.to_agent(), lb.to_client());
    let prompts = (0..CALLS).map(|s| {
        let agent = agent.clone();
        async move {
            let response = agent
                .request::<SessionPrompt>(&prompt(&format!("s{s}")))
                .await
                .unwrap();
            assert_eq!(response.stop_reason, StopReason::EndTurn);
        }
    });
    let asks = (0..CALLS).map(|j| {
        let client = client.clone();
        async move {
            let call = format!("direct-{j}");
            let answer = client
                .request::<SessionRequestPermission>(&permission("s", &call))
                .await
                .unwrap();
            assert_eq!(
                answer.outcome,
                RequestPermissionOutcome::selected(format!("allow-{call}"))
            );
        }
    });
    let prompts = tokio::spawn(join_all(prompts));
    let asks = tokio::spawn(join_all(asks));
    guard("the prompts", prompts).await.unwrap();
    guard("the permission requests", asks).await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn many_concurrent_requests_in_both_directions() {
    let lb = Loopback::new(|client| asking_agent(client, 3), |_| allowing_client(5));
    many_calls_both_ways(&lb).await;
    let checked = lb.shutdown().await;
    // 120 prompts + 240 permission answers one way; 240 permission requests + 120 answers back.
    assert_eq!(checked, [360, 360]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_requests_in_both_directions_on_many_threads() {
    let lb = Loopback::new(|client| asking_agent(client, 13), |_| allowing_client(17));
    many_calls_both_ways(&lb).await;
    lb.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn content_length_framing_carries_calls_both_ways() {
    let config = Config::default().framing(FramingMode::ContentLength);
    let lb = Loopback::with_configs(
        |client| asking_agent(client, 1),
        config.clone(),
        |_| allowing_client(2),
        config,
    );
    for s in 0..3 {
        let response = guard(
            "a prompt",
            lb.to_agent()
                .request::<SessionPrompt>(&prompt(&format!("s{s}"))),
        )
        .await
        .unwrap();
        assert_eq!(response.stop_reason, StopReason::EndTurn);
    }
    let framing = *lb.wire.log().framing.lock().unwrap();
    assert_eq!(framing, [Some(Framing::ContentLength); 2]);
    assert_eq!(lb.shutdown().await, [6, 6]);
}

#[tokio::test(flavor = "current_thread")]
async fn auto_framing_answers_in_the_callers_framing_both_ways() {
    for framing in [FramingMode::ContentLength, FramingMode::Ndjson] {
        let lb = Loopback::with_configs(
            |client| asking_agent(client, 1),
            Config::default().framing(FramingMode::Auto),
            |_| allowing_client(2),
            Config::default().framing(framing),
        );
        let response = guard(
            "a prompt",
            lb.to_agent().request::<SessionPrompt>(&prompt("s")),
        )
        .await
        .unwrap();
        assert_eq!(response.stop_reason, StopReason::EndTurn);
        let expected = match framing {
            FramingMode::ContentLength => Framing::ContentLength,
            _ => Framing::Ndjson,
        };
        let seen = *lb.wire.log().framing.lock().unwrap();
        assert_eq!(seen, [Some(expected); 2], "with a {framing} client");
        assert_eq!(lb.shutdown().await, [2, 2]);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn updates_sent_from_many_tasks_keep_each_tasks_order() {
    const TASKS: usize = 8;
    const UPDATES: usize = 200;
    let next = Arc::new(Mutex::new(vec![0usize; TASKS]));
    let (handled_tx, mut handled) = mpsc::unbounded_channel();
    let lb = Loopback::new(|_client| Router::new(), {
        let next = next.clone();
        move |_agent| {
            Router::new().notification::<SessionUpdate, _, _>(move |update| {
                let s: usize = update.session_id.as_str()[1..].parse().unwrap();
                let mut next = next.lock().unwrap();
                assert_eq!(
                    chunk_text(&update),
                    next[s].to_string(),
                    "task {s} out of order"
                );
                next[s] += 1;
                let _ = handled_tx.send(());
                async {}
            })
        }
    });
    let senders = (0..TASKS).map(|s| {
        let client = lb.to_client();
        tokio::spawn(async move {
            for i in 0..UPDATES {
                client
                    .notify::<SessionUpdate>(&chunk(&format!("s{s}"), i.to_string()))
                    .await
                    .unwrap();
                yield_times((i % 3) as u64).await;
            }
        })
    });
    for sender in guard("the senders", join_all(senders)).await {
        sender.unwrap();
    }
    for _ in 0..TASKS * UPDATES {
        guard("an update", handled.recv()).await.unwrap();
    }
    assert_eq!(*next.lock().unwrap(), vec![UPDATES; TASKS]);
    assert_eq!(lb.shutdown().await, [0, TASKS * UPDATES]);
}

/// Messages of several MiB, each after and before small ones, both ways and in both framings:
/// each arrives whole and in order (a large message into an empty outgoing buffer becomes the
/// buffer itself on an NDJSON stream; into a non-empty one, or framed with Content-Length, it
/// is copied).
#[tokio::test(flavor = "current_thread")]
async fn messages_of_several_mib_arrive_whole_between_small_ones() {
    const BIG: usize = 3 * 1024 * 1024;
    for framing in [FramingMode::Ndjson, FramingMode::ContentLength] {
        let (seen_tx, mut seen_rx) = mpsc::unbounded_channel::<String>();
        let lb = Loopback::with_configs(
            |client| {
                Router::new().request::<SessionPrompt, _, _>(move |req| {
                    let client = client.clone();
                    async move {
                        // Small, big, small, big: the updates and then the answer.
                        for text in ["a".to_owned(), "b".repeat(BIG), "c".to_owned()] {
                            client
                                .notify::<SessionUpdate>(&chunk(&req.session_id.0, text))
                                .await
                                .expect("sending an update");
                        }
                        Ok(PromptResponse::new(StopReason::EndTurn))
                    }
                })
            },
            Config::default().framing(framing),
            move |_agent| {
                Router::new().notification::<SessionUpdate, _, _>(move |update| {
                    let _ = seen_tx.send(chunk_text(&update));
                    async {}
                })
            },
            Config::default().framing(framing),
        );
        let agent = lb.to_agent();
        let big_prompt = PromptRequest::new("s", vec!["p".repeat(BIG).into()]);
        let small_prompt = prompt("s");
        let (small, big) = tokio::join!(
            agent.request::<SessionPrompt>(&small_prompt),
            agent.request::<SessionPrompt>(&big_prompt),
        );
        assert_eq!(
            small.expect("the small prompt").stop_reason,
            StopReason::EndTurn
        );
        assert_eq!(
            big.expect("the big prompt").stop_reason,
            StopReason::EndTurn
        );
        let mut texts = Vec::new();
        for _ in 0..6 {
            texts.push(guard("an update", seen_rx.recv()).await.expect("an update"));
        }
        // Every update whole; the two turns may interleave, but each sends `a` first and `c`
        // last.
        let count = |wanted: &str| texts.iter().filter(|t| *t == wanted).count();
        assert_eq!(count("a"), 2, "{framing:?}");
        assert_eq!(
            count(&"b".repeat(BIG)),
            2,
            "{framing:?}: the big updates whole"
        );
        assert_eq!(count("c"), 2, "{framing:?}");
        assert_eq!(texts[0], "a", "{framing:?}");
        assert_eq!(texts[5], "c", "{framing:?}");
        lb.shutdown().await;
    }
}
