//! Authentication: methods, `auth/login` and `auth/logout`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;

tagged_union! {
    /// A way to authenticate, told apart by its `type`.
    pub enum AuthMethod {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        unknown_requires = ["methodId", "name"],
        variants {
            /// By running the agent in a terminal.
            Terminal(AuthMethodTerminal) = "terminal",
            /// Authentication the agent carries out itself once asked.
            Agent(AuthMethodAgent) = "agent",
        }
    }
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
        opt args: Vec<String> = "args" [NULLABLE];
        /// Extra environment variables for authentication.
        opt env: Vec<EnvVariable> = "env" [NULLABLE];
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
