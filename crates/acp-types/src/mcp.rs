//! MCP servers the client asks the agent to connect to.

#![allow(unused_imports)]

use std::collections::BTreeMap;

use crate::wire::{Extras, Meta, wire_object};
use crate::wire_enum::{id_type, string_enum, tagged_union};
use crate::*;

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
    pub struct McpServerHttp {
        /// A human-readable name.
        req name: String = "name";
        /// The server's URL.
        req url: String = "url";
        /// HTTP headers to send.
        req headers: Vec<HttpHeader> = "headers";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl McpServerHttp {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        name: impl Into<String>,
        url: impl Into<String>,
        headers: impl Into<Vec<HttpHeader>>,
    ) -> Self {
        Self {
            name: name.into(),
            url: url.into(),
            headers: headers.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// An MCP server reached over server-sent events.
    pub struct McpServerSse {
        /// A human-readable name.
        req name: String = "name";
        /// The server's URL.
        req url: String = "url";
        /// HTTP headers to send.
        req headers: Vec<HttpHeader> = "headers";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl McpServerSse {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        name: impl Into<String>,
        url: impl Into<String>,
        headers: impl Into<Vec<HttpHeader>>,
    ) -> Self {
        Self {
            name: name.into(),
            url: url.into(),
            headers: headers.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// An MCP server the agent starts as a child process and talks to over stdio.
    pub struct McpServerStdio {
        /// A human-readable name for the server.
        req name: String = "name";
        /// The program to run (an absolute path).
        req command: String = "command";
        /// The program's arguments.
        req args: Vec<String> = "args";
        /// Environment variables for the program.
        req env: Vec<EnvVariable> = "env";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl McpServerStdio {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl Into<Vec<String>>,
        env: impl Into<Vec<EnvVariable>>,
    ) -> Self {
        Self {
            name: name.into(),
            command: command.into(),
            args: args.into(),
            env: env.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}

wire_object! {
    /// An HTTP header to send to an MCP server.
    pub struct HttpHeader {
        /// The header's name.
        req name: String = "name";
        /// The header's value.
        req value: String = "value";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl HttpHeader {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            meta: None,
            extras: Extras::default(),
        }
    }
}
