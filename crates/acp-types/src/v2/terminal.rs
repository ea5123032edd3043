//! Agent-owned display terminals: updates, output snapshots and chunks.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::check::in_range;
use super::prelude::*;
use super::shape::keywords;

wire_object! {
    /// The agent's answer to `terminal/cancel`.
    #[optional_fields(new)]
    pub struct CancelTerminalResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An authoritative snapshot of a display terminal's output bytes (base64): it replaces
    /// every byte stored before.
    #[schema_extend(schema_terminal_output)]
    #[new(data: impl Into<String>)]
    pub struct TerminalOutput {
        /// The bytes, base64-encoded.
        req data: String = "data";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`TerminalOutput`] what the types of its fields do not say.
fn schema_terminal_output(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"data": {"contentEncoding": "base64"}}),
    );
}

wire_object! {
    /// How a terminal's command ended.
    #[optional_fields(new)]
    pub struct TerminalExitStatus {
        /// The exit code, if the process exited normally.
        opt exit_code: i64 = "exitCode" [DOE | NULLABLE];
        /// The signal that ended the process, if any.
        opt signal: String = "signal" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The size of a terminal, in columns and rows.
    #[schema_extend(schema_terminal_size)]
    #[check(check_terminal_size)]
    #[new(cols: u16, rows: u16)]
    pub struct TerminalSize {
        /// The number of columns.
        req cols: u16 = "cols";
        /// The number of rows.
        req rows: u16 = "rows";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`TerminalSize`] what the types of its fields do not say.
fn schema_terminal_size(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"cols": {"minimum": 1}, "rows": {"minimum": 1}}),
    );
}

/// Checks the bounds the schema sets on the members of a [`TerminalSize`].
fn check_terminal_size(value: &TerminalSize) -> Result<(), String> {
    in_range("cols", value.cols, Some(1), Some(65535))?;
    in_range("rows", value.rows, Some(1), Some(65535))?;
    Ok(())
}

wire_object! {
    /// The client-initiated controls a display terminal supports.
    #[optional_fields(new)]
    pub struct TerminalCapabilities {
        /// Present: the client may cancel the terminal's command (`terminal/cancel`).
        opt cancel: TerminalCancelCapabilities = "cancel" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A display terminal whose command the client may cancel (`terminal/cancel`).
    #[optional_fields(new)]
    pub struct TerminalCancelCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An upsert of an agent-owned display terminal, by its `terminalId` (see [`Patch`]).
    #[new(terminal_id: impl Into<TerminalId>)]
    pub struct TerminalUpdate {
        /// The display terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// The command the terminal runs.
        patch command: String = "command" [DOE];
        /// The absolute working directory of the command.
        patch cwd: AbsolutePath = "cwd" [DOE];
        /// A snapshot replacing every output byte stored so far (chunks then append to it).
        patch output: TerminalOutput = "output" [DOE];
        /// How the command ended; a value marks the terminal as exited.
        patch exit_status: TerminalExitStatus = "exitStatus" [DOE];
        /// The terminal size the command runs with.
        patch size: TerminalSize = "size" [DOE];
        /// The client-initiated controls the terminal supports now, replacing the previous
        /// ones.
        patch capabilities: TerminalCapabilities = "capabilities" [DOE];
        /// Extension data: a value patches the stored metadata key by key, `Clear` removes it.
        patch meta: Meta = "_meta" [DOE];
    }
}

wire_object! {
    /// Output bytes (base64, decoded on their own) appended to a display terminal; a chunk may
    /// split UTF-8 code points and escape sequences.
    #[schema_extend(schema_terminal_output_chunk)]
    #[new(terminal_id: impl Into<TerminalId>, data: impl Into<String>)]
    pub struct TerminalOutputChunk {
        /// The terminal the bytes belong to.
        req terminal_id: TerminalId = "terminalId";
        /// The bytes to append, base64-encoded on their own.
        req data: String = "data";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`TerminalOutputChunk`] what the types of its fields do not say.
fn schema_terminal_output_chunk(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"data": {"contentEncoding": "base64"}}),
    );
}

wire_object! {
    /// Asks the agent to cancel the command of a display terminal that advertises cancellation
    /// (`terminal/cancel`).
    #[new(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)]
    pub struct CancelTerminalRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The display terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
