//! Remote ACP: serve any [`acp_agent::Agent`] over Streamable HTTP (POST + server-sent events)
//! and WebSocket, or reach a remote agent with any [`acp_client::Client`], with the same trait
//! API as over stdio.
//!
//! An agent served on 127.0.0.1 and an editor reaching it, in one program:
//!
//! ```
//! use acp_agent::{Agent, ClientHandle, PromptContext};
//! use acp_client::{AgentHandle, Client};
//! use acp_http::{client, server};
//! use acp_types::*;
//!
//! struct Echo;
//!
//! #[acp_agent::async_trait]
//! impl Agent for Echo {
//!     async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
//!         Ok(InitializeResponse::new(ProtocolVersion::LATEST))
//!     }
//!     async fn new_session(&self, _: NewSessionRequest) -> Result<NewSessionResponse, ErrorObject> {
//!         Ok(NewSessionResponse::new("session-1"))
//!     }
//!     async fn prompt(&self, req: PromptRequest, cx: PromptContext) -> Result<PromptResponse, ErrorObject> {
//!         for block in req.prompt {
//!             cx.message(block).await?;
//!         }
//!         Ok(PromptResponse::new(StopReason::EndTurn))
//!     }
//! }
//!
//! struct Editor;
//!
//! #[acp_client::async_trait]
//! impl Client for Editor {
//!     async fn request_permission(
//!         &self,
//!         req: RequestPermissionRequest,
//!     ) -> Result<RequestPermissionResponse, ErrorObject> {
//!         Ok(RequestPermissionResponse::selected(req.options[0].option_id.clone()))
//!     }
//!     async fn session_notification(&self, _: SessionNotification) -> Result<(), ErrorObject> {
//!         Ok(())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The agent side: one `Echo` per connection, on 127.0.0.1.
//! let listener = server::bind("127.0.0.1:0").await?;
//! let url = format!("http://{}/acp", listener.local_addr()?);
//! let served = server::AcpServer::new(|_: ClientHandle| Echo, server::ServerOptions::default());
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let serving = tokio::spawn(server::serve(listener, served, async { let _ = stopped.await; }));
//!
//! // The editor side: `http://` for Streamable HTTP, `ws://` for WebSocket.
//! for url in [url.clone(), url.replacen("http://", "ws://", 1)] {
//!     let (agent, driver) =
//!         client::connect(&url, |_: AgentHandle| Editor, client::ConnectOptions::default()).await?;
//!     let connection = driver.connection();
//!     let running = tokio::spawn(driver);
//!     agent.initialize(InitializeRequest::new(ProtocolVersion::LATEST)).await?;
//!     let session = agent.new_session(NewSessionRequest::new("/tmp", Vec::<McpServer>::new())).await?;
//!     let mut updates = agent.session_updates(session.session_id.clone());
//!     let done = agent.prompt(PromptRequest::new(session.session_id, vec!["Hello".into()])).await?;
//!     assert_eq!(done.stop_reason, StopReason::EndTurn);
//!     let echoed = updates.try_next().expect("the echo came before the answer");
//!     assert!(matches!(echoed.update, SessionUpdate::AgentMessageChunk(_)));
//!     connection.close();
//!     running.await??;
//! }
//! let _ = stop.send(());
//! serving.await??;
//! # Ok(())
//! # }
//! ```
//!
//! - [`server`]: [`server::AcpServer`] serves agents (made per connection by a factory, or a
//!   stdio agent program through [`server::AcpServer::bridge`]) on one endpoint, `/acp`, with
//!   safe defaults: `Host` and origin checks, CORS with credentials for allowed pages, an
//!   authentication hook (also for browser WebSockets), and bounds on everything a client can
//!   make the server hold: TCP connections (server-wide and per address, header timeout),
//!   request bodies (size, time, a server-wide budget, POSTs queued per connection), ACP
//!   connections (per client, unused and idle ones reclaimed), output for slow readers (per
//!   connection and server-wide), WebSockets (a client that does not read stops being read and
//!   is closed) and bridged programs. Each default and what happens beyond it is on
//!   [`server::ServerOptions`]. Run [`server::serve`], or mount
//!   [`server::AcpServer::router`] in an axum application (the TCP bounds are then your
//!   server's).
//! - [`client`]: [`client::connect`] reaches a remote agent at an `http(s)://` (Streamable
//!   HTTP), `ws(s)://` (WebSocket) or `client_id`-profile URL and gives the same
//!   [`acp_client::AgentHandle`] as over stdio.
//!
//! Features: `server` and `client` (both default), and TLS (opt-in): `client-tls` for
//! `https://` and `wss://` in the client, with rustls (its `ring` provider), verifying agents
//! against the platform's trust store or a `rustls::ClientConfig` of your own
//! (`ConnectOptions::tls_config`); `server-tls` for the server's `server::serve_tls` and
//! `server::TlsListener` (concurrent handshakes, each bounded in time; HTTP/2 by ALPN), with
//! `server::tls_config_from_pem` to read a certificate and its key; `tls` for both. A
//! server-only build (`default-features = false, features = ["server-tls"]`) builds no HTTP
//! client. Without them the client refuses those URLs with a clear error, and the server
//! speaks plain HTTP (behind a
//! TLS-terminating proxy, or through a TLS listener of your own).
//!
//! ACP v2 (draft), feature `unstable_protocol_v2` (with acp-agent's and acp-client's): the
//! transport is version-agnostic (it routes by a message's id, method and `sessionId`, which
//! both versions share), so each connection's agent negotiates v1 or v2 by its own
//! `initialize`, the bridge relays either as is, and the client's
//! [`acp_client::AgentHandle`] `negotiate`s over a remote connection as over stdio. After
//! `initialize` the client sends [`PROTOCOL_VERSION`] with the negotiated version's number; the
//! server refuses a request naming another one.

#![doc(test(attr(deny(warnings))))]

#[cfg_attr(not(any(feature = "server", feature = "client")), allow(dead_code))]
mod headers;
mod message;
#[cfg(feature = "client")]
mod sse;

#[cfg(feature = "server")]
pub mod server;

#[cfg(feature = "client")]
pub mod client;

pub use headers::{CONNECTION_ID, PROTOCOL_VERSION, SESSION_ID};
