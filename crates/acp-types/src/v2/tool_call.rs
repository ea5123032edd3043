//! Tool calls: upserts, content and content chunks, cancellation.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;
use super::shape::keywords;

wire_object! {
    /// An upsert of a tool call, by its `toolCallId`: the first update creates it, later ones
    /// patch it (see [`Patch`]).
    #[new(tool_call_id: impl Into<ToolCallId>)]
    pub struct ToolCallUpdate {
        /// The tool call this concerns.
        req tool_call_id: ToolCallId = "toolCallId";
        /// The tool's programmatic name. A new tool call starts without one.
        patch name: String = "name" [DOE];
        /// A human-readable title. A new tool call starts without one.
        patch title: String = "title" [DOE];
        /// The kind of tool. `Clear` resets it to `other`, where a new tool call starts.
        patch kind: ToolKind = "kind" [DOE];
        /// The status. `Clear` resets it to `pending`, where a new tool call starts.
        patch status: ToolCallStatus = "status" [DOE];
        /// The whole content, replacing what was stored (chunks then append to it).
        patch content: Vec<ToolCallContent> = "content" [DOE | SKIP];
        /// The whole list of locations, replacing what was stored.
        patch locations: Vec<ToolCallLocation> = "locations" [DOE | SKIP];
        /// The raw input of the tool, as the agent sent it to the tool.
        patch raw_input: serde_json::Value = "rawInput" [DOE];
        /// The raw output of the tool.
        patch raw_output: serde_json::Value = "rawOutput" [DOE];
        /// The client-initiated controls the tool call supports now, replacing the previous
        /// ones.
        patch capabilities: ToolCallCapabilities = "capabilities" [DOE];
        /// Extension data: a value patches the stored metadata key by key, `Clear` removes it.
        patch meta: Meta = "_meta" [DOE];
    }
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
    Unknown, open_schema = true
}

string_enum! {
    /// Where a tool call is in its lifecycle.
    pub enum ToolCallStatus {
        /// Not started yet.
        Pending = "pending",
        /// Running.
        InProgress = "in_progress",
        /// `paused`.
        Paused = "paused",
        /// Finished successfully.
        Completed = "completed",
        /// Finished with an error.
        Failed = "failed",
        /// The tool call was cancelled before it completed.
        Cancelled = "cancelled",
    }
    Unknown, open_schema = true
}

tagged_union! {
    /// One content item of a tool call, told apart by its `type`.
    pub enum ToolCallContent {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
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
    /// A file location a tool call reads or changes, so clients can follow along.
    #[schema_extend(schema_tool_call_location)]
    #[new(path: impl Into<AbsolutePath>)]
    pub struct ToolCallLocation {
        /// An absolute file path.
        req path: AbsolutePath = "path";
        /// The line within the file, if relevant.
        opt line: u32 = "line" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`ToolCallLocation`] what the types of its fields do not say.
fn schema_tool_call_location(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"line": {"minimum": 1}}));
}

wire_object! {
    /// The client-initiated controls a tool call supports.
    #[optional_fields(new)]
    pub struct ToolCallCapabilities {
        /// Present: the client may cancel the tool call (`tool_call/cancel`).
        opt cancel: ToolCallCancelCapabilities = "cancel" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A tool call the client may cancel (`tool_call/cancel`).
    #[optional_fields(new)]
    pub struct ToolCallCancelCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A tool call that needs permission, as a tool-call upsert.
    #[new(tool_call: impl Into<ToolCallUpdate>)]
    pub struct ToolCallPermissionSubject {
        /// The tool call, as a tool-call upsert.
        req tool_call: ToolCallUpdate = "toolCall";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `tool_call/cancel`.
    #[optional_fields(new)]
    pub struct CancelToolCallResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// One content item appended to a tool call's content.
    #[new(tool_call_id: impl Into<ToolCallId>, content: impl Into<ToolCallContent>)]
    pub struct ToolCallContentChunk {
        /// The tool call this concerns.
        req tool_call_id: ToolCallId = "toolCallId";
        /// The content.
        req content: ToolCallContent = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent to cancel a tool call that advertises cancellation (`tool_call/cancel`).
    #[new(session_id: impl Into<SessionId>, tool_call_id: impl Into<ToolCallId>)]
    pub struct CancelToolCallRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The tool call this concerns.
        req tool_call_id: ToolCallId = "toolCallId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
