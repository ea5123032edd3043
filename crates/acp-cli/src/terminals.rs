//! The terminals the checker, playing the client, runs for an agent (`terminal/*`): the
//! library's [`acp_client::Terminals`] (each command in its own process group, output and
//! number of terminals bounded, scoped to the session), served on the raw messages the checker
//! works with. Dropping them kills their commands.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use acp_types::*;
use serde_json::Value;

use crate::answer::{Answer, answer, typed_params};

/// How long `terminal/wait_for_exit` may wait before the checker gives up on the command.
const WAIT_LIMIT: Duration = Duration::from_secs(60);

/// The terminals of one connection.
#[derive(Debug, Default)]
pub(crate) struct Terminals(Arc<acp_client::Terminals>);

impl Terminals {
    /// `terminal/create`: starts the command in `cwd` (checked to be in the sandbox by the
    /// caller).
    pub(crate) fn create(&self, request: &Value, cwd: &Path) -> Answer {
        let request: CreateTerminalRequest =
            typed_params(methods::client::TERMINAL_CREATE, request)?;
        answer(self.0.create(&request, cwd))
    }

    /// `terminal/output`.
    pub(crate) fn output(&self, request: &Value) -> Answer {
        answer(
            self.0
                .output(&typed_params(methods::client::TERMINAL_OUTPUT, request)?),
        )
    }

    /// `terminal/kill`.
    pub(crate) fn kill(&self, request: &Value) -> Answer {
        answer(
            self.0
                .kill(&typed_params(methods::client::TERMINAL_KILL, request)?),
        )
    }

    /// `terminal/release`: kills the command if it runs and forgets the terminal.
    pub(crate) fn release(&self, request: &Value) -> Answer {
        answer(
            self.0
                .release(&typed_params(methods::client::TERMINAL_RELEASE, request)?),
        )
    }

    /// `terminal/wait_for_exit`: a future that answers once the command exited (or after
    /// [`WAIT_LIMIT`]), so that the checker goes on serving meanwhile.
    pub(crate) fn wait_for_exit(
        &self,
        request: &Value,
    ) -> Result<impl Future<Output = Answer> + Send + 'static, (i64, String)> {
        let request: WaitForTerminalExitRequest =
            typed_params(methods::client::TERMINAL_WAIT_FOR_EXIT, request)?;
        let terminals = self.0.clone();
        Ok(async move {
            match tokio::time::timeout(WAIT_LIMIT, terminals.wait_for_exit(&request)).await {
                Ok(waited) => answer(waited),
                Err(_) => Err((-32603, format!("the command ran past {WAIT_LIMIT:?}"))),
            }
        })
    }
}
