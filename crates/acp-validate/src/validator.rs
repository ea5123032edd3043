//! [`Validator`]: one message checked as a whole against a schema of the protocol.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use serde_json::{Map, Value};

use crate::{Kind, Part, Role, Violation};

/// The protocol's JSON Schema as the workspace generates it (`schema/acp.schema.json`, which
/// the `acp-types` tests prove equivalent to the official one): what [`Validator::embedded`]
/// checks against.
pub const SCHEMA_JSON: &str = include_str!("../acp.schema.json");

/// The draft protocol's JSON Schema (`schema/acp.unstable.schema.json`): what
/// [`Validator::embedded_unstable`] checks against.
#[cfg(feature = "unstable")]
pub const UNSTABLE_SCHEMA_JSON: &str = include_str!("../acp.unstable.schema.json");

/// The ACP v2 (draft) JSON Schema as the workspace generates it (`schema/acp.v2.schema.json`,
/// which the `acp-types` tests prove equivalent to the official `v2/schema.json`): what
/// [`Validator::embedded_v2`] checks against.
#[cfg(feature = "unstable_protocol_v2")]
pub const V2_SCHEMA_JSON: &str = include_str!("../acp.v2.schema.json");

/// The ACP v2 draft schema with its draft features (`schema/acp.v2.unstable.schema.json`):
/// what [`Validator::embedded_v2_unstable`] checks against.
#[cfg(all(feature = "unstable_protocol_v2", feature = "unstable"))]
pub const V2_UNSTABLE_SCHEMA_JSON: &str = include_str!("../acp.v2.unstable.schema.json");

/// The most schema errors a report names; the rest are counted.
const MAX_ERRORS_NAMED: usize = 3;

/// The longest a named schema error gets, in characters.
const MAX_ERROR_CHARS: usize = 200;

/// True for an extension method (its name starts with `_`): only its envelope is checked.
pub fn is_extension(method: &str) -> bool {
    method.starts_with('_')
}

/// `text` cut to at most `max` characters, marked with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// A method of the schema, as its definitions' `x-method` and `x-side` annotations describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Method {
    /// The method name.
    pub name: String,
    /// The side that serves it; `None` when either side may send it (`$/cancel_request`, and
    /// the draft `mcp/message`: a request the client serves, a notification the agent serves).
    pub served_by: Option<Role>,
    /// The definition of its params as a request; `None` when it is no request.
    pub request: Option<String>,
    /// The definition of its result; `None` when it is no request.
    pub result: Option<String>,
    /// The definition of its params as a notification; `None` when it is no notification.
    pub notification: Option<String>,
}

/// A schema that cannot serve to validate messages: not JSON, no `$defs`, no root `anyOf` of
/// the agent's and the client's messages, or one that does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError(String);

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a schema of the protocol: {}", self.0)
    }
}

impl std::error::Error for SchemaError {}

/// A document that does not match a definition: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mismatch {
    /// Where in the document the first error is (a JSON Pointer; empty for the whole).
    pub path: String,
    /// The schema keyword that failed first, a JSON Pointer into the schema
    /// (`/$defs/NewSessionRequest/properties/cwd/type`).
    pub schema_path: String,
    /// The first errors (`at /path: reason`), the rest counted.
    pub text: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for Mismatch {}

/// A protocol schema with its compiled validators: checks one message as a whole, its envelope
/// as the sending side may send it, and its params or result against its method's definition.
///
/// Cheap to clone (shared); definitions are compiled on first use and kept. Methods are found
/// through the schema's own `x-method` and `x-side` annotations (the official schema and the
/// generated one both carry them), so any version of the schema serves.
///
/// ```
/// use acp_validate::{Part, Role, Validator};
/// use serde_json::json;
///
/// let validator = Validator::embedded();
/// let update = json!({"jsonrpc": "2.0", "method": "session/update", "params": {
///     "sessionId": "s1",
///     "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi"}}}});
/// assert!(validator.check(Role::Agent, &update, None).is_ok());
/// // The client serves `session/update`: it may not send it.
/// let violation = validator.check(Role::Client, &update, None).unwrap_err();
/// assert_eq!(violation.part, Part::Method);
/// ```
#[derive(Clone)]
pub struct Validator(Arc<Inner>);

struct Inner {
    /// The whole schema.
    root: Value,
    /// The methods, by name.
    methods: HashMap<String, Method>,
    /// What the agent may send, then what the client may send; each compiled on first use
    /// (a program that checks one side compiles one), the error kept if it does not compile.
    envelopes: [OnceLock<Result<jsonschema::Validator, String>>; 2],
    /// The definitions compiled so far, by name.
    compiled: RwLock<HashMap<String, Arc<jsonschema::Validator>>>,
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validator")
            .field("title", &self.0.root.get("title"))
            .field("methods", &self.0.methods.len())
            .finish_non_exhaustive()
    }
}

