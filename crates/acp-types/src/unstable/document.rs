//! Text documents and positions (`unstable_nes`): the `document/*` notifications the client
//! sends to keep an NES session in sync with the editor, and the position types they share
//! with next-edit suggestions.

use crate::prelude::*;

string_enum! {
    /// How the `character` of a [`Position`] counts.
    pub enum PositionEncodingKind {
        /// UTF-16 code units (the default).
        Utf16 = "utf-16",
        /// Unicode code points.
        Utf32 = "utf-32",
        /// UTF-8 bytes.
        Utf8 = "utf-8",
    }
    Unknown, open_schema = false
}

wire_object! {
    /// A position in a text document: a zero-based line and character offset.
    #[new(line: u32, character: u32)]
    pub struct Position {
        /// The zero-based line.
        req line: u32 = "line";
        /// The zero-based offset in the line, in the negotiated [`PositionEncodingKind`].
        req character: u32 = "character";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A range in a text document, from `start` up to (not including) `end`.
    #[new(start: impl Into<Position>, end: impl Into<Position>)]
    pub struct Range {
        /// Where the range starts.
        req start: Position = "start";
        /// Where the range ends (exclusive).
        req end: Position = "end";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A document was opened in the editor (`document/didOpen`).
    #[new(
        session_id: impl Into<SessionId>,
        uri: impl Into<String>,
        language_id: impl Into<String>,
        version: i64,
        text: impl Into<String>,
    )]
    pub struct DidOpenDocumentNotification {
        /// The NES session this concerns.
        req session_id: SessionId = "sessionId";
        /// The document's URI.
        req uri: String = "uri";
        /// The document's language.
        req language_id: String = "languageId";
        /// The document's version, increasing with every change.
        req version: i64 = "version";
        /// The document's whole text.
        req text: String = "text";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A document changed in the editor (`document/didChange`).
    #[new(
        session_id: impl Into<SessionId>,
        uri: impl Into<String>,
        version: i64,
        content_changes: impl Into<Vec<TextDocumentContentChangeEvent>>,
    )]
    pub struct DidChangeDocumentNotification {
        /// The NES session this concerns.
        req session_id: SessionId = "sessionId";
        /// The document's URI.
        req uri: String = "uri";
        /// The document's version after the changes.
        req version: i64 = "version";
        /// The changes, in order: ranges for incremental sync, whole texts for full sync.
        req content_changes: Vec<TextDocumentContentChangeEvent> = "contentChanges" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// One change to a document: `text` replaces `range`, or the whole document without one.
    #[new(text: impl Into<String>)]
    pub struct TextDocumentContentChangeEvent {
        /// The range replaced; absent or `null` for the whole document.
        opt range: Range = "range" [NULLABLE];
        /// The new text.
        req text: String = "text";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A document was closed in the editor (`document/didClose`).
    #[new(session_id: impl Into<SessionId>, uri: impl Into<String>)]
    pub struct DidCloseDocumentNotification {
        /// The NES session this concerns.
        req session_id: SessionId = "sessionId";
        /// The document's URI.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A document was saved in the editor (`document/didSave`).
    #[new(session_id: impl Into<SessionId>, uri: impl Into<String>)]
    pub struct DidSaveDocumentNotification {
        /// The NES session this concerns.
        req session_id: SessionId = "sessionId";
        /// The document's URI.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The user focused a document, or moved in it (`document/didFocus`).
    #[new(
        session_id: impl Into<SessionId>,
        uri: impl Into<String>,
        version: i64,
        position: impl Into<Position>,
        visible_range: impl Into<Range>,
    )]
    pub struct DidFocusDocumentNotification {
        /// The NES session this concerns.
        req session_id: SessionId = "sessionId";
        /// The document's URI.
        req uri: String = "uri";
        /// The document's version.
        req version: i64 = "version";
        /// The cursor.
        req position: Position = "position";
        /// The part of the document on screen.
        req visible_range: Range = "visibleRange";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
