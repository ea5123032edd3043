//! The example messages of the specification's August 2026 protocol chapters, kept as fixtures
//! (`tests/fixtures/examples/chapters.json`) now that the November 2026 v1 specification has no chapters
//! of its own: each decodes with the right decoder and re-encodes exactly, or, when the
//! November schema rejects it, is rejected too (unless an entry of [`ACCEPTED_INVALID`] explains
//! why we accept it).
//!
//! An example is `{"chapter", "example", "sender", "method", "def", "doc"}`: the chapter and
//! the position of the example among its ```json blocks (1-based), the side that sends it, the
//! method (for a response, the method of its request), and the official definition of its
//! params or result (absent for a method with none, e.g. an extension method). The label is
//! checked against the schema's `x-method` annotations, so it cannot name the wrong definition.
//!
//! The verdict is the root schema's, and, for a known method, that of the labelled definition:
//! the root schema alone lets any params through its `ExtRequest`/`ExtNotification`/
//! `ExtResponse` branches (`{}`), while we decode by method. Absent or `null` params and results
//! count as `{}`, as our decoders read them.

#![allow(clippy::print_stdout)] // The counts are part of the test's report.

use std::collections::BTreeSet;

use acp_testkit::Spec;
use acp_types::{AgentMessage, ClientMessage, DecodeError, RequestId};
use serde_json::Value;

/// Schema-invalid examples that we decode anyway, each with the reason. Keyed by chapter and
/// example number.
const ACCEPTED_INVALID: &[(&str, u64, &str)] = &[(
    "session-modes.md",
    4,
    "its tool call content is a bare `{\"type\": \"text\"}` block; `text` is not a \
     ToolCallContent type we know, so it is kept as ToolCallContent::Unknown (forward \
     compatibility) and written back unchanged",
)];

/// One example message.
#[derive(Debug)]
struct Example {
    chapter: String,
    number: u64,
    from_client: bool,
    method: String,
    def: Option<String>,
    doc: Value,
}

impl Example {
    fn id(&self) -> String {
        format!("{} example {}", self.chapter, self.number)
    }

    fn is_response(&self) -> bool {
        self.doc.get("method").is_none()
    }
}

/// Reads `tests/fixtures/examples/chapters.json`, failing on any malformed entry.
fn load_examples() -> Vec<Example> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/examples/chapters.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let entries: Vec<Value> = serde_json::from_str(&text).expect("examples.json is a JSON array");
    entries
        .into_iter()
        .map(|entry| {
            let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
            let known = ["chapter", "example", "sender", "method", "def", "doc"];
            for key in entry.as_object().expect("an example is an object").keys() {
                assert!(
                    known.contains(&key.as_str()),
                    "unknown key {key} in {entry}"
                );
            }
            let from_client = match text("sender").as_deref() {
                Some("client") => true,
                Some("agent") => false,
                other => panic!("bad sender {other:?} in {entry}"),
            };
            Example {
                chapter: text("chapter").expect("a chapter"),
                number: entry["example"].as_u64().expect("an example number"),
                from_client,
                method: text("method").expect("a method"),
                def: text("def"),
                doc: entry.get("doc").cloned().expect("a doc"),
            }
        })
        .collect()
}

/// The schema's definition of the params (or, with `result`, the result) of `method`.
fn method_def<'a>(spec: &'a Spec, method: &str, result: bool) -> Option<&'a str> {
    spec.schema()["$defs"]
        .as_object()?
        .iter()
        .find(|(name, def)| def["x-method"] == method && name.ends_with("Response") == result)
        .map(|(name, _)| name.as_str())
}

