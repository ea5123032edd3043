//! The S4 traffic generator: a deterministic NDJSON recording of ACP v1 coding-agent sessions.
//!
//! The traffic follows the S4 paragraph of the benchmark protocol.
//! After an `initialize` and a `session/new` handshake, it repeats prompt turns until the target
//! size is reached.
//! Each turn is a `session/prompt` (text, sometimes a `resource_link` and an embedded `resource`),
//! 3-15 `agent_thought_chunk`s, a `plan`, 1-4 tool calls, 10-40 closing `agent_message_chunk`s and
//! the prompt response.
//! Each tool call is a few message chunks, a `tool_call` with locations and `rawInput`, a
//! `session/request_permission` round trip for edits and commands, a `tool_call_update` to
//! `in_progress`, an `fs/read_text_file` round trip returning 1-8 KB of code, a completing
//! `tool_call_update` carrying text or a diff, and sometimes an `fs/write_text_file` round trip.
//!
//! Both directions are interleaved in one stream, in the order a recording of the connection would
//! show them: every response follows its request.
//! Client requests have integer ids, agent requests string ids.
//! Texts carry newlines, quotes, backslashes, tabs and non-ASCII characters, so that encoders and
//! decoders meet escapes.
//! Every message is built with `serde_json` and is valid against the official schema (a test in
//! `bench/tests` checks every line).
//!
//! ```
//! let bytes = acp_bench::s4::generate(7, 50_000);
//! assert!(bytes.len() >= 50_000);
//! assert_eq!(bytes, acp_bench::s4::generate(7, 50_000));
//! ```

use serde_json::{Value, json};

/// Which side of the connection sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sender {
    /// The editor.
    Client,
    /// The agent.
    Agent,
}

/// What kind of JSON-RPC message a line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A request, which has an `id` and a `method`.
    Request,
    /// A notification, which has a `method` and no `id`.
    Notification,
    /// A response, which has an `id` and a `result`.
    Response,
}

/// What one line of generated traffic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LineInfo {
    /// Who sent it.
    pub sender: Sender,
    /// Request, notification or response.
    pub kind: Kind,
    /// The method of the message, or for a response the method of the request it answers.
    pub method: &'static str,
}

/// Generated traffic, with a description of each line.
#[derive(Debug, Clone)]
pub struct Traffic {
    /// The NDJSON bytes: one compact JSON message per line, each ending in `\n`.
    pub bytes: Vec<u8>,
    /// One entry per line of `bytes`, in order.
    pub lines: Vec<LineInfo>,
}

/// Generates at least `target_bytes` of S4 traffic (the last turn is completed), deterministically
/// from `seed`.
#[must_use]
pub fn generate(seed: u64, target_bytes: usize) -> Vec<u8> {
    traffic(seed, target_bytes).bytes
}

/// Like [`generate`], and also describes every line.
#[must_use]
pub fn traffic(seed: u64, target_bytes: usize) -> Traffic {
    let mut generator = Generator::new(seed, target_bytes);
    generator.handshake();
    while generator.out.len() < target_bytes {
        generator.turn();
    }
    Traffic {
        bytes: generator.out,
        lines: generator.lines,
    }
}

/// SplitMix64: tiny, fast, and good enough to vary synthetic traffic.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        // The modulo bias is irrelevant for synthetic traffic.
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() - 1)]
    }
}

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "parser", "returns", "an", "error", "when", "input", "is", "empty", "so", "we", "should",
    "handle", "that", "case", "before", "calling", "it", "test", "suite", "passes", "now", "config",
    "file", "loads", "from", "disk", "and", "cache", "invalidates", "on", "change", "function",
    "module", "import", "type", "check", "fails", "because", "lifetime", "borrow", "ends", "too",
    "early", "naïve", "approach", "café", "Straße", "über", "résumé", "日本語", "ошибка", "→", "…",
    "✓", "🚀", "déjà", "vu", "\"quoted\"", "`code`", "C:\\Users\\dev", "a\\b", "x\ty", "50%", "<T>",
    "&mut", "self", "'static", "{braces}", "[brackets]",
];

const MODULES: &[&str] = &[
    "main", "lib", "parser", "lexer", "config", "cache", "server", "client", "error", "util",
    "session", "render", "storage", "auth", "http",
];

