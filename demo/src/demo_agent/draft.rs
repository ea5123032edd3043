//! The demo agent's draft (unstable) protocol features, with the `unstable` cargo feature:
//! session fork, LLM providers, and the capabilities that advertise them. The draft parts of a
//! prompt turn (plan operations, compaction, notices, token usage, tool call names) are in
//! `turn/draft.rs`.

use std::sync::{Mutex, MutexGuard, PoisonError};

use acp_types::*;

use super::Sessions;

/// One row of the provider table.
struct Provider {
    id: &'static str,
    supported: &'static [LlmProtocol],
    required: bool,
    /// The endpoint it uses until the client sets another.
    default: Option<(LlmProtocol, &'static str)>,
}

/// The demo agent's LLM providers: `main` serves the chat and cannot be disabled;
/// `embeddings` is optional and off until the client sets it.
const PROVIDERS: [Provider; 2] = [
    Provider {
        id: "main",
        supported: &[LlmProtocol::Anthropic, LlmProtocol::Openai],
        required: true,
        default: Some((LlmProtocol::Anthropic, "https://api.anthropic.com")),
    },
    Provider {
        id: "embeddings",
        supported: &[LlmProtocol::Openai],
        required: false,
        default: None,
    },
];

/// Adds the draft capabilities the demo agent serves: `sessionCapabilities.fork` and
/// `providers`.
pub(super) fn advertise(mut capabilities: AgentCapabilities) -> AgentCapabilities {
    capabilities
        .session_capabilities
        .get_or_insert_with(SessionCapabilities::new)
        .fork = Some(SessionForkCapabilities::new());
    capabilities.providers = Some(ProvidersCapabilities::new());
    capabilities
}

/// `session/fork`: a new session with the original's state and a copy of its history (so that
/// `session/load` of the fork replays the conversation so far); the original is unchanged.
pub(super) fn fork(
    sessions: &Sessions,
    request: &ForkSessionRequest,
) -> Result<SessionId, ErrorObject> {
    super::check_absolute(&request.cwd)?;
    let store = &sessions.0;
    let mut state = store.with(&request.session_id, |s| s.clone())?;
    state.cwd = request.cwd.clone();
    state.open = true;
    let history = store.history(&request.session_id).unwrap_or_default();
    let id = store.create(state)?;
    for update in &history {
        store.record(&id, update);
    }
    Ok(id)
}

/// The providers of one agent and their current endpoints (`providers/*`).
#[derive(Debug)]
pub(super) struct Providers(Mutex<Vec<ProviderInfo>>);

impl Default for Providers {
    fn default() -> Self {
        let table = PROVIDERS
            .iter()
            .map(|p| {
                let mut info = ProviderInfo::new(p.id, p.supported.to_vec(), p.required);
                info.current = p
                    .default
                    .as_ref()
                    .map(|(api, url)| ProviderCurrentConfig::new(api.clone(), *url));
                info
            })
            .collect();
        Self(Mutex::new(table))
    }
}

impl Providers {
    fn table(&self) -> MutexGuard<'_, Vec<ProviderInfo>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `providers/list`.
    pub(super) fn list(&self) -> ListProvidersResponse {
        ListProvidersResponse::new(self.table().clone())
    }

    /// `providers/set`: points a provider at an endpoint of a protocol it supports.
    pub(super) fn set(&self, request: SetProviderRequest) -> Result<(), ErrorObject> {
        let mut table = self.table();
        let provider = find(&mut table, &request.provider_id)?;
        if !provider.supported.contains(&request.api_type) {
            return Err(ErrorObject::invalid_params(format_args!(
                "provider `{}` does not speak `{}`",
                request.provider_id,
                request.api_type.as_str()
            )));
        }
        provider.current = Some(ProviderCurrentConfig::new(
            request.api_type,
            request.base_url,
        ));
        Ok(())
    }

    /// `providers/disable`: a provider the agent can do without stops being used.
    pub(super) fn disable(&self, request: &DisableProviderRequest) -> Result<(), ErrorObject> {
        let mut table = self.table();
        let provider = find(&mut table, &request.provider_id)?;
        if provider.required {
            return Err(ErrorObject::invalid_params(format_args!(
                "provider `{}` is required and cannot be disabled",
                request.provider_id
            )));
        }
        provider.current = None;
        Ok(())
    }
}

fn find<'a>(
    table: &'a mut [ProviderInfo],
    id: &ProviderId,
) -> Result<&'a mut ProviderInfo, ErrorObject> {
    table
        .iter_mut()
        .find(|p| p.provider_id == *id)
        .ok_or_else(|| ErrorObject::invalid_params(format_args!("unknown provider `{id}`")))
}
