//! What both checks are made of: a table of cases, the verdict a case reaches, and the tally
//! that turns verdicts and the problems the connections ran into into a report.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::conn::{Category, Conn, Finding, quote};
use crate::report::{CaseResult, Status};
use crate::schema::Role;

/// Which cases to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// What every peer must do.
    #[default]
    Core,
    /// Core, and every optional feature the peer advertises.
    Full,
}

impl Profile {
    /// `core` or `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Core => "core",
            Profile::Full => "full",
        }
    }

    /// Whether a run of this profile runs the cases of `case`.
    pub(crate) fn includes(self, case: Profile) -> bool {
        self == Profile::Full || case == Profile::Core
    }
}

/// One row of a check's case table: the case's name (as the report shows it), the profile that
/// runs it, and its function (`F`, a function pointer of the check's own signature).
#[derive(Debug)]
pub(crate) struct Case<F> {
    pub(crate) name: &'static str,
    pub(crate) profile: Profile,
    pub(crate) run: F,
}

impl<F> Case<F> {
    /// A case of the core profile.
    pub(crate) const fn core(name: &'static str, run: F) -> Self {
        Self {
            name,
            profile: Profile::Core,
            run,
        }
    }

    /// A case of the full profile only.
    pub(crate) const fn full(name: &'static str, run: F) -> Self {
        Self {
            name,
            profile: Profile::Full,
            run,
        }
    }
}

/// How a case ended: `Ok` with what it observed when everything it checks held, or the
/// [`Stop`] that ended it short of a pass. A `Result`, so that a case's steps end it with `?`.
pub(crate) type Verdict = Result<String, Stop>;

/// Why a case did not pass.
#[derive(Debug)]
pub(crate) enum Stop {
    /// Something it checks did not hold: why, and the offending message when there is one.
    Fail {
        reason: String,
        message: Option<String>,
    },
    /// It did not apply (a capability not advertised, a precondition not met): why.
    Skip(String),
}

/// A failure without an offending message.
pub(crate) fn fail(reason: impl Into<String>) -> Stop {
    Stop::Fail {
        reason: reason.into(),
        message: None,
    }
}

/// A failure quoting the offending message.
pub(crate) fn fail_with(reason: impl Into<String>, message: &Value) -> Stop {
    Stop::Fail {
        reason: reason.into(),
        message: Some(quote(message)),
    }
}

/// A case that did not apply.
pub(crate) fn skip(reason: impl Into<String>) -> Stop {
    Stop::Skip(reason.into())
}

/// A case's line of the report.
fn case_result(name: &'static str, verdict: Verdict, elapsed: Duration) -> CaseResult {
    let (status, detail, message) = match verdict {
        Ok(detail) => (Status::Pass, detail, None),
        Err(Stop::Fail { reason, message }) => (Status::Fail, reason, message),
        Err(Stop::Skip(reason)) => (Status::Skip, reason, None),
    };
    CaseResult {
        name,
        status,
        detail,
        message,
        elapsed,
    }
}

/// The running results of one check: each case's line, and what its connection ran into, for
/// the cases that report problems whichever case met them.
#[derive(Debug)]
pub(crate) struct Tally {
    total: usize,
    progress: bool,
    results: Vec<CaseResult>,
    findings: Vec<(&'static str, Finding)>,
    messages: usize,
}

impl Tally {
    /// A tally for `cases` table cases (the cross-cutting ones come on top); `progress` prints
    /// each case's name on stderr as it starts.
    pub(crate) fn new(cases: usize, progress: bool) -> Self {
        Self {
            total: cases + CROSS_CUTTING_CASES,
            progress,
            results: Vec::new(),
            findings: Vec::new(),
            messages: 0,
        }
    }

    /// Announces the next case; returns when it started.
    pub(crate) fn start(&self, name: &str) -> Instant {
        if self.progress {
            #[allow(clippy::print_stderr)] // Progress goes to stderr by design.
            {
                eprintln!("[{}/{}] {name}", self.results.len() + 1, self.total);
            }
        }
        Instant::now()
    }

    /// Records the verdict of the case `name`, and takes what its connection (if it got one)
    /// found and how many messages it received.
    pub(crate) fn record(
        &mut self,
        name: &'static str,
        verdict: Verdict,
        started: Instant,
        conn: Option<&mut Conn>,
    ) {
        if let Some(conn) = conn {
            self.messages += conn.received.len();
            let found = std::mem::take(&mut conn.findings);
            self.findings.extend(found.into_iter().map(|f| (name, f)));
        }
        self.results
            .push(case_result(name, verdict, started.elapsed()));
    }

    /// Every case's line: the table's, then the cross-cutting cases about the `peer`'s messages,
    /// each passing when no problem of its category was found, and otherwise failing with the
    /// first.
    pub(crate) fn finish(mut self, peer: Role) -> Vec<CaseResult> {
        for (name, category, what) in cross_cutting(peer) {
            let started = Instant::now();
            let mut mine = self.findings.iter().filter(|(_, f)| f.category == category);
            let verdict = match mine.next() {
                None => Ok(format!(
                    "{what} ({} messages from the {})",
                    self.messages,
                    peer.as_str()
                )),
                Some((case, first)) => Err(Stop::Fail {
                    reason: format!(
                        "{} problem(s); first, in case `{case}`: {}",
                        mine.count() + 1,
                        first.reason
                    ),
                    message: first.message.clone(),
                }),
            };
            self.results
                .push(case_result(name, verdict, started.elapsed()));
        }
        self.results
    }
}

/// How many cross-cutting cases end a report.
const CROSS_CUTTING_CASES: usize = 3;

/// The cases that report what any case ran into, about the messages of `peer`:
/// `(name, category, what it checks)`.
fn cross_cutting(peer: Role) -> [(&'static str, Category, &'static str); CROSS_CUTTING_CASES] {
    let (capabilities, what) = match peer {
        Role::Agent => (
            "client-capabilities",
            "only advertised client methods called and session updates sent, absolute paths",
        ),
        Role::Client => ("agent-capabilities", "only advertised agent methods called"),
    };
    [
        (
            "messages-valid",
            Category::Schema,
            "every message valid for its method and direction",
        ),
        (
            "one-answer-per-request",
            Category::Ids,
            "every answer matched to one request, none twice",
        ),
        (capabilities, Category::Capability, what),
    ]
}
