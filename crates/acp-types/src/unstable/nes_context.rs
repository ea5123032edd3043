//! Next-edit suggestions (`unstable_nes`): the context the client sends with `nes/suggest`,
//! of the kinds the agent asked for in its capabilities.

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::string_enum;
use crate::*;

string_enum! {
    /// How serious a diagnostic is.
    pub enum NesDiagnosticSeverity {
        /// An error.
        Error = "error",
        /// A warning.
        Warning = "warning",
        /// Information.
        Information = "information",
        /// A hint.
        Hint = "hint",
    }
    Unknown, open_schema = false
}

wire_object! {
    /// Context for `nes/suggest`, of the kinds the agent asked for.
    #[optional_fields(new)]
    pub struct NesSuggestContext {
        /// Recently used files.
        opt recent_files: Vec<NesRecentFile> = "recentFiles" [NULLABLE];
        /// Code related to the cursor.
        opt related_snippets: Vec<NesRelatedSnippet> = "relatedSnippets" [NULLABLE];
        /// Recent edits.
        opt edit_history: Vec<NesEditHistoryEntry> = "editHistory" [NULLABLE];
        /// Recent user actions.
        opt user_actions: Vec<NesUserAction> = "userActions" [NULLABLE];
        /// The open files.
        opt open_files: Vec<NesOpenFile> = "openFiles" [NULLABLE];
        /// Diagnostics.
        opt diagnostics: Vec<NesDiagnostic> = "diagnostics" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A recently used file.
    pub struct NesRecentFile {
        /// The file's URI.
        req uri: String = "uri";
        /// The file's language.
        req language_id: String = "languageId";
        /// The file's text.
        req text: String = "text";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NesRecentFile {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        uri: impl Into<String>,
        language_id: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            uri: uri.into(),
            language_id: language_id.into(),
            text: text.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// Code related to the cursor, from one file.
    pub struct NesRelatedSnippet {
        /// The file's URI.
        req uri: String = "uri";
        /// The excerpts.
        req excerpts: Vec<NesExcerpt> = "excerpts";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NesRelatedSnippet {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(uri: impl Into<String>, excerpts: impl Into<Vec<NesExcerpt>>) -> Self {
        Self {
            uri: uri.into(),
            excerpts: excerpts.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// Some lines of a file.
    pub struct NesExcerpt {
        /// The first line.
        req start_line: u32 = "startLine";
        /// The last line.
        req end_line: u32 = "endLine";
        /// The lines' text.
        req text: String = "text";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NesExcerpt {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(start_line: u32, end_line: u32, text: impl Into<String>) -> Self {
        Self {
            start_line,
            end_line,
            text: text.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A recent edit.
    pub struct NesEditHistoryEntry {
        /// The edited file's URI.
        req uri: String = "uri";
        /// The edit, as a diff.
        req diff: String = "diff";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NesEditHistoryEntry {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(uri: impl Into<String>, diff: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            diff: diff.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A recent user action.
    pub struct NesUserAction {
        /// What the user did.
        req action: String = "action";
        /// The document's URI.
        req uri: String = "uri";
        /// Where.
        req position: Position = "position";
        /// When, in milliseconds since the Unix epoch.
        req timestamp_ms: u64 = "timestampMs";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NesUserAction {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        action: impl Into<String>,
        uri: impl Into<String>,
        position: impl Into<Position>,
        timestamp_ms: u64,
    ) -> Self {
        Self {
            action: action.into(),
            uri: uri.into(),
            position: position.into(),
            timestamp_ms,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A file open in the editor.
    pub struct NesOpenFile {
        /// The file's URI.
        req uri: String = "uri";
        /// The file's language.
        req language_id: String = "languageId";
        /// The part of the file on screen.
        opt visible_range: Range = "visibleRange" [DOE | NULLABLE];
        /// When the file last had focus, in milliseconds since the Unix epoch.
        opt last_focused_ms: u64 = "lastFocusedMs" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NesOpenFile {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(uri: impl Into<String>, language_id: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            language_id: language_id.into(),
            visible_range: None,
            last_focused_ms: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A diagnostic in a document.
    pub struct NesDiagnostic {
        /// The document's URI.
        req uri: String = "uri";
        /// Where.
        req range: Range = "range";
        /// How serious.
        req severity: NesDiagnosticSeverity = "severity";
        /// The message.
        req message: String = "message";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NesDiagnostic {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        uri: impl Into<String>,
        range: impl Into<Range>,
        severity: impl Into<NesDiagnosticSeverity>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            uri: uri.into(),
            range: range.into(),
            severity: severity.into(),
            message: message.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}
