//! The rules of a v2 connection (feature `unstable_protocol_v2`): once the connection knows it
//! speaks v2, a request id `null` is refused; a batch is refused on every version.

use crate::common;

use acp_rpc::{Config, Router};
use acp_types::methods::Initialize;
use acp_types::{InitializeResponse, ProtocolVersion};
use common::{RawWire, error_code, guard};
use serde_json::{Value, json};

fn router() -> Router {
    Router::new().request::<Initialize, _, _>(|req| async move {
        Ok(InitializeResponse::new(req.protocol_version))
    })
}

fn initialize(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {"protocolVersion": 1}})
}

#[tokio::test(flavor = "current_thread")]
async fn null_ids_are_refused_once_the_connection_speaks_v2() {
    let (peer_tx, peer_rx) = std::sync::mpsc::channel();
    let mut t = RawWire::new(
        move |peer| {
            peer_tx.send(peer).expect("the test waits for the peer");
            router()
        },
        Config::default(),
    );
    let peer = peer_rx.recv().expect("connect builds the handler at once");
    assert_eq!(peer.protocol_version(), None);

    // Before the version is settled, v1's rules: an id `null` is an id like any other.
    t.raw.send(initialize(Value::Null)).await;
    let reply = guard("the v1 answer", t.raw.recv()).await;
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(reply["result"]["protocolVersion"], 1, "{reply}");

    peer.set_protocol_version(ProtocolVersion(2));
    assert_eq!(peer.protocol_version(), Some(ProtocolVersion(2)));

    // On v2: refused with -32600 and id null, and nothing reaches the handler.
    t.raw.send(initialize(Value::Null)).await;
    let reply = guard("the refusal", t.raw.recv()).await;
    assert_eq!(error_code(&reply), Some(-32600), "{reply}");
    assert_eq!(reply["id"], Value::Null, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("null") && message.contains('2'), "{reply}");

    // A batch: the same error as on v1.
    t.raw
        .send_raw(format!("[{}]\n", initialize(json!(7))))
        .await;
    let reply = guard("the batch refusal", t.raw.recv()).await;
    assert_eq!(error_code(&reply), Some(-32600), "{reply}");
    assert_eq!(reply["id"], Value::Null, "{reply}");

    // Other ids are served as before, and the connection goes on.
    t.raw.send(initialize(json!("s"))).await;
    let reply = guard("the v2 answer", t.raw.recv()).await;
    assert_eq!(reply["id"], "s", "{reply}");
    assert!(reply.get("result").is_some(), "{reply}");
    t.raw.send(initialize(json!(8))).await;
    let reply = guard("the numeric id's answer", t.raw.recv()).await;
    assert_eq!(reply["id"], 8, "{reply}");

    // A notification has no id: unaffected.
    assert_eq!(t.shutdown().await, 5);
}
