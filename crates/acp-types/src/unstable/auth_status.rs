//! Auth status (`unstable_auth_status`): the client asks whether the agent can start sessions
//! without a sign-in (`auth/status`), and the agent reports changes (`auth/status_update`).

use crate::prelude::*;

string_enum! {
    /// The agent's overall authentication state. An open set: other values are kept as they
    /// are, and clients treat them as `unknown`.
    pub enum AuthState {
        /// The user is signed in: sessions can start.
        Authenticated = "authenticated",
        /// The user must sign in before sessions can start.
        Unauthenticated = "unauthenticated",
        /// The agent needs no sign-in.
        NotRequired = "not_required",
        /// The agent cannot tell.
        Unknown = "unknown",
    }
    Other, open_schema = true
}

wire_object! {
    /// An account or credential the agent has configured (a signed-in user, an API key).
    ///
    /// Display information only: not a stable account identifier, not for logs or telemetry.
    #[new(label: impl Into<String>)]
    pub struct AuthAccount {
        /// A name for the account, fit to show on its own (`Claude Max`, `OpenAI API key`).
        req label: String = "label";
        /// Whether the agent uses this account by default (several may be active).
        opt active: bool = "active" [DOE | NULLABLE];
        /// The user's display name.
        opt name: String = "name" [DOE | NULLABLE];
        /// The user's email address.
        opt email: String = "email" [DOE | NULLABLE];
        /// The organization, team or workspace the account uses.
        opt organization: String = "organization" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks for the agent's authentication state without changing it (`auth/status`).
    ///
    /// Only sent when the agent advertises `auth.status`; the agent never answers it with
    /// `auth_required`.
    #[optional_fields(new)]
    pub struct AuthStatusRequest {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `auth/status`.
    #[new(state: impl Into<AuthState>)]
    pub struct AuthStatusResponse {
        /// Whether sessions can start without a sign-in: the only field clients act on.
        req state: AuthState = "state";
        /// The accounts the agent has configured, for display (absent and empty are the same).
        opt accounts: Vec<AuthAccount> = "accounts" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's authentication state changed (`auth/status_update`, agent to client).
    ///
    /// The same fields as the `auth/status` response; only sent by agents that advertise
    /// `auth.status`, after `initialize`.
    #[new(state: impl Into<AuthState>)]
    pub struct AuthStatusUpdateNotification {
        /// Whether sessions can start without a sign-in.
        req state: AuthState = "state";
        /// The accounts the agent has configured, for display.
        opt accounts: Vec<AuthAccount> = "accounts" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent supports `auth/status` and sends `auth/status_update` (advertised in
    /// `auth.status`).
    #[optional_fields(new)]
    pub struct AuthStatusCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
