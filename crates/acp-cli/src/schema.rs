//! The protocol's JSON Schema, embedded in the tool, and the validation of messages against it.
//!
//! The schema is the one the workspace's crates generate (`schema/acp.schema.json`, which the
//! `acp-types` tests prove equivalent to the official one), so the tool needs nothing beside
//! itself. A message is checked as a whole (its JSON-RPC envelope, as the side that sent it may
//! send it) and its params or result against the definition of its method.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use acp_types::methods::{self, MethodDefinition, Side};
use jsonschema::Validator;
use serde_json::{Map, Value};

/// The generated JSON Schema of the protocol, as `acp schema` prints it.
pub const SCHEMA_JSON: &str = include_str!("../acp.schema.json");

/// Which side of a connection sent (or serves) something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The agent.
    Agent,
    /// The client (the editor).
    Client,
}

impl Role {
    /// The other side.
    pub fn peer(self) -> Role {
        match self {
            Role::Agent => Role::Client,
            Role::Client => Role::Agent,
        }
    }

    /// `agent` or `client`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Agent => "agent",
            Role::Client => "client",
        }
    }
}

/// The side that serves a method: `None` for the methods either side may send.
pub(crate) fn receiver(method: &MethodDefinition) -> Option<Role> {
    match method.side {
        Side::Agent => Some(Role::Agent),
        Side::Client => Some(Role::Client),
        _ => None,
    }
}

/// The schema entry of `name` (who serves it, its params and result definitions), if it is a
/// method of the protocol; for a method that is both a request and a notification, the request.
pub fn method_schema(name: &str) -> Option<&'static MethodDefinition> {
    methods::definitions(name).next()
}

/// True for an extension method (its name starts with `_`).
pub fn is_extension(name: &str) -> bool {
    name.starts_with('_')
}

/// What a JSON-RPC message is, by its members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A request: `method` and `id`.
    Request,
    /// A notification: `method`, no `id`.
    Notification,
    /// A response: `id` and no `method`.
    Response,
}

impl Kind {
    /// The kind of `message`, or `None` when it is not a JSON-RPC object.
    pub fn of(message: &Value) -> Option<Kind> {
        let object = message.as_object()?;
        match (object.contains_key("method"), object.contains_key("id")) {
            (true, true) => Some(Kind::Request),
            (true, false) => Some(Kind::Notification),
            (false, true) => Some(Kind::Response),
            (false, false) => None,
        }
    }
}

