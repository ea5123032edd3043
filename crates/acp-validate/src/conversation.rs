//! [`Conversation`]: the messages of one connection, with each response checked against the
//! request it answers.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::{Kind, Part, Role, Validator, Violation};

/// The method whose answer negotiates the protocol version.
const INITIALIZE: &str = "initialize";

/// How many requests a [`Conversation`] remembers by default, of both sides together.
pub const DEFAULT_OPEN_LIMIT: usize = 1024;

/// A request awaiting its answer, as a [`Conversation`] remembers it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Open<T> {
    /// Its method.
    pub method: String,
    /// What the program keeps with it (see [`Conversation::feed`]).
    pub data: T,
    /// Its place in the order requests were sent, to forget the oldest first.
    seq: u64,
}

/// What [`Conversation::feed`] found in one message.
#[derive(Debug)]
#[non_exhaustive]
pub struct Fed<T> {
    /// What the message is, when it is a JSON-RPC object.
    pub kind: Option<Kind>,
    /// For a response: the request it answers, no longer open.
    pub answered: Option<Open<T>>,
    /// What is wrong with it: its id first, then its schema.
    pub violations: Vec<Violation>,
}

/// The messages of one connection, both directions, checked as they come: each against the
/// schema, and each response against the result of the request it answers, which the
/// conversation remembers (its id and method, and any `T` the program keeps with it).
///
/// An answer to an id with no request open is a [`Part::Id`] violation, and so is a request
/// reusing the id of one still open. Memory is bounded: beyond [`limit`](Self::limit) open
/// requests (a peer that never answers) the oldest is forgotten, and an answer to it, should
/// one come, is reported as an answer to an unknown id.
///
/// ```
/// use acp_validate::{Conversation, Part, Role, Validator};
/// use serde_json::json;
///
/// let mut conversation: Conversation = Conversation::new(Validator::embedded().clone());
/// let new = json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
///                  "params": {"cwd": "/home", "mcpServers": []}});
/// assert!(conversation.check(Role::Client, &new).is_empty());
/// // The answer is checked as a `session/new` result: it lacks the `sessionId`.
/// let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"session": "s1"}});
/// let found = conversation.check(Role::Agent, &answer);
/// assert_eq!(found[0].part, Part::Result);
/// assert_eq!(found[0].method.as_deref(), Some("session/new"));
/// // A second answer to the same id answers nothing open.
/// assert_eq!(conversation.check(Role::Agent, &answer)[0].part, Part::Id);
/// ```
#[derive(Debug)]
pub struct Conversation<T = ()> {
    validator: Validator,
    /// Requests awaiting an answer, by sender and id (JSON text).
    open: HashMap<(Role, String), Open<T>>,
    /// The keys of `open` in the order they were sent; stale entries (answered, or replaced by
    /// a request reusing the id) are skipped, and swept when they outnumber the open ones.
    order: VecDeque<(u64, (Role, String))>,
    next_seq: u64,
    limit: usize,
    forgotten: u64,
    /// Whether the validator follows the version `initialize` negotiates.
    follow: bool,
    /// The version the last answered `initialize` negotiated.
    negotiated: Option<u64>,
}

/// The highest protocol version whose schema is embedded in this build.
const HIGHEST_KNOWN_VERSION: u64 = if cfg!(feature = "unstable_protocol_v2") {
    2
} else {
    1
};

impl<T> Conversation<T> {
    /// A conversation checked against `validator`, remembering up to
    /// [`DEFAULT_OPEN_LIMIT`] open requests.
    pub fn new(validator: Validator) -> Self {
        Self {
            validator,
            open: HashMap::new(),
            order: VecDeque::new(),
            next_seq: 0,
            limit: DEFAULT_OPEN_LIMIT,
            forgotten: 0,
            follow: false,
            negotiated: None,
        }
    }

    /// Follows the protocol version the connection negotiates: an `initialize` request is
    /// checked against the embedded schema of the version it asks for (the highest this build
    /// knows at or below it), and from the answer to it on, every message against the
    /// embedded schema of the version the answer names ([`Validator::embedded_for`]; a
    /// version this build does not know keeps the validator it has). Without the feature
    /// `unstable_protocol_v2` only version 1 is known.
    #[must_use]
    pub fn follow_version(mut self) -> Self {
        self.follow = true;
        self
    }

    /// The protocol version the answer to `initialize` named, once one has been fed.
    pub fn negotiated_version(&self) -> Option<u64> {
        self.negotiated
    }

    /// Remembers at most `limit` open requests (at least one); beyond it the oldest is
    /// forgotten.
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// The validator the messages are checked against.
    pub fn validator(&self) -> &Validator {
        &self.validator
    }

