//! `acp validate FILE`: checks a transcript and reports its problems with line numbers.

use std::io::BufRead;
use std::path::Path;

use crate::schema::Role;
use crate::transcript::{Line, Problem, Validator, guess_sender, parse_line};

/// The result of validating a transcript.
#[derive(Debug)]
pub struct Validation {
    /// Messages from the client.
    pub from_client: usize,
    /// Messages from the agent.
    pub from_agent: usize,
    /// True when the file held both directions (the tap's format).
    pub both_sides: bool,
    /// Every problem, in line order.
    pub problems: Vec<Problem>,
    /// The protocol version the messages were last checked as (given, or negotiated by the
    /// transcript's `initialize`).
    pub version: u64,
}

impl Validation {
    /// The summary line (naming the protocol version when it is not 1).
    pub fn summary(&self) -> String {
        let version = if self.version == crate::conn::PROTOCOL_VERSION {
            String::new()
        } else {
            format!("; protocol version {}", self.version)
        };
        format!(
            "{} messages ({} from the client, {} from the agent{}{version}): {} problem(s)",
            self.from_client + self.from_agent,
            self.from_client,
            self.from_agent,
            if self.both_sides {
                ""
            } else {
                "; one direction only, ids not matched"
            },
            self.problems.len()
        )
    }
}

/// Validates the transcript at `path`; `from` says who sent a plain NDJSON file's messages
/// (guessed from its methods when `None`). The protocol version is the one the transcript's
/// `initialize` negotiates (1 until then); see [`validate_file_as`] to give it.
///
/// # Errors
///
/// When the file cannot be read.
pub fn validate_file(path: &Path, from: Option<Role>) -> std::io::Result<Validation> {
    validate_file_as(path, from, None)
}

/// Validates the transcript at `path` as [`validate_file`] does, as protocol `version` when
/// one is given (whatever its `initialize` says).
///
/// # Errors
///
/// When the file cannot be read, or this build does not know `version` (an
/// [`InvalidInput`](std::io::ErrorKind::InvalidInput) error naming it).
pub fn validate_file_as(
    path: &Path,
    from: Option<Role>,
    version: Option<u64>,
) -> std::io::Result<Validation> {
    if let Some(version) = version
        && crate::schema::Schema::for_version(version).is_none()
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("this build of acp does not know protocol version {version}"),
        ));
    }
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    for (i, text) in file.lines().enumerate() {
        match parse_line(&text?) {
            Ok(Line::Blank) => {}
            Ok(line) => lines.push((i + 1, line)),
            Err(reason) => problems.push(Problem {
                line: i + 1,
                reason,
            }),
        }
    }
    let both_sides = lines
        .iter()
        .any(|(_, l)| matches!(l, Line::Message(Some(_), _) | Line::Raw(Some(_), _)));
    let plain: Vec<serde_json::Value> = lines
        .iter()
        .filter_map(|(_, l)| match l {
            Line::Message(None, m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    let default_sender = from.unwrap_or_else(|| guess_sender(&plain));
    let mut validator = version
        .and_then(|version| Validator::for_version(both_sides, version))
        .unwrap_or_else(|| Validator::new(both_sides));
    for (n, line) in lines {
        match line {
            Line::Message(sender, message) => {
                validator.feed(n, sender.unwrap_or(default_sender), &message);
            }
            Line::Raw(sender, text) => problems.push(Problem {
                line: n,
                reason: format!(
                    "the {} sent bytes that are not a JSON message: {}",
                    sender.unwrap_or(default_sender).as_str(),
                    crate::schema::shorten(&text, 200)
                ),
            }),
            Line::Blank => {}
        }
    }
    if both_sides {
        validator.finish();
    }
    problems.append(&mut validator.problems);
    problems.sort_by_key(|p| p.line);
    Ok(Validation {
        from_client: validator.counts.get(&Role::Client).copied().unwrap_or(0),
        from_agent: validator.counts.get(&Role::Agent).copied().unwrap_or(0),
        both_sides,
        problems,
        version: validator.version(),
    })
}
