//! One codec type for all three framing modes, chosen at run time.

use bytes::BytesMut;
use tokio_util::codec::{Decoder, Encoder};

use crate::{
    AutoCodec, CodecError, ContentLengthCodec, DEFAULT_MAX_FRAME_LEN, Frame, FrameEncoder,
    FrameStart, Framing, FramingMode, NdjsonCodec,
};

/// A codec whose framing is a configuration value: NDJSON, Content-Length or auto-detection.
///
/// Connection layers hold this type, so the framing can be chosen at run time (for example from
/// a command-line flag) without making them generic over the codec.
/// It behaves exactly like the codec of its mode.
///
/// ```
/// use acp_codec::{AnyCodec, Framing, FramingMode};
/// use bytes::BytesMut;
/// use tokio_util::codec::Encoder;
///
/// let mut codec = AnyCodec::new("content-length".parse::<FramingMode>()?);
/// assert_eq!(codec.framing(), Some(Framing::ContentLength));
///
/// let mut out = BytesMut::new();
/// codec.encode(&b"{}"[..], &mut out)?;
/// assert_eq!(&out[..], b"Content-Length: 2\r\n\r\n{}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AnyCodec {
    inner: Inner,
}

#[derive(Debug, Clone)]
enum Inner {
    Ndjson(NdjsonCodec),
    ContentLength(ContentLengthCodec),
    Auto(AutoCodec),
}

impl AnyCodec {
    /// A codec for `mode` with the [`DEFAULT_MAX_FRAME_LEN`] limit.
    ///
    /// [`FramingMode::Auto`] builds an [`AutoCodec`] that detects once; to allow switching, build
    /// the `AutoCodec` and convert it with `From`.
    #[must_use]
    pub fn new(mode: FramingMode) -> Self {
        Self::with_max_len(mode, DEFAULT_MAX_FRAME_LEN)
    }

    /// A codec for `mode` whose message bodies may be at most `max_len` bytes long.
    #[must_use]
    pub fn with_max_len(mode: FramingMode, max_len: usize) -> Self {
        let inner = match mode {
            FramingMode::Ndjson => Inner::Ndjson(NdjsonCodec::with_max_len(max_len)),
            FramingMode::ContentLength => {
                Inner::ContentLength(ContentLengthCodec::with_max_len(max_len))
            }
            FramingMode::Auto => Inner::Auto(AutoCodec::with_max_len(max_len)),
        };
        Self { inner }
    }

    /// The longest message body this codec accepts, in bytes.
    #[must_use]
    pub fn max_len(&self) -> usize {
        match &self.inner {
            Inner::Ndjson(codec) => codec.max_len(),
            Inner::ContentLength(codec) => codec.max_len(),
            Inner::Auto(codec) => codec.max_len(),
        }
    }

    /// The mode this codec was built for.
    #[must_use]
    pub fn mode(&self) -> FramingMode {
        match &self.inner {
            Inner::Ndjson(_) => FramingMode::Ndjson,
            Inner::ContentLength(_) => FramingMode::ContentLength,
            Inner::Auto(_) => FramingMode::Auto,
        }
    }

    /// The framing in use: the fixed one, or in auto mode the one detected so far (`None` before
    /// detection).
    #[must_use]
    pub fn framing(&self) -> Option<Framing> {
        match &self.inner {
            Inner::Ndjson(_) => Some(Framing::Ndjson),
            Inner::ContentLength(_) => Some(Framing::ContentLength),
            Inner::Auto(codec) => codec.framing(),
        }
    }
}

impl Default for AnyCodec {
    /// An auto-detecting codec with the default limit.
    fn default() -> Self {
        Self::new(FramingMode::default())
    }
}

impl From<FramingMode> for AnyCodec {
    fn from(mode: FramingMode) -> Self {
        Self::new(mode)
    }
}

impl From<NdjsonCodec> for AnyCodec {
    fn from(codec: NdjsonCodec) -> Self {
        Self {
            inner: Inner::Ndjson(codec),
        }
    }
}

impl From<ContentLengthCodec> for AnyCodec {
    fn from(codec: ContentLengthCodec) -> Self {
        Self {
            inner: Inner::ContentLength(codec),
        }
    }
}

impl From<AutoCodec> for AnyCodec {
    fn from(codec: AutoCodec) -> Self {
        Self {
            inner: Inner::Auto(codec),
        }
    }
}

impl Decoder for AnyCodec {
    type Item = Frame;
    type Error = CodecError;

    /// Returns the next message or oversized report, or `None` when more bytes are needed.
    ///
    /// # Errors
    ///
    /// Those of the codec of this mode's `decode`.
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        match &mut self.inner {
            Inner::Ndjson(codec) => codec.decode(src),
            Inner::ContentLength(codec) => codec.decode(src),
            Inner::Auto(codec) => codec.decode(src),
        }
    }

    /// Like [`decode`](Self::decode), at the end of the stream.
    ///
    /// # Errors
    ///
    /// Those of the codec of this mode's `decode_eof`.
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        match &mut self.inner {
            Inner::Ndjson(codec) => codec.decode_eof(src),
            Inner::ContentLength(codec) => codec.decode_eof(src),
            Inner::Auto(codec) => codec.decode_eof(src),
        }
    }
}

impl<T: AsRef<[u8]>> Encoder<T> for AnyCodec {
    type Error = CodecError;

    /// Appends one frame holding `body` to `dst`.
    ///
    /// # Errors
    ///
    /// Those of the codec of this mode's `encode`; `dst` is then left unchanged.
    fn encode(&mut self, body: T, dst: &mut BytesMut) -> Result<(), CodecError> {
        match &mut self.inner {
            Inner::Ndjson(codec) => codec.encode(body, dst),
            Inner::ContentLength(codec) => codec.encode(body, dst),
            Inner::Auto(codec) => codec.encode(body, dst),
        }
    }
}

impl FrameEncoder for AnyCodec {
    fn begin_frame(&mut self, dst: &mut BytesMut) -> FrameStart {
        match &mut self.inner {
            Inner::Ndjson(codec) => codec.begin_frame(dst),
            Inner::ContentLength(codec) => codec.begin_frame(dst),
            Inner::Auto(codec) => codec.begin_frame(dst),
        }
    }

    fn finish_frame(&mut self, dst: &mut BytesMut, start: FrameStart) -> Result<(), CodecError> {
        match &mut self.inner {
            Inner::Ndjson(codec) => codec.finish_frame(dst, start),
            Inner::ContentLength(codec) => codec.finish_frame(dst, start),
            Inner::Auto(codec) => codec.finish_frame(dst, start),
        }
    }
}
