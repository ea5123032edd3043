//! The load client of `BENCH.md` S5 (many remote connections): C connections to one bench
//! agent served over HTTP (`bench_trait_agent --listen ADDR`), one session each, all held open,
//! then `stream N` in every session at once.
//!
//! ```text
//! bench_s5_client s5 --url http://127.0.0.1:PORT/acp --conns C --n N [--transport sse|ws]
//!                    [--server-pid PID] [--timeout SECS] [--http2]
//! ```
//!
//! It is a raw client, so that the client's own cost stays small beside the server's:
//!
//! - `sse` (Streamable HTTP): one `reqwest` client per connection, as if each were an editor of
//!   its own (HTTP/1.1: the connection's SSE stream, the session's SSE stream and a keep-alive
//!   connection for the POSTs are three TCP connections). `initialize` (200 and
//!   `Acp-Connection-Id`), the connection stream, `session/new` (202, answered on the connection
//!   stream), then the session stream. The prompt is a POST (202); its updates and answer come
//!   on the session stream. With `--http2`: HTTP/2 without TLS (h2c, prior knowledge), one TCP
//!   connection per client carrying every request and stream.
//! - `ws`: one WebSocket per connection, text frames both ways.
//!
//! Every message is parsed with `serde_json` into borrowed structs holding only what the checks
//! need. Per session it checks the chunks as S1 does (kind, text, order, count) and the answer
//! (`end_turn`).
//!
//! The server's pid (for its `/proc` figures) is `--server-pid`, or else the process listening
//! on the URL's port, found in `/proc/net/tcp` and the processes' sockets.
//!
//! One JSON line on stdout: `conns`, `transport`, `n`, `notif_per_s` (C x N / (t1 - t0)),
//! `elapsed_s`, `first_update_p50_ms` / `first_update_p99_ms` (from a prompt's send to its first
//! chunk), `idle_kib_per_conn` (the server's `VmRSS` after every session exists minus before the
//! first connection, over C), `server_rss_kb` (`VmHWM`), `server_cpu_s` (its whole life),
//! `server_stream_cpu_s` (t0 to t1), `client_cpu_s`, `client_rss_kb`, `setup_s`, `errors`, `ok`,
//! `http` (`1.1`, or `h2c` with `--http2`) and `load` (the load average at the start). When the
//! agent stamps its turns (`bench_trait_agent --listen` does), the first-update latency is also
//! split into its legs, p50 and p99 of each: `first_in` (from the send to the agent's turn),
//! `first_agent` (from there to its first chunk's send), `first_out` (from there to its arrival),
//! by the machine's wall clock. Exit status 0 when `ok`.
//!
//! It runs on tokio's current-thread runtime (`ACP_BENCH_RUNTIME=multi` for the multi-thread
//! one).

// The report line goes to stdout, problems to stderr: this is a command-line program.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::borrow::Cow;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use acp_bench::scenarios::{self, ChunkCheck, ProcStats};
use futures::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

const USAGE: &str = "usage: bench_s5_client s5 --url URL --conns C --n N [--transport sse|ws] \
                     [--server-pid PID] [--timeout SECS] [--http2]";

/// How many connections are being opened at once during the setup.
const SETUP_PARALLEL: usize = 32;

/// The JSON-RPC ids of the client's requests on every connection.
const INITIALIZE_ID: &str = "0";
const NEW_SESSION_ID: &str = "1";
const PROMPT_ID: &str = "2";

