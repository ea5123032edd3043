//! Serving the endpoint on a listener, with the bounds of a production HTTP server on every TCP
//! connection: a cap on connections (server-wide and per client address), a deadline for each
//! request's headers (which also closes keep-alive connections left idle between requests),
//! and at most so many HTTP/2 streams per connection.
//!
//! axum's own `serve` has none of these: a client that opens sockets and never sends a request
//! (or sends its headers a byte at a time) holds them forever, until the process runs out of
//! descriptors and nobody else gets in.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};
use tower_service::Service as _;

use crate::server::AcpServer;

/// The accept queue [`bind`] asks for: 4,096 connections (the kernel may cap it, Linux at
/// `net.core.somaxconn`).
pub const LISTEN_BACKLOG: u32 = 4096;

/// A TCP listener on `addr` for [`serve`], with an accept queue of [`LISTEN_BACKLOG`]
/// connections (`TcpListener::bind` asks for 1,024).
///
/// When many clients connect at once while the server is busy (a thousand editors
/// reconnecting, or each opening a connection for its next POST while its SSE streams hold the
/// others), connections beyond the queue are dropped by the kernel and the client's TCP waits
/// a second before it tries again: a deeper queue absorbs the burst. The first address `addr`
/// resolves to that can be bound is used.
///
/// # Errors
///
/// When `addr` does not resolve, or no address it resolves to can be bound.
pub async fn bind(
    addr: impl tokio::net::ToSocketAddrs,
) -> std::io::Result<tokio::net::TcpListener> {
    let mut last_error = None;
    for addr in tokio::net::lookup_host(addr).await? {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        // As `TcpListener::bind` does: a restarted server binds its port again at once.
        #[cfg(unix)]
        socket.set_reuseaddr(true)?;
        match socket
            .bind(addr)
            .and_then(|()| socket.listen(LISTEN_BACKLOG))
        {
            Ok(listener) => return Ok(listener),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the address resolved to nothing",
        )
    }))
}

/// Serves `server` on `listener` until `shutdown` resolves; then every connection ends
/// (open SSE bodies end, WebSockets close) and the function returns once the listener is
/// closed, the HTTP connections have finished, and the bridged agent programs are stopped (see
/// [`AcpServer::bridge`]; bounded by their grace periods).
///
/// Every TCP connection is bounded as [`ServerOptions`](crate::server::ServerOptions) says:
/// [`max_tcp_connections`](crate::server::ServerOptions::max_tcp_connections) at once (further
/// clients wait in the accept queue), at most
/// [`max_tcp_connections_per_client`](crate::server::ServerOptions::max_tcp_connections_per_client)
/// from one address (further ones are closed at once), each request's headers within
/// [`header_timeout`](crate::server::ServerOptions::header_timeout) (which also closes a
/// keep-alive connection idle for that long between requests). Mounting
/// [`AcpServer::router`] in a server of your own leaves these to that server.
///
/// Bind the listener to `127.0.0.1` unless the agent must be reached from elsewhere (and then
/// set [`ServerOptions::auth`](crate::server::ServerOptions::auth)); [`bind`] makes one with a
/// deep accept queue.
///
/// # Errors
///
/// When the listener fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    server: AcpServer,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_on(listener, server, shutdown).await
}

/// Serves `server` over TLS (`https://`, `wss://`; feature `server-tls`) on `listener` until
/// `shutdown` resolves, as [`serve`] does over plain TCP. `config` holds the certificate
/// (see [`tls_config_from_pem`](crate::server::tls_config_from_pem)); HTTP/2 is offered by
/// ALPN unless `config` names its own protocols. Handshakes run concurrently, each within
/// [`HANDSHAKE_TIMEOUT`](crate::server::HANDSHAKE_TIMEOUT) (see
/// [`TlsListener`](crate::server::TlsListener)).
///
/// # Errors
///
/// When the listener fails.
#[cfg(feature = "server-tls")]
pub async fn serve_tls(
    listener: tokio::net::TcpListener,
    config: impl Into<Arc<rustls::ServerConfig>>,
    server: AcpServer,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_on(
        crate::server::TlsListener::new(listener, config)?,
        server,
        shutdown,
    )
    .await
}

