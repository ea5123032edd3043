//! A small, raw ACP agent for the tests of `acp check agent`: correct by default, with one
//! deliberate defect chosen by `--defect NAME`, so that the tests can show each defect is
//! caught by the right case and only by it.
//!
//! It speaks NDJSON on stdio with nothing but `serde_json` and threads. A prompt whose text is
//! `slow` streams an update every 50 ms for two seconds (something to cancel); any other prompt
//! gets two updates (and a notice, if the client advertised `session.notices`) and ends
//! `end_turn`.
//!
//! Defects: `early-response` (a prompt is answered before its updates), `ignore-cancel`,
//! `updates-after-cancel` (a cancelled turn goes on sending updates after its answer),
//! `die-on-invalid-json`, `invalid-update` (an update that breaks the schema),
//! `double-answer` (`session/new` answered twice), `wrong-id` (every answer carries an id
//! the client never sent), `no-exit` (keeps running when stdin closes), `unadvertised-notice`
//! (the notice goes to a client that did not advertise `session.notices` too).

#![allow(clippy::print_stderr)] // Usage errors and its log go to stderr.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Defect {
    None,
    EarlyResponse,
    IgnoreCancel,
    UpdatesAfterCancel,
    DieOnInvalidJson,
    InvalidUpdate,
    DoubleAnswer,
    WrongId,
    NoExit,
    UnadvertisedNotice,
}

type Out = Arc<Mutex<std::io::Stdout>>;

fn send(out: &Out, message: &Value) {
    let mut out = out
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let _ = writeln!(out, "{message}");
    let _ = out.flush();
}

fn reply(out: &Out, id: &Value, result: Value) {
    send(out, &json!({"jsonrpc": "2.0", "id": id, "result": result}));
}

fn error(out: &Out, id: &Value, code: i64, message: &str) {
    send(
        out,
        &json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
    );
}

fn update(session: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session,
        "update": {"sessionUpdate": "agent_message_chunk",
                   "content": {"type": "text", "text": text}}}})
}

/// One session: whether a turn runs and whether it was cancelled.
#[derive(Default)]
struct Session {
    busy: Arc<AtomicBool>,
    cancelled: Arc<AtomicBool>,
}

