//! What every acp-http test shares: the hang guard and the schema check.

use std::time::Duration;

use serde_json::Value;

/// How long any wait may take before the test is declared hung.
pub const HANG_GUARD: Duration = Duration::from_secs(10);

/// Awaits `fut`, failing the test if it takes longer than [`HANG_GUARD`].
pub async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(HANG_GUARD, fut).await {
        Ok(output) => output,
        Err(_) => panic!("hang: {what} did not finish within {HANG_GUARD:?}"),
    }
}

/// Checks a JSON-RPC message against the specification (the official one, or outside CI the
/// repository's generated schema).
pub fn check(message: &Value) {
    check_version(message, 1);
}

/// Checks a JSON-RPC message against the specification of protocol `version`: 1, or 2 (the
/// v2 draft, feature `unstable_protocol_v2`).
pub fn check_version(message: &Value, version: u16) {
    let spec = match version {
        1 => acp_testkit::Spec::load(),
        2 => acp_testkit::Spec::load_v2(),
        other => panic!("no specification of protocol version {other}"),
    };
    if let Err(e) = spec.check_message(message) {
        panic!("message rejected by the v{version} schema: {e}\n{message}");
    }
}
