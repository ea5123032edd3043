//! Session modes (spec chapter "Session Modes"): the modes an agent offers, each session's
//! current one, switching with validation, and telling the client.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use acp_types::*;

use crate::ClientHandle;

/// How many sessions a [`Modes`] tracks by default; see [`Modes::max_sessions`].
pub const DEFAULT_MAX_MODE_SESSIONS: usize = 10_000;

/// The modes an agent offers and the current mode of each session. Cheap to clone; clones
/// share the sessions.
///
/// ```
/// use acp_agent::{ClientHandle, Modes};
/// use acp_types::*;
///
/// # #[allow(dead_code)]
/// struct MyAgent {
///     client: ClientHandle,
///     modes: Modes,
/// }
///
/// impl MyAgent {
///     # #[allow(dead_code)]
///     fn new(client: ClientHandle) -> Self {
///         let modes = Modes::new([
///             SessionMode::new("ask", "Ask before edits"),
///             SessionMode::new("code", "Edit freely"),
///         ]);
///         Self { client, modes }
///     }
/// }
///
/// #[acp_agent::async_trait]
/// impl acp_agent::Agent for MyAgent {
///     # async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
///     #     Ok(InitializeResponse::new(ProtocolVersion::LATEST))
///     # }
///     async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
///         let id = SessionId::from("s1");
///         // The session starts in the first mode; the answer lists them all.
///         let modes = self.modes.open(&id)?;
///         Ok(NewSessionResponse::new(id).modes(modes))
///     }
///     async fn set_session_mode(&self, r: SetSessionModeRequest) -> Result<SetSessionModeResponse, ErrorObject> {
///         // Unknown modes are refused (-32602); the change goes to the client as an update.
///         self.modes.set(&self.client, &r.session_id, &r.mode_id).await?;
///         Ok(SetSessionModeResponse::new())
///     }
///     # async fn prompt(&self, _: PromptRequest, _: acp_agent::PromptContext) -> Result<PromptResponse, ErrorObject> {
///     #     Ok(PromptResponse::new(StopReason::EndTurn))
///     # }
/// }
/// ```
#[derive(Clone)]
pub struct Modes {
    offered: Arc<[SessionMode]>,
    max_sessions: usize,
    current: Arc<Mutex<HashMap<SessionId, SessionModeId>>>,
}

impl fmt::Debug for Modes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Modes")
            .field("offered", &self.offered)
            .field("sessions", &self.lock().len())
            .finish()
    }
}

impl Modes {
    /// Offers `modes`; a session starts in the first.
    pub fn new(modes: impl IntoIterator<Item = SessionMode>) -> Self {
        Self {
            offered: modes.into_iter().collect(),
            max_sessions: DEFAULT_MAX_MODE_SESSIONS,
            current: Arc::default(),
        }
    }

    /// Tracks at most `max` sessions: [`open`](Self::open) refuses more (forget closed ones
    /// with [`forget`](Self::forget)).
    #[must_use]
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// The modes offered.
    pub fn offered(&self) -> &[SessionMode] {
        &self.offered
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, SessionModeId>> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts tracking `session` in the first mode, or keeps its mode if it is tracked already
    /// (a session loaded or resumed again), and returns the state for the `modes` field of
    /// the `session/new` (load, resume) answer.
    ///
    /// # Errors
    ///
    /// `-32603` when no mode is offered, or when [`max_sessions`](Self::max_sessions) are
    /// tracked already.
    pub fn open(&self, session: &SessionId) -> Result<SessionModeState, ErrorObject> {
        let Some(first) = self.offered.first() else {
            return Err(ErrorObject::internal_error(
                "the agent offers no session mode",
            ));
        };
        let mut current = self.lock();
        let tracked = current.len();
        let mode = match current.get(session) {
            Some(mode) => mode.clone(),
            None if tracked >= self.max_sessions => {
                return Err(ErrorObject::internal_error(format_args!(
                    "too many sessions with modes ({tracked}): close some first"
                )));
            }
            None => {
                current.insert(session.clone(), first.id.clone());
                first.id.clone()
            }
        };
        Ok(SessionModeState::new(mode, self.offered.to_vec()))
    }

    /// The current mode of `session`, if tracked.
    pub fn current(&self, session: &SessionId) -> Option<SessionModeId> {
        self.lock().get(session).cloned()
    }

    /// Switches `session` to `mode` and sends the client a `current_mode_update` (for
    /// `session/set_mode`, or when the agent changes mode itself). Switching to the current
    /// mode sends nothing.
    ///
    /// # Errors
    ///
    /// `-32602` naming the mode and the ones offered when it is not offered; `-32002` for a
    /// session not [opened](Self::open); `-32603` when the update cannot be sent.
    pub async fn set(
        &self,
        client: &ClientHandle,
        session: &SessionId,
        mode: &SessionModeId,
    ) -> Result<(), ErrorObject> {
        if !self.offered.iter().any(|m| m.id == *mode) {
            let offered: Vec<&str> = self.offered.iter().map(|m| m.id.as_str()).collect();
            return Err(ErrorObject::invalid_params_with(
                format_args!("unknown mode `{mode}`; offered: {}", offered.join(", ")),
                serde_json::json!({ "field": "modeId", "value": mode.as_str() }),
            ));
        }
        {
            let mut current = self.lock();
            let Some(slot) = current.get_mut(session) else {
                return Err(ErrorObject::session_not_found(session.as_str()));
            };
            if slot == mode {
                return Ok(());
            }
            *slot = mode.clone();
        }
        let update = SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode.clone()));
        client
            .session_update(SessionNotification::new(session.clone(), update))
            .await
            .map_err(ErrorObject::from)
    }

    /// Stops tracking `session` (closed or deleted); returns its mode.
    pub fn forget(&self, session: &SessionId) -> Option<SessionModeId> {
        self.lock().remove(session)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_start_in_the_first_mode_and_are_bounded() {
        let modes = Modes::new([
            SessionMode::new("ask", "Ask"),
            SessionMode::new("code", "Code"),
        ])
        .max_sessions(1);
        let (a, b) = (SessionId::from("a"), SessionId::from("b"));
        let state = modes.open(&a).unwrap();
        assert_eq!(state.current_mode_id.as_str(), "ask");
        assert_eq!(state.available_modes.len(), 2);
        // Opening again keeps it; a second session is over the bound until one is forgotten.
        assert!(modes.open(&a).is_ok());
        let refused = modes.open(&b).unwrap_err();
        assert_eq!(refused.code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(
            modes.forget(&a).map(|m| m.to_string()).as_deref(),
            Some("ask")
        );
        assert!(modes.open(&b).is_ok());
        assert_eq!(modes.current(&a), None);
        // Nothing offered: no state to give.
        assert!(Modes::new([]).open(&a).is_err());
    }
}
