//! The draft (unstable) parts of the protocol, each behind its cargo feature.
//!
//! Their types are re-exported at the crate root, like the stable ones.

#[cfg(feature = "unstable_session_compaction")]
mod compaction;
#[cfg(feature = "unstable_nes")]
mod document;
#[cfg(feature = "unstable_session_fork")]
mod fork;
#[cfg(feature = "unstable_mcp_over_acp")]
mod mcp_over_acp;
#[cfg(feature = "unstable_nes")]
mod nes;
#[cfg(feature = "unstable_nes")]
mod nes_capabilities;
#[cfg(feature = "unstable_nes")]
mod nes_context;
#[cfg(feature = "unstable_session_notices")]
mod notices;
#[cfg(feature = "unstable_plan_operations")]
mod plan_operations;
#[cfg(feature = "unstable_llm_providers")]
mod providers;
#[cfg(feature = "unstable_end_turn_token_usage")]
mod usage;

#[cfg(feature = "unstable_session_compaction")]
pub use compaction::*;
#[cfg(feature = "unstable_nes")]
pub use document::*;
#[cfg(feature = "unstable_session_fork")]
pub use fork::*;
#[cfg(feature = "unstable_mcp_over_acp")]
pub use mcp_over_acp::*;
#[cfg(feature = "unstable_nes")]
pub use nes::*;
#[cfg(feature = "unstable_nes")]
pub use nes_capabilities::*;
#[cfg(feature = "unstable_nes")]
pub use nes_context::*;
#[cfg(feature = "unstable_session_notices")]
pub use notices::*;
#[cfg(feature = "unstable_plan_operations")]
pub use plan_operations::*;
#[cfg(feature = "unstable_llm_providers")]
pub use providers::*;
#[cfg(feature = "unstable_end_turn_token_usage")]
pub use usage::*;
