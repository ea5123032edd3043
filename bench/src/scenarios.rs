//! The benchmark protocol of `BENCH.md`, scenarios S1-S3: what its agents and clients share
//! (and the S5 load client: chunk texts, `/proc` figures).
//!
//! The RPC programs (`bench_agent`, `bench_client`), the trait programs (`bench_trait_agent`,
//! `bench_trait_client`, on `acp-agent` / `acp-client`) and the hand-written "physical limit"
//! pair (`bench_limit_agent`, `bench_limit_client`) use the same commands, texts and figures,
//! so their results compare directly. [`Seen`] holds the checks the two library clients share.

use std::fmt::{self, Write as _};
use std::time::Duration;

/// The default number of chunks of S1.
pub const S1_CHUNKS: u64 = 200_000;
/// The default number of permission round trips of S2.
pub const S2_ROUND_TRIPS: u64 = 50_000;
/// The default sessions, chunks per session and permission requests per session of S3.
pub const S3_DEFAULT: (u64, u64, u64) = (8, 25_000, 1_000);

/// What follows the number in every chunk text, making the text 64 bytes long.
pub const CHUNK_TAIL: &str = " The quick brown fox jumps over the lazy dog. Lorem ip";

/// The length of a chunk text, in bytes.
pub const CHUNK_LEN: usize = 64;

/// The text of chunk `i`: `i` as 10 zero-padded digits, a space, then [`CHUNK_TAIL`].
///
/// ```
/// let text = acp_bench::scenarios::chunk_text(42);
/// assert_eq!(text.len(), acp_bench::scenarios::CHUNK_LEN);
/// assert_eq!(acp_bench::scenarios::chunk_number(&text), Some(42));
/// ```
pub fn chunk_text(i: u64) -> String {
    let mut text = String::with_capacity(CHUNK_LEN);
    let _ = write!(text, "{i:010}{CHUNK_TAIL}");
    text
}

/// The number at the front of a chunk text, if the text has the expected shape.
pub fn chunk_number(text: &str) -> Option<u64> {
    let digits = text.as_bytes().get(..10)?;
    if text.as_bytes().get(10) != Some(&b' ') || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    text[..10].parse().ok()
}

/// The wall-clock time in microseconds since the Unix epoch: comparable between two processes
/// of one machine, unlike [`std::time::Instant`] (the S5 client and agent use it to split the
/// first-update latency into its legs).
pub fn unix_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// The tool call title of every permission request.
pub const PERMISSION_TITLE: &str = "Write src/main.rs";

/// A prompt command: what the bench agent does in the prompt's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `stream N`: N chunks, then end_turn.
    Stream {
        /// Chunks to send.
        chunks: u64,
    },
    /// `permission M`: M sequential permission requests, then end_turn.
    Permission {
        /// Requests to make.
        requests: u64,
    },
    /// `mixed N M`: N chunks with one awaited permission request after every N/M chunks.
    Mixed {
        /// Chunks to send.
        chunks: u64,
        /// Requests to make.
        requests: u64,
    },
}

impl Command {
    /// Parses a prompt text such as `stream 200000`.
    ///
    /// ```
    /// use acp_bench::scenarios::Command;
    /// assert_eq!(Command::parse("mixed 25000 1000"), Some(Command::Mixed { chunks: 25000, requests: 1000 }));
    /// assert_eq!(Command::parse("dance"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        let mut words = text.split_ascii_whitespace();
        let command = match (words.next()?, words.next(), words.next()) {
            ("stream", Some(n), None) => Command::Stream {
                chunks: n.parse().ok()?,
            },
            ("permission", Some(m), None) => Command::Permission {
                requests: m.parse().ok()?,
            },
            ("mixed", Some(n), Some(m)) => Command::Mixed {
                chunks: n.parse().ok()?,
                requests: m.parse().ok()?,
            },
            _ => return None,
        };
        words.next().is_none().then_some(command)
    }

    /// The chunks the command streams.
    pub fn chunks(self) -> u64 {
        match self {
            Command::Stream { chunks } | Command::Mixed { chunks, .. } => chunks,
            Command::Permission { .. } => 0,
        }
    }

    /// The permission requests the command makes.
    pub fn requests(self) -> u64 {
        match self {
            Command::Permission { requests } => requests,
            Command::Mixed {
                chunks, requests, ..
            } => {
                let every = chunks / requests.max(1);
                if requests == 0 || every == 0 {
                    0
                } else {
                    chunks / every
                }
            }
            Command::Stream { .. } => 0,
        }
    }

    /// For `mixed`: true when a permission request follows chunk `i`.
    pub fn asks_after_chunk(self, i: u64) -> bool {
        match self {
            Command::Mixed { chunks, requests } if requests > 0 => {
                let every = chunks / requests;
                every > 0 && (i + 1) % every == 0
            }
            _ => false,
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Stream { chunks } => write!(f, "stream {chunks}"),
            Command::Permission { requests } => write!(f, "permission {requests}"),
            Command::Mixed { chunks, requests } => write!(f, "mixed {chunks} {requests}"),
        }
    }
}

