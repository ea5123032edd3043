//! The committed `schema/acp.schema.json` and `schema/meta.json` are exactly what the types
//! generate, and our method names are the official ones; with the umbrella feature `unstable`,
//! the same for `schema/acp.unstable.schema.json` and `schema/meta.unstable.json` against the
//! official draft files.
//!
//! After changing a wire type, regenerate the files with
//! `ACP_UPDATE_SCHEMA=1 cargo test -p acp-types --test types -- schema_snapshot::` and again with
//! `--features unstable`. With only some draft features on, the bundle matches neither file:
//! the snapshot test then has nothing to compare, and the reference tests still run.

use std::path::PathBuf;

use acp_testkit::{Spec, workspace_root};
use serde_json::Value;

const UPDATE_ENV: &str = "ACP_UPDATE_SCHEMA";

fn updating() -> bool {
    std::env::var(UPDATE_ENV).is_ok_and(|v| v == "1" || v == "true")
}

/// Compares `generated` with the committed file (as JSON values), or rewrites the file when
/// updating.
fn check_snapshot(file: &str, generated: &Value) {
    let path: PathBuf = workspace_root().join("schema").join(file);
    if updating() {
        let mut text = serde_json::to_string_pretty(generated).expect("a Value serializes");
        text.push('\n');
        std::fs::create_dir_all(path.parent().expect("the file is in schema/"))
            .expect("creating schema/");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let hint = format!(
        "regenerate it with `{UPDATE_ENV}=1 cargo test -p acp-types --test types -- schema_snapshot::`"
    );
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}; {hint}", path.display()));
    let committed: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}; {hint}", path.display()));
    if &committed != generated {
        panic!(
            "{} is stale: {}; {hint}",
            path.display(),
            first_difference("", &committed, generated)
        );
    }
}

/// Describes where two JSON values first differ, to point at the stale part.
fn first_difference(at: &str, committed: &Value, generated: &Value) -> String {
    match (committed, generated) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in b {
                match a.get(key) {
                    None => return format!("`{at}/{key}` is missing from the committed file"),
                    Some(old) if old != value => {
                        return first_difference(&format!("{at}/{key}"), old, value);
                    }
                    Some(_) => {}
                }
            }
            match a.keys().find(|key| !b.contains_key(*key)) {
                Some(key) => format!("`{at}/{key}` is no longer generated"),
                None => format!("`{at}` differs"),
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find(|(_, (x, y))| x != y)
            .map_or_else(
                || format!("`{at}` differs"),
                |(i, (x, y))| first_difference(&format!("{at}/{i}"), x, y),
            ),
        _ => format!("`{at}` is {committed} in the committed file but {generated} now"),
    }
}

/// True when no draft feature is compiled in: the bundle is the stable one.
const STABLE: bool = acp_types::schema::UNSTABLE_FEATURES.is_empty();

/// The committed schema and meta files of this build, with the official files they mirror and
/// the number of definitions; `None` for a build with only some draft features (no official
/// file describes it). Fails when the official specification is missing.
fn files() -> Option<(&'static str, &'static str, &'static Spec, usize)> {
    if STABLE {
        Some(("acp.schema.json", "meta.json", Spec::official(), 178))
    } else if cfg!(feature = "unstable") {
        let spec = Spec::official_unstable();
        Some(("acp.unstable.schema.json", "meta.unstable.json", spec, 252))
    } else {
        None
    }
}

#[test]
fn committed_schema_and_meta_are_what_the_types_generate() {
    let (schema, meta) = if STABLE {
        ("acp.schema.json", "meta.json")
    } else if cfg!(feature = "unstable") {
        ("acp.unstable.schema.json", "meta.unstable.json")
    } else {
        // Only some draft features: no committed file describes this build.
        return;
    };
    check_snapshot(schema, &acp_types::schema::bundle());
    check_snapshot(meta, &acp_types::schema::meta());
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11, or ACP_SPEC_DIR); CI runs it"]
fn method_names_are_the_official_ones() {
    let Some((_, meta, spec, _)) = files() else {
        return;
    };
    assert_eq!(
        &acp_types::schema::meta(),
        spec.meta(),
        "our method names differ from the official {meta}"
    );
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11, or ACP_SPEC_DIR); CI runs it"]
fn generated_schema_has_every_official_definition() {
    let Some((_, _, spec, count)) = files() else {
        return;
    };
    let bundle = acp_types::schema::bundle();
    let ours: Vec<&str> = bundle["$defs"]
        .as_object()
        .expect("the bundle has $defs")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(ours.len(), count);
    let mut ours_sorted = ours.clone();
    ours_sorted.sort_unstable();
    let mut official = spec.def_names();
    official.sort_unstable();
    assert_eq!(ours_sorted, official);
    assert_eq!(acp_types::schema::DEFINITIONS.len(), 178);
}

#[test]
#[ignore = "needs the official ACP specification (../shared/spec/2026-11, or ACP_SPEC_DIR); CI runs it"]
fn method_annotations_are_the_official_ones() {
    let Some((_, _, spec, _)) = files() else {
        return;
    };
    let bundle = acp_types::schema::bundle();
    let mut annotated = 0;
    for (name, official) in spec.schema()["$defs"].as_object().expect("$defs") {
        for key in ["x-method", "x-side", "x-docs-ignore"] {
            let ours = bundle["$defs"][name].get(key);
            assert_eq!(ours, official.get(key), "`{key}` of {name}");
            annotated += usize::from(ours.is_some());
        }
    }
    // Two keys on each of the 46 params and result definitions of the stable methods, one on
    // each of the six envelope unions (more with the draft methods).
    assert!(annotated >= 98, "only {annotated} annotations");
}

/// Collects every `$ref` of a schema.
fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => out.push(target),
                    _ => refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, out)),
        _ => {}
    }
}

#[test]
fn every_reference_of_the_generated_schema_resolves() {
    let bundle = acp_types::schema::bundle();
    let mut found = Vec::new();
    refs(&bundle, &mut found);
    assert!(found.len() > 178, "too few references: {}", found.len());
    // With some draft features, every reference still resolves: nothing is left dangling.
    for target in found {
        let name = target
            .strip_prefix("#/$defs/")
            .unwrap_or_else(|| panic!("a reference outside $defs: {target}"));
        assert!(
            bundle["$defs"].get(name).is_some(),
            "dangling reference {target}"
        );
    }
    for (name, def) in bundle["$defs"].as_object().unwrap() {
        assert_eq!(def["title"], *name, "the title of {name} is not its name");
    }
}

#[test]
fn first_difference_points_at_the_stale_part() {
    let old = serde_json::json!({"a": {"b": [1, 2]}, "c": 1});
    let new = serde_json::json!({"a": {"b": [1, 3]}, "c": 1});
    assert_eq!(
        first_difference("", &old, &new),
        "`/a/b/1` is 2 in the committed file but 3 now"
    );
    let new = serde_json::json!({"a": {"b": [1, 2]}});
    assert_eq!(
        first_difference("", &old, &new),
        "`/c` is no longer generated"
    );
}
