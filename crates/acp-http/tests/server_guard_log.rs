//! Refused origins are logged, within bounds: the first at info level, the others at debug,
//! truncated. In a test binary of its own: tracing caches which callsites are enabled across
//! threads, and a test running in parallel on a thread without this test's subscriber could
//! make the info callsite look disabled.

mod common;

use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use acp_http::server::ServerOptions;
use common::{Answer, Raw, TestServer};
use serde_json::json;

async fn post_initialize(t: &TestServer, headers: &[(&str, &str)]) -> Answer {
    Raw::new(&t.url)
        .post(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
            headers,
        )
        .await
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<(tracing::Level, String)>>>);

impl Captured {
    fn lines(&self) -> Vec<(tracing::Level, String)> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={:?} ", field.name(), value);
    }
}

impl tracing::Subscriber for Captured {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((*event.metadata().level(), fields.0));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

// One thread: the server's tasks run where the capturing subscriber is the default.
#[tokio::test(flavor = "current_thread")]
async fn refused_origins_are_logged_bounded() {
    let captured = Captured::default();
    let _default = tracing::subscriber::set_default(captured.clone());
    let t =
        TestServer::start(ServerOptions::default().allow_origin("https://editor.example")).await;
    let first = post_initialize(&t, &[("origin", "https://evil.example")]).await;
    assert_eq!(first.status, 403);
    let long = format!("https://{}.example", "a".repeat(5000));
    let second = post_initialize(&t, &[("origin", &long)]).await;
    assert_eq!(second.status, 403);
    t.stop().await;

    let refusals: Vec<_> = captured
        .lines()
        .into_iter()
        .filter(|(_, line)| line.contains("refused"))
        .collect();
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert_eq!(refusals[0].0, tracing::Level::INFO, "{refusals:?}");
    assert!(
        refusals[0].1.contains("https://evil.example"),
        "{refusals:?}"
    );
    assert_eq!(refusals[1].0, tracing::Level::DEBUG, "later ones: debug");
    assert!(refusals[1].1.contains('…'), "truncated: {refusals:?}");
    assert!(
        refusals[1].1.len() < 400,
        "bounded: {}",
        refusals[1].1.len()
    );
}
