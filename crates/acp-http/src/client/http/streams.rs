//! The event streams: the connection's, opened after `initialize` (in the `client_id` profile,
//! the only one, opened before anything is posted), and one per session, opened before the
//! first `POST` for the session and whenever a result names a new session. Their events feed
//! the inbox; what routing needs is noted on the way.

use std::sync::Arc;

use reqwest::header::{ACCEPT, HeaderValue};
use tokio::sync::oneshot;

use super::{
    Error, Http, MAX_BODY_EXCERPT, MAX_ROUTES, MAX_SESSION_STREAMS, Mode, Refusal, SessionStream,
    excerpt, is_fatal, transport_error, within,
};
use crate::SESSION_ID;
use crate::message::{Shape, shape};
use crate::sse::{Event, SseParser};

impl Http {
    /// What routing learns from a message of the agent: answered requests, the session stream
    /// an agent request came on, new sessions (whose streams open at once).
    pub(super) fn note_incoming(&self, shape: &Shape, stream_session: Option<&str>) {
        let mut state = self.lock();
        if let Some(id) = shape.id.as_deref() {
            if shape.is_response() {
                state.pending.remove(id);
            } else if let Some(session) = stream_session {
                if state.routes.len() < MAX_ROUTES {
                    state.routes.insert(id.to_owned(), session.to_owned());
                } else {
                    tracing::warn!("too many unanswered agent requests: not all are routed");
                }
            }
        }
        drop(state);
        if let (Mode::Streamable { .. }, Some(session)) = (&self.mode, &shape.result_session) {
            self.ensure_session_stream(session);
        }
    }

    /// Starts opening a session's stream, unless it is open, opening, or failed.
    pub(super) fn ensure_session_stream(&self, session: &str) {
        if HeaderValue::from_str(session).is_err() {
            tracing::warn!(
                session,
                "a session id that cannot be a header: no stream for it"
            );
            return;
        }
        let mut state = self.lock();
        if state.sessions.contains_key(session) || state.sessions.len() >= MAX_SESSION_STREAMS {
            return;
        }
        state
            .sessions
            .insert(session.to_owned(), SessionStream::Opening(Vec::new()));
        drop(state);
        self.spawn_session_stream(session.to_owned());
    }

