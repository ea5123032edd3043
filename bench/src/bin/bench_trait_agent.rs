//! The benchmark agent of `BENCH.md` (scenarios S1-S3), built on the `acp-agent` role crate:
//! the same command line, behaviour and figures as `bench_agent` (which uses `acp-rpc`
//! directly), written the natural way on the [`Agent`] trait.
//!
//! `initialize` and `new_session` (answering `sess-<k>`) are trait methods; `prompt` runs the
//! commands `stream N`, `permission M` and `mixed N M` in a plain loop with
//! [`PromptContext::update`] and [`ClientHandle::request_permission`], awaiting each call.
//! It is served on stdin/stdout through [`acp_agent::serve`] with the `acp_rpc::stdio()` pair.
//!
//! ```text
//! cargo build --release -p acp-bench
//! target/release/bench_trait_client s1 -- target/release/bench_trait_agent
//! ```
//!
//! Like `bench_agent`, it runs on tokio's current-thread runtime (`ACP_BENCH_RUNTIME=multi`
//! for the multi-thread one).
//!
//! With `--listen ADDR` (BENCH.md S5) it serves the same agent over Streamable HTTP and
//! WebSocket instead, with `acp_http::server::serve` on `ADDR` (`127.0.0.1:0` picks a free
//! port): one agent per connection, default [`ServerOptions`]. It then writes nothing on
//! stdout; the line `listening on http://ADDR/acp` goes to stderr once the socket is bound, and
//! SIGTERM or ctrl-c stops it (every connection ends). The server runs on tokio's multi-thread
//! runtime (`ACP_BENCH_RUNTIME=current` for the current-thread one); `ACP_BENCH_BURST=BYTES`
//! sets `ServerOptions::max_burst_bytes` instead of its default.
//!
//! ```text
//! target/release/bench_trait_agent --listen 127.0.0.1:0
//! ```
//!
//! With `--sessions memory|PATH|postgres://URL` (either mode) every session is kept in a
//! [`SessionStore`] and every update of every turn is recorded into it: in memory, in a SQLite
//! file at PATH, or in PostgreSQL (issue 24's "S1 with every update recorded"). On stdio the
//! sessions keep their `sess-<k>` ids; over the network they get the store's random ones.
//!
//! ```text
//! target/release/bench_trait_client s1 -- target/release/bench_trait_agent --sessions /tmp/s1.db
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use acp_agent::{
    Agent, AgentOptions, ClientHandle, DurableOptions, PromptContext, SessionState, SessionStore,
    async_trait, serve,
};
use acp_bench::scenarios::{self, Command};
use acp_http::server::{AcpServer, ServerOptions};
use acp_types::{
    AgentCapabilities, ContentBlock, ContentChunk, ErrorObject, InitializeRequest,
    InitializeResponse, NewSessionRequest, NewSessionResponse, PermissionOption,
    PermissionOptionKind, PromptRequest, PromptResponse, RequestPermissionOutcome,
    RequestPermissionRequest, SessionId, SessionUpdate, StopReason, ToolCallStatus, ToolCallUpdate, ToolKind,
};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (listen_on, sessions) = match args.as_slice() {
        [] => (None, None),
        [flag, location] if flag == "--sessions" => (None, Some(location.clone())),
        [flag, addr] if flag == "--listen" => (Some(addr.clone()), None),
        [flag, addr, store, location] if flag == "--listen" && store == "--sessions" => {
            (Some(addr.clone()), Some(location.clone()))
        }
        _ => {
            #[allow(clippy::print_stderr)] // A command-line program's usage message.
            {
                eprintln!(
                    "usage: bench_trait_agent [--listen ADDR] [--sessions memory|PATH|postgres://URL]"
                );
            }
            return std::process::ExitCode::from(2);
        }
    };
    match listen_on {
        Some(addr) => listen(&addr, sessions),
        None => acp_bench::scenarios::agent_main("bench_trait_agent", serve_stdio(sessions)),
    }
}

/// The agent's state of a session in a store.
#[derive(serde::Serialize, serde::Deserialize)]
struct BenchSession {
    cwd: String,
}

impl SessionState for BenchSession {
    fn cwd(&self) -> &str {
        &self.cwd
    }
}

