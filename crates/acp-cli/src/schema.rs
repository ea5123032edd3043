//! The protocol's JSON Schema, embedded in the tool, and the validation of messages against it:
//! a thin layer over `acp-validate`, which any program can use the same way.
//!
//! The schema is the one the workspace's crates generate (`schema/acp.schema.json`, which the
//! `acp-types` tests prove equivalent to the official one), so the tool needs nothing beside
//! itself. A message is checked as a whole (its JSON-RPC envelope, as the side that sent it may
//! send it) and its params or result against the definition of its method; the tool adds what
//! `acp-types`' decoder says of a rejected params or result.

use std::sync::OnceLock;

use acp_types::methods::{self, MethodDefinition, Side};
pub use acp_validate::{Kind, Role, SCHEMA_JSON, is_extension, shorten};
use acp_validate::{Part, Validator, Violation};
use serde_json::Value;

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

/// The embedded schema of one protocol version with its compiled validators (compiled on
/// first use, then cached).
#[derive(Debug)]
pub struct Schema {
    validator: Validator,
    version: u64,
}

impl Schema {
    /// The embedded schema of protocol version 1, parsed once per process.
    ///
    /// # Panics
    ///
    /// Never in a released build: a test proves the embedded text is a valid schema.
    pub fn embedded() -> &'static Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| Schema {
            validator: Validator::embedded().clone(),
            version: 1,
        })
    }

    /// The embedded schema of the ACP v2 draft, parsed once per process.
    ///
    /// # Panics
    ///
    /// Never in a released build: a test proves the embedded text is a valid schema.
    #[cfg(feature = "unstable_protocol_v2")]
    pub fn embedded_v2() -> &'static Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| Schema {
            validator: Validator::embedded_v2().clone(),
            version: 2,
        })
    }

    /// The embedded schema of protocol `version`, if this build knows it (2 only with the
    /// feature `unstable_protocol_v2`).
    pub fn for_version(version: u64) -> Option<&'static Schema> {
        match version {
            1 => Some(Self::embedded()),
            #[cfg(feature = "unstable_protocol_v2")]
            2 => Some(Self::embedded_v2()),
            _ => None,
        }
    }

    /// The protocol version of the schema.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The schema's text, as `acp schema` prints it.
    pub fn text(&self) -> &'static str {
        match self.version {
            #[cfg(feature = "unstable_protocol_v2")]
            2 => acp_validate::V2_SCHEMA_JSON,
            _ => SCHEMA_JSON,
        }
    }

    /// The `acp-validate` validator of the schema.
    pub fn validator(&self) -> &Validator {
        &self.validator
    }

    /// Validates `doc` against the definition `def`.
    ///
    /// # Errors
    ///
    /// The first violations, with their paths in `doc`.
    pub fn check_def(&self, def: &str, doc: &Value) -> Result<(), String> {
        self.validator.check_def(def, doc).map_err(|e| e.text)
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
        self.validator
            .check(sender, message, answered)
            .map_err(|mut violation| {
                if self.version == 1 {
                    diagnose(&mut violation, message);
                } else {
                    name_v1_only(&mut violation);
                }
                violation.reason
            })
    }
}

/// Adds to a violation of a later version's schema that its method is one of version 1 only
/// (`session/load`, `fs/read_text_file`, `terminal/create`, ...): the mistake of a peer that
/// speaks v1 on a connection that negotiated another version.
pub fn name_v1_only(violation: &mut Violation) {
    if violation.part != Part::Method {
        return;
    }
    if let Some(method) = violation.method.as_deref()
        && Validator::embedded().method(method).is_some()
    {
        violation
            .reason
            .push_str(" (a method of protocol version 1 only)");
    }
}

/// Adds to a rejected params or result what `acp-types`' decoder says of `message`: the path
/// of the offending field and the reason, often plainer than the schema's (a union's branches
/// all failing). Nothing when the decoder takes the message (it applies the schema's own
/// leniency) or cannot tell.
pub fn diagnose(violation: &mut Violation, message: &Value) {
    if !matches!(violation.part, Part::Params | Part::Result) {
        return;
    }
    let Ok(bytes) = serde_json::to_vec(message) else {
        return;
    };
    let answered = match violation.kind {
        Some(Kind::Response) => violation.method.as_deref(),
        _ => None,
    };
    let method_of = |_: &acp_types::RequestId| answered;
    let error = match violation.from {
        Role::Agent => acp_types::AgentMessage::decode(&bytes, method_of).err(),
        Role::Client => acp_types::ClientMessage::decode(&bytes, method_of).err(),
    };
    if let Some(error) = error {
        violation.reason.push_str(&format!(" (acp-types: {error})"));
    }
}
