//! Structured diffs: file-level changes and renderable patch text.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::check::require;
use super::prelude::*;
use super::shape::{only_properties, set_required};

string_enum! {
    /// What a diff change does to its file.
    pub enum DiffOperation {
        /// A file was created.
        Add = "add",
        /// A file was deleted.
        Delete = "delete",
        /// A file was changed in place.
        Modify = "modify",
        /// A file was moved or renamed.
        Move = "move",
        /// A file was copied.
        Copy = "copy",
    }
    Unknown, open_schema = true, inline = true
}
wire_object! {
    /// One file-level change of a diff: its operation (`add`, `delete`, `modify` with `path`;
    /// `move`, `copy` with `oldPath` and `path`) and what is known about the file.
    #[schema_extend(schema_diff_change)]
    #[check(check_diff_change)]
    #[new(operation: impl Into<DiffOperation>)]
    pub struct DiffChange {
        /// What happened to the file.
        req operation: DiffOperation = "operation";
        /// What kind of file it is (after the operation; of the deleted file for `delete`).
        opt file_type: DiffFileType = "fileType" [DOE | NULLABLE];
        /// The MIME type of the file (after the operation; of the deleted file for `delete`).
        opt mime_type: MediaType = "mimeType" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
        /// The file's absolute path (after the operation).
        opt path: AbsolutePath = "path";
        /// The absolute path the file was moved or copied from.
        opt old_path: AbsolutePath = "oldPath";
    }
}

/// Checks what the schema requires of a [`DiffChange`] beyond its fields: what its kind needs.
fn check_diff_change(value: &DiffChange) -> Result<(), String> {
    match &value.operation {
        DiffOperation::Add => {
            require(&[("path", value.path.is_some())])?;
        }
        DiffOperation::Delete => {
            require(&[("path", value.path.is_some())])?;
        }
        DiffOperation::Modify => {
            require(&[("path", value.path.is_some())])?;
        }
        DiffOperation::Move => {
            require(&[
                ("oldPath", value.old_path.is_some()),
                ("path", value.path.is_some()),
            ])?;
        }
        DiffOperation::Copy => {
            require(&[
                ("oldPath", value.old_path.is_some()),
                ("path", value.path.is_some()),
            ])?;
        }
        _ => {}
    }
    Ok(())
}

/// Gives the schema of a [`DiffChange`] the official shape: its common members, and its
/// kinds as references to their definitions.
fn schema_diff_change(object: &mut serde_json::Map<String, serde_json::Value>) {
    only_properties(object, &["fileType", "mimeType", "_meta"]);
    set_required(object, &[]);
    object.insert("anyOf".into(), serde_json::json!([{"type": "object", "properties": {"operation": {"type": "string", "const": "add"}}, "required": ["operation"], "allOf": [{"$ref": "#/$defs/DiffPathChange"}]}, {"type": "object", "properties": {"operation": {"type": "string", "const": "delete"}}, "required": ["operation"], "allOf": [{"$ref": "#/$defs/DiffPathChange"}]}, {"type": "object", "properties": {"operation": {"type": "string", "const": "modify"}}, "required": ["operation"], "allOf": [{"$ref": "#/$defs/DiffPathChange"}]}, {"type": "object", "properties": {"operation": {"type": "string", "const": "move"}}, "required": ["operation"], "allOf": [{"$ref": "#/$defs/DiffPathPairChange"}]}, {"type": "object", "properties": {"operation": {"type": "string", "const": "copy"}}, "required": ["operation"], "allOf": [{"$ref": "#/$defs/DiffPathPairChange"}]}, {"type": "object", "properties": {"operation": {"type": "string"}}, "required": ["operation"], "not": {"anyOf": [{"type": "object", "properties": {"operation": {"type": "string", "const": "add"}}, "required": ["operation"]}, {"type": "object", "properties": {"operation": {"type": "string", "const": "delete"}}, "required": ["operation"]}, {"type": "object", "properties": {"operation": {"type": "string", "const": "modify"}}, "required": ["operation"]}, {"type": "object", "properties": {"operation": {"type": "string", "const": "move"}}, "required": ["operation"]}, {"type": "object", "properties": {"operation": {"type": "string", "const": "copy"}}, "required": ["operation"]}]}, "additionalProperties": true}]));
}

string_enum! {
    /// What kind of file a diff change concerns.
    pub enum DiffFileType {
        /// A text file.
        Text = "text",
        /// A binary file.
        Binary = "binary",
        /// A directory.
        Directory = "directory",
        /// A symbolic link.
        Symlink = "symlink",
    }
    Unknown, open_schema = true
}

wire_object! {
    /// The fields of a diff change on one path (`add`, `delete`, `modify`).
    #[new(path: impl Into<AbsolutePath>)]
    pub struct DiffPathChange {
        /// The file's absolute path.
        req path: AbsolutePath = "path";
    }
}

wire_object! {
    /// The fields of a diff change from one path to another (`move`, `copy`).
    #[new(old_path: impl Into<AbsolutePath>, path: impl Into<AbsolutePath>)]
    pub struct DiffPathPairChange {
        /// The absolute path the file was moved or copied from.
        req old_path: AbsolutePath = "oldPath";
        /// The absolute path the file has after the operation.
        req path: AbsolutePath = "path";
    }
}

wire_object! {
    /// Renderable patch text for some or all changes of a diff.
    #[new(format: impl Into<DiffPatchFormat>, text: impl Into<String>)]
    pub struct DiffPatch {
        /// The format of `text`.
        req format: DiffPatchFormat = "format";
        /// The patch text, with absolute paths.
        req text: String = "text";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// The format of a diff's patch text.
    pub enum DiffPatchFormat {
        /// `diff --git` sections in Git's patch text format.
        GitPatch = "git_patch",
    }
    Unknown, open_schema = true
}

wire_object! {
    /// File changes of a tool call: structured changes, and optional renderable patch text.
    #[new(changes: impl Into<Vec<DiffChange>>)]
    pub struct Diff {
        /// The file-level changes, authoritative for the paths and operations.
        req changes: Vec<DiffChange> = "changes" [SKIP];
        /// Renderable patch text, consistent with `changes`.
        opt patch: DiffPatch = "patch" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
