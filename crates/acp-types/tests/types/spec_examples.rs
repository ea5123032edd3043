//! Every JSON-RPC message shown in the specification's protocol chapters decodes with the
//! right decoder and re-encodes exactly, or, when the official schema rejects it, is rejected
//! too (unless an entry of [`ACCEPTED_INVALID`] explains why we accept it).
//!
//! The examples are read from `protocol/*.md` of the specification at test time.
//!
//! The official verdict is the root schema's, and, for a known method, that of the method's
//! own params (or result) definition: the root schema alone lets any params through its
//! `ExtRequest`/`ExtNotification`/`ExtResponse` branches (`{}`), while we decode by method.
//! Absent or `null` params and results count as `{}`, as our decoders read them.

#![allow(clippy::print_stdout)] // The counts are part of the test's report.

use std::collections::{BTreeMap, HashMap};

use acp_testkit::Spec;
use acp_types::methods::{agent, client, protocol};
use acp_types::{AgentMessage, ClientMessage, DecodeError, RawMessage, RequestId};
use serde_json::Value;

/// Schema-invalid examples that we decode anyway, each with the reason. Keyed by file and the
/// example's position among the file's ```json blocks (1-based).
const ACCEPTED_INVALID: &[(&str, usize, &str)] = &[(
    "session-modes.md",
    4,
    "its tool call content is a bare `{\"type\": \"text\"}` block; `text` is not a \
     ToolCallContent type we know, so it is kept as ToolCallContent::Unknown (forward \
     compatibility) and written back unchanged",
)];

/// Responses the chapters show without their request, with the method of that request (read
/// from the chapter's text). Keyed like [`ACCEPTED_INVALID`]. Other responses without a request
/// earlier in their chapter are skipped and counted.
const ORPHAN_RESPONSES: &[(&str, usize, &str)] = &[
    ("authentication.md", 1, "initialize"),
    ("extensibility.md", 6, "initialize"),
    // Shows `clientCapabilities` in an initialize result: an unknown field of the response.
    ("file-system.md", 1, "initialize"),
    ("session-config-options.md", 1, "session/new"),
    ("session-delete.md", 1, "initialize"),
    ("session-list.md", 1, "initialize"),
    ("session-modes.md", 1, "session/new"),
    ("session-setup.md", 3, "initialize"),
    ("session-setup.md", 8, "initialize"),
    ("session-setup.md", 11, "initialize"),
    ("session-setup.md", 18, "initialize"),
    // Shows `clientCapabilities` in an initialize result, like file-system.md.
    ("terminals.md", 1, "initialize"),
];

/// Which side sends a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sender {
    Client,
    Agent,
}

/// The side that sends requests or notifications of `method`, if the method is known.
fn sender_of(method: &str) -> Option<Sender> {
    if agent::ALL.contains(&method) {
        Some(Sender::Client)
    } else if client::ALL.contains(&method) {
        Some(Sender::Agent)
    } else {
        None
    }
}

/// Extracts the ```json blocks of a Markdown text.
fn json_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    if info.split_whitespace().next() == Some("json") {
                        current = Some(String::new());
                    }
                }
            }
            Some(text) => {
                if trimmed.starts_with("```") {
                    blocks.push(current.take().expect("inside a block"));
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    blocks
}

/// The official definition of the params (or, with `result`, the result) of `method`.
fn method_def<'a>(spec: &'a Spec, method: &str, result: bool) -> Option<&'a str> {
    spec.schema()["$defs"]
        .as_object()?
        .iter()
        .find(|(name, def)| def["x-method"] == method && name.ends_with("Response") == result)
        .map(|(name, _)| name.as_str())
}

/// The official verdict on a message: the root schema's, then the method definition's.
fn official_verdict(spec: &Spec, doc: &Value, method: &str, response: bool) -> Result<(), String> {
    spec.check_message(doc)?;
    let member = if response { "result" } else { "params" };
    if response && doc.get("error").is_some() {
        return Ok(());
    }
    match method_def(spec, method, response) {
        Some(def) => {
            let empty = Value::Object(serde_json::Map::new());
            let payload = match doc.get(member) {
                None | Some(Value::Null) => &empty,
                Some(payload) => payload,
            };
            spec.check_def(def, payload)
                .map_err(|e| format!("{member} is not a valid {def}: {e}"))
        }
        None => Ok(()),
    }
}

fn decode_as(sender: Sender, text: &str, method: Option<&str>) -> Result<Value, DecodeError> {
    let bytes = text.as_bytes();
    let method_of = |_: &RequestId| method;
    let encoded = match sender {
        Sender::Client => serde_json::to_value(ClientMessage::decode(bytes, method_of)?),
        Sender::Agent => serde_json::to_value(AgentMessage::decode(bytes, method_of)?),
    };
    Ok(encoded.expect("a decoded message encodes"))
}

