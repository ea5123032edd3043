//! What a decoder yields, and the default frame limit.

use bytes::Bytes;

/// The default limit on the body of one frame: 32 MiB (33,554,432 bytes).
///
/// ACP carries images and audio inside prompts as base64 strings, and base64 makes data 4/3 as
/// large.
/// Model providers accept single images of up to about 20 MB, which become about 26.7 MB of
/// base64; with the JSON envelope and a little text around it, such a prompt still fits under
/// 32 MiB, and so do several ordinary screenshots or an embedded source file of many megabytes.
///
/// The limit exists because a codec must buffer a whole frame before it can hand it on.
/// Without one, a broken or hostile peer could make us buffer without bound by sending a line that
/// never ends or a `Content-Length` of many gigabytes.
/// With it, one connection's read side holds at most about one limit's worth of bytes, an amount
/// any desktop process can afford.
/// Raise it with `with_max_len` for a peer known to send larger messages, or lower it on a server
/// that multiplexes many connections.
pub const DEFAULT_MAX_FRAME_LEN: usize = 32 * 1024 * 1024;

/// One unit produced by a decoder.
///
/// Every variant is an ordinary item of the stream: a frame that is too large or malformed is
/// *reported*, not treated as an error, because the codec can skip it and keep the connection
/// usable. (Only what leaves no way to find the next frame is a decode error; see
/// [`CodecError`](crate::CodecError).)
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Frame {
    /// One message body, without its line terminator or headers.
    ///
    /// The bytes are split off the read buffer without copying.
    /// They are not checked to be JSON: that is the job of the layer above.
    Message(Bytes),
    /// A message longer than the codec's limit was skipped; decoding goes on after it.
    ///
    /// Reported once per skipped message, as soon as the codec knows it is too large, and before
    /// the rest of it has even arrived.
    Oversized {
        /// The limit the message exceeded, in bytes.
        limit: usize,
    },
    /// A frame whose framing was malformed was skipped; decoding goes on at the next frame.
    ///
    /// Produced by the Content-Length decoder for a complete header section (ended by its empty
    /// line) that is unusable: no `Content-Length` header, a value that is not a number (or not
    /// one a `usize` can hold), or two different lengths. The body that may follow such a
    /// section has no known length, so the decoder drops bytes up to the next `Content-Length`
    /// header and resumes there.
    /// The layer above answers it as a JSON-RPC parse error (`-32700`, id `null`).
    Malformed {
        /// What was wrong, in a few words (for example `missing Content-Length header`).
        reason: String,
    },
}

impl Frame {
    /// The message body, if this is a [`Frame::Message`].
    #[must_use]
    pub fn into_message(self) -> Option<Bytes> {
        match self {
            Frame::Message(bytes) => Some(bytes),
            Frame::Oversized { .. } | Frame::Malformed { .. } => None,
        }
    }
}

/// The outcome of one state transition of a decoder, used to build `decode` and auto-detection.
#[derive(Debug)]
pub(crate) enum Step {
    /// A frame is ready.
    Frame(Frame),
    /// Input was consumed (a blank line, the end of a skipped frame) and the codec is back at a frame
    /// boundary; the caller should step again.
    Skipped,
    /// Nothing more can be done until more bytes arrive.
    NeedMore,
}

/// JSON's insignificant whitespace, which is also what separates frames in both framings.
pub(crate) fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// True when `bytes` is empty or consists only of whitespace.
///
/// This stops at the first other byte, which for a JSON message is its first byte.
pub(crate) fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| is_whitespace(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_limit_fits_a_base64_encoded_twenty_megabyte_image() {
        let base64_len = 20_000_000_usize.div_ceil(3) * 4;
        assert!(base64_len + 4096 < DEFAULT_MAX_FRAME_LEN);
    }

    #[test]
    fn blank_means_only_whitespace() {
        assert!(is_blank(b""));
        assert!(is_blank(b" \t\r\n"));
        assert!(!is_blank(b" {}"));
    }

    #[test]
    fn into_message_returns_the_body_of_messages_only() {
        let body = Bytes::from_static(b"{}");
        assert_eq!(Frame::Message(body.clone()).into_message(), Some(body));
        assert_eq!(Frame::Oversized { limit: 1 }.into_message(), None);
        let malformed = Frame::Malformed {
            reason: "missing Content-Length header".into(),
        };
        assert_eq!(malformed.into_message(), None);
    }
}
