//! The committed `schema/acp.v2.schema.json` and `schema/meta.v2.json` are exactly what the v2
//! types generate, and they agree with the official v2 files: the same definition names, the
//! same `x-method` / `x-side` / `x-docs-ignore` annotations, the same method table.
//!
//! After changing a v2 type, regenerate them with
//! `ACP_UPDATE_SCHEMA=1 cargo test -p acp-types --features unstable_protocol_v2 --test types -- v2::schema`.

use std::path::PathBuf;

use acp_testkit::workspace_root;
use acp_types::v2::schema::{ENVELOPES, VALUE_DEFINITIONS, bundle, meta};
use serde_json::Value;

use super::spec::V2Spec;

fn updating() -> bool {
    std::env::var("ACP_UPDATE_SCHEMA").is_ok_and(|v| v == "1" || v == "true")
}

/// Compares `generated` with the committed file, or rewrites the file when updating.
fn check_snapshot(file: &str, generated: &Value) {
    let path: PathBuf = workspace_root().join("schema").join(file);
    if updating() {
        let mut text = serde_json::to_string_pretty(generated).expect("a Value serializes");
        text.push('\n');
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let hint = "regenerate it with `ACP_UPDATE_SCHEMA=1 cargo test -p acp-types --features \
                unstable_protocol_v2 --test types -- v2::schema`";
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}; {hint}", path.display()));
    let committed: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}; {hint}", path.display()));
    assert!(
        &committed == generated,
        "{} is stale; {hint}",
        path.display()
    );
}

/// True when only the draft-free v2 surface is compiled in (the committed files describe it).
const STABLE_V2: bool = acp_types::schema::UNSTABLE_FEATURES.is_empty();

#[test]
fn committed_v2_schema_and_meta_are_what_the_types_generate() {
    if !STABLE_V2 {
        // With v1 draft features on, the bundle is not the one the committed files describe.
        return;
    }
    check_snapshot("acp.v2.schema.json", &bundle());
    check_snapshot("meta.v2.json", &meta());
}

#[test]
fn the_v2_bundle_has_every_definition_once_and_every_reference_resolves() {
    let bundle = bundle();
    let defs = bundle["$defs"].as_object().expect("$defs");
    assert_eq!(VALUE_DEFINITIONS.len() + ENVELOPES.len(), 197);
    for name in VALUE_DEFINITIONS.iter().chain(ENVELOPES) {
        assert!(
            defs.contains_key(*name),
            "{name} is missing from the bundle"
        );
    }
    assert_eq!(
        defs.len(),
        197,
        "definitions beyond the official ones: {:?}",
        {
            let mut extra: Vec<&String> = defs
                .keys()
                .filter(|k| {
                    !VALUE_DEFINITIONS.contains(&k.as_str()) && !ENVELOPES.contains(&k.as_str())
                })
                .collect();
            extra.sort();
            extra
        }
    );
    let text = bundle.to_string();
    for target in text.split("\"$ref\":\"").skip(1) {
        let target = &target[..target.find('"').expect("a closing quote")];
        let name = target
            .strip_prefix("#/$defs/")
            .expect("a reference into $defs");
        assert!(defs.contains_key(name), "dangling reference {target}");
    }
    // The bundle is a schema a validator compiles.
    jsonschema::validator_for(&bundle).expect("the v2 bundle compiles");
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11/v2, or ACP_SPEC_DIR); CI runs it"]
fn v2_definition_names_are_the_official_ones() {
    let official = V2Spec::official();
    let mut ours: Vec<&str> = VALUE_DEFINITIONS.iter().chain(ENVELOPES).copied().collect();
    ours.sort_unstable();
    let mut theirs: Vec<&str> = official.schema["$defs"]
        .as_object()
        .expect("$defs")
        .keys()
        .map(String::as_str)
        .collect();
    theirs.sort_unstable();
    assert_eq!(ours, theirs);
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11/v2, or ACP_SPEC_DIR); CI runs it"]
fn v2_method_annotations_and_names_are_the_official_ones() {
    let official = V2Spec::official();
    let bundle = bundle();
    let mut annotated = 0;
    for (name, def) in official.schema["$defs"].as_object().expect("$defs") {
        for key in ["x-method", "x-side", "x-docs-ignore"] {
            let ours = bundle["$defs"][name].get(key);
            assert_eq!(ours, def.get(key), "`{key}` of {name}");
            annotated += usize::from(ours.is_some());
        }
    }
    // Two on each of the 32 params and result definitions, one on each envelope.
    assert_eq!(annotated, 70);
    assert_eq!(
        meta(),
        official.meta,
        "our v2 method names differ from the official meta.json"
    );
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11/v2, or ACP_SPEC_DIR); CI runs it"]
fn v2_definitions_have_the_official_kind_and_members() {
    // Structure modulo descriptions, as far as the types decide it: the same JSON kind (object,
    // union, string, ...), the same member names and the same required members.
    let official = V2Spec::official();
    let bundle = bundle();
    let kind = |def: &Value| -> &'static str {
        if def.get("properties").is_some() || def.get("type") == Some(&"object".into()) {
            "object"
        } else if def.get("anyOf").is_some() || def.get("oneOf").is_some() {
            "union"
        } else {
            "scalar"
        }
    };
    let keys = |def: &Value, member: &str| -> Vec<String> {
        let mut out: Vec<String> = match def.get(member) {
            Some(Value::Object(map)) => map.keys().cloned().collect(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        out.sort();
        out
    };
    let reexported = acp_types::v2::REEXPORTED;
    for (name, theirs) in official.schema["$defs"].as_object().expect("$defs") {
        let ours = &bundle["$defs"][name];
        if reexported.contains(&name.as_str()) || ENVELOPES.contains(&name.as_str()) {
            continue; // v1's types (checked by v1's tests) and the envelopes (by hand).
        }
        assert_eq!(kind(ours), kind(theirs), "the kind of {name}");
        if kind(theirs) == "object" {
            // Objects with a flattened union list the union's members too.
            let their_members = keys(theirs, "properties");
            let our_members = keys(ours, "properties");
            for member in &their_members {
                assert!(
                    our_members.contains(member),
                    "{name} lacks the member {member}"
                );
            }
            // Flattened unions also require their tag (which every one of their kinds requires).
            let ours_required = keys(ours, "required");
            for member in keys(theirs, "required") {
                assert!(
                    ours_required.contains(&member),
                    "{name} does not require {member}"
                );
            }
        }
    }
}
