//! Newline-delimited JSON framing: one message per line.

use bytes::{Buf, BufMut, BytesMut};
use memchr::{memchr, memchr2};
use tokio_util::codec::{Decoder, Encoder};

use crate::frame::{Step, is_blank};
use crate::{CodecError, DEFAULT_MAX_FRAME_LEN, Frame, FrameEncoder, FrameStart, Framing};

/// Frames messages as lines of newline-delimited JSON, the framing of the ACP specification.
///
/// # Decoding
///
/// - Each line ending in `\n` is one message; a `\r` before the `\n` is removed, so CRLF input
///   works.
/// - Blank lines, including lines of spaces and tabs, are skipped.
/// - A line longer than [`max_len`](Self::max_len) (not counting its terminator) is reported once as
///   [`Frame::Oversized`] and then skipped up to its newline.
///   The codec never holds more than `max_len + 1` bytes of one line: it reports the line as soon
///   as it has seen that many without a newline, and from then on drops bytes as they arrive.
/// - At end of file, an unterminated final line is delivered as a message (unless it is blank or
///   oversized), as `tokio_util`'s `LinesCodec` does; the layer above finds out whether it is
///   complete JSON.
/// - Decoding never fails: every condition is an item.
///
/// Scanning uses `memchr` and resumes where the previous call stopped, so a long line arriving
/// in many small reads is scanned once.
///
/// # Encoding
///
/// The encoder appends the body and exactly one `\n`.
/// It refuses a body with a raw `\n` or `\r` in it ([`CodecError::EmbeddedNewline`]), a blank
/// body ([`CodecError::EmptyMessage`]) and a body over the limit ([`CodecError::FrameTooLarge`]),
/// so that everything it accepts decodes back to the same bytes.
#[derive(Debug, Clone)]
pub struct NdjsonCodec {
    /// How far the current, unterminated line has been searched for `\n` already.
    next_index: usize,
    /// True while dropping the rest of a line that was reported as oversized.
    discarding: bool,
    max_len: usize,
}

impl NdjsonCodec {
    /// A codec with the [`DEFAULT_MAX_FRAME_LEN`] limit.
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_len(DEFAULT_MAX_FRAME_LEN)
    }

    /// A codec whose messages may be at most `max_len` bytes long, terminator excluded.
    ///
    /// The limit applies to both directions: longer incoming lines are skipped, longer outgoing
    /// messages are refused.
    #[must_use]
    pub fn with_max_len(max_len: usize) -> Self {
        Self {
            next_index: 0,
            discarding: false,
            max_len,
        }
    }

    /// The longest message this codec accepts, in bytes.
    #[must_use]
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// True when no partial line is pending, so the next byte starts a new frame.
    pub(crate) fn at_boundary(&self) -> bool {
        self.next_index == 0 && !self.discarding
    }

    /// Makes one state transition over `src`.
    pub(crate) fn step(&mut self, src: &mut BytesMut) -> Step {
        if self.discarding {
            // Dropping the rest of an oversized line that was already reported.
            return match memchr(b'\n', src) {
                Some(newline) => {
                    src.advance(newline + 1);
                    self.discarding = false;
                    Step::Skipped
                }
                None => {
                    src.clear();
                    Step::NeedMore
                }
            };
        }
        // A line of `max_len` bytes plus `\r\n` is the longest acceptable, so never look further.
        let window = src.len().min(self.max_len.saturating_add(2));
        let start = self.next_index.min(window);
        match memchr(b'\n', &src[start..window]) {
            // A complete line.
            Some(offset) => {
                let newline = start + offset;
                self.next_index = 0;
                let len = if newline > 0 && src[newline - 1] == b'\r' {
                    newline - 1
                } else {
                    newline
                };
                if len > self.max_len {
                    src.advance(newline + 1);
                    return Step::Frame(Frame::Oversized {
                        limit: self.max_len,
                    });
                }
                if is_blank(&src[..len]) {
                    src.advance(newline + 1);
                    return Step::Skipped;
                }
                let mut line = src.split_to(newline + 1);
                line.truncate(len);
                Step::Frame(Frame::Message(line.freeze()))
            }
            // No newline within reach of the limit: the line is too long whatever follows.
            // (With exactly `max_len + 1` bytes buffered, a final `\r\n` could still make it fit.)
            None if src.len() > self.max_len.saturating_add(1) => {
                src.advance(window);
                self.next_index = 0;
                self.discarding = true;
                Step::Frame(Frame::Oversized {
                    limit: self.max_len,
                })
            }
            // A partial line: remember how far it was searched.
            None => {
                self.next_index = window;
                Step::NeedMore
            }
        }
    }

    /// Handles what is left in `src` at end of file, once `step` can do nothing more.
    pub(crate) fn finish_eof(&mut self, src: &mut BytesMut) -> Option<Frame> {
        self.next_index = 0;
        if std::mem::take(&mut self.discarding) {
            // The tail of a line already reported as oversized.
            src.clear();
            return None;
        }
        let mut line = src.split();
        if line.last() == Some(&b'\r') {
            line.truncate(line.len() - 1);
        }
        if is_blank(&line) {
            None
        } else if line.len() > self.max_len {
            Some(Frame::Oversized {
                limit: self.max_len,
            })
        } else {
            Some(Frame::Message(line.freeze()))
        }
    }

    /// Checks an outgoing body against the rules in the type docs.
    fn check(&self, body: &[u8]) -> Result<(), CodecError> {
        if body.len() > self.max_len {
            return Err(CodecError::FrameTooLarge {
                len: body.len(),
                limit: self.max_len,
            });
        }
        if memchr2(b'\n', b'\r', body).is_some() {
            return Err(CodecError::EmbeddedNewline);
        }
        if is_blank(body) {
            return Err(CodecError::EmptyMessage);
        }
        Ok(())
    }
}

