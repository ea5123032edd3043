//! The in-place encoding API shared by every codec.

use bytes::BytesMut;

use crate::{CodecError, Framing};

/// Where a frame begins in an output buffer; returned by [`FrameEncoder::begin_frame`].
///
/// Pass it back to [`FrameEncoder::finish_frame`] (or [`FrameEncoder::abort_frame`]) with the same
/// buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a started frame must be finished or aborted"]
pub struct FrameStart {
    offset: usize,
    framing: Framing,
}

impl FrameStart {
    pub(crate) fn new(offset: usize, framing: Framing) -> Self {
        Self { offset, framing }
    }

    /// The length the buffer had when the frame began; the body starts there.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The framing the frame will be written in, fixed when it began.
    #[must_use]
    pub fn framing(&self) -> Framing {
        self.framing
    }
}

/// Encoding a message whose body is written straight into the output buffer.
///
/// This lets a serializer write into the buffer that goes to the transport, with no intermediate
/// `Vec` and no second copy of the body:
///
/// ```
/// use acp_codec::{FrameEncoder, NdjsonCodec};
/// use bytes::{BufMut, BytesMut};
///
/// let mut codec = NdjsonCodec::new();
/// let mut out = BytesMut::new();
/// let start = codec.begin_frame(&mut out);
/// out.put_slice(br#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#);
/// codec.finish_frame(&mut out, start)?;
/// assert!(out.ends_with(b"}}\n"));
/// # Ok::<(), acp_codec::CodecError>(())
/// ```
///
/// Between [`begin_frame`](Self::begin_frame) and [`finish_frame`](Self::finish_frame) the caller
/// only appends the body to the buffer; it must not remove bytes written before the frame began.
/// If producing the body fails, [`abort_frame`](Self::abort_frame) removes what was written.
pub trait FrameEncoder {
    /// Starts a frame at the current end of `dst`.
    fn begin_frame(&mut self, dst: &mut BytesMut) -> FrameStart;

    /// Completes the frame whose body was appended to `dst` since `start`.
    ///
    /// NDJSON appends the newline; Content-Length inserts the header in front of the body, moving
    /// the body once.
    ///
    /// # Errors
    ///
    /// [`CodecError::FrameTooLarge`] when the body is longer than the codec's limit, and for NDJSON
    /// [`CodecError::EmbeddedNewline`] or [`CodecError::EmptyMessage`] when the body cannot be
    /// carried on one line.
    /// On error `dst` is truncated back to `start.offset()`, so the buffer holds only whole frames
    /// and the connection can go on; none of these errors is fatal.
    fn finish_frame(&mut self, dst: &mut BytesMut, start: FrameStart) -> Result<(), CodecError>;

    /// Abandons a started frame, removing everything written to `dst` since `start`.
    fn abort_frame(&mut self, dst: &mut BytesMut, start: FrameStart) {
        dst.truncate(start.offset());
    }
}