    /// How many open requests were forgotten beyond the limit so far.
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// Checks one message `from` sent, remembering a request (with `data()`), matching a
    /// response to the request it answers; returns what it found. A batch (an array) is not
    /// one message: give its members one by one, or use [`check`](Self::check).
    pub fn feed(&mut self, from: Role, message: &Value, data: impl FnOnce() -> T) -> Fed<T> {
        let kind = Kind::of(message);
        let mut violations = Vec::new();
        let mut answered = None;
        let id = message.get("id");
        match (kind, id) {
            (Some(Kind::Request), Some(id)) => {
                let method = message["method"].as_str().unwrap_or_default();
                let key = (from, id.to_string());
                if self.open.contains_key(&key) {
                    violations.push(id_violation(
                        from,
                        kind,
                        Some(method),
                        &key.1,
                        format!("the {from} reused the id {} of a request still open", key.1),
                    ));
                }
                self.remember(key, method, data());
            }
            (Some(Kind::Response), Some(id)) => {
                let key = (from.peer(), id.to_string());
                match self.open.remove(&key) {
                    Some(open) => answered = Some(open),
                    // An error about a message that had no usable id (parse error, invalid
                    // request): it answers nothing.
                    None if id.is_null() && message.get("error").is_some() => {}
                    None => {
                        let mut reason = format!(
                            "a response to request {}, which the {} never sent",
                            key.1,
                            from.peer()
                        );
                        if self.forgotten > 0 {
                            reason.push_str(&format!(
                                " (or one of the {} forgotten beyond {} open requests)",
                                self.forgotten, self.limit
                            ));
                        }
                        violations.push(id_violation(from, kind, None, &key.1, reason));
                    }
                }
            }
            _ => {}
        }
        let method = answered.as_ref().map(|open| open.method.as_str());
        let mut validator = &self.validator;
        if method == Some(INITIALIZE) {
            let version = message["result"]["protocolVersion"].as_u64();
            if version.is_some() {
                self.negotiated = version;
            }
            if self.follow
                && let Some(negotiated) = version.and_then(Validator::embedded_for)
            {
                self.validator = negotiated.clone();
                validator = &self.validator;
            }
        } else if self.follow
            && kind == Some(Kind::Request)
            && message["method"] == INITIALIZE
            && let Some(requested) = message["params"]["protocolVersion"].as_u64()
            && let Some(asked) = (1..=requested.min(HIGHEST_KNOWN_VERSION))
                .rev()
                .find_map(Validator::embedded_for)
        {
            validator = asked;
        }
        if let Err(violation) = validator.check(from, message, method) {
            violations.push(violation);
        }
        Fed {
            kind,
            answered,
            violations,
        }
    }

    /// Checks what `from` sent (one message, or a batch member by member) and returns every
    /// violation; see [`feed`](Self::feed).
    pub fn check(&mut self, from: Role, message: &Value) -> Vec<Violation>
    where
        T: Default,
    {
        match message.as_array() {
            Some(batch) => batch
                .iter()
                .flat_map(|item| self.feed(from, item, T::default).violations)
                .collect(),
            None => self.feed(from, message, T::default).violations,
        }
    }

    /// Remembers a request `from` sent without checking it (a program that checks only what
    /// its peer sends still needs the methods of its own requests to check the answers).
    pub fn note_request(&mut self, from: Role, id: &Value, method: &str, data: T) {
        self.remember((from, id.to_string()), method, data);
    }

    /// Forgets the request `from`'s peer sent with `id`, which `from` answered without the
    /// answer being checked; returns it if it was open.
    pub fn note_response(&mut self, from: Role, id: &Value) -> Option<Open<T>> {
        self.open.remove(&(from.peer(), id.to_string()))
    }

    /// The open requests: sender, id (JSON text) and what is remembered, in no particular
    /// order.
    pub fn open(&self) -> impl Iterator<Item = (Role, &str, &Open<T>)> {
        self.open
            .iter()
            .map(|((role, id), open)| (*role, id.as_str(), open))
    }

    /// The open requests, with what the program keeps with each open to change.
    pub fn open_mut(&mut self) -> impl Iterator<Item = (Role, &str, &mut Open<T>)> {
        self.open
            .iter_mut()
            .map(|((role, id), open)| (*role, id.as_str(), open))
    }

    /// Takes every open request, oldest first (at the end of a conversation: the requests
    /// never answered).
    pub fn take_open(&mut self) -> Vec<(Role, String, Open<T>)> {
        self.order.clear();
        let mut open: Vec<_> = self
            .open
            .drain()
            .map(|((role, id), open)| (role, id, open))
            .collect();
        open.sort_by_key(|(_, _, open)| open.seq);
        open
    }

    fn remember(&mut self, key: (Role, String), method: &str, data: T) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.order.push_back((seq, key.clone()));
        let open = Open {
            method: method.to_owned(),
            data,
            seq,
        };
        self.open.insert(key, open);
        while self.open.len() > self.limit {
            let Some((seq, key)) = self.order.pop_front() else {
                break;
            };
            if self.open.get(&key).is_some_and(|open| open.seq == seq) {
                self.open.remove(&key);
                self.forgotten += 1;
                tracing::debug!(
                    from = %key.0, id = %key.1, limit = self.limit,
                    "a request never answered is forgotten"
                );
            }
        }
        // Answered requests leave their keys in `order`: sweep them when they outnumber the
        // open ones, so that the queue stays within twice the limit.
        if self.order.len() > 2 * self.limit.max(8) {
            let open = &self.open;
            self.order
                .retain(|(seq, key)| open.get(key).is_some_and(|o| o.seq == *seq));
        }
    }
}

fn id_violation(
    from: Role,
    kind: Option<Kind>,
    method: Option<&str>,
    id: &str,
    reason: String,
) -> Violation {
    Violation {
        from,
        kind,
        method: method.map(Box::from),
        id: Some(id.into()),
        part: Part::Id,
        path: "/id".into(),
        schema_path: "".into(),
        reason,
    }
}
