//! Test support shared by the workspace (not published).
//!
//! It finds the official ACP specification (the November 2026 schemas: `v1/schema.json`,
//! `v1/meta.json`, their draft pair `v1/schema.unstable.json` and `v1/meta.unstable.json`, and
//! the `v2/` draft) and validates JSON documents against the official schema, so that no test
//! can put a message on the wire, or keep a fixture, that the specification would reject
//! without noticing.
//!
//! The specification is looked up in the directory named by the `ACP_SPEC_DIR` environment
//! variable, by default `../shared/spec/2026-11` relative to the workspace root. When it is absent,
//! [`Spec::load`] falls back to the repository's own generated schema (`schema/acp.schema.json`
//! and `schema/meta.json`, which the `acp-types` tests prove equivalent to the official one)
//! and says so once, so that a fresh clone's `cargo test` still checks every message; under
//! CI (`CI=true`) the official specification is required. Tests that need the official
//! documents themselves (the chapters' examples, the comparison of the two schemas) use
//! [`Spec::official`] (or [`Spec::official_file`] for any other file of it); they are
//! `#[ignore]`d, so that a fresh clone's `cargo test` reports them
//! as ignored instead of passing without checking anything, and CI runs them with
//! `--include-ignored`.
//!
//! [`services`] starts real servers for the tests that need them (a throwaway PostgreSQL
//! cluster, HAProxy), on free ports of 127.0.0.1, stopped when dropped.

#![allow(clippy::print_stderr)] // The fallback notice goes to the test output on purpose.

#[cfg(unix)]
pub mod services;

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

/// Where the specification is expected: `$ACP_SPEC_DIR`, or `../shared/spec/2026-11` beside
/// the workspace. The directory holds `v1/schema.json`, `v1/meta.json`,
/// `v1/schema.unstable.json`, `v1/meta.unstable.json` and the same under `v2/`.
pub fn spec_dir() -> PathBuf {
    match std::env::var_os(SPEC_DIR_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("../shared/spec/2026-11"),
    }
}

/// The official v1 schema, relative to [`spec_dir`].
const V1_SCHEMA: &str = "v1/schema.json";
/// The official v1 method table.
const V1_META: &str = "v1/meta.json";
/// The official v1 schema with every draft feature.
const V1_UNSTABLE_SCHEMA: &str = "v1/schema.unstable.json";
/// The official v1 method table with every draft feature.
const V1_UNSTABLE_META: &str = "v1/meta.unstable.json";
/// The official v2 (draft) schema, relative to [`spec_dir`].
const V2_SCHEMA: &str = "v2/schema.json";
/// Its method table.
const V2_META: &str = "v2/meta.json";

/// An example program of the workspace (`agent`, `client`, ...), as `cargo test` builds it next
/// to the test executable (`target/<profile>/examples/<name>`).
///
/// # Panics
///
/// When the example is not built (run the test through `cargo test`, which builds examples).
pub fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let path = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test executable lives in target/<profile>/deps")
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "the `{name}` example is not built at {}: run `cargo test -p acp-examples` (which builds \
         the examples) or `cargo build --examples` first",
        path.display()
    );
    path
}

