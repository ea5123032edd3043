//! The future that runs a remote connection: the JSON-RPC driver and the transport, polled
//! together.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::FutureExt;
use futures::future::BoxFuture;

use super::Error;
use super::link::{Connection, Link};

/// Says goodbye without waiting (a detached `DELETE`), for a driver dropped early.
pub(crate) type Goodbye = Box<dyn FnOnce() + Send>;

/// The future that runs a remote connection; see [`connect`](super::connect).
///
/// Poll it (usually `tokio::spawn(driver)`) for the connection to make progress. It resolves
/// when the connection ends: `Ok(())` after [`Connection::close`] or when the agent closed the
/// WebSocket, an [`Error`] saying why otherwise (a lost event stream, a `404` for the
/// connection, ...). Either way every pending call has failed by then, and the transport said
/// goodbye (`DELETE` for Streamable HTTP, a close frame for WebSocket; failures ignored,
/// bounded by [`ConnectOptions::close_timeout`](super::ConnectOptions::close_timeout)).
///
/// Dropping it closes the connection at once; the `DELETE` then goes out from a task of its
/// own (when a Tokio runtime is running).
#[must_use = "the connection does nothing unless its driver is polled"]
pub struct RemoteDriver {
    rpc: Option<acp_rpc::Driver>,
    rpc_result: Option<Result<(), acp_rpc::Error>>,
    transport: Option<BoxFuture<'static, ()>>,
    link: Arc<Link>,
    /// Says goodbye without waiting, when dropped before the transport finished.
    on_drop: Option<Goodbye>,
}

impl fmt::Debug for RemoteDriver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteDriver")
            .field("url", &self.link.url)
            .field("profile", &self.link.profile)
            .field("running", &self.rpc.is_some())
            .finish_non_exhaustive()
    }
}

impl RemoteDriver {
    pub(crate) fn new(
        rpc: acp_rpc::Driver,
        transport: BoxFuture<'static, ()>,
        link: Arc<Link>,
        on_drop: Option<Goodbye>,
    ) -> Self {
        Self {
            rpc: Some(rpc),
            rpc_result: None,
            transport: Some(transport),
            link,
            on_drop,
        }
    }

    /// A handle on the connection: its id, its profile, and [`Connection::close`].
    pub fn connection(&self) -> Connection {
        Connection {
            link: self.link.clone(),
        }
    }
}

impl Future for RemoteDriver {
    type Output = Result<(), Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Some(rpc) = this.rpc.as_mut() {
            if let Poll::Ready(result) = rpc.poll_unpin(cx) {
                this.rpc = None;
                this.rpc_result = Some(result);
                // The connection is over: the transport says goodbye and stops.
                this.link.request_stop();
            }
        }
        if let Some(transport) = this.transport.as_mut() {
            if transport.poll_unpin(cx).is_ready() {
                this.transport = None;
                this.on_drop = None;
            }
        }
        if this.rpc.is_some() || this.transport.is_some() {
            return Poll::Pending;
        }
        let rpc_result = this.rpc_result.take().unwrap_or(Ok(()));
        Poll::Ready(match (this.link.take_fatal(), rpc_result) {
            (Some(fatal), _) => Err(fatal),
            // Closed: the driver may have seen the transport stop before the end of input.
            (None, _) if this.link.closed_cleanly() => Ok(()),
            (None, Ok(())) => Ok(()),
            (None, Err(e)) => Err(Error::Rpc(e)),
        })
    }
}

impl Drop for RemoteDriver {
    fn drop(&mut self) {
        self.link.request_stop();
        if let Some(goodbye) = self.on_drop.take() {
            goodbye();
        }
    }
}
