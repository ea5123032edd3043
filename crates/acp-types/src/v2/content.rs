//! Content blocks: what prompts, messages and tool results are made of.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;
use super::shape::keywords;

tagged_union! {
    /// One piece of content in a prompt, a message chunk or a tool result.
    pub enum ContentBlock {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
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
    #[schema_extend(schema_annotations)]
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

/// Adds to the schema of a [`Annotations`] what the types of its fields do not say.
fn schema_annotations(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"priority": {"minimum": 0, "maximum": 1}}),
    );
}

string_enum! {
    /// Who a piece of content is intended for.
    pub enum Role {
        /// The model.
        Assistant = "assistant",
        /// The human user.
        User = "user",
    }
    Unknown, open_schema = true
}

wire_object! {
    /// Plain text content.
    #[new(text: impl Into<String>)]
    pub struct TextContent {
        /// The text.
        req text: String = "text";
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An image, carried as base64 data.
    #[schema_extend(schema_image_content)]
    #[new(data: impl Into<String>, mime_type: impl Into<MediaType>)]
    pub struct ImageContent {
        /// The base64-encoded bytes.
        req data: String = "data";
        /// The MIME type.
        req mime_type: MediaType = "mimeType";
        /// Where the image came from.
        opt uri: String = "uri" [DOE | NULLABLE];
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`ImageContent`] what the types of its fields do not say.
fn schema_image_content(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"data": {"contentEncoding": "base64"}, "uri": {"format": "uri"}}),
    );
}

wire_object! {
    /// Audio, carried as base64 data.
    #[schema_extend(schema_audio_content)]
    #[new(data: impl Into<String>, mime_type: impl Into<MediaType>)]
    pub struct AudioContent {
        /// The base64-encoded bytes.
        req data: String = "data";
        /// The MIME type.
        req mime_type: MediaType = "mimeType";
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`AudioContent`] what the types of its fields do not say.
fn schema_audio_content(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"data": {"contentEncoding": "base64"}}),
    );
}

wire_object! {
    /// An icon a client may show for a resource.
    #[schema_extend(schema_icon)]
    #[new(src: impl Into<String>)]
    pub struct Icon {
        /// Where the icon is (a URI).
        req src: String = "src";
        /// The icon's MIME type, where its source does not tell it.
        opt mime_type: MediaType = "mimeType" [DOE | NULLABLE];
        /// The sizes the icon fits (`48x48`, `any`, ...).
        opt sizes: Vec<String> = "sizes" [DOE | SKIP | NULLABLE];
        /// The background the icon is designed for.
        opt theme: IconTheme = "theme" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`Icon`] what the types of its fields do not say.
fn schema_icon(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"src": {"format": "uri"}}));
}

string_enum! {
    /// The background an icon is designed for.
    pub enum IconTheme {
        /// For light backgrounds.
        Light = "light",
        /// For dark backgrounds.
        Dark = "dark",
    }
    Unknown, open_schema = true
}

wire_object! {
    /// A reference to a resource the agent can fetch itself.
    #[schema_extend(schema_resource_link)]
    #[new(name: impl Into<String>, uri: impl Into<String>)]
    pub struct ResourceLink {
        /// A human-readable name.
        req name: String = "name";
        /// The URI of the resource.
        req uri: String = "uri";
        /// A human-readable title.
        opt title: String = "title" [DOE | NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Icons a client may show for the resource.
        opt icons: Vec<Icon> = "icons" [DOE | SKIP | NULLABLE];
        /// The MIME type.
        opt mime_type: MediaType = "mimeType" [DOE | NULLABLE];
        /// The size of the resource in bytes.
        opt size: u64 = "size" [DOE | NULLABLE];
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`ResourceLink`] what the types of its fields do not say.
fn schema_resource_link(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"uri": {"format": "uri"}}));
}

wire_object! {
    /// The text contents of a resource.
    #[schema_extend(schema_text_resource_contents)]
    #[new(text: impl Into<String>, uri: impl Into<String>)]
    pub struct TextResourceContents {
        /// The text.
        req text: String = "text";
        /// The URI of the resource.
        req uri: String = "uri";
        /// The MIME type.
        opt mime_type: MediaType = "mimeType" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`TextResourceContents`] what the types of its fields do not say.
fn schema_text_resource_contents(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"uri": {"format": "uri"}}));
}

wire_object! {
    /// The binary contents of a resource, base64-encoded.
    #[schema_extend(schema_blob_resource_contents)]
    #[new(blob: impl Into<String>, uri: impl Into<String>)]
    pub struct BlobResourceContents {
        /// The base64-encoded bytes.
        req blob: String = "blob";
        /// The URI of the resource.
        req uri: String = "uri";
        /// The MIME type.
        opt mime_type: MediaType = "mimeType" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`BlobResourceContents`] what the types of its fields do not say.
fn schema_blob_resource_contents(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"blob": {"contentEncoding": "base64"}, "uri": {"format": "uri"}}),
    );
}

wire_object! {
    /// A resource whose contents are included inline.
    #[new(resource: impl Into<EmbeddedResourceResource>)]
    pub struct EmbeddedResource {
        /// The contents of the resource.
        req resource: EmbeddedResourceResource = "resource";
        /// Hints about use and display.
        opt annotations: Box<Annotations> = "annotations" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
