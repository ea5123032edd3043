//! The client's error type.

use std::fmt;
use std::time::Duration;

/// The most of a response body kept in an error: 8 KiB.
pub const MAX_BODY_EXCERPT: usize = 8 * 1024;

/// Why a remote connection could not be made, or why it ended.
///
/// Each message names the URL and, for an HTTP answer, its status and the start of its body
/// (at most [`MAX_BODY_EXCERPT`] bytes).
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The URL cannot be used (not a URL, or a scheme the profile does not speak).
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An option cannot be used (a header value that is not valid in HTTP, ...).
    InvalidOption(String),
    /// The agent could not be reached, or the exchange with it broke off (DNS, TCP, TLS, a
    /// reset connection, a body that could not be read).
    Transport {
        /// What was being done: `POST`, `GET` (a stream), `WebSocket`.
        action: &'static str,
        /// The URL.
        url: String,
        /// The underlying error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The agent answered with an HTTP status that ends the connection (`401`, `403`, `404`
    /// or `410`, or any failure of a message that is not a request, or of a stream).
    Status {
        /// The request that got it: `POST`, `GET` (a stream), `WebSocket`.
        action: &'static str,
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
        /// The start of the body (at most [`MAX_BODY_EXCERPT`] bytes), lossily decoded.
        body: String,
    },
    /// The agent did not answer `initialize` as Streamable HTTP requires (a `2xx` status, an
    /// `Acp-Connection-Id` header, and a JSON-RPC response to that `initialize` as the body).
    Initialize {
        /// The URL.
        url: String,
        /// What was wrong.
        reason: String,
    },
    /// A stream the connection cannot do without ended: the connection's (or, in the
    /// `client_id` profile, the only) event stream, or the WebSocket.
    StreamEnded {
        /// The URL.
        url: String,
    },
    /// The agent took too long.
    Timeout {
        /// What was being waited for.
        action: &'static str,
        /// The URL.
        url: String,
        /// How long was waited.
        after: Duration,
    },
    /// The JSON-RPC connection over the transport failed.
    Rpc(acp_rpc::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidUrl { url, reason } => write!(f, "cannot connect to {url:?}: {reason}"),
            Error::InvalidOption(reason) => write!(f, "invalid connect option: {reason}"),
            Error::Transport {
                action,
                url,
                source,
            } => write!(f, "{action} {url} failed: {}", ErrorChain(&**source)),
            Error::Status {
                action,
                url,
                status,
                body,
            } => {
                write!(f, "{action} {url}: the agent answered {status}")?;
                if let Some(reason) = reqwest::StatusCode::from_u16(*status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                {
                    write!(f, " {reason}")?;
                }
                if !body.is_empty() {
                    write!(f, ": {}", body.trim_end())?;
                }
                Ok(())
            }
            Error::Initialize { url, reason } => {
                write!(
                    f,
                    "the agent at {url} did not answer initialize as required: {reason}"
                )
            }
            Error::StreamEnded { url } => {
                write!(f, "the agent at {url} ended the connection's event stream")
            }
            Error::Timeout { action, url, after } => {
                write!(f, "{action} {url}: no answer within {after:?}")
            }
            Error::Rpc(e) => write!(f, "the connection failed: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Transport { source, .. } => Some(&**source),
            Error::Rpc(e) => Some(e),
            _ => None,
        }
    }
}

impl From<acp_rpc::Error> for Error {
    fn from(e: acp_rpc::Error) -> Self {
        Error::Rpc(e)
    }
}

/// Displays an error with its sources (`a: b: c`): reqwest's own message alone is often just
/// "error sending request".
struct ErrorChain<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Some errors already show their source in their own text (an `io::Error` wrapping a
        // TLS error): a cause that the text so far ends with is not repeated.
        let mut text = self.0.to_string();
        let mut source = self.0.source();
        while let Some(s) = source {
            let cause = s.to_string();
            if !text.ends_with(&cause) {
                text.push_str(": ");
                text.push_str(&cause);
            }
            source = s.source();
        }
        f.write_str(&text)
    }
}

/// The start of a body, at most [`MAX_BODY_EXCERPT`] bytes, cut at a character boundary.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let cut = &body[..body.len().min(MAX_BODY_EXCERPT)];
    match std::str::from_utf8(cut) {
        Ok(text) => text.to_owned(),
        // A character cut in two at the end, or bytes that are not UTF-8 at all.
        Err(e) if e.error_len().is_none() => {
            String::from_utf8_lossy(&cut[..e.valid_up_to()]).into_owned()
        }
        Err(_) => String::from_utf8_lossy(cut).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_bounded_and_cut_at_characters() {
        assert_eq!(excerpt(b"short"), "short");
        let long = "é".repeat(MAX_BODY_EXCERPT);
        let cut = excerpt(long.as_bytes());
        assert!(cut.len() <= MAX_BODY_EXCERPT);
        assert!(cut.chars().all(|c| c == 'é'));
        assert_eq!(excerpt(b"\xff\xfe ok"), "\u{fffd}\u{fffd} ok");
    }

    #[test]
    fn messages_name_the_url_status_and_body() {
        let e = Error::Status {
            action: "POST",
            url: "http://127.0.0.1:1/acp".into(),
            status: 404,
            body: "Unknown Acp-Connection-Id\n".into(),
        };
        assert_eq!(
            e.to_string(),
            "POST http://127.0.0.1:1/acp: the agent answered 404 Not Found: Unknown Acp-Connection-Id"
        );
    }

    #[derive(Debug)]
    struct Cause(&'static str, Option<Box<Cause>>);

    impl fmt::Display for Cause {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Cause {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|c| c as _)
        }
    }

    #[test]
    fn causes_are_chained_once() {
        // An `io::Error` shows its inner error's text and also gives it as its source.
        let io = std::io::Error::other(Cause("invalid peer certificate", None));
        assert_eq!(ErrorChain(&io).to_string(), "invalid peer certificate");
        let chain = Cause("connect", Some(Box::new(Cause("refused", None))));
        assert_eq!(ErrorChain(&chain).to_string(), "connect: refused");
    }
}
