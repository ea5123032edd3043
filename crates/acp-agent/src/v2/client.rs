//! The client handle on a v2 connection: updates, permission requests and elicitations in
//! their v2 forms.

use acp_types::v2;
use acp_types::*;

use super::V2;
use super::convert;
use crate::{ClientHandle, Error};

/// An [`Error::Unconvertible`] for `what`.
fn unconvertible(what: &'static str) -> impl FnOnce(String) -> Error {
    move |reason| Error::Unconvertible {
        what: what.into(),
        version: V2,
        reason,
    }
}

impl ClientHandle {
    /// Sends a v2 `session/update` for `session_id` (feature `unstable_protocol_v2`): any
    /// update of v2, including those v1 has no form for (whole-message replacement and
    /// clearing, display terminals and their output, tool-call content chunks, background
    /// work).
    ///
    /// # Errors
    ///
    /// [`Error::NotInProtocolVersion`] on a v1 connection (nothing is sent); or when the
    /// connection is closed.
    pub async fn session_update_v2(
        &self,
        session_id: &SessionId,
        update: impl Into<v2::SessionUpdate>,
    ) -> Result<(), Error> {
        if !self.is_v2() {
            return Err(Error::NotInProtocolVersion {
                what: "a v2 session update".into(),
                version: self
                    .peer()
                    .protocol_version()
                    .unwrap_or(ProtocolVersion::V1),
            });
        }
        self.send_v2(session_id, update).await
    }

    /// Sends a v2 update, the connection's version checked by the caller.
    pub(crate) async fn send_v2(
        &self,
        session_id: &SessionId,
        update: impl Into<v2::SessionUpdate>,
    ) -> Result<(), Error> {
        let notification = v2::UpdateSessionNotification::new(session_id.clone(), update.into());
        self.notify_v2(&notification).await
    }

    /// Sends a v2 update, noting what it advertises (see [`Cursors::observe`](super::Cursors::observe)).
    async fn notify_v2(&self, notification: &v2::UpdateSessionNotification) -> Result<(), Error> {
        self.cursors()
            .observe(&notification.session_id, &notification.update);
        Ok(self
            .peer()
            .notify::<v2::methods::SessionUpdate>(notification)
            .await?)
    }

    /// Sends a `state_update`.
    pub(crate) async fn send_state(
        &self,
        session_id: &SessionId,
        state: v2::StateUpdate,
    ) -> Result<(), Error> {
        self.send_v2(session_id, v2::SessionUpdate::StateUpdate(state))
            .await
    }

    /// A v1 update in its v2 form, its chunks stamped with their message ids first.
    pub(crate) async fn session_update_as_v2(
        &self,
        mut notification: SessionNotification,
    ) -> Result<(), Error> {
        self.cursors()
            .stamp(&notification.session_id, &mut notification.update);
        self.stamped_update_as_v2(notification).await
    }

    /// A v1 update whose chunks were stamped (see [`Cursors::stamp`](super::Cursors::stamp))
    /// in its v2 form.
    pub(crate) async fn stamped_update_as_v2(
        &self,
        notification: SessionNotification,
    ) -> Result<(), Error> {
        let SessionNotification {
            session_id,
            update,
            meta,
            ..
        } = notification;
        if meta.is_none()
            && let Some(chunk) = TextChunk::of(&session_id, &update)
        {
            return self.send_text_chunk_v2(&chunk).await;
        }
        match self.stamped_to_v2(&session_id, update)? {
            Some(update) => self.send_stamped_v2(&session_id, update, meta).await,
            None => Ok(()),
        }
    }

    /// Sends `update`, made by [`stamped_to_v2`](Self::stamped_to_v2), for `session_id`.
    pub(crate) async fn send_stamped_v2(
        &self,
        session_id: &SessionId,
        update: v2::SessionUpdate,
        meta: Option<Meta>,
    ) -> Result<(), Error> {
        let mut notification = v2::UpdateSessionNotification::new(session_id.clone(), update);
        notification.meta = meta;
        self.notify_v2(&notification).await
    }

