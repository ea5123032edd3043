//! Typed conversions between the v1 shapes (the crate root) and the v2 shapes (this module)
//! of the definitions both versions have: content blocks, message chunks, stop reasons, tool
//! call statuses and kinds, tool calls, plan entries and roles, slash commands, permission
//! requests, errors.
//!
//! Field by field, without a JSON round trip: a text chunk moves its `String` and `_meta`
//! across and allocates nothing. What both definitions allow is carried exactly: unknown
//! fields, explicit `null`s and `_meta`. The direction that can always succeed is a `From`;
//! where a value may have no form on the other side, a `TryFrom` with a [`ConvertError`]
//! naming what could not convert:
//!
//! - v1 → v2 fails where v2 requires what v1 leaves optional (a chunk's `messageId`) or
//!   bounds what v1 does not (a negative resource size);
//! - v2 → v1 fails for a value of an open v2 enumeration that v1's closed one does not have
//!   (stop reason `error`, a tool kind or status from a newer peer), unless it is an
//!   extension value (`_`-prefixed), which stays one on both sides.
//!
//! v2 fields v1 has no member for (a resource link's `icons`) travel as v1 unknown fields of
//! the same name and come back from there, so v2 → v1 → v2 is the identity.
//!
//! ```
//! use acp_types::{ContentBlock, ContentChunk, v2};
//!
//! let v1 = ContentChunk::new(ContentBlock::from("hello")).message_id("msg-1");
//! let v2_chunk = v2::ContentChunk::try_from(v1.clone())?;
//! assert_eq!(v2_chunk.message_id.as_str(), "msg-1");
//! assert_eq!(ContentChunk::try_from(v2_chunk)?, v1);
//!
//! // v2 requires the id v1 leaves optional: a clear error, nothing dropped.
//! let error = v2::ContentChunk::try_from(ContentChunk::new(ContentBlock::from("hi"))).unwrap_err();
//! assert!(error.to_string().contains("messageId"));
//! # Ok::<(), v2::ConvertError>(())
//! ```

use std::fmt;

use crate::WireFields;
use crate::wire::Extras;

/// A value of one protocol version that has no form in the other: what it is, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConvertError {
    /// The definition (or field) that could not convert, as the schema names it.
    pub what: &'static str,
    /// Why, in a few words.
    pub reason: String,
}

impl ConvertError {
    /// A conversion error for `what`.
    pub fn new(what: &'static str, reason: impl Into<String>) -> Self {
        Self {
            what,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.reason)
    }
}

impl std::error::Error for ConvertError {}

/// Moves the unknown fields and explicit nulls of one value to its counterpart of the other
/// version (their fields have the same JSON names, so the record of nulls means the same).
fn carry(from: &mut impl WireFields) -> Extras {
    std::mem::take(from.extras_mut())
}

/// A value of a closed v1 enumeration from an open v2 one: known to v1, or an extension
/// value (`_`-prefixed), which v1 keeps as unknown.
fn closed<T: for<'a> From<&'a str>>(
    what: &'static str,
    value: &str,
    known: &[&str],
) -> Result<T, ConvertError> {
    if known.contains(&value) || value.starts_with('_') {
        Ok(T::from(value))
    } else {
        Err(ConvertError::new(
            what,
            format!("`{value}` does not exist in protocol version 1"),
        ))
    }
}

/// String enumerations with the same values on both sides: v1 → v2 always converts (v2's are
/// open), v2 → v1 only for values v1 has (or extension values).
macro_rules! string_enums {
    ($($name:ident),* $(,)?) => {
        $(
            impl From<crate::$name> for super::$name {
                fn from(value: crate::$name) -> Self {
                    Self::from(value.as_str())
                }
            }

            impl TryFrom<super::$name> for crate::$name {
                type Error = ConvertError;

                fn try_from(value: super::$name) -> Result<Self, ConvertError> {
                    closed(stringify!($name), value.as_str(), crate::$name::VALUES)
                }
            }
        )*
    };
}

string_enums!(
    StopReason,
    ToolCallStatus,
    ToolKind,
    PlanEntryPriority,
    PlanEntryStatus,
    Role,
    PermissionOptionKind
);

