//! Framing detected from the first bytes of the stream.

use bytes::{Buf, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

use crate::frame::{Step, is_whitespace};
use crate::{
    CodecError, ContentLengthCodec, DEFAULT_MAX_FRAME_LEN, Frame, FrameEncoder, FrameStart,
    Framing, NdjsonCodec,
};

/// Decodes whichever framing the peer uses, and answers in the same one.
///
/// The first bytes that are not whitespace decide, as [`Framing::detect`] describes: a
/// `Content-Length` or `Content-Type` header starts a Content-Length stream, anything else
/// (normally `{`, but also a first line that is not JSON) is NDJSON, where a line that is not
/// JSON is one bad message rather than a broken stream.
/// [`framing`](Self::framing) reports the choice once it is made.
/// This is how agents that accept both framings behave: whatever framing the client's first message
/// uses, the replies use too.
///
/// By default the choice is made once and holds for the rest of the stream: a stream may not
/// switch framing midway, and bytes in the other framing are decoded as the chosen one (which the
/// layers above then reject).
/// [`allow_switching(true)`](Self::allow_switching) makes the codec detect again at every frame
/// boundary instead.
///
/// Until something has been received, the encoder writes NDJSON, the framing of the ACP
/// specification; from then on it writes the detected framing.
///
/// Decoding, encoding and the limit behave as in [`NdjsonCodec`] and [`ContentLengthCodec`].
/// Whitespace before the first frame (before every frame, with switching allowed) is dropped as it
/// arrives, so a stream of nothing but whitespace cannot make the buffer grow; an NDJSON message
/// therefore loses its leading whitespace there, which JSON ignores anyway.
///
/// ```
/// use acp_codec::{AutoCodec, Frame, Framing};
/// use bytes::{Bytes, BytesMut};
/// use tokio_util::codec::{Decoder, Encoder};
///
/// let mut codec = AutoCodec::new();
/// assert_eq!(codec.framing(), None);
///
/// let mut input = BytesMut::from("Content-Length: 2\r\n\r\n{}");
/// assert_eq!(codec.decode(&mut input)?, Some(Frame::Message(Bytes::from_static(b"{}"))));
/// assert_eq!(codec.framing(), Some(Framing::ContentLength));
///
/// let mut output = BytesMut::new();
/// codec.encode(&b"[]"[..], &mut output)?;
/// assert_eq!(&output[..], b"Content-Length: 2\r\n\r\n[]");
/// # Ok::<(), acp_codec::CodecError>(())
/// ```
#[derive(Debug, Clone)]
pub struct AutoCodec {
    ndjson: NdjsonCodec,
    content_length: ContentLengthCodec,
    framing: Option<Framing>,
    allow_switching: bool,
}

impl AutoCodec {
    /// A detecting codec with the [`DEFAULT_MAX_FRAME_LEN`] limit that detects once.
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_len(DEFAULT_MAX_FRAME_LEN)
    }

    /// A detecting codec whose message bodies may be at most `max_len` bytes long, in either
    /// framing.
    #[must_use]
    pub fn with_max_len(max_len: usize) -> Self {
        Self {
            ndjson: NdjsonCodec::with_max_len(max_len),
            content_length: ContentLengthCodec::with_max_len(max_len),
            framing: None,
            allow_switching: false,
        }
    }

    /// Whether to detect the framing again at every frame boundary (default: `false`).
    ///
    /// With switching allowed, a peer may send an NDJSON line, then a Content-Length frame, and so
    /// on; replies use the framing of the latest frame received.
    #[must_use]
    pub fn allow_switching(mut self, allow: bool) -> Self {
        self.allow_switching = allow;
        self
    }

    /// Whether the framing is detected again at every frame boundary.
    #[must_use]
    pub fn switching_allowed(&self) -> bool {
        self.allow_switching
    }

    /// The longest message body this codec accepts, in bytes.
    #[must_use]
    pub fn max_len(&self) -> usize {
        self.ndjson.max_len()
    }

    /// The framing detected so far, or `None` while nothing but whitespace has been received.
    #[must_use]
    pub fn framing(&self) -> Option<Framing> {
        self.framing
    }

    /// The framing outgoing messages are written in: the detected one, NDJSON before detection.
    #[must_use]
    pub fn encoding_framing(&self) -> Framing {
        self.framing.unwrap_or(Framing::Ndjson)
    }

    /// True when the framing should be (re)detected before the next frame.
    fn should_detect(&self) -> bool {
        match self.framing {
            None => true,
            Some(_) if !self.allow_switching => false,
            Some(Framing::Ndjson) => self.ndjson.at_boundary(),
            Some(Framing::ContentLength) => self.content_length.at_boundary(),
        }
    }

    /// Makes one state transition over `src`, detecting the framing first if needed.
    fn step(&mut self, src: &mut BytesMut) -> Result<Step, CodecError> {
        if self.should_detect() {
            // Whitespace separates frames in both framings, so dropping it here loses nothing.
            let skip = src
                .iter()
                .position(|&b| !is_whitespace(b))
                .unwrap_or(src.len());
            src.advance(skip);
            match Framing::detect(src) {
                Some(framing) => self.framing = Some(framing),
                None => return Ok(Step::NeedMore),
            }
        }
        match self.framing {
            Some(Framing::Ndjson) => Ok(self.ndjson.step(src)),
            Some(Framing::ContentLength) => self.content_length.step(src),
            None => Ok(Step::NeedMore),
        }
    }
}

