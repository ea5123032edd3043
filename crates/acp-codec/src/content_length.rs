//! LSP-style framing: a `Content-Length` header section, a blank line, then the body.

use bytes::{Buf, BufMut, BytesMut};
use memchr::memchr;
use tokio_util::codec::{Decoder, Encoder};

use crate::frame::{Step, is_blank, is_whitespace};
use crate::{CodecError, DEFAULT_MAX_FRAME_LEN, Frame, FrameEncoder, FrameStart, Framing};

/// The longest header section the Content-Length decoder accepts: 8 KiB.
///
/// A real header section is a few dozen bytes (`Content-Length` and perhaps `Content-Type`).
/// The cap bounds what the decoder buffers before it knows a body length, and it stops a stream
/// that is not Content-Length framed at all from being read as one endless header.
pub const MAX_HEADER_LEN: usize = 8 * 1024;

/// The header this framing is about, in the lowercase we compare against.
const CONTENT_LENGTH: &[u8] = b"content-length";

/// Frames messages with `Content-Length` headers, as the Language Server Protocol does.
///
/// A frame is `Content-Length: N\r\n`, optionally more headers (such as `Content-Type`), an empty
/// line `\r\n`, then exactly N bytes of body.
///
/// # Decoding
///
/// - Header names are compared without regard to ASCII case; headers other than `Content-Length`
///   are ignored.
///   Lines ending in a bare `\n` are accepted as well as `\r\n`.
/// - Whitespace between frames (for example a stray `\r\n` after a body) is skipped.
/// - The length is checked against [`max_len`](Self::max_len) *before* any memory is reserved.
///   A longer body is reported once as [`Frame::Oversized`] and then skipped by count as it
///   arrives, so it is never buffered.
/// - A header section that is malformed or longer than [`MAX_HEADER_LEN`] is fatal
///   ([`CodecError::InvalidHeader`], [`CodecError::ConflictingLengths`]): without a trustworthy
///   length there is no reliable way to find the next frame.
///   This covers a missing `Content-Length`, an empty, negative, non-numeric or out-of-range
///   value, two different lengths in one section, a line without `:` and an invalid header name.
///   The same length given twice is accepted.
/// - End of file inside a frame is [`CodecError::UnexpectedEof`].
///   End of file between frames, or while skipping an oversized body, is a clean end.
///
/// # Encoding
///
/// The encoder writes `Content-Length: N\r\n\r\n` followed by the body, which may contain any
/// bytes.
/// It refuses only a body over the limit ([`CodecError::FrameTooLarge`]).
#[derive(Debug, Clone)]
pub struct ContentLengthCodec {
    state: State,
    max_len: usize,
}

/// What the decoder is in the middle of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading a header section; nothing of it is consumed until it is complete.
    Head {
        /// Where the current header line starts (the lines before it are parsed).
        line_start: usize,
        /// How far the current line has been searched for `\n`.
        scanned: usize,
        /// The length declared by the lines parsed so far.
        length: Option<usize>,
    },
    /// Waiting for a body of this many bytes (within the limit, so reserved).
    Body(usize),
    /// Dropping this many more bytes of an oversized body that was already reported.
    Skip(usize),
}

impl State {
    const START: State = State::Head {
        line_start: 0,
        scanned: 0,
        length: None,
    };
}

