//! Tool calls: what the agent reports about the tools it runs.

use crate::prelude::*;

wire_object! {
    /// A tool call the agent started, as first reported.
    #[new(tool_call_id: impl Into<ToolCallId>, title: impl Into<String>)]
    pub struct ToolCall {
        /// The tool call this concerns.
        req tool_call_id: ToolCallId = "toolCallId";
        /// A human-readable title.
        req title: String = "title";
        /// The kind of tool, for presentation.
        opt kind: ToolKind = "kind" [DOE];
        /// The current status.
        opt status: ToolCallStatus = "status" [DOE];
        /// What the tool call produced.
        opt content: Vec<ToolCallContent> = "content" [DOE | SKIP];
        /// The file locations the tool call touches.
        opt locations: Vec<ToolCallLocation> = "locations" [DOE | SKIP];
        /// The raw input of the tool, as the agent sent it to the tool.
        raw raw_input = "rawInput" [DOE];
        /// The raw output of the tool.
        raw raw_output = "rawOutput" [DOE];
        /// The tool's programmatic name, for logic (the title is for display). On an update, a
        /// name replaces the previous one; absent or `null` leaves it unchanged.
        opt name: String = "name" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A partial update of a tool call: only the fields that changed are present.
    #[new(tool_call_id: impl Into<ToolCallId>)]
    pub struct ToolCallUpdate {
        /// The tool call this concerns.
        req tool_call_id: ToolCallId = "toolCallId";
        /// The kind of tool, for presentation.
        opt kind: ToolKind = "kind" [DOE | NULLABLE];
        /// The current status.
        opt status: ToolCallStatus = "status" [DOE | NULLABLE];
        /// A human-readable title.
        opt title: String = "title" [DOE | NULLABLE];
        /// What the tool call produced; replaces the previous content.
        opt content: Vec<ToolCallContent> = "content" [DOE | SKIP | NULLABLE];
        /// The file locations the tool call touches; replaces the previous list.
        opt locations: Vec<ToolCallLocation> = "locations" [DOE | SKIP | NULLABLE];
        /// The raw input of the tool, as the agent sent it to the tool.
        raw raw_input = "rawInput" [DOE];
        /// The raw output of the tool.
        raw raw_output = "rawOutput" [DOE];
        /// The tool's programmatic name, for logic (the title is for display). On an update, a
        /// name replaces the previous one; absent or `null` leaves it unchanged.
        opt name: String = "name" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

id_type! {
    /// Identifies a tool call within a session.
    pub struct ToolCallId;
}

string_enum! {
    /// The category of a tool call, used by clients to pick icons and presentation.
    pub enum ToolKind {
        /// Reading files or data.
        Read = "read",
        /// Changing files or content.
        Edit = "edit",
        /// Removing files or data.
        Delete = "delete",
        /// Moving or renaming files.
        Move = "move",
        /// Searching for information.
        Search = "search",
        /// Running a command or code.
        Execute = "execute",
        /// Internal reasoning.
        Think = "think",
        /// Retrieving external data.
        Fetch = "fetch",
        /// Switching the session mode.
        SwitchMode = "switch_mode",
        /// Anything else.
        Other = "other",
    }
    Unknown, open_schema = false
}

string_enum! {
    /// Where a tool call is in its lifecycle.
    pub enum ToolCallStatus {
        /// Not started yet.
        Pending = "pending",
        /// Running.
        InProgress = "in_progress",
        /// Finished successfully.
        Completed = "completed",
        /// Finished with an error.
        Failed = "failed",
    }
    Unknown, open_schema = false
}

tagged_union! {
    /// Content produced by a tool call: ordinary content, a diff, or a live terminal.
    pub enum ToolCallContent {
        tag = "type",
        combinator = "oneOf",
        discriminator = true,
        open = false,
        unknown = Unknown,
        variants {
            /// Ordinary content.
            Content(Content) = "content",
            /// A file change.
            Diff(Diff) = "diff",
            /// A live terminal.
            Terminal(Terminal) = "terminal",
        }
    }
}

wire_object! {
    /// Ordinary content produced by a tool call.
    #[new(content: impl Into<ContentBlock>)]
    pub struct Content {
        /// The content.
        req content: ContentBlock = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A proposed or applied change to a file, as its old and new text.
    #[new(path: impl AsRef<Path>, new_text: impl Into<String>)]
    pub struct Diff {
        /// An absolute file path.
        req path: String as path = "path";
        /// The previous text; absent for a new file.
        opt old_text: String = "oldText" [DOE | NULLABLE];
        /// The new text.
        req new_text: String = "newText";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A reference to a live terminal whose output the client renders inside the tool call.
    #[new(terminal_id: impl Into<TerminalId>)]
    pub struct Terminal {
        /// The terminal this concerns.
        req terminal_id: TerminalId = "terminalId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A file location a tool call reads or changes, so clients can follow along.
    #[new(path: impl AsRef<Path>)]
    pub struct ToolCallLocation {
        /// An absolute file path.
        req path: String as path = "path";
        /// The line within the file, if relevant.
        opt line: u32 = "line" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
