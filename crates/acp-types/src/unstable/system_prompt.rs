//! Session options (`unstable_session_options`): a client-provided system prompt on
//! `session/new`, `session/load`, `session/resume` and `session/fork`.

use crate::prelude::*;

wire_object! {
    /// Client-provided system-level instructions for a session.
    ///
    /// Only sent when the agent advertises `sessionCapabilities.systemPrompt`; an agent that
    /// cannot apply it (a mode it did not advertise, a content block it does not support)
    /// refuses the request instead of starting the session.
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

string_enum! {
    /// How the agent combines a client's system prompt with its own instructions. An open
    /// set: other values are kept, and an agent refuses the ones it does not support.
    pub enum SystemPromptMode {
        /// After the agent's own instructions (every agent with the capability supports it).
        Append = "append",
        /// Instead of the agent's built-in default instructions (needs
        /// `sessionCapabilities.systemPrompt.mode.override`).
        Override = "override",
    }
    Other, open_schema = true
}

wire_object! {
    /// The agent accepts `systemPrompt` on session lifecycle requests, in `append` mode and
    /// the modes listed (advertised in `sessionCapabilities.systemPrompt`).
    #[optional_fields(new)]
    pub struct SessionSystemPromptCapabilities {
        /// The modes supported besides `append`.
        opt mode: SessionSystemPromptModeCapabilities = "mode" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The system prompt modes the agent supports besides `append`.
    #[optional_fields(new)]
    pub struct SessionSystemPromptModeCapabilities {
        /// Support for `override`.
        opt r#override: SessionSystemPromptOverrideCapabilities = "override" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent can replace its built-in default instructions with the client's system
    /// prompt (`override` mode).
    #[optional_fields(new)]
    pub struct SessionSystemPromptOverrideCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl SystemPrompt {
    /// Ok when an agent advertising `caps` (None: no `sessionCapabilities.systemPrompt`)
    /// accepts this prompt's mode; Err(the capability path) otherwise.
    ///
    /// # Errors
    ///
    /// The capability the mode needs: `sessionCapabilities.systemPrompt` for any prompt,
    /// `sessionCapabilities.systemPrompt.mode.override` for `override`, and a mode this
    /// library does not know needs `sessionCapabilities.systemPrompt.mode`.
    pub fn allowed_by(
        &self,
        caps: Option<&SessionSystemPromptCapabilities>,
    ) -> Result<(), &'static str> {
        let Some(caps) = caps else {
            return Err("sessionCapabilities.systemPrompt");
        };
        let modes = caps.mode.as_ref();
        match &self.mode {
            SystemPromptMode::Append => Ok(()),
            SystemPromptMode::Override => modes
                .and_then(|m| m.r#override.as_ref())
                .map(|_| ())
                .ok_or("sessionCapabilities.systemPrompt.mode.override"),
            SystemPromptMode::Other(_) => Err("sessionCapabilities.systemPrompt.mode"),
        }
    }
}
