//! End-of-turn token usage (`unstable_end_turn_token_usage`): the tokens a prompt turn used,
//! reported in [`PromptResponse::usage`](crate::PromptResponse::usage).

use crate::wire::{Extras, Meta, wire_object};

wire_object! {
    /// The tokens a prompt turn used.
    pub struct Usage {
        /// All tokens of the turn.
        req total_tokens: u64 = "totalTokens";
        /// Input tokens.
        req input_tokens: u64 = "inputTokens";
        /// Output tokens.
        req output_tokens: u64 = "outputTokens";
        /// Reasoning tokens.
        opt thought_tokens: u64 = "thoughtTokens" [DOE | NULLABLE];
        /// Tokens read from the prompt cache.
        opt cached_read_tokens: u64 = "cachedReadTokens" [DOE | NULLABLE];
        /// Tokens written to the prompt cache.
        opt cached_write_tokens: u64 = "cachedWriteTokens" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

impl Usage {
    /// Builds the value from its required fields; optional ones start absent.
    pub fn new(total_tokens: u64, input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            total_tokens,
            input_tokens,
            output_tokens,
            thought_tokens: None,
            cached_read_tokens: None,
            cached_write_tokens: None,
            meta: None,
            extras: Extras::default(),
        }
    }
}