    /// Waits until the session's stream is open, opening it if needed.
    pub(super) async fn session_stream(&self, session: &str, reopen: bool) -> Result<(), Refusal> {
        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.lock();
            match state.sessions.get_mut(session) {
                Some(SessionStream::Open) => return Ok(()),
                Some(SessionStream::Failed { reason, .. }) if !reopen => {
                    return Err(Refusal::Failed(reason.clone()));
                }
                Some(entry @ SessionStream::Failed { reading: true, .. }) => {
                    // Loaded again, on the stream still open.
                    *entry = SessionStream::Open;
                    return Ok(());
                }
                Some(SessionStream::Opening(waiters)) => waiters.push(tx),
                entry => {
                    if entry.is_none() && state.sessions.len() >= MAX_SESSION_STREAMS {
                        return Err(Refusal::TooMany);
                    }
                    state
                        .sessions
                        .insert(session.to_owned(), SessionStream::Opening(vec![tx]));
                    drop(state);
                    self.spawn_session_stream(session.to_owned());
                }
            }
        }
        rx.await.unwrap_or(Err(Refusal::Ended))
    }

    /// Hands the loop a task that opens the session's stream, tells the waiters, then reads it.
    pub(super) fn spawn_session_stream(&self, session: String) {
        let Some(this) = self.me.upgrade() else {
            return;
        };
        let task = Box::pin(async move { this.session_task(session).await });
        if self.streams.send(task).is_err() {
            tracing::debug!("a session stream was not opened: the connection is stopping");
        }
    }

    /// Opens a session's stream, tells the waiters, then reads the stream.
    pub(super) async fn session_task(self: Arc<Self>, session: String) {
        let opened = self.open(Some(&session)).await;
        let outcome = match &opened {
            Ok(_) => Ok(()),
            Err(e @ Error::Status { status: 409, .. }) => Err(Refusal::Failed(e.to_string())),
            Err(e @ Error::Status { status, body, .. }) if !is_fatal(*status) => {
                Err(Refusal::Status {
                    message: e.to_string(),
                    status: *status,
                    body: body.clone(),
                })
            }
            Err(_) => Err(Refusal::Ended),
        };
        let waiters = {
            let mut state = self.lock();
            let previous = match &outcome {
                Ok(()) => state.sessions.insert(session.clone(), SessionStream::Open),
                Err(Refusal::Failed(reason)) => state.sessions.insert(
                    session.clone(),
                    SessionStream::Failed {
                        reason: reason.clone(),
                        reading: false,
                    },
                ),
                Err(_) => state.sessions.remove(&session),
            };
            match previous {
                Some(SessionStream::Opening(waiters)) => waiters,
                _ => Vec::new(),
            }
        };
        if let Err(Refusal::Failed(reason)) = &outcome {
            self.fail_pending_of(&session, reason);
        }
        for waiter in waiters {
            let _ = waiter.send(outcome.clone());
        }
        match opened {
            Ok(response) => {
                if let Some(error) = self.read(response, Some(&session)).await {
                    tracing::debug!(session, %error, "a session's event stream broke");
                }
                self.session_stream_ended(&session);
            }
            Err(Error::Status { status, .. }) if !is_fatal(status) => {}
            Err(error) => self.link.fail(error),
        }
    }

    /// The agent answered `409` for a session: it failed until loaded or resumed again.
    pub(super) fn fail_session(&self, session: &str, reason: &str) {
        let previous = {
            let mut state = self.lock();
            let reading = match state.sessions.get(session) {
                Some(SessionStream::Open) => true,
                Some(SessionStream::Failed { reading, .. }) => *reading,
                _ => false,
            };
            state.sessions.insert(
                session.to_owned(),
                SessionStream::Failed {
                    reason: reason.to_owned(),
                    reading,
                },
            )
        };
        if let Some(SessionStream::Opening(waiters)) = previous {
            for waiter in waiters {
                let _ = waiter.send(Err(Refusal::Failed(reason.to_owned())));
            }
        }
        self.fail_pending_of(session, reason);
    }

    /// Answers every pending request of a session with an error.
    pub(super) fn fail_pending_of(&self, session: &str, reason: &str) {
        let ids: Vec<String> = {
            let mut state = self.lock();
            let ids = state
                .pending
                .iter()
                .filter(|(_, s)| s.as_deref() == Some(session))
                .map(|(id, _)| id.clone())
                .collect();
            for id in &ids {
                state.pending.remove(id);
            }
            ids
        };
        let message = format!("session {session} failed: {reason}");
        for id in ids {
            self.answer_error(&id, &message, None);
        }
    }

    /// A session's stream ended: its pending requests fail; the next message for the session
    /// opens the stream again.
    pub(super) fn session_stream_ended(&self, session: &str) {
        if self.link.is_stopping() {
            return;
        }
        {
            let mut state = self.lock();
            match state.sessions.get_mut(session) {
                Some(SessionStream::Open) => {
                    state.sessions.remove(session);
                }
                Some(SessionStream::Failed { reading, .. }) => *reading = false,
                _ => {}
            }
        }
        tracing::debug!(session, "a session's event stream ended");
        self.fail_pending_of(session, "its event stream ended before the answer");
    }

    /// `GET`s an event stream (the connection's, or a session's), until its headers.
    pub(crate) async fn open(&self, session: Option<&str>) -> Result<reqwest::Response, Error> {
        let url = self.stream_url();
        let mut request = self
            .client
            .get(url.clone())
            .headers(self.settings.headers.clone())
            .header(ACCEPT, "text/event-stream");
        let connection_id = self.lock().connection_id.clone();
        if let Some(id) = connection_id {
            request = request.headers(self.connection_headers(id));
        }
        if let Some(session) = session {
            let value = HeaderValue::from_str(session).map_err(|_| {
                Error::InvalidOption(
                    "the session id cannot be sent as an Acp-Session-Id header".into(),
                )
            })?;
            request = request.header(SESSION_ID, value);
        }
        within(self.settings.connect_timeout, "GET", url, async move {
            let mut response = request
                .send()
                .await
                .map_err(|e| transport_error("GET", url, e))?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            let mut body = Vec::new();
            while body.len() < MAX_BODY_EXCERPT {
                match response.chunk().await {
                    Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                    _ => break,
                }
            }
            Err(Error::Status {
                action: "GET",
                url: url.to_string(),
                status: status.as_u16(),
                body: excerpt(&body),
            })
        })
        .await
    }

    /// Hands the loop the reader of the connection's stream (in the `client_id` profile, the
    /// only stream), whose end ends the connection.
    pub(crate) fn start_connection_reader(&self, response: reqwest::Response) {
        let Some(this) = self.me.upgrade() else {
            return;
        };
        let task = Box::pin(async move {
            let end = this.read(response, None).await;
            let url = this.stream_url().to_string();
            this.link.fail(end.unwrap_or(Error::StreamEnded { url }));
        });
        let _ = self.streams.send(task);
    }

    /// Reads a stream to its end, feeding the inbox. Returns the error that ended it, if any.
    pub(super) async fn read(
        &self,
        mut response: reqwest::Response,
        session: Option<&str>,
    ) -> Option<Error> {
        let url = self.stream_url();
        let mut parser = SseParser::new(self.settings.max_message_bytes);
        let mut events = Vec::new();
        loop {
            let chunk = match self.settings.stream_idle_timeout {
                Some(after) => match tokio::time::timeout(after, response.chunk()).await {
                    Ok(chunk) => chunk,
                    Err(_) => {
                        return Some(Error::Timeout {
                            action: "GET (stream idle)",
                            url: url.to_string(),
                            after,
                        });
                    }
                },
                None => response.chunk().await,
            };
            match chunk {
                Ok(Some(chunk)) => parser.feed(&chunk, &mut |event| events.push(event)),
                Ok(None) => {
                    parser.finish(&mut |event| events.push(event));
                    self.deliver(&mut events, session).await;
                    return None;
                }
                Err(e) => {
                    self.deliver(&mut events, session).await;
                    return Some(transport_error("GET", url, e));
                }
            }
            self.deliver(&mut events, session).await;
        }
    }

    /// Feeds the inbox the stream's events: JSON objects only.
    pub(super) async fn deliver(&self, events: &mut Vec<Event>, session: Option<&str>) {
        for event in events.drain(..) {
            match event {
                Event::Data(data) => match shape(&data) {
                    Ok(shape) => {
                        self.note_incoming(&shape, session);
                        self.link.inbox.push(data).await;
                    }
                    Err(why) => {
                        tracing::warn!(url = %self.stream_url(), session, %why, "skipped an event");
                    }
                },
                Event::Oversized { limit } => tracing::warn!(
                    url = %self.stream_url(),
                    session,
                    limit,
                    "skipped an event over the message limit"
                ),
            }
        }
    }
}