/// Serves `server` on any listener until `shutdown` resolves. Each request carries the peer's
/// address as axum's `ConnectInfo<SocketAddr>`.
async fn serve_on<L>(
    mut listener: L,
    server: AcpServer,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: axum::serve::Listener<Addr = SocketAddr>,
{
    let options = &server.inner.options;
    let router = server.router();
    let sockets = Sockets::new(
        options.max_tcp_connections,
        options.max_tcp_connections_per_client,
        options.limit_loopback_clients,
    );
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_timeout)
        .max_buf_size(MAX_HEADER_BUFFER);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(options.max_streams_per_tcp_connection)
        .max_header_list_size(MAX_HEADER_BUFFER as u32)
        // An h2 connection whose peer stopped answering pings is closed.
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(Duration::from_secs(20))
        .enable_connect_protocol();
    let builder = Arc::new(builder);

    // `stop` tells the connections to finish (graceful shutdown); `done` counts them.
    let (stop_tx, stop_rx) = watch::channel(false);
    let (done_tx, done_rx) = watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (io, addr) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let Some(address) = sockets.admit(addr.ip()) else {
            // Over the per-client cap: closed at once (dropping the socket).
            continue;
        };
        let slot = match sockets.try_slot() {
            Some(slot) => slot,
            None => {
                // At the cap: a connection that never made a request (silent, or dripping
                // its headers) gives way to this one, so that a flood of idle sockets cannot
                // keep everyone else waiting. When all of them are in use, this one waits
                // for a slot, and the next clients in the kernel's accept queue.
                sockets.evict_one_unserved();
                tokio::select! {
                    slot = sockets.slot() => slot,
                    () = &mut shutdown => break,
                }
            }
        };
        let pending = sockets.pending();
        let io = TokioIo::new(Guarded {
            io,
            _slot: slot,
            _address: address,
            pending: pending.clone(),
        });
        let header_timeout = options.header_timeout;
        let router = router.clone();
        let served = pending.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            served.served.store(true, Ordering::Relaxed);
            request.extensions_mut().insert(ConnectInfo(addr));
            let mut router = router.clone();
            async move { router.call(request.map(Body::new)).await }
        });
        let builder = builder.clone();
        let mut stop = stop_rx.clone();
        let done = done_rx.clone();
        tokio::spawn(async move {
            let conn = builder.serve_connection_with_upgrades(io, service);
            let mut conn = std::pin::pin!(conn);
            // hyper's header timeout starts once the first bytes told HTTP/1.1 from HTTP/2: a
            // client that sends nothing at all is this one's.
            let silence = tokio::time::sleep(header_timeout);
            let mut silence = std::pin::pin!(silence);
            let mut listening = true;
            loop {
                tokio::select! {
                    () = pending.evict.notified() => {
                        tracing::debug!(%addr, "closing a connection that made no request, for a new one");
                        break;
                    }
                    () = &mut silence, if listening => {
                        if !pending.heard.load(Ordering::Relaxed) {
                            tracing::trace!(%addr, "closing a connection that sent nothing");
                            break;
                        }
                        listening = false;
                    }
                    result = conn.as_mut() => {
                        if let Err(error) = result {
                            tracing::trace!(%error, %addr, "an HTTP connection ended with an error");
                        }
                        break;
                    }
                    changed = stop.changed() => {
                        if changed.is_err() || *stop.borrow() {
                            conn.as_mut().graceful_shutdown();
                            // Wait for it to finish, without watching `stop` again.
                            let _ = conn.as_mut().await;
                            break;
                        }
                    }
                }
            }
            drop(done);
        });
    }
    drop(listener);
    // Every connection ends (SSE bodies end, WebSockets close), then HTTP connections finish
    // their responses; idle keep-alive ones close at once.
    server.shutdown();
    let _ = stop_tx.send(true);
    drop(done_rx);
    done_tx.closed().await;
    // Bridged agent programs stop in the background once shut down: wait for them (bounded).
    server.inner.backend.stopped().await;
    Ok(())
}

/// The most bytes of one request's headers (HTTP/1.1 read buffer, HTTP/2 header list).
const MAX_HEADER_BUFFER: usize = 64 * 1024;

/// The TCP connections of one server: a server-wide cap (a semaphore whose permits the
/// connections hold), the count per client address, and the connections that have not made a
/// request yet (the first to give way at the cap).
struct Sockets {
    slots: Arc<Semaphore>,
    max: usize,
    per_client: usize,
    /// Count loopback addresses too (see `ServerOptions::limit_loopback_clients`).
    limit_loopback: bool,
    by_address: Arc<Mutex<HashMap<IpAddr, usize>>>,
    /// The connections in the order they came, pruned as they make requests or end.
    unserved: Mutex<VecDeque<Weak<Pending>>>,
    /// When the last per-client refusal was logged, to keep the log bounded under a flood.
    logged: Mutex<Option<std::time::Instant>>,
}

/// What the accept loop knows of a connection while it has made no request.
#[derive(Default)]
struct Pending {
    /// The client sent a byte.
    heard: AtomicBool,
    /// The client made a request (its headers were read).
    served: AtomicBool,
    /// Tells the connection to give way to a newer one.
    evict: Notify,
}