impl Validator {
    /// The embedded schema ([`SCHEMA_JSON`]), compiled once per process.
    ///
    /// # Panics
    ///
    /// Never in a released build: a test proves the embedded text is a valid schema.
    pub fn embedded() -> &'static Validator {
        static EMBEDDED: OnceLock<Validator> = OnceLock::new();
        EMBEDDED.get_or_init(|| Self::from_text(SCHEMA_JSON))
    }

    /// The embedded draft schema ([`UNSTABLE_SCHEMA_JSON`]), compiled once per process.
    ///
    /// # Panics
    ///
    /// Never in a released build: a test proves the embedded text is a valid schema.
    #[cfg(feature = "unstable")]
    pub fn embedded_unstable() -> &'static Validator {
        static EMBEDDED: OnceLock<Validator> = OnceLock::new();
        EMBEDDED.get_or_init(|| Self::from_text(UNSTABLE_SCHEMA_JSON))
    }

    /// The embedded ACP v2 schema ([`V2_SCHEMA_JSON`]), compiled once per process.
    ///
    /// # Panics
    ///
    /// Never in a released build: a test proves the embedded text is a valid schema.
    #[cfg(feature = "unstable_protocol_v2")]
    pub fn embedded_v2() -> &'static Validator {
        static EMBEDDED: OnceLock<Validator> = OnceLock::new();
        EMBEDDED.get_or_init(|| Self::from_text(V2_SCHEMA_JSON))
    }

    /// The embedded ACP v2 draft schema ([`V2_UNSTABLE_SCHEMA_JSON`]), compiled once per
    /// process.
    ///
    /// # Panics
    ///
    /// Never in a released build: a test proves the embedded text is a valid schema.
    #[cfg(all(feature = "unstable_protocol_v2", feature = "unstable"))]
    pub fn embedded_v2_unstable() -> &'static Validator {
        static EMBEDDED: OnceLock<Validator> = OnceLock::new();
        EMBEDDED.get_or_init(|| Self::from_text(V2_UNSTABLE_SCHEMA_JSON))
    }

    /// The embedded stable schema of protocol version `version`: [`embedded`](Self::embedded)
    /// for 1, `embedded_v2` for 2 (with the feature
    /// `unstable_protocol_v2`); `None` for a version this build does not know.
    pub fn embedded_for(version: u64) -> Option<&'static Validator> {
        match version {
            1 => Some(Self::embedded()),
            #[cfg(feature = "unstable_protocol_v2")]
            2 => Some(Self::embedded_v2()),
            _ => None,
        }
    }

    fn from_text(text: &str) -> Validator {
        let schema = serde_json::from_str(text).expect("the embedded schema is JSON");
        Self::new(schema).expect("the embedded schema is a schema of the protocol")
    }

    /// A validator for `schema`, any version of the protocol's JSON Schema (the official
    /// `schema.json` for one): `$defs` with the `x-method` annotations, and a root `anyOf` whose
    /// first two members are what the agent sends, then what the client sends (the
    /// protocol-level messages either side may send are among both).
    ///
    /// # Errors
    ///
    /// When the schema is not of that shape. (Its definitions are compiled on first use: one
    /// that does not compile is reported as what is wrong with each message it checks.)
    pub fn new(schema: Value) -> Result<Validator, SchemaError> {
        let Some(defs) = schema.get("$defs").and_then(Value::as_object) else {
            return Err(SchemaError("no `$defs` object".into()));
        };
        let sides = match schema.get("anyOf").and_then(Value::as_array) {
            Some(sides) if sides.len() >= 2 => sides,
            _ => {
                return Err(SchemaError(
                    "the root is not an `anyOf` of the agent's and the client's messages".into(),
                ));
            }
        };
        if !sides[..2].iter().all(Value::is_object) {
            return Err(SchemaError(
                "the agent's and the client's messages are not schemas".into(),
            ));
        }
        let methods = methods_of(defs);
        Ok(Validator(Arc::new(Inner {
            root: schema,
            methods,
            envelopes: [OnceLock::new(), OnceLock::new()],
            compiled: RwLock::new(HashMap::new()),
        })))
    }

    /// The schema.
    pub fn schema(&self) -> &Value {
        &self.0.root
    }

    /// The method `name` of the schema.
    pub fn method(&self, name: &str) -> Option<&Method> {
        self.0.methods.get(name)
    }

    /// Every method of the schema, in no particular order.
    pub fn methods(&self) -> impl Iterator<Item = &Method> {
        self.0.methods.values()
    }

    /// The compiled definition `def`, compiled now if it is the first use.
    fn definition(&self, def: &str) -> Result<Arc<jsonschema::Validator>, Mismatch> {
        let cache = &self.0.compiled;
        if let Some(compiled) = cache
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(def)
        {
            return Ok(compiled.clone());
        }
        let whole = |text: String| Mismatch {
            path: String::new(),
            schema_path: String::new(),
            text,
        };
        if self.0.root["$defs"].get(def).is_none() {
            return Err(whole(format!("`{def}` is not a definition of the schema")));
        }
        let target = serde_json::json!({ "$ref": format!("#/$defs/{def}") });
        let compiled = compile(&self.0.root, target)
            .map_err(|e| whole(format!("the definition `{def}` does not compile: {e}")))?;
        let compiled = Arc::new(compiled);
        cache
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(def.to_owned(), compiled.clone());
        Ok(compiled)
    }

    /// Validates `doc` against the definition `def` of the schema.
    ///
    /// # Errors
    ///
    /// The first errors with their paths in `doc`; or `def` is not a definition.
    pub fn check_def(&self, def: &str, doc: &Value) -> Result<(), Mismatch> {
        mismatch(&*self.definition(def)?, doc)
    }

    /// Validates only the envelope of a message `from` sent: a request, notification or
    /// response that side may send (its params or result as any method's, an extension's
    /// included).
    ///
    /// # Errors
    ///
    /// The first errors with their paths in `message`.
    pub fn check_envelope(&self, from: Role, message: &Value) -> Result<(), Mismatch> {
        let side = usize::from(from == Role::Client);
        let envelope = self.0.envelopes[side].get_or_init(|| {
            compile(&self.0.root, self.0.root["anyOf"][side].clone())
                .map_err(|e| format!("the schema of what the {from} sends does not compile: {e}"))
        });
        match envelope {
            Ok(envelope) => mismatch(envelope, message),
            Err(text) => Err(Mismatch {
                path: String::new(),
                schema_path: String::new(),
                text: text.clone(),
            }),
        }
    }

    /// Validates one message `from` sent: its envelope (a request, notification or response
    /// that side may send), its method (one the other side serves, sent as the kind it is;
    /// extension methods, `_...`, only their envelope) and its params against the method's
    /// definition; for a response, its error object, or its result against the result
    /// definition of `answered`, the method of the request it answers (unchecked when `None`).
    ///
    /// Absent or `null` params are checked as `{}`. A JSON-RPC batch (an array) is not a
    /// message: check its members one by one.
    ///
    /// # Errors
    ///
    /// The first thing wrong with the message.
    pub fn check(
        &self,
        from: Role,
        message: &Value,
        answered: Option<&str>,
    ) -> Result<(), Violation> {
        let kind = Kind::of(message);
        let fail = |part: Part, found: Mismatch| {
            let method = match kind {
                Some(Kind::Response) => answered,
                _ => message["method"].as_str(),
            };
            Violation {
                from,
                kind,
                method: method.map(Box::from),
                id: message.get("id").map(|id| id.to_string().into_boxed_str()),
                part,
                path: found.path.into_boxed_str(),
                schema_path: found.schema_path.into_boxed_str(),
                reason: found.text,
            }
        };
        let plain = |part: Part, text: String| {
            fail(
                part,
                Mismatch {
                    path: String::new(),
                    schema_path: String::new(),
                    text,
                },
            )
        };
        let Some(kind) = kind else {
            let text = "not a JSON-RPC 2.0 message (an object with `method` or `id`)";
            return Err(plain(Part::Message, text.into()));
        };
        self.check_envelope(from, message).map_err(|mut e| {
            e.text = format!("not a message the {from} may send: {}", e.text);
            fail(Part::Envelope, e)
        })?;
        // A request's id the envelope's branches may let through (the notification branch
        // does not forbid an `id`): checked against the schema's own `RequestId`, which in v2
        // refuses `null`. Integers and strings are ids in every version; only others are looked at.
        if kind == Kind::Request
            && !matches!(message["id"], Value::Number(_) | Value::String(_))
            && self.0.root["$defs"].get("RequestId").is_some()
        {
            self.check_def("RequestId", &message["id"])
                .map_err(|mut e| {
                    e.text = format!("not a request id of this protocol version: {}", e.text);
                    e.path.insert_str(0, "/id");
                    fail(Part::Id, e)
                })?;
        }
        match kind {
            Kind::Request | Kind::Notification => {
                let name = message["method"].as_str().unwrap_or_default();
                if is_extension(name) {
                    return Ok(());
                }
                let Some(method) = self.method(name) else {
                    let text = format!("`{name}` is not a method of the protocol");
                    return Err(plain(Part::Method, text));
                };
                let def = match kind {
                    Kind::Request => method.request.as_deref(),
                    _ => method.notification.as_deref(),
                };
                let Some(def) = def else {
                    let what = match kind {
                        Kind::Request => "a request",
                        _ => "a notification",
                    };
                    let text = format!("`{name}` sent as {what}, which it is not");
                    return Err(plain(Part::Method, text));
                };
                // The side that serves it as this kind of message: the draft `mcp/message`
                // is a request the client serves and a notification the agent serves.
                if side_of(&self.0.root["$defs"][def]) == Some(from) {
                    let text =
                        format!("`{name}` is served by the {from}: the {from} may not send it");
                    return Err(plain(Part::Method, text));
                }
                let empty = Value::Object(Map::new());
                let params = match message.get("params") {
                    None | Some(Value::Null) => &empty,
                    Some(params) => params,
                };
                self.check_def(def, params).map_err(|mut e| {
                    e.text = format!("params of `{name}` are not a valid {def}: {}", e.text);
                    e.path.insert_str(0, "/params");
                    fail(Part::Params, e)
                })
            }
            Kind::Response => {
                if let Some(error) = message.get("error") {
                    if self.0.root["$defs"].get("Error").is_none() {
                        return Ok(());
                    }
                    return self.check_def("Error", error).map_err(|mut e| {
                        e.text = format!("not a valid error object: {}", e.text);
                        e.path.insert_str(0, "/error");
                        fail(Part::Error, e)
                    });
                }
                let method = answered
                    .filter(|m| !is_extension(m))
                    .and_then(|m| self.method(m));
                let Some((name, def)) =
                    method.and_then(|m| Some((m.name.as_str(), m.result.as_deref()?)))
                else {
                    return Ok(());
                };
                let Some(result) = message.get("result") else {
                    return Ok(());
                };
                self.check_def(def, result).map_err(|mut e| {
                    e.text = format!("result of `{name}` is not a valid {def}: {}", e.text);
                    e.path.insert_str(0, "/result");
                    fail(Part::Result, e)
                })
            }
        }
    }
}