impl ContentLengthCodec {
    /// A codec with the [`DEFAULT_MAX_FRAME_LEN`] limit.
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_len(DEFAULT_MAX_FRAME_LEN)
    }

    /// A codec whose message bodies may be at most `max_len` bytes long, headers excluded.
    ///
    /// The limit applies to both directions: longer incoming bodies are skipped, longer outgoing
    /// ones are refused.
    #[must_use]
    pub fn with_max_len(max_len: usize) -> Self {
        Self {
            state: State::START,
            max_len,
        }
    }

    /// The longest message body this codec accepts, in bytes.
    #[must_use]
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// True when no part of a frame is pending, so the next byte starts a new frame.
    pub(crate) fn at_boundary(&self) -> bool {
        self.state == State::START
    }

    /// Makes one state transition over `src`.
    pub(crate) fn step(&mut self, src: &mut BytesMut) -> Result<Step, CodecError> {
        match self.state {
            // Reading headers: parse every complete line, or wait for more.
            State::Head {
                mut line_start,
                mut scanned,
                mut length,
            } => loop {
                // The whole section, final empty line included, must fit in `MAX_HEADER_LEN`.
                let window = src.len().min(MAX_HEADER_LEN);
                let Some(offset) = memchr(b'\n', &src[scanned.min(window)..window]) else {
                    if src.len() >= MAX_HEADER_LEN {
                        return Err(CodecError::InvalidHeader {
                            reason: "header section longer than 8 KiB",
                        });
                    }
                    self.state = State::Head {
                        line_start,
                        scanned: src.len(),
                        length,
                    };
                    return Ok(Step::NeedMore);
                };
                let newline = scanned + offset;
                let line = trim_cr(&src[line_start..newline]);
                if !is_blank(line) {
                    if let Some(len) = parse_header_line(line)? {
                        length = match length {
                            Some(first) if first != len => {
                                return Err(CodecError::ConflictingLengths { first, second: len });
                            }
                            _ => Some(len),
                        };
                    }
                    line_start = newline + 1;
                    scanned = line_start;
                    continue;
                }
                if line_start == 0 {
                    // A blank line before any header: whitespace between frames.
                    src.advance(newline + 1);
                    self.state = State::START;
                    return Ok(Step::Skipped);
                }
                // The empty line that ends the section.
                let Some(len) = length else {
                    return Err(CodecError::InvalidHeader {
                        reason: "missing Content-Length header",
                    });
                };
                src.advance(newline + 1);
                if len > self.max_len {
                    self.state = State::Skip(len);
                    return Ok(Step::Frame(Frame::Oversized {
                        limit: self.max_len,
                    }));
                }
                // Safe to reserve: the length was checked against the limit just above.
                src.reserve(len.saturating_sub(src.len()));
                self.state = State::Body(len);
                return Ok(Step::Skipped);
            },
            // Waiting for the body.
            State::Body(len) => {
                if src.len() < len {
                    return Ok(Step::NeedMore);
                }
                self.state = State::START;
                Ok(Step::Frame(Frame::Message(src.split_to(len).freeze())))
            }
            // Dropping an oversized body as it arrives.
            State::Skip(remaining) => {
                let now = remaining.min(src.len());
                src.advance(now);
                if now == remaining {
                    self.state = State::START;
                    Ok(Step::Skipped)
                } else {
                    self.state = State::Skip(remaining - now);
                    Ok(Step::NeedMore)
                }
            }
        }
    }

    /// Handles what is left in `src` at end of file, once `step` can do nothing more.
    pub(crate) fn finish_eof(&mut self, src: &mut BytesMut) -> Result<(), CodecError> {
        let state = std::mem::replace(&mut self.state, State::START);
        match state {
            // Only whitespace after the last frame is a clean end.
            State::Head { line_start: 0, .. } if is_blank(src) => {
                src.clear();
                Ok(())
            }
            // The rest of an oversized body that was already reported.
            State::Skip(_) => {
                src.clear();
                Ok(())
            }
            State::Head { .. } | State::Body(_) => {
                let buffered = src.len();
                src.clear();
                Err(CodecError::UnexpectedEof { buffered })
            }
        }
    }

    /// Checks an outgoing body length against the limit.
    fn check(&self, len: usize) -> Result<(), CodecError> {
        if len > self.max_len {
            return Err(CodecError::FrameTooLarge {
                len,
                limit: self.max_len,
            });
        }
        Ok(())
    }
}

impl Default for ContentLengthCodec {
    fn default() -> Self {
        Self::new()
    }
}