    /// Sends a stamped v1 message chunk of plain text (see [`TextChunk::of`]) as its v2
    /// `session/update`, written straight from the v1 chunk: the bytes its v2 form would be
    /// written as, without converting it first (what a streamed reply mostly is).
    pub(crate) async fn send_text_chunk_v2(&self, chunk: &TextChunk<'_>) -> Result<(), Error> {
        if self.cursors().is_silent(chunk.session_id) {
            tracing::trace!(session = %chunk.session_id, "update of a session resumed without replay: left out");
            return Ok(());
        }
        Ok(self
            .peer()
            .notify_raw(v2::methods::client::SESSION_UPDATE, chunk)
            .await?)
    }

    /// The v2 form of a v1 update of `session_id` whose chunks were stamped (see
    /// [`Cursors::stamp`](super::Cursors::stamp)); `None` for an update not sent on v2.
    ///
    /// Not async: the streaming path converts here and awaits only the sending, so that its
    /// future holds the v2 update alone, not the v1 one too.
    pub(crate) fn stamped_to_v2(
        &self,
        session_id: &SessionId,
        update: SessionUpdate,
    ) -> Result<Option<v2::SessionUpdate>, Error> {
        if self.cursors().is_silent(session_id) {
            // The history a `session/resume` without replay loads through `session/load`.
            tracing::trace!(session = %session_id, "update of a session resumed without replay: left out");
            return Ok(None);
        }
        if matches!(update, SessionUpdate::CurrentModeUpdate(_))
            && self.cursors().replaying_without_modes(session_id)
        {
            // A replayed mode change of a resumed session: its modes (the config option `mode`)
            // are known only from the agent's answer, which carries the current mode, the
            // state this replayed change led to. Nothing the client would show is lost.
            tracing::debug!(session = %session_id, "replayed current_mode_update superseded by the resume answer");
            return Ok(None);
        }
        let update = match self.modes_update(session_id, &update) {
            None if matches!(update, SessionUpdate::CurrentModeUpdate(_)) => {
                // v2 has no modes: they reach a v2 client as the config option `mode`, which a
                // session whose agent offers a `mode` option of its own (mirroring its modes,
                // as v1 asks of agents moving to config options) already has; the agent's
                // `config_option_update` carries the change there.
                tracing::debug!(session = %session_id, "current_mode_update of a session whose modes are not offered as the config option `mode`: not sent on v2");
                return Ok(None);
            }
            Some(options) => {
                let json = serde_json::json!({
                    "sessionUpdate": "config_option_update",
                    "configOptions": options,
                });
                convert::read(json).map_err(unconvertible("the config options"))?
            }
            None => convert::update_to_v2(update).map_err(unconvertible("a session update"))?,
        };
        Ok(Some(update))
    }

    /// The whole config option list an update means for a session whose modes are offered as
    /// a config option: a `current_mode_update` changes the mode's option, a
    /// `config_option_update` the agent's own ones. `None` for any other update, or a session
    /// without modes.
    fn modes_update(
        &self,
        session_id: &SessionId,
        update: &SessionUpdate,
    ) -> Option<serde_json::Value> {
        match update {
            SessionUpdate::CurrentModeUpdate(mode) => {
                self.cursors().with_modes(session_id, |modes| {
                    modes.set_current(mode.current_mode_id.as_str());
                    modes.options()
                })
            }
            SessionUpdate::ConfigOptionUpdate(options) => {
                let mut own = serde_json::to_value(&options.config_options).ok()?;
                convert::config_options_to_v2(&mut own);
                let serde_json::Value::Array(own) = own else {
                    return None;
                };
                self.cursors().with_modes(session_id, |modes| {
                    modes.set_others(own);
                    modes.options()
                })
            }
            _ => None,
        }
    }