/// The store `--sessions` names.
async fn open_store(location: &str) -> Result<SessionStore<BenchSession>, String> {
    let options = DurableOptions::DEFAULT;
    if location == "memory" {
        return Ok(SessionStore::new());
    }
    let store = if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        let backend = acp_store_postgres::PostgresBackend::open(location)
            .await
            .map_err(|e| e.to_string())?;
        SessionStore::durable(backend, options)
    } else {
        let backend = acp_store_sqlite::SqliteBackend::open(location)
            .await
            .map_err(|e| e.to_string())?;
        SessionStore::durable(backend, options)
    };
    store.map_err(|e| e.message)
}

/// One agent on stdin/stdout; with `sessions`, recording into that store.
async fn serve_stdio(sessions: Option<String>) -> Result<(), String> {
    let store = match &sessions {
        Some(location) => Some(open_store(location).await?),
        None => None,
    };
    let (stdin, stdout) = acp_rpc::stdio();
    let kept = store.clone();
    let make = move |client| BenchAgent {
        store: kept.map(|store| (store, Ids::Numbered)),
        ..BenchAgent::new(client)
    };
    let (_client, driver) = serve(make, stdin, stdout, AgentOptions::default());
    driver.await.map_err(|e| e.to_string())?;
    match store {
        Some(store) => store.flush().await.map_err(|e| e.message),
        None => Ok(()),
    }
}

/// The default [`ServerOptions`], but for `ACP_BENCH_BURST=BYTES`, which sets
/// [`ServerOptions::max_burst_bytes`] (to compare settings with one binary).
fn server_options() -> ServerOptions {
    let options = ServerOptions::default();
    match scenarios::burst_from_env() {
        Some(bytes) => options.max_burst_bytes(bytes),
        None => options,
    }
}

/// Serves agents over HTTP and WebSocket on `addr` until SIGTERM or ctrl-c.
#[allow(clippy::print_stderr)] // Stdout stays silent: the address and errors go to stderr.
fn listen(addr: &str, sessions: Option<String>) -> std::process::ExitCode {
    let runtime = match std::env::var("ACP_BENCH_RUNTIME").as_deref() {
        Ok("current") => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    }
    .enable_io()
    .enable_time()
    .build()
    .expect("a tokio runtime");
    let served = runtime.block_on(async {
        let store = match &sessions {
            Some(location) => Some(open_store(location).await.map_err(std::io::Error::other)?),
            None => None,
        };
        let listener = acp_http::server::bind(addr).await?;
        let local = listener.local_addr()?;
        let kept = store.clone();
        let server = AcpServer::new(
            move |client| BenchAgent {
                stamps: true,
                store: kept.clone().map(|store| (store, Ids::Random)),
                ..BenchAgent::new(client)
            },
            server_options(),
        );
        eprintln!("listening on http://{local}/acp");
        acp_http::server::serve(listener, server, stop_signal()).await?;
        if let Some(store) = store {
            store.flush().await.map_err(|e| std::io::Error::other(e.message))?;
        }
        Ok::<(), std::io::Error>(())
    });
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench_trait_agent: {addr}: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Resolves on SIGTERM or ctrl-c (SIGINT).
async fn stop_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(term) => {
                term.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminated => {}
    }
}

/// The agent: the handle to the client, and the number of sessions created so far.
struct BenchAgent {
    client: ClientHandle,
    sessions: AtomicU64,
    /// In listen mode: `_meta.bench` of a `stream` turn also says when the turn began and when
    /// its first chunk was sent (`entered_unix_us`, `first_sent_unix_us`), so that the S5
    /// client can tell where its first-update latency went.
    stamps: bool,
    /// With `--sessions`: the store every session is kept in and every update recorded into,
    /// and how its sessions are named.
    store: Option<(SessionStore<BenchSession>, Ids)>,
}

/// How the sessions of a store are named.
#[derive(Clone, Copy)]
enum Ids {
    /// `sess-<k>`, as BENCH.md says (one agent per store: stdio).
    Numbered,
    /// The store's random ids (many agents per store: `--listen`).
    Random,
}

#[async_trait]
impl Agent for BenchAgent {
    async fn initialize(&self, req: InitializeRequest) -> Result<InitializeResponse, ErrorObject> {
        Ok(InitializeResponse::new(req.protocol_version)
            .agent_capabilities(AgentCapabilities::new()))
    }