const COMMANDS: &[&str] = &[
    "cargo test --workspace",
    "cargo build --release",
    "rg -n \"TODO\" src/",
    "git diff --stat",
    "ls -la src\\\\bin",
    "python3 -c 'print(\"héllo\")'",
];

/// The payload member of a message.
enum Member<'a> {
    Params(&'a Value),
    Result(&'a Value),
}

/// Generator state: the output so far and the counters for ids.
struct Generator {
    rng: Rng,
    out: Vec<u8>,
    lines: Vec<LineInfo>,
    session_id: String,
    next_client_id: i64,
    next_agent_id: u64,
    next_tool_call: u64,
}

impl Generator {
    fn new(seed: u64, target_bytes: usize) -> Self {
        let mut rng = Rng(seed);
        let session_id = format!("sess_{:016x}", rng.next_u64());
        Self {
            rng,
            // One turn past the target at most, usually far less than 10% more.
            out: Vec::with_capacity(target_bytes + target_bytes / 10 + 65_536),
            lines: Vec::new(),
            session_id,
            next_client_id: 0,
            next_agent_id: 0,
            next_tool_call: 0,
        }
    }

    // -- Writing messages. ---------------------------------------------------------------------

    /// Writes one message, its members in the conventional order: `jsonrpc`, `id`, `method`, then
    /// `params` or `result`.
    fn emit(
        &mut self,
        id: Option<&Value>,
        method: Option<&str>,
        member: Member<'_>,
        info: LineInfo,
    ) {
        self.out.extend_from_slice(b"{\"jsonrpc\":\"2.0\"");
        if let Some(id) = id {
            self.out.extend_from_slice(b",\"id\":");
            serde_json::to_writer(&mut self.out, id).expect("a Value always serializes");
        }
        if let Some(method) = method {
            self.out.extend_from_slice(b",\"method\":");
            serde_json::to_writer(&mut self.out, method).expect("a str always serializes");
        }
        let (key, body): (&[u8], _) = match member {
            Member::Params(params) => (b",\"params\":", params),
            Member::Result(result) => (b",\"result\":", result),
        };
        self.out.extend_from_slice(key);
        serde_json::to_writer(&mut self.out, body).expect("a Value always serializes");
        self.out.extend_from_slice(b"}\n");
        self.lines.push(info);
    }

    /// Writes a request from `sender` and returns its id: integers for the client, strings for
    /// the agent.
    fn request(&mut self, sender: Sender, method: &'static str, params: Value) -> Value {
        let id = match sender {
            Sender::Client => {
                self.next_client_id += 1;
                json!(self.next_client_id - 1)
            }
            Sender::Agent => {
                self.next_agent_id += 1;
                json!(format!("agent-{}", self.next_agent_id - 1))
            }
        };
        self.emit(
            Some(&id),
            Some(method),
            Member::Params(&params),
            LineInfo {
                sender,
                kind: Kind::Request,
                method,
            },
        );
        id
    }

    /// Writes the response to a request that `sender`'s peer made.
    fn respond(&mut self, sender: Sender, id: Value, method: &'static str, result: Value) {
        self.emit(
            Some(&id),
            None,
            Member::Result(&result),
            LineInfo {
                sender,
                kind: Kind::Response,
                method,
            },
        );
    }

    /// A request answered at once by the other side.
    fn round_trip(&mut self, sender: Sender, method: &'static str, params: Value, result: Value) {
        let id = self.request(sender, method, params);
        let responder = match sender {
            Sender::Client => Sender::Agent,
            Sender::Agent => Sender::Client,
        };
        self.respond(responder, id, method, result);
    }

    /// A `session/update` notification from the agent.
    fn update(&mut self, update: Value) {
        let params = json!({"sessionId": self.session_id, "update": update});
        self.emit(
            None,
            Some("session/update"),
            Member::Params(&params),
            LineInfo {
                sender: Sender::Agent,
                kind: Kind::Notification,
                method: "session/update",
            },
        );
    }

    fn chunk(&mut self, kind: &str, text: String) {
        self.update(json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}}));
    }

    // -- Content. ------------------------------------------------------------------------------

    /// Prose of `lo..=hi` words, with the odd line break and tab.
    fn prose(&mut self, lo: usize, hi: usize) -> String {
        let mut text = String::new();
        for i in 0..self.rng.range(lo, hi) {
            if i > 0 {
                text.push(match self.rng.range(0, 30) {
                    0 => '\n',
                    1 => '\t',
                    _ => ' ',
                });
            }
            let word = *self.rng.pick(WORDS);
            text.push_str(word);
        }
        if self.rng.chance(20) {
            text.push_str(".\n\n");
        }
        text
    }

    fn path(&mut self) -> String {
        format!("/home/dev/project/src/{}.rs", self.rng.pick(MODULES))
    }

    /// Rust-like source of about `len` bytes, with tabs, quotes, backslashes and non-ASCII.
    fn code(&mut self, len: usize) -> String {
        let mut code = String::with_capacity(len + 128);
        while code.len() < len {
            let name = *self.rng.pick(MODULES);
            let n = self.rng.range(0, 999);
            let line = match self.rng.range(0, 7) {
                0 => format!("fn handle_{name}_{n}(input: &str) -> Result<(), Error> {{\n"),
                1 => format!("\tlet path = \"C:\\\\data\\\\{name}_{n}.json\";\n"),
                2 => format!("\tprintln!(\"{name}: \\\"{{}}\\\" → {{}}\", input, {n});\n"),
                3 => format!("\t// Naïve check for {name}; see «docs/{name}.md» ✓\n"),
                4 => format!("\tif input.len() > {n} {{ return Err(Error::TooLong({n})); }}\n"),
                5 => format!("\tlet re = Regex::new(r\"^\\s*{name}\\t\\d+$\")?;\n"),
                6 => "}\n\n".to_owned(),
                _ => format!(
                    "#[derive(Debug)]\nstruct {}{n} {{ value: u32 }}\n",
                    name.to_uppercase()
                ),
            };
            code.push_str(&line);
        }
        code
    }

    // -- The session. --------------------------------------------------------------------------

    fn handshake(&mut self) {
        self.round_trip(
            Sender::Client,
            "initialize",
            json!({
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false},
                "clientInfo": {"name": "s4-editor", "title": "S4 Editor", "version": "1.0.0"},
            }),
            json!({
                "protocolVersion": 1,
                "agentCapabilities": {
                    "loadSession": false,
                    "promptCapabilities": {"image": false, "audio": false, "embeddedContext": true},
                },
                "authMethods": [],
                "agentInfo": {"name": "s4-agent", "version": "1.0.0"},
            }),
        );
        let session_id = self.session_id.clone();
        self.round_trip(
            Sender::Client,
            "session/new",
            json!({"cwd": "/home/dev/project", "mcpServers": []}),
            json!({"sessionId": session_id}),
        );
    }

    fn turn(&mut self) {
        let mut prompt = vec![json!({"type": "text", "text": self.prose(10, 80)})];
        if self.rng.chance(40) {
            let path = self.path();
            let name = path.rsplit('/').next().unwrap_or("file.rs").to_owned();
            prompt.push(json!({
                "type": "resource_link",
                "uri": format!("file://{path}"),
                "name": name,
                "mimeType": "text/x-rust",
            }));
        }
        if self.rng.chance(25) {
            let path = self.path();
            let len = self.rng.range(200, 2000);
            prompt.push(json!({
                "type": "resource",
                "resource": {"uri": format!("file://{path}"), "mimeType": "text/x-rust", "text": self.code(len)},
            }));
        }
        let session_id = self.session_id.clone();
        let prompt_id = self.request(
            Sender::Client,
            "session/prompt",
            json!({"sessionId": session_id, "prompt": prompt}),
        );

        for _ in 0..self.rng.range(3, 15) {
            let text = self.prose(5, 40);
            self.chunk("agent_thought_chunk", text);
        }
        self.plan();
        for _ in 0..self.rng.range(1, 4) {
            self.tool_call();
        }
        for _ in 0..self.rng.range(10, 40) {
            let text = self.prose(3, 30);
            self.chunk("agent_message_chunk", text);
        }
        self.respond(
            Sender::Agent,
            prompt_id,
            "session/prompt",
            json!({"stopReason": "end_turn"}),
        );
    }

    fn plan(&mut self) {
        let entries: Vec<Value> = (0..self.rng.range(2, 6))
            .map(|_| {
                json!({
                    "content": self.prose(4, 16),
                    "priority": *self.rng.pick(&["high", "medium", "low"]),
                    "status": *self.rng.pick(&["pending", "in_progress", "completed"]),
                })
            })
            .collect();
        self.update(json!({"sessionUpdate": "plan", "entries": entries}));
    }

    fn tool_call(&mut self) {
        for _ in 0..self.rng.range(1, 4) {
            let text = self.prose(5, 30);
            self.chunk("agent_message_chunk", text);
        }
        self.next_tool_call += 1;
        let id = format!("call_{}", self.next_tool_call);
        let kind = *self
            .rng
            .pick(&["read", "edit", "execute", "search", "edit"]);
        let path = self.path();
        let line = self.rng.range(1, 400);
        let (title, raw_input) = match kind {
            "execute" => {
                let command = *self.rng.pick(COMMANDS);
                (
                    format!("Run `{command}`"),
                    json!({"command": command, "cwd": "/home/dev/project"}),
                )
            }
            "search" => (
                format!("Search for \"{}\"", self.rng.pick(WORDS)),
                json!({"pattern": "fn\\s+handle_\\w+", "path": "src/"}),
            ),
            _ => (
                format!("{kind} {path}"),
                json!({"path": path, "line": line}),
            ),
        };
        self.update(json!({
            "sessionUpdate": "tool_call",
            "toolCallId": id,
            "title": title,
            "kind": kind,
            "status": "pending",
            "locations": [{"path": path, "line": line}],
            "rawInput": raw_input,
        }));

        let session_id = self.session_id.clone();
        if matches!(kind, "edit" | "execute") {
            let allowed = !self.rng.chance(10);
            let option = if allowed { "allow-once" } else { "reject-once" };
            self.round_trip(
                Sender::Agent,
                "session/request_permission",
                json!({
                    "sessionId": session_id,
                    "toolCall": {"toolCallId": id, "title": title, "kind": kind, "status": "pending"},
                    "options": [
                        {"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
                        {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
                    ],
                }),
                json!({"outcome": {"outcome": "selected", "optionId": option}}),
            );
            if !allowed {
                self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "failed"}));
                return;
            }
        }
        self.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress"}),
        );

        let len = self.rng.range(1024, 8192);
        let old_text = self.code(len);
        self.round_trip(
            Sender::Agent,
            "fs/read_text_file",
            json!({"sessionId": session_id, "path": path, "line": 1, "limit": 2000}),
            json!({"content": old_text}),
        );

        let content = if kind == "edit" {
            let len = self.rng.range(200, 1500);
            let half = (0..=old_text.len() / 2)
                .rev()
                .find(|&i| old_text.is_char_boundary(i))
                .unwrap_or(0);
            let new_text = format!("{}{}", self.code(len), &old_text[..half]);
            json!([{"type": "diff", "path": path, "oldText": old_text, "newText": new_text}])
        } else {
            json!([{"type": "content", "content": {"type": "text", "text": self.prose(10, 60)}}])
        };
        let elapsed_ms = self.rng.range(1, 5000);
        self.update(json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": id,
            "status": "completed",
            "content": content,
            "rawOutput": {"exitCode": 0, "elapsedMs": elapsed_ms},
        }));

        if kind == "edit" && self.rng.chance(50) {
            let len = self.rng.range(500, 3000);
            let new_text = self.code(len);
            self.round_trip(
                Sender::Agent,
                "fs/write_text_file",
                json!({"sessionId": session_id, "path": path, "content": new_text}),
                json!({}),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_bytes_and_another_seed_does_not() {
        let a = traffic(1, 100_000);
        assert_eq!(a.bytes, generate(1, 100_000));
        assert_ne!(a.bytes, generate(2, 100_000));
        assert_eq!(
            a.lines.len(),
            a.bytes.iter().filter(|&&b| b == b'\n').count()
        );
    }

    #[test]
    fn the_size_is_close_to_the_target() {
        let bytes = generate(3, 1_000_000);
        assert!(bytes.len() >= 1_000_000);
        assert!(bytes.len() < 1_200_000, "{} bytes", bytes.len());
    }
}
