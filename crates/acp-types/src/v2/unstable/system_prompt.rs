//! The v2 definitions of the draft feature `unstable_session_options`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use crate::v2::prelude::*;

wire_object! {
    /// Client-provided system-level instructions for a session. Only sent when the agent
    /// advertises `sessionCapabilities.systemPrompt`; an agent that cannot apply it (a mode it
    /// did not advertise, a content block it does not support) refuses the request instead of
    /// starting the session.
    #[new(mode: impl Into<SystemPromptMode>, content: impl Into<Vec<ContentBlock>>)]
    pub struct SystemPrompt {
        /// How the agent combines `content` with its own instructions.
        req mode: SystemPromptMode = "mode";
        /// The instructions: `text` blocks, never an empty list.
        req content: Vec<ContentBlock> = "content";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

// The definitions of this draft v2 shares with v1: v1's types.
pub use crate::{
    SessionSystemPromptCapabilities, SessionSystemPromptModeCapabilities,
    SessionSystemPromptOverrideCapabilities, SystemPromptMode,
};
