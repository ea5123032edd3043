//! With a draft feature off, what it adds to the wire decodes as it did before the feature
//! existed: new fields are unknown fields, new union variants are `Unknown` variants, both
//! written back unchanged, and new methods are unknown methods. Nothing is lost.
//!
//! Every valid fixture of a draft feature that is off (`tests/fixtures/unstable/<feature>.json`)
//! is decoded as the stable definition it concerns; fixtures of definitions the feature adds
//! have no Rust type then and are skipped.

#![allow(clippy::print_stdout)] // The counts are part of the test's report.

use crate::common;

use std::path::PathBuf;

use common::{ENVELOPE_DEFS, Outcome, VALUE_DEFS, decode_def};
use serde_json::Value;

/// The draft features compiled in.
const ON: &[&str] = acp_types::schema::UNSTABLE_FEATURES;

#[test]
fn what_a_disabled_feature_adds_decodes_as_unknown_and_round_trips() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/unstable");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 16, "one fixture file per draft feature");
    let mut failures = Vec::new();
    let (mut kept, mut unknown_methods, mut features_off) = (0, 0, 0);
    for path in files {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let feature = format!("unstable_{stem}");
        if ON.contains(&feature.as_str()) {
            continue;
        }
        features_off += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let fixtures: Vec<Value> = serde_json::from_str(&text).unwrap();
        for f in fixtures {
            let def = f["def"].as_str().unwrap();
            let name = f["name"].as_str().unwrap();
            if f["schema"] != "valid" {
                continue;
            }
            let is_envelope = ENVELOPE_DEFS.contains(&def);
            if !is_envelope && !VALUE_DEFS.contains(&def) {
                continue; // A definition of the feature itself.
            }
            let doc = &f["doc"];
            let method = f["request_method"].as_str();
            let id = format!("{feature}: {def} \"{name}\"");
            let new_method = is_envelope
                && doc["method"]
                    .as_str()
                    .or(method)
                    .is_some_and(|m| !is_known_method(m));
            match decode_def(def, doc, method) {
                Ok(Outcome::Decoded(json)) if !new_method && json == *doc => kept += 1,
                Ok(Outcome::Rejected { message, .. }) if new_method => {
                    unknown_methods += 1;
                    if doc.get("method").is_some() && !message.contains("unknown method") {
                        failures.push(format!("{id}: rejected, but not as unknown: {message}"));
                    }
                }
                other => failures.push(format!("{id}: {other:?}\n   doc: {doc}")),
            }
        }
    }
    println!(
        "{features_off} draft features off: {kept} documents kept whole, {unknown_methods} \
         messages of their methods refused as unknown"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if features_off > 0 {
        assert!(kept > 0, "no document of a disabled feature was checked");
    }
}

/// True for a method this build knows (the stable ones and those of the features on).
fn is_known_method(method: &str) -> bool {
    use acp_types::methods::{agent, client, protocol};
    [agent::ALL, client::ALL, protocol::ALL]
        .iter()
        .any(|list| list.contains(&method))
}