    async fn new_session(
        &self,
        req: NewSessionRequest,
    ) -> Result<NewSessionResponse, ErrorObject> {
        let k = self.sessions.fetch_add(1, Ordering::Relaxed);
        let id = SessionId::from(format!("sess-{k}"));
        let Some((store, ids)) = &self.store else {
            return Ok(NewSessionResponse::new(id));
        };
        let session = BenchSession { cwd: req.cwd };
        Ok(NewSessionResponse::new(match ids {
            Ids::Numbered => {
                store.insert(id.clone(), session)?;
                id
            }
            Ids::Random => store.create_async(session).await?,
        }))
    }

    async fn prompt(
        &self,
        req: PromptRequest,
        cx: PromptContext,
    ) -> Result<PromptResponse, ErrorObject> {
        let text = match req.prompt.first() {
            Some(ContentBlock::Text(text)) => text.text.as_str(),
            _ => {
                return Err(ErrorObject::invalid_params(
                    "the prompt must be one text block",
                ));
            }
        };
        let command = Command::parse(text)
            .ok_or_else(|| ErrorObject::invalid_params(format_args!("unknown command {text:?}")))?;
        let (_turn, cx) = match &self.store {
            Some((store, _)) => (
                Some(store.begin_turn(&req.session_id)?),
                store.recording(cx),
            ),
            None => (None, cx),
        };
        let mut latencies = Vec::with_capacity(command.requests() as usize);
        let entered = self.stamps.then(scenarios::unix_us);
        let mut first_sent = None;
        match command {
            Command::Stream { chunks } => {
                for i in 0..chunks {
                    send_chunk(&cx, i).await?;
                    if i == 0 && self.stamps {
                        first_sent = Some(scenarios::unix_us());
                    }
                }
            }
            Command::Permission { requests } => {
                for j in 0..requests {
                    latencies.push(self.ask(&cx, j).await?);
                }
            }
            Command::Mixed { chunks, .. } => {
                let mut j = 0;
                for i in 0..chunks {
                    send_chunk(&cx, i).await?;
                    if command.asks_after_chunk(i) {
                        latencies.push(self.ask(&cx, j).await?);
                        j += 1;
                    }
                }
            }
        }
        let mut figures =
            scenarios::latency_meta(&latencies, matches!(command, Command::Mixed { .. }));
        if let (Some(entered), Some(first_sent)) = (entered, first_sent) {
            figures["entered_unix_us"] = entered.into();
            figures["first_sent_unix_us"] = first_sent.into();
        }
        let mut meta = acp_types::Meta::new();
        meta.insert("bench".into(), figures);
        Ok(PromptResponse::new(StopReason::EndTurn).meta(meta))
    }
}

/// Sends chunk `i` of the turn's session.
async fn send_chunk(cx: &PromptContext, i: u64) -> Result<(), ErrorObject> {
    let chunk = ContentChunk::new(scenarios::chunk_text(i));
    Ok(cx.update(SessionUpdate::AgentMessageChunk(chunk)).await?)
}

impl BenchAgent {
    /// A new agent talking to `client`, with no sessions yet.
    fn new(client: ClientHandle) -> Self {
        Self {
            client,
            sessions: AtomicU64::new(0),
            stamps: false,
            store: None,
        }
    }

    /// Makes permission request `j` of the turn's session; returns its latency in microseconds.
    async fn ask(&self, cx: &PromptContext, j: u64) -> Result<u64, ErrorObject> {
        let tool_call = ToolCallUpdate::new(format!("call-{j}"))
            .kind(ToolKind::Edit)
            .status(ToolCallStatus::Pending)
            .title(scenarios::PERMISSION_TITLE);
        let options = vec![
            PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        ];
        let request = RequestPermissionRequest::new(cx.session_id().clone(), tool_call, options);
        let start = Instant::now();
        let answer = self.client.request_permission(request).await?;
        let latency = start.elapsed().as_micros() as u64;
        if answer.outcome != RequestPermissionOutcome::selected("allow") {
            return Err(ErrorObject::internal_error(format_args!(
                "permission {j}: unexpected outcome {:?}",
                answer.outcome
            )));
        }
        Ok(latency)
    }
}
