//! Transcripts: the tap's NDJSON record of both directions, and their validation (`acp
//! validate`, `acp tap --validate`).
//!
//! A tap transcript line is `{"ts": "<RFC 3339 UTC>", "from": "client"|"agent", "message":
//! <the message>}`, or `"raw": "<text>"` instead of `message` for bytes that were not a JSON
//! message. `acp validate` also reads plain NDJSON of one direction (one message per line).

use std::collections::{HashMap, VecDeque};
use std::time::{SystemTime, UNIX_EPOCH};

use acp_types::methods::{agent, client};
use acp_validate::{Conversation, Open, Part};
use serde_json::{Value, json};

use crate::conn::{PROTOCOL_VERSION, quote};
use crate::schema::{Kind, Role, Schema, diagnose, name_v1_only};

/// One protocol problem in a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The 1-based line of the transcript.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// The kinds of update that belong to a prompt turn, so may not follow its response.
const TURN_UPDATES: &[&str] = &[
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
];

/// How many answered requests are remembered to tell a second answer from a stray one (a
/// live tap runs for hours: memory stays bounded).
const ANSWERED_REMEMBERED: usize = 4096;

/// What the validator keeps with each open request, beside its method.
#[derive(Debug)]
struct Request {
    line: usize,
    session: Option<String>,
    /// For a permission request: a `session/cancel` for its session was sent while it waited.
    cancelled: bool,
}

/// Checks a stream of messages of both directions (or of one) as they come: each message
/// against the schema, each response against its request (through `acp-validate`'s
/// [`Conversation`]), and the rules of prompt turns and cancellation.
#[derive(Debug)]
pub struct Validator {
    /// The requests awaiting an answer, by sender and id, and the schema.
    conversation: Conversation<Request>,
    /// Answered requests, by sender and id, to tell a second answer from a stray one; the
    /// oldest forgotten beyond [`ANSWERED_REMEMBERED`].
    answered: HashMap<(Role, String), usize>,
    answered_order: VecDeque<(Role, String)>,
    /// Sessions whose turn ended (the prompt's response seen), until the next prompt.
    turn_over: HashMap<String, usize>,
    /// Sessions with a `session/cancel` sent during the current turn.
    cancelled: HashMap<String, usize>,
    /// Whether both directions are seen (a one-direction file cannot match ids).
    both_sides: bool,
    /// The protocol version the transcript is checked as, when given rather than detected.
    version: Option<u64>,
    /// v2: the prompts acknowledged whose `user_message` has not come yet, by session: the
    /// acknowledged `messageId` and the line of the acknowledgement.
    unplaced: HashMap<String, (String, usize)>,
    /// v2: the sessions whose turn runs (a prompt acknowledged, no `idle` since), with the
    /// line of the acknowledgement.
    turns: HashMap<String, usize>,
    /// The `clientCapabilities` of the client's `initialize`, once seen: the session updates
    /// they do not advertise are problems after it.
    client_capabilities: Option<Value>,
    /// Problems found so far.
    pub problems: Vec<Problem>,
    /// Messages seen, by sender.
    pub counts: HashMap<Role, usize>,
}

impl Validator {
    /// A validator; `both_sides` when the transcript holds both directions. It checks the
    /// messages as version 1 until an answer to `initialize` names another version this
    /// build knows (v2 with the feature `unstable_protocol_v2`), and as that version after.
    pub fn new(both_sides: bool) -> Self {
        let conversation = Conversation::new(Schema::embedded().validator().clone());
        Self::with(both_sides, conversation.follow_version(), None)
    }

    /// A validator that checks every message as protocol `version`, whatever `initialize`
    /// says; `None` when this build does not know the version.
    pub fn for_version(both_sides: bool, version: u64) -> Option<Self> {
        let schema = Schema::for_version(version)?;
        let conversation = Conversation::new(schema.validator().clone());
        Some(Self::with(both_sides, conversation, Some(version)))
    }

