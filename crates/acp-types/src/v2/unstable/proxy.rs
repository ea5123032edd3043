//! The v2 definitions of the draft feature `unstable_proxy_chains`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use crate::unstable::proxy::same_as;
use crate::v2::prelude::*;

same_as! {
    /// Starts a proxy (`proxy/initialize`, conductor to a component that has a successor): the
    /// params of `initialize`, with the protocol version the conductor selected. Before
    /// answering, the proxy forwards an `initialize` to its successor through
    /// `proxy/successor`.
    pub struct InitializeProxyRequest(InitializeRequest);
}

same_as! {
    /// The proxy's answer to `proxy/initialize`: the result of `initialize`.
    pub struct InitializeProxyResponse(InitializeResponse);
}

// The definitions of this draft v2 shares with v1: v1's types.
pub use crate::{ProxySuccessorNotification, ProxySuccessorRequest, ProxySuccessorResponse};
