//! Next-edit suggestions (`unstable_nes`): an NES session, separate from chat sessions, in
//! which the client asks the agent where and how the user is likely to edit next.
//!
//! The client starts one with `nes/start`, keeps it in sync with `document/*` notifications
//! (as the agent's [`NesEventCapabilities`] ask), requests suggestions with `nes/suggest`,
//! reports what the user did with them (`nes/accept`, `nes/reject`), and ends it with
//! `nes/close`.

use crate::prelude::*;

id_type! {
    /// Identifies one suggestion of an NES session.
    pub struct NesSuggestionId;
}

string_enum! {
    /// Why the client asks for suggestions.
    pub enum NesTriggerKind {
        /// The user typed or moved; the editor asks on its own.
        Automatic = "automatic",
        /// A diagnostic appeared.
        Diagnostic = "diagnostic",
        /// The user asked explicitly.
        Manual = "manual",
    }
    Unknown, open_schema = false
}

string_enum! {
    /// Why the user did not take a suggestion.
    pub enum NesRejectReason {
        /// The user dismissed it.
        Rejected = "rejected",
        /// The user went on without looking at it.
        Ignored = "ignored",
        /// A newer suggestion replaced it.
        Replaced = "replaced",
        /// The request was cancelled before it was shown.
        Cancelled = "cancelled",
    }
    Unknown, open_schema = false
}

wire_object! {
    /// Starts an NES session (`nes/start`).
    #[optional_fields(new)]
    pub struct StartNesRequest {
        /// The workspace root URI.
        opt workspace_uri: String = "workspaceUri" [DOE | NULLABLE];
        /// The workspace folders.
        opt workspace_folders: Vec<WorkspaceFolder> = "workspaceFolders" [NULLABLE];
        /// The repository the workspace belongs to.
        opt repository: NesRepository = "repository" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `nes/start`: the new NES session.
    #[new(session_id: impl Into<SessionId>)]
    pub struct StartNesResponse {
        /// The NES session's id, used by every later NES and `document/*` message.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A folder of the workspace.
    #[new(uri: impl Into<String>, name: impl Into<String>)]
    pub struct WorkspaceFolder {
        /// The folder's URI.
        req uri: String = "uri";
        /// The folder's name.
        req name: String = "name";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The source repository of a workspace.
    #[new(name: impl Into<String>, owner: impl Into<String>, remote_url: impl Into<String>)]
    pub struct NesRepository {
        /// The repository's name.
        req name: String = "name";
        /// The repository's owner.
        req owner: String = "owner";
        /// The URL of the repository's remote.
        req remote_url: String = "remoteUrl";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks for next-edit suggestions at a position (`nes/suggest`).
    #[new(
        session_id: impl Into<SessionId>,
        uri: impl Into<String>,
        version: i64,
        position: impl Into<Position>,
        trigger_kind: impl Into<NesTriggerKind>,
    )]
    pub struct SuggestNesRequest {
        /// The NES session.
        req session_id: SessionId = "sessionId";
        /// The document's URI.
        req uri: String = "uri";
        /// The document's version.
        req version: i64 = "version";
        /// The cursor.
        req position: Position = "position";
        /// The selection, if any.
        opt selection: Range = "selection" [NULLABLE];
        /// Why the client asks.
        req trigger_kind: NesTriggerKind = "triggerKind";
        /// The context the agent asked for in its capabilities.
        opt context: NesSuggestContext = "context" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `nes/suggest`.
    #[new(suggestions: impl Into<Vec<NesSuggestion>>)]
    pub struct SuggestNesResponse {
        /// The suggestions, best first; empty when there is none.
        req suggestions: Vec<NesSuggestion> = "suggestions";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

tagged_union! {
    /// A next-edit suggestion.
    pub enum NesSuggestion {
        tag = "kind",
        combinator = "oneOf",
        discriminator = true,
        open = false,
        unknown = Unknown,
        variants {
            /// Edits to a document.
            Edit(NesEditSuggestion) = "edit",
            /// A place to move the cursor to.
            Jump(NesJumpSuggestion) = "jump",
            /// A symbol to rename.
            Rename(NesRenameSuggestion) = "rename",
            /// A search and replace across the workspace.
            SearchAndReplace(NesSearchAndReplaceSuggestion) = "searchAndReplace",
        }
    }
}

wire_object! {
    /// A suggestion to edit a document.
    #[new(
        id: impl Into<NesSuggestionId>,
        uri: impl Into<String>,
        edits: impl Into<Vec<NesTextEdit>>,
    )]
    pub struct NesEditSuggestion {
        /// The suggestion's id.
        req id: NesSuggestionId = "id";
        /// The document's URI.
        req uri: String = "uri";
        /// The edits, applied together.
        req edits: Vec<NesTextEdit> = "edits";
        /// Where to put the cursor after the edits.
        opt cursor_position: Position = "cursorPosition" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A suggestion to move the cursor.
    #[new(id: impl Into<NesSuggestionId>, uri: impl Into<String>, position: impl Into<Position>)]
    pub struct NesJumpSuggestion {
        /// The suggestion's id.
        req id: NesSuggestionId = "id";
        /// The document's URI.
        req uri: String = "uri";
        /// Where to move the cursor.
        req position: Position = "position";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A suggestion to rename the symbol at a position.
    #[new(
        id: impl Into<NesSuggestionId>,
        uri: impl Into<String>,
        position: impl Into<Position>,
        new_name: impl Into<String>,
    )]
    pub struct NesRenameSuggestion {
        /// The suggestion's id.
        req id: NesSuggestionId = "id";
        /// The document's URI.
        req uri: String = "uri";
        /// The symbol's position.
        req position: Position = "position";
        /// The new name.
        req new_name: String = "newName";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A suggestion to search and replace.
    #[new(
        id: impl Into<NesSuggestionId>,
        uri: impl Into<String>,
        search: impl Into<String>,
        replace: impl Into<String>,
    )]
    pub struct NesSearchAndReplaceSuggestion {
        /// The suggestion's id.
        req id: NesSuggestionId = "id";
        /// The document's URI.
        req uri: String = "uri";
        /// What to search for.
        req search: String = "search";
        /// What to replace it with.
        req replace: String = "replace";
        /// Whether `search` is a regular expression.
        opt is_regex: bool = "isRegex" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// One edit: `newText` replaces `range`.
    #[new(range: impl Into<Range>, new_text: impl Into<String>)]
    pub struct NesTextEdit {
        /// The range replaced.
        req range: Range = "range";
        /// The new text.
        req new_text: String = "newText";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Ends an NES session (`nes/close`).
    #[new(session_id: impl Into<SessionId>)]
    pub struct CloseNesRequest {
        /// The NES session to end.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `nes/close`.
    #[optional_fields(new)]
    pub struct CloseNesResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The user accepted a suggestion (`nes/accept`).
    #[new(session_id: impl Into<SessionId>, id: impl Into<NesSuggestionId>)]
    pub struct AcceptNesNotification {
        /// The NES session.
        req session_id: SessionId = "sessionId";
        /// The suggestion.
        req id: NesSuggestionId = "id";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The user did not take a suggestion (`nes/reject`).
    #[new(session_id: impl Into<SessionId>, id: impl Into<NesSuggestionId>)]
    pub struct RejectNesNotification {
        /// The NES session.
        req session_id: SessionId = "sessionId";
        /// The suggestion.
        req id: NesSuggestionId = "id";
        /// Why.
        opt reason: NesRejectReason = "reason" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
