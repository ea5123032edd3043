//! What the tests that spawn agents share.

#![allow(dead_code)] // Each test binary uses a part.

use std::time::Duration;

use acp_client::Client;
use acp_types::*;

/// Bounds every wait of these tests, so that a regression fails instead of hanging.
pub(crate) const DEADLINE: Duration = Duration::from_secs(30);

/// A client that takes every update and cancels every permission request: for tests about the
/// process and the pipes, not the protocol.
pub(crate) struct Quiet;

#[acp_client::async_trait]
impl Client for Quiet {
    async fn request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, ErrorObject> {
        Ok(RequestPermissionResponse::cancelled())
    }
    async fn session_notification(&self, _: SessionNotification) -> Result<(), ErrorObject> {
        Ok(())
    }
}

/// True while `pid` runs (a zombie waiting for its reaper counts as gone).
pub(crate) fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => rustix::process::Pid::from_raw(pid)
            .is_some_and(|pid| rustix::process::test_kill_process(pid).is_ok()),
    }
}
