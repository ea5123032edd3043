//! Terminal methods the client serves to the agent.

use crate::prelude::*;

id_type! {
    /// Identifies a terminal created by the client.
    pub struct TerminalId;
}

wire_object! {
    /// Asks the client to run a command in a new terminal (`terminal/create`).
    #[new(session_id: impl Into<SessionId>, command: impl Into<String>)]
    pub struct CreateTerminalRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The command to run.
        req command: String = "command";
        /// The command's arguments.
        opt args: Vec<String> = "args" [NULL_DEFAULT];
        /// Environment variables for the process.
        opt env: Vec<EnvVariable> = "env" [NULL_DEFAULT];
        /// The working directory (an absolute path).
        opt cwd: String as path = "cwd" [NULLABLE];
        /// How many bytes of output the client keeps; older output is dropped first.
        opt output_byte_limit: u64 = "outputByteLimit" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client's answer to `terminal/create`: the new terminal.
    #[new(terminal_id: impl Into<TerminalId>)]
    pub struct CreateTerminalResponse {
        /// The terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An environment variable to set for a process.
    #[new(name: impl Into<String>, value: impl Into<String>)]
    pub struct EnvVariable {
        /// The variable's name.
        req name: String = "name";
        /// The variable's value.
        req value: String = "value";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the client for the output a terminal produced so far (`terminal/output`).
    #[new(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)]
    pub struct TerminalOutputRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client's answer to `terminal/output`.
    #[new(output: impl Into<String>, truncated: impl Into<bool>)]
    pub struct TerminalOutputResponse {
        /// The output captured so far.
        req output: String = "output";
        /// Whether older output was dropped to respect the byte limit.
        req truncated: bool = "truncated";
        /// How the command ended, once it has.
        opt exit_status: TerminalExitStatus = "exitStatus" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// How a terminal's command ended.
    #[optional_fields(new)]
    pub struct TerminalExitStatus {
        /// The exit code, if the process exited normally.
        opt exit_code: u32 = "exitCode" [DOE | NULLABLE];
        /// The signal that ended the process, if any.
        opt signal: String = "signal" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Tells the client a terminal is no longer needed, killing it if still running (`terminal/release`).
    #[new(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)]
    pub struct ReleaseTerminalRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client's answer to `terminal/release`.
    #[optional_fields(new)]
    pub struct ReleaseTerminalResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the client to answer once a terminal's command has exited (`terminal/wait_for_exit`).
    #[new(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)]
    pub struct WaitForTerminalExitRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client's answer to `terminal/wait_for_exit`: how the command ended.
    #[optional_fields(new)]
    pub struct WaitForTerminalExitResponse {
        /// The exit code, if the process exited normally.
        opt exit_code: u32 = "exitCode" [DOE | NULLABLE];
        /// The signal that ended the process, if any.
        opt signal: String = "signal" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the client to kill a terminal's command without releasing the terminal (`terminal/kill`).
    #[new(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)]
    pub struct KillTerminalRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client's answer to `terminal/kill`.
    #[optional_fields(new)]
    pub struct KillTerminalResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