fn main() -> ExitCode {
    let started = Instant::now();
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(problem) => {
            eprintln!("bench_s5_client: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match std::env::var("ACP_BENCH_RUNTIME").as_deref() {
        Ok("multi") => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    }
    .enable_all()
    .build()
    .expect("a tokio runtime");
    match runtime.block_on(run(&args)) {
        Ok(mut report) => {
            report.total = started.elapsed();
            println!("{report}");
            if report.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("bench_s5_client: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The transport of every connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    /// Streamable HTTP: POSTs and SSE streams.
    Sse,
    /// WebSocket.
    Ws,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Sse => "sse",
            Transport::Ws => "ws",
        }
    }
}

/// The command line.
#[derive(Debug, Clone)]
struct Args {
    url: String,
    conns: usize,
    n: u64,
    transport: Transport,
    server_pid: Option<u32>,
    /// `sse` over HTTP/2 without TLS (h2c, prior knowledge): one TCP connection per client.
    http2: bool,
    timeout: Duration,
}

impl Args {
    fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut args = args.into_iter();
        if args.next().as_deref() != Some("s5") {
            return Err("the scenario must be s5".into());
        }
        let (mut url, mut conns, mut n) = (None, None, None);
        let mut transport = Transport::Sse;
        let mut server_pid = None;
        let mut http2 = false;
        let mut timeout = Duration::from_secs(300);
        while let Some(flag) = args.next() {
            if flag == "--http2" {
                http2 = true;
                continue;
            }
            let value = args.next().ok_or(format!("{flag} needs a value"))?;
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("not a number: {value}"))
            };
            match flag.as_str() {
                "--url" => url = Some(value.clone()),
                "--conns" => conns = Some(number()? as usize),
                "--n" => n = Some(number()?),
                "--server-pid" => server_pid = Some(number()? as u32),
                "--timeout" => timeout = Duration::from_secs(number()?),
                "--transport" => {
                    transport = match value.as_str() {
                        "sse" => Transport::Sse,
                        "ws" => Transport::Ws,
                        _ => return Err(format!("unknown transport {value}")),
                    }
                }
                _ => return Err(format!("unknown flag {flag}")),
            }
        }
        let url = url.ok_or("missing --url")?;
        if !url.starts_with("http://") {
            return Err("the URL must start with http:// (no TLS here)".into());
        }
        Ok(Self {
            url,
            conns: conns.ok_or("missing --conns")?,
            n: n.ok_or("missing --n")?,
            transport,
            server_pid,
            http2,
            timeout,
        })
    }

    /// The port of the URL, for finding the server's process.
    fn port(&self) -> Option<u16> {
        let authority = self.url.strip_prefix("http://")?.split('/').next()?;
        authority.rsplit_once(':')?.1.parse().ok()
    }
}

/// The figures of a run, printed as one JSON line.
#[derive(Debug, Default)]
struct Report {
    ok: bool,
    conns: usize,
    transport: &'static str,
    /// `1.1` or `h2c` for `sse`.
    http: &'static str,
    n: u64,
    elapsed: Duration,
    setup: Duration,
    total: Duration,
    first_update_us: Vec<u64>,
    /// The legs of the first updates (see [`Outcome::legs`]), when the agent stamps its turns.
    first_legs_us: [Vec<u64>; 3],
    idle_kib_per_conn: f64,
    server: ProcStats,
    server_stream_cpu_s: f64,
    client: ProcStats,
    errors: u64,
    load: String,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut sorted = self.first_update_us.clone();
        sorted.sort_unstable();
        let ms = |p: f64| scenarios::percentile(&sorted, p) as f64 / 1000.0;
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        write!(
            f,
            concat!(
                r#"{{"scenario":"s5","ok":{},"conns":{},"transport":"{}","http":"{}","n":{},"#,
                r#""elapsed_s":{:.4},"notif_per_s":{:.0},"first_update_p50_ms":{:.2},"#,
                r#""first_update_p99_ms":{:.2},"idle_kib_per_conn":{:.1},"server_rss_kb":{},"#,
                r#""server_cpu_s":{:.2},"server_stream_cpu_s":{:.2},"client_cpu_s":{:.2},"#,
                r#""client_rss_kb":{},"setup_s":{:.3},"total_s":{:.3},"errors":{},"load":"{}""#
            ),
            self.ok,
            self.conns,
            self.transport,
            self.http,
            self.n,
            self.elapsed.as_secs_f64(),
            (self.conns as u64 * self.n) as f64 / secs,
            ms(50.0),
            ms(99.0),
            self.idle_kib_per_conn,
            self.server.peak_rss_kb,
            self.server.cpu_s,
            self.server_stream_cpu_s,
            self.client.cpu_s,
            self.client.peak_rss_kb,
            self.setup.as_secs_f64(),
            self.total.as_secs_f64(),
            self.errors,
            self.load,
        )?;
        // Where the first updates' time went: p50 and p99 of each leg (clock of the machine).
        for (name, leg) in ["in", "agent", "out"].iter().zip(&self.first_legs_us) {
            if leg.is_empty() {
                continue;
            }
            let mut sorted = leg.clone();
            sorted.sort_unstable();
            let ms = |p: f64| scenarios::percentile(&sorted, p) as f64 / 1000.0;
            write!(
                f,
                r#","first_{name}_p50_ms":{:.2},"first_{name}_p99_ms":{:.2}"#,
                ms(50.0),
                ms(99.0)
            )?;
        }
        f.write_str("}")
    }
}

