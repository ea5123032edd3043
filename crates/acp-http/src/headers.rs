//! The transport's header names.

/// `Acp-Connection-Id`: names the connection an HTTP request belongs to. The server assigns it
/// in its answer to `initialize` (or to the WebSocket upgrade); it routes, it does not
/// authenticate.
pub const CONNECTION_ID: &str = "acp-connection-id";

/// `Acp-Session-Id`: names the session a POST or a GET stream belongs to.
pub const SESSION_ID: &str = "acp-session-id";

/// `Acp-Protocol-Version`: the protocol version the connection negotiated in `initialize`, as
/// its decimal number (`1`, `2`). The transport draft says clients should send it on every
/// request after `initialize` and leaves its form open; the number is what `initialize`
/// negotiates. Our client sends it on every Streamable HTTP request of an initialized
/// connection; our server refuses a request whose value is not that connection's version
/// (`400`), and takes requests without it (older clients, other SDKs).
pub const PROTOCOL_VERSION: &str = "acp-protocol-version";

/// What is wrong with a bearer token for `Authorization: Bearer <token>`, if anything: the
/// same rule for the server that expects it and the client that sends it. A token must be
/// sent as it is, so it is visible ASCII (spaces only inside): HTTP drops the spaces around a
/// header value, and other bytes are not allowed in one.
pub(crate) fn bearer_token_problem(token: &str) -> Option<&'static str> {
    if token.is_empty() {
        Some("the bearer token is empty")
    } else if token.starts_with(' ') || token.ends_with(' ') {
        Some("the bearer token starts or ends with a space, which HTTP drops")
    } else if !token.bytes().all(|b| b == b' ' || b.is_ascii_graphic()) {
        Some(
            "the bearer token has characters a header cannot carry (only visible ASCII): \
             encode it, as base64url or hex",
        )
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::bearer_token_problem;

    #[test]
    fn bearer_tokens_are_visible_ascii_without_outer_spaces() {
        assert_eq!(bearer_token_problem("s3cret-_.~+/="), None);
        assert_eq!(bearer_token_problem("a b"), None);
        for bad in ["", " a", "a ", "a\tb", "a\nb", "é", "a\u{7f}"] {
            assert!(bearer_token_problem(bad).is_some(), "{bad:?}");
        }
    }
}
