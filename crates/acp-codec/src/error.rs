//! The error type shared by every codec of this crate.

use std::io;

/// Everything that can go wrong while framing bytes.
///
/// Decoding and encoding fail in different ways, and with different consequences:
///
/// - A **decode** error is fatal to the connection.
///   `tokio_util::codec::FramedRead` ends its stream after the first `Decoder::Error`, and this crate
///   only returns one when the byte stream cannot be resynchronised (bytes that are not a header
///   where a header section should start, a header section without an end, an absurd declared
///   length, a frame cut off by end of file, or a transport error).
///   Recoverable problems are reported as items instead: an oversized message as
///   [`Frame::Oversized`](crate::Frame::Oversized), a malformed header section as
///   [`Frame::Malformed`](crate::Frame::Malformed).
/// - An **encode** error concerns one outgoing message only.
///   The encoder leaves the output buffer as it was before that message, so the caller can report
///   the problem and go on writing other messages.
///
/// [`CodecError::is_fatal`] tells the two kinds apart.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The transport failed while reading or writing.
    ///
    /// Produced by `FramedRead`/`FramedWrite` when the underlying reader or writer returns an
    /// error; the codecs never create it themselves.
    #[error("i/o error on the transport")]
    Io(#[from] io::Error),

    /// An outgoing message is longer than the codec's frame limit.
    ///
    /// Produced by every encoder (and by [`FrameEncoder::finish_frame`](crate::FrameEncoder::finish_frame))
    /// before anything is written, so that we never send a frame the peer would have to skip.
    #[error("outgoing message of {len} bytes exceeds the {limit}-byte frame limit")]
    FrameTooLarge {
        /// The length of the rejected message body, in bytes.
        len: usize,
        /// The codec's limit, in bytes.
        limit: usize,
    },

    /// An outgoing NDJSON message contains a raw line break (`\n` or `\r`).
    ///
    /// Produced by the NDJSON encoder.
    /// A raw `\n` would split the message in two on the wire, and a raw `\r` at the end of a line is
    /// removed by CRLF-tolerant readers, so neither can be framed faithfully.
    /// Compact `serde_json` output never contains either: line breaks inside strings are escaped.
    #[error("outgoing message contains a raw line break, which NDJSON framing cannot carry")]
    EmbeddedNewline,

    /// An outgoing NDJSON message is empty or consists only of whitespace.
    ///
    /// Produced by the NDJSON encoder.
    /// Readers skip blank lines, so such a message would silently vanish on the wire.
    #[error("outgoing message is empty or blank, which NDJSON framing cannot carry")]
    EmptyMessage,

    /// The incoming stream is not Content-Length framed where a header section should start,
    /// so there is no way to find the next frame.
    ///
    /// Produced by the Content-Length decoder (and so by auto-detection once it chose that
    /// framing) when a header line has no `:` or an invalid header name (the bytes are not a
    /// header at all: typically a peer speaking NDJSON), or when no line break or empty line ends
    /// the header section within [`MAX_HEADER_LEN`](crate::MAX_HEADER_LEN) bytes.
    /// A complete header section that is merely unusable (no `Content-Length`, a value that is
    /// not a number) is not an error but a [`Frame::Malformed`](crate::Frame::Malformed) item.
    /// This error is fatal.
    #[error("unreadable Content-Length framing: {reason}")]
    InvalidHeader {
        /// What was wrong and why the stream cannot be resynchronised, in a few words.
        reason: &'static str,
    },

    /// An incoming Content-Length frame declares a body so far over the frame limit (more than
    /// [`MAX_SKIP_FACTOR`](crate::MAX_SKIP_FACTOR) times it) that the stream is given up.
    ///
    /// Produced by the Content-Length decoder.
    /// A body over the limit but within that factor is skipped by count and reported as
    /// [`Frame::Oversized`](crate::Frame::Oversized); skipping a body of, say, a terabyte would
    /// swallow everything the peer sends afterwards without a word, so this error is fatal.
    #[error(
        "declared Content-Length of {len} bytes is more than {factor} times the {limit}-byte frame \
         limit: giving up on the stream rather than skipping that many bytes",
        factor = crate::MAX_SKIP_FACTOR
    )]
    ImplausibleLength {
        /// The declared body length, in bytes.
        len: usize,
        /// The codec's frame limit, in bytes.
        limit: usize,
    },

    /// The stream ended in the middle of a Content-Length frame.
    ///
    /// Produced by the Content-Length decoder's `decode_eof` when the peer closed the stream after
    /// part of a header section or part of a body.
    /// (An unterminated final NDJSON line is not an error: it is delivered as a message.)
    #[error("stream ended inside a Content-Length frame after {buffered} bytes of it")]
    UnexpectedEof {
        /// How many bytes of the unfinished frame had arrived.
        buffered: usize,
    },
}

impl CodecError {
    /// True when the error ends the connection, false when it only rejected one outgoing message.
    ///
    /// Decode-side errors and transport errors are fatal.
    /// [`FrameTooLarge`](Self::FrameTooLarge), [`EmbeddedNewline`](Self::EmbeddedNewline) and
    /// [`EmptyMessage`](Self::EmptyMessage) reject a single message; the output buffer is left
    /// consistent and the connection can go on.
    #[must_use]
    pub fn is_fatal(&self) -> bool {
        !matches!(
            self,
            Self::FrameTooLarge { .. } | Self::EmbeddedNewline | Self::EmptyMessage
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoder_errors_are_not_fatal_and_decoder_errors_are() {
        assert!(!CodecError::FrameTooLarge { len: 2, limit: 1 }.is_fatal());
        assert!(!CodecError::EmbeddedNewline.is_fatal());
        assert!(!CodecError::EmptyMessage.is_fatal());
        assert!(CodecError::InvalidHeader { reason: "x" }.is_fatal());
        assert!(
            CodecError::ImplausibleLength {
                len: 1 << 40,
                limit: 1024,
            }
            .is_fatal()
        );
        assert!(CodecError::UnexpectedEof { buffered: 3 }.is_fatal());
        assert!(CodecError::from(io::Error::other("boom")).is_fatal());
    }

    #[test]
    fn messages_name_the_numbers() {
        let e = CodecError::FrameTooLarge { len: 10, limit: 4 };
        assert_eq!(
            e.to_string(),
            "outgoing message of 10 bytes exceeds the 4-byte frame limit"
        );
        let e = CodecError::ImplausibleLength {
            len: 1 << 40,
            limit: 1024,
        };
        assert_eq!(
            e.to_string(),
            "declared Content-Length of 1099511627776 bytes is more than 64 times the 1024-byte \
             frame limit: giving up on the stream rather than skipping that many bytes"
        );
    }
}
