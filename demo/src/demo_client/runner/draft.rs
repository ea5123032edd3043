//! The client's draft (unstable) protocol features, with the `unstable` cargo feature: the
//! client capabilities of `--draft`, the `:fork` and `:providers` commands, and the token usage
//! of a turn.

use acp_types::*;
use serde_json::json;

use super::Runner;

/// Adds the client capabilities this client renders with the `unstable` feature (`plan`,
/// `session.compaction`, `session.notices`) when `draft` (`--draft`) says so.
pub(super) fn advertise(mut caps: ClientCapabilities, draft: bool) -> ClientCapabilities {
    if draft {
        caps.plan = Some(PlanCapabilities::new());
        let session = caps
            .session
            .get_or_insert_with(ClientSessionCapabilities::new);
        session.compaction = Some(CompactionCapabilities::new());
        session.notices = Some(NoticeCapabilities::new());
    }
    caps
}

/// The draft methods the agent offers, for the "It offers" line.
pub(super) fn offers(caps: &AgentCapabilities) -> impl Iterator<Item = String> {
    let fork = caps
        .session_capabilities
        .as_ref()
        .is_some_and(|s| s.fork.is_some());
    [
        (fork, "session/fork (draft)"),
        (caps.providers.is_some(), "providers/* (draft)"),
    ]
    .into_iter()
    .filter(|(present, _)| *present)
    .map(|(_, name)| name.to_owned())
}

/// The token usage of a turn, for the `[turn ended: ...]` line (empty without it).
pub(super) fn usage_text(usage: Option<&Usage>) -> String {
    usage.map_or_else(String::new, |u| {
        format!(
            ", {} tokens: {} in, {} out",
            u.total_tokens, u.input_tokens, u.output_tokens
        )
    })
}

impl Runner {
    /// `:fork [ID]`: forks a session (`session/fork`) and makes the fork the current session.
    pub(super) async fn fork(&mut self, id: String) -> bool {
        let request = ForkSessionRequest::new(id.as_str(), self.cwd());
        match self.call(self.agent.fork_session(request)).await {
            Ok(response) => {
                let fork = response.session_id;
                self.remember(&fork, response.config_options);
                self.session = Some(fork.clone());
                self.started.push(fork.clone());
                self.shared.output.event(
                    json!({ "event": "session_fork", "sessionId": id, "forkId": fork }),
                    Some(format!(
                        "  Forked {id} into {fork} (session/fork); the fork is the current \
                         session."
                    )),
                );
                true
            }
            Err(failure) => self.fail("session/fork", &failure).await,
        }
    }

    /// `:providers`, `:providers set ID API URL`, `:providers disable ID`: the agent's LLM
    /// providers (`providers/list`, `providers/set`, `providers/disable`). The caller checked
    /// the arguments' shape.
    pub(super) async fn providers(&mut self, args: &[&str]) -> bool {
        let out = &self.shared.output;
        match args {
            ["set", id, api, url] => {
                let request = SetProviderRequest::new(*id, *api, *url);
                match self.call(self.agent.set_provider(request)).await {
                    Ok(_) => {
                        out.event(
                            json!({ "event": "provider_set", "providerId": id, "apiType": api, "baseUrl": url }),
                            Some(format!("  Provider {id} now uses {api} at {url} (providers/set).")),
                        );
                        true
                    }
                    Err(failure) => self.fail("providers/set", &failure).await,
                }
            }
            ["disable", id] => {
                let request = DisableProviderRequest::new(*id);
                match self.call(self.agent.disable_provider(request)).await {
                    Ok(_) => {
                        out.event(
                            json!({ "event": "provider_disabled", "providerId": id }),
                            Some(format!("  Provider {id} disabled (providers/disable).")),
                        );
                        true
                    }
                    Err(failure) => self.fail("providers/disable", &failure).await,
                }
            }
            _ => match self
                .call(self.agent.list_providers(ListProvidersRequest::new()))
                .await
            {
                Ok(response) => {
                    let mut human = format!("  Providers ({}):", response.providers.len());
                    for p in &response.providers {
                        let supported: Vec<&str> =
                            p.supported.iter().map(LlmProtocol::as_str).collect();
                        let current = p.current.as_ref().map_or_else(
                            || "disabled".to_owned(),
                            |c| format!("{} at {}", c.api_type.as_str(), c.base_url),
                        );
                        let required = if p.required { ", required" } else { "" };
                        human.push_str(&format!(
                            "\n    {}  {current} (speaks {}{required})",
                            p.provider_id,
                            supported.join(", ")
                        ));
                    }
                    out.event(
                        json!({ "event": "providers", "providers": response.providers }),
                        Some(human),
                    );
                    true
                }
                Err(failure) => self.fail("providers/list", &failure).await,
            },
        }
    }
}