    fn with(both_sides: bool, conversation: Conversation<Request>, version: Option<u64>) -> Self {
        Self {
            conversation,
            answered: HashMap::new(),
            answered_order: VecDeque::new(),
            turn_over: HashMap::new(),
            cancelled: HashMap::new(),
            both_sides,
            version,
            unplaced: HashMap::new(),
            turns: HashMap::new(),
            client_capabilities: None,
            problems: Vec::new(),
            counts: HashMap::new(),
        }
    }

    /// The protocol version the messages are checked as now: the one given, else the one
    /// `initialize` negotiated when this build knows it, else 1.
    pub fn version(&self) -> u64 {
        self.version
            .or_else(|| {
                self.conversation
                    .negotiated_version()
                    .filter(|v| Schema::for_version(*v).is_some())
            })
            .unwrap_or(PROTOCOL_VERSION)
    }

    fn problem(&mut self, line: usize, reason: String) -> Problem {
        let problem = Problem { line, reason };
        self.problems.push(problem.clone());
        problem
    }

    /// Checks one message `from` sent, at `line`; returns the problems it shows.
    pub fn feed(&mut self, line: usize, from: Role, message: &Value) -> Vec<Problem> {
        let before = self.problems.len();
        *self.counts.entry(from).or_default() += 1;
        if let Some(batch) = message.as_array() {
            for item in batch {
                self.feed(line, from, item);
            }
            return self.problems[before..].to_vec();
        }
        let kind = Kind::of(message);
        let method = message["method"].as_str().unwrap_or_default();
        let session = message["params"]["sessionId"].as_str().map(str::to_owned);
        match kind {
            Some(Kind::Request) if from == Role::Client && method == agent::INITIALIZE => {
                self.client_capabilities = Some(message["params"]["clientCapabilities"].clone());
            }
            Some(Kind::Request) if self.both_sides && method == agent::SESSION_PROMPT => {
                if let Some(s) = &session {
                    self.turn_over.remove(s);
                    self.cancelled.remove(s);
                }
            }
            Some(Kind::Notification) if method == agent::SESSION_CANCEL => {
                if let Some(s) = &session {
                    self.cancelled.insert(s.clone(), line);
                    for (role, _, open) in self.conversation.open_mut() {
                        if role == Role::Agent
                            && open.method == client::SESSION_REQUEST_PERMISSION
                            && open.data.session.as_ref() == Some(s)
                        {
                            open.data.cancelled = true;
                        }
                    }
                }
            }
            Some(Kind::Notification)
                if method == client::SESSION_UPDATE
                    && from == Role::Agent
                    && self.version() != PROTOCOL_VERSION =>
            {
                self.v2_update(line, session.as_deref(), message);
            }
            Some(Kind::Notification) if method == client::SESSION_UPDATE && from == Role::Agent => {
                let update_kind = message["params"]["update"]["sessionUpdate"]
                    .as_str()
                    .unwrap_or_default();
                // Only once the client's `initialize` is seen (a transcript may start later).
                if let Some(reason) = self
                    .client_capabilities
                    .as_ref()
                    .and_then(|caps| crate::gated::unadvertised_update(caps, message))
                {
                    self.problem(line, format!("from the agent: {reason}"));
                }
                // A `session/load` replays the history before its response: not a late update.
                let replaying = self.conversation.open().any(|(role, _, o)| {
                    role == Role::Client
                        && o.method == agent::SESSION_LOAD
                        && o.data.session == session
                });
                if let Some(ended) = session.as_ref().and_then(|s| self.turn_over.get(s)) {
                    if TURN_UPDATES.contains(&update_kind) && !replaying {
                        let ended = *ended;
                        self.problem(line, format!(
                            "a `{update_kind}` update for session {} after its turn's response (line {ended})",
                            session.as_deref().unwrap_or_default()
                        ));
                    }
                }
            }
            _ => {}
        }
        let (answered, violations) = if self.both_sides {
            let fed = self.conversation.feed(from, message, || Request {
                line,
                session: session.clone(),
                cancelled: false,
            });
            (fed.answered, fed.violations)
        } else {
            let schema = self.conversation.validator().check(from, message, None);
            (None, schema.err().into_iter().collect())
        };
        let id = message.get("id").map(Value::to_string).unwrap_or_default();
        // The id first, then the rules of the answer, then the schema.
        let (ids, schema): (Vec<_>, Vec<_>) =
            violations.into_iter().partition(|v| v.part == Part::Id);
        for violation in ids {
            let first = match kind {
                Some(Kind::Response) => self.answered.get(&(from.peer(), id.clone())).copied(),
                _ => None,
            };
            let reason = match first {
                Some(first) => format!("a second answer to request {id} (first on line {first})"),
                None => violation.reason,
            };
            self.problem(line, reason);
        }
        if let Some(open) = answered {
            self.remember_answered((from.peer(), id), line);
            self.check_answer(line, &open, message);
        }
        for mut violation in schema {
            if self.version() == PROTOCOL_VERSION {
                diagnose(&mut violation, message);
            } else {
                name_v1_only(&mut violation);
            }
            let reason = format!(
                "from the {}: {}: {}",
                from.as_str(),
                violation.reason,
                quote(message)
            );
            self.problem(line, reason);
        }
        self.problems[before..].to_vec()
    }