/// The methods the definitions `defs` annotate with `x-method`: a definition named `…Response`
/// is a request's result, one named `…Notification` a notification's params, any other a
/// request's params.
fn methods_of(defs: &Map<String, Value>) -> HashMap<String, Method> {
    let mut methods: HashMap<String, Method> = HashMap::new();
    for (def, body) in defs {
        let Some(name) = body.get("x-method").and_then(Value::as_str) else {
            continue;
        };
        let served_by = side_of(body);
        let method = methods.entry(name.to_owned()).or_insert_with(|| Method {
            name: name.to_owned(),
            served_by,
            request: None,
            result: None,
            notification: None,
        });
        // Definitions of one method that name different sides: either side sends it.
        if method.served_by != served_by {
            method.served_by = None;
        }
        let slot = if def.ends_with("Response") {
            &mut method.result
        } else if def.ends_with("Notification") {
            &mut method.notification
        } else {
            &mut method.request
        };
        *slot = Some(def.clone());
    }
    methods
}

/// The side that serves the method a definition belongs to, by its `x-side` annotation.
fn side_of(def: &Value) -> Option<Role> {
    match def.get("x-side").and_then(Value::as_str) {
        Some("agent") => Some(Role::Agent),
        Some("client") => Some(Role::Client),
        _ => None,
    }
}

