//! Every fixture of `fixtures.json` (written by `generator.py` from the official v2 schema):
//! the schema's verdict on each document is the one recorded, and our v2 types agree with it:
//! a valid document decodes and encodes back to the same JSON through every decoding API, an
//! invalid one is refused. With every draft feature on, the same of `fixtures.unstable.json`
//! (`generator.py --drafts`: the definitions the drafts add or change, labelled by the
//! official `schema.unstable.json`).

#![allow(clippy::print_stdout)] // The counts are part of the test's report.

use serde_json::Value;

use super::spec::V2Spec;
use crate::common::{Outcome, decode_value};

/// Decodes `doc` as the v2 definition `def` through every decoding API.
pub(crate) fn decode_v2(def: &str, doc: &Value) -> Result<Outcome, String> {
    macro_rules! dispatch {
        ($($name:ident),* $(,)?) => {
            match def {
                $( stringify!($name) => decode_value::<acp_types::v2::$name>(doc), )*
                "AgentRequest" => decode_value::<acp_types::v2::AgentRequest>(doc),
                "AgentResponse" => decode_value::<acp_types::v2::AgentResponse>(doc),
                "AgentNotification" => decode_value::<acp_types::v2::AgentNotification>(doc),
                "ClientRequest" => decode_value::<acp_types::v2::ClientRequest>(doc),
                "ClientResponse" => decode_value::<acp_types::v2::ClientResponse>(doc),
                "ClientNotification" => decode_value::<acp_types::v2::ClientNotification>(doc),
                other => Err(format!("no v2 type for the definition {other}")),
            }
        };
    }
    acp_types::for_each_v2_value_definition!(dispatch)
}

/// Decodes `doc` as the v2 definition `def`, a draft one or a stable one.
#[cfg(feature = "unstable")]
fn decode_v2_draft(def: &str, doc: &Value) -> Result<Outcome, String> {
    macro_rules! dispatch {
        ($($name:ident),* $(,)?) => {
            match def {
                $( stringify!($name) => decode_value::<acp_types::v2::$name>(doc), )*
                _ => decode_v2(def, doc),
            }
        };
    }
    acp_types::for_each_v2_draft_definition!(dispatch)
}

struct Fixture {
    def: String,
    name: String,
    doc: Value,
    valid: bool,
}

fn load() -> Vec<Fixture> {
    parse(include_str!("fixtures.json"))
}

fn parse(text: &str) -> Vec<Fixture> {
    let all: Vec<Value> = serde_json::from_str(text).expect("fixtures.json is JSON");
    all.into_iter()
        .map(|f| Fixture {
            def: f["def"].as_str().expect("def").to_owned(),
            name: f["name"].as_str().expect("name").to_owned(),
            valid: f["schema"] == "valid",
            doc: f["doc"].clone(),
        })
        .collect()
}

/// Fixtures where we knowingly differ from the schema's verdict, with the reason.
const KNOWN_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "ElicitationSchemaType",
        "extension value",
        "v1's type, re-exported: like every enum of this crate it keeps an unknown value (the \
         schema's enum has the one value `object`)",
    ),
    (
        "ElicitationSchemaType",
        "future value",
        "v1's type, re-exported: like every enum of this crate it keeps an unknown value",
    ),
];

#[test]
fn every_fixture_has_the_schemas_verdict_and_our_types_agree() {
    let fixtures = load();
    assert!(fixtures.len() > 900, "only {} fixtures", fixtures.len());
    check(&fixtures, decode_v2, "v2");
}

#[cfg(feature = "unstable")]
#[test]
fn every_draft_fixture_has_the_schemas_verdict_and_our_types_agree() {
    let fixtures = parse(include_str!("fixtures.unstable.json"));
    assert!(fixtures.len() > 1000, "only {} fixtures", fixtures.len());
    check(&fixtures, decode_v2_draft, "v2 draft");
}

/// Checks each fixture: the schema's verdict (when the schema is the official one) and ours.
fn check(fixtures: &[Fixture], decode: fn(&str, &Value) -> Result<Outcome, String>, what: &str) {
    let spec = V2Spec::load();
    let mut failures = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for f in fixtures {
        let id = format!("{} \"{}\"", f.def, f.name);
        if spec.official {
            let verdict = spec.is_valid(&f.def, &f.doc);
            if verdict != f.valid {
                failures.push(format!(
                    "{id}: labelled {} but the schema says {verdict}",
                    f.valid
                ));
                continue;
            }
        }
        if KNOWN_DIFFERENCES
            .iter()
            .any(|(def, name, _)| *def == f.def && *name == f.name)
        {
            continue;
        }
        match (decode(&f.def, &f.doc), f.valid) {
            (Err(disagreement), _) => failures.push(format!("{id}: {disagreement}")),
            (Ok(Outcome::Decoded(again)), true) => {
                valid += 1;
                if again != f.doc {
                    failures.push(format!("{id}: re-encoded as {again}, not {}", f.doc));
                }
            }
            (Ok(Outcome::Rejected { .. }), false) => invalid += 1,
            (Ok(Outcome::Decoded(_)), false) => {
                failures.push(format!(
                    "{id}: invalid per the schema but decoded: {}",
                    f.doc
                ));
            }
            (Ok(Outcome::Rejected { path, message }), true) => failures.push(format!(
                "{id}: valid per the schema but refused at `{path}`: {message}: {}",
                f.doc
            )),
        }
    }
    println!("{what} fixtures: {valid} valid decoded and round-tripped, {invalid} invalid refused");
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        fixtures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_definition_has_fixtures() {
    let fixtures = load();
    for def in acp_types::v2::schema::VALUE_DEFINITIONS {
        assert!(
            fixtures.iter().any(|f| f.def == *def && f.valid),
            "no valid fixture of {def}"
        );
    }
}

#[cfg(feature = "unstable")]
#[test]
fn every_draft_definition_has_fixtures() {
    let fixtures = parse(include_str!("fixtures.unstable.json"));
    let spec = V2Spec::load();
    for def in acp_types::v2::schema::DRAFT_DEFINITIONS {
        assert!(
            fixtures.iter().any(|f| f.def == *def && f.valid),
            "no valid fixture of {def}"
        );
        // A definition that accepts any JSON (a forwarded result) has no invalid document.
        let any_json = spec.schema["$defs"][*def]
            .as_object()
            .is_some_and(|d| d.keys().all(|k| k == "description" || k.starts_with("x-")));
        assert!(
            any_json || fixtures.iter().any(|f| f.def == *def && !f.valid),
            "no invalid fixture of {def}"
        );
    }
}
