//! The result of a check: one line per case, a summary, a table for people and JSON for
//! programs.

use std::io::IsTerminal;
use std::time::Duration;

use serde_json::{Value, json};

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything it checks held.
    Pass,
    /// Something it checks did not hold.
    Fail,
    /// It did not apply (a capability not advertised, a precondition not met).
    Skip,
}

impl Status {
    /// `pass`, `fail` or `skip`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// The outcome of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case's name.
    pub name: &'static str,
    /// How it ended.
    pub status: Status,
    /// Why it failed or was skipped, or what it observed when it passed.
    pub detail: String,
    /// The offending message, when there is one.
    pub message: Option<String>,
    /// How long it took.
    pub elapsed: Duration,
}

/// A whole check's results.
#[derive(Debug, Clone)]
pub struct Report {
    /// What was checked (`agent` or `client`).
    pub subject: &'static str,
    /// The command that was checked.
    pub command: String,
    /// Facts about the run (framing, profile, the peer's name).
    pub info: Vec<(String, String)>,
    /// Every case, in the order they ran.
    pub cases: Vec<CaseResult>,
}

impl Report {
    /// The result of the case `name`.
    pub fn case(&self, name: &str) -> Option<&CaseResult> {
        self.cases.iter().find(|c| c.name == name)
    }

    /// The names of the cases that ended with `status`, in order.
    pub fn names(&self, status: Status) -> Vec<&'static str> {
        self.cases
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.name)
            .collect()
    }

    /// How many cases ended with `status`.
    pub fn count(&self, status: Status) -> usize {
        self.cases.iter().filter(|c| c.status == status).count()
    }

    /// True when no case failed.
    pub fn passed(&self) -> bool {
        self.count(Status::Fail) == 0
    }

    /// The summary line.
    pub fn summary(&self) -> String {
        format!(
            "{} cases: {} passed, {} failed, {} skipped",
            self.cases.len(),
            self.count(Status::Pass),
            self.count(Status::Fail),
            self.count(Status::Skip)
        )
    }

    /// The aligned table with the summary line; `colour` paints the statuses.
    pub fn table(&self, colour: bool) -> String {
        let width = self
            .cases
            .iter()
            .map(|c| c.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let mut out = format!("{:width$}  STATUS  DETAIL\n", "CASE");
        for case in &self.cases {
            let status = case.status.as_str();
            let painted = match (colour, case.status) {
                (false, _) => status.to_owned(),
                (true, Status::Pass) => format!("\x1b[32m{status}\x1b[0m"),
                (true, Status::Fail) => format!("\x1b[31m{status}\x1b[0m"),
                (true, Status::Skip) => format!("\x1b[33m{status}\x1b[0m"),
            };
            out.push_str(&format!(
                "{:width$}  {painted}    {}\n",
                case.name, case.detail
            ));
            if let Some(message) = &case.message {
                out.push_str(&format!("{:width$}          message: {message}\n", ""));
            }
        }
        out.push_str(&self.summary());
        out.push('\n');
        out
    }

    /// The machine-readable report.
    pub fn to_json(&self) -> Value {
        let info: serde_json::Map<String, Value> = self
            .info
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        json!({
            "subject": self.subject,
            "command": self.command,
            "info": info,
            "cases": self.cases.iter().map(|c| json!({
                "name": c.name,
                "status": c.status.as_str(),
                "detail": c.detail,
                "message": c.message,
                "elapsedMs": c.elapsed.as_millis() as u64,
            })).collect::<Vec<_>>(),
            "summary": {
                "passed": self.count(Status::Pass),
                "failed": self.count(Status::Fail),
                "skipped": self.count(Status::Skip),
            },
            "ok": self.passed(),
        })
    }
}

/// True when colours may be used on stdout (a terminal, and `NO_COLOR` unset).
pub fn colour_on_stdout() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}
