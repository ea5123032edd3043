//! Content blocks: what prompts, messages and tool results are made of.

use crate::prelude::*;

tagged_union! {
    /// One piece of content in a prompt, a message chunk or a tool result.
    pub enum ContentBlock {
        tag = "type",
        combinator = "oneOf",
        discriminator = true,
        open = false,
        unknown = Unknown,
        variants {
            /// Plain text.
            Text(TextContent) = "text",
            /// An image.
            Image(ImageContent) = "image" as boxed,
            /// Audio.
            Audio(AudioContent) = "audio" as boxed,
            /// A link to a resource.
            ResourceLink(ResourceLink) = "resource_link" as boxed,
            /// A resource with its contents inline.
            Resource(EmbeddedResource) = "resource" as boxed,
        }
    }
}

wire_object! {
    /// Optional hints about how content is meant to be used or shown.
    #[optional_fields(new)]
    pub struct Annotations {
        /// Who the content is for.
        opt audience: Vec<Role> = "audience" [DOE | SKIP | NULLABLE];
        /// When the content was last modified (an ISO 8601 timestamp).
        opt last_modified: String = "lastModified" [DOE | NULLABLE];
        /// How important the content is, from 0 (least) to 1 (most).
        opt priority: f64 = "priority" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// Who a piece of content is intended for.
    pub enum Role {
        /// The model.
        Assistant = "assistant",
        /// The human user.
        User = "user",
    }
    Unknown, open_schema = false
}

wire_object! {
    /// Plain text content.
    #[new(text: impl Into<String>)]
    pub struct TextContent {
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// The text.
        req text: String = "text";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An image, carried as base64 data.
    #[new(data: impl Into<String>, mime_type: impl Into<String>)]
    pub struct ImageContent {
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// The base64-encoded bytes.
        req data: String = "data";
        /// The MIME type.
        req mime_type: String = "mimeType";
        /// Where the image came from.
        opt uri: String = "uri" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Audio, carried as base64 data.
    #[new(data: impl Into<String>, mime_type: impl Into<String>)]
    pub struct AudioContent {
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// The base64-encoded bytes.
        req data: String = "data";
        /// The MIME type.
        req mime_type: String = "mimeType";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A reference to a resource the agent can fetch itself.
    #[new(name: impl Into<String>, uri: impl Into<String>)]
    pub struct ResourceLink {
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// The MIME type.
        opt mime_type: String = "mimeType" [DOE | NULLABLE];
        /// A human-readable name.
        req name: String = "name";
        /// The size of the resource in bytes.
        opt size: i64 = "size" [DOE | NULLABLE];
        /// A human-readable title.
        opt title: String = "title" [DOE | NULLABLE];
        /// The URI of the resource.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A resource whose contents are included inline.
    #[new(resource: impl Into<EmbeddedResourceResource>)]
    pub struct EmbeddedResource {
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// The contents of the resource.
        req resource: EmbeddedResourceResource = "resource";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The text contents of a resource.
    #[new(text: impl Into<String>, uri: impl Into<String>)]
    pub struct TextResourceContents {
        /// The MIME type.
        opt mime_type: String = "mimeType" [DOE | NULLABLE];
        /// The text.
        req text: String = "text";
        /// The URI of the resource.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The binary contents of a resource, base64-encoded.
    #[new(blob: impl Into<String>, uri: impl Into<String>)]
    pub struct BlobResourceContents {
        /// The base64-encoded bytes.
        req blob: String = "blob";
        /// The MIME type.
        opt mime_type: String = "mimeType" [DOE | NULLABLE];
        /// The URI of the resource.
        req uri: String = "uri";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// The contents of an embedded resource: text or binary.
///
/// The schema tells the two apart by shape: text contents have a `text` field, binary contents
/// a `blob` field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EmbeddedResourceResource {
    /// Text contents.
    TextResourceContents(TextResourceContents),
    /// Binary contents, base64-encoded.
    BlobResourceContents(BlobResourceContents),
}

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for EmbeddedResourceResource {}

impl EmbeddedResourceResource {
    /// The URI of the resource, text or binary.
    pub fn uri(&self) -> &str {
        match self {
            Self::TextResourceContents(text) => &text.uri,
            Self::BlobResourceContents(blob) => &blob.uri,
        }
    }

    /// The MIME type of the resource, if given.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            Self::TextResourceContents(text) => text.mime_type.as_deref(),
            Self::BlobResourceContents(blob) => blob.mime_type.as_deref(),
        }
    }

    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        match &value {
            serde_json::Value::Object(map) if map.contains_key("text") => {
                crate::wire::decode_buffered(&value).map(Self::TextResourceContents)
            }
            serde_json::Value::Object(map) if map.contains_key("blob") => {
                crate::wire::decode_buffered(&value).map(Self::BlobResourceContents)
            }
            serde_json::Value::Object(_) => Err(serde_json::Error::custom(
                "resource contents need a `text` or a `blob` field",
            )),
            other => Err(serde_json::Error::invalid_type(
                crate::wire::unexpected(other),
                &"an object",
            )),
        }
    }
}

impl From<TextResourceContents> for EmbeddedResourceResource {
    fn from(value: TextResourceContents) -> Self {
        Self::TextResourceContents(value)
    }
}

impl From<BlobResourceContents> for EmbeddedResourceResource {
    fn from(value: BlobResourceContents) -> Self {
        Self::BlobResourceContents(value)
    }
}

impl serde::Serialize for EmbeddedResourceResource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::TextResourceContents(v) => v.serialize(serializer),
            Self::BlobResourceContents(v) => v.serialize(serializer),
        }
    }
}

crate::wire::deserialize_via_value!(EmbeddedResourceResource, EmbeddedResourceResource::decode);

impl schemars::JsonSchema for EmbeddedResourceResource {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EmbeddedResourceResource".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let text = generator.subschema_for::<TextResourceContents>();
        let blob = generator.subschema_for::<BlobResourceContents>();
        schemars::json_schema!({
            "description": "The contents of an embedded resource: text or binary.",
            "anyOf": [{ "allOf": [text] }, { "allOf": [blob] }],
        })
    }
}