async fn run(args: &Args) -> Result<Report, String> {
    let pid = match args.server_pid {
        Some(pid) => pid,
        None => args
            .port()
            .and_then(listener_pid)
            .ok_or("cannot find the server's process: give --server-pid")?,
    };
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let rss_before = vm_rss_kb(pid).ok_or("cannot read the server's VmRSS")?;

    // Every connection and its session, opened a few at a time.
    let setup_started = Instant::now();
    let opened: Vec<Result<Conn, String>> = futures::stream::iter(0..args.conns)
        .map(|_| Conn::open(args))
        .buffer_unordered(SETUP_PARALLEL)
        .collect()
        .await;
    let setup = setup_started.elapsed();
    let mut conns = Vec::with_capacity(args.conns);
    let mut errors = 0;
    for conn in opened {
        match conn {
            Ok(conn) => conns.push(conn),
            Err(problem) => {
                errors += 1;
                if errors <= 5 {
                    eprintln!("bench_s5_client: opening a connection: {problem}");
                }
            }
        }
    }
    let rss_idle = vm_rss_kb(pid).ok_or("cannot read the server's VmRSS")?;
    let idle_kib_per_conn = rss_idle.saturating_sub(rss_before) as f64 / args.conns.max(1) as f64;
    let server_before = ProcStats::read(Some(pid)).map_err(|e| e.to_string())?;

    // t0: every prompt at once, each connection in a task of its own.
    let t0 = Instant::now();
    let mut turns = Vec::with_capacity(conns.len());
    for conn in conns {
        let n = args.n;
        turns.push(tokio::spawn(conn.prompt(n)));
    }
    let deadline = tokio::time::Instant::now() + args.timeout;
    let mut first_update_us = Vec::with_capacity(turns.len());
    let mut first_legs_us: [Vec<u64>; 3] = Default::default();
    let mut finished = Vec::with_capacity(turns.len());
    let mut t1 = t0;
    for turn in turns {
        match tokio::time::timeout_at(deadline, turn).await {
            Ok(Ok((conn, outcome))) => {
                t1 = t1.max(outcome.done_at);
                if let Some(first) = outcome.first_update {
                    first_update_us.push(first.as_micros() as u64);
                }
                if let Some(legs) = outcome.legs {
                    for (all, leg) in first_legs_us.iter_mut().zip(legs) {
                        all.push(leg);
                    }
                }
                if let Some(problem) = outcome.problem {
                    errors += 1;
                    if errors <= 5 {
                        eprintln!("bench_s5_client: {problem}");
                    }
                }
                finished.push(conn);
            }
            Ok(Err(join)) => {
                errors += 1;
                eprintln!("bench_s5_client: a connection's task failed: {join}");
            }
            Err(_) => {
                errors += 1;
                if errors <= 5 {
                    eprintln!(
                        "bench_s5_client: a turn did not end within {:?}",
                        args.timeout
                    );
                }
            }
        }
    }
    let server = ProcStats::read(Some(pid)).map_err(|e| e.to_string())?;
    let client = ProcStats::read(None).map_err(|e| e.to_string())?;
    // Nothing may have come on the connections' own streams.
    for conn in &mut finished {
        if let Conn::Sse(conn) = conn {
            if conn.drain.is_finished() {
                if let Ok(Some(problem)) = (&mut conn.drain).await {
                    errors += 1;
                    eprintln!("bench_s5_client: {problem}");
                }
            }
        }
    }

    // The connections end (DELETE, or a close frame), a few at a time and bounded in time.
    let closing = futures::stream::iter(finished)
        .map(Conn::close)
        .buffer_unordered(SETUP_PARALLEL)
        .collect::<Vec<()>>();
    let _ = tokio::time::timeout(Duration::from_secs(30), closing).await;

    let ok = errors == 0 && first_update_us.len() == args.conns;
    Ok(Report {
        ok,
        conns: args.conns,
        transport: args.transport.name(),
        http: match (args.transport, args.http2) {
            (Transport::Sse, true) => "h2c",
            _ => "1.1",
        },
        n: args.n,
        elapsed: t1.duration_since(t0),
        setup,
        total: Duration::ZERO,
        first_update_us,
        first_legs_us,
        idle_kib_per_conn,
        server,
        server_stream_cpu_s: server.cpu_s - server_before.cpu_s,
        client,
        errors,
        load,
    })
}

