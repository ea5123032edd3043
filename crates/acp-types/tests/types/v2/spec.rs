//! The v2 schema the tests validate against: the official `v2/schema.json` (beside v1 in the
//! directory of `acp_testkit::spec_dir()`), or, outside CI and with a notice, the repository's
//! generated `schema/acp.v2.schema.json`. With every draft feature on (`unstable`), the
//! drafts' files: `v2/schema.unstable.json` and `schema/acp.v2.unstable.schema.json`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use acp_testkit::{in_ci, spec_dir, workspace_root};
use jsonschema::Validator;
use serde_json::{Value, json};

/// A loaded v2 schema and its method table.
pub(crate) struct V2Spec {
    pub(crate) schema: Value,
    pub(crate) meta: Value,
    pub(crate) official: bool,
    validators: Mutex<HashMap<String, &'static Validator>>,
}

/// The directory of the official v2 files: `<spec_dir>/v2`, or `<spec_dir>/2026-11/v2` while
/// `spec_dir()` still names the directory above the November snapshot.
fn official_dir() -> PathBuf {
    let dir = spec_dir();
    if dir.join("v2").is_dir() {
        dir.join("v2")
    } else {
        dir.join("2026-11").join("v2")
    }
}

/// The official files of the surface compiled in: with `unstable`, the drafts'.
const OFFICIAL: (&str, &str) = if cfg!(feature = "unstable") {
    ("schema.unstable.json", "meta.unstable.json")
} else {
    ("schema.json", "meta.json")
};

/// Our generated files of the surface compiled in.
const GENERATED: (&str, &str) = if cfg!(feature = "unstable") {
    ("acp.v2.unstable.schema.json", "meta.v2.unstable.json")
} else {
    ("acp.v2.schema.json", "meta.v2.json")
};

fn read(path: PathBuf) -> Value {
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

impl V2Spec {
    fn new(schema: Value, meta: Value, official: bool) -> Self {
        Self {
            schema,
            meta,
            official,
            validators: Mutex::new(HashMap::new()),
        }
    }

    /// The official v2 schema, `None` when it is absent (fatal under CI).
    fn official_if_present() -> Option<&'static V2Spec> {
        static SPEC: OnceLock<Option<V2Spec>> = OnceLock::new();
        SPEC.get_or_init(|| {
            let dir = official_dir();
            if !dir.join(OFFICIAL.0).is_file() {
                assert!(
                    !in_ci(),
                    "the official v2 schema is required under CI but {} is missing",
                    dir.join(OFFICIAL.0).display()
                );
                return None;
            }
            Some(Self::new(
                read(dir.join(OFFICIAL.0)),
                read(dir.join(OFFICIAL.1)),
                true,
            ))
        })
        .as_ref()
    }

    /// The official v2 schema only (for the `#[ignore]`d tests about the official files).
    pub(crate) fn official() -> &'static V2Spec {
        Self::official_if_present().unwrap_or_else(|| {
            panic!(
                "the official v2 schema was not found in {} (set ACP_SPEC_DIR)",
                official_dir().display()
            )
        })
    }

    /// The schema to validate against: the official one, else the generated one.
    #[allow(clippy::print_stderr)] // The notice says what the tests validate against.
    pub(crate) fn load() -> &'static V2Spec {
        static FALLBACK: OnceLock<V2Spec> = OnceLock::new();
        if let Some(official) = Self::official_if_present() {
            return official;
        }
        FALLBACK.get_or_init(|| {
            let dir = workspace_root().join("schema");
            eprintln!(
                "notice: the official v2 schema was not found: validating against {}",
                dir.join(GENERATED.0).display()
            );
            Self::new(
                read(dir.join(GENERATED.0)),
                read(dir.join(GENERATED.1)),
                false,
            )
        })
    }

    /// The validator of one definition.
    pub(crate) fn validator(&self, def: &str) -> &'static Validator {
        let mut cache = self.validators.lock().expect("the validator cache");
        if let Some(validator) = cache.get(def) {
            return validator;
        }
        assert!(
            self.schema["$defs"].get(def).is_some(),
            "{def} is not a definition of the v2 schema"
        );
        let mut root = self.schema.clone();
        let object = root.as_object_mut().expect("a schema is an object");
        object.remove("anyOf");
        object.insert("$ref".into(), json!(format!("#/$defs/{def}")));
        let validator = jsonschema::validator_for(&root)
            .unwrap_or_else(|e| panic!("compiling the v2 schema for {def}: {e}"));
        let leaked: &'static Validator = Box::leak(Box::new(validator));
        cache.insert(def.to_owned(), leaked);
        leaked
    }

    /// True when `doc` is valid as the definition `def`.
    pub(crate) fn is_valid(&self, def: &str, doc: &Value) -> bool {
        self.validator(def).is_valid(doc)
    }

    /// Fails with the schema's first complaint when `doc` is not valid as `def`.
    pub(crate) fn assert_valid(&self, def: &str, doc: &Value) {
        if let Some(error) = self.validator(def).iter_errors(doc).next() {
            panic!(
                "not a valid {def} per the {} v2 schema: {error} at {}\n{doc:#}",
                if self.official {
                    "official"
                } else {
                    "generated"
                },
                error.instance_path()
            );
        }
    }
}
