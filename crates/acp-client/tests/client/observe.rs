//! A client observes the traffic with a spawned agent: every message, both ways, as sent and
//! received, which is how it logs or validates what it exchanges.
#![cfg(unix)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_client::{ClientOptions, Direction, SpawnOptions, Stderr, spawn};
use acp_types::*;
use serde_json::Value;

use common::{DEADLINE, Quiet};

#[tokio::test(flavor = "current_thread")]
async fn a_spawned_agents_traffic_is_observed_both_ways_and_valid() {
    // A scripted agent: answers `initialize`, then `session/new` after an update for a session
    // the client does not know (dropped by the client, but observed: it was received).
    let script = r#"
        read -r line
        echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'
        read -r line
        echo '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"other","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}'
        echo '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess-1"}}'
        read -r line
    "#;
    let seen = Arc::new(Mutex::new(Vec::<(Direction, Value)>::new()));
    let log = seen.clone();
    let options = ClientOptions::default().observe(move |direction, body| {
        let message = serde_json::from_slice(body).expect("a JSON body");
        log.lock().unwrap().push((direction, message));
    });
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(script);
    let mut spawned = spawn(
        command,
        |_agent| Quiet,
        SpawnOptions::default()
            .client(options)
            .stderr(Stderr::Inherit),
    )
    .expect("sh starts");
    let driver = tokio::spawn(spawned.driver);
    tokio::time::timeout(DEADLINE, async {
        spawned
            .agent
            .initialize(InitializeRequest::new(ProtocolVersion::V1))
            .await
            .expect("initialize");
        let session = spawned
            .agent
            .new_session(NewSessionRequest::new("/tmp", Vec::<McpServer>::new()))
            .await
            .expect("session/new");
        assert_eq!(session.session_id.as_str(), "sess-1");
    })
    .await
    .expect("in time");
    let seen = seen.lock().unwrap().clone();
    let methods: Vec<(Direction, Option<&str>)> = seen
        .iter()
        .map(|(d, m)| (*d, m["method"].as_str()))
        .collect();
    assert_eq!(
        methods,
        [
            (Direction::Sent, Some("initialize")),
            (Direction::Received, None),
            (Direction::Sent, Some("session/new")),
            (Direction::Received, Some("session/update")),
            (Direction::Received, None),
        ]
    );
    let spec = acp_testkit::Spec::load();
    for (_, message) in &seen {
        spec.assert_valid_message(message);
    }
    spawned
        .process
        .shutdown(Duration::from_secs(5))
        .await
        .expect("the agent stops");
    driver.abort();
}