/// One connection with its session, ready for the prompt.
enum Conn {
    Sse(SseConn),
    Ws(WsConn),
}

/// A Streamable HTTP connection: its own HTTP client, ids and the session's stream.
struct SseConn {
    http: reqwest::Client,
    url: String,
    connection: String,
    session: String,
    stream: SseReader,
    /// The task reading the connection's stream (nothing is expected on it any more).
    drain: tokio::task::JoinHandle<Option<String>>,
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A WebSocket connection and its session (the socket boxed: with TLS built in, its stream
/// type is large).
struct WsConn {
    socket: Box<Socket>,
    session: String,
}

/// What one prompt turn saw.
struct Outcome {
    /// From the prompt's send to its first chunk.
    first_update: Option<Duration>,
    /// The first update's legs in microseconds, when the agent stamped its turn: from the send
    /// to the agent's turn, from there to its first chunk's send, from there to its arrival.
    legs: Option<[u64; 3]>,
    /// When the turn's answer was handled.
    done_at: Instant,
    /// The first problem, if any.
    problem: Option<String>,
}

impl Conn {
    async fn open(args: &Args) -> Result<Conn, String> {
        match args.transport {
            Transport::Sse => SseConn::open(&args.url, args.http2).await.map(Conn::Sse),
            Transport::Ws => WsConn::open(&args.url).await.map(Conn::Ws),
        }
    }

    async fn prompt(self, n: u64) -> (Conn, Outcome) {
        match self {
            Conn::Sse(mut conn) => {
                let outcome = conn.prompt(n).await;
                (Conn::Sse(conn), outcome)
            }
            Conn::Ws(mut conn) => {
                let outcome = conn.prompt(n).await;
                (Conn::Ws(conn), outcome)
            }
        }
    }

    async fn close(self) {
        match self {
            Conn::Sse(conn) => {
                let _ = conn
                    .http
                    .delete(&conn.url)
                    .header("acp-connection-id", &conn.connection)
                    .send()
                    .await;
                conn.drain.abort();
            }
            Conn::Ws(mut conn) => {
                let _ = (*conn.socket).close(None).await;
            }
        }
    }
}

fn initialize_request() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{INITIALIZE_ID},"method":"initialize","params":{{"protocolVersion":1,"clientCapabilities":{{"fs":{{"readTextFile":false,"writeTextFile":false}},"terminal":false}}}}}}"#
    )
}

fn new_session_request() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{NEW_SESSION_ID},"method":"session/new","params":{{"cwd":"/tmp","mcpServers":[]}}}}"#
    )
}

fn prompt_request(session: &str, n: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{PROMPT_ID},"method":"session/prompt","params":{{"sessionId":"{session}","prompt":[{{"type":"text","text":"stream {n}"}}]}}}}"#
    )
}

