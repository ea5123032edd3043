//! The draft (unstable) parts of the protocol, each behind its cargo feature.
//!
//! Their types are re-exported at the crate root, like the stable ones.

#[cfg(feature = "unstable_session_archive")]
mod archive;
#[cfg(feature = "unstable_auth_status")]
mod auth_status;
#[cfg(feature = "unstable_session_fork")]
mod fork;
#[cfg(feature = "unstable_mcp_over_acp")]
mod mcp_over_acp;
#[cfg(feature = "unstable")]
mod plan_operations;
#[cfg(feature = "unstable_llm_providers")]
mod providers;
#[cfg(feature = "unstable_proxy_chains")]
pub(crate) mod proxy;
#[cfg(any(feature = "unstable_proxy_chains", feature = "unstable_mcp_over_acp"))]
mod raw_json;
#[cfg(feature = "unstable_session_status")]
mod session_status;
#[cfg(feature = "unstable_subagents")]
mod subagents;
#[cfg(feature = "unstable_session_options")]
mod system_prompt;
#[cfg(feature = "unstable_session_set_title")]
mod title;
#[cfg(feature = "unstable_end_turn_token_usage")]
mod usage;

#[cfg(feature = "unstable_session_archive")]
pub use archive::*;
#[cfg(feature = "unstable_auth_status")]
pub use auth_status::*;
#[cfg(feature = "unstable_session_fork")]
pub use fork::*;
#[cfg(feature = "unstable_mcp_over_acp")]
pub use mcp_over_acp::*;
#[cfg(feature = "unstable")]
pub use plan_operations::*;
#[cfg(feature = "unstable_llm_providers")]
pub use providers::*;
#[cfg(feature = "unstable_proxy_chains")]
pub use proxy::*;
#[cfg(any(feature = "unstable_proxy_chains", feature = "unstable_mcp_over_acp"))]
pub use raw_json::*;
#[cfg(feature = "unstable_session_status")]
pub use session_status::*;
#[cfg(feature = "unstable_subagents")]
pub use subagents::*;
#[cfg(feature = "unstable_session_options")]
pub use system_prompt::*;
#[cfg(feature = "unstable_session_set_title")]
pub use title::*;
#[cfg(feature = "unstable_end_turn_token_usage")]
pub use usage::*;
