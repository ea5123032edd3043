//! `acp check agent`: spawns an agent and runs the conformance cases against it.
//!
//! Every case gets a fresh agent process (so no state leaks from one to the next) in a fresh
//! temporary sandbox, is bounded by timeouts, and ends with the agent's process group killed.
//! Problems that any case may run into (a schema-invalid message, a second answer, a call the
//! checker did not advertise) are reported by their own cases at the end, so that each defect
//! shows in exactly one place.
//!
//! The cases are tables: `core_cases.rs` and `full_cases.rs` (the optional features an agent
//! advertises) for version 1, and, with the feature `unstable_protocol_v2`, `v2_cases.rs` for
//! the ACP v2 draft; [`Protocol`] chooses which versions run (v1 and v2 each on connections of
//! their own); `steps.rs` holds what their cases share.

mod core_cases;
mod full_cases;
mod steps;
#[cfg(feature = "unstable_protocol_v2")]
mod v2_cases;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use acp_codec::FramingMode;
use acp_types::AgentCapabilities;
use acp_types::capabilities::agent_allows;
use futures::future::BoxFuture;

pub use crate::case::Profile;
use crate::case::{Case, Stop, Tally, Verdict, fail, skip};
use crate::conn::{Conn, PeerCommand};
pub use crate::protocol::Protocol;
use crate::report::Report;
use crate::schema::Role;

/// The settings of `acp check agent`.
#[derive(Debug, Clone)]
pub struct AgentCheck {
    /// The agent's command.
    pub command: PeerCommand,
    /// The framing to speak; `Auto` tries NDJSON, then Content-Length.
    pub framing: FramingMode,
    /// Which cases to run.
    pub profile: Profile,
    /// How long to wait for any one answer.
    pub timeout: Duration,
    /// The text of an ordinary prompt.
    pub prompt: String,
    /// The text of a prompt that keeps the agent busy for a while (for the cancellation and
    /// concurrency cases); the ordinary prompt when `None`.
    pub long_prompt: Option<String>,
    /// Print each case's name on stderr as it starts.
    pub progress: bool,
    /// The protocol versions to check (v2 needs the feature `unstable_protocol_v2`).
    pub protocol: Protocol,
}

impl AgentCheck {
    /// Settings with the defaults: NDJSON, the core profile, a 10 s timeout.
    pub fn new(command: PeerCommand) -> Self {
        Self {
            command,
            framing: FramingMode::Ndjson,
            profile: Profile::Core,
            timeout: Duration::from_secs(10),
            prompt: DEFAULT_PROMPT.to_owned(),
            long_prompt: None,
            progress: false,
            protocol: Protocol::V1,
        }
    }
}

/// The default prompt text: something any agent answers with a short turn.
pub const DEFAULT_PROMPT: &str = "Hello! Please reply with one short sentence.";

/// The function of an agent case: it gets the run's context and a fresh, uninitialized
/// connection to a fresh agent.
type CaseFn = for<'a> fn(&'a mut Ctx, &'a mut Conn) -> BoxFuture<'a, Verdict>;

/// The context shared by the cases of one run.
#[derive(Debug)]
struct Ctx {
    opts: AgentCheck,
    framing: FramingMode,
    /// The `agentCapabilities` of the `initialize` case (`None`: nothing advertised, or not
    /// well-formed), for the cases that depend on them.
    capabilities: Option<AgentCapabilities>,
    /// Facts about the run for the report (framing, profile, the agent's name).
    info: Vec<(String, String)>,
    /// What the `v2-initialize` case found: `None` before it (or when it failed), `Some(None)`
    /// when the agent answered another version.
    #[cfg_attr(not(feature = "unstable_protocol_v2"), allow(dead_code))]
    v2: Option<Option<V2Facts>>,
}

/// What a v2 agent's answer to `initialize` advertised, for the v2 cases that depend on it.
#[derive(Debug)]
#[cfg_attr(not(feature = "unstable_protocol_v2"), allow(dead_code))]
struct V2Facts {
    /// Its `capabilities`.
    capabilities: serde_json::Value,
    /// Its `authMethods`.
    auth_methods: Vec<serde_json::Value>,
}

impl Ctx {
    /// A fresh sandbox and agent process.
    async fn spawn(&self) -> Result<(Conn, Sandbox), Stop> {
        let sandbox = Sandbox::new().map_err(|e| fail(format!("cannot make a sandbox: {e}")))?;
        let conn = Conn::spawn(
            &self.opts.command,
            self.framing,
            &sandbox.0,
            self.opts.timeout,
        )
        .map_err(|e| fail(format!("cannot start `{}`: {e}", self.opts.command)))?;
        Ok((conn, sandbox))
    }

