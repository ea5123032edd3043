//! Conversions and helpers that make the wire types pleasant to build and read.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::*;

impl From<&str> for ContentBlock {
    /// Plain text content.
    fn from(text: &str) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }
}

impl From<String> for ContentBlock {
    /// Plain text content.
    fn from(text: String) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }
}

macro_rules! content_from {
    ($($ty:ident => $var:ident),* $(,)?) => {
        $(
            impl From<$ty> for ContentBlock {
                fn from(value: $ty) -> Self {
                    ContentBlock::$var(value.into())
                }
            }
        )*
    };
}

content_from!(
    TextContent => Text,
    ImageContent => Image,
    AudioContent => Audio,
    ResourceLink => ResourceLink,
    EmbeddedResource => Resource,
);

impl ContentBlock {
    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(text) => Some(&text.text),
            _ => None,
        }
    }

    /// The URI the block names: a resource link's, an embedded resource's, or the one an image
    /// came from (if given). `None` for text, audio and unknown blocks, which carry none.
    ///
    /// ```
    /// use acp_types::{ContentBlock, EmbeddedResource, ResourceLink, TextResourceContents};
    ///
    /// let link = ContentBlock::from(ResourceLink::new("main.rs", "file:///src/main.rs"));
    /// assert_eq!(link.uri(), Some("file:///src/main.rs"));
    /// let embedded = ContentBlock::from(EmbeddedResource::new(TextResourceContents::new(
    ///     "fn main() {}",
    ///     "file:///src/main.rs",
    /// )));
    /// assert_eq!(embedded.uri(), Some("file:///src/main.rs"));
    /// assert_eq!(ContentBlock::from("hello").uri(), None);
    /// ```
    pub fn uri(&self) -> Option<&str> {
        match self {
            ContentBlock::Image(image) => image.uri.as_deref(),
            ContentBlock::ResourceLink(link) => Some(&link.uri),
            ContentBlock::Resource(resource) => Some(resource.resource.uri()),
            _ => None,
        }
    }

    /// The MIME type of the block: an image's or audio's, or a resource link's or embedded
    /// resource's (if given). `None` for text and unknown blocks.
    ///
    /// ```
    /// use acp_types::{BlobResourceContents, ContentBlock, EmbeddedResource, ImageContent};
    ///
    /// let image = ContentBlock::from(ImageContent::new("iVBORw0KGgo=", "image/png"));
    /// assert_eq!(image.mime_type(), Some("image/png"));
    /// let blob = BlobResourceContents::new("AAEC", "file:///data.bin")
    ///     .mime_type("application/octet-stream");
    /// let embedded = ContentBlock::from(EmbeddedResource::new(blob));
    /// assert_eq!(embedded.mime_type(), Some("application/octet-stream"));
    /// assert_eq!(ContentBlock::from("hello").mime_type(), None);
    /// ```
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ContentBlock::Image(image) => Some(&image.mime_type),
            ContentBlock::Audio(audio) => Some(&audio.mime_type),
            ContentBlock::ResourceLink(link) => link.mime_type.as_deref(),
            ContentBlock::Resource(resource) => resource.resource.mime_type(),
            _ => None,
        }
    }
}

impl From<ContentBlock> for ToolCallContent {
    /// Ordinary content of a tool call.
    fn from(content: ContentBlock) -> Self {
        ToolCallContent::Content(Content::new(content))
    }
}

impl From<String> for ToolCallContent {
    /// Text content of a tool call.
    fn from(text: String) -> Self {
        ToolCallContent::Content(Content::new(ContentBlock::from(text)))
    }
}

impl From<&str> for ToolCallContent {
    /// Text content of a tool call.
    fn from(text: &str) -> Self {
        ToolCallContent::Content(Content::new(text))
    }
}

impl From<Diff> for ToolCallContent {
    fn from(diff: Diff) -> Self {
        ToolCallContent::Diff(diff)
    }
}

impl From<Terminal> for ToolCallContent {
    fn from(terminal: Terminal) -> Self {
        ToolCallContent::Terminal(terminal)
    }
}

impl From<ToolCall> for SessionUpdate {
    fn from(call: ToolCall) -> Self {
        SessionUpdate::ToolCall(Box::new(call))
    }
}

impl From<ToolCallUpdate> for SessionUpdate {
    fn from(update: ToolCallUpdate) -> Self {
        SessionUpdate::ToolCallUpdate(Box::new(update))
    }
}