#[derive(Debug, Default)]
struct Counts {
    blocks: usize,
    not_json: usize,
    not_messages: usize,
    messages: usize,
    requests: usize,
    responses: usize,
    notifications: usize,
    valid: usize,
    valid_by_root_schema_only: usize,
    invalid: usize,
    decoded: usize,
    rejected: usize,
    accepted_invalid: usize,
    responses_without_request: usize,
    unknown_methods: usize,
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11, or ACP_SPEC_DIR); CI runs it"]
fn specification_examples_decode_and_round_trip() {
    let spec = Spec::official();
    let dir = spec.dir().join("protocol");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no chapters in {}", dir.display());

    let mut counts = Counts::default();
    let mut failures = Vec::new();
    let mut used_allowances = BTreeMap::new();
    let mut used_orphans = Vec::new();
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let markdown = std::fs::read_to_string(path).unwrap();
        // The requests seen so far in this chapter: id -> (method, sender).
        let mut requests: HashMap<RequestId, (String, Sender)> = HashMap::new();
        for (index, text) in json_blocks(&markdown).iter().enumerate() {
            let index = index + 1;
            let at = format!("{file} example {index}");
            counts.blocks += 1;
            let Ok(doc) = serde_json::from_str::<Value>(text) else {
                counts.not_json += 1;
                continue;
            };
            if doc.get("jsonrpc").is_none() {
                counts.not_messages += 1;
                continue;
            }
            counts.messages += 1;
            let raw = match RawMessage::parse(text.as_bytes()) {
                Ok(raw) => raw,
                Err(e) => {
                    failures.push(format!("{at}: not a JSON-RPC message: {e}"));
                    continue;
                }
            };
            // Who sends it, and the method (for a response, the method of its request).
            let (sender, method) = if raw.is_response() {
                counts.responses += 1;
                let id = raw.id.clone().expect("a response has an id");
                let orphan = ORPHAN_RESPONSES
                    .iter()
                    .find(|(f, i, _)| *f == file && *i == index)
                    .map(|(_, _, method)| {
                        used_orphans.push((file.clone(), index));
                        (
                            (*method).to_owned(),
                            sender_of(method).expect("a known method"),
                        )
                    });
                match requests.get(&id).or(orphan.as_ref()) {
                    Some((method, requester)) => {
                        let sender = match requester {
                            Sender::Client => Sender::Agent,
                            Sender::Agent => Sender::Client,
                        };
                        (sender, method.clone())
                    }
                    None => {
                        counts.responses_without_request += 1;
                        continue;
                    }
                }
            } else {
                let method = raw
                    .method
                    .as_deref()
                    .expect("requests have a method")
                    .to_owned();
                if raw.is_request() {
                    counts.requests += 1;
                } else {
                    counts.notifications += 1;
                }
                let sender = match sender_of(&method) {
                    Some(sender) => sender,
                    // Protocol-level and extension methods may come from either side: the
                    // chapter shows them from the client unless it says otherwise.
                    None if protocol::ALL.contains(&method.as_str()) || method.starts_with('_') => {
                        Sender::Client
                    }
                    None => {
                        counts.unknown_methods += 1;
                        failures.push(format!("{at}: unknown method `{method}`"));
                        continue;
                    }
                };
                if let Some(id) = raw.id.clone() {
                    requests.insert(id, (method.clone(), sender));
                }
                (sender, method)
            };
            let official = official_verdict(spec, &doc, &method, raw.is_response());
            if official.is_ok() {
                counts.valid += 1;
            } else {
                counts.invalid += 1;
                if spec.check_message(&doc).is_ok() {
                    counts.valid_by_root_schema_only += 1;
                }
            }
            let ours = decode_as(sender, text, raw.is_response().then_some(method.as_str()));
            if ours.is_ok() {
                counts.decoded += 1;
            } else {
                counts.rejected += 1;
            }
            let allowance = ACCEPTED_INVALID
                .iter()
                .find(|(f, i, _)| *f == file && *i == index);
            match (official, ours, allowance) {
                (Ok(()), Ok(json), _) => {
                    if json != doc {
                        failures.push(format!(
                            "{at}: re-encoded differently\n   doc: {doc}\n  got: {json}"
                        ));
                    }
                }
                (Ok(()), Err(e), _) => {
                    failures.push(format!("{at}: valid, but we reject it: {e}"));
                }
                (Err(_), Err(_), None) => {}
                (Err(why), Err(e), Some(_)) => failures.push(format!(
                    "{at}: allow-listed, but we reject it ({e}); the schema says: {why}"
                )),
                (Err(_), Ok(json), Some((_, _, reason))) => {
                    counts.accepted_invalid += 1;
                    used_allowances.insert((file.clone(), index), *reason);
                    if json != doc {
                        failures.push(format!("{at}: accepted but re-encoded differently"));
                    }
                }
                (Err(why), Ok(_), None) => failures.push(format!(
                    "{at}: the official schema rejects it ({why}) but we decode it; add an \
                     ACCEPTED_INVALID entry saying why, or reject it"
                )),
            }
        }
    }
    for (file, index, _) in ORPHAN_RESPONSES {
        if !used_orphans.contains(&((*file).to_owned(), *index)) {
            failures.push(format!(
                "{file} example {index}: stale ORPHAN_RESPONSES entry"
            ));
        }
    }
    for (file, index, _) in ACCEPTED_INVALID {
        if !used_allowances.contains_key(&((*file).to_owned(), *index)) {
            failures.push(format!(
                "{file} example {index}: stale ACCEPTED_INVALID entry"
            ));
        }
    }
    println!("specification examples: {counts:#?}");
    for ((file, index), reason) in &used_allowances {
        println!("  accepted although invalid: {file} example {index}: {reason}");
    }
    assert!(
        counts.messages > 0,
        "no JSON-RPC message found in the chapters"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn json_blocks_are_extracted_with_their_info_strings() {
    let markdown = "text\n```json expandable\n{\"a\": 1}\n```\n```rust\nfn f() {}\n```\n  ```json\n[1]\n  ```\n";
    assert_eq!(json_blocks(markdown), vec!["{\"a\": 1}\n", "[1]\n"]);
}
