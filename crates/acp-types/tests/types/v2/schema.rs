//! The committed `schema/acp.v2.schema.json` and `schema/meta.v2.json` are exactly what the v2
//! types generate, and they agree with the official v2 files: the same definition names, the
//! same `x-method` / `x-side` / `x-docs-ignore` annotations, the same method table.
//!
//! With every draft feature on (`unstable`), the same holds of
//! `schema/acp.v2.unstable.schema.json` and `schema/meta.v2.unstable.json`.
//!
//! After changing a v2 type, regenerate them with
//! `ACP_UPDATE_SCHEMA=1 cargo test -p acp-types --features unstable_protocol_v2 --test types -- v2::schema`
//! and the same with `--features unstable,unstable_protocol_v2`.

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
                unstable_protocol_v2 --test types -- v2::schema` (with `unstable` for the drafts' files)";
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

/// True when every draft feature is on (the committed drafts' files describe that surface).
const ALL_DRAFTS: bool = cfg!(feature = "unstable");

/// The number of definitions of the official v2 files: stable, and with the drafts.
const OFFICIAL_COUNT: usize = if ALL_DRAFTS { 262 } else { 197 };

/// Every definition name of the bundle compiled in: values, drafts and envelopes.
fn our_definitions() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut names: Vec<&str> = VALUE_DEFINITIONS.iter().chain(ENVELOPES).copied().collect();
    #[cfg(feature = "unstable")]
    names.extend(
        acp_types::v2::schema::DRAFT_DEFINITIONS
            .iter()
            .chain(acp_types::v2::schema::PROXY_ENVELOPES),
    );
    names
}

#[test]
fn committed_v2_schema_and_meta_are_what_the_types_generate() {
    if STABLE_V2 {
        check_snapshot("acp.v2.schema.json", &bundle());
        check_snapshot("meta.v2.json", &meta());
    } else if ALL_DRAFTS {
        check_snapshot("acp.v2.unstable.schema.json", &bundle());
        check_snapshot("meta.v2.unstable.json", &meta());
    }
    // With only some draft features on, no committed file describes the bundle.
}

#[test]
fn the_v2_bundle_has_every_definition_once_and_every_reference_resolves() {
    let bundle = bundle();
    let defs = bundle["$defs"].as_object().expect("$defs");
    let ours = our_definitions();
    if STABLE_V2 || ALL_DRAFTS {
        assert_eq!(ours.len(), OFFICIAL_COUNT);
    }
    for name in &ours {
        assert!(
            defs.contains_key(*name),
            "{name} is missing from the bundle"
        );
    }
    let mut extra: Vec<&String> = defs
        .keys()
        .filter(|k| !ours.contains(&k.as_str()))
        .collect();
    extra.sort();
    // With some draft features on, definitions of those features join the bundle beyond the
    // lists (which name all or none of the drafts).
    if STABLE_V2 || ALL_DRAFTS {
        assert!(
            extra.is_empty(),
            "definitions beyond the official ones: {extra:?}"
        );
    }
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
    if !(STABLE_V2 || ALL_DRAFTS) {
        return; // Some draft features only: no official file lists that surface.
    }
    let official = V2Spec::official();
    let mut ours = our_definitions();
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
    // Two on each of the 32 params and result definitions, one on each envelope (stable); with
    // the drafts, two on each of their 27 and one on each of the three proxy envelopes.
    assert_eq!(annotated, if ALL_DRAFTS { 127 } else { 70 });
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
