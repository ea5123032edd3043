//! MCP servers the client asks the agent to connect to.

use crate::prelude::*;

tagged_union! {
    /// An MCP server the agent should connect to for the session.
    pub enum McpServer {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = false,
        default = Stdio(McpServerStdio) = "stdio",
        unknown = Unknown,
        variants {
            /// Over streamable HTTP.
            Http(McpServerHttp) = "http",
            /// Over server-sent events.
            Sse(McpServerSse) = "sse",
            /// Through the ACP connection itself (draft).
            #[cfg(feature = "unstable_mcp_over_acp")]
            Acp(McpServerAcp) = "acp",
        }
    }
}

wire_object! {
    /// An MCP server reached over streamable HTTP.
    #[new(name: impl Into<String>, url: impl Into<String>, headers: impl Into<Vec<HttpHeader>>)]
    pub struct McpServerHttp {
        /// A human-readable name.
        req name: String = "name";
        /// The server's URL.
        req url: String = "url";
        /// HTTP headers to send.
        req headers: Vec<HttpHeader> = "headers" [NULL_DEFAULT];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An MCP server reached over server-sent events.
    #[new(name: impl Into<String>, url: impl Into<String>, headers: impl Into<Vec<HttpHeader>>)]
    pub struct McpServerSse {
        /// A human-readable name.
        req name: String = "name";
        /// The server's URL.
        req url: String = "url";
        /// HTTP headers to send.
        req headers: Vec<HttpHeader> = "headers" [NULL_DEFAULT];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An MCP server the agent starts as a child process and talks to over stdio.
    #[new(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl Into<Vec<String>>,
        env: impl Into<Vec<EnvVariable>>,
    )]
    pub struct McpServerStdio {
        /// A human-readable name for the server.
        req name: String = "name";
        /// The program to run (an absolute path).
        req command: String = "command";
        /// The program's arguments.
        req args: Vec<String> = "args" [NULL_DEFAULT];
        /// Environment variables for the program.
        req env: Vec<EnvVariable> = "env" [NULL_DEFAULT];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An HTTP header to send to an MCP server.
    #[new(name: impl Into<String>, value: impl Into<String>)]
    pub struct HttpHeader {
        /// The header's name.
        req name: String = "name";
        /// The header's value.
        req value: String = "value";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