impl Default for NdjsonCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder for NdjsonCodec {
    type Item = Frame;
    type Error = CodecError;

    /// Returns the next message or oversized report, or `None` when more bytes are needed.
    ///
    /// # Errors
    ///
    /// None: this decoder reports every condition as an item.
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        loop {
            match self.step(src) {
                Step::Frame(frame) => return Ok(Some(frame)),
                // Keep going: returning `None` now could strand a buffered line.
                Step::Skipped => {}
                Step::NeedMore => return Ok(None),
            }
        }
    }

    /// Like [`decode`](Self::decode), and delivers an unterminated final line as a message.
    ///
    /// # Errors
    ///
    /// None: this decoder reports every condition as an item.
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        match self.decode(src)? {
            Some(frame) => Ok(Some(frame)),
            None => Ok(self.finish_eof(src)),
        }
    }
}

impl<T: AsRef<[u8]>> Encoder<T> for NdjsonCodec {
    type Error = CodecError;

    /// Appends `body` and a `\n` to `dst`.
    ///
    /// # Errors
    ///
    /// [`CodecError::FrameTooLarge`], [`CodecError::EmbeddedNewline`] or
    /// [`CodecError::EmptyMessage`], as described on the type; `dst` is then left unchanged.
    fn encode(&mut self, body: T, dst: &mut BytesMut) -> Result<(), CodecError> {
        let body = body.as_ref();
        self.check(body)?;
        dst.reserve(body.len() + 1);
        dst.put_slice(body);
        dst.put_u8(b'\n');
        Ok(())
    }
}

impl FrameEncoder for NdjsonCodec {
    fn begin_frame(&mut self, dst: &mut BytesMut) -> FrameStart {
        FrameStart::new(dst.len(), Framing::Ndjson)
    }

    fn finish_frame(&mut self, dst: &mut BytesMut, start: FrameStart) -> Result<(), CodecError> {
        let offset = start.offset().min(dst.len());
        if let Err(e) = self.check(&dst[offset..]) {
            dst.truncate(offset);
            return Err(e);
        }
        dst.put_u8(b'\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    #[test]
    fn a_partial_line_is_not_rescanned_on_the_next_read() {
        let mut codec = NdjsonCodec::new();
        let mut buf = BytesMut::from(&b"{\"a\":"[..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert_eq!(codec.next_index, 5);
        buf.extend_from_slice(b"1");
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert_eq!(codec.next_index, 6);
        buf.extend_from_slice(b"}\n");
        assert_eq!(
            codec.decode(&mut buf).unwrap(),
            Some(Frame::Message(Bytes::from_static(b"{\"a\":1}")))
        );
        assert_eq!(codec.next_index, 0);
        assert!(codec.at_boundary());
    }

    #[test]
    fn the_search_never_looks_past_the_limit() {
        let mut codec = NdjsonCodec::with_max_len(4);
        let mut buf = BytesMut::from(&b"12345"[..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert_eq!(codec.next_index, 5);
        buf.extend_from_slice(b"6789\n{}\n");
        assert_eq!(
            codec.decode(&mut buf).unwrap(),
            Some(Frame::Oversized { limit: 4 })
        );
        assert!(codec.discarding);
    }

    #[test]
    fn a_failed_in_place_frame_leaves_earlier_frames_alone() {
        let mut codec = NdjsonCodec::new();
        let mut out = BytesMut::from(&b"{}\n"[..]);
        let start = codec.begin_frame(&mut out);
        out.put_slice(b"{\"a\":\n1}");
        assert!(matches!(
            codec.finish_frame(&mut out, start),
            Err(CodecError::EmbeddedNewline)
        ));
        assert_eq!(&out[..], b"{}\n");
    }
}