/// Removes one trailing `\r`.
fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Removes leading and trailing spaces and tabs (HTTP's optional whitespace) and line breaks.
fn trim_whitespace(bytes: &[u8]) -> &[u8] {
    let Some(first) = bytes.iter().position(|&b| !is_whitespace(b)) else {
        return &[];
    };
    let last = bytes
        .iter()
        .rposition(|&b| !is_whitespace(b))
        .unwrap_or(first);
    &bytes[first..=last]
}

/// True for the characters HTTP allows in a header name (RFC 9110 `tchar`).
fn is_token_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// Parses one non-blank header line; returns the length if it is a `Content-Length` header.
fn parse_header_line(line: &[u8]) -> Result<Option<usize>, CodecError> {
    let invalid = |reason| Err(CodecError::InvalidHeader { reason });
    let Some(colon) = memchr(b':', line) else {
        return invalid("header line without `:`");
    };
    let name = trim_whitespace(&line[..colon]);
    if name.is_empty() || !name.iter().all(|&b| is_token_char(b)) {
        return invalid("invalid header name");
    }
    if !name.eq_ignore_ascii_case(CONTENT_LENGTH) {
        return Ok(None);
    }
    match trim_whitespace(&line[colon + 1..]) {
        [] => invalid("empty Content-Length value"),
        [b'-', digits @ ..] if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
            invalid("negative Content-Length value")
        }
        digits if digits.iter().all(u8::is_ascii_digit) => {
            let mut value: usize = 0;
            for &digit in digits {
                value = match value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(usize::from(digit - b'0')))
                {
                    Some(v) => v,
                    None => return invalid("Content-Length value out of range"),
                };
            }
            Ok(Some(value))
        }
        _ => invalid("Content-Length value is not a decimal number"),
    }
}

/// Writes the header for a body of `len` bytes into `buf`; returns how many bytes it used.
fn write_header(len: usize, buf: &mut [u8; 48]) -> usize {
    const PREFIX: &[u8] = b"Content-Length: ";
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = len;
    loop {
        at -= 1;
        // The remainder is below ten, so the cast cannot truncate.
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let digits = &digits[at..];
    let mut end = 0;
    for part in [PREFIX, digits, b"\r\n\r\n"] {
        buf[end..end + part.len()].copy_from_slice(part);
        end += part.len();
    }
    end
}

impl Decoder for ContentLengthCodec {
    type Item = Frame;
    type Error = CodecError;

    /// Returns the next message or oversized report, or `None` when more bytes are needed.
    ///
    /// # Errors
    ///
    /// [`CodecError::InvalidHeader`] or [`CodecError::ConflictingLengths`] for a malformed header
    /// section, as described on the type; both are fatal.
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        loop {
            match self.step(src)? {
                Step::Frame(frame) => return Ok(Some(frame)),
                // Keep going: a complete frame may already be buffered.
                Step::Skipped => {}
                Step::NeedMore => return Ok(None),
            }
        }
    }

    /// Like [`decode`](Self::decode), and checks that the stream did not end inside a frame.
    ///
    /// # Errors
    ///
    /// As for `decode`, and [`CodecError::UnexpectedEof`] when a header section or body is
    /// incomplete.
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        match self.decode(src)? {
            Some(frame) => Ok(Some(frame)),
            None => self.finish_eof(src).map(|()| None),
        }
    }
}

impl<T: AsRef<[u8]>> Encoder<T> for ContentLengthCodec {
    type Error = CodecError;

    /// Appends `Content-Length: N\r\n\r\n` and `body` to `dst`.
    ///
    /// # Errors
    ///
    /// [`CodecError::FrameTooLarge`] when `body` is longer than the limit; `dst` is then left
    /// unchanged.
    fn encode(&mut self, body: T, dst: &mut BytesMut) -> Result<(), CodecError> {
        let body = body.as_ref();
        self.check(body.len())?;
        let mut header = [0; 48];
        let header_len = write_header(body.len(), &mut header);
        dst.reserve(header_len + body.len());
        dst.put_slice(&header[..header_len]);
        dst.put_slice(body);
        Ok(())
    }
}