/// The schema's verdict on an example: the root schema's, then its definition's.
fn verdict(spec: &Spec, example: &Example) -> Result<(), String> {
    let doc = &example.doc;
    spec.check_message(doc)?;
    let response = example.is_response();
    if response && doc.get("error").is_some() {
        return Ok(());
    }
    let Some(def) = &example.def else {
        return Ok(());
    };
    let member = if response { "result" } else { "params" };
    let empty = Value::Object(serde_json::Map::new());
    let payload = match doc.get(member) {
        None | Some(Value::Null) => &empty,
        Some(payload) => payload,
    };
    spec.check_def(def, payload)
        .map_err(|e| format!("{member} is not a valid {def}: {e}"))
}

/// Decodes the example as its sender's message and encodes it again.
fn decode(example: &Example) -> Result<Value, DecodeError> {
    let bytes = serde_json::to_vec(&example.doc).expect("a Value encodes");
    let method = example.is_response().then_some(example.method.as_str());
    let method_of = |_: &RequestId| method;
    let encoded = if example.from_client {
        serde_json::to_value(ClientMessage::decode(&bytes, method_of)?)
    } else {
        serde_json::to_value(AgentMessage::decode(&bytes, method_of)?)
    };
    Ok(encoded.expect("a decoded message encodes"))
}

#[test]
fn specification_examples_decode_and_round_trip() {
    let spec = Spec::load();
    let examples = load_examples();
    assert!(examples.len() >= 70, "only {} examples", examples.len());
    let (mut valid, mut rejected, mut accepted_invalid) = (0, 0, 0);
    let mut used_allowances = BTreeSet::new();
    let mut failures = Vec::new();
    for example in &examples {
        let at = example.id();
        // The label is the schema's own definition of the method.
        let labelled = method_def(spec, &example.method, example.is_response());
        if labelled != example.def.as_deref() {
            failures.push(format!(
                "{at}: labelled {:?}, but the schema's definition of `{}` is {labelled:?}",
                example.def, example.method
            ));
            continue;
        }
        let allowance = ACCEPTED_INVALID
            .iter()
            .find(|(chapter, number, _)| *chapter == example.chapter && *number == example.number);
        match (verdict(spec, example), decode(example), allowance) {
            (Ok(()), Ok(json), _) => {
                valid += 1;
                if json != example.doc {
                    failures.push(format!(
                        "{at}: re-encoded differently\n   doc: {}\n  got: {json}",
                        example.doc
                    ));
                }
            }
            (Ok(()), Err(e), _) => failures.push(format!("{at}: valid, but we reject it: {e}")),
            (Err(_), Err(_), None) => rejected += 1,
            (Err(why), Err(e), Some(_)) => failures.push(format!(
                "{at}: allow-listed, but we reject it ({e}); the schema says: {why}"
            )),
            (Err(_), Ok(json), Some((chapter, number, reason))) => {
                accepted_invalid += 1;
                used_allowances.insert((*chapter, *number));
                println!("  accepted although invalid: {at}: {reason}");
                if json != example.doc {
                    failures.push(format!("{at}: accepted but re-encoded differently"));
                }
            }
            (Err(why), Ok(_), None) => failures.push(format!(
                "{at}: the schema rejects it ({why}) but we decode it; add an ACCEPTED_INVALID \
                 entry saying why, or reject it"
            )),
        }
    }
    for (chapter, number, _) in ACCEPTED_INVALID {
        if !used_allowances.contains(&(*chapter, *number)) {
            failures.push(format!(
                "{chapter} example {number}: stale ACCEPTED_INVALID entry"
            ));
        }
    }
    println!(
        "specification examples: {} messages, {valid} valid and round-tripped, {rejected} \
         rejected as the schema does, {accepted_invalid} accepted although invalid",
        examples.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11, or ACP_SPEC_DIR); CI runs it"]
fn specification_examples_are_judged_by_the_official_november_schema() {
    // The same verdicts with the official v1 schema itself (the test above may run against the
    // repository's generated fallback).
    let spec = Spec::official();
    for example in load_examples() {
        let ours = verdict(Spec::load(), &example).is_ok();
        assert_eq!(
            verdict(spec, &example).is_ok(),
            ours,
            "{}: the official and the loaded schema disagree",
            example.id()
        );
    }
}
