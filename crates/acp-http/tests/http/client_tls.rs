//! The client over TLS (features `client-tls` and `server-tls`): `https://` (HTTP/2 chosen by ALPN) and `wss://`
//! against this crate's server behind a TLS listener with a self-signed certificate, trusted
//! through `ConnectOptions::tls_config`; and the same server refused, with the reason, by the
//! default configuration, which trusts only the platform's roots.

#![cfg(all(feature = "client-tls", feature = "server-tls"))]

use crate::client_support;
use crate::common::echo;

use std::sync::{Arc, Mutex};

use acp_client::AgentHandle;
use acp_http::client::{ConnectOptions, Error, RemoteDriver, connect, rustls};
use acp_http::server::{AcpServer, ServerOptions, TlsListener, serve_tls, tls_config_from_pem};
use acp_types::*;
use axum::serve::ListenerExt as _;
use serde_json::Value;
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};

use client_support::{Editor, check, echo_session, within};
use echo::EchoAgent;

struct TlsServer {
    /// `localhost:PORT`, the name the certificate is for.
    authority: String,
    /// The certificate, to trust.
    certificate: rustls::pki_types::CertificateDer<'static>,
    /// The ALPN protocol of each connection accepted.
    alpn: Arc<Mutex<Vec<Option<Vec<u8>>>>>,
}

/// A fresh self-signed certificate for `localhost`, and a server configuration with it, read
/// from PEM text as a deployment would.
fn certificate() -> (
    rustls::pki_types::CertificateDer<'static>,
    rustls::ServerConfig,
) {
    let key = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let config = tls_config_from_pem(
        key.cert.pem().as_bytes(),
        key.signing_key.serialize_pem().as_bytes(),
    )
    .unwrap();
    (key.cert.der().clone(), config)
}

/// The echo agent, every message both ways checked against the schema.
fn echo_server() -> AcpServer {
    let options = ServerOptions::default().observe(|_, bytes| {
        if let Ok(message) = serde_json::from_slice::<Value>(bytes) {
            check(&message);
        }
    });
    AcpServer::new(EchoAgent::new, options)
}

/// The echo agent served on 127.0.0.1 over TLS by this crate's [`TlsListener`] (in a router of
/// our own, as a user composing an axum app would), noting each connection's ALPN protocol.
async fn start() -> TlsServer {
    let (certificate, config) = certificate();
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = tcp.local_addr().unwrap().port();
    let alpn = Arc::new(Mutex::new(Vec::new()));
    let noted = alpn.clone();
    let listener = TlsListener::new(tcp, config).unwrap().tap_io(move |tls| {
        let chosen = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
        noted.lock().unwrap().push(chosen);
    });
    let app = echo_server().router();
    tokio::spawn(async move { axum::serve(listener, app).await });
    TlsServer {
        authority: format!("localhost:{port}"),
        certificate,
        alpn,
    }
}

/// Options that trust the server's certificate, and nothing else.
fn trusting(server: &TlsServer) -> ConnectOptions {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(server.certificate.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    ConnectOptions::default().tls_config(config)
}

#[tokio::test]
async fn https_and_wss_reach_an_agent_whose_certificate_is_trusted() {
    let server = start().await;
    echo_session(
        &format!("https://{}/acp", server.authority),
        trusting(&server),
        false,
    )
    .await;
    // HTTP/2, offered by both sides through ALPN.
    assert!(
        server
            .alpn
            .lock()
            .unwrap()
            .iter()
            .all(|p| p.as_deref() == Some(b"h2")),
        "{:?}",
        server.alpn.lock().unwrap()
    );
    server.alpn.lock().unwrap().clear();

    echo_session(
        &format!("wss://{}/acp", server.authority),
        trusting(&server),
        false,
    )
    .await;
    // The WebSocket handshake is HTTP/1.1: no ALPN protocol offered.
    assert_eq!(*server.alpn.lock().unwrap(), [None]);
}

#[tokio::test]
async fn an_untrusted_certificate_is_refused_with_the_reason() {
    let server = start().await;
    // The default trusts the platform's roots only: a self-signed certificate is refused.
    let url = format!("wss://{}/acp", server.authority);
    let refused = within(
        "connect",
        connect(&url, Editor::default().factory(), ConnectOptions::default()),
    )
    .await
    .map(|(_, driver): (AgentHandle, RemoteDriver)| driver)
    .unwrap_err();
    assert!(matches!(refused, Error::Transport { .. }), "{refused:?}");
    assert!(refused.to_string().contains("certificate"), "{refused}");

    // Over HTTP nothing is sent before `initialize`, which fails with the reason.
    let url = format!("https://{}/acp", server.authority);
    let (agent, driver): (AgentHandle, RemoteDriver) = within(
        "connect",
        connect(&url, Editor::default().factory(), ConnectOptions::default()),
    )
    .await
    .unwrap();
    let running = tokio::spawn(driver);
    let failed = within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap_err();
    assert!(failed.to_string().contains("certificate"), "{failed}");
    drop(agent);
    let _ = within("the driver", running).await;
    assert!(server.alpn.lock().unwrap().is_empty());
}

#[tokio::test]
async fn serve_tls_serves_while_other_clients_stall_or_fail_their_handshake() {
    let (certificate, config) = certificate();
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = tcp.local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(serve_tls(tcp, config, echo_server(), async {
        let _ = stopped.await;
    }));
    // One client connects and stays silent; another sends what is not TLS. A listener that
    // completed handshakes one at a time would wait on the first until its timeout (10 s).
    let _silent = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let mut garbage = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    garbage
        .write_all(b"GET /acp HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let server = TlsServer {
        authority: format!("localhost:{port}"),
        certificate,
        alpn: Arc::default(),
    };
    let started = std::time::Instant::now();
    for scheme in ["https", "wss"] {
        echo_session(
            &format!("{scheme}://{}/acp", server.authority),
            trusting(&server),
            false,
        )
        .await;
    }
    assert!(
        started.elapsed() < acp_http::server::HANDSHAKE_TIMEOUT / 2,
        "the sessions waited for the stalled handshake: {:?}",
        started.elapsed()
    );
    stop.send(()).unwrap();
    within("serve_tls to return", serving)
        .await
        .unwrap()
        .unwrap();
}

#[test]
fn a_tls_configuration_needs_a_certificate_and_its_key() {
    let key = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let other = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert, private) = (key.cert.pem(), key.signing_key.serialize_pem());
    let refused = |certificates: &str, private_key: &str| {
        tls_config_from_pem(certificates.as_bytes(), private_key.as_bytes())
            .unwrap_err()
            .to_string()
    };
    assert!(refused("", &private).contains("no certificate"));
    assert!(refused(&cert, "").contains("private key"));
    assert!(refused(&private, &cert).contains("no certificate"));
    // A key that is not the certificate's.
    let mismatch = refused(&cert, &other.signing_key.serialize_pem());
    assert!(mismatch.contains("certificate and key"), "{mismatch}");
    let config = tls_config_from_pem(cert.as_bytes(), private.as_bytes()).unwrap();
    assert_eq!(
        config.alpn_protocols,
        [b"h2".to_vec(), b"http/1.1".to_vec()]
    );
}
