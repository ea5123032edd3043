//! Text documents and positions (`unstable_nes`): the `document/*` notifications the client
//! sends to keep an NES session in sync with the editor, and the position types they share
//! with next-edit suggestions.

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::string_enum;
use crate::*;

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
    pub struct Position {
        /// The zero-based line.
        req line: u32 = "line";
        /// The zero-based offset in the line, in the negotiated [`PositionEncodingKind`].
        req character: u32 = "character";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl Position {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(line: u32, character: u32) -> Self {
        Self {
            line,
            character,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A range in a text document, from `start` up to (not including) `end`.
    pub struct Range {
        /// Where the range starts.
        req start: Position = "start";
        /// Where the range ends (exclusive).
        req end: Position = "end";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl Range {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(start: impl Into<Position>, end: impl Into<Position>) -> Self {
        Self {
            start: start.into(),
            end: end.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A document was opened in the editor (`document/didOpen`).
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

impl DidOpenDocumentNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        session_id: impl Into<SessionId>,
        uri: impl Into<String>,
        language_id: impl Into<String>,
        version: i64,
        text: impl Into<String>,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            uri: uri.into(),
            language_id: language_id.into(),
            version,
            text: text.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A document changed in the editor (`document/didChange`).
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

impl DidChangeDocumentNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        session_id: impl Into<SessionId>,
        uri: impl Into<String>,
        version: i64,
        content_changes: impl Into<Vec<TextDocumentContentChangeEvent>>,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            uri: uri.into(),
            version,
            content_changes: content_changes.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// One change to a document: `text` replaces `range`, or the whole document without one.
    pub struct TextDocumentContentChangeEvent {
        /// The range replaced; absent or `null` for the whole document.
        opt range: Range = "range" [NULLABLE];
        /// The new text.
        req text: String = "text";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl TextDocumentContentChangeEvent {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            range: None,
            text: text.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A document was closed in the editor (`document/didClose`).
    pub struct DidCloseDocumentNotification {
        /// The NES session this concerns.
        req session_id: SessionId = "sessionId";
        /// The document's URI.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl DidCloseDocumentNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, uri: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            uri: uri.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A document was saved in the editor (`document/didSave`).
    pub struct DidSaveDocumentNotification {
        /// The NES session this concerns.
        req session_id: SessionId = "sessionId";
        /// The document's URI.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl DidSaveDocumentNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, uri: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            uri: uri.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The user focused a document, or moved in it (`document/didFocus`).
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

impl DidFocusDocumentNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        session_id: impl Into<SessionId>,
        uri: impl Into<String>,
        version: i64,
        position: impl Into<Position>,
        visible_range: impl Into<Range>,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            uri: uri.into(),
            version,
            position: position.into(),
            visible_range: visible_range.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}