/// The value at the `p`-th percentile of sorted samples, by nearest rank.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The `_meta.bench` figures of a prompt response: `count`, `p50_us`, `p99_us`, `max_us`,
/// `mean_us`, and the raw list `lat_us` when `with_list` is set.
pub fn latency_meta(latencies: &[u64], with_list: bool) -> serde_json::Value {
    let mut sorted = latencies.to_vec();
    sorted.sort_unstable();
    let count = sorted.len() as u64;
    let mean = if count == 0 {
        0.0
    } else {
        sorted.iter().sum::<u64>() as f64 / count as f64
    };
    let mut meta = serde_json::json!({
        "count": count,
        "p50_us": percentile(&sorted, 50.0),
        "p99_us": percentile(&sorted, 99.0),
        "max_us": sorted.last().copied().unwrap_or(0),
        "mean_us": (mean * 10.0).round() / 10.0,
    });
    if with_list {
        meta["lat_us"] = serde_json::json!(latencies);
    }
    meta
}

/// Figures of one process from `/proc/<pid>/{status,stat,io}`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcStats {
    /// Peak resident set size (`VmHWM`), in KiB.
    pub peak_rss_kb: u64,
    /// User plus system CPU time over the process's life, in seconds (10 ms ticks).
    pub cpu_s: f64,
    /// Bytes the process wrote with write-like system calls (`wchar`).
    pub wchar: u64,
}

impl ProcStats {
    /// Reads the figures of process `pid`, or of this process for `None`.
    ///
    /// # Errors
    ///
    /// When `/proc` cannot be read (not Linux, or the process is gone).
    pub fn read(pid: Option<u32>) -> std::io::Result<Self> {
        let dir = match pid {
            Some(pid) => format!("/proc/{pid}"),
            None => "/proc/self".to_owned(),
        };
        let status = std::fs::read_to_string(format!("{dir}/status"))?;
        let peak_rss_kb = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        let stat = std::fs::read_to_string(format!("{dir}/stat"))?;
        // The command name may hold spaces: the fields that follow start after its `)`.
        let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        // Fields 14 and 15 of the line (utime, stime) are 12 and 13 after the name.
        let ticks: u64 = [11, 12]
            .iter()
            .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
            .sum();
        let io = std::fs::read_to_string(format!("{dir}/io")).unwrap_or_default();
        let wchar = io
            .lines()
            .find_map(|line| line.strip_prefix("wchar:"))
            .and_then(|rest| rest.trim().parse().ok())
            .unwrap_or(0);
        Ok(Self {
            peak_rss_kb,
            cpu_s: ticks as f64 / 100.0,
            wchar,
        })
    }
}

/// A scenario of the bench client's command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// S1: one session streaming chunks.
    S1 {
        /// Chunks.
        chunks: u64,
    },
    /// S2: one session making sequential permission requests.
    S2 {
        /// Round trips.
        requests: u64,
    },
    /// S3: several sessions streaming chunks with permission requests, in parallel.
    S3 {
        /// Sessions.
        sessions: u64,
        /// Chunks per session.
        chunks: u64,
        /// Permission requests per session.
        requests: u64,
    },
}

impl Scenario {
    /// The scenario's name: `s1`, `s2` or `s3`.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::S1 { .. } => "s1",
            Scenario::S2 { .. } => "s2",
            Scenario::S3 { .. } => "s3",
        }
    }

    /// How many sessions the scenario uses.
    pub fn sessions(self) -> u64 {
        match self {
            Scenario::S3 { sessions, .. } => sessions,
            _ => 1,
        }
    }

    /// The prompt command every session gets.
    pub fn command(self) -> Command {
        match self {
            Scenario::S1 { chunks } => Command::Stream { chunks },
            Scenario::S2 { requests } => Command::Permission { requests },
            Scenario::S3 {
                chunks, requests, ..
            } => Command::Mixed { chunks, requests },
        }
    }
}

