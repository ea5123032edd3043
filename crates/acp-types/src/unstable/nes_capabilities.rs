//! Next-edit suggestions (`unstable_nes`): the capabilities each side advertises, the
//! agent's (`nes` in its capabilities: the events and context it wants) and the client's (the
//! kinds of suggestion it can show).

use crate::prelude::*;

string_enum! {
    /// How the client sends document changes in `document/didChange`.
    pub enum TextDocumentSyncKind {
        /// The whole text with every change.
        Full = "full",
        /// Only the changed ranges.
        Incremental = "incremental",
    }
    Unknown, open_schema = false
}

wire_object! {
    /// What the agent supports for next-edit suggestions (advertised in `nes`).
    #[optional_fields(new)]
    pub struct NesCapabilities {
        /// The `document/*` events the agent wants.
        opt events: NesEventCapabilities = "events" [DOE | NULLABLE];
        /// The context the agent wants with `nes/suggest`.
        opt context: NesContextCapabilities = "context" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The events an agent wants during an NES session.
    #[optional_fields(new)]
    pub struct NesEventCapabilities {
        /// The `document/*` notifications the agent wants.
        opt document: NesDocumentEventCapabilities = "document" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The `document/*` notifications an agent wants; absent ones are not sent.
    #[optional_fields(new)]
    pub struct NesDocumentEventCapabilities {
        /// `document/didOpen`.
        opt did_open: NesDocumentDidOpenCapabilities = "didOpen" [DOE | NULLABLE];
        /// `document/didChange`, and how changes are sent.
        opt did_change: NesDocumentDidChangeCapabilities = "didChange" [DOE | NULLABLE];
        /// `document/didClose`.
        opt did_close: NesDocumentDidCloseCapabilities = "didClose" [DOE | NULLABLE];
        /// `document/didSave`.
        opt did_save: NesDocumentDidSaveCapabilities = "didSave" [DOE | NULLABLE];
        /// `document/didFocus`.
        opt did_focus: NesDocumentDidFocusCapabilities = "didFocus" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants `document/didOpen`.
    #[optional_fields(new)]
    pub struct NesDocumentDidOpenCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants `document/didChange`.
    #[new(sync_kind: impl Into<TextDocumentSyncKind>)]
    pub struct NesDocumentDidChangeCapabilities {
        /// How the client sends changes.
        req sync_kind: TextDocumentSyncKind = "syncKind";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants `document/didClose`.
    #[optional_fields(new)]
    pub struct NesDocumentDidCloseCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants `document/didSave`.
    #[optional_fields(new)]
    pub struct NesDocumentDidSaveCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants `document/didFocus`.
    #[optional_fields(new)]
    pub struct NesDocumentDidFocusCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The context an agent wants with `nes/suggest`; absent kinds are not sent.
    #[optional_fields(new)]
    pub struct NesContextCapabilities {
        /// Recently used files.
        opt recent_files: NesRecentFilesCapabilities = "recentFiles" [DOE | NULLABLE];
        /// Code related to the cursor.
        opt related_snippets: NesRelatedSnippetsCapabilities = "relatedSnippets" [DOE | NULLABLE];
        /// Recent edits.
        opt edit_history: NesEditHistoryCapabilities = "editHistory" [DOE | NULLABLE];
        /// Recent user actions.
        opt user_actions: NesUserActionsCapabilities = "userActions" [DOE | NULLABLE];
        /// The open files.
        opt open_files: NesOpenFilesCapabilities = "openFiles" [DOE | NULLABLE];
        /// Diagnostics.
        opt diagnostics: NesDiagnosticsCapabilities = "diagnostics" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants recently used files as context.
    #[optional_fields(new)]
    pub struct NesRecentFilesCapabilities {
        /// The most the client should send.
        opt max_count: u32 = "maxCount" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants recent edits as context.
    #[optional_fields(new)]
    pub struct NesEditHistoryCapabilities {
        /// The most the client should send.
        opt max_count: u32 = "maxCount" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants recent user actions as context.
    #[optional_fields(new)]
    pub struct NesUserActionsCapabilities {
        /// The most the client should send.
        opt max_count: u32 = "maxCount" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants code related to the cursor as context.
    #[optional_fields(new)]
    pub struct NesRelatedSnippetsCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants the open files as context.
    #[optional_fields(new)]
    pub struct NesOpenFilesCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent wants diagnostics as context.
    #[optional_fields(new)]
    pub struct NesDiagnosticsCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The kinds of suggestion the client can show beyond edits (advertised in `nes`).
    #[optional_fields(new)]
    pub struct ClientNesCapabilities {
        /// Jump suggestions.
        opt jump: NesJumpCapabilities = "jump" [DOE | NULLABLE];
        /// Rename suggestions.
        opt rename: NesRenameCapabilities = "rename" [DOE | NULLABLE];
        /// Search-and-replace suggestions.
        opt search_and_replace: NesSearchAndReplaceCapabilities = "searchAndReplace" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client can show jump suggestions.
    #[optional_fields(new)]
    pub struct NesJumpCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client can show rename suggestions.
    #[optional_fields(new)]
    pub struct NesRenameCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client can show search-and-replace suggestions.
    #[optional_fields(new)]
    pub struct NesSearchAndReplaceCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