    fn remember_answered(&mut self, key: (Role, String), line: usize) {
        if self.answered.insert(key.clone(), line).is_none() {
            self.answered_order.push_back(key);
        }
        while self.answered_order.len() > ANSWERED_REMEMBERED {
            if let Some(oldest) = self.answered_order.pop_front() {
                self.answered.remove(&oldest);
            }
        }
    }

    /// The rules of v2 about an update of the agent's: no version 1 shapes; the `idle` that
    /// ends a turn comes after the `user_message` of the prompt it acknowledged, and with the
    /// stop reason `cancelled` after a `session/cancel`.
    fn v2_update(&mut self, line: usize, session: Option<&str>, message: &Value) {
        if let Some(reason) = crate::protocol::v1_update_on_v2(message) {
            self.problem(line, format!("from the agent: {reason}"));
        }
        let Some(session) = session else {
            return;
        };
        let update = &message["params"]["update"];
        match update["sessionUpdate"].as_str().unwrap_or_default() {
            "user_message" | "user_message_chunk"
                if self
                    .unplaced
                    .get(session)
                    .is_some_and(|(id, _)| update["messageId"] == id.as_str()) =>
            {
                self.unplaced.remove(session);
            }
            "state_update" if update["state"] == "idle" => {
                self.turns.remove(session);
                if let Some((id, acked)) = self.unplaced.remove(session) {
                    self.problem(line, format!(
                        "session {session} went idle without the `user_message` {id:?} of the prompt acknowledged on line {acked}"
                    ));
                }
                if let Some(cancel_line) = self.cancelled.remove(session) {
                    let stop = &update["stopReason"];
                    if stop != "cancelled" {
                        self.problem(line, format!(
                            "the turn of session {session} was cancelled (line {cancel_line}) but went idle with {stop}, not \"cancelled\""
                        ));
                    }
                }
            }
            _ => {}
        }
    }

