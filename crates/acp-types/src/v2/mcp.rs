//! MCP server configurations.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;
use super::shape::keywords;

tagged_union! {
    /// An MCP server the agent should connect to for the session.
    pub enum McpServer {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        variants {
            /// Over streamable HTTP.
            Http(McpServerHttp) = "http",
            /// Through the ACP connection itself (draft).
            #[cfg(feature = "unstable_mcp_over_acp")]
            Acp(McpServerAcp) = "acp",
            /// The `McpServerStdio` of ACP v2.
            Stdio(McpServerStdio) = "stdio",
        }
    }
}

wire_object! {
    /// An MCP server reached over streamable HTTP.
    #[schema_extend(schema_mcp_server_http)]
    #[new(name: impl Into<String>, url: impl Into<String>)]
    pub struct McpServerHttp {
        /// A human-readable name.
        req name: String = "name";
        /// The server's URL.
        req url: String = "url";
        /// HTTP headers to send.
        opt headers: Vec<HttpHeader> = "headers" [NULL_DEFAULT];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`McpServerHttp`] what the types of its fields do not say.
fn schema_mcp_server_http(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"url": {"format": "uri"}}));
}

wire_object! {
    /// The `McpServerStdio` of ACP v2.
    #[new(name: impl Into<String>, command: impl Into<AbsolutePath>)]
    pub struct McpServerStdio {
        /// A human-readable name for the server.
        req name: String = "name";
        /// The program to run (an absolute path).
        req command: AbsolutePath = "command";
        /// The program's arguments.
        opt args: Vec<String> = "args" [NULL_DEFAULT];
        /// Environment variables for the program.
        opt env: Vec<EnvVariable> = "env" [NULL_DEFAULT];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