/// Builds programs of the workspace with `cargo build --quiet ARGS` (`-p acp-demo --bin agent`,
/// `-p acp-proxy --example policy`, ...), once per distinct `args` per test process, in the
/// profile of the running test: a package's tests cannot ask cargo for another package's
/// programs, so they ask cargo themselves (a quick no-op when the programs are up to date).
///
/// # Panics
///
/// When the build fails or takes more than 15 minutes.
pub fn cargo_build(args: &[&str]) {
    static BUILT: std::sync::Mutex<Vec<Vec<String>>> = std::sync::Mutex::new(Vec::new());
    let key: Vec<String> = args.iter().map(|&a| a.to_owned()).collect();
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if built.contains(&key) {
        return;
    }
    let mut cargo =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .arg("build")
        .arg("--quiet")
        .args(args)
        .current_dir(workspace_root());
    let exe = std::env::current_exe().expect("the test executable's path");
    if exe
        .parent()
        .and_then(Path::parent)
        .is_some_and(|profile| profile.ends_with("release"))
    {
        cargo.arg("--release");
    }
    let output = output_with_deadline(&mut cargo, std::time::Duration::from_secs(900));
    assert!(
        output.status.success(),
        "`cargo build {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    built.push(key);
}

/// Waits for a child process to exit, polling, for at most `limit`; past it the child is killed
/// and the test fails, so that a hung program fails the test instead of hanging it.
///
/// # Panics
///
/// When the child is still running after `limit`, or cannot be waited for.
pub fn wait_with_deadline(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the child process did not finish within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs `command` to its end with its output captured (stdin empty), as
/// [`std::process::Command::output`] does, but for at most `limit`: past it the process is
/// killed and the test fails instead of hanging.
///
/// # Panics
///
/// When the program cannot be started, or runs past `limit`.
pub fn output_with_deadline(
    command: &mut std::process::Command,
    limit: std::time::Duration,
) -> std::process::Output {
    use std::io::Read;
    use std::process::Stdio;

    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    // Both pipes are drained while the program runs, so that a full pipe cannot stall it.
    fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    }
    let stdout = drain(child.stdout.take().expect("a piped stdout"));
    let stderr = drain(child.stderr.take().expect("a piped stderr"));
    let status = wait_with_deadline(&mut child, limit);
    std::process::Output {
        status,
        stdout: stdout.join().expect("the stdout reader"),
        stderr: stderr.join().expect("the stderr reader"),
    }
}

/// A server program started by a test, on a free port of 127.0.0.1: it says where it listens
/// on stderr, in a line `listening on URL …`. It is killed when dropped; [`Self::wait`] waits
/// for its exit after the test signalled it.
#[derive(Debug)]
pub struct ListeningProgram {
    child: Option<std::process::Child>,
    url: String,
}

impl ListeningProgram {
    /// Starts `command` (stdin and stdout closed, stderr read to its end in the background)
    /// and waits, for at most `limit`, for its `listening on URL` line.
    ///
    /// # Panics
    ///
    /// When the program cannot be started, or says nothing of the kind within `limit`.
    pub fn start(command: &mut std::process::Command, limit: std::time::Duration) -> Self {
        use std::io::BufRead;
        use std::process::Stdio;

        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        let stderr = std::io::BufReader::new(child.stderr.take().expect("a piped stderr"));
        let (url_tx, url_rx) = std::sync::mpsc::channel();
        // Read to the end, so that the program never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("listening on ") {
                    let url = rest.split_whitespace().next().unwrap_or_default();
                    let _ = url_tx.send(url.to_owned());
                }
            }
        });
        let mut program = Self {
            child: Some(child),
            url: String::new(),
        };
        program.url = url_rx.recv_timeout(limit).unwrap_or_else(|_| {
            panic!("{command:?} did not say where it listens within {limit:?}")
        });
        program
    }

    /// Where it listens, as it said: `http://127.0.0.1:PORT/acp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The same endpoint's WebSocket URL: `ws://127.0.0.1:PORT/acp`.
    pub fn ws_url(&self) -> String {
        self.url.replacen("http", "ws", 1)
    }

    /// The process id, to signal it.
    pub fn id(&self) -> u32 {
        self.child.as_ref().map_or(0, std::process::Child::id)
    }

    /// Waits for the program to exit, for at most `limit` (see [`wait_with_deadline`]).
    ///
    /// # Panics
    ///
    /// When it still runs after `limit`.
    pub fn wait(mut self, limit: std::time::Duration) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("the program runs");
        wait_with_deadline(&mut child, limit)
    }
}

impl Drop for ListeningProgram {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// True when running under CI, where a missing specification fails instead of skipping.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Fails a test that needs the official specification's `file`, saying where it was looked for.
fn missing(file: &str) -> ! {
    panic!(
        "this test needs the official ACP specification, but {} is missing: put the \
         specification at ../shared/spec/2026-11 beside the repository or set {SPEC_DIR_ENV} to its \
         directory (CI runs these tests with `--include-ignored`)",
        spec_dir().join(file).display()
    )
}

/// The loaded specification: the official one, or the repository's generated schema.
#[derive(Debug)]
pub struct Spec {
    dir: PathBuf,
    official: bool,
    schema: Value,
    meta: Value,
    validators: Mutex<HashMap<String, &'static Validator>>,
    /// The `acp-validate` validator of `schema`, built on first use.
    messages: OnceLock<acp_validate::Validator>,
}

impl Spec {
    /// The specification to validate against, loaded once per process: the official one when
    /// it is there, else (outside CI, with a notice printed once) the repository's generated
    /// schema.
    ///
    /// # Panics
    ///
    /// Under CI when the official specification is missing; when neither it nor the
    /// repository's `schema/` is there; and whenever a schema file is not valid JSON.
    pub fn load() -> &'static Spec {
        static SPEC: OnceLock<Spec> = OnceLock::new();
        SPEC.get_or_init(|| {
            if let Some(official) = Self::official_if_present() {
                return Self::read(official.dir.clone(), V1_SCHEMA, V1_META, true);
            }
            let dir = workspace_root().join("schema");
            eprintln!(
                "notice: the official ACP specification was not found: validating against the \
                 repository's generated schema ({}) instead",
                dir.join("acp.schema.json").display()
            );
            Self::read(dir, "acp.schema.json", "meta.json", false)
        })
    }