    /// A skip unless the agent advertised what `method` needs (by the capability table of
    /// `acp_types::capabilities`), naming the capability.
    fn advertises(&self, method: &str) -> Result<(), Stop> {
        agent_allows(self.capabilities.as_ref(), method)
            .map_err(|capability| skip(format!("{capability} not advertised")))
    }

    /// The text of the prompt meant to keep the agent busy.
    fn long_prompt(&self) -> &str {
        self.opts
            .long_prompt
            .as_deref()
            .unwrap_or(&self.opts.prompt)
    }
}

/// A temporary directory, the agent's working directory, removed when dropped.
#[derive(Debug)]
struct Sandbox(PathBuf);

impl Sandbox {
    fn new() -> std::io::Result<Self> {
        // Unique in the process, whatever number of checks run at once.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("acp-check-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let dir = dir.canonicalize()?;
        std::fs::write(
            dir.join("README.md"),
            "# A sandbox of `acp check`\n\nHello.\n",
        )?;
        Ok(Self(dir))
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the check and returns its report.
pub async fn check_agent(opts: AgentCheck) -> Report {
    let mut info = vec![("profile".to_owned(), opts.profile.as_str().to_owned())];
    if opts.protocol != Protocol::V1 {
        info.push(("protocol".to_owned(), opts.protocol.as_str().to_owned()));
    }
    let framing = match opts.framing {
        FramingMode::Auto => {
            let found = detect_framing(&opts).await;
            info.push((
                "framing".to_owned(),
                format!("{} (detected)", found.as_str()),
            ));
            found
        }
        other => {
            info.push(("framing".to_owned(), other.as_str().to_owned()));
            other
        }
    };
    let mut ctx = Ctx {
        opts,
        framing,
        capabilities: None,
        info,
        v2: None,
    };
    let protocol = ctx.opts.protocol;
    #[cfg(feature = "unstable_protocol_v2")]
    let v2 = protocol.v2_cases(v2_cases::CASES);
    #[cfg(not(feature = "unstable_protocol_v2"))]
    let v2: &[Case<CaseFn>] = &[];
    let v1 = protocol.v1_cases(core_cases::CASES);
    let v1_full = protocol.v1_cases(full_cases::CASES);
    let cases: Vec<&Case<CaseFn>> = v1
        .iter()
        .chain(v1_full)
        .chain(v2)
        .filter(|case| ctx.opts.profile.includes(case.profile))
        .collect();
    let mut tally = Tally::new(cases.len(), ctx.opts.progress);
    for case in cases {
        let started = tally.start(case.name);
        let (verdict, conn) = run_case(&mut ctx, case).await;
        match conn {
            Some((mut conn, sandbox)) => {
                tally.record(case.name, verdict, started, Some(&mut conn));
                conn.shutdown().await;
                drop(sandbox);
            }
            None => tally.record(case.name, verdict, started, None),
        }
    }
    Report {
        subject: "agent",
        command: ctx.opts.command.to_string(),
        info: ctx.info,
        cases: tally.finish(Role::Agent),
    }
}

/// Runs one case on a fresh agent; returns its verdict and the connection (to be shut down
/// once its findings are counted).
async fn run_case(ctx: &mut Ctx, case: &Case<CaseFn>) -> (Verdict, Option<(Conn, Sandbox)>) {
    let (mut conn, sandbox) = match ctx.spawn().await {
        Ok(pair) => pair,
        Err(stop) => return (Err(stop), None),
    };
    // Every wait inside is bounded by the timeout; this bounds the case as a whole.
    let limit = ctx.opts.timeout * 6 + Duration::from_secs(5);
    let verdict = match tokio::time::timeout(limit, (case.run)(ctx, &mut conn)).await {
        Ok(verdict) => verdict,
        Err(_) => Err(fail(format!("the case did not finish within {limit:?}"))),
    };
    (verdict, Some((conn, sandbox)))
}

/// Finds the agent's framing: an `initialize` in NDJSON, else in Content-Length.
async fn detect_framing(opts: &AgentCheck) -> FramingMode {
    let probe = Duration::from_secs(5).min(opts.timeout);
    for mode in [FramingMode::Ndjson, FramingMode::ContentLength] {
        let ctx = Ctx {
            opts: AgentCheck {
                timeout: probe,
                ..opts.clone()
            },
            framing: mode,
            capabilities: None,
            info: Vec::new(),
            v2: None,
        };
        if let Ok((mut c, _sandbox)) = ctx.spawn().await {
            let ok = c.initialize().await.is_ok();
            c.shutdown().await;
            if ok {
                return mode;
            }
        }
    }
    FramingMode::Ndjson
}