impl FrameEncoder for ContentLengthCodec {
    fn begin_frame(&mut self, dst: &mut BytesMut) -> FrameStart {
        FrameStart::new(dst.len(), Framing::ContentLength)
    }

    fn finish_frame(&mut self, dst: &mut BytesMut, start: FrameStart) -> Result<(), CodecError> {
        let offset = start.offset().min(dst.len());
        let body_end = dst.len();
        if let Err(e) = self.check(body_end - offset) {
            dst.truncate(offset);
            return Err(e);
        }
        let mut header = [0; 48];
        let header_len = write_header(body_end - offset, &mut header);
        // Grow by the header's size, move the body up once, and write the header in front of it.
        dst.put_slice(&header[..header_len]);
        dst.copy_within(offset..body_end, offset + header_len);
        dst[offset..offset + header_len].copy_from_slice(&header[..header_len]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(result: Result<Option<usize>, CodecError>) -> &'static str {
        match result {
            Err(CodecError::InvalidHeader { reason }) => reason,
            other => panic!("expected InvalidHeader, got {other:?}"),
        }
    }

    #[test]
    fn header_lines_parse_by_case_insensitive_name() {
        assert_eq!(parse_header_line(b"Content-Length: 12").unwrap(), Some(12));
        assert_eq!(parse_header_line(b"content-length:12").unwrap(), Some(12));
        assert_eq!(
            parse_header_line(b"CONTENT-LENGTH: \t007 ").unwrap(),
            Some(7)
        );
        assert_eq!(
            parse_header_line(b"Content-Type: application/vscode-jsonrpc; charset=utf-8").unwrap(),
            None
        );
        assert_eq!(parse_header_line(b"X-Other:").unwrap(), None);
    }

    #[test]
    fn bad_header_lines_have_distinct_reasons() {
        assert_eq!(
            reason(parse_header_line(b"Content-Length")),
            "header line without `:`"
        );
        assert_eq!(reason(parse_header_line(b": 1")), "invalid header name");
        assert_eq!(
            reason(parse_header_line(b"{\"jsonrpc\":\"2.0\"}")),
            "invalid header name"
        );
        assert_eq!(
            reason(parse_header_line(b"Content-Length:")),
            "empty Content-Length value"
        );
        assert_eq!(
            reason(parse_header_line(b"Content-Length: -5")),
            "negative Content-Length value"
        );
        for value in ["abc", "+5", "5 5", "0x10", "-", "1.0", "١٢"] {
            let line = format!("Content-Length: {value}");
            assert_eq!(
                reason(parse_header_line(line.as_bytes())),
                "Content-Length value is not a decimal number",
                "{value}"
            );
        }
        assert_eq!(
            reason(parse_header_line(
                b"Content-Length: 99999999999999999999999"
            )),
            "Content-Length value out of range"
        );
    }

    #[test]
    fn headers_are_written_in_the_canonical_form() {
        let mut buf = [0; 48];
        for (len, expected) in [
            (0, "Content-Length: 0\r\n\r\n"),
            (7, "Content-Length: 7\r\n\r\n"),
            (1234567, "Content-Length: 1234567\r\n\r\n"),
        ] {
            let n = write_header(len, &mut buf);
            assert_eq!(&buf[..n], expected.as_bytes());
        }
        let n = write_header(usize::MAX, &mut buf);
        assert_eq!(
            &buf[..n],
            format!("Content-Length: {}\r\n\r\n", usize::MAX).as_bytes()
        );
    }

    #[test]
    fn the_body_length_is_reserved_once_the_header_is_read() {
        let mut codec = ContentLengthCodec::with_max_len(1 << 20);
        let mut buf = BytesMut::from(&b"Content-Length: 100000\r\n\r\n{"[..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert!(buf.capacity() >= 100_000);
        assert_eq!(codec.state, State::Body(100_000));
    }
}
