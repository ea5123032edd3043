//! File system methods the client serves to the agent.

use crate::prelude::*;

wire_object! {
    /// Asks the client to read a text file, possibly a line range of it (`fs/read_text_file`).
    #[new(session_id: impl Into<SessionId>, path: impl AsRef<Path>)]
    pub struct ReadTextFileRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// An absolute file path.
        req path: String as path = "path";
        /// The 1-based line to start reading at.
        opt line: u32 = "line" [NULLABLE];
        /// The maximum number of lines to read.
        opt limit: u32 = "limit" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client's answer to `fs/read_text_file`: the file's text.
    #[new(content: impl Into<String>)]
    pub struct ReadTextFileResponse {
        /// The text read.
        req content: String = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the client to write a text file (`fs/write_text_file`).
    #[new(session_id: impl Into<SessionId>, path: impl AsRef<Path>, content: impl Into<String>)]
    pub struct WriteTextFileRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// An absolute file path.
        req path: String as path = "path";
        /// The text to write.
        req content: String = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
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
