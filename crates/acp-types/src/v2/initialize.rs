//! Initialization: version negotiation, identities and capabilities.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;

wire_object! {
    /// The agent's answer to `initialize`: the negotiated version, its identity and
    /// capabilities.
    #[new(protocol_version: impl Into<ProtocolVersion>, info: impl Into<Implementation>)]
    pub struct InitializeResponse {
        /// The protocol version.
        req protocol_version: ProtocolVersion = "protocolVersion";
        /// The agent's name and version.
        req info: Implementation = "info";
        /// What the agent supports.
        opt capabilities: AgentCapabilities = "capabilities" [DOE];
        /// The ways the client can authenticate the user.
        opt auth_methods: Vec<AuthMethod> = "authMethods" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The first request of a connection: the client's version, identity and capabilities
    /// (`initialize`).
    #[new(protocol_version: impl Into<ProtocolVersion>, info: impl Into<Implementation>)]
    pub struct InitializeRequest {
        /// The protocol version.
        req protocol_version: ProtocolVersion = "protocolVersion";
        /// The client's name and version.
        req info: Implementation = "info";
        /// What the client supports.
        opt capabilities: ClientCapabilities = "capabilities" [DOE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