impl Sockets {
    fn new(max: usize, per_client: usize, limit_loopback: bool) -> Self {
        let max = max.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            slots: Arc::new(Semaphore::new(max)),
            max,
            per_client: per_client.max(1),
            limit_loopback,
            by_address: Arc::new(Mutex::new(HashMap::new())),
            unserved: Mutex::new(VecDeque::new()),
            logged: Mutex::new(None),
        }
    }

    /// A slot for one more connection, if there is room now.
    fn try_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.clone().try_acquire_owned().ok()
    }

    /// Waits for room for one more connection.
    async fn slot(&self) -> OwnedSemaphorePermit {
        match self.slots.clone().acquire_owned().await {
            Ok(permit) => permit,
            // The semaphore is never closed.
            Err(_) => unreachable!("the connection semaphore is never closed"),
        }
    }

    /// A new connection's [`Pending`], registered as the newest that made no request.
    fn pending(&self) -> Arc<Pending> {
        let pending = Arc::new(Pending::default());
        let mut unserved = self.unserved.lock().unwrap_or_else(PoisonError::into_inner);
        if unserved.len() >= self.max.saturating_mul(2) {
            unserved.retain(|p| {
                p.upgrade()
                    .is_some_and(|p| !p.served.load(Ordering::Relaxed))
            });
        }
        unserved.push_back(Arc::downgrade(&pending));
        pending
    }

    /// Tells the oldest connection that made no request to close; false when there is none.
    fn evict_one_unserved(&self) -> bool {
        let mut unserved = self.unserved.lock().unwrap_or_else(PoisonError::into_inner);
        while let Some(weak) = unserved.pop_front() {
            if let Some(pending) = weak.upgrade()
                && !pending.served.load(Ordering::Relaxed)
            {
                pending.evict.notify_one();
                return true;
            }
        }
        false
    }

    /// Counts a connection from `ip`; `None` when `ip` already has its share. Loopback
    /// addresses are not counted unless asked.
    fn admit(&self, ip: IpAddr) -> Option<AddressGuard> {
        let ip = ip.to_canonical();
        if ip.is_loopback() && !self.limit_loopback {
            return Some(AddressGuard {
                ip: None,
                by_address: self.by_address.clone(),
            });
        }
        let mut by_address = self
            .by_address
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let count = by_address.entry(ip).or_insert(0);
        if *count >= self.per_client {
            drop(by_address);
            self.log_refusal(ip);
            return None;
        }
        *count += 1;
        Some(AddressGuard {
            ip: Some(ip),
            by_address: self.by_address.clone(),
        })
    }

    fn log_refusal(&self, ip: IpAddr) {
        let mut logged = self.logged.lock().unwrap_or_else(PoisonError::into_inner);
        let now = std::time::Instant::now();
        if logged.is_none_or(|at| now.duration_since(at) >= Duration::from_secs(10)) {
            *logged = Some(now);
            tracing::warn!(
                %ip,
                max = self.per_client,
                "closing TCP connections over the per-client limit (logged once per 10 s)"
            );
        }
    }
}

/// Holds a connection's place in its address's count while its socket lives, also after a
/// WebSocket upgrade took the socket.
struct AddressGuard {
    /// The address counted, `None` when not counted (loopback).
    ip: Option<IpAddr>,
    by_address: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Drop for AddressGuard {
    fn drop(&mut self) {
        let Some(ip) = self.ip else {
            return;
        };
        let mut by_address = self
            .by_address
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = by_address.get_mut(&ip) {
            *count -= 1;
            if *count == 0 {
                by_address.remove(&ip);
            }
        }
    }
}

/// A socket with its slot and its address's count (given back when it closes), noting when
/// the client first sent something.
struct Guarded<T> {
    io: T,
    _slot: OwnedSemaphorePermit,
    _address: AddressGuard,
    pending: Arc<Pending>,
}

impl<T: AsyncRead + Unpin> AsyncRead for Guarded<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.io).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.pending.heard.store(true, Ordering::Relaxed);
        }
        read
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Guarded<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// The default [`max_tcp_connections`](crate::server::ServerOptions::max_tcp_connections):
/// half the process's open-file limit (each connection is one descriptor; the rest is left for
/// agents, bridged programs and files), between 64 and 16,384; 1,024 where the limit cannot be
/// read.
pub(crate) fn default_max_tcp_connections() -> usize {
    #[cfg(unix)]
    {
        // `None`: no limit.
        match rustix::process::getrlimit(rustix::process::Resource::Nofile).current {
            Some(limit) => usize::try_from(limit / 2)
                .unwrap_or(usize::MAX)
                .clamp(64, 16_384),
            None => 16_384,
        }
    }
    #[cfg(not(unix))]
    {
        1024
    }
}
