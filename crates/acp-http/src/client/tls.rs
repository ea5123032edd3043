//! TLS for `https://` and `wss://` (feature `client-tls`): rustls with the `ring` provider.

use std::sync::{Arc, OnceLock};

use rustls::ClientConfig;
use rustls_platform_verifier::BuilderVerifierExt;

use super::{ConnectOptions, Error};

/// The default configuration: the platform's trust store (read once per process), TLS 1.2
/// and 1.3.
fn platform() -> Result<Arc<ClientConfig>, Error> {
    static PLATFORM: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    PLATFORM
        .get_or_init(|| {
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .and_then(BuilderVerifierExt::with_platform_verifier)
                .map(|builder| Arc::new(builder.with_no_client_auth()))
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| Error::InvalidOption(format!("the platform's TLS roots cannot be used: {e}")))
}

/// The configuration of a connection: the options' own, or the platform's, with the ALPN
/// protocols of the transport (`h2` and `http/1.1` for HTTP, none for WebSocket, whose
/// handshake is HTTP/1.1).
pub(crate) fn config(options: &ConnectOptions, alpn: &[&[u8]]) -> Result<ClientConfig, Error> {
    let base = match &options.tls_config {
        Some(config) => config.clone(),
        None => platform()?,
    };
    let mut config = ClientConfig::clone(&base);
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(config)
}

/// The configuration of a client that never uses TLS (an `http://` URL; no redirects are
/// followed): trusts nothing, so that the platform's roots are not read for it.
pub(crate) fn plain() -> Result<ClientConfig, Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map(|builder| {
            builder
                .with_root_certificates(rustls::RootCertStore::empty())
                .with_no_client_auth()
        })
        .map_err(|e| Error::InvalidOption(format!("no TLS configuration: {e}")))
}

/// ALPN for HTTP: HTTP/2 when the server offers it, HTTP/1.1 otherwise.
pub(crate) const HTTP_ALPN: &[&[u8]] = &[b"h2", b"http/1.1"];
