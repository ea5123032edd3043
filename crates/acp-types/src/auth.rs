//! Authentication and logout.

use crate::prelude::*;

tagged_union! {
    /// A way the client can authenticate the user with the agent.
    pub enum AuthMethod {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = false,
        default = Agent(AuthMethodAgent) = "agent",
        unknown = Unknown,
        variants {
            /// By running the agent in a terminal.
            Terminal(AuthMethodTerminal) = "terminal",
        }
    }
}

id_type! {
    /// Identifies an authentication method.
    pub struct AuthMethodId;
}

wire_object! {
    /// Authentication performed by running the agent in a terminal for the user.
    #[new(id: impl Into<AuthMethodId>, name: impl Into<String>)]
    pub struct AuthMethodTerminal {
        /// The identifier of the method.
        req id: AuthMethodId = "id";
        /// A human-readable name.
        req name: String = "name";
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extra arguments to run the agent with for authentication.
        opt args: Vec<String> = "args" [NULL_DEFAULT];
        /// Extra environment variables for authentication.
        opt env: BTreeMap<String, String> = "env" [NULL_DEFAULT];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Authentication the agent carries out itself once asked.
    #[new(id: impl Into<AuthMethodId>, name: impl Into<String>)]
    pub struct AuthMethodAgent {
        /// The identifier of the method.
        req id: AuthMethodId = "id";
        /// A human-readable name.
        req name: String = "name";
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent to authenticate with one of the methods it offered (`authenticate`).
    #[new(method_id: impl Into<AuthMethodId>)]
    pub struct AuthenticateRequest {
        /// The authentication method to use.
        req method_id: AuthMethodId = "methodId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `authenticate`.
    #[optional_fields(new)]
    pub struct AuthenticateResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent to sign the user out (`logout`).
    #[optional_fields(new)]
    pub struct LogoutRequest {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `logout`.
    #[optional_fields(new)]
    pub struct LogoutResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
