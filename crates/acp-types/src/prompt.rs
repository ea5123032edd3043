//! Prompt turns.

use crate::prelude::*;

wire_object! {
    /// Sends the user's prompt to the agent and starts a turn (`session/prompt`).
    #[new(session_id: impl Into<SessionId>, prompt: impl Into<Vec<ContentBlock>>)]
    pub struct PromptRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The user's message.
        req prompt: Vec<ContentBlock> = "prompt";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/prompt`, sent when the turn ends.
    #[new(stop_reason: impl Into<StopReason>)]
    pub struct PromptResponse {
        /// Why the turn ended.
        req stop_reason: StopReason = "stopReason";
        /// The tokens the turn used (draft).
        #[cfg(feature = "unstable_end_turn_token_usage")]
        opt usage: Usage = "usage" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// Why a prompt turn ended.
    pub enum StopReason {
        /// The model finished its turn.
        EndTurn = "end_turn",
        /// The token limit was reached.
        MaxTokens = "max_tokens",
        /// The limit of model requests in one turn was reached.
        MaxTurnRequests = "max_turn_requests",
        /// The agent refused to continue.
        Refusal = "refusal",
        /// The client cancelled the turn.
        Cancelled = "cancelled",
    }
    Unknown, open_schema = false
}
