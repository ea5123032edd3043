//! LSP-style framing: a `Content-Length` header section, a blank line, then the body.

use bytes::{Buf, BufMut, BytesMut};
use memchr::{memchr, memchr2};
use tokio_util::codec::{Decoder, Encoder};

use crate::frame::{Step, is_blank, is_whitespace};
use crate::{CodecError, DEFAULT_MAX_FRAME_LEN, Frame, FrameEncoder, FrameStart, Framing};

/// The longest header section the Content-Length decoder accepts: 8 KiB.
///
/// A real header section is a few dozen bytes (`Content-Length` and perhaps `Content-Type`).
/// The cap bounds what the decoder buffers before it knows a body length, and it stops a stream
/// that is not Content-Length framed at all from being read as one endless header.
pub const MAX_HEADER_LEN: usize = 8 * 1024;

/// How many times the frame limit a declared body may be and still be skipped by count: 64.
///
/// A `Content-Length` over the limit is normally reported as [`Frame::Oversized`] and its body
/// skipped as it arrives, which keeps the connection usable.
/// A declaration beyond this factor (2 GiB with the default limit) is not a message anyone
/// means to send: skipping that many bytes would swallow every later message without a word, so
/// the decoder gives up on the stream instead ([`CodecError::ImplausibleLength`]).
pub const MAX_SKIP_FACTOR: usize = 64;

/// The header this framing is about, in the lowercase we compare against.
const CONTENT_LENGTH: &[u8] = b"content-length";

/// Why a header line cannot be part of a header section: the stream is not Content-Length
/// framed here, and nothing says where a frame starts.
const NO_COLON: &str =
    "header line without `:`: not a header, so the stream cannot be read as Content-Length framed";
/// As [`NO_COLON`], for a line whose name is not an HTTP token.
const BAD_NAME: &str =
    "invalid header name: not a header, so the stream cannot be read as Content-Length framed";
/// Why a header section without an end is fatal.
const TOO_LONG: &str = "header section longer than 8 KiB without the empty line that ends it: \
     the next frame cannot be found";

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
/// - A longer body whose length is absurd (over [`MAX_SKIP_FACTOR`] times the limit) is fatal
///   ([`CodecError::ImplausibleLength`]) rather than skipped.
/// - A complete header section (ended by its empty line) that gives no usable length is
///   reported once as [`Frame::Malformed`]: a missing `Content-Length`, an empty, negative,
///   non-numeric or out-of-range value, or two different lengths (the same length given twice is
///   accepted). The body that may follow it has no known length, so the decoder then drops bytes
///   up to the next `Content-Length` header name (compared without regard to case) and resumes
///   there. Memory stays bounded while it searches.
/// - A line that is not a header at all (no `:`, or an invalid header name) is fatal
///   ([`CodecError::InvalidHeader`]): the stream is not Content-Length framed, typically a peer
///   speaking NDJSON, and nothing says where a frame would start. So is a header section that no
///   empty line ends within [`MAX_HEADER_LEN`] bytes.
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
        /// The first thing found wrong with the section so far; it is reported once the
        /// section is complete.
        problem: Option<Problem>,
    },
    /// Waiting for a body of this many bytes (within the limit, so reserved).
    Body(usize),
    /// Dropping this many more bytes of an oversized body that was already reported.
    Skip(usize),
    /// Dropping bytes up to the next `Content-Length` header name, after a malformed header
    /// section that was already reported (its body, if any, has no known length).
    Seek,
}

impl State {
    const START: State = State::Head {
        line_start: 0,
        scanned: 0,
        length: None,
        problem: None,
    };
}

/// Why a complete header section gives no usable length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Problem {
    /// A `Content-Length` value that is not a length, or no `Content-Length` at all.
    Value(&'static str),
    /// Two different lengths.
    Conflict { first: usize, second: usize },
}

