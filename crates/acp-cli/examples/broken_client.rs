//! A small, raw ACP client for the tests of `acp check client`: correct by default, with one
//! deliberate defect chosen by `--defect NAME`.
//!
//! `broken_client [--defect NAME] [--confine] -- AGENT ARGS…` spawns the agent, initializes
//! (offering fs read and write, and taking compaction updates and notices), opens a session in its working directory and sends one
//! prompt. Like a user who does not answer, it leaves permission requests pending; after a
//! second of turn it cancels, answering them `cancelled` as the spec requires.
//!
//! With `--confine` it behaves as an editor should: the session's cwd is a `project`
//! directory of its own (not its working directory), files and terminals (offered too) are
//! confined to it, and a request for anything outside is refused.
//!
//! Defects: `reject-unknown-update` (quits on an update kind it does not know),
//! `write-outside` (writes files into the parent of the directory it was asked to),
//! `forget-pending` (cancels without answering the pending permission requests),
//! `quit-on-notice` (advertises `session.notices`, then quits on a notice).

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
    "compaction_update",
    "compaction_summary_chunk",
    "notice",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(split) = args.iter().position(|a| a == "--") else {
        eprintln!("usage: broken_client [--defect NAME] [--confine] -- AGENT ARGS...");
        return ExitCode::from(2);
    };
    let agent = args[split + 1..].to_vec();
    let (mut defect, mut confine) = (None, false);
    let mut flags = args[..split].iter();
    while let Some(flag) = flags.next() {
        match flag.as_str() {
            "--defect" => defect = flags.next().cloned(),
            "--confine" => confine = true,
            other => {
                eprintln!("broken_client: unexpected argument {other}");
                return ExitCode::from(2);
            }
        }
    }
    let reject_unknown = defect.as_deref() == Some("reject-unknown-update");
    let quit_on_notice = defect.as_deref() == Some("quit-on-notice");
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
    let mut cwd = std::env::current_dir().unwrap_or_default();
    if confine {
        cwd.push("project");
        if let Err(e) = std::fs::create_dir_all(&cwd) {
            eprintln!("broken_client: cannot make {}: {e}", cwd.display());
            return ExitCode::from(2);
        }
    }
    let mut terminals = Terminals::default();
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": confine,
            "session": {"compaction": {}, "notices": {}}},
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
                if quit_on_notice && kind == "notice" {
                    eprintln!("broken_client: a notice, quitting");
                    return ExitCode::from(1);
                }
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
            (Some(method), Some(id))
                if confine && !inside(&cwd, params["path"].as_str().or(params["cwd"].as_str())) =>
            {
                send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32002,
                    "message": format!("`{method}` outside the session's cwd")}}));
            }
            (Some(method), Some(id)) if confine && method.starts_with("terminal/") => {
                let result = terminals.serve(method, params, &cwd);
                send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
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

/// Whether `path` (when given) is inside `dir`, without `..` to climb out.
fn inside(dir: &std::path::Path, path: Option<&str>) -> bool {
    path.is_none_or(|path| {
        let path = std::path::Path::new(path);
        path.starts_with(dir)
            && !path
                .components()
                .any(|c| c == std::path::Component::ParentDir)
    })
}

/// The terminals of `--confine`: each command runs to its end at `terminal/create`, its
/// output kept until `terminal/release`.
#[derive(Default)]
struct Terminals {
    next: usize,
    done: std::collections::HashMap<String, (String, Option<i32>)>,
}

impl Terminals {
    /// The result of the `terminal/*` request `method` (an empty one for an unknown terminal).
    fn serve(&mut self, method: &str, params: &Value, cwd: &std::path::Path) -> Value {
        let id = params["terminalId"].as_str().unwrap_or_default();
        match method {
            "terminal/create" => {
                let args: Vec<&str> = params["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let ran = Command::new(params["command"].as_str().unwrap_or_default())
                    .args(args)
                    .current_dir(params["cwd"].as_str().map_or(cwd, std::path::Path::new))
                    .stdin(Stdio::null())
                    .output();
                let done = match ran {
                    Ok(out) => (
                        String::from_utf8_lossy(&out.stdout).into_owned(),
                        out.status.code(),
                    ),
                    Err(e) => (e.to_string(), Some(127)),
                };
                self.next += 1;
                let id = format!("t{}", self.next);
                self.done.insert(id.clone(), done);
                json!({"terminalId": id})
            }
            "terminal/wait_for_exit" => {
                let code = self.done.get(id).and_then(|(_, code)| *code);
                json!({"exitCode": code, "signal": null})
            }
            "terminal/output" => {
                let (output, code) = self.done.get(id).cloned().unwrap_or_default();
                json!({"output": output, "truncated": false,
                    "exitStatus": {"exitCode": code, "signal": null}})
            }
            "terminal/release" => {
                self.done.remove(id);
                json!({})
            }
            // `terminal/kill`: the command has ended already.
            _ => json!({}),
        }
    }
}