impl From<crate::Annotations> for super::Annotations {
    fn from(mut value: crate::Annotations) -> Self {
        let mut out = Self::new();
        out.audience = value
            .audience
            .take()
            .map(|roles| roles.into_iter().map(Into::into).collect());
        out.last_modified = value.last_modified.take();
        out.priority = value.priority;
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl TryFrom<super::Annotations> for crate::Annotations {
    type Error = ConvertError;

    fn try_from(mut value: super::Annotations) -> Result<Self, ConvertError> {
        let mut out = Self::new();
        out.audience = match value.audience.take() {
            Some(roles) => Some(
                roles
                    .into_iter()
                    .map(TryInto::try_into)
                    .collect::<Result<_, _>>()?,
            ),
            None => None,
        };
        out.last_modified = value.last_modified.take();
        out.priority = value.priority;
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

/// Both versions box annotations (they are rare and large).
fn annotations_to_v2(value: Option<Box<crate::Annotations>>) -> Option<Box<super::Annotations>> {
    value.map(|annotations| Box::new((*annotations).into()))
}

fn annotations_to_v1(
    value: Option<Box<super::Annotations>>,
) -> Result<Option<Box<crate::Annotations>>, ConvertError> {
    value.map(|a| (*a).try_into().map(Box::new)).transpose()
}

impl From<crate::TextContent> for super::TextContent {
    fn from(mut value: crate::TextContent) -> Self {
        let mut out = Self::new(std::mem::take(&mut value.text));
        out.annotations = annotations_to_v2(value.annotations.take());
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl TryFrom<super::TextContent> for crate::TextContent {
    type Error = ConvertError;

    fn try_from(mut value: super::TextContent) -> Result<Self, ConvertError> {
        let mut out = Self::new(std::mem::take(&mut value.text));
        out.annotations = annotations_to_v1(value.annotations.take())?;
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

impl From<crate::ImageContent> for super::ImageContent {
    fn from(mut value: crate::ImageContent) -> Self {
        let mut out = Self::new(
            std::mem::take(&mut value.data),
            std::mem::take(&mut value.mime_type),
        );
        out.uri = value.uri.take();
        out.annotations = annotations_to_v2(value.annotations.take());
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl TryFrom<super::ImageContent> for crate::ImageContent {
    type Error = ConvertError;

    fn try_from(mut value: super::ImageContent) -> Result<Self, ConvertError> {
        let mut out = Self::new(std::mem::take(&mut value.data), value.mime_type.as_str());
        out.uri = value.uri.take();
        out.annotations = annotations_to_v1(value.annotations.take())?;
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

impl From<crate::AudioContent> for super::AudioContent {
    fn from(mut value: crate::AudioContent) -> Self {
        let mut out = Self::new(
            std::mem::take(&mut value.data),
            std::mem::take(&mut value.mime_type),
        );
        out.annotations = annotations_to_v2(value.annotations.take());
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl TryFrom<super::AudioContent> for crate::AudioContent {
    type Error = ConvertError;

    fn try_from(mut value: super::AudioContent) -> Result<Self, ConvertError> {
        let mut out = Self::new(std::mem::take(&mut value.data), value.mime_type.as_str());
        out.annotations = annotations_to_v1(value.annotations.take())?;
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

/// The JSON name v1 keeps a v2 resource link's `icons` under (an unknown field to v1).
const ICONS: &str = "icons";

impl TryFrom<crate::ResourceLink> for super::ResourceLink {
    type Error = ConvertError;

    fn try_from(mut value: crate::ResourceLink) -> Result<Self, ConvertError> {
        let mut out = Self::new(
            std::mem::take(&mut value.name),
            std::mem::take(&mut value.uri),
        );
        out.title = value.title.take();
        out.description = value.description.take();
        out.mime_type = value.mime_type.take().map(Into::into);
        out.size = match value.size {
            Some(size) => Some(u64::try_from(size).map_err(|_| {
                ConvertError::new("ResourceLink", format!("the size {size} is negative"))
            })?),
            None => None,
        };
        out.annotations = annotations_to_v2(value.annotations.take());
        out.meta = value.meta.take();
        let mut extras = carry(&mut value);
        if let Some(icons) = extras.unknown_fields_mut().remove(ICONS) {
            out.icons = Some(
                crate::from_value(icons)
                    .map_err(|e| ConvertError::new("ResourceLink", format!("its icons: {e}")))?,
            );
        }
        *out.extras_mut() = extras;
        Ok(out)
    }
}

impl TryFrom<super::ResourceLink> for crate::ResourceLink {
    type Error = ConvertError;

    fn try_from(mut value: super::ResourceLink) -> Result<Self, ConvertError> {
        let mut out = Self::new(
            std::mem::take(&mut value.name),
            std::mem::take(&mut value.uri),
        );
        out.title = value.title.take();
        out.description = value.description.take();
        out.mime_type = value.mime_type.take().map(|m| m.as_str().to_owned());
        out.size = match value.size {
            Some(size) => Some(i64::try_from(size).map_err(|_| {
                ConvertError::new("ResourceLink", format!("the size {size} is too large"))
            })?),
            None => None,
        };
        out.annotations = annotations_to_v1(value.annotations.take())?;
        out.meta = value.meta.take();
        let mut extras = carry(&mut value);
        if let Some(icons) = value.icons.take() {
            let icons = serde_json::to_value(icons)
                .map_err(|e| ConvertError::new("ResourceLink", format!("its icons: {e}")))?;
            extras.unknown_fields_mut().insert(ICONS.to_owned(), icons);
        }
        *out.extras_mut() = extras;
        Ok(out)
    }
}

/// Resource contents: the same fields on both sides (v2 types the MIME type).
macro_rules! resource_contents {
    ($name:ident, $body:ident) => {
        impl From<crate::$name> for super::$name {
            fn from(mut value: crate::$name) -> Self {
                let mut out = Self::new(
                    std::mem::take(&mut value.$body),
                    std::mem::take(&mut value.uri),
                );
                out.mime_type = value.mime_type.take().map(Into::into);
                out.meta = value.meta.take();
                *out.extras_mut() = carry(&mut value);
                out
            }
        }

        impl From<super::$name> for crate::$name {
            fn from(mut value: super::$name) -> Self {
                let mut out = Self::new(
                    std::mem::take(&mut value.$body),
                    std::mem::take(&mut value.uri),
                );
                out.mime_type = value.mime_type.take().map(|m| m.as_str().to_owned());
                out.meta = value.meta.take();
                *out.extras_mut() = carry(&mut value);
                out
            }
        }
    };
}

resource_contents!(TextResourceContents, text);
resource_contents!(BlobResourceContents, blob);

impl From<crate::EmbeddedResourceResource> for super::EmbeddedResourceResource {
    fn from(value: crate::EmbeddedResourceResource) -> Self {
        match value {
            crate::EmbeddedResourceResource::TextResourceContents(text) => {
                Self::TextResourceContents(text.into())
            }
            crate::EmbeddedResourceResource::BlobResourceContents(blob) => {
                Self::BlobResourceContents(blob.into())
            }
        }
    }
}

impl TryFrom<super::EmbeddedResourceResource> for crate::EmbeddedResourceResource {
    type Error = ConvertError;

    fn try_from(value: super::EmbeddedResourceResource) -> Result<Self, ConvertError> {
        #[allow(unreachable_patterns)] // The v2 union may grow (non-exhaustive).
        match value {
            super::EmbeddedResourceResource::TextResourceContents(text) => {
                Ok(Self::TextResourceContents(text.into()))
            }
            super::EmbeddedResourceResource::BlobResourceContents(blob) => {
                Ok(Self::BlobResourceContents(blob.into()))
            }
            _ => Err(ConvertError::new(
                "EmbeddedResourceResource",
                "contents neither text nor binary",
            )),
        }
    }
}

impl From<crate::EmbeddedResource> for super::EmbeddedResource {
    fn from(mut value: crate::EmbeddedResource) -> Self {
        let resource = std::mem::replace(
            &mut value.resource,
            crate::TextResourceContents::new("", "").into(),
        );
        let mut out = Self::new(super::EmbeddedResourceResource::from(resource));
        out.annotations = annotations_to_v2(value.annotations.take());
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl TryFrom<super::EmbeddedResource> for crate::EmbeddedResource {
    type Error = ConvertError;

    fn try_from(mut value: super::EmbeddedResource) -> Result<Self, ConvertError> {
        let resource = std::mem::replace(
            &mut value.resource,
            super::TextResourceContents::new("", "").into(),
        );
        let mut out = Self::new(crate::EmbeddedResourceResource::try_from(resource)?);
        out.annotations = annotations_to_v1(value.annotations.take())?;
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

impl TryFrom<crate::ContentBlock> for super::ContentBlock {
    type Error = ConvertError;

    /// Text, images, audio and embedded resources always convert; a resource link fails for a
    /// negative size; a block of a kind this crate does not know stays one.
    fn try_from(value: crate::ContentBlock) -> Result<Self, ConvertError> {
        #[allow(unreachable_patterns)] // The v1 union may grow (non-exhaustive).
        Ok(match value {
            crate::ContentBlock::Text(text) => Self::Text(text.into()),
            crate::ContentBlock::Image(image) => Self::Image(Box::new((*image).into())),
            crate::ContentBlock::Audio(audio) => Self::Audio(Box::new((*audio).into())),
            crate::ContentBlock::ResourceLink(link) => {
                Self::ResourceLink(Box::new((*link).try_into()?))
            }
            crate::ContentBlock::Resource(resource) => Self::Resource(Box::new((*resource).into())),
            crate::ContentBlock::Unknown(json) => Self::Unknown(json),
            other => {
                return Err(ConvertError::new(
                    "ContentBlock",
                    format!("the kind {:?} has no v2 form", other.tag()),
                ));
            }
        })
    }
}

impl TryFrom<super::ContentBlock> for crate::ContentBlock {
    type Error = ConvertError;

    /// Every kind both versions know converts (a resource link whose size exceeds v1's range
    /// fails); a block of a kind this crate does not know stays one.
    fn try_from(value: super::ContentBlock) -> Result<Self, ConvertError> {
        #[allow(unreachable_patterns)] // The v2 union may grow (non-exhaustive).
        Ok(match value {
            super::ContentBlock::Text(text) => Self::Text(text.try_into()?),
            super::ContentBlock::Image(image) => Self::Image(Box::new((*image).try_into()?)),
            super::ContentBlock::Audio(audio) => Self::Audio(Box::new((*audio).try_into()?)),
            super::ContentBlock::ResourceLink(link) => {
                Self::ResourceLink(Box::new((*link).try_into()?))
            }
            super::ContentBlock::Resource(resource) => {
                Self::Resource(Box::new((*resource).try_into()?))
            }
            super::ContentBlock::Unknown(json) => Self::Unknown(json),
            other => {
                return Err(ConvertError::new(
                    "ContentBlock",
                    format!("the kind {:?} has no v1 form", other.tag()),
                ));
            }
        })
    }
}

impl TryFrom<crate::ContentChunk> for super::ContentChunk {
    type Error = ConvertError;

    /// Fails when the chunk has no `messageId` (required in v2) or its content does not
    /// convert.
    fn try_from(mut value: crate::ContentChunk) -> Result<Self, ConvertError> {
        let message_id = value.message_id.take().ok_or_else(|| {
            ConvertError::new(
                "ContentChunk",
                "a chunk needs a messageId in protocol version 2",
            )
        })?;
        let content = std::mem::replace(&mut value.content, crate::ContentBlock::from(""));
        let mut out = Self::new(message_id, super::ContentBlock::try_from(content)?);
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

impl TryFrom<super::ContentChunk> for crate::ContentChunk {
    type Error = ConvertError;

    /// Fails only when the content does not convert.
    fn try_from(mut value: super::ContentChunk) -> Result<Self, ConvertError> {
        let content = std::mem::replace(
            &mut value.content,
            super::ContentBlock::Text(super::TextContent::new("")),
        );
        let mut out = Self::new(crate::ContentBlock::try_from(content)?);
        out.message_id = Some(value.message_id.clone());
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

impl From<crate::PlanEntry> for super::PlanEntry {
    fn from(mut value: crate::PlanEntry) -> Self {
        let mut out = Self::new(
            std::mem::take(&mut value.content),
            super::PlanEntryPriority::from(value.priority.clone()),
            super::PlanEntryStatus::from(value.status.clone()),
        );
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl TryFrom<super::PlanEntry> for crate::PlanEntry {
    type Error = ConvertError;

    fn try_from(mut value: super::PlanEntry) -> Result<Self, ConvertError> {
        let mut out = Self::new(
            std::mem::take(&mut value.content),
            crate::PlanEntryPriority::try_from(value.priority.clone())?,
            crate::PlanEntryStatus::try_from(value.status.clone())?,
        );
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

impl From<crate::ToolCallLocation> for super::ToolCallLocation {
    fn from(mut value: crate::ToolCallLocation) -> Self {
        let mut out = Self::new(std::mem::take(&mut value.path));
        out.line = value.line;
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl From<super::ToolCallLocation> for crate::ToolCallLocation {
    fn from(mut value: super::ToolCallLocation) -> Self {
        let mut out = Self::new(value.path.as_str());
        out.line = value.line;
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl From<crate::Diff> for super::Diff {
    /// v1 says a diff as the whole old and new texts of one file; v2 as structured changes
    /// with an optional patch. The v2 form: one change (`add` when there is no old text, else
    /// `modify`) of a text file, and a git patch that replaces every old line with every new
    /// line (so that both texts can be read back from it).
    fn from(mut value: crate::Diff) -> Self {
        let operation = if value.old_text.is_some() {
            super::DiffOperation::Modify
        } else {
            super::DiffOperation::Add
        };
        let patch = git_patch(&value.path, value.old_text.as_deref(), &value.new_text);
        let mut change = super::DiffChange::new(operation);
        change.path = Some(super::AbsolutePath::from(std::mem::take(&mut value.path)));
        change.file_type = Some(super::DiffFileType::Text);
        let mut out = Self::new(vec![change]);
        out.patch = Some(super::DiffPatch::new(
            super::DiffPatchFormat::GitPatch,
            patch,
        ));
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

/// A git patch that turns `old` (`None`: the file is new) into `new` at `path`, as one hunk
/// replacing every line; a last line without a newline is marked as git marks it.
pub fn git_patch(path: &str, old: Option<&str>, new: &str) -> String {
    use std::fmt::Write as _;
    let relative = path.trim_start_matches('/');
    let mut out = format!("diff --git a/{relative} b/{relative}\n");
    match old {
        None => out.push_str("new file mode 100644\n--- /dev/null\n"),
        Some(_) => {
            let _ = writeln!(out, "--- a/{relative}");
        }
    }
    let _ = writeln!(out, "+++ b/{relative}");
    let old = old.unwrap_or_default();
    if old == new {
        return out;
    }
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let range = |n: usize| {
        if n == 0 {
            "0,0".to_owned()
        } else {
            format!("1,{n}")
        }
    };
    let _ = writeln!(
        out,
        "@@ -{} +{} @@",
        range(old_lines.len()),
        range(new_lines.len())
    );
    for (sign, lines) in [('-', &old_lines), ('+', &new_lines)] {
        for line in lines.iter() {
            out.push(sign);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// What a v1 terminal reference (`{"type": "terminal", "terminalId"}` in a tool call's
/// content) stands for when converted to v2.
///
/// The two versions' terminal content has one shape and two meanings: in v1 the id names a
/// terminal the *client* made (`terminal/create`) and the agent controls; in v2 it names an
/// *agent-owned* display terminal the client only shows. A conversion must not map one onto the
/// other by shape alone (the terminal-output design document of the v2 draft), so the caller
/// says which it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Terminals {
    /// The references are v1 client terminals: they have no v2 form and fail to convert. What
    /// the `TryFrom` conversions do.
    Refuse,
    /// The caller knows what each reference names and keeps it as a reference by id: an agent
    /// on a v2 connection, whose references are its own display terminals (client terminals
    /// do not exist there), or a reader that resolves each id by the version it came in (a
    /// rendering model). Each becomes the v2 reference, unchanged.
    Keep,
}

/// A v1 tool call content item in v2: a content block as its block converts, a diff as its
/// structured form, a terminal reference as `terminals` says; a kind this crate does not know
/// stays one.
///
/// # Errors
///
/// Content that has no v2 form, and a terminal reference under [`Terminals::Refuse`].
pub fn tool_call_content(
    value: crate::ToolCallContent,
    terminals: Terminals,
) -> Result<super::ToolCallContent, ConvertError> {
    use super::ToolCallContent as V2;
    #[allow(unreachable_patterns)] // The v1 union may grow (non-exhaustive).
    Ok(match value {
        crate::ToolCallContent::Content(mut content) => {
            let block = std::mem::replace(&mut content.content, crate::ContentBlock::from(""));
            let mut out = super::Content::new(super::ContentBlock::try_from(block)?);
            out.meta = content.meta.take();
            *out.extras_mut() = carry(&mut content);
            V2::Content(out)
        }
        crate::ToolCallContent::Diff(diff) => V2::Diff(diff.into()),
        crate::ToolCallContent::Terminal(terminal) => match terminals {
            Terminals::Keep => V2::Terminal(terminal),
            Terminals::Refuse => {
                return Err(ConvertError::new(
                    "ToolCallContent",
                    format!(
                        "the terminal {} is a client terminal of v1, which v2 does not have \
                         (a v2 terminal is the agent's own display terminal)",
                        terminal.terminal_id
                    ),
                ));
            }
        },
        crate::ToolCallContent::Unknown(json) => V2::Unknown(json),
        other => {
            return Err(ConvertError::new(
                "ToolCallContent",
                format!("the kind {:?} has no v2 form", other.tag()),
            ));
        }
    })
}

impl TryFrom<crate::ToolCallContent> for super::ToolCallContent {
    type Error = ConvertError;

    /// Content converts as its block does, a diff to its structured form; a (client-owned)
    /// terminal reference fails ([`Terminals::Refuse`]; see [`tool_call_content`]); a kind
    /// this crate does not know stays one.
    fn try_from(value: crate::ToolCallContent) -> Result<Self, ConvertError> {
        tool_call_content(value, Terminals::Refuse)
    }
}

/// `Some` as a patch that sets, `None` as one that leaves the field unchanged.
fn set_or_keep<T>(value: Option<T>) -> super::Patch<T> {
    value.map_or(super::Patch::Unchanged, super::Patch::Set)
}

/// A v1 raw JSON field as a v2 patch: absent and `null` leave it unchanged in v1.
fn raw_patch(value: Option<serde_json::Value>) -> super::Patch<serde_json::Value> {
    match value {
        None | Some(serde_json::Value::Null) => super::Patch::Unchanged,
        Some(json) => super::Patch::Set(json),
    }
}

fn contents_to_v2(
    content: Option<Vec<crate::ToolCallContent>>,
    terminals: Terminals,
) -> Result<super::Patch<Vec<super::ToolCallContent>>, ConvertError> {
    Ok(match content {
        Some(items) => super::Patch::Set(
            items
                .into_iter()
                .map(|item| tool_call_content(item, terminals))
                .collect::<Result<_, _>>()?,
        ),
        None => super::Patch::Unchanged,
    })
}

fn locations_to_v2(
    locations: Option<Vec<crate::ToolCallLocation>>,
) -> super::Patch<Vec<super::ToolCallLocation>> {
    set_or_keep(locations.map(|l| l.into_iter().map(Into::into).collect()))
}

/// The v2 upsert of a v1 tool call or tool call update (`$value`), its title patch being
/// `$title`, terminal references read as `$terminals` says: every other field it gives is set, what it leaves out or sends as `null` stays
/// unchanged (v1's meaning of both; in v2 a `null` would clear the field). One body for both
/// v1 shapes, whose fields are the same but for the title.
macro_rules! tool_call_upsert {
    ($value:ident, $title:expr, $terminals:expr) => {{
        let mut out = super::ToolCallUpdate::new($value.tool_call_id.clone());
        out.title = $title;
        out.name = set_or_keep($value.name.take());
        out.kind = set_or_keep($value.kind.take().map(Into::into));
        out.status = set_or_keep($value.status.take().map(Into::into));
        out.content = contents_to_v2($value.content.take(), $terminals)?;
        out.locations = locations_to_v2($value.locations.take());
        out.raw_input = raw_patch($value.raw_input.take());
        out.raw_output = raw_patch($value.raw_output.take());
        out.meta = set_or_keep($value.meta.take());
        let mut extras = carry(&mut $value);
        extras.forget_nulls();
        *out.extras_mut() = extras;
        Ok(out)
    }};
}

/// A v1 `tool_call` as the v2 upsert that creates the call: every field it gives is set, the
/// rest left out; terminal references as `terminals` says.
///
/// # Errors
///
/// Content that does not convert (see [`tool_call_content`]).
pub fn tool_call(
    mut value: crate::ToolCall,
    terminals: Terminals,
) -> Result<super::ToolCallUpdate, ConvertError> {
    tool_call_upsert!(
        value,
        super::Patch::Set(std::mem::take(&mut value.title)),
        terminals
    )
}

/// A v1 `tool_call_update` as a v2 upsert: what it gives is set, what it leaves out or sends
/// as `null` stays unchanged (v1's meaning of both); terminal references as `terminals` says.
///
/// # Errors
///
/// Content that does not convert (see [`tool_call_content`]).
pub fn tool_call_update(
    mut value: crate::ToolCallUpdate,
    terminals: Terminals,
) -> Result<super::ToolCallUpdate, ConvertError> {
    tool_call_upsert!(value, set_or_keep(value.title.take()), terminals)
}

impl TryFrom<crate::ToolCall> for super::ToolCallUpdate {
    type Error = ConvertError;

    /// [`tool_call`] with [`Terminals::Refuse`].
    fn try_from(value: crate::ToolCall) -> Result<Self, ConvertError> {
        tool_call(value, Terminals::Refuse)
    }
}

impl TryFrom<crate::ToolCallUpdate> for super::ToolCallUpdate {
    type Error = ConvertError;

    /// [`tool_call_update`] with [`Terminals::Refuse`].
    fn try_from(value: crate::ToolCallUpdate) -> Result<Self, ConvertError> {
        tool_call_update(value, Terminals::Refuse)
    }
}

impl From<crate::Plan> for super::PlanItems {
    /// v1 has one plan per session, which each `plan` update replaces: in v2 a list of items
    /// under a plan id the caller gives (see [`plan_update`]).
    fn from(mut value: crate::Plan) -> Self {
        let entries: Vec<super::PlanEntry> = std::mem::take(&mut value.entries)
            .into_iter()
            .map(super::PlanEntry::from)
            .collect();
        let mut out = Self::new(super::PlanId::from(""), entries);
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

/// A v1 `plan` as the v2 `plan_update` of the plan `plan_id` (v1 has one plan per session:
/// give every update of a session the same id).
pub fn plan_update(plan: crate::Plan, plan_id: super::PlanId) -> super::PlanUpdate {
    let mut items = super::PlanItems::from(plan);
    items.plan_id = plan_id;
    super::PlanUpdate::new(super::PlanUpdateContent::Items(items))
}

/// A v1 session update in v2, the v1 message chunks, tool calls and plans typed:
/// `agent_message_chunk`, `agent_thought_chunk` and `user_message_chunk` keep their
/// `messageId` (required: stamp it first); `tool_call` and `tool_call_update` become
/// `tool_call_update` upserts; `plan` becomes `plan_update` with `plan_id`; commands get their
/// `type` (`command`, input `text`); terminal references in tool calls as `terminals` says.
/// `Ok(Err(update))` gives back any other update, for the caller to convert otherwise.
///
/// # Errors
///
/// A chunk without a `messageId`, or content that has no v2 form.
pub fn session_update(
    update: crate::SessionUpdate,
    plan_id: impl FnOnce() -> super::PlanId,
    terminals: Terminals,
) -> Result<Result<super::SessionUpdate, crate::SessionUpdate>, ConvertError> {
    use super::SessionUpdate as V2;
    use crate::SessionUpdate as V1;
    Ok(Ok(match update {
        V1::AgentMessageChunk(chunk) => V2::AgentMessageChunk(chunk.try_into()?),
        V1::AgentThoughtChunk(chunk) => V2::AgentThoughtChunk(chunk.try_into()?),
        V1::UserMessageChunk(chunk) => V2::UserMessageChunk(chunk.try_into()?),
        V1::ToolCall(call) => V2::ToolCallUpdate(Box::new(tool_call(*call, terminals)?)),
        V1::ToolCallUpdate(call) => {
            V2::ToolCallUpdate(Box::new(tool_call_update(*call, terminals)?))
        }
        V1::Plan(plan) => V2::PlanUpdate(plan_update(plan, plan_id())),
        V1::AvailableCommandsUpdate(commands) => V2::AvailableCommandsUpdate(commands.into()),
        other => return Ok(Err(other)),
    }))
}

impl From<crate::Error> for super::Error {
    /// The same error: its `data` read as the v2 shapes it has (`-32022`'s versions, an
    /// unknown session) or kept as it came.
    fn from(mut value: crate::Error) -> Self {
        let mut out = Self::new(
            super::ErrorCode(value.code.0),
            std::mem::take(&mut value.message),
        );
        out.data = value
            .data
            .take()
            .map(|data| match crate::from_value(data.clone()) {
                Ok(known) => known,
                Err(_) => super::ErrorData::Other(data),
            });
        *out.extras_mut() = carry(&mut value);
        out
    }
}

/// The JSON name of the `type` tag v2 gives commands and their inputs: in a v1 value's unknown
/// fields it would be written twice once the v2 union writes its own.
const TYPE: &str = "type";

impl From<crate::UnstructuredCommandInput> for super::TextCommandInput {
    fn from(mut value: crate::UnstructuredCommandInput) -> Self {
        let mut out = Self::new(std::mem::take(&mut value.hint));
        out.meta = value.meta.take();
        let mut extras = carry(&mut value);
        extras.unknown_fields_mut().remove(TYPE);
        *out.extras_mut() = extras;
        out
    }
}

impl From<crate::AvailableCommandInput> for super::AvailableCommandInput {
    /// v1's one kind of input, free text, is v2's `text` input.
    fn from(value: crate::AvailableCommandInput) -> Self {
        match value {
            crate::AvailableCommandInput::Unstructured(text) => Self::Text(text.into()),
        }
    }
}

impl From<crate::AvailableCommand> for super::AvailableCommand {
    /// A v1 command is v2's `command` kind, its input of kind `text`.
    fn from(mut value: crate::AvailableCommand) -> Self {
        let mut out = super::Command::new(
            std::mem::take(&mut value.name),
            std::mem::take(&mut value.description),
        );
        out.input = value.input.take().map(Into::into);
        out.meta = value.meta.take();
        let mut extras = carry(&mut value);
        extras.unknown_fields_mut().remove(TYPE);
        *out.extras_mut() = extras;
        Self::Command(out)
    }
}

impl From<crate::AvailableCommandsUpdate> for super::AvailableCommandsUpdate {
    fn from(mut value: crate::AvailableCommandsUpdate) -> Self {
        let commands: Vec<super::AvailableCommand> = std::mem::take(&mut value.available_commands)
            .into_iter()
            .map(Into::into)
            .collect();
        let mut out = Self::new(commands);
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl From<crate::PermissionOption> for super::PermissionOption {
    fn from(mut value: crate::PermissionOption) -> Self {
        let mut out = Self::new(
            value.option_id.clone(),
            std::mem::take(&mut value.name),
            super::PermissionOptionKind::from(value.kind.clone()),
        );
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}

impl TryFrom<super::PermissionOption> for crate::PermissionOption {
    type Error = ConvertError;

    fn try_from(mut value: super::PermissionOption) -> Result<Self, ConvertError> {
        let mut out = Self::new(
            value.option_id.clone(),
            std::mem::take(&mut value.name),
            crate::PermissionOptionKind::try_from(value.kind.clone())?,
        );
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

impl TryFrom<crate::RequestPermissionRequest> for super::RequestPermissionRequest {
    type Error = ConvertError;

    /// v1 asks about a tool call; v2 about a subject, with a required `title`: the tool call
    /// becomes the `tool_call` subject (as a v2 upsert), its title the request's title (or
    /// "Allow the tool call `<id>`?" when it has none). Fails for tool call content with no v2
    /// form.
    fn try_from(mut value: crate::RequestPermissionRequest) -> Result<Self, ConvertError> {
        let id = value.tool_call.tool_call_id.clone();
        let call = std::mem::replace(&mut value.tool_call, crate::ToolCallUpdate::new(id));
        let title = call
            .title
            .clone()
            .unwrap_or_else(|| format!("Allow the tool call {}?", call.tool_call_id));
        let subject = super::ToolCallPermissionSubject::new(super::ToolCallUpdate::try_from(call)?);
        let options: Vec<super::PermissionOption> = std::mem::take(&mut value.options)
            .into_iter()
            .map(super::PermissionOption::from)
            .collect();
        let mut out = Self::new(value.session_id.clone(), title, options);
        out.subject = Some(super::RequestPermissionSubject::ToolCall(subject));
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        Ok(out)
    }
}

impl From<super::RequestPermissionOutcome> for crate::RequestPermissionOutcome {
    /// The same outcomes; a cancelled outcome's `_meta` and unknown fields are kept, an
    /// outcome this crate does not know stays one.
    fn from(value: super::RequestPermissionOutcome) -> Self {
        #[allow(unreachable_patterns)] // The v2 union may grow (non-exhaustive).
        match value {
            super::RequestPermissionOutcome::Selected(selected) => Self::Selected(selected),
            super::RequestPermissionOutcome::Cancelled(mut cancelled) => {
                let mut extras = carry(&mut cancelled);
                if let Some(meta) = cancelled.meta.take() {
                    extras
                        .unknown_fields_mut()
                        .insert("_meta".into(), serde_json::Value::Object(meta));
                }
                Self::Cancelled(extras)
            }
            super::RequestPermissionOutcome::Unknown(json) => Self::Unknown(json),
            other => Self::Unknown(serde_json::to_value(other).unwrap_or_default()),
        }
    }
}

impl From<super::RequestPermissionResponse> for crate::RequestPermissionResponse {
    fn from(mut value: super::RequestPermissionResponse) -> Self {
        let outcome = std::mem::replace(
            &mut value.outcome,
            super::RequestPermissionOutcome::Cancelled(super::CancelledPermissionOutcome::new()),
        );
        let mut out = Self::new(crate::RequestPermissionOutcome::from(outcome));
        out.meta = value.meta.take();
        *out.extras_mut() = carry(&mut value);
        out
    }
}
