//! Every fixture of `tests/fixtures/*.json` against the official schema, our generated schema
//! and the decoders.
//!
//! A fixture is `{"def", "name", "doc", "schema": "valid"|"invalid", "expect", ...}`:
//! - `schema` is the official schema's verdict on `doc` as the definition `def`, checked here,
//!   so a fixture cannot claim a verdict the specification does not give;
//! - `expect` is what decoding must do: `"roundtrip"` (re-encoding gives `doc` back),
//!   `"error"` (decoding fails, at `error_path` when given) or `{"normalized": <json>}`
//!   (decoding applies the schema's leniency and gives exactly that);
//! - `request_method` is the method of the request a response answers;
//! - `note` explains every fixture where our verdict differs from the schema's (a valid
//!   document we reject or normalize, an invalid one we keep for forward compatibility).
//!
//! With the umbrella feature `unstable`, the fixtures of the draft features
//! (`tests/fixtures/unstable/<feature>.json`) join the stable ones, and all are checked against
//! the official draft schema (`schema.unstable.json`) and our generated draft schema.

#![allow(clippy::print_stdout)] // The counts are part of the test's report.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use acp_testkit::Spec;
use common::{ENVELOPE_DEFS, Outcome, VALUE_DEFS, decode_def};
use serde_json::{Value, json};

#[derive(Debug)]
struct Fixture {
    file: String,
    def: String,
    name: String,
    doc: Value,
    valid: bool,
    expect: Expect,
    error_path: Option<String>,
    request_method: Option<String>,
    note: Option<String>,
}

#[derive(Debug)]
enum Expect {
    RoundTrip,
    Error,
    Normalized(Value),
}

impl Fixture {
    fn id(&self) -> String {
        format!("{}: {} \"{}\"", self.file, self.def, self.name)
    }
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The stable fixtures, and with the feature `unstable` the draft ones too.
fn load_fixtures() -> Vec<Fixture> {
    let mut fixtures = load_fixtures_from(&fixtures_dir());
    if cfg!(feature = "unstable") {
        fixtures.extend(load_fixtures_from(&fixtures_dir().join("unstable")));
    }
    fixtures
}

/// The specification the fixtures' labels come from: the draft one with the feature
/// `unstable`.
fn spec() -> &'static Spec {
    if cfg!(feature = "unstable") {
        Spec::load_unstable()
    } else {
        Spec::load()
    }
}

/// Reads every fixture file of `dir`, failing on any malformed entry.
fn load_fixtures_from(dir: &Path) -> Vec<Fixture> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixture files in tests/fixtures");
    let mut fixtures = Vec::new();
    for path in files {
        let file = path
            .strip_prefix(fixtures_dir())
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let entries: Vec<Value> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: not a JSON array: {e}"));
        for entry in entries {
            let field = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
            let known = [
                "def",
                "name",
                "doc",
                "schema",
                "expect",
                "error_path",
                "request_method",
                "note",
            ];
            for key in entry.as_object().expect("a fixture is an object").keys() {
                assert!(known.contains(&key.as_str()), "{file}: unknown key {key}");
            }
            let def = field("def").unwrap_or_else(|| panic!("{file}: fixture without def"));
            let name = field("name").unwrap_or_else(|| panic!("{file}: fixture without name"));
            let valid = match field("schema").as_deref() {
                Some("valid") => true,
                Some("invalid") => false,
                other => panic!("{file}: {def} \"{name}\": bad schema label {other:?}"),
            };
            let expect = match entry.get("expect") {
                Some(Value::String(s)) if s == "roundtrip" => Expect::RoundTrip,
                Some(Value::String(s)) if s == "error" => Expect::Error,
                Some(Value::Object(o)) if o.len() == 1 && o.contains_key("normalized") => {
                    Expect::Normalized(o["normalized"].clone())
                }
                other => panic!("{file}: {def} \"{name}\": bad expect {other:?}"),
            };
            fixtures.push(Fixture {
                file: file.clone(),
                def,
                name,
                doc: entry.get("doc").cloned().expect("a fixture has a doc"),
                valid,
                expect,
                error_path: field("error_path"),
                request_method: field("request_method"),
                note: field("note"),
            });
        }
    }
    fixtures
}

#[test]
fn fixture_names_are_unique_and_well_formed() {
    let fixtures = load_fixtures();
    let mut seen = HashMap::new();
    for f in &fixtures {
        assert!(
            seen.insert((f.def.clone(), f.name.clone()), f.file.clone())
                .is_none(),
            "duplicate fixture {}",
            f.id()
        );
        let divergent = match f.expect {
            Expect::RoundTrip => !f.valid,
            Expect::Error | Expect::Normalized(_) => f.valid,
        };
        assert!(
            !divergent || f.note.is_some(),
            "{}: our verdict differs from the schema's, so the fixture needs a note",
            f.id()
        );
        if f.error_path.is_some() {
            assert!(
                matches!(f.expect, Expect::Error),
                "{}: error_path without error",
                f.id()
            );
        }
        let is_response = f.def.ends_with("Response") && ENVELOPE_DEFS.contains(&f.def.as_str());
        assert_eq!(
            f.request_method.is_some(),
            is_response,
            "{}: request_method is for envelope responses only, and they need it",
            f.id()
        );
    }
}

