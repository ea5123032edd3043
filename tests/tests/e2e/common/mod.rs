//! What every test file shares: the checker backed by the official schema, and options.

#![allow(dead_code)] // Each test file uses its own part of this module.

use std::sync::Arc;

use acp_e2e::{Checker, ChildOptions, DuplexOptions, PermissionPolicy, Wiring};
use acp_testkit::Spec;
use serde_json::Value;

/// Checks each message against the official `schema.json`: the whole message against the
/// schema's root, and then, because the root does not tie params to methods, the params of a
/// request or notification against the type of its method and the result of a response against
/// the result type of the request it answers (both found by the method's definitions).
///
/// Where the official specification is absent outside CI, `acp-testkit` validates against
/// the repository's generated schema instead.
pub(crate) fn checker() -> Checker {
    let spec = Spec::load();
    Arc::new(
        move |message: &Value, answers: Option<&str>| match answers {
            Some(method) if message.get("method").is_none() => spec.check_response(message, method),
            _ => spec.check_message(message),
        },
    )
}

/// In-process options for `wiring`, everything else default.
pub(crate) fn duplex(wiring: Wiring) -> DuplexOptions {
    DuplexOptions::new(checker()).wiring(wiring)
}

/// Child-process options for `wiring`.
pub(crate) fn child(
    wiring: Wiring,
    agent_args: &[&str],
    permission: PermissionPolicy,
) -> ChildOptions {
    ChildOptions {
        relay: env!("CARGO_BIN_EXE_e2e_relay").into(),
        agent: env!("CARGO_BIN_EXE_e2e_agent").into(),
        wiring,
        agent_args: agent_args.iter().map(|a| (*a).to_owned()).collect(),
        permission,
    }
}

/// The JSON-RPC error code the agent answered with.
///
/// # Panics
///
/// When the call did not fail with an error from the agent.
#[track_caller]
pub(crate) fn remote_code<T: std::fmt::Debug>(result: Result<T, acp_client::Error>) -> i32 {
    match result {
        Err(e) => {
            e.remote()
                .unwrap_or_else(|| panic!("expected an error from the agent, got {e:?}"))
                .code
                .0
        }
        Ok(v) => panic!("expected an error from the agent, got {v:?}"),
    }
}

/// A text prompt.
pub(crate) fn prompt(session: &acp_types::SessionId, text: &str) -> acp_types::PromptRequest {
    acp_types::PromptRequest::new(session.clone(), vec![text.into()])
}
