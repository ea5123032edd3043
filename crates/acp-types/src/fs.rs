//! File system methods the client serves to the agent.

#![allow(unused_imports)]

use std::collections::BTreeMap;

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::{id_type, string_enum, tagged_union};
use crate::*;

wire_object! {
    /// Asks the client to read a text file, possibly a line range of it (`fs/read_text_file`).
    pub struct ReadTextFileRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// An absolute file path.
        req path: String = "path";
        /// The 1-based line to start reading at.
        opt line: u32 = "line" [DOE | NULLABLE];
        /// The maximum number of lines to read.
        opt limit: u32 = "limit" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl ReadTextFileRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(session_id: impl Into<SessionId>, path: impl AsRef<std::path::Path>) -> Self {
        Self {
            session_id: session_id.into(),
            path: crate::field::path_text(path),
            line: None,
            limit: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The client's answer to `fs/read_text_file`: the file's text.
    pub struct ReadTextFileResponse {
        /// The text read.
        req content: String = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl ReadTextFileResponse {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// Asks the client to write a text file (`fs/write_text_file`).
    pub struct WriteTextFileRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// An absolute file path.
        req path: String = "path";
        /// The text to write.
        req content: String = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl WriteTextFileRequest {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        session_id: impl Into<SessionId>,
        path: impl AsRef<std::path::Path>,
        content: impl Into<String>,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            path: crate::field::path_text(path),
            content: content.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// The client's answer to `fs/write_text_file`.
    #[optional_fields(new)]
    pub struct WriteTextFileResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