fn main() -> ExitCode {
    let defect = match std::env::args().nth(1).as_deref() {
        None => Defect::None,
        Some("--defect") => match std::env::args().nth(2).as_deref() {
            Some("early-response") => Defect::EarlyResponse,
            Some("ignore-cancel") => Defect::IgnoreCancel,
            Some("updates-after-cancel") => Defect::UpdatesAfterCancel,
            Some("wrong-id") => Defect::WrongId,
            Some("die-on-invalid-json") => Defect::DieOnInvalidJson,
            Some("invalid-update") => Defect::InvalidUpdate,
            Some("double-answer") => Defect::DoubleAnswer,
            Some("no-exit") => Defect::NoExit,
            Some("unadvertised-notice") => Defect::UnadvertisedNotice,
            other => {
                eprintln!("broken_agent: unknown defect {other:?}");
                return ExitCode::from(2);
            }
        },
        Some(other) => {
            eprintln!("broken_agent: unexpected argument {other}");
            return ExitCode::from(2);
        }
    };
    eprintln!("broken_agent: started (this line is on stderr, not protocol)");
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let mut sessions: HashMap<String, Session> = HashMap::new();
    let mut initialized = false;
    // Whether the client advertised `session.notices` (present and not null).
    let mut notices = false;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(_) if defect == Defect::DieOnInvalidJson => return ExitCode::from(3),
            Err(_) => {
                error(&out, &Value::Null, -32700, "parse error");
                continue;
            }
        };
        if !message.is_object() {
            error(&out, &Value::Null, -32600, "invalid request: not an object");
            continue;
        }
        let Some(method) = message["method"].as_str() else {
            continue; // A response to a request of ours (we send none).
        };
        let params = &message["params"];
        let Some(id) = message.get("id").map(|id| match defect {
            // An id of its own making, as an agent that loses track of ids would answer.
            Defect::WrongId => json!(format!("wrong-{id}")),
            _ => id.clone(),
        }) else {
            if method == "session/cancel" {
                if let Some(s) = params["sessionId"].as_str().and_then(|s| sessions.get(s)) {
                    s.cancelled.store(true, Ordering::SeqCst);
                }
            }
            continue;
        };
        if method != "initialize" && !initialized {
            error(&out, &id, -32600, "initialize first");
            continue;
        }
        match method {
            "initialize" => {
                initialized = true;
                let advertised = &params["clientCapabilities"]["session"]["notices"];
                notices = !advertised.is_null() || defect == Defect::UnadvertisedNotice;
                let result = json!({"protocolVersion": 1, "agentCapabilities": {},
                    "agentInfo": {"name": "broken-agent", "version": "0.0.0"}});
                reply(&out, &id, result);
            }
            "session/new" => {
                if !params["cwd"].is_string() || !params["mcpServers"].is_array() {
                    error(&out, &id, -32602, "invalid params");
                    continue;
                }
                let name = format!("s{}", sessions.len() + 1);
                sessions.insert(name.clone(), Session::default());
                reply(&out, &id, json!({"sessionId": name}));
                if defect == Defect::DoubleAnswer {
                    reply(&out, &id, json!({"sessionId": name}));
                }
            }
            "session/prompt" => {
                let name = params["sessionId"].as_str().unwrap_or_default().to_owned();
                let Some(session) = sessions.get(&name) else {
                    error(&out, &id, -32002, "no such session");
                    continue;
                };
                if session.busy.swap(true, Ordering::SeqCst) {
                    error(&out, &id, -32600, "a turn is already running");
                    continue;
                }
                session.cancelled.store(false, Ordering::SeqCst);
                let text = params["prompt"][0]["text"].as_str().unwrap_or_default();
                let slow = text == "slow";
                let (out, busy, cancelled) =
                    (out.clone(), session.busy.clone(), session.cancelled.clone());
                let turn_of = Turn {
                    slow,
                    notice: notices,
                    defect,
                };
                std::thread::spawn(move || turn(&out, &id, &name, turn_of, &cancelled, &busy));
            }
            other if other.starts_with('_') => error(&out, &id, -32601, "method not found"),
            _ => error(&out, &id, -32601, "method not found"),
        }
    }
    if defect == Defect::NoExit {
        loop {
            std::thread::sleep(Duration::from_secs(60));
        }
    }
    ExitCode::SUCCESS
}

/// What a turn does: stream slowly, send a notice, which defect it has.
#[derive(Clone, Copy)]
struct Turn {
    slow: bool,
    notice: bool,
    defect: Defect,
}

fn turn(
    out: &Out,
    id: &Value,
    session: &str,
    Turn {
        slow,
        notice,
        defect,
    }: Turn,
    cancelled: &AtomicBool,
    busy: &AtomicBool,
) {
    // The turn is over before its answer goes out, so a prompt sent right after is taken.
    let end = |reason: &str| {
        busy.store(false, Ordering::SeqCst);
        reply(out, id, json!({"stopReason": reason}));
    };
    if !slow {
        if defect == Defect::EarlyResponse {
            end("end_turn");
        }
        send(out, &update(session, "Hello"));
        if notice {
            send(
                out,
                &json!({"jsonrpc": "2.0", "method": "session/update", "params":
                {"sessionId": session, "update": {"sessionUpdate": "notice",
                 "severity": "info", "title": "A notice of the broken agent"}}}),
            );
        }
        if defect == Defect::InvalidUpdate {
            send(
                out,
                &json!({"jsonrpc": "2.0", "method": "session/update", "params":
                {"sessionId": session, "update": {"sessionUpdate": "agent_message_chunk",
                 "content": {"type": "text"}}}}),
            );
        } else {
            send(out, &update(session, " world."));
        }
        if defect != Defect::EarlyResponse {
            end("end_turn");
        }
        return;
    }
    for _ in 0..40 {
        if cancelled.load(Ordering::SeqCst) && defect != Defect::IgnoreCancel {
            end("cancelled");
            if defect == Defect::UpdatesAfterCancel {
                for _ in 0..5 {
                    send(out, &update(session, "late"));
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            return;
        }
        send(out, &update(session, "."));
        std::thread::sleep(Duration::from_millis(50));
    }
    end("end_turn");
}
