//! The v2 definitions of the draft feature `unstable_mcp_over_acp`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use crate::v2::prelude::*;

wire_object! {
    /// The `McpAcpCapabilities` of ACP v2.
    #[optional_fields(new)]
    pub struct McpAcpCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

// The definitions of this draft v2 shares with v1: v1's types.
pub use crate::{
    McpError, McpRequestId, McpServerAcp, McpServerAcpId, MessageMcpNotification,
    MessageMcpRequest, MessageMcpResponse,
};