/// Compiles `target` with the definitions (and the draft) of `root`.
fn compile(
    root: &Value,
    target: Value,
) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    let mut schema = Map::new();
    if let Some(draft) = root.get("$schema") {
        schema.insert("$schema".into(), draft.clone());
    }
    schema.insert("$defs".into(), root["$defs"].clone());
    schema.insert("allOf".into(), Value::Array(vec![target]));
    jsonschema::validator_for(&Value::Object(schema))
}

/// `Ok` when `doc` is valid; else its first errors (a valid document is checked once, fast).
fn mismatch(validator: &jsonschema::Validator, doc: &Value) -> Result<(), Mismatch> {
    if validator.is_valid(doc) {
        return Ok(());
    }
    let mut found = Mismatch {
        path: String::new(),
        schema_path: String::new(),
        text: String::new(),
    };
    let mut total = 0usize;
    for error in validator.iter_errors(doc) {
        total += 1;
        if total > MAX_ERRORS_NAMED {
            continue;
        }
        let path = error.instance_path().to_string();
        if total == 1 {
            found.path.clone_from(&path);
            found.schema_path = error.schema_path().to_string();
        } else {
            found.text.push_str("; ");
        }
        let path = if path.is_empty() { "/" } else { &path };
        let reason = shorten(&error.to_string(), MAX_ERROR_CHARS);
        found.text.push_str(&format!("at {path}: {reason}"));
    }
    if total > MAX_ERRORS_NAMED {
        found
            .text
            .push_str(&format!(" (and {} more)", total - MAX_ERRORS_NAMED));
    }
    if total == 0 {
        // `is_valid` and `iter_errors` disagree only on a validator bug: say so, not "valid".
        found.text = "invalid (no error named)".into();
    }
    Err(found)
}
