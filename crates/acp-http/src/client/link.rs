//! What the transport, the driver and the [`Connection`] handle share: the inbox, the stop
//! signal, the first fatal error, and what is known of the connection.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::pipe::{INBOX_BYTES, Inbox};
use super::{Error, Profile};

/// The state shared by one connection's parts.
#[derive(Debug)]
pub(crate) struct Link {
    /// The URL connected to, for messages.
    pub(crate) url: String,
    pub(crate) profile: Profile,
    /// The messages from the agent, on their way to the driver.
    pub(crate) inbox: Arc<Inbox>,
    /// `Acp-Connection-Id` (or the `client_id`), once known.
    connection_id: Mutex<Option<String>>,
    /// The first error that ended the connection.
    fatal: Mutex<Option<Error>>,
    /// True once the transport should stop.
    stopping: AtomicBool,
    /// True once the connection was closed cleanly (by [`Connection::close`], or by the agent
    /// closing the WebSocket): errors of the driver after that are the transport stopping.
    closed: AtomicBool,
    stop: Notify,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Link {
    pub(crate) fn new(url: String, profile: Profile) -> Self {
        Self {
            url,
            profile,
            inbox: Arc::new(Inbox::new(INBOX_BYTES)),
            connection_id: Mutex::new(None),
            fatal: Mutex::new(None),
            stopping: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            stop: Notify::new(),
        }
    }

    pub(crate) fn set_connection_id(&self, id: String) {
        *lock(&self.connection_id) = Some(id);
    }

    pub(crate) fn connection_id(&self) -> Option<String> {
        lock(&self.connection_id).clone()
    }

    /// Ends the connection with an error: the driver's incoming stream fails (after the
    /// messages already received), so pending calls fail at once, and the transport stops.
    /// Only the first error is kept.
    pub(crate) fn fail(&self, error: Error) {
        let message = error.to_string();
        {
            let mut fatal = lock(&self.fatal);
            if fatal.is_none() && !self.is_stopping() {
                tracing::warn!(url = %self.url, %message, "remote ACP connection failed");
                *fatal = Some(error);
            } else {
                tracing::debug!(url = %self.url, %message, "after the end of the connection");
            }
        }
        self.inbox.fail(io::Error::other(message));
        self.request_stop();
    }

    /// Ends the connection cleanly: the driver's incoming stream ends, and the transport
    /// stops (sending `DELETE`, or a WebSocket close frame).
    pub(crate) fn close(&self) {
        if !self.is_stopping() {
            self.closed.store(true, Ordering::Release);
        }
        self.inbox.close();
        self.request_stop();
    }

    /// True when the connection was closed cleanly, before anything failed.
    pub(crate) fn closed_cleanly(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The error that ended the connection, if one did.
    pub(crate) fn take_fatal(&self) -> Option<Error> {
        lock(&self.fatal).take()
    }

    pub(crate) fn request_stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.stop.notify_waiters();
    }

    pub(crate) fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    /// Resolves once the transport should stop.
    pub(crate) async fn stopped(&self) {
        loop {
            let notified = self.stop.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if self.is_stopping() {
                return;
            }
            notified.await;
        }
    }
}

/// A handle on a remote connection: what it is, and a way to close it. Cheap to clone; get
/// one from [`RemoteDriver::connection`](super::RemoteDriver::connection).
#[derive(Debug, Clone)]
pub struct Connection {
    pub(crate) link: Arc<Link>,
}

impl Connection {
    /// The URL connected to.
    pub fn url(&self) -> &str {
        &self.link.url
    }

    /// The profile in use.
    pub fn profile(&self) -> Profile {
        self.link.profile
    }

    /// The connection's id, for logs: the `Acp-Connection-Id` the agent gave (Streamable HTTP:
    /// once `initialize` was answered; WebSocket: from the handshake, if the agent sent one), or
    /// the `client_id` this client chose. Only a routing identifier, not a secret.
    pub fn connection_id(&self) -> Option<String> {
        self.link.connection_id()
    }

    /// Closes the connection: pending calls fail with a closed-connection error, the transport
    /// says goodbye (`DELETE` for Streamable HTTP, a close frame for WebSocket), and the
    /// [`RemoteDriver`](super::RemoteDriver) resolves with `Ok(())`.
    pub fn close(&self) {
        self.link.close();
    }

    /// True once the connection is closing or closed.
    pub fn is_closed(&self) -> bool {
        self.link.is_stopping()
    }
}
