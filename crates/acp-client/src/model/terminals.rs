//! Agent-owned display terminals of the session model (v2): snapshots that replace, chunks
//! that append, exit state.

use acp_types::v2::{
    AbsolutePath, Patch, TerminalCapabilities, TerminalExitStatus, TerminalSize, TerminalUpdate,
};
use acp_types::{Meta, TerminalId};

use super::{ModelError, patch_meta};

/// The most output bytes kept per display terminal: past it the oldest bytes are dropped (and
/// counted in [`DisplayTerminal::dropped`]), so that an agent streaming without end cannot
/// exhaust the editor's memory.
pub const MAX_TERMINAL_OUTPUT: usize = 8 * 1024 * 1024;

/// One display terminal: output the agent shows, not a process the client controls.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DisplayTerminal {
    /// Its id.
    pub id: TerminalId,
    /// The command it runs.
    pub command: Option<String>,
    /// The command's working directory.
    pub cwd: Option<AbsolutePath>,
    /// How the command ended; `Some` once it exited.
    pub exit_status: Option<TerminalExitStatus>,
    /// The terminal size the command runs with.
    pub size: Option<TerminalSize>,
    /// The controls the client may use on it (`terminal/cancel`).
    pub capabilities: Option<TerminalCapabilities>,
    /// Extension data.
    pub meta: Option<Meta>,
    output: Vec<u8>,
    dropped: u64,
}

impl DisplayTerminal {
    pub(crate) fn new(id: TerminalId) -> Self {
        Self {
            id,
            command: None,
            cwd: None,
            exit_status: None,
            size: None,
            capabilities: None,
            meta: None,
            output: Vec::new(),
            dropped: 0,
        }
    }

    /// The output bytes kept: the last snapshot and the chunks after it, decoded. They may
    /// hold escape sequences and invalid UTF-8: render them in a terminal emulator or
    /// sanitized.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// The output as text, invalid UTF-8 replaced by U+FFFD (escape sequences are left in).
    pub fn output_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.output)
    }

    /// How many of the oldest output bytes were dropped to stay within
    /// [`MAX_TERMINAL_OUTPUT`] since the last snapshot.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// True once the command exited (a concrete `exitStatus` arrived).
    pub fn exited(&self) -> bool {
        self.exit_status.is_some()
    }

    /// Applies an upsert; a snapshot that is not base64 fails before anything changes.
    pub(crate) fn apply(&mut self, update: TerminalUpdate) -> Result<(), ModelError> {
        let output = match &update.output {
            Patch::Set(snapshot) => Patch::Set(decoded(&self.id, snapshot.bytes())?),
            Patch::Clear => Patch::Clear,
            Patch::Unchanged => Patch::Unchanged,
        };
        update.command.apply_to(&mut self.command);
        update.cwd.apply_to(&mut self.cwd);
        update.exit_status.apply_to(&mut self.exit_status);
        update.size.apply_to(&mut self.size);
        update.capabilities.apply_to(&mut self.capabilities);
        patch_meta(&mut self.meta, update.meta);
        match output {
            Patch::Unchanged => {}
            Patch::Clear => {
                self.output.clear();
                self.dropped = 0;
            }
            Patch::Set(bytes) => {
                // A snapshot replaces every byte kept so far.
                self.output.clear();
                self.dropped = 0;
                self.append(&bytes);
            }
        }
        Ok(())
    }

    /// Appends decoded chunk bytes, keeping at most [`MAX_TERMINAL_OUTPUT`].
    pub(crate) fn append(&mut self, bytes: &[u8]) {
        self.output.extend_from_slice(bytes);
        if self.output.len() > MAX_TERMINAL_OUTPUT {
            let excess = self.output.len() - MAX_TERMINAL_OUTPUT;
            self.output.drain(..excess);
            self.dropped += excess as u64;
        }
    }
}

/// The bytes of one base64 field of terminal `id`, decoded on its own (never concatenated
/// with others), or why not.
pub(crate) fn decoded<E: std::fmt::Display>(
    id: &TerminalId,
    bytes: Result<Vec<u8>, E>,
) -> Result<Vec<u8>, ModelError> {
    bytes.map_err(|e| ModelError::InvalidBase64 {
        terminal: id.to_string(),
        detail: e.to_string(),
    })
}
