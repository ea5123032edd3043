//! Next-edit suggestions (`unstable_nes`): the context the client sends with `nes/suggest`,
//! of the kinds the agent asked for in its capabilities.

use crate::prelude::*;

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
    #[new(uri: impl Into<String>, language_id: impl Into<String>, text: impl Into<String>)]
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

wire_object! {
    /// Code related to the cursor, from one file.
    #[new(uri: impl Into<String>, excerpts: impl Into<Vec<NesExcerpt>>)]
    pub struct NesRelatedSnippet {
        /// The file's URI.
        req uri: String = "uri";
        /// The excerpts.
        req excerpts: Vec<NesExcerpt> = "excerpts";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Some lines of a file.
    #[new(start_line: u32, end_line: u32, text: impl Into<String>)]
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

wire_object! {
    /// A recent edit.
    #[new(uri: impl Into<String>, diff: impl Into<String>)]
    pub struct NesEditHistoryEntry {
        /// The edited file's URI.
        req uri: String = "uri";
        /// The edit, as a diff.
        req diff: String = "diff";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A recent user action.
    #[new(
        action: impl Into<String>,
        uri: impl Into<String>,
        position: impl Into<Position>,
        timestamp_ms: u64,
    )]
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

wire_object! {
    /// A file open in the editor.
    #[new(uri: impl Into<String>, language_id: impl Into<String>)]
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

wire_object! {
    /// A diagnostic in a document.
    #[new(
        uri: impl Into<String>,
        range: impl Into<Range>,
        severity: impl Into<NesDiagnosticSeverity>,
        message: impl Into<String>,
    )]
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