impl SseConn {
    async fn open(url: &str, http2: bool) -> Result<SseConn, String> {
        let mut http = reqwest::Client::builder().no_proxy();
        if http2 {
            http = http.http2_prior_knowledge();
        }
        let http = http.build().map_err(|e| e.to_string())?;
        let answer = http
            .post(url)
            .header("content-type", "application/json")
            .body(initialize_request())
            .send()
            .await
            .map_err(|e| format!("initialize: {e}"))?;
        if answer.status() != 200 {
            return Err(format!("initialize: HTTP {}", answer.status()));
        }
        let connection = answer
            .headers()
            .get("acp-connection-id")
            .and_then(|v| v.to_str().ok())
            .ok_or("initialize: no Acp-Connection-Id")?
            .to_owned();
        let body = answer
            .bytes()
            .await
            .map_err(|e| format!("initialize: {e}"))?;
        expect_initialized(&body)?;

        let mut conn_stream = SseReader::open(&http, url, &connection, None).await?;
        let created = http
            .post(url)
            .header("content-type", "application/json")
            .header("acp-connection-id", &connection)
            .body(new_session_request())
            .send()
            .await
            .map_err(|e| format!("session/new: {e}"))?;
        if created.status() != 202 {
            return Err(format!("session/new: HTTP {}", created.status()));
        }
        // Ends the exchange, so that the HTTP connection goes back to the pool.
        let _ = created.bytes().await;
        let session = loop {
            let event = conn_stream
                .next()
                .await?
                .ok_or("the connection stream ended before session/new's answer")?;
            if let Some(session) = new_session_answer(event)? {
                break session;
            }
        };
        let stream = SseReader::open(&http, url, &connection, Some(&session)).await?;
        let drain = tokio::spawn(async move {
            match conn_stream.next().await {
                Ok(Some(event)) => Some(format!(
                    "unexpected message on the connection stream: {}",
                    String::from_utf8_lossy(event)
                )),
                Ok(None) => None,
                Err(problem) => Some(problem),
            }
        });
        Ok(SseConn {
            http,
            url: url.to_owned(),
            connection,
            session,
            stream,
            drain,
        })
    }

    async fn prompt(&mut self, n: u64) -> Outcome {
        let mut turn = Turn::new(&self.session, n);
        let post = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("acp-connection-id", &self.connection)
            .header("acp-session-id", &self.session)
            .body(prompt_request(&self.session, n));
        turn.sent = Instant::now();
        turn.sent_unix_us = scenarios::unix_us();
        let post = async {
            match post.send().await {
                Ok(answer) if answer.status() == 202 => {
                    let _ = answer.bytes().await;
                    None
                }
                Ok(answer) => Some(format!("session/prompt: HTTP {}", answer.status())),
                Err(e) => Some(format!("session/prompt: {e}")),
            }
        };
        let stream = &mut self.stream;
        let read = async {
            loop {
                match stream.next().await {
                    Ok(Some(event)) => {
                        if turn.on_message(event) {
                            break None;
                        }
                    }
                    Ok(None) => break Some("the session stream ended during the turn".to_owned()),
                    Err(problem) => break Some(problem),
                }
            }
        };
        let (posted, read) = tokio::join!(post, read);
        turn.outcome(posted.or(read))
    }
}

/// An SSE response body read event by event.
struct SseReader {
    body: std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buf: Vec<u8>,
    /// Where the unread part of `buf` starts.
    start: usize,
    /// The data of an event of several `data` lines, joined.
    joined: Vec<u8>,
}

impl SseReader {
    async fn open(
        http: &reqwest::Client,
        url: &str,
        connection: &str,
        session: Option<&str>,
    ) -> Result<SseReader, String> {
        let mut request = http
            .get(url)
            .header("accept", "text/event-stream")
            .header("acp-connection-id", connection);
        if let Some(session) = session {
            request = request.header("acp-session-id", session);
        }
        let what = if session.is_some() {
            "the session stream"
        } else {
            "the connection stream"
        };
        let response = request.send().await.map_err(|e| format!("{what}: {e}"))?;
        if response.status() != 200 {
            return Err(format!("{what}: HTTP {}", response.status()));
        }
        Ok(SseReader {
            body: Box::pin(response.bytes_stream()),
            buf: Vec::with_capacity(8 * 1024),
            start: 0,
            joined: Vec::new(),
        })
    }

