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
    if let Err(e) = acp_testkit::Spec::load().check_message(message) {
        panic!("message rejected by the schema: {e}\n{message}");
    }
}
