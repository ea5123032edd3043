//! End-of-turn token usage (`unstable_end_turn_token_usage`): the tokens a prompt turn used,
//! reported in [`PromptResponse::usage`](crate::PromptResponse::usage).

use crate::prelude::*;

wire_object! {
    /// The tokens a prompt turn used.
    #[new(total_tokens: u64, input_tokens: u64, output_tokens: u64)]
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