#[test]
fn every_fixture_matches_the_official_schema_and_decodes_as_expected() {
    let spec = spec();
    let fixtures = load_fixtures();
    let mut failures = Vec::new();
    let mut per_def: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let (mut roundtrip, mut errors, mut normalized, mut divergent) = (0, 0, 0, 0);
    for f in &fixtures {
        let entry = per_def.entry(f.def.as_str()).or_default();
        if f.valid {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
        // The label is the official schema's verdict.
        let official = spec.check_def(&f.def, &f.doc);
        if official.is_ok() != f.valid {
            failures.push(format!(
                "{}: labelled {} but the official schema says {}",
                f.id(),
                if f.valid { "valid" } else { "invalid" },
                official.err().unwrap_or_else(|| "valid".into())
            ));
            continue;
        }
        if f.note.is_some() {
            divergent += 1;
        }
        let outcome = match decode_def(&f.def, &f.doc, f.request_method.as_deref()) {
            Ok(outcome) => outcome,
            Err(e) => {
                failures.push(format!("{}: {e}", f.id()));
                continue;
            }
        };
        match (&f.expect, outcome) {
            (Expect::RoundTrip, Outcome::Decoded(json)) => {
                roundtrip += 1;
                if json != f.doc {
                    failures.push(format!(
                        "{}: re-encoded differently\n   doc: {}\n  got: {json}",
                        f.id(),
                        f.doc
                    ));
                }
            }
            (Expect::Normalized(want), Outcome::Decoded(json)) => {
                normalized += 1;
                if &json != want {
                    failures.push(format!(
                        "{}: normalized differently\n  want: {want}\n   got: {json}",
                        f.id()
                    ));
                }
                // What leniency produces is itself a document the schema accepts and that
                // round-trips.
                if let Err(e) = spec.check_def(&f.def, want) {
                    failures.push(format!(
                        "{}: the normalized document is invalid: {e}",
                        f.id()
                    ));
                }
                match decode_def(&f.def, want, f.request_method.as_deref()) {
                    Ok(Outcome::Decoded(again)) if &again == want => {}
                    other => failures.push(format!(
                        "{}: the normalized document does not round-trip: {other:?}",
                        f.id()
                    )),
                }
            }
            (Expect::Error, Outcome::Rejected { path, message }) => {
                errors += 1;
                if let Some(want) = &f.error_path {
                    if &path != want {
                        failures.push(format!(
                            "{}: rejected at `{path}`, expected `{want}` ({message})",
                            f.id()
                        ));
                    }
                }
            }
            (_, Outcome::Decoded(json)) => {
                failures.push(format!("{}: expected a rejection, decoded {json}", f.id()));
            }
            (_, Outcome::Rejected { path, message }) => {
                failures.push(format!(
                    "{}: rejected at `{path}`: {message}\n   doc: {}",
                    f.id(),
                    f.doc
                ));
            }
        }
    }

    // Every definition has at least one valid fixture.
    let official_defs = spec.def_names();
    for def in &official_defs {
        if per_def.get(def).is_none_or(|(valid, _)| *valid == 0) {
            failures.push(format!("{def}: no valid fixture"));
        }
    }
    for def in per_def.keys() {
        if !official_defs.contains(def) {
            failures.push(format!("{def}: not a definition of the official schema"));
        }
    }
    let valid = fixtures.iter().filter(|f| f.valid).count();
    println!(
        "fixtures: {} total, {valid} valid, {} invalid; {roundtrip} round-trip, {normalized} \
         normalized, {errors} rejected; {divergent} with a documented divergence; {} of {} \
         definitions covered",
        fixtures.len(),
        fixtures.len() - valid,
        per_def.len(),
        official_defs.len()
    );
    for (def, (valid, invalid)) in &per_def {
        println!("  {def}: {valid} valid, {invalid} invalid");
    }
    let mut per_file: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for f in &fixtures {
        let entry = per_file.entry(f.file.as_str()).or_default();
        if f.valid {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }
    for (file, (valid, invalid)) in &per_file {
        println!("  file {file}: {valid} valid, {invalid} invalid");
    }
    assert!(
        failures.is_empty(),
        "{} fixture failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The tag values of a union's branches (`{"properties": {"type": {"const": "text"}}}`) and the
/// values of a string enum (`{"const": "read"}`), from a definition of the official schema.
fn branch_values(def: &Value) -> Vec<(Option<String>, Value)> {
    let mut out = Vec::new();
    for combinator in ["oneOf", "anyOf"] {
        for branch in def[combinator].as_array().into_iter().flatten() {
            if let Some(value) = branch.get("const") {
                out.push((None, value.clone()));
            }
            for (key, property) in branch["properties"].as_object().into_iter().flatten() {
                if let Some(value) = property.get("const") {
                    out.push((Some(key.clone()), value.clone()));
                }
            }
        }
    }
    out
}

#[test]
fn valid_fixtures_cover_every_property_null_enum_value_and_branch() {
    let spec = spec();
    let fixtures = load_fixtures();
    let fixtures = &fixtures;
    let valid_docs = |def: &str| -> Vec<&Value> {
        fixtures
            .iter()
            .filter(|f| f.def == def && f.valid)
            .map(|f| &f.doc)
            .collect()
    };
    let mut missing = Vec::new();
    let mut checked = 0;
    for (name, def) in spec.schema()["$defs"].as_object().expect("$defs") {
        if ENVELOPE_DEFS.contains(&name.as_str()) {
            continue;
        }
        for (property, schema) in def["properties"].as_object().into_iter().flatten() {
            checked += 1;
            if !valid_docs(name)
                .iter()
                .any(|doc| doc.get(property).is_some())
            {
                missing.push(format!("{name}.{property}: never present"));
            }
            let nullable = schema["type"]
                .as_array()
                .is_some_and(|t| t.contains(&json!("null")))
                || schema["anyOf"]
                    .as_array()
                    .is_some_and(|b| b.iter().any(|b| b["type"] == "null"));
            if nullable
                && !valid_docs(name)
                    .iter()
                    .any(|doc| doc.get(property) == Some(&Value::Null))
            {
                missing.push(format!("{name}.{property}: never an explicit null"));
            }
        }
        for (tag, value) in branch_values(def) {
            checked += 1;
            let covered = valid_docs(name).iter().any(|doc| match &tag {
                None => **doc == value,
                Some(tag) => doc.get(tag) == Some(&value),
            });
            if !covered {
                missing.push(format!("{name}: no fixture with {tag:?} = {value}"));
            }
        }
    }
    assert!(
        checked > 400,
        "only {checked} properties and branches found"
    );
    assert!(missing.is_empty(), "not covered:\n{}", missing.join("\n"));
}

#[test]
fn the_generated_schema_gives_every_fixture_the_official_verdict() {
    // Our schema describes what is compiled in: it matches an official one only without draft
    // features or with all of them.
    if !(acp_types::schema::UNSTABLE_FEATURES.is_empty() || cfg!(feature = "unstable")) {
        return;
    }
    let spec = spec();
    let bundle = acp_types::schema::bundle();
    let ours: Vec<&str> = bundle["$defs"]
        .as_object()
        .expect("the bundle has $defs")
        .keys()
        .map(String::as_str)
        .collect();
    let mut theirs = spec.def_names();
    let mut ours_sorted = ours.clone();
    theirs.sort_unstable();
    ours_sorted.sort_unstable();
    assert_eq!(ours_sorted, theirs, "our $defs are not the official ones");
    let mut listed: Vec<&str> = acp_types::schema::DEFINITIONS.to_vec();
    #[cfg(feature = "unstable")]
    listed.extend(common::UNSTABLE_VALUE_DEFS);
    // The draft envelopes (proxy chains) are not in `schema::DEFINITIONS`.
    listed.extend(
        ENVELOPE_DEFS
            .iter()
            .filter(|d| !acp_types::schema::DEFINITIONS.contains(d)),
    );
    listed.sort_unstable();
    assert_eq!(
        listed, theirs,
        "schema::DEFINITIONS is not the official list"
    );
    let mut dispatched: Vec<&str> = VALUE_DEFS.iter().chain(ENVELOPE_DEFS).copied().collect();
    #[cfg(feature = "unstable")]
    dispatched.extend(common::UNSTABLE_VALUE_DEFS);
    dispatched.sort_unstable();
    assert_eq!(
        dispatched, theirs,
        "the test dispatch list is not the official list"
    );

    let mut validators: HashMap<String, jsonschema::Validator> = HashMap::new();
    let mut failures = Vec::new();
    let fixtures = load_fixtures();
    for f in &fixtures {
        let validator = validators.entry(f.def.clone()).or_insert_with(|| {
            let mut schema = bundle.clone();
            let root = schema.as_object_mut().expect("the bundle is an object");
            root.remove("anyOf");
            root.remove("title");
            root.insert("$ref".into(), json!(format!("#/$defs/{}", f.def)));
            jsonschema::validator_for(&schema)
                .unwrap_or_else(|e| panic!("our schema does not compile for {}: {e}", f.def))
        });
        let ours_valid = validator.is_valid(&f.doc);
        if ours_valid != f.valid {
            let why: Vec<String> = validator
                .iter_errors(&f.doc)
                .map(|e| format!("at {}: {e}", e.instance_path()))
                .collect();
            failures.push(format!(
                "{}: official says {}, ours says {} {}",
                f.id(),
                if f.valid { "valid" } else { "invalid" },
                if ours_valid { "valid" } else { "invalid" },
                why.join("; ")
            ));
        }
        if let Expect::Normalized(want) = &f.expect {
            if !validator.is_valid(want) {
                failures.push(format!("{}: ours rejects the normalized document", f.id()));
            }
        }
    }
    println!(
        "generated schema: {} fixtures checked against {} definitions",
        fixtures.len(),
        validators.len()
    );
    assert!(
        failures.is_empty(),
        "{} verdicts differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