    /// The rules about the answer to `open`: a cancelled turn ends `cancelled` (in version 1,
    /// where the answer ends the turn), a permission request pending at the cancel is
    /// answered `cancelled`.
    fn check_answer(&mut self, line: usize, open: &Open<Request>, response: &Value) {
        let session = &open.data.session;
        if self.version() != PROTOCOL_VERSION {
            // v2: the answer acknowledges the prompt; the turn ends with an `idle` update.
            if open.method == agent::SESSION_PROMPT
                && let (Some(s), Some(id)) = (session, response["result"]["messageId"].as_str())
            {
                self.unplaced.insert(s.clone(), (id.to_owned(), line));
                self.turns.entry(s.clone()).or_insert(line);
            }
            self.check_permission_answer(line, open, response);
            return;
        }
        // A refused prompt (an error) started no turn; a turn is over when no other prompt of
        // its session is still open.
        let turn_ended = open.method == agent::SESSION_PROMPT
            && response.get("result").is_some()
            && !self.conversation.open().any(|(role, _, other)| {
                role == Role::Client
                    && other.method == agent::SESSION_PROMPT
                    && &other.data.session == session
            });
        if turn_ended {
            if let Some(s) = session {
                self.turn_over.insert(s.clone(), line);
                if let Some(cancel_line) = self.cancelled.remove(s) {
                    let stop = &response["result"]["stopReason"];
                    if response.get("result").is_some() && stop != &json!("cancelled") {
                        self.problem(line, format!(
                            "the turn of session {s} was cancelled (line {cancel_line}) but ended {stop}, not \"cancelled\""
                        ));
                    }
                }
            }
        }
        self.check_permission_answer(line, open, response);
    }

    /// A permission request pending when its turn was cancelled is answered `cancelled`.
    fn check_permission_answer(&mut self, line: usize, open: &Open<Request>, response: &Value) {
        if open.method == client::SESSION_REQUEST_PERMISSION && open.data.cancelled {
            let outcome = &response["result"]["outcome"]["outcome"];
            if outcome != &json!("cancelled") {
                self.problem(line, format!(
                    "a permission request (line {}) pending when its turn was cancelled must be answered \"cancelled\", not {outcome}",
                    open.data.line
                ));
            }
        }
    }

    /// The end of the transcript: requests never answered, v2 turns that never went idle.
    pub fn finish(&mut self) {
        let mut turns: Vec<_> = self.turns.drain().collect();
        turns.sort_by_key(|(_, line)| *line);
        for (session, line) in turns {
            self.problem(
                line,
                format!("the turn of session {session} acknowledged here never went idle"),
            );
        }
        for (role, id, open) in self.conversation.take_open() {
            self.problem(
                open.data.line,
                format!(
                    "the {}'s `{}` request {id} was never answered",
                    role.as_str(),
                    open.method
                ),
            );
        }
    }
}

/// One line of a transcript, read.
#[derive(Debug)]
pub enum Line {
    /// A message and its sender (`None` for plain NDJSON).
    Message(Option<Role>, Value),
    /// Bytes the tap saw that were not a JSON message.
    Raw(Option<Role>, String),
    /// A blank line.
    Blank,
}

