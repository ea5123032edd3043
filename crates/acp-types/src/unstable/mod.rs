//! The draft (unstable) parts of the protocol, each behind its cargo feature.
//!
//! Their types are re-exported at the crate root, like the stable ones.

#[cfg(feature = "unstable_session_fork")]
mod fork;
#[cfg(feature = "unstable_mcp_over_acp")]
mod mcp_over_acp;
#[cfg(feature = "unstable")]
mod plan_operations;
#[cfg(feature = "unstable_llm_providers")]
mod providers;
#[cfg(feature = "unstable_end_turn_token_usage")]
mod usage;

#[cfg(feature = "unstable_session_fork")]
pub use fork::*;
#[cfg(feature = "unstable_mcp_over_acp")]
pub use mcp_over_acp::*;
#[cfg(feature = "unstable")]
pub use plan_operations::*;
#[cfg(feature = "unstable_llm_providers")]
pub use providers::*;
#[cfg(feature = "unstable_end_turn_token_usage")]
pub use usage::*;
