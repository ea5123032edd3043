//! Version negotiation: one `initialize` that a v2 agent reads as v2 and a v1 agent as v1.

use std::sync::atomic::Ordering;

use acp_types::v2;
use acp_types::{ErrorObject, InitializeRequest, InitializeResponse, ProtocolVersion, methods};

use crate::connection::State;
use crate::{AgentHandle, Error};

/// What `initialize` negotiated, with the agent's answer in that version's types.
#[derive(Debug, Clone)]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // Made once per connection.
pub enum Negotiated {
    /// The agent speaks v1 only: the connection is v1, as if [`AgentHandle::initialize`] had
    /// been called with the fallback request.
    V1(InitializeResponse),
    /// The connection is v2: use [`AgentHandle::v2`].
    V2(v2::InitializeResponse),
}

impl Negotiated {
    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> ProtocolVersion {
        match self {
            Negotiated::V1(r) => r.protocol_version,
            Negotiated::V2(r) => r.protocol_version,
        }
    }
}

impl AgentHandle {
    /// `initialize`, asking for v2 and falling back to v1 (feature `unstable_protocol_v2`):
    /// sends `request` with `protocolVersion: 2`, carrying `fallback`'s v1 `clientCapabilities`
    /// and `clientInfo` beside v2's `info` and `capabilities` (each version ignores the other's
    /// fields, so the one message is valid in both schemas). A v2 agent answers 2 and the
    /// connection speaks v2 ([`AgentHandle::v2`]); an agent that answers 1 gets the v1 surface
    /// of this handle, having seen exactly the v1 capabilities of `fallback`. Call it instead of
    /// [`initialize`](Self::initialize), once.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedProtocolVersion`] when the agent answers a version other than 1 and
    /// 2 (neither surface could read it); [`Error::Rpc`] otherwise (a v2 agent with no version
    /// at or below 2 answers `-32022`).
    pub async fn negotiate(
        &self,
        mut request: v2::InitializeRequest,
        fallback: InitializeRequest,
    ) -> Result<Negotiated, Error> {
        request.protocol_version = ProtocolVersion(2);
        let mut message = serde_json::to_value(&request).map_err(acp_rpc::Error::Serialize)?;
        if let Some(object) = message.as_object_mut() {
            let v1 = serde_json::to_value(&fallback).map_err(acp_rpc::Error::Serialize)?;
            for key in ["clientCapabilities", "clientInfo"] {
                if let Some(value) = v1.get(key) {
                    object.insert(key.to_owned(), value.clone());
                }
            }
        }
        let v2_state = &self.state.v2;
        let _ = v2_state
            .advertised
            .set(request.capabilities.clone().unwrap_or_default());
        self.state
            .admission
            .advertise(fallback.client_capabilities.as_ref());
        v2_state.negotiating.store(true, Ordering::Release);
        let answer = self
            .peer
            .request_raw(methods::agent::INITIALIZE, &message)
            .await?;
        match v2_state.version() {
            Some(ProtocolVersion(2)) => {
                let response: v2::InitializeResponse = answer.decode_method_result()?;
                let _ = v2_state.initialized.set(response.clone());
                Ok(Negotiated::V2(response))
            }
            Some(ProtocolVersion(1)) => {
                let response: InitializeResponse = answer.decode_method_result()?;
                self.set_initialized(response.clone());
                Ok(Negotiated::V1(response))
            }
            _ => {
                let version = serde_json::from_slice::<serde_json::Value>(answer.as_bytes())
                    .ok()
                    .and_then(|v| v.get("protocolVersion")?.as_u64())
                    .and_then(|v| u16::try_from(v).ok())
                    .unwrap_or(0);
                Err(Error::UnsupportedProtocolVersion(ProtocolVersion(version)))
            }
        }
    }

    /// The negotiated protocol version, once `initialize` was answered.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.state.v2.version()
    }

    /// The v2 calls to the agent, when the connection negotiated v2 (see
    /// [`negotiate`](Self::negotiate)); `None` otherwise.
    pub fn v2(&self) -> Option<super::AgentHandle> {
        let response = self.state.v2.initialized.get()?;
        Some(super::AgentHandle::new(self.clone(), response))
    }
}

/// Records what an answer establishes on the v2 side, on the reading loop before anything
/// after it is handled: the version `initialize` negotiated (so that the agent's next message
/// is read in its types), the sessions v2 `session/new` creates. True when the answer was a
/// v2 one (the v1 rules then do not apply).
pub(crate) fn response_received(
    state: &State,
    peer: &acp_rpc::Peer,
    method: &str,
    result: Result<&acp_rpc::RawResult, &ErrorObject>,
) -> bool {
    let shared = &state.v2;
    if method == methods::agent::INITIALIZE {
        let Ok(raw) = result else { return false };
        if !shared.negotiating.load(Ordering::Acquire) {
            // A v1 `initialize`: the connection is v1 whatever the answer.
            shared.set_version(1);
            return false;
        }
        let version = serde_json::from_slice::<serde_json::Value>(raw.as_bytes())
            .ok()
            .and_then(|v| v.get("protocolVersion")?.as_u64());
        match version {
            Some(1) => shared.set_version(1),
            Some(2) => {
                shared.set_version(2);
                // The connection's v2 rules (no `null` request ids) from the next message on.
                peer.set_protocol_version(ProtocolVersion(2));
            }
            _ => {}
        }
        return shared.is_v2();
    }
    if !shared.is_v2() {
        return false;
    }
    if method == v2::methods::agent::SESSION_NEW {
        if let Ok(Ok(created)) = result.map(|r| r.decode_method_result::<v2::NewSessionResponse>())
        {
            state.admission.add_session(&created.session_id);
        }
    }
    true
}
