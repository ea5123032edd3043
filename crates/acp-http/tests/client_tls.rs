//! The client over TLS (feature `tls`): `https://` (HTTP/2 chosen by ALPN) and `wss://`
//! against this crate's server behind a TLS listener with a self-signed certificate, trusted
//! through `ConnectOptions::tls_config`; and the same server refused, with the reason, by the
//! default configuration, which trusts only the platform's roots.

#![cfg(all(feature = "tls", feature = "server"))]

mod client_support;
#[path = "common/echo.rs"]
mod echo;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use acp_client::AgentHandle;
use acp_http::client::{ConnectOptions, Error, RemoteDriver, connect, rustls};
use acp_http::server::{AcpServer, ServerOptions};
use acp_types::*;
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use client_support::{Editor, check, new_session, prompt, within};
use echo::EchoAgent;

/// A TLS listener for axum: accepts TCP connections and completes their handshake, noting the
/// protocol each one chose by ALPN.
struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    alpn: Arc<Mutex<Vec<Option<Vec<u8>>>>>,
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, addr)) = self.tcp.accept().await else {
                continue;
            };
            // A client that refuses our certificate fails its handshake: wait for the next.
            if let Ok(tls) = self.acceptor.accept(tcp).await {
                let chosen = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
                self.alpn.lock().unwrap().push(chosen);
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

struct TlsServer {
    /// `localhost:PORT`, the name the certificate is for.
    authority: String,
    /// The certificate, to trust.
    certificate: rustls::pki_types::CertificateDer<'static>,
    /// The ALPN protocol of each connection accepted.
    alpn: Arc<Mutex<Vec<Option<Vec<u8>>>>>,
}

/// The echo agent served on 127.0.0.1 over TLS, with a fresh self-signed certificate for
/// `localhost`; every message both ways is checked against the schema.
async fn start() -> TlsServer {
    let key = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let certificate = key.cert.der().clone();
    let private = rustls::pki_types::PrivateKeyDer::Pkcs8(key.signing_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certificate.clone()], private)
        .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];

    let options = ServerOptions::default().tap(|_, bytes| {
        if let Ok(message) = serde_json::from_slice::<Value>(bytes) {
            check(&message);
        }
    });
    let server = AcpServer::new(EchoAgent::new, options);
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = tcp.local_addr().unwrap().port();
    let alpn = Arc::new(Mutex::new(Vec::new()));
    let listener = TlsListener {
        tcp,
        acceptor: TlsAcceptor::from(Arc::new(config)),
        alpn: alpn.clone(),
    };
    let app = server.router();
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

/// initialize, a session, a prompt with a permission request, an echo, and a clean close.
async fn a_session(url: &str, options: ConnectOptions) {
    let editor = Editor::default();
    let (agent, driver): (AgentHandle, RemoteDriver) =
        within("connect", connect(url, editor.factory(), options))
            .await
            .unwrap();
    let connection = driver.connection();
    let running = tokio::spawn(driver);
    within(
        "initialize",
        agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)),
    )
    .await
    .unwrap();
    let session = within("session/new", agent.new_session(new_session()))
        .await
        .unwrap()
        .session_id;
    for text in ["ask", "hello"] {
        let done = within(text, agent.prompt(prompt(&session, text)))
            .await
            .unwrap();
        assert_eq!(done.stop_reason, StopReason::EndTurn);
    }
    assert_eq!(editor.texts(), ["selected allow", "echo: hello"], "{url}");
    connection.close();
    within("the driver", running).await.unwrap().unwrap();
}

#[tokio::test]
async fn https_and_wss_reach_an_agent_whose_certificate_is_trusted() {
    let server = start().await;
    a_session(
        &format!("https://{}/acp", server.authority),
        trusting(&server),
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

    a_session(
        &format!("wss://{}/acp", server.authority),
        trusting(&server),
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
