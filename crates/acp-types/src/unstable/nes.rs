//! Next-edit suggestions (`unstable_nes`): an NES session, separate from chat sessions, in
//! which the client asks the agent where and how the user is likely to edit next.
//!
//! The client starts one with `nes/start`, keeps it in sync with `document/*` notifications
//! (as the agent's [`NesEventCapabilities`] ask), requests suggestions with `nes/suggest`,
//! reports what the user did with them (`nes/accept`, `nes/reject`), and ends it with
//! `nes/close`.

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::{id_type, string_enum, tagged_union};
use crate::*;

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
    pub struct StartNesResponse {
        /// The NES session's id, used by every later NES and `document/*` message.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl StartNesResponse {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A folder of the workspace.
    pub struct WorkspaceFolder {
        /// The folder's URI.
        req uri: String = "uri";
        /// The folder's name.
        req name: String = "name";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl WorkspaceFolder {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The source repository of a workspace.
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

impl NesRepository {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        name: impl Into<String>,
        owner: impl Into<String>,
        remote_url: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            owner: owner.into(),
            remote_url: remote_url.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// Asks for next-edit suggestions at a position (`nes/suggest`).
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

impl SuggestNesRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        session_id: impl Into<SessionId>,
        uri: impl Into<String>,
        version: i64,
        position: impl Into<Position>,
        trigger_kind: impl Into<NesTriggerKind>,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            uri: uri.into(),
            version,
            position: position.into(),
            selection: None,
            trigger_kind: trigger_kind.into(),
            context: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The agent's answer to `nes/suggest`.
    pub struct SuggestNesResponse {
        /// The suggestions, best first; empty when there is none.
        req suggestions: Vec<NesSuggestion> = "suggestions";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl SuggestNesResponse {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(suggestions: impl Into<Vec<NesSuggestion>>) -> Self {
        Self {
            suggestions: suggestions.into(),
            meta: None,
            extras: Extras::default(),
        }
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

impl NesEditSuggestion {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        id: impl Into<NesSuggestionId>,
        uri: impl Into<String>,
        edits: impl Into<Vec<NesTextEdit>>,
    ) -> Self {
        Self {
            id: id.into(),
            uri: uri.into(),
            edits: edits.into(),
            cursor_position: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A suggestion to move the cursor.
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

impl NesJumpSuggestion {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        id: impl Into<NesSuggestionId>,
        uri: impl Into<String>,
        position: impl Into<Position>,
    ) -> Self {
        Self {
            id: id.into(),
            uri: uri.into(),
            position: position.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A suggestion to rename the symbol at a position.
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

impl NesRenameSuggestion {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        id: impl Into<NesSuggestionId>,
        uri: impl Into<String>,
        position: impl Into<Position>,
        new_name: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            uri: uri.into(),
            position: position.into(),
            new_name: new_name.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// A suggestion to search and replace.
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

impl NesSearchAndReplaceSuggestion {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        id: impl Into<NesSuggestionId>,
        uri: impl Into<String>,
        search: impl Into<String>,
        replace: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            uri: uri.into(),
            search: search.into(),
            replace: replace.into(),
            is_regex: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// One edit: `newText` replaces `range`.
    pub struct NesTextEdit {
        /// The range replaced.
        req range: Range = "range";
        /// The new text.
        req new_text: String = "newText";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl NesTextEdit {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(range: impl Into<Range>, new_text: impl Into<String>) -> Self {
        Self {
            range: range.into(),
            new_text: new_text.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// Ends an NES session (`nes/close`).
    pub struct CloseNesRequest {
        /// The NES session to end.
        req session_id: SessionId = "sessionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl CloseNesRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            meta: None,
            extras: Extras::default(),
        }
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
    pub struct AcceptNesNotification {
        /// The NES session.
        req session_id: SessionId = "sessionId";
        /// The suggestion.
        req id: NesSuggestionId = "id";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl AcceptNesNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, id: impl Into<NesSuggestionId>) -> Self {
        Self {
            session_id: session_id.into(),
            id: id.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The user did not take a suggestion (`nes/reject`).
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

impl RejectNesNotification {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, id: impl Into<NesSuggestionId>) -> Self {
        Self {
            session_id: session_id.into(),
            id: id.into(),
            reason: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}