impl Problem {
    /// The reason carried by the [`Frame::Malformed`] report.
    fn reason(self) -> String {
        match self {
            Problem::Value(reason) => reason.to_owned(),
            Problem::Conflict { first, second } => {
                format!("conflicting Content-Length headers: {first} and {second}")
            }
        }
    }
}

/// What one header line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeaderLine {
    /// A `Content-Length` header with this value.
    Length(usize),
    /// A `Content-Length` header whose value is not a length, and why.
    BadLength(&'static str),
    /// Another header, which this framing ignores.
    Other,
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
                mut problem,
            } => loop {
                // The whole section, final empty line included, must fit in `MAX_HEADER_LEN`.
                let window = src.len().min(MAX_HEADER_LEN);
                let Some(offset) = memchr(b'\n', &src[scanned.min(window)..window]) else {
                    if src.len() >= MAX_HEADER_LEN {
                        return Err(CodecError::InvalidHeader { reason: TOO_LONG });
                    }
                    self.state = State::Head {
                        line_start,
                        scanned: src.len(),
                        length,
                        problem,
                    };
                    return Ok(Step::NeedMore);
                };
                let newline = scanned + offset;
                let line = trim_cr(&src[line_start..newline]);
                if !is_blank(line) {
                    match parse_header_line(line)? {
                        HeaderLine::Length(len) => match length {
                            Some(first) if first != len => {
                                problem.get_or_insert(Problem::Conflict { first, second: len });
                            }
                            _ => length = Some(len),
                        },
                        HeaderLine::BadLength(reason) => {
                            problem.get_or_insert(Problem::Value(reason));
                        }
                        HeaderLine::Other => {}
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
                src.advance(newline + 1);
                let len = match (problem, length) {
                    (None, Some(len)) => len,
                    (Some(problem), _) => return Ok(self.malformed(problem)),
                    (None, None) => {
                        return Ok(self.malformed(Problem::Value("missing Content-Length header")));
                    }
                };
                if len > self.max_len {
                    if len > self.max_len.saturating_mul(MAX_SKIP_FACTOR) {
                        return Err(CodecError::ImplausibleLength {
                            len,
                            limit: self.max_len,
                        });
                    }
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
            // Looking for the next header section after a malformed one.
            State::Seek => match find_content_length(src) {
                Some(at) => {
                    src.advance(at);
                    self.state = State::START;
                    Ok(Step::Skipped)
                }
                None => {
                    // Keep only what could be the start of the name, cut off by the end of the
                    // buffer; everything before it is dropped.
                    let keep = CONTENT_LENGTH.len() - 1;
                    if src.len() > keep {
                        src.advance(src.len() - keep);
                    }
                    Ok(Step::NeedMore)
                }
            },
        }
    }

    /// Reports a malformed header section (already consumed) and starts looking for the next.
    fn malformed(&mut self, problem: Problem) -> Step {
        self.state = State::Seek;
        Step::Frame(Frame::Malformed {
            reason: problem.reason(),
        })
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
            // The rest of an oversized body, or of a malformed frame, that was already reported.
            State::Skip(_) | State::Seek => {
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

/// Where the next `Content-Length` header name starts in `bytes`, compared without regard to
/// ASCII case.
fn find_content_length(bytes: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(offset) = memchr2(b'c', b'C', &bytes[from..]) {
        let at = from + offset;
        let candidate = bytes.get(at..at + CONTENT_LENGTH.len())?;
        if candidate.eq_ignore_ascii_case(CONTENT_LENGTH) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Parses one non-blank header line.
///
/// # Errors
///
/// [`CodecError::InvalidHeader`] when the line is not a header at all (no `:`, or an invalid
/// name). A `Content-Length` header with a bad value is not an error here: the section it
/// belongs to is reported as malformed once complete.
fn parse_header_line(line: &[u8]) -> Result<HeaderLine, CodecError> {
    let Some(colon) = memchr(b':', line) else {
        return Err(CodecError::InvalidHeader { reason: NO_COLON });
    };
    let name = trim_whitespace(&line[..colon]);
    if name.is_empty() || !name.iter().all(|&b| is_token_char(b)) {
        return Err(CodecError::InvalidHeader { reason: BAD_NAME });
    }
    if !name.eq_ignore_ascii_case(CONTENT_LENGTH) {
        return Ok(HeaderLine::Other);
    }
    Ok(match trim_whitespace(&line[colon + 1..]) {
        [] => HeaderLine::BadLength("empty Content-Length value"),
        [b'-', digits @ ..] if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
            HeaderLine::BadLength("negative Content-Length value")
        }
        digits if digits.iter().all(u8::is_ascii_digit) => {
            let mut value: usize = 0;
            for &digit in digits {
                value = match value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(usize::from(digit - b'0')))
                {
                    Some(v) => v,
                    None => return Ok(HeaderLine::BadLength("Content-Length value out of range")),
                };
            }
            HeaderLine::Length(value)
        }
        _ => HeaderLine::BadLength("Content-Length value is not a decimal number"),
    })
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

    /// Returns the next message, oversized or malformed report, or `None` when more bytes are
    /// needed.
    ///
    /// # Errors
    ///
    /// [`CodecError::InvalidHeader`] for bytes that are not a header section, or
    /// [`CodecError::ImplausibleLength`] for an absurd length, as described on the type; both are
    /// fatal.
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

    fn fatal(result: Result<HeaderLine, CodecError>) -> &'static str {
        match result {
            Err(CodecError::InvalidHeader { reason }) => reason,
            other => panic!("expected InvalidHeader, got {other:?}"),
        }
    }

    fn bad_length(line: &[u8]) -> &'static str {
        match parse_header_line(line) {
            Ok(HeaderLine::BadLength(reason)) => reason,
            other => panic!("expected a bad length, got {other:?}"),
        }
    }

    #[test]
    fn header_lines_parse_by_case_insensitive_name() {
        let length = |line: &[u8]| parse_header_line(line).unwrap();
        assert_eq!(length(b"Content-Length: 12"), HeaderLine::Length(12));
        assert_eq!(length(b"content-length:12"), HeaderLine::Length(12));
        assert_eq!(length(b"CONTENT-LENGTH: \t007 "), HeaderLine::Length(7));
        assert_eq!(
            length(b"Content-Type: application/vscode-jsonrpc; charset=utf-8"),
            HeaderLine::Other
        );
        assert_eq!(length(b"X-Other:"), HeaderLine::Other);
    }

    #[test]
    fn lines_that_are_not_headers_are_fatal_and_bad_values_are_not() {
        assert_eq!(fatal(parse_header_line(b"Content-Length")), NO_COLON);
        assert_eq!(fatal(parse_header_line(b": 1")), BAD_NAME);
        assert_eq!(fatal(parse_header_line(b"{\"jsonrpc\":\"2.0\"}")), BAD_NAME);
        assert_eq!(bad_length(b"Content-Length:"), "empty Content-Length value");
        assert_eq!(
            bad_length(b"Content-Length: -5"),
            "negative Content-Length value"
        );
        for value in ["abc", "+5", "5 5", "0x10", "-", "1.0", "١٢"] {
            let line = format!("Content-Length: {value}");
            assert_eq!(
                bad_length(line.as_bytes()),
                "Content-Length value is not a decimal number",
                "{value}"
            );
        }
        assert_eq!(
            bad_length(b"Content-Length: 99999999999999999999999"),
            "Content-Length value out of range"
        );
    }

    #[test]
    fn the_next_content_length_is_found_in_any_case() {
        assert_eq!(find_content_length(b"content-length"), Some(0));
        assert_eq!(find_content_length(b"}cCONTENT-LENGTH: 1"), Some(2));
        assert_eq!(find_content_length(b"{\"c\":1}Content-Length"), Some(7));
        assert_eq!(find_content_length(b"Content-Lengt"), None);
        assert_eq!(find_content_length(b"Content-Type: x"), None);
        assert_eq!(find_content_length(b""), None);
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
