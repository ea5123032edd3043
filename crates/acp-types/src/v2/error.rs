//! None
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;

wire_object! {
    /// A JSON-RPC error.
    #[new(code: impl Into<ErrorCode>, message: impl Into<String>)]
    pub struct Error {
        /// The error code.
        req code: ErrorCode = "code";
        /// A short description of the error.
        req message: String = "message";
        /// Additional information about the error.
        opt data: ErrorData = "data" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The `data` of the error -32022: the version asked for and the versions the agent
    /// supports.
    #[new(requested: impl Into<ProtocolVersion>, supported: impl Into<Vec<ProtocolVersion>>)]
    pub struct UnsupportedProtocolVersionErrorData {
        /// The version `initialize` asked for.
        req requested: ProtocolVersion = "requested";
        /// The versions the agent supports.
        req supported: Vec<ProtocolVersion> = "supported";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The `data` of an error about a session the agent does not know.
    #[new(session_id: impl Into<SessionId>)]
    pub struct SessionNotFoundErrorData {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
