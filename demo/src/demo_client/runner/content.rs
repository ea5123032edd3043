//! The content of a prompt: its text, and a block per `@mention` of a file or URL.

use std::path::Path;

use acp_types::*;
use serde_json::json;

use super::Runner;

impl Runner {
    /// What content the agent takes in prompts, in v1's terms whatever the version.
    fn prompt_capabilities(&self) -> PromptCapabilities {
        #[cfg(feature = "unstable_protocol_v2")]
        if let Some(v2) = &self.v2 {
            // v2 marks support with an object where v1 had `true`.
            let prompt = v2
                .initialize_response()
                .capabilities
                .as_ref()
                .and_then(|c| c.session.as_ref())
                .and_then(|s| s.prompt.as_ref());
            return PromptCapabilities::new()
                .image(prompt.is_some_and(|p| p.image.is_some()))
                .audio(prompt.is_some_and(|p| p.audio.is_some()))
                .embedded_context(prompt.is_some_and(|p| p.embedded_context.is_some()));
        }
        self.agent
            .agent_capabilities()
            .and_then(|c| c.prompt_capabilities.clone())
            .unwrap_or_default()
    }

    /// The prompt's content: its text, then a block per `@mention`, as the agent accepts them.
    pub(super) fn blocks(&self, text: &str) -> Vec<ContentBlock> {
        let mut blocks = vec![ContentBlock::from(text)];
        let prompt = self.prompt_capabilities();
        let accepts = |flag: Option<bool>| flag == Some(true);
        for word in text.split_whitespace() {
            let Some(target) = word.strip_prefix('@') else {
                continue;
            };
            let target = target.trim_end_matches([',', '.', '?', '!', ')', ';', ':']);
            if target.is_empty() {
                continue;
            }
            if target.contains("://") {
                let name = target.rsplit('/').find(|s| !s.is_empty()).unwrap_or(target);
                blocks.push(ResourceLink::new(name, target).into());
                continue;
            }
            let root = self.shared.workspace.root();
            let path = root.join(target).display().to_string();
            let file = self
                .shared
                .workspace
                .resolve_existing(&path)
                .and_then(|real| {
                    std::fs::read(&real)
                        .map(|bytes| (real, bytes))
                        .map_err(ErrorObject::internal_error)
                });
            let (real, bytes) = match file {
                Ok(file) => file,
                Err(error) => {
                    let out = &self.shared.output;
                    out.event(
                        json!({ "event": "note", "text": format!("cannot attach {target}: {error}") }),
                        Some(out.style().dim(&format!("  (cannot attach {target}: {error})"))),
                    );
                    continue;
                }
            };
            let uri = format!("file://{}", real.display());
            let name = file_name(&real);
            let mime = mime_type(&real);
            let block: ContentBlock = if mime.starts_with("image/") && accepts(prompt.image) {
                ImageContent::from_bytes(&bytes, mime).uri(uri).into()
            } else if mime.starts_with("audio/") && accepts(prompt.audio) {
                AudioContent::from_bytes(&bytes, mime).into()
            } else if accepts(prompt.embedded_context) {
                match String::from_utf8(bytes) {
                    Ok(text) => {
                        EmbeddedResource::new(TextResourceContents::new(text, uri).mime_type(mime))
                            .into()
                    }
                    Err(e) => EmbeddedResource::new(
                        BlobResourceContents::from_bytes(uri, e.as_bytes()).mime_type(mime),
                    )
                    .into(),
                }
            } else {
                // The agent takes neither the kind nor embedded context: a link it can follow.
                let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
                ResourceLink::new(name, uri)
                    .mime_type(mime)
                    .size(size)
                    .into()
            };
            blocks.push(block);
        }
        blocks
    }
}

pub(super) fn kind_of(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text(_) => "text",
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::ResourceLink(_) => "resource_link",
        ContentBlock::Resource(_) => "resource",
        _ => "unknown",
    }
}

pub(super) fn attachment(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Image(i) => format!("an image ({})", i.mime_type),
        ContentBlock::Audio(a) => format!("audio ({})", a.mime_type),
        ContentBlock::ResourceLink(l) => format!("a link to {}", l.uri),
        ContentBlock::Resource(r) => match &r.resource {
            EmbeddedResourceResource::TextResourceContents(t) => {
                format!("the text of {}", file_uri_name(&t.uri))
            }
            EmbeddedResourceResource::BlobResourceContents(b) => {
                format!("the bytes of {}", file_uri_name(&b.uri))
            }
            _ => "a resource".to_owned(),
        },
        other => kind_of(other).to_owned(),
    }
}

fn file_uri_name(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or(uri)
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A MIME type from the file extension (enough for an example).
fn mime_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "wav" => "audio/wav",
        "mp3" => "audio/mpeg",
        "ogg" => "audio/ogg",
        "md" => "text/markdown",
        "rs" => "text/x-rust",
        "json" => "application/json",
        "txt" | "" => "text/plain",
        _ => "application/octet-stream",
    }
}
