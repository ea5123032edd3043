//! What the client lets through from the agent: only the methods whose capability it
//! advertised in `initialize`, and only for the sessions it has on this connection.
//!
//! An agent is a peer like any other: untrusted. A client that did not advertise `terminal`
//! must never run a command because an agent asked, and an update for a session the client
//! never created must never be shown as if it belonged to the current one. Both rules run
//! when a message is decoded, on the reading loop, before anything reaches the [`Client`]
//! implementation.
//!
//! [`Client`]: crate::Client

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use acp_types::methods::client as cm;
use acp_types::*;

/// The client's side of what was advertised and created.
#[derive(Debug)]
pub(crate) struct Admission {
    /// The capabilities the client sent in `initialize` (none are known before it).
    advertised: OnceLock<ClientCapabilities>,
    /// The sessions created, loaded or resumed on this connection, and not closed or deleted.
    sessions: Mutex<HashSet<SessionId>>,
    refuse_unadvertised: bool,
    refuse_unknown_sessions: bool,
}

impl Admission {
    pub(crate) fn new(refuse_unadvertised: bool, refuse_unknown_sessions: bool) -> Self {
        Self {
            advertised: OnceLock::new(),
            sessions: Mutex::new(HashSet::new()),
            refuse_unadvertised,
            refuse_unknown_sessions,
        }
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashSet<SessionId>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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

    /// Refuses an agent request for `method` whose capability the client did not advertise.
    /// Runs before the params are decoded.
    pub(crate) fn check_method(&self, method: &str) -> Result<(), ErrorObject> {
        if !self.refuse_unadvertised {
            return Ok(());
        }
        let caps = self.advertised.get();
        let fs = caps.and_then(|c| c.fs.as_ref());
        let (ok, capability) = match method {
            cm::FS_READ_TEXT_FILE => (
                fs.and_then(|f| f.read_text_file) == Some(true),
                "fs.readTextFile",
            ),
            cm::FS_WRITE_TEXT_FILE => (
                fs.and_then(|f| f.write_text_file) == Some(true),
                "fs.writeTextFile",
            ),
            cm::TERMINAL_CREATE
            | cm::TERMINAL_OUTPUT
            | cm::TERMINAL_WAIT_FOR_EXIT
            | cm::TERMINAL_KILL
            | cm::TERMINAL_RELEASE => (caps.and_then(|c| c.terminal) == Some(true), "terminal"),
            cm::ELICITATION_CREATE => {
                (caps.is_some_and(|c| c.elicitation.is_some()), "elicitation")
            }
            cm::ELICITATION_COMPLETE => (
                caps.and_then(|c| c.elicitation.as_ref())
                    .is_some_and(|e| e.url.is_some()),
                "elicitation.url",
            ),
            _ => return Ok(()),
        };
        if ok {
            Ok(())
        } else {
            Err(ErrorObject::capability_not_advertised(method, capability))
        }
    }

    /// Refuses a decoded agent request that needs more than its method's capability (an
    /// elicitation mode the client did not advertise) or names a session the client does not
    /// have.
    pub(crate) fn check_request(&self, request: &AgentRequestParams) -> Result<(), ErrorObject> {
        if let AgentRequestParams::CreateElicitation(r) = request {
            self.check_elicitation_mode(r)?;
        }
        match session_of(request) {
            Some(session_id) => self.check_session(session_id),
            None => Ok(()),
        }
    }

    /// Refuses a session update for a session the client does not have (the connection then
    /// drops it with a warning).
    pub(crate) fn check_update(&self, update: &SessionNotification) -> Result<(), ErrorObject> {
        self.check_session(&update.session_id)
    }

    fn check_session(&self, session_id: &SessionId) -> Result<(), ErrorObject> {
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
        let (ok, capability) = match &request.mode {
            ElicitationMode::Form(_) => (
                elicitation.is_some_and(|e| e.form.is_some()),
                "elicitation.form",
            ),
            ElicitationMode::Url(_) => (
                elicitation.is_some_and(|e| e.url.is_some()),
                "elicitation.url",
            ),
            // A mode this library does not know: elicitation itself was checked by method.
            _ => (true, ""),
        };
        if ok {
            Ok(())
        } else {
            Err(ErrorObject::capability_not_advertised(
                cm::ELICITATION_CREATE,
                capability,
            ))
        }
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
