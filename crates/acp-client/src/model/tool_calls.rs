//! Tool calls of the session model: upserts by `toolCallId` with patch semantics.

use acp_types::v2::{
    ToolCallCapabilities, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolKind,
};
use acp_types::{Meta, ToolCallId};

use super::patch_meta;

/// One tool call, as its upserts built it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// Its id.
    pub id: ToolCallId,
    /// The tool's programmatic name.
    pub name: Option<String>,
    /// The human-readable title.
    pub title: Option<String>,
    /// The kind of tool (`other` until told).
    pub kind: ToolKind,
    /// The status (`pending` until told).
    pub status: ToolCallStatus,
    /// The content: an update with `content` replaces it, chunks append to it.
    pub content: Vec<ToolCallContent>,
    /// The file locations it touches.
    pub locations: Vec<ToolCallLocation>,
    /// The tool's raw input.
    pub raw_input: Option<serde_json::Value>,
    /// The tool's raw output.
    pub raw_output: Option<serde_json::Value>,
    /// The controls the client may use on it (`tool_call/cancel`).
    pub capabilities: Option<ToolCallCapabilities>,
    /// Extension data.
    pub meta: Option<Meta>,
}

impl ToolCall {
    pub(crate) fn new(id: ToolCallId) -> Self {
        Self {
            id,
            name: None,
            title: None,
            kind: ToolKind::Other,
            status: ToolCallStatus::Pending,
            content: Vec::new(),
            locations: Vec::new(),
            raw_input: None,
            raw_output: None,
            capabilities: None,
            meta: None,
        }
    }

    /// True when the agent says the client may cancel it (`tool_call/cancel`).
    pub fn cancellable(&self) -> bool {
        self.capabilities
            .as_ref()
            .is_some_and(|c| c.cancel.is_some())
    }

    /// Applies an upsert: omitted fields stay, `null` clears (`kind` to `other`, `status` to
    /// `pending`), values replace (lists as a whole).
    pub(crate) fn apply(&mut self, update: ToolCallUpdate) {
        update.name.apply_to(&mut self.name);
        update.title.apply_to(&mut self.title);
        self.kind = update.kind.apply_or(
            std::mem::replace(&mut self.kind, ToolKind::Other),
            ToolKind::Other,
        );
        self.status = update.status.apply_or(
            std::mem::replace(&mut self.status, ToolCallStatus::Pending),
            ToolCallStatus::Pending,
        );
        self.content = update
            .content
            .apply_or(std::mem::take(&mut self.content), Vec::new());
        self.locations = update
            .locations
            .apply_or(std::mem::take(&mut self.locations), Vec::new());
        update.raw_input.apply_to(&mut self.raw_input);
        update.raw_output.apply_to(&mut self.raw_output);
        update.capabilities.apply_to(&mut self.capabilities);
        patch_meta(&mut self.meta, update.meta);
    }
}