impl From<Plan> for SessionUpdate {
    fn from(plan: Plan) -> Self {
        SessionUpdate::Plan(plan)
    }
}

/// `From` each update type that belongs to one variant only.
macro_rules! update_from {
    ($($ty:ident => $var:ident),* $(,)?) => {
        $(
            impl From<$ty> for SessionUpdate {
                fn from(update: $ty) -> Self {
                    SessionUpdate::$var(update)
                }
            }
        )*
    };
}

update_from!(
    AvailableCommandsUpdate => AvailableCommandsUpdate,
    CurrentModeUpdate => CurrentModeUpdate,
    ConfigOptionUpdate => ConfigOptionUpdate,
    SessionInfoUpdate => SessionInfoUpdate,
    UsageUpdate => UsageUpdate,
);

impl From<ContentChunk> for SessionUpdate {
    /// A chunk of the agent's reply (`agent_message_chunk`), the usual chunk an agent sends;
    /// build `SessionUpdate::UserMessageChunk` or `AgentThoughtChunk` for the others.
    fn from(chunk: ContentChunk) -> Self {
        SessionUpdate::AgentMessageChunk(chunk)
    }
}

impl From<AuthMethodAgent> for AuthMethod {
    fn from(method: AuthMethodAgent) -> Self {
        AuthMethod::Agent(method)
    }
}

impl From<AuthMethodTerminal> for AuthMethod {
    fn from(method: AuthMethodTerminal) -> Self {
        AuthMethod::Terminal(method)
    }
}

impl ImageContent {
    /// An image from its raw bytes, base64-encoded for the wire.
    pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self::new(STANDARD.encode(bytes), mime_type)
    }

    /// The image's raw bytes.
    ///
    /// # Errors
    ///
    /// When `data` is not valid base64.
    pub fn decode(&self) -> Result<Vec<u8>, base64::DecodeError> {
        STANDARD.decode(&self.data)
    }
}

impl AudioContent {
    /// Audio from its raw bytes, base64-encoded for the wire.
    pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self::new(STANDARD.encode(bytes), mime_type)
    }

    /// The audio's raw bytes.
    ///
    /// # Errors
    ///
    /// When `data` is not valid base64.
    pub fn decode(&self) -> Result<Vec<u8>, base64::DecodeError> {
        STANDARD.decode(&self.data)
    }
}

impl BlobResourceContents {
    /// Binary resource contents from raw bytes, base64-encoded for the wire.
    pub fn from_bytes(uri: impl Into<String>, bytes: &[u8]) -> Self {
        Self::new(STANDARD.encode(bytes), uri)
    }

    /// The resource's raw bytes.
    ///
    /// # Errors
    ///
    /// When `blob` is not valid base64.
    pub fn decode(&self) -> Result<Vec<u8>, base64::DecodeError> {
        STANDARD.decode(&self.blob)
    }
}

impl RequestPermissionResponse {
    /// The answer when the user chose `option_id`.
    pub fn selected(option_id: impl Into<PermissionOptionId>) -> Self {
        Self::new(RequestPermissionOutcome::selected(option_id))
    }

    /// The answer when the prompt turn was cancelled.
    pub fn cancelled() -> Self {
        Self::new(RequestPermissionOutcome::cancelled())
    }
}

impl InitializeRequest {
    /// True when the client serves `fs/read_text_file`.
    pub fn can_read_text_file(&self) -> bool {
        self.client_capabilities
            .as_ref()
            .and_then(|c| c.fs.as_ref())
            .and_then(|fs| fs.read_text_file)
            .unwrap_or(false)
    }

    /// True when the client serves `fs/write_text_file`.
    pub fn can_write_text_file(&self) -> bool {
        self.client_capabilities
            .as_ref()
            .and_then(|c| c.fs.as_ref())
            .and_then(|fs| fs.write_text_file)
            .unwrap_or(false)
    }

    /// True when the client serves the `terminal/*` methods.
    pub fn can_use_terminal(&self) -> bool {
        self.client_capabilities
            .as_ref()
            .and_then(|c| c.terminal)
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_bytes_round_trip_through_base64() {
        let image = ImageContent::from_bytes(&[0, 1, 2, 255], "image/png");
        assert_eq!(image.data, "AAEC/w==");
        assert_eq!(image.decode().unwrap(), vec![0, 1, 2, 255]);
    }

    #[test]
    fn text_converts_into_a_text_block() {
        assert_eq!(ContentBlock::from("hi").as_text(), Some("hi"));
    }
}
