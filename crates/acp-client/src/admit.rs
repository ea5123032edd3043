//! What the client lets through from the agent: only the methods whose capability it
//! advertised in `initialize`, and only for the sessions it has on this connection.
//!
//! An agent is a peer like any other: untrusted. A client that did not advertise `terminal`
//! must never run a command because an agent asked, and an update for a session the client
//! never created must never be shown as if it belonged to the current one. Both rules run
//! when a message is decoded, on the reading loop, before anything reaches the [`Client`]
//! implementation. With MCP over ACP (draft), the agent reaches only the MCP servers the
//! client offered.
//!
//! [`Client`]: crate::Client

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use acp_types::capabilities::{client_allows, elicitation_mode_allowed};
use acp_types::methods::client as cm;
use acp_types::*;

use crate::lock;

/// The client's side of what was advertised and created.
#[derive(Debug)]
pub(crate) struct Admission {
    /// The capabilities the client sent in `initialize` (none are known before it).
    advertised: OnceLock<ClientCapabilities>,
    /// The sessions created, loaded or resumed on this connection, and not closed or deleted.
    sessions: Mutex<HashSet<SessionId>>,
    /// The MCP-over-ACP servers offered (draft).
    #[cfg(feature = "unstable_mcp_over_acp")]
    mcp: Mutex<Mcp>,
    refuse_unadvertised: bool,
    refuse_unknown_sessions: bool,
}

/// What the agent may reach over MCP over ACP.
#[cfg(feature = "unstable_mcp_over_acp")]
#[derive(Debug, Default)]
struct Mcp {
    /// The ids of the `"acp"` MCP servers offered in the sessions' `mcpServers`.
    servers: HashSet<McpServerAcpId>,
}

impl Admission {
    pub(crate) fn new(refuse_unadvertised: bool, refuse_unknown_sessions: bool) -> Self {
        Self {
            advertised: OnceLock::new(),
            sessions: Mutex::new(HashSet::new()),
            #[cfg(feature = "unstable_mcp_over_acp")]
            mcp: Mutex::default(),
            refuse_unadvertised,
            refuse_unknown_sessions,
        }
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashSet<SessionId>> {
        lock(&self.sessions)
    }

    /// Records the capabilities sent in `initialize`; the first call wins.
    pub(crate) fn advertise(&self, capabilities: Option<&ClientCapabilities>) {
        let _ = self
            .advertised
            .set(capabilities.cloned().unwrap_or_default());
    }

    /// Records a session; true if it was not known yet.
    pub(crate) fn add_session(&self, session_id: &SessionId) -> bool {
        self.sessions().insert(session_id.clone())
    }

    /// Forgets a session.
    pub(crate) fn remove_session(&self, session_id: &SessionId) {
        self.sessions().remove(session_id);
    }

    /// Records the MCP servers offered to the agent in a session request (`session/new`,
    /// load, resume, fork): of them, the agent may reach the `"acp"` ones.
    #[cfg_attr(not(feature = "unstable_mcp_over_acp"), allow(clippy::unused_self))]
    pub(crate) fn offer_mcp_servers(&self, servers: &[McpServer]) {
        #[cfg(feature = "unstable_mcp_over_acp")]
        {
            let offered = servers.iter().filter_map(|server| match server {
                McpServer::Acp(server) => Some(server.server_id.clone()),
                _ => None,
            });
            lock(&self.mcp).servers.extend(offered);
        }
        #[cfg(not(feature = "unstable_mcp_over_acp"))]
        let _ = servers;
    }

    /// Refuses an MCP-over-ACP message for a server the client did not offer.
    #[cfg(feature = "unstable_mcp_over_acp")]
    fn check_mcp(&self, server: &McpServerAcpId) -> Result<(), ErrorObject> {
        if !self.refuse_unadvertised || lock(&self.mcp).servers.contains(server) {
            Ok(())
        } else {
            Err(ErrorObject::mcp_server_not_found(server.as_str()))
        }
    }

    /// Refuses an agent request for `method` whose capability the client did not advertise.
    /// Runs before the params are decoded.
    pub(crate) fn check_method(&self, method: &str) -> Result<(), ErrorObject> {
        if !self.refuse_unadvertised {
            return Ok(());
        }
        client_allows(self.advertised.get(), method)
            .map_err(|capability| ErrorObject::capability_not_advertised(method, capability))
    }

    /// Refuses a decoded agent request that needs more than its method's capability (an
    /// elicitation mode the client did not advertise) or names a session the client does not
    /// have.
    pub(crate) fn check_request(&self, request: &AgentRequestParams) -> Result<(), ErrorObject> {
        if let AgentRequestParams::CreateElicitation(r) = request {
            self.check_elicitation_mode(r)?;
        }
        #[cfg(feature = "unstable_mcp_over_acp")]
        if let AgentRequestParams::MessageMcp(r) = request {
            self.check_mcp(&r.server_id)?;
        }
        match session_of(request) {
            Some(session_id) => self.check_session(session_id),
            None => Ok(()),
        }
    }

    /// Refuses a notification for a session the client does not have; the connection then
    /// drops it with a warning.
    pub(crate) fn check_notification(
        &self,
        notification: &AgentNotificationParams,
    ) -> Result<(), ErrorObject> {
        match notification {
            AgentNotificationParams::SessionUpdate(update) => {
                self.check_session(&update.session_id)
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn check_session(&self, session_id: &SessionId) -> Result<(), ErrorObject> {
        if !self.refuse_unknown_sessions || self.sessions().contains(session_id) {
            Ok(())
        } else {
            Err(ErrorObject::session_not_found(session_id.as_str()))
        }
    }

    fn check_elicitation_mode(
        &self,
        request: &CreateElicitationRequest,
    ) -> Result<(), ErrorObject> {
        if !self.refuse_unadvertised {
            return Ok(());
        }
        let elicitation = self.advertised.get().and_then(|c| c.elicitation.as_ref());
        elicitation_mode_allowed(elicitation, &request.mode).map_err(|capability| {
            ErrorObject::capability_not_advertised(cm::ELICITATION_CREATE, capability)
        })
    }
}

/// The session an agent request concerns, if it names one.
fn session_of(request: &AgentRequestParams) -> Option<&SessionId> {
    Some(match request {
        AgentRequestParams::RequestPermission(r) => &r.session_id,
        AgentRequestParams::ReadTextFile(r) => &r.session_id,
        AgentRequestParams::WriteTextFile(r) => &r.session_id,
        AgentRequestParams::CreateTerminal(r) => &r.session_id,
        AgentRequestParams::TerminalOutput(r) => &r.session_id,
        AgentRequestParams::WaitForTerminalExit(r) => &r.session_id,
        AgentRequestParams::KillTerminal(r) => &r.session_id,
        AgentRequestParams::ReleaseTerminal(r) => &r.session_id,
        AgentRequestParams::CreateElicitation(r) => match r.scope() {
            ElicitationScope::Session(scope) => &scope.session_id,
            _ => return None,
        },
        _ => return None,
    })
}
