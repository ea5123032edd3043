//! Test support shared by the workspace (not published).
//!
//! It finds the official ACP specification (`schema.json`, `meta.json`, `protocol/*.md`) and
//! validates JSON documents against the official schema, so that no test can put a message on
//! the wire, or keep a fixture, that the specification would reject without noticing.
//!
//! The specification is looked up in the directory named by the `ACP_SPEC_DIR` environment
//! variable, by default `../shared/spec` relative to the workspace root. When it is absent,
//! [`Spec::load_or_skip`] prints a notice and returns `None` so the calling test can skip;
//! under CI (`CI=true`) absence is a failure instead.

#![allow(clippy::print_stderr)] // Skip notices go to the test output on purpose.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use jsonschema::Validator;
use serde_json::{Value, json};

/// The environment variable that overrides where the specification lives.
pub const SPEC_DIR_ENV: &str = "ACP_SPEC_DIR";

/// The workspace root (the directory holding the root `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    // This crate lives in `<root>/crates/acp-testkit`.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("acp-testkit lives two levels below the workspace root")
        .to_path_buf()
}

/// Where the specification is expected: `$ACP_SPEC_DIR`, or `../shared/spec` beside the workspace.
pub fn spec_dir() -> PathBuf {
    match std::env::var_os(SPEC_DIR_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("../shared/spec"),
    }
}

/// True when running under CI, where a missing specification fails instead of skipping.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The loaded official specification.
#[derive(Debug)]
pub struct Spec {
    dir: PathBuf,
    schema: Value,
    meta: Value,
    validators: Mutex<HashMap<String, &'static Validator>>,
}

impl Spec {
    /// Loads the specification once per process, or returns `None` (after printing why) when it
    /// is absent outside CI.
    ///
    /// # Panics
    ///
    /// Under CI when the specification is missing, and whenever its files are not valid JSON.
    pub fn load_or_skip() -> Option<&'static Spec> {
        static SPEC: OnceLock<Option<Spec>> = OnceLock::new();
        SPEC.get_or_init(|| {
            let dir = spec_dir();
            let schema_path = dir.join("schema.json");
            if !schema_path.is_file() {
                assert!(
                    !in_ci(),
                    "the ACP specification is required under CI but {} is missing \
                     (set {SPEC_DIR_ENV} to its directory)",
                    schema_path.display()
                );
                eprintln!(
                    "notice: skipping spec-dependent checks: {} not found (set {SPEC_DIR_ENV})",
                    schema_path.display()
                );
                return None;
            }
            let read = |name: &str| -> Value {
                let path = dir.join(name);
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
            };
            Some(Spec {
                schema: read("schema.json"),
                meta: read("meta.json"),
                dir,
                validators: Mutex::new(HashMap::new()),
            })
        })
        .as_ref()
    }

    /// The directory the specification was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The official `schema.json`.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The official `meta.json` (method names).
    pub fn meta(&self) -> &Value {
        &self.meta
    }

    /// The names of every definition in `$defs`, in file order.
    pub fn def_names(&self) -> Vec<&str> {
        self.schema["$defs"]
            .as_object()
            .map(|defs| defs.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// A validator for one `$defs` entry, or for the whole message (`None`).
    ///
    /// # Panics
    ///
    /// When `def` is not a definition of the schema.
    pub fn validator(&self, def: Option<&str>) -> &'static Validator {
        let key = def.unwrap_or("").to_owned();
        let mut cache = self.validators.lock().expect("validator cache lock");
        if let Some(v) = cache.get(&key) {
            return v;
        }
        let mut schema = self.schema.clone();
        if let Some(name) = def {
            assert!(
                self.schema["$defs"].get(name).is_some(),
                "{name} is not a definition of the official schema"
            );
            let obj = schema.as_object_mut().expect("schema is an object");
            obj.remove("anyOf");
            obj.remove("title");
            obj.insert("$ref".into(), json!(format!("#/$defs/{name}")));
        }
        let validator = jsonschema::validator_for(&schema)
            .unwrap_or_else(|e| panic!("compiling the official schema: {e}"));
        let leaked: &'static Validator = Box::leak(Box::new(validator));
        cache.insert(key, leaked);
        leaked
    }

    /// Validates `doc` against the definition `def` of the official schema; the error lists
    /// every violation.
    ///
    /// # Errors
    ///
    /// A description of each violation, when the document is invalid.
    pub fn check_def(&self, def: &str, doc: &Value) -> Result<(), String> {
        collect_errors(self.validator(Some(def)), doc)
    }

    /// Validates a whole JSON-RPC message: against the official schema's root and, because the
    /// root does not tie params to methods, the params of a request or notification against the
    /// definition of its method (found through the schema's `x-method`).
    ///
    /// A response's result needs the method of its request: see [`Spec::check_response`].
    ///
    /// # Errors
    ///
    /// A description of each violation, when the message is invalid.
    pub fn check_message(&self, message: &Value) -> Result<(), String> {
        collect_errors(self.validator(None), message)?;
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return Ok(());
        };
        match (self.method_defs(method).0, message.get("params")) {
            (Some(def), Some(params)) if !params.is_null() => self
                .check_def(def, params)
                .map_err(|e| format!("params of `{method}` are not a valid {def}: {e}")),
            _ => Ok(()),
        }
    }

    /// Validates a response to a request of `method`: the whole message, and its result against
    /// the result definition of the method.
    ///
    /// # Errors
    ///
    /// A description of each violation, when the message is invalid.
    pub fn check_response(&self, message: &Value, method: &str) -> Result<(), String> {
        self.check_message(message)?;
        match (self.method_defs(method).1, message.get("result")) {
            (Some(def), Some(result)) => self
                .check_def(def, result)
                .map_err(|e| format!("result of `{method}` is not a valid {def}: {e}")),
            _ => Ok(()),
        }
    }

    /// The params and result definitions of `method` (by the schema's `x-method`).
    pub fn method_defs(&self, method: &str) -> (Option<&str>, Option<&str>) {
        let mut found = (None, None);
        for (name, def) in self.schema["$defs"].as_object().into_iter().flatten() {
            if def.get("x-method").and_then(Value::as_str) == Some(method) {
                if name.ends_with("Response") {
                    found.1 = Some(name.as_str());
                } else {
                    found.0 = Some(name.as_str());
                }
            }
        }
        found
    }

    /// Asserts that a whole JSON-RPC message is valid against the official schema.
    ///
    /// # Panics
    ///
    /// When it is not, naming each violation.
    pub fn assert_valid_message(&self, message: &Value) {
        if let Err(e) = self.check_message(message) {
            panic!("message rejected by the official schema: {e}\nmessage: {message}");
        }
    }
}

fn collect_errors(validator: &Validator, doc: &Value) -> Result<(), String> {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("at {}: {}", e.instance_path(), e))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}