    /// The specification to validate against; always `Some` since the fallback to the
    /// repository's schema (kept for callers written when absence meant skipping).
    ///
    /// # Panics
    ///
    /// As [`load`](Self::load).
    pub fn load_or_skip() -> Option<&'static Spec> {
        Some(Self::load())
    }

    /// The official specification only, for tests about the official documents themselves
    /// (mark them `#[ignore = "needs the official ACP specification ..."]`: CI runs them).
    ///
    /// # Panics
    ///
    /// When the specification is missing, saying where it was looked for; and whenever its
    /// files are not valid JSON.
    pub fn official() -> &'static Spec {
        Self::official_if_present().unwrap_or_else(|| missing(V1_SCHEMA))
    }

    /// Another official schema and its method table, both relative to [`spec_dir`] (e.g.
    /// `"v2/schema.json"` and `"v2/meta.json"`), loaded once per process.
    ///
    /// # Panics
    ///
    /// As [`official`](Self::official).
    pub fn official_pair(schema: &str, meta: &str) -> &'static Spec {
        static SPECS: OnceLock<Mutex<HashMap<(String, String), &'static Spec>>> = OnceLock::new();
        let mut specs = SPECS
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (schema.to_owned(), meta.to_owned());
        if let Some(spec) = specs.get(&key) {
            return spec;
        }
        let spec = Self::official_files(schema, meta).unwrap_or_else(|| missing(schema));
        let spec: &'static Spec = Box::leak(Box::new(spec));
        specs.insert(key, spec);
        spec
    }

    /// The path of the official file `relative` (to [`spec_dir`]; e.g.
    /// `"v2/protocol/migration.md"`), for tests about the official documents.
    ///
    /// # Panics
    ///
    /// When the file is missing, saying where it was looked for.
    pub fn official_file(relative: &str) -> PathBuf {
        let path = spec_dir().join(relative);
        if !path.is_file() {
            missing(relative);
        }
        path
    }

    /// The official draft specification (`v1/schema.unstable.json`, `v1/meta.unstable.json`), for
    /// the tests of the draft features about the official documents.
    ///
    /// # Panics
    ///
    /// As [`official`](Self::official).
    pub fn official_unstable() -> &'static Spec {
        Self::official_unstable_if_present().unwrap_or_else(|| missing(V1_UNSTABLE_SCHEMA))
    }

    /// The official specification, `None` when it is absent outside CI.
    fn official_if_present() -> Option<&'static Spec> {
        static SPEC: OnceLock<Option<Spec>> = OnceLock::new();
        SPEC.get_or_init(|| Self::official_files(V1_SCHEMA, V1_META))
            .as_ref()
    }

    /// The official draft specification, `None` when it is absent outside CI.
    fn official_unstable_if_present() -> Option<&'static Spec> {
        static SPEC: OnceLock<Option<Spec>> = OnceLock::new();
        SPEC.get_or_init(|| Self::official_files(V1_UNSTABLE_SCHEMA, V1_UNSTABLE_META))
            .as_ref()
    }

    /// The draft specification to validate against, loaded once per process: the official one
    /// when it is there, else (outside CI, with a notice printed once) the repository's
    /// generated `schema/acp.unstable.schema.json`.
    ///
    /// # Panics
    ///
    /// As [`load`](Self::load).
    pub fn load_unstable() -> &'static Spec {
        static FALLBACK: OnceLock<Spec> = OnceLock::new();
        if let Some(official) = Self::official_unstable_if_present() {
            return official;
        }
        FALLBACK.get_or_init(|| {
            let dir = workspace_root().join("schema");
            eprintln!(
                "notice: the official ACP draft specification was not found: validating against \
                 the repository's generated schema ({}) instead",
                dir.join("acp.unstable.schema.json").display()
            );
            Self::read(dir, "acp.unstable.schema.json", "meta.unstable.json", false)
        })
    }

    /// The v2 (draft) specification to validate against, loaded once per process: the official
    /// `v2/schema.json` and `v2/meta.json` when they are there, else (outside CI, with a notice
    /// printed once) the repository's generated `schema/acp.v2.schema.json` and
    /// `schema/meta.v2.json`.
    ///
    /// # Panics
    ///
    /// As [`load`](Self::load).
    pub fn load_v2() -> &'static Spec {
        static SPEC: OnceLock<Spec> = OnceLock::new();
        SPEC.get_or_init(|| {
            if let Some(official) = Self::official_files(V2_SCHEMA, V2_META) {
                return official;
            }
            let dir = workspace_root().join("schema");
            eprintln!(
                "notice: the official ACP v2 specification was not found: validating against \
                 the repository's generated schema ({}) instead",
                dir.join("acp.v2.schema.json").display()
            );
            Self::read(dir, "acp.v2.schema.json", "meta.v2.json", false)
        })
    }

    /// Reads the official files `schema` and `meta` from [`spec_dir`]; `None` when they are
    /// absent (fatal under CI).
    fn official_files(schema: &str, meta: &str) -> Option<Spec> {
        let dir = spec_dir();
        let schema_path = dir.join(schema);
        if !schema_path.is_file() {
            assert!(
                !in_ci(),
                "the ACP specification is required under CI but {} is missing \
                 (set {SPEC_DIR_ENV} to its directory)",
                schema_path.display()
            );
            return None;
        }
        Some(Self::read(dir, schema, meta, true))
    }

    fn read(dir: PathBuf, schema: &str, meta: &str, official: bool) -> Spec {
        let read = |name: &str| -> Value {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
        };
        Spec {
            schema: read(schema),
            meta: read(meta),
            dir,
            official,
            validators: Mutex::new(HashMap::new()),
            messages: OnceLock::new(),
        }
    }

    /// True when this is the official specification, false for the repository's fallback.
    pub fn is_official(&self) -> bool {
        self.official
    }

    /// The directory the specification was loaded from ([`spec_dir`] for an official one, the
    /// repository's `schema/` for the fallback).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The schema (`v1/schema.json` for the official stable one).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The method table (`v1/meta.json` for the official stable one).
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

    /// The `acp-validate` validator of this schema (the same code any program validates with).
    ///
    /// # Panics
    ///
    /// When the schema is not a schema of the protocol (no `$defs`, no root `anyOf` of the
    /// agent's and the client's messages).
    fn messages(&self) -> &acp_validate::Validator {
        self.messages.get_or_init(|| {
            acp_validate::Validator::new(self.schema.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", self.dir.display()))
        })
    }

    /// Validates `doc` against the definition `def` of the official schema; the error names
    /// the first violations and counts the rest.
    ///
    /// # Errors
    ///
    /// A description of the violations, when the document is invalid.
    pub fn check_def(&self, def: &str, doc: &Value) -> Result<(), String> {
        self.messages().check_def(def, doc).map_err(|e| e.text)
    }

    /// Validates a whole JSON-RPC message: against the official schema's root (a message the
    /// agent or the client may send) and, because the root does not tie params to methods,
    /// the params of a request or notification against the definition of its method (found
    /// through the schema's `x-method`).
    ///
    /// A response's result needs the method of its request: see [`Spec::check_response`].
    ///
    /// # Errors
    ///
    /// A description of the violations, when the message is invalid.
    pub fn check_message(&self, message: &Value) -> Result<(), String> {
        let validator = self.messages();
        if let Err(agent) = validator.check_envelope(acp_validate::Role::Agent, message) {
            if let Err(client) = validator.check_envelope(acp_validate::Role::Client, message) {
                return Err(format!(
                    "neither side may send it: as the agent's: {agent}; as the client's: {client}"
                ));
            }
        }
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
    /// A description of the violations, when the message is invalid.
    pub fn check_response(&self, message: &Value, method: &str) -> Result<(), String> {
        self.check_message(message)?;
        match (self.method_defs(method).1, message.get("result")) {
            (Some(def), Some(result)) => self
                .check_def(def, result)
                .map_err(|e| format!("result of `{method}` is not a valid {def}: {e}")),
            _ => Ok(()),
        }
    }

    /// The params and result definitions of `method`, by the schema's `x-method` (the official
    /// schema and the generated one both carry it); for a method that is both a request and a
    /// notification, the request's params.
    pub fn method_defs(&self, method: &str) -> (Option<&str>, Option<&str>) {
        match self.messages().method(method) {
            Some(m) => (
                m.request.as_deref().or(m.notification.as_deref()),
                m.result.as_deref(),
            ),
            None => (None, None),
        }
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