/// The parsed command line of a bench client.
#[derive(Debug, Clone)]
pub struct ClientArgs {
    /// The scenario to run.
    pub scenario: Scenario,
    /// The agent program and its arguments.
    pub agent: Vec<String>,
    /// The ACP protocol version to speak (`--protocol N`, default 1): 2 is spoken by
    /// `bench_trait_client` built with the feature `unstable_protocol_v2`.
    pub protocol: u16,
}

/// The usage line of the bench clients.
pub const CLIENT_USAGE: &str = "usage: bench_client [--protocol 1|2] s1 [N] | s2 [M] | s3 [SESSIONS N M] -- AGENT_COMMAND [ARGS...]";

impl ClientArgs {
    /// Parses `[--protocol N] s1 [N] | s2 [M] | s3 [SESSIONS N M] -- AGENT_COMMAND [ARGS...]`.
    ///
    /// # Errors
    ///
    /// A message saying what is wrong, for the usage text.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let args: Vec<String> = args.into_iter().collect();
        let dash = args
            .iter()
            .position(|a| a == "--")
            .ok_or("missing `--` before the agent command")?;
        let (mut own, agent) = (&args[..dash], &args[dash + 1..]);
        if agent.is_empty() {
            return Err("missing the agent command after `--`".into());
        }
        let mut protocol = 1;
        if let [flag, version, rest @ ..] = own
            && flag == "--protocol"
        {
            protocol = match version.as_str() {
                "1" => 1,
                "2" => 2,
                other => return Err(format!("unknown protocol version {other}")),
            };
            own = rest;
        }
        let numbers = own
            .iter()
            .skip(1)
            .map(|a| a.parse::<u64>().map_err(|_| format!("not a number: {a}")))
            .collect::<Result<Vec<_>, _>>()?;
        let scenario = match (own.first().map(String::as_str), numbers.as_slice()) {
            (Some("s1"), []) => Scenario::S1 { chunks: S1_CHUNKS },
            (Some("s1"), [n]) => Scenario::S1 { chunks: *n },
            (Some("s2"), []) => Scenario::S2 {
                requests: S2_ROUND_TRIPS,
            },
            (Some("s2"), [m]) => Scenario::S2 { requests: *m },
            (Some("s3"), []) => Scenario::S3 {
                sessions: S3_DEFAULT.0,
                chunks: S3_DEFAULT.1,
                requests: S3_DEFAULT.2,
            },
            (Some("s3"), [s, n, m]) => Scenario::S3 {
                sessions: *s,
                chunks: *n,
                requests: *m,
            },
            _ => return Err("unknown scenario or wrong number of arguments".into()),
        };
        Ok(Self {
            scenario,
            agent: agent.to_vec(),
            protocol,
        })
    }

    /// Refuses a protocol version other than 1, for the clients that speak only v1.
    ///
    /// # Errors
    ///
    /// A message naming `program` when `--protocol` asked for another version.
    pub fn require_v1(&self, program: &str) -> Result<(), String> {
        if self.protocol == 1 {
            Ok(())
        } else {
            Err(format!(
                "{program} speaks protocol version 1 only (bench_trait_client speaks 2)"
            ))
        }
    }
}

/// What a bench client measured, printed as one JSON line.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// `s1`, `s2` or `s3`.
    pub scenario: &'static str,
    /// Every check passed.
    pub ok: bool,
    /// t1 - t0.
    pub elapsed: Duration,
    /// Notifications handled.
    pub notifications: u64,
    /// Permission round trips answered.
    pub round_trips: u64,
    /// The agent's figures at t1.
    pub agent: ProcStats,
    /// The client's figures at t1.
    pub client: ProcStats,
    /// The client's whole run, from start to just before printing.
    pub total: Duration,
    /// Permission latency percentiles seen by the agent, when the scenario has requests.
    pub latency: Option<(u64, u64)>,
}

