//! A small, raw ACP client for the tests of `acp check client`: correct by default, with one
//! deliberate defect chosen by `--defect NAME`.
//!
//! `broken_client [--defect NAME] -- AGENT ARGS…` spawns the agent, initializes (offering fs
//! read and write), opens a session in its working directory and sends one prompt. Like a
//! user who does not answer, it leaves permission requests pending; after a second of turn it
//! cancels, answering them `cancelled` as the spec requires.
//!
//! Defects: `reject-unknown-update` (quits on an update kind it does not know),
//! `write-outside` (writes files into the parent of the directory it was asked to),
//! `forget-pending` (cancels without answering the pending permission requests).

#![allow(clippy::print_stderr)] // Usage errors go to stderr.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const KNOWN_UPDATES: &[&str] = &[
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (defect, agent) = match args.iter().position(|a| a == "--") {
        Some(i) => (args[..i].get(1).cloned(), args[i + 1..].to_vec()),
        None => {
            eprintln!("usage: broken_client [--defect NAME] -- AGENT ARGS...");
            return ExitCode::from(2);
        }
    };
    let reject_unknown = defect.as_deref() == Some("reject-unknown-update");
    let write_outside = defect.as_deref() == Some("write-outside");
    let forget_pending = defect.as_deref() == Some("forget-pending");
    let Some((program, agent_args)) = agent.split_first() else {
        return ExitCode::from(2);
    };
    let Ok(mut child) = Command::new(program)
        .args(agent_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        eprintln!("broken_client: cannot start the agent");
        return ExitCode::from(2);
    };
    let mut to_agent = child.stdin.take().expect("piped");
    let from_agent = BufReader::new(child.stdout.take().expect("piped"));
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in from_agent.lines() {
            let Ok(line) = line else { break };
            if let Ok(value) = serde_json::from_str(&line) {
                if tx.send(value).is_err() {
                    break;
                }
            }
        }
    });
    let mut send = |message: Value| {
        let _ = writeln!(to_agent, "{message}");
        let _ = to_agent.flush();
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false},
        "clientInfo": {"name": "broken-client", "version": "0.0.0"}}}),
    );
    let mut session = None;
    let mut turn_started = None;
    let mut held: Vec<Value> = Vec::new();
    let mut cancelled = false;
    loop {
        if let (Some(started), false) = (turn_started, cancelled) {
            if Instant::now().duration_since(started) > Duration::from_secs(1) {
                cancelled = true;
                send(
                    json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}),
                );
                for id in held.drain(..) {
                    if forget_pending {
                        continue;
                    }
                    send(
                        json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "cancelled"}}}),
                    );
                }
            }
        }
        let message = match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(message) => message,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => return ExitCode::from(1),
        };
        let id = message.get("id").cloned();
        let params = &message["params"];
        match (message["method"].as_str(), id) {
            (None, Some(id)) if id == json!(0) => {
                send(json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
                    "params": {"cwd": cwd, "mcpServers": []}}));
            }
            (None, Some(id)) if id == json!(1) => {
                session = message["result"]["sessionId"].as_str().map(str::to_owned);
                turn_started = Some(Instant::now());
                send(
                    json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                    "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}}),
                );
            }
            (None, Some(id)) if id == json!(2) => break,
            (Some("session/update"), None) => {
                let kind = params["update"]["sessionUpdate"]
                    .as_str()
                    .unwrap_or_default();
                if reject_unknown && !KNOWN_UPDATES.contains(&kind) {
                    eprintln!("broken_client: unknown update kind {kind}");
                    return ExitCode::from(1);
                }
            }
            (Some("session/request_permission"), Some(id)) => {
                if cancelled {
                    send(
                        json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "cancelled"}}}),
                    );
                } else {
                    held.push(id);
                }
            }
            (Some("fs/read_text_file"), Some(id)) => {
                let path = params["path"].as_str().unwrap_or_default();
                match std::fs::read_to_string(path) {
                    Ok(content) => {
                        send(json!({"jsonrpc": "2.0", "id": id, "result": {"content": content}}))
                    }
                    Err(e) => send(json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32002, "message": e.to_string()}})),
                }
            }
            (Some("fs/write_text_file"), Some(id)) => {
                let mut path =
                    std::path::PathBuf::from(params["path"].as_str().unwrap_or_default());
                if write_outside {
                    let name = path
                        .file_name()
                        .map(std::ffi::OsStr::to_owned)
                        .unwrap_or_default();
                    path.pop();
                    path.pop();
                    path.push(name);
                }
                let content = params["content"].as_str().unwrap_or_default();
                match std::fs::write(&path, content) {
                    Ok(()) => send(json!({"jsonrpc": "2.0", "id": id, "result": {}})),
                    Err(e) => send(json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32603, "message": e.to_string()}})),
                }
            }
            (Some(_), Some(id)) => send(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "method not found"}})),
            _ => {}
        }
    }
    drop(to_agent);
    let _ = child.wait();
    ExitCode::SUCCESS
}
