//! Conveniences of the v2 types: text content from strings, the bytes of terminal output.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::*;

impl From<&str> for ContentBlock {
    /// Plain text content.
    fn from(text: &str) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }
}

impl From<String> for ContentBlock {
    /// Plain text content.
    fn from(text: String) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }
}

impl TerminalOutput {
    /// A snapshot of the given bytes (base64-encoded for the wire).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Self::new(STANDARD.encode(bytes))
    }

    /// The snapshot's bytes. They need not be UTF-8: a terminal's output is bytes.
    ///
    /// # Errors
    ///
    /// When `data` is not valid base64.
    pub fn bytes(&self) -> Result<Vec<u8>, base64::DecodeError> {
        STANDARD.decode(&self.data)
    }
}

impl TerminalOutputChunk {
    /// A chunk of the given bytes for a terminal (base64-encoded on their own for the wire).
    pub fn from_bytes(terminal_id: impl Into<TerminalId>, bytes: &[u8]) -> Self {
        Self::new(terminal_id, STANDARD.encode(bytes))
    }

    /// The chunk's bytes, to append to the terminal's after decoding each chunk on its own (a
    /// chunk may end inside a UTF-8 code point or an escape sequence).
    ///
    /// # Errors
    ///
    /// When `data` is not valid base64.
    pub fn bytes(&self) -> Result<Vec<u8>, base64::DecodeError> {
        STANDARD.decode(&self.data)
    }
}