    /// A permission request in its v2 form; the session's turn `requires_action` while it
    /// waits.
    pub(crate) async fn request_permission_v2(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        let session_id = request.session_id.clone();
        let v2_request =
            convert::permission_to_v2(request).map_err(unconvertible("a permission request"))?;
        let asking = self
            .peer()
            .request::<v2::methods::SessionRequestPermission>(&v2_request);
        let answer = self.awaiting_user(Some(&session_id), asking).await?;
        Ok(RequestPermissionResponse::from(answer))
    }

    /// An elicitation in its v2 form; when it is scoped to a session whose turn runs, the turn
    /// `requires_action` while it waits.
    pub(crate) async fn create_elicitation_v2(
        &self,
        request: CreateElicitationRequest,
    ) -> Result<CreateElicitationResponse, Error> {
        let json = serde_json::to_value(&request)
            .map_err(|e| unconvertible("an elicitation request")(e.to_string()))?;
        let session_id = json
            .get("sessionId")
            .and_then(serde_json::Value::as_str)
            .map(SessionId::from);
        let v2_request: v2::CreateElicitationRequest =
            convert::read(json).map_err(unconvertible("an elicitation request"))?;
        let asking = self
            .peer()
            .request::<v2::methods::ElicitationCreate>(&v2_request);
        let answer = self.awaiting_user(session_id.as_ref(), asking).await?;
        convert::transcode(&answer).map_err(unconvertible("the client's elicitation answer"))
    }

    /// Awaits `asking`, a request the user answers: while it waits, the running turn of
    /// `session_id` (if any) is in the `requires_action` state, and `running` again after the
    /// last such request of the session is answered.
    async fn awaiting_user<T>(
        &self,
        session_id: Option<&SessionId>,
        asking: impl Future<Output = Result<T, acp_rpc::Error>>,
    ) -> Result<T, Error> {
        // Only a running turn changes state: a request outside one leaves the session idle.
        let Some(session_id) = session_id.filter(|s| self.has_running_prompt(s)) else {
            return Ok(asking.await?);
        };
        let cursors = self.cursors();
        let first = cursors.start_waiting(session_id);
        // Counted until answered, or until this future is dropped (the turn was cancelled).
        let waiting = Waiting {
            cursors,
            session_id,
            answered: false,
        };
        if first {
            let state = v2::RequiresActionStateUpdate::new();
            self.send_state(session_id, v2::StateUpdate::RequiresAction(state))
                .await?;
        }
        let answer = asking.await;
        if waiting.answered() && self.has_running_prompt(session_id) {
            let state = v2::RunningStateUpdate::new();
            self.send_state(session_id, v2::StateUpdate::Running(state))
                .await?;
        }
        Ok(answer?)
    }
}

/// A stamped v1 message chunk of plain text, borrowed, written as the v2 `session/update`
/// [`convert::update_to_v2`] would make of it: `{"sessionId", "update": {"sessionUpdate",
/// "messageId", "content": {"type": "text", "text"}}}`, in that order. Only for a chunk with
/// nothing else (no annotations, `_meta` or unknown fields), whose v2 form has nothing else
/// either.
pub(crate) struct TextChunk<'a> {
    session_id: &'a SessionId,
    /// The `sessionUpdate` tag, the same in both versions.
    kind: &'static str,
    message_id: &'a MessageId,
    text: &'a str,
}

impl<'a> TextChunk<'a> {
    /// `update` of `session_id` when it is a stamped message chunk of plain text.
    pub(crate) fn of(session_id: &'a SessionId, update: &'a SessionUpdate) -> Option<Self> {
        let (kind, chunk) = match update {
            SessionUpdate::AgentMessageChunk(c) => ("agent_message_chunk", c),
            SessionUpdate::AgentThoughtChunk(c) => ("agent_thought_chunk", c),
            SessionUpdate::UserMessageChunk(c) => ("user_message_chunk", c),
            _ => return None,
        };
        let ContentBlock::Text(text) = &chunk.content else {
            return None;
        };
        let plain = chunk.meta.is_none()
            && chunk.extras().is_empty()
            && text.annotations.is_none()
            && text.meta.is_none()
            && text.extras().is_empty();
        Some(Self {
            session_id,
            kind,
            message_id: chunk.message_id.as_ref().filter(|_| plain)?,
            text: &text.text,
        })
    }
}