impl fmt::Display for Report {
    /// The JSON line of `BENCH.md`; fields that do not apply are omitted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        write!(
            f,
            r#"{{"scenario":"{}","ok":{},"elapsed_s":{:.6}"#,
            self.scenario,
            self.ok,
            self.elapsed.as_secs_f64()
        )?;
        if self.notifications > 0 {
            write!(
                f,
                r#","notif_per_s":{:.0}"#,
                self.notifications as f64 / secs
            )?;
        }
        if self.round_trips > 0 {
            write!(f, r#","rt_per_s":{:.0}"#, self.round_trips as f64 / secs)?;
        }
        write!(
            f,
            r#","msgs_per_s":{:.0},"mb_per_s":{:.2},"agent_rss_kb":{},"client_rss_kb":{},"agent_cpu_s":{:.2},"client_cpu_s":{:.2},"total_s":{:.4}"#,
            (self.notifications + self.round_trips) as f64 / secs,
            self.agent.wchar as f64 / secs / 1e6,
            self.agent.peak_rss_kb,
            self.client.peak_rss_kb,
            self.agent.cpu_s,
            self.client.cpu_s,
            self.total.as_secs_f64(),
        )?;
        if let Some((p50, p99)) = self.latency {
            write!(f, r#","p50_us":{p50},"p99_us":{p99}"#)?;
        }
        f.write_str("}")
    }
}

/// Checks the chunks of one session as they arrive: order and count.
#[derive(Debug, Clone, Default)]
pub struct ChunkCheck {
    /// The number expected next.
    pub next: u64,
    /// The first problem seen, if any.
    pub problem: Option<String>,
}

impl ChunkCheck {
    /// Checks the text of the next chunk.
    pub fn check(&mut self, text: &str) {
        match chunk_number(text) {
            Some(n) if n == self.next => self.next += 1,
            _ if self.problem.is_some() => {}
            Some(n) => {
                self.problem = Some(format!("chunk {n} arrived when {} was expected", self.next))
            }
            None => self.problem = Some(format!("malformed chunk text {text:?}")),
        }
    }
}

/// What a benchmark client's handlers see, checked as it arrives: the part the acp-rpc client
/// (`bench_client`) and the trait client (`bench_trait_client`) share.
#[derive(Debug, Default)]
pub struct Seen {
    /// The sessions created, with the check of their chunks.
    sessions: std::sync::Mutex<Vec<(acp_types::SessionId, ChunkCheck)>>,
    notifications: std::sync::atomic::AtomicU64,
    round_trips: std::sync::atomic::AtomicU64,
    /// Problems outside any one session's chunks.
    problems: std::sync::Mutex<Vec<String>>,
}

/// The figures and verdict of a run, from [`Seen::finish`].
#[derive(Debug, Clone, Copy)]
pub struct Checked {
    /// Every check passed.
    pub ok: bool,
    /// `session/update` notifications received.
    pub notifications: u64,
    /// Permission requests answered.
    pub round_trips: u64,
    /// The latency percentiles (p50, p99), in microseconds, if the scenario asks.
    pub latency: Option<(u64, u64)>,
}

impl Seen {
    fn problem(&self, problem: String) {
        let mut problems = self.problems.lock().unwrap();
        if problems.len() < 10 {
            problems.push(problem);
        }
    }

    /// Records a session the agent created; its updates are checked from now on.
    pub fn add_session(&self, id: acp_types::SessionId) {
        self.sessions
            .lock()
            .unwrap()
            .push((id, ChunkCheck::default()));
    }

    /// Checks one `session/update`: a text chunk of a known session, in order.
    pub fn on_update(&self, update: &acp_types::SessionNotification) {
        use acp_types::ContentBlock;
        self.notifications
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut sessions = self.sessions.lock().unwrap();
        let Some((_, check)) = sessions.iter_mut().find(|(id, _)| *id == update.session_id) else {
            drop(sessions);
            return self.problem(format!("update for unknown session {}", update.session_id));
        };
        match &update.update {
            acp_types::SessionUpdate::AgentMessageChunk(chunk) => match &chunk.content {
                ContentBlock::Text(text) => check.check(&text.text),
                other => check.problem = Some(format!("chunk is not text: {other:?}")),
            },
            other => check.problem = Some(format!("unexpected update {other:?}")),
        }
    }