    /// The data of the next event (its `data` lines joined by `\n`), `None` at the end of the
    /// stream. Comments (keep-alives) and events without data are skipped. An event of one
    /// `data` line (every event of the server) is not copied.
    async fn next(&mut self) -> Result<Option<&[u8]>, String> {
        let found = loop {
            if let Some(end) = memchr::memmem::find(&self.buf[self.start..], b"\n\n") {
                let event = self.start..self.start + end;
                self.start = event.end + 2;
                match event_data(&self.buf[event.clone()], &mut self.joined) {
                    Some(Data::Line(line)) => {
                        break Some(Data::Line(event.start + line.start..event.start + line.end));
                    }
                    Some(Data::Joined) => break Some(Data::Joined),
                    None => continue,
                }
            }
            // Keeps the unread tail only, then reads more.
            self.buf.drain(..self.start);
            self.start = 0;
            match self.body.next().await {
                Some(Ok(chunk)) => self.buf.extend_from_slice(&chunk),
                Some(Err(e)) => return Err(format!("a broken SSE stream: {e}")),
                None => break None,
            }
        };
        Ok(found.map(|data| match data {
            Data::Line(range) => &self.buf[range],
            Data::Joined => &self.joined[..],
        }))
    }
}

/// Where an event's data is.
enum Data {
    /// One `data` line: its range in the event.
    Line(std::ops::Range<usize>),
    /// Several, joined in the reader's scratch buffer.
    Joined,
}

/// The data of one event (without its blank line); `None` when it has no `data` line.
fn event_data(event: &[u8], joined: &mut Vec<u8>) -> Option<Data> {
    let mut first: Option<std::ops::Range<usize>> = None;
    let mut lines = 0;
    let mut at = 0;
    for line in event.split(|&b| b == b'\n') {
        let start = at;
        at += line.len() + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(rest) = line.strip_prefix(b"data:") else {
            continue;
        };
        let skip = if rest.first() == Some(&b' ') { 6 } else { 5 };
        let range = start + skip..start + line.len();
        lines += 1;
        match lines {
            1 => first = Some(range),
            2 => {
                joined.clear();
                joined.extend_from_slice(&event[first.clone().unwrap_or_default()]);
                joined.push(b'\n');
                joined.extend_from_slice(&event[range]);
            }
            _ => {
                joined.push(b'\n');
                joined.extend_from_slice(&event[range]);
            }
        }
    }
    match lines {
        0 => None,
        1 => first.map(Data::Line),
        _ => Some(Data::Joined),
    }
}

impl WsConn {
    async fn open(url: &str) -> Result<WsConn, String> {
        let ws_url = url.replacen("http://", "ws://", 1);
        // tungstenite zero-fills its whole read buffer before every read: 128 KiB by default.
        let config = WebSocketConfig::default().read_buffer_size(32 * 1024);
        let (mut socket, _) =
            tokio_tungstenite::connect_async_with_config(ws_url.as_str(), Some(config), false)
                .await
                .map_err(|e| format!("WebSocket upgrade: {e}"))?;
        send_text(&mut socket, initialize_request()).await?;
        let answer = ws_next(&mut socket)
            .await?
            .ok_or("the socket closed before initialize's answer")?;
        expect_initialized(answer.as_bytes())?;
        send_text(&mut socket, new_session_request()).await?;
        let session = loop {
            let message = ws_next(&mut socket)
                .await?
                .ok_or("the socket closed before session/new's answer")?;
            if let Some(session) = new_session_answer(message.as_bytes())? {
                break session;
            }
        };
        Ok(WsConn {
            socket: Box::new(socket),
            session,
        })
    }