impl serde::Serialize for TextChunk<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("sessionId", self.session_id)?;
        map.serialize_entry("update", &ChunkUpdate(self))?;
        map.end()
    }
}

/// The `update` of a [`TextChunk`].
struct ChunkUpdate<'a>(&'a TextChunk<'a>);

impl serde::Serialize for ChunkUpdate<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("sessionUpdate", self.0.kind)?;
        map.serialize_entry("messageId", self.0.message_id)?;
        map.serialize_entry("content", &ChunkText(self.0.text))?;
        map.end()
    }
}

/// The `content` of a [`TextChunk`].
struct ChunkText<'a>(&'a str);

impl serde::Serialize for ChunkText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "text")?;
        map.serialize_entry("text", self.0)?;
        map.end()
    }
}

/// A request the user answers, counted among its session's waiting ones until answered or
/// dropped.
struct Waiting<'a> {
    cursors: &'a super::Cursors,
    session_id: &'a SessionId,
    answered: bool,
}

impl Waiting<'_> {
    /// Stops counting it; true when no request of the session waits any more.
    fn answered(mut self) -> bool {
        self.answered = true;
        self.cursors.stop_waiting(self.session_id)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.answered {
            self.cursors.stop_waiting(self.session_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of `update` of session `s` through the typed conversion.
    fn converted(update: &SessionUpdate) -> String {
        let v2_update = convert::update_to_v2(update.clone()).expect("a v2 update");
        let notification = v2::UpdateSessionNotification::new("s", v2_update);
        serde_json::to_string(&notification).expect("serializable")
    }

    #[test]
    fn a_plain_text_chunk_is_written_as_its_conversion_is() {
        let session = SessionId::from("s");
        let texts = [
            "hello",
            "",
            "quote \" backslash \\ newline \n tab \t \u{1} é 🦀",
        ];
        for text in texts {
            let chunk = || {
                let mut chunk = ContentChunk::new(text);
                chunk.message_id = Some(MessageId::from("msg-1"));
                chunk
            };
            for (update, kind) in [
                (SessionUpdate::AgentMessageChunk(chunk()), "agent"),
                (SessionUpdate::AgentThoughtChunk(chunk()), "thought"),
                (SessionUpdate::UserMessageChunk(chunk()), "user"),
            ] {
                let chunk = TextChunk::of(&session, &update).expect("a plain text chunk");
                let direct = serde_json::to_string(&chunk).expect("serializable");
                assert_eq!(direct, converted(&update), "{kind} chunk {text:?}");
            }
        }
    }

    #[test]
    fn a_chunk_with_more_than_text_takes_the_conversion() {
        let session = SessionId::from("s");
        let stamped = |mut chunk: ContentChunk| {
            chunk.message_id = Some(MessageId::from("msg-1"));
            SessionUpdate::AgentMessageChunk(chunk)
        };
        let unstamped = SessionUpdate::AgentMessageChunk(ContentChunk::new("a"));
        assert!(
            TextChunk::of(&session, &unstamped).is_none(),
            "no messageId"
        );
        let mut meta = Meta::new();
        meta.insert("k".into(), 1.into());
        let with_meta = stamped(ContentChunk::new("a").meta(meta.clone()));
        assert!(
            TextChunk::of(&session, &with_meta).is_none(),
            "the chunk's _meta"
        );
        let annotated = stamped(ContentChunk::new(TextContent::new("a").meta(meta)));
        assert!(
            TextChunk::of(&session, &annotated).is_none(),
            "the text's _meta"
        );
        let image = stamped(ContentChunk::new(ImageContent::new("AAAA", "image/png")));
        assert!(TextChunk::of(&session, &image).is_none(), "not text");
        let plan = SessionUpdate::Plan(Plan::new(vec![]));
        assert!(TextChunk::of(&session, &plan).is_none(), "not a chunk");
    }
}