    /// Checks one v2 `session/update`: an `agent_message_chunk` upsert of a known session is
    /// counted and checked as a v1 chunk (its text, in order); the prompt's `user_message`
    /// acknowledgement and the `running` / `requires_action` / `idle` state updates are
    /// expected and not counted (so that `notif_per_s` counts the same chunks as on v1);
    /// anything else is a problem.
    #[cfg(feature = "unstable_protocol_v2")]
    pub fn on_update_v2(&self, update: &acp_types::v2::UpdateSessionNotification) {
        use acp_types::v2::{ContentBlock, SessionUpdate};
        if matches!(update.update, SessionUpdate::AgentMessageChunk(_)) {
            self.notifications
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let mut sessions = self.sessions.lock().unwrap();
        let Some((_, check)) = sessions.iter_mut().find(|(id, _)| *id == update.session_id) else {
            drop(sessions);
            return self.problem(format!("update for unknown session {}", update.session_id));
        };
        match &update.update {
            SessionUpdate::AgentMessageChunk(chunk) => match &chunk.content {
                ContentBlock::Text(_) if chunk.message_id.as_str().is_empty() => {
                    check.problem = Some("a chunk with an empty messageId".into());
                }
                ContentBlock::Text(text) => check.check(&text.text),
                other => check.problem = Some(format!("chunk is not text: {other:?}")),
            },
            SessionUpdate::UserMessage(_) | SessionUpdate::StateUpdate(_) => {}
            other => check.problem = Some(format!("unexpected update {other:?}")),
        }
    }

    /// Answers one v2 `session/request_permission` with its `allow_once` option.
    ///
    /// # Errors
    ///
    /// Invalid params when no option is `allow_once`.
    #[cfg(feature = "unstable_protocol_v2")]
    pub fn on_permission_v2(
        &self,
        request: &acp_types::v2::RequestPermissionRequest,
    ) -> Result<acp_types::v2::RequestPermissionResponse, acp_types::ErrorObject> {
        use acp_types::v2;
        self.round_trips
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let allow = request
            .options
            .iter()
            .find(|option| option.kind == v2::PermissionOptionKind::AllowOnce)
            .map(|option| option.option_id.clone())
            .ok_or_else(|| acp_types::ErrorObject::invalid_params("no allow_once option"))?;
        Ok(v2::RequestPermissionResponse::new(
            v2::RequestPermissionOutcome::Selected(v2::SelectedPermissionOutcome::new(allow)),
        ))
    }

    /// Answers one `session/request_permission` with its `allow_once` option.
    ///
    /// # Errors
    ///
    /// Invalid params when no option is `allow_once`.
    pub fn on_permission(
        &self,
        request: &acp_types::RequestPermissionRequest,
    ) -> Result<acp_types::RequestPermissionResponse, acp_types::ErrorObject> {
        self.round_trips
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let allow = request
            .options
            .iter()
            .find(|option| option.kind == acp_types::PermissionOptionKind::AllowOnce)
            .map(|option| option.option_id.clone())
            .ok_or_else(|| acp_types::ErrorObject::invalid_params("no allow_once option"))?;
        Ok(acp_types::RequestPermissionResponse::new(
            acp_types::RequestPermissionOutcome::selected(allow),
        ))
    }

    /// Checks the prompts' answers (in session order) and everything seen against what
    /// `scenario` expects, printing each problem to stderr (prefixed with `program`), and
    /// collects the latency figures the agent reported.
    #[allow(clippy::print_stderr)]
    pub fn finish(
        &self,
        program: &str,
        scenario: Scenario,
        answers: Vec<Result<acp_types::PromptResponse, String>>,
    ) -> Checked {
        let mut ok = true;
        let command = scenario.command();
        let mut latencies = Vec::new();
        let mut agent_percentiles = None;
        for (k, answer) in answers.into_iter().enumerate() {
            match answer {
                Ok(answer) if answer.stop_reason == acp_types::StopReason::EndTurn => {
                    let figures = answer.meta.as_ref().and_then(|meta| meta.get("bench"));
                    if let Some(list) = figures.and_then(|f| f["lat_us"].as_array()) {
                        latencies.extend(list.iter().filter_map(serde_json::Value::as_u64));
                    } else if let Some(f) = figures {
                        agent_percentiles = f["p50_us"].as_u64().zip(f["p99_us"].as_u64());
                    }
                }
                Ok(answer) => {
                    eprintln!("{program}: session {k} ended with {:?}", answer.stop_reason);
                    ok = false;
                }
                Err(error) => {
                    eprintln!("{program}: the prompt of session {k} failed: {error}");
                    ok = false;
                }
            }
        }
        latencies.sort_unstable();
        let latency = if command.requests() == 0 {
            None
        } else if latencies.is_empty() {
            agent_percentiles
        } else {
            Some((percentile(&latencies, 50.0), percentile(&latencies, 99.0)))
        };

        let expected_chunks = command.chunks();
        for (id, check) in self.sessions.lock().unwrap().iter() {
            if let Some(problem) = &check.problem {
                eprintln!("{program}: {id}: {problem}");
                ok = false;
            } else if check.next != expected_chunks {
                eprintln!(
                    "{program}: {id}: {} chunks, {expected_chunks} expected",
                    check.next
                );
                ok = false;
            }
        }
        for problem in self.problems.lock().unwrap().iter() {
            eprintln!("{program}: {problem}");
            ok = false;
        }
        let notifications = self
            .notifications
            .load(std::sync::atomic::Ordering::Relaxed);
        let round_trips = self.round_trips.load(std::sync::atomic::Ordering::Relaxed);
        let expected_round_trips = command.requests() * scenario.sessions();
        if round_trips != expected_round_trips {
            eprintln!(
                "{program}: {round_trips} permission requests, {expected_round_trips} expected"
            );
            ok = false;
        }
        if matches!(scenario, Scenario::S2 { .. } | Scenario::S3 { .. }) && latency.is_none() {
            eprintln!("{program}: the agent reported no latency figures");
        }
        Checked {
            ok,
            notifications,
            round_trips,
            latency,
        }
    }
}

/// The tokio runtime the bench programs run on: current-thread, which measured faster for one
/// connection, or multi-thread with `ACP_BENCH_RUNTIME=multi`; with timers, which the durable
/// session store's group-commit writer needs (`--sessions`).
///
/// # Panics
///
/// When the runtime cannot be built (no threads or I/O driver available).
pub fn runtime() -> tokio::runtime::Runtime {
    match std::env::var("ACP_BENCH_RUNTIME").as_deref() {
        Ok("multi") => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    }
    .enable_io()
    .enable_time()
    .build()
    .expect("a tokio runtime")
}

/// `ACP_BENCH_BURST=BYTES`, for the bench agents: the burst size to set instead of the default
/// one (`acp_rpc::Config::max_burst_bytes`, or the server's `ServerOptions::max_burst_bytes`),
/// to compare settings with one binary.
pub fn burst_from_env() -> Option<usize> {
    std::env::var("ACP_BENCH_BURST").ok()?.parse().ok()
}

/// Runs a bench agent's connection to its end; an error goes to stderr (stdout is the
/// transport) and makes the exit status a failure.
pub fn agent_main<E: fmt::Display>(
    name: &str,
    serve: impl std::future::Future<Output = Result<(), E>>,
) -> std::process::ExitCode {
    match runtime().block_on(serve) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            #[allow(clippy::print_stderr)] // Stdout is the transport: errors go to stderr.
            {
                eprintln!("{name}: {error}");
            }
            std::process::ExitCode::FAILURE
        }
    }
}