/// The embedded schema with its compiled validators (compiled on first use, then cached).
#[derive(Debug)]
pub struct Schema {
    root: Value,
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

/// The most violations one report names; the rest are counted.
const MAX_VIOLATIONS_NAMED: usize = 3;

impl Schema {
    /// The embedded schema, parsed once per process.
    ///
    /// # Panics
    ///
    /// Never in a released build: a test proves the embedded text is a valid schema.
    pub fn embedded() -> &'static Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| Schema {
            root: serde_json::from_str(SCHEMA_JSON).expect("the embedded schema is JSON"),
            validators: Mutex::new(HashMap::new()),
        })
    }

    /// The validator of the definition `def`, or of what `role` may send (`@agent`, `@client`).
    fn validator(&self, key: &str) -> Option<Arc<Validator>> {
        let mut cache = self
            .validators
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(validator) = cache.get(key) {
            return Some(validator.clone());
        }
        let mut schema = Map::new();
        schema.insert("$defs".into(), self.root["$defs"].clone());
        let target = match key {
            "@agent" => self.root["anyOf"][0].clone(),
            "@client" => self.root["anyOf"][1].clone(),
            def => {
                self.root["$defs"].get(def)?;
                serde_json::json!({ "$ref": format!("#/$defs/{def}") })
            }
        };
        schema.insert("allOf".into(), Value::Array(vec![target]));
        let validator = Arc::new(jsonschema::validator_for(&Value::Object(schema)).ok()?);
        cache.insert(key.to_owned(), validator.clone());
        Some(validator)
    }

    /// Validates `doc` against the definition `def`.
    ///
    /// # Errors
    ///
    /// The first violations, with their paths in `doc`.
    pub fn check_def(&self, def: &str, doc: &Value) -> Result<(), String> {
        match self.validator(def) {
            Some(validator) => violations(&validator, doc),
            None => Err(format!("`{def}` is not a definition of the schema")),
        }
    }

    /// Validates a message `sender` sent: its envelope, the method (one `sender`'s peer serves,
    /// or an extension method) and its params against the method's definition; for a
    /// response, its result against the result definition of `answered` (the method of the
    /// request it answers, when known) or its error against `Error`.
    ///
    /// # Errors
    ///
    /// What is wrong, naming the first violations and their paths.
    pub fn check_message(
        &self,
        sender: Role,
        message: &Value,
        answered: Option<&str>,
    ) -> Result<(), String> {
        let Some(kind) = Kind::of(message) else {
            return Err("not a JSON-RPC 2.0 message (an object with `method` or `id`)".into());
        };
        let envelope = match sender {
            Role::Agent => "@agent",
            Role::Client => "@client",
        };
        if let Some(validator) = self.validator(envelope) {
            violations(&validator, message)
                .map_err(|e| format!("not a message the {} may send: {e}", sender.as_str()))?;
        }
        match kind {
            Kind::Request | Kind::Notification => {
                let name = message["method"].as_str().unwrap_or_default();
                if is_extension(name) {
                    return Ok(());
                }
                let Some(schema) = method_schema(name) else {
                    return Err(format!("`{name}` is not a method of the protocol"));
                };
                if receiver(schema) == Some(sender) {
                    return Err(format!(
                        "`{name}` is served by the {}: the {} may not send it",
                        sender.as_str(),
                        sender.as_str()
                    ));
                }
                let is_request = kind == Kind::Request;
                let Some(schema) =
                    methods::definitions(name).find(|m| m.is_notification() != is_request)
                else {
                    let what = if is_request {
                        "a request"
                    } else {
                        "a notification"
                    };
                    return Err(format!("`{name}` sent as {what}, which it is not"));
                };
                let empty = Value::Object(Map::new());
                let params = match message.get("params") {
                    None | Some(Value::Null) => &empty,
                    Some(params) => params,
                };
                self.check_def(schema.params, params).map_err(|e| {
                    let typed = typed_diagnosis(sender, message, None);
                    format!(
                        "params of `{name}` are not a valid {}: {e}{typed}",
                        schema.params
                    )
                })
            }
            Kind::Response => {
                if let Some(error) = message.get("error") {
                    return self
                        .check_def("Error", error)
                        .map_err(|e| format!("not a valid error object: {e}"));
                }
                let result_def = answered
                    .filter(|m| !is_extension(m))
                    .and_then(method_schema)
                    .and_then(|m| m.result.map(|def| (m.method, def)));
                match (result_def, message.get("result")) {
                    (Some((name, def)), Some(result)) => self.check_def(def, result).map_err(|e| {
                        let typed = typed_diagnosis(sender, message, Some(name));
                        format!("result of `{name}` is not a valid {def}: {e}{typed}")
                    }),
                    _ => Ok(()),
                }
            }
        }
    }
}

/// What `acp-types`' decoder says of a message the schema rejected: the path of the offending
/// field and the reason, often plainer than the schema's (a union's branches all failing).
/// Empty when the decoder takes the message (it applies the schema's own leniency) or cannot
/// tell.
fn typed_diagnosis(sender: Role, message: &Value, answered: Option<&str>) -> String {
    let Ok(bytes) = serde_json::to_vec(message) else {
        return String::new();
    };
    let method_of = |_: &acp_types::RequestId| answered;
    let error = match sender {
        Role::Agent => acp_types::AgentMessage::decode(&bytes, method_of).err(),
        Role::Client => acp_types::ClientMessage::decode(&bytes, method_of).err(),
    };
    error.map_or_else(String::new, |e| format!(" (acp-types: {e})"))
}

fn violations(validator: &Validator, doc: &Value) -> Result<(), String> {
    let mut named = Vec::new();
    let mut total = 0usize;
    for error in validator.iter_errors(doc) {
        total += 1;
        if named.len() < MAX_VIOLATIONS_NAMED {
            let path = error.instance_path().to_string();
            let path = if path.is_empty() {
                "/".to_owned()
            } else {
                path
            };
            named.push(format!("at {path}: {}", shorten(&error.to_string(), 200)));
        }
    }
    if total == 0 {
        return Ok(());
    }
    let mut text = named.join("; ");
    if total > named.len() {
        text.push_str(&format!(" (and {} more)", total - named.len()));
    }
    Err(text)
}

/// `text` cut to at most `max` characters, marked with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}