impl Default for AutoCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder for AutoCodec {
    type Item = Frame;
    type Error = CodecError;

    /// Returns the next message, oversized or malformed report, or `None` when more bytes are
    /// needed.
    ///
    /// # Errors
    ///
    /// Once Content-Length framing is detected, the errors of [`ContentLengthCodec`]'s `decode`.
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

    /// Like [`decode`](Self::decode), and handles the end of the stream as the detected framing
    /// does.
    ///
    /// # Errors
    ///
    /// As for `decode`, and [`CodecError::UnexpectedEof`] when a Content-Length stream ends inside a
    /// frame.
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        if let Some(frame) = self.decode(src)? {
            return Ok(Some(frame));
        }
        match self.framing {
            // Only whitespace arrived, and it has been dropped already.
            None if src.is_empty() => Ok(None),
            // The stream ended inside what could have been a header name: it was not one, so
            // it is a (final, unterminated) NDJSON line.
            None => {
                self.framing = Some(Framing::Ndjson);
                self.decode_eof(src)
            }
            Some(Framing::Ndjson) => Ok(self.ndjson.finish_eof(src)),
            Some(Framing::ContentLength) => self.content_length.finish_eof(src).map(|()| None),
        }
    }
}

impl<T: AsRef<[u8]>> Encoder<T> for AutoCodec {
    type Error = CodecError;

    /// Appends one frame holding `body` to `dst`, in the [`encoding_framing`](Self::encoding_framing).
    ///
    /// # Errors
    ///
    /// Those of [`NdjsonCodec`] or [`ContentLengthCodec`], whichever framing is in use; `dst` is
    /// then left unchanged.
    fn encode(&mut self, body: T, dst: &mut BytesMut) -> Result<(), CodecError> {
        match self.encoding_framing() {
            Framing::Ndjson => self.ndjson.encode(body, dst),
            Framing::ContentLength => self.content_length.encode(body, dst),
        }
    }
}

impl FrameEncoder for AutoCodec {
    fn begin_frame(&mut self, dst: &mut BytesMut) -> FrameStart {
        FrameStart::new(dst.len(), self.encoding_framing())
    }

    fn finish_frame(&mut self, dst: &mut BytesMut, start: FrameStart) -> Result<(), CodecError> {
        // The framing chosen when the frame began, even if detection happened since.
        match start.framing() {
            Framing::Ndjson => self.ndjson.finish_frame(dst, start),
            Framing::ContentLength => self.content_length.finish_frame(dst, start),
        }
    }
}
