//! The hookup for any program: an observer function for acp-rpc connections (so for
//! `AgentOptions::observe` and `ClientOptions::observe`) that checks what the peer sends.

use std::sync::{Arc, Mutex, PoisonError};

use acp_rpc::Direction;
use serde::Deserialize;
use serde_json::Value;

use crate::{Conversation, DEFAULT_OPEN_LIMIT, Part, Role, Validator, Violation};

/// What a program does with a violation.
type Report = dyn Fn(&Violation) + Send + Sync;

/// Builds the observer function that checks a connection's traffic: what the peer sends
/// always, what this side sends when asked ([`check_sent`](Self::check_sent)); each response
/// against the request it answers. Violations go to [`report`](Self::report), by default a
/// `tracing` warning.
///
/// ```
/// use acp_validate::{Checker, Role};
///
/// // An agent checking its client, its own messages too, violations as warnings.
/// let observe = Checker::new(Role::Client).check_sent(true).into_observer();
/// let options = acp_agent::AgentOptions::default().observe(observe);
/// # let _ = options;
/// ```
#[derive(Clone)]
pub struct Checker {
    peer: Role,
    validator: Validator,
    check_sent: bool,
    limit: usize,
    /// Whether the schema follows the version `initialize` negotiates (the embedded ones).
    follow: bool,
    report: Arc<Report>,
}

impl std::fmt::Debug for Checker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checker")
            .field("peer", &self.peer)
            .field("check_sent", &self.check_sent)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl Checker {
    /// Checks what `peer` (the other side of the connection) sends against the embedded
    /// schema of the version the connection negotiates (see
    /// [`Conversation::follow_version`]), reporting violations with `tracing::warn!`.
    pub fn new(peer: Role) -> Self {
        Self {
            peer,
            validator: Validator::embedded().clone(),
            check_sent: false,
            limit: DEFAULT_OPEN_LIMIT,
            follow: true,
            report: Arc::new(|violation: &Violation| {
                tracing::warn!(from = %violation.from, part = ?violation.part, "{violation}");
            }),
        }
    }

    /// Checks against `validator` instead of the embedded schema (the draft one, or an
    /// official file), whatever version the connection negotiates.
    #[must_use]
    pub fn validator(mut self, validator: Validator) -> Self {
        self.validator = validator;
        self.follow = false;
        self
    }

    /// Gives each violation to `report` instead of logging it. It runs on the connection's
    /// tasks: keep it quick, and never call the connection from it.
    #[must_use]
    pub fn report(mut self, report: impl Fn(&Violation) + Send + Sync + 'static) -> Self {
        self.report = Arc::new(report);
        self
    }

    /// Checks what this side sends too (off by default; its requests are remembered either
    /// way, to check the answers).
    #[must_use]
    pub fn check_sent(mut self, check_sent: bool) -> Self {
        self.check_sent = check_sent;
        self
    }

    /// Remembers at most `limit` open requests (see [`Conversation::limit`]).
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// The observer function, for `AgentOptions::observe`, `ClientOptions::observe` or
    /// acp-rpc's `Config::observe`. Give each connection its own: it follows one conversation.
    ///
    /// Each message checked is parsed once; this side's messages, when not checked, only as
    /// far as their id and method.
    pub fn into_observer(self) -> impl Fn(Direction, &[u8]) + Send + Sync + 'static {
        let Checker {
            peer,
            validator,
            check_sent,
            limit,
            follow,
            report,
        } = self;
        let mut conversation = Conversation::<()>::new(validator).limit(limit);
        if follow {
            conversation = conversation.follow_version();
        }
        let conversation = Mutex::new(conversation);
        move |direction: Direction, body: &[u8]| {
            let from = match direction {
                Direction::Received => peer,
                Direction::Sent => peer.peer(),
                _ => return,
            };
            if direction == Direction::Sent && !check_sent {
                note_sent(&conversation, from, body);
                return;
            }
            let violations = match serde_json::from_slice::<Value>(body) {
                Ok(message) => conversation
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .check(from, &message),
                Err(error) => vec![Violation {
                    from,
                    kind: None,
                    method: None,
                    id: None,
                    part: Part::Message,
                    path: "".into(),
                    schema_path: "".into(),
                    reason: format!("not JSON: {error}"),
                }],
            };
            for violation in &violations {
                report(violation);
            }
        }
    }
}

/// The members of a message that say what it is, read without the rest.
#[derive(Deserialize)]
struct Head<'a> {
    id: Option<Value>,
    #[serde(borrow)]
    method: Option<std::borrow::Cow<'a, str>>,
}

/// Remembers a request this side sent, forgets a request of the peer's this side answered.
fn note_sent(conversation: &Mutex<Conversation>, from: Role, body: &[u8]) {
    let Ok(head) = serde_json::from_slice::<Head<'_>>(body) else {
        return;
    };
    let Some(id) = head.id else {
        return;
    };
    let mut conversation = conversation.lock().unwrap_or_else(PoisonError::into_inner);
    match head.method {
        Some(method) => conversation.note_request(from, &id, &method, ()),
        None => {
            conversation.note_response(from, &id);
        }
    }
}

/// The observer function that checks what `peer` sends and gives each violation to `report`:
/// [`Checker::new`]`(peer).report(report).into_observer()`.
///
/// ```
/// use acp_validate::{Role, peer_checker};
///
/// let options = acp_client::ClientOptions::default()
///     .observe(peer_checker(Role::Agent, |violation| eprintln!("{violation}")));
/// # let _ = options;
/// ```
pub fn peer_checker(
    peer: Role,
    report: impl Fn(&Violation) + Send + Sync + 'static,
) -> impl Fn(Direction, &[u8]) + Send + Sync + 'static {
    Checker::new(peer).report(report).into_observer()
}