    async fn prompt(&mut self, n: u64) -> Outcome {
        let mut turn = Turn::new(&self.session, n);
        let request = prompt_request(&self.session, n);
        turn.sent = Instant::now();
        turn.sent_unix_us = scenarios::unix_us();
        if let Err(problem) = send_text(&mut self.socket, request).await {
            return turn.outcome(Some(problem));
        }
        let problem = loop {
            match ws_next(&mut self.socket).await {
                Ok(Some(text)) => {
                    if turn.on_message(text.as_bytes()) {
                        break None;
                    }
                }
                Ok(None) => break Some("the socket closed during the turn".to_owned()),
                Err(problem) => break Some(problem),
            }
        };
        turn.outcome(problem)
    }
}

async fn send_text(socket: &mut Socket, text: String) -> Result<(), String> {
    socket
        .send(WsMessage::text(text))
        .await
        .map_err(|e| format!("a WebSocket send: {e}"))
}

/// The next text frame; `None` when the socket closes.
async fn ws_next(
    socket: &mut Socket,
) -> Result<Option<tokio_tungstenite::tungstenite::Utf8Bytes>, String> {
    loop {
        match socket.next().await {
            Some(Ok(WsMessage::Text(text))) => return Ok(Some(text)),
            Some(Ok(WsMessage::Close(_))) | None => return Ok(None),
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(format!("a broken WebSocket: {e}")),
        }
    }
}

/// A JSON-RPC message from the agent, with only the fields the checks read.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<Params<'a>>,
    #[serde(borrow, default)]
    result: Option<Answer<'a>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Params<'a> {
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    update: Option<Update<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Update<'a> {
    #[serde(borrow, default)]
    session_update: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// The results the client reads: initialize's, session/new's and the prompt's.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer<'a> {
    #[serde(default)]
    protocol_version: Option<u64>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(rename = "_meta", default)]
    meta: Option<AnswerMeta>,
}

/// `_meta` of the prompt's answer: the bench agent's stamps, when it gives them.
#[derive(Deserialize)]
struct AnswerMeta {
    #[serde(default)]
    bench: Option<Stamps>,
}

/// When the agent's turn began and when it sent its first chunk (`scenarios::unix_us`).
#[derive(Deserialize, Clone, Copy)]
struct Stamps {
    entered_unix_us: Option<u64>,
    first_sent_unix_us: Option<u64>,
}

fn parse(message: &[u8]) -> Result<Incoming<'_>, String> {
    serde_json::from_slice(message).map_err(|e| {
        format!(
            "an unreadable message ({e}): {}",
            String::from_utf8_lossy(message)
        )
    })
}

fn expect_initialized(message: &[u8]) -> Result<(), String> {
    let message = parse(message)?;
    match (message.id.map(RawValue::get), &message.result) {
        (Some(INITIALIZE_ID), Some(answer)) if answer.protocol_version == Some(1) => Ok(()),
        _ => Err("initialize: not the answer expected".into()),
    }
}

/// The session id of session/new's answer; `None` for another message.
fn new_session_answer(message: &[u8]) -> Result<Option<String>, String> {
    let parsed = parse(message)?;
    if parsed.method.is_some() || parsed.id.map(RawValue::get) != Some(NEW_SESSION_ID) {
        return Ok(None);
    }
    match parsed.result.and_then(|r| r.session_id) {
        Some(session) => Ok(Some(session.into_owned())),
        None => Err(format!(
            "session/new failed: {}",
            String::from_utf8_lossy(message)
        )),
    }
}

/// The checks of one prompt turn.
struct Turn<'s> {
    session: &'s str,
    expected: u64,
    sent: Instant,
    sent_unix_us: u64,
    first_update: Option<Instant>,
    first_update_unix_us: u64,
    stamps: Option<Stamps>,
    chunks: ChunkCheck,
    problem: Option<String>,
}

impl<'s> Turn<'s> {
    fn new(session: &'s str, expected: u64) -> Self {
        Self {
            session,
            expected,
            sent: Instant::now(),
            sent_unix_us: 0,
            first_update: None,
            first_update_unix_us: 0,
            stamps: None,
            chunks: ChunkCheck::default(),
            problem: None,
        }
    }