/// The `main` of a bench client on tokio: parses the command line, runs `run` on [`runtime`],
/// prints the report line, and exits 0 when every check passed, 1 when one failed, 2 on a bad
/// command line.
pub fn client_main<F, Fut, E>(name: &str, run: F) -> std::process::ExitCode
where
    F: FnOnce(ClientArgs, std::time::Instant) -> Fut,
    Fut: std::future::Future<Output = Result<Report, E>>,
    E: fmt::Display,
{
    blocking_client_main(name, |args, started| runtime().block_on(run(args, started)))
}

/// [`client_main`] for a client that runs on the calling thread (the hand-written limit
/// client): `run` returns the report itself.
pub fn blocking_client_main<E: fmt::Display>(
    name: &str,
    run: impl FnOnce(ClientArgs, std::time::Instant) -> Result<Report, E>,
) -> std::process::ExitCode {
    let started = std::time::Instant::now();
    let args = match ClientArgs::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(problem) => {
            #[allow(clippy::print_stderr)] // A command-line program's usage message.
            {
                eprintln!("{name}: {problem}\n{CLIENT_USAGE}");
            }
            return std::process::ExitCode::from(2);
        }
    };
    #[allow(clippy::print_stdout, clippy::print_stderr)] // The report is the program's output.
    match run(args, started) {
        Ok(mut report) => {
            report.total = started.elapsed();
            println!("{report}");
            if report.ok {
                std::process::ExitCode::SUCCESS
            } else {
                std::process::ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("{name}: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
