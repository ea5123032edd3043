//! The identifier of a session, named by nearly every message.

use crate::prelude::*;

id_type! {
    /// Identifies a conversation session between a client and an agent.
    pub struct SessionId;
}