    fn problem(&mut self, problem: String) {
        if self.problem.is_none() {
            self.problem = Some(format!("{}: {problem}", self.session));
        }
    }

    /// Checks one message of the turn; true once it is the prompt's answer.
    fn on_message(&mut self, bytes: &[u8]) -> bool {
        let message = match parse(bytes) {
            Ok(message) => message,
            Err(problem) => {
                self.problem(problem);
                return false;
            }
        };
        match message.method.as_deref() {
            Some("session/update") => {
                if self.first_update.is_none() {
                    self.first_update = Some(Instant::now());
                    self.first_update_unix_us = scenarios::unix_us();
                }
                let params = message.params.as_ref();
                if params.and_then(|p| p.session_id.as_deref()) != Some(self.session) {
                    self.problem("an update for another session".into());
                    return false;
                }
                let update = params.and_then(|p| p.update.as_ref());
                let content = update.and_then(|u| u.content.as_ref());
                match (
                    update.and_then(|u| u.session_update.as_deref()),
                    content.and_then(|c| c.kind.as_deref()),
                    content.and_then(|c| c.text.as_deref()),
                ) {
                    (Some("agent_message_chunk"), Some("text"), Some(text)) => {
                        self.chunks.check(text);
                    }
                    _ => self.problem(format!(
                        "unexpected update {}",
                        String::from_utf8_lossy(bytes)
                    )),
                }
                false
            }
            Some(method) => {
                self.problem(format!("unexpected message {method}"));
                false
            }
            None if message.id.map(RawValue::get) == Some(PROMPT_ID) => {
                let stop = message
                    .result
                    .as_ref()
                    .and_then(|r| r.stop_reason.as_deref());
                self.stamps = message.result.as_ref().and_then(|r| r.meta.as_ref()?.bench);
                if message.error.is_some() || stop != Some("end_turn") {
                    self.problem(format!(
                        "the prompt ended with {}",
                        String::from_utf8_lossy(bytes)
                    ));
                }
                true
            }
            None => {
                self.problem(format!(
                    "an unexpected answer {}",
                    String::from_utf8_lossy(bytes)
                ));
                false
            }
        }
    }

    fn outcome(mut self, problem: Option<String>) -> Outcome {
        let done_at = Instant::now();
        if let Some(problem) = problem {
            self.problem(problem);
        }
        if let Some(problem) = self.chunks.problem.take() {
            self.problem(problem);
        } else if self.chunks.next != self.expected {
            let got = self.chunks.next;
            self.problem(format!("{got} chunks, {} expected", self.expected));
        }
        // The legs of the first update, when the agent stamped its turn: the prompt's way in,
        // the agent's first chunk, the chunk's way out.
        let legs = self.stamps.and_then(|stamps| {
            let entered = stamps.entered_unix_us?;
            let first_sent = stamps.first_sent_unix_us?;
            self.first_update.is_some().then(|| {
                [
                    entered.saturating_sub(self.sent_unix_us),
                    first_sent.saturating_sub(entered),
                    self.first_update_unix_us.saturating_sub(first_sent),
                ]
            })
        });
        Outcome {
            first_update: self.first_update.map(|at| at.duration_since(self.sent)),
            legs,
            done_at,
            problem: self.problem,
        }
    }
}

/// The `VmRSS` of process `pid`, in KiB.
fn vm_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// The process listening on TCP `port` (IPv4 or IPv6), from `/proc/net/tcp*` and the
/// processes' socket descriptors.
fn listener_pid(port: u16) -> Option<u32> {
    let port_hex = format!(":{port:04X}");
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local_address, state 0A = LISTEN, inode.
            if fields.len() > 9 && fields[1].ends_with(&port_hex) && fields[3] == "0A" {
                inodes.push(format!("socket:[{}]", fields[9]));
            }
        }
    }
    if inodes.is_empty() {
        return None;
    }
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = process.file_name().to_str().and_then(|p| p.parse().ok()) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                if inodes
                    .iter()
                    .any(|inode| target.as_os_str() == inode.as_str())
                {
                    return Some(pid);
                }
            }
        }
    }
    None
}
