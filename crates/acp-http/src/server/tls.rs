//! TLS for the server (feature `server-tls`): a listener that completes TLS handshakes concurrently,
//! each bounded in time, and a server configuration read from PEM files.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// How long a client has to complete its TLS handshake before the connection is dropped.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How many TLS handshakes may run at once (counting connections whose handshake completed
/// and that the server has not taken yet); further connections wait to be accepted (in the
/// kernel's backlog) until one ends.
pub const MAX_HANDSHAKES: usize = 256;

/// Connections whose handshake completed, waiting for the server to take them.
const READY_QUEUE: usize = 64;

/// A TLS listener for [`serve_tls`](super::serve_tls), or for an `axum::serve` of a router of
/// your own (it implements `axum::serve::Listener`).
///
/// Handshakes run concurrently (at most [`MAX_HANDSHAKES`]), each within
/// [`HANDSHAKE_TIMEOUT`]: a client that connects and stays silent, or fails its handshake,
/// delays no one. The ALPN protocols are `h2` and `http/1.1` unless the configuration names
/// its own.
///
/// ```no_run
/// # async fn run(server: acp_http::server::AcpServer) -> Result<(), Box<dyn std::error::Error>> {
/// use acp_http::server::{TlsListener, tls_config_from_pem};
///
/// let config = tls_config_from_pem(&std::fs::read("cert.pem")?, &std::fs::read("key.pem")?)?;
/// let tcp = acp_http::server::bind("0.0.0.0:8443").await?;
/// axum::serve(TlsListener::new(tcp, config)?, server.router()).await?;
/// # Ok(())
/// # }
/// # let _ = run;
/// ```
pub struct TlsListener {
    local: SocketAddr,
    /// Taken by the first `accept`, which starts the accepting task on the runtime.
    tcp: Option<TcpListener>,
    acceptor: TlsAcceptor,
    ready: Option<mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>>,
    accepting: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for TlsListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsListener")
            .field("local", &self.local)
            .finish_non_exhaustive()
    }
}

impl TlsListener {
    /// Serves TLS with `config` on `tcp`.
    ///
    /// # Errors
    ///
    /// When the listener's address cannot be read.
    pub fn new(
        tcp: TcpListener,
        config: impl Into<Arc<rustls::ServerConfig>>,
    ) -> std::io::Result<Self> {
        let mut config: Arc<rustls::ServerConfig> = config.into();
        if config.alpn_protocols.is_empty() {
            Arc::make_mut(&mut config).alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        }
        Ok(Self {
            local: tcp.local_addr()?,
            tcp: Some(tcp),
            acceptor: TlsAcceptor::from(config),
            ready: None,
            accepting: None,
        })
    }

    /// The address the listener is bound to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Starts accepting on the current runtime: TCP connections are taken as they come and
    /// their handshakes run as tasks of their own.
    fn start(&mut self) -> mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)> {
        let (ready_tx, ready) = mpsc::channel(READY_QUEUE);
        let tcp = self.tcp.take().expect("started once");
        let acceptor = self.acceptor.clone();
        let handshakes = Arc::new(Semaphore::new(MAX_HANDSHAKES));
        self.accepting = Some(tokio::spawn(async move {
            loop {
                let Ok(permit) = handshakes.clone().acquire_owned().await else {
                    return;
                };
                let (stream, addr) = match tcp.accept().await {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        // Out of file descriptors and the like: wait, then go on.
                        tracing::warn!(%error, "accepting a TCP connection failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let acceptor = acceptor.clone();
                let ready_tx = ready_tx.clone();
                tokio::spawn(async move {
                    // The permit is held until the server took the connection: handshakes and
                    // connections waiting to be taken are bounded together.
                    let _permit = permit;
                    let handshake =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await;
                    match handshake {
                        Ok(Ok(tls)) => {
                            // The server is gone when this fails: the connection just closes.
                            let _ = ready_tx.send((tls, addr)).await;
                        }
                        Ok(Err(error)) => {
                            tracing::debug!(%addr, %error, "TLS handshake failed");
                        }
                        Err(_) => tracing::debug!(%addr, "TLS handshake timed out"),
                    }
                });
            }
        }));
        ready
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        if let Some(accepting) = &self.accepting {
            accepting.abort();
        }
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        if self.ready.is_none() {
            self.ready = Some(self.start());
        }
        let ready = self.ready.as_mut().expect("started above");
        match ready.recv().await {
            Some(accepted) => accepted,
            // The accepting task holds a sender until it ends, and it ends only when aborted
            // by our own drop: this is never reached while `self` lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}

/// A TLS server configuration from PEM text: `certificates`, the certificate chain (the
/// server's first), and `private_key` (PKCS #8, PKCS #1 or SEC1). rustls' `ring` provider, its
/// safe default protocol versions, no client authentication, ALPN `h2` and `http/1.1`.
///
/// # Errors
///
/// When the PEM text holds no certificate or no key, or rustls refuses them (the key does not
/// match the certificate, an unsupported key type...).
pub fn tls_config_from_pem(
    certificates: &[u8],
    private_key: &[u8],
) -> Result<rustls::ServerConfig, TlsConfigError> {
    let chain = CertificateDer::pem_slice_iter(certificates)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsConfigError(format!("reading the certificates: {e}")))?;
    if chain.is_empty() {
        return Err(TlsConfigError("no certificate in the PEM text".into()));
    }
    let key = PrivateKeyDer::from_pem_slice(private_key)
        .map_err(|e| TlsConfigError(format!("reading the private key: {e}")))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsConfigError(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| TlsConfigError(format!("the certificate and key: {e}")))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// Why [`tls_config_from_pem`] could not build a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsConfigError(String);

impl std::fmt::Display for TlsConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TLS configuration: {}", self.0)
    }
}

impl std::error::Error for TlsConfigError {}
