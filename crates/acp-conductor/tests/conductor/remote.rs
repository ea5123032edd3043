//! A chain served over WebSocket: the demo's bridge runs one conductor per connection (`bridge
//! --listen ADDR -- acp conduct -- …`; here the test program's `conduct` mode stands in for
//! `acp conduct`, which is another package's program).

use std::process::Stdio;

use acp_testkit::Spec;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_tungstenite::tungstenite::Message;

use crate::common::{agent, chain_proxy, demo_program, proxy, token, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_serves_a_chain_over_websocket() {
    let t = token("bridge");
    let quoted = |component: acp_conductor::Component| {
        let words: Vec<String> = std::iter::once(component.program())
            .chain(component.args().iter().map(|a| a.as_os_str()))
            .map(|word| format!("'{}'", word.to_string_lossy()))
            .collect();
        words.join(" ")
    };
    let mut bridge = tokio::process::Command::new(demo_program("bridge"))
        .args(["--listen", "127.0.0.1:0", "--"])
        .arg(chain_proxy())
        .arg("conduct")
        .arg(quoted(proxy(&t, &["inject", "over the wire"])))
        .arg(quoted(agent(&t)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the bridge");
    // It says where it serves on stderr: `bridge: serving ACP on http://ADDR/acp …`.
    let mut lines = BufReader::new(bridge.stderr.take().expect("piped")).lines();
    let url = within("the bridge's address", async {
        loop {
            let line = lines.next_line().await.expect("stderr").expect("a line");
            if let Some(rest) = line.split("serving ACP on ").nth(1) {
                let http = rest.split_whitespace().next().expect("a URL");
                return http.replacen("http", "ws", 1);
            }
        }
    })
    .await;
    // The rest of its log is read on, so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let (mut ws, _) = within(
        "the WebSocket handshake",
        tokio_tungstenite::connect_async(url),
    )
    .await
    .expect("a WebSocket connection");
    let spec = Spec::load();

    let mut next_reply = async |request: Value| -> (Value, Vec<Value>) {
        spec.assert_valid_message(&request);
        ws.send(Message::text(request.to_string()))
            .await
            .expect("send");
        let mut notifications = Vec::new();
        loop {
            let frame = within("a reply", ws.next())
                .await
                .expect("the connection is open")
                .expect("a frame");
            let Message::Text(text) = frame else { continue };
            let message: Value = serde_json::from_str(&text).expect("JSON");
            spec.assert_valid_message(&message);
            if message.get("id") == request.get("id") && message.get("method").is_none() {
                return (message, notifications);
            }
            notifications.push(message);
        }
    };
    let (init, _) = next_reply(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": 1}}))
    .await;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    let (session, _) = next_reply(json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
        "params": {"cwd": "/tmp", "mcpServers": []}}))
    .await;
    let session_id = session["result"]["sessionId"].clone();
    let (done, updates) = next_reply(
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
        "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "hello"}]}}),
    )
    .await;
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert!(updates.iter().any(|u| u["method"] == "session/update"));
    // The proxy's context reached the agent, which quotes the prompt's text in its reply.
    let reply: String = updates
        .iter()
        .filter(|u| u["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["params"]["update"]["content"]["text"].as_str())
        .collect();
    assert!(reply.contains("over the wire\nhello"), "{reply}");
    drop(ws);
    let _ = bridge.start_kill();
    let _ = within("the bridge's exit", bridge.wait()).await;
}
