//! Authentication: methods, `auth/login` and `auth/logout`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;
use super::shape::catch_all_requires;

tagged_union! {
    /// A way to authenticate, told apart by its `type`.
    pub enum AuthMethod {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        unknown_requires = ["methodId", "name"],
        schema_extend = schema_auth_method,
        variants {
            /// By running the agent in a terminal.
            Terminal(AuthMethodTerminal) = "terminal",
            /// Authentication the agent carries out itself once asked.
            Agent(AuthMethodAgent) = "agent",
        }
    }
}

/// Gives the catch-all branch of a [`AuthMethod`] the members every kind requires.
fn schema_auth_method(object: &mut serde_json::Map<String, serde_json::Value>) {
    catch_all_requires(
        object,
        serde_json::json!({"methodId": {"allOf": [{"$ref": "#/$defs/AuthMethodId"}]}, "name": {"type": "string"}}),
        &["methodId", "name"],
    );
}

wire_object! {
    /// Authentication performed by running the agent in a terminal for the user.
    #[new(method_id: impl Into<AuthMethodId>, name: impl Into<String>)]
    pub struct AuthMethodTerminal {
        /// The method's id, as `auth/login` names it.
        req method_id: AuthMethodId = "methodId";
        /// A human-readable name.
        req name: String = "name";
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extra arguments to run the agent with for authentication.
        opt args: Vec<String> = "args" [NULL_DEFAULT];
        /// Extra environment variables for authentication.
        opt env: Vec<EnvVariable> = "env" [NULL_DEFAULT];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Authentication the agent carries out itself once asked.
    #[new(method_id: impl Into<AuthMethodId>, name: impl Into<String>)]
    pub struct AuthMethodAgent {
        /// The method's id, as `auth/login` names it.
        req method_id: AuthMethodId = "methodId";
        /// A human-readable name.
        req name: String = "name";
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `auth/login`.
    #[optional_fields(new)]
    pub struct LoginAuthResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `auth/logout`.
    #[optional_fields(new)]
    pub struct LogoutAuthResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Signs the user in with one of the agent's advertised methods (`auth/login`).
    #[new(method_id: impl Into<AuthMethodId>)]
    pub struct LoginAuthRequest {
        /// The authentication method this concerns.
        req method_id: AuthMethodId = "methodId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Signs the user out (`auth/logout`).
    #[optional_fields(new)]
    pub struct LogoutAuthRequest {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