/// Parses a transcript line.
///
/// # Errors
///
/// When the line is not JSON.
pub fn parse_line(text: &str) -> Result<Line, String> {
    if text.trim().is_empty() {
        return Ok(Line::Blank);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let from = match value["from"].as_str() {
        Some("agent") => Some(Role::Agent),
        Some("client") => Some(Role::Client),
        _ => None,
    };
    if from.is_some() {
        if let Some(message) = value.get("message") {
            return Ok(Line::Message(from, message.clone()));
        }
        if let Some(raw) = value["raw"].as_str() {
            return Ok(Line::Raw(from, raw.to_owned()));
        }
    }
    Ok(Line::Message(None, value))
}

/// Guesses who sent a one-direction file: the client when any message calls a method the
/// agent serves, else the agent.
pub fn guess_sender(messages: &[Value]) -> Role {
    let calls_agent = messages.iter().any(|m| {
        m["method"]
            .as_str()
            .and_then(crate::schema::method_schema)
            .is_some_and(|s| crate::schema::receiver(s) == Some(Role::Agent))
    });
    if calls_agent {
        Role::Client
    } else {
        Role::Agent
    }
}

/// The current time as RFC 3339 UTC with microseconds.
pub fn timestamp() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:06}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        now.subsec_micros()
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(lines: &[(Role, Value)]) -> Vec<Problem> {
        let mut validator = Validator::new(true);
        for (i, (from, message)) in lines.iter().enumerate() {
            validator.feed(i + 1, *from, message);
        }
        validator.finish();
        validator.problems
    }

    fn prompt(id: u64) -> (Role, Value) {
        (
            Role::Client,
            json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": []}}),
        )
    }

    fn chunk() -> (Role, Value) {
        (
            Role::Agent,
            json!({"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "x"}}}}),
        )
    }

    fn answer(id: u64, body: Value) -> (Role, Value) {
        let mut message = json!({"jsonrpc": "2.0", "id": id});
        let key = if body.get("code").is_some() {
            "error"
        } else {
            "result"
        };
        message[key] = body;
        (Role::Agent, message)
    }

    #[test]
    fn a_refused_second_prompt_does_not_end_the_running_turn() {
        let lines = [
            prompt(1),
            prompt(2),
            answer(2, json!({"code": -32600, "message": "busy"})),
            chunk(),
            answer(1, json!({"stopReason": "end_turn"})),
        ];
        assert_eq!(problems(&lines), []);
    }

    #[test]
    fn a_load_replays_history_after_the_last_turn_without_a_problem() {
        let load = (
            Role::Client,
            json!({"jsonrpc": "2.0", "id": 2, "method": "session/load",
            "params": {"sessionId": "s", "cwd": "/", "mcpServers": []}}),
        );
        let lines = [
            prompt(1),
            answer(1, json!({"stopReason": "end_turn"})),
            load,
            chunk(),
            answer(2, json!({})),
            chunk(),
        ];
        let found = problems(&lines);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 6);
    }

    #[test]
    fn notices_and_compaction_updates_need_the_client_to_advertise_them() {
        let init = |session: Value| {
            (
                Role::Client,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": 1, "clientCapabilities": {"session": session}}}),
            )
        };
        let initialized = answer(0, json!({"protocolVersion": 1}));
        let update = |update: Value| {
            (
                Role::Agent,
                json!({"jsonrpc": "2.0", "method": "session/update",
                "params": {"sessionId": "s", "update": update}}),
            )
        };
        let notice = update(json!({"sessionUpdate": "notice", "severity": "info", "title": "Hi"}));
        let compaction = update(json!({"sessionUpdate": "compaction_update",
            "compactionId": "c1", "status": "in_progress"}));
        let turn = |session: Value| {
            [
                init(session),
                initialized.clone(),
                prompt(1),
                notice.clone(),
                compaction.clone(),
                answer(1, json!({"stopReason": "end_turn"})),
            ]
        };
        let advertised = json!({"compaction": {}, "notices": {}});
        assert_eq!(problems(&turn(advertised)), []);
        let found = problems(&turn(json!({"compaction": {}, "notices": null})));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 4);
        assert!(found[0].reason.contains("`session.notices`"), "{found:?}");
        let found = problems(&turn(json!({})));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[1].reason.contains("`session.compaction`"),
            "{found:?}"
        );
    }

    #[test]
    fn a_long_tap_remembers_a_bounded_number_of_requests() {
        let mut validator = Validator::new(true);
        let count = ANSWERED_REMEMBERED as u64 + 100;
        for id in 0..count {
            let (from, request) = prompt(id);
            validator.feed(2 * id as usize + 1, from, &request);
            let (from, response) = answer(id, json!({"stopReason": "end_turn"}));
            validator.feed(2 * id as usize + 2, from, &response);
        }
        // Requests never answered: the open ones stay bounded too.
        for id in count..count + 5_000 {
            let (from, request) = prompt(id);
            validator.feed(2 * id as usize + 1, from, &request);
        }
        assert_eq!(validator.answered.len(), ANSWERED_REMEMBERED);
        assert_eq!(validator.answered_order.len(), ANSWERED_REMEMBERED);
        assert_eq!(
            validator.conversation.open().count(),
            acp_validate::DEFAULT_OPEN_LIMIT
        );
        assert!(
            validator.problems.is_empty(),
            "{:?}",
            &validator.problems[..1]
        );
    }

    #[test]
    fn civil_dates_are_right_around_leap_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_782), (2026, 11, 25));
    }

    /// A v2 conversation up to an acknowledged prompt in session `s` (lines 1 to 6).
    #[cfg(feature = "unstable_protocol_v2")]
    fn v2_prompted() -> Vec<(Role, Value)> {
        vec![
            (
                Role::Client,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": 2, "info": {"name": "c", "version": "1"}}}),
            ),
            answer(
                0,
                json!({"protocolVersion": 2, "capabilities": {"session": {}},
                "info": {"name": "a", "version": "1"}}),
            ),
            (
                Role::Client,
                json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
                "params": {"cwd": "/work"}}),
            ),
            answer(1, json!({"sessionId": "s"})),
            (
                Role::Client,
                json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}}),
            ),
            answer(2, json!({"messageId": "m1"})),
        ]
    }

    #[cfg(feature = "unstable_protocol_v2")]
    fn v2_update(update: Value) -> (Role, Value) {
        (
            Role::Agent,
            json!({"jsonrpc": "2.0", "method": "session/update",
                   "params": {"sessionId": "s", "update": update}}),
        )
    }

    #[cfg(feature = "unstable_protocol_v2")]
    #[test]
    fn a_v2_transcript_is_checked_by_the_v2_lifecycle() {
        let user = v2_update(json!({"sessionUpdate": "user_message", "messageId": "m1",
            "content": [{"type": "text", "text": "hi"}]}));
        let running = v2_update(json!({"sessionUpdate": "state_update", "state": "running"}));
        let chunk = v2_update(
            json!({"sessionUpdate": "agent_message_chunk", "messageId": "m2",
            "content": {"type": "text", "text": "x"}}),
        );
        let idle = |stop: &str| {
            v2_update(json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop}))
        };
        let cancel = (
            Role::Client,
            json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}),
        );
        let with = |more: Vec<(Role, Value)>| {
            let mut lines = v2_prompted();
            lines.extend(more);
            problems(&lines)
        };
        // A whole turn, then background output while idle: nothing wrong.
        let whole = vec![
            user.clone(),
            running.clone(),
            chunk.clone(),
            idle("end_turn"),
            chunk.clone(),
        ];
        assert_eq!(with(whole), vec![]);
        // No user message before the idle.
        let found = with(vec![running.clone(), idle("end_turn")]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0]
                .reason
                .contains("without the `user_message` \"m1\""),
            "{found:?}"
        );
        // Cancelled, but idle `end_turn` (and the line of the cancel named).
        let found = with(vec![
            user.clone(),
            running.clone(),
            cancel,
            idle("end_turn"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].reason.contains("cancelled (line 9)"), "{found:?}");
        // A v1 `tool_call`, and a turn that never goes idle.
        let v1 = v2_update(json!({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x"}));
        let found = with(vec![user, running, v1]);
        let reasons: Vec<&str> = found.iter().map(|p| p.reason.as_str()).collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            reasons.iter().any(|r| r.contains("version 1 `tool_call`")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("never went idle")),
            "{reasons:?}"
        );
        // A v1 chunk (no `messageId`) is checked against the v2 schema.
        let found = with(vec![chunk_v1_on_v2()]);
        assert!(
            found[0].line == 7
                && found[0]
                    .reason
                    .contains("not a valid UpdateSessionNotification"),
            "{found:?}"
        );
    }

    /// A version 1 message chunk: no `messageId`.
    #[cfg(feature = "unstable_protocol_v2")]
    fn chunk_v1_on_v2() -> (Role, Value) {
        chunk()
    }
}
