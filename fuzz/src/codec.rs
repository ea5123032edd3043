//! The codec targets (`ndjson`, `content_length`, `auto`): the decoders of `acp-codec`.
//!
//! Each target hands the fuzzer's bytes to [`check_decoder`] with a codec constructor.
//! The first byte picks a small frame limit (so the oversized paths are exercised), the second
//! picks how the rest is cut into reads, and the rest is the input stream.
//!
//! The checks are:
//! - decoding never panics;
//! - after every `decode` that asks for more bytes, the read buffer holds at most one limit's worth
//!   (or one header section's worth) of bytes, and its capacity stays proportionate;
//! - feeding the input in pieces gives exactly the frames (and the error) of feeding it at once;
//! - every decoded message that the matching encoder accepts decodes back to itself.

use acp_codec::{
    AnyCodec, AutoCodec, CodecError, ContentLengthCodec, Frame, FrameEncoder, Framing, FramingMode,
    MAX_HEADER_LEN, NdjsonCodec,
};
use bytes::{BufMut, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

/// The `ndjson` target: [`NdjsonCodec`].
pub fn ndjson(data: &[u8]) {
    check_decoder(data, NdjsonCodec::with_max_len, |_| Some(Framing::Ndjson));
}

/// The `content_length` target: [`ContentLengthCodec`].
pub fn content_length(data: &[u8]) {
    check_decoder(data, ContentLengthCodec::with_max_len, |_| {
        Some(Framing::ContentLength)
    });
}

/// The `auto` target: [`AutoCodec`], with and without switching (the low bit of the limit byte).
pub fn auto(data: &[u8]) {
    let switching = data.first().is_some_and(|b| b & 1 == 1);
    check_decoder(
        data,
        |max_len| AutoCodec::with_max_len(max_len).allow_switching(switching),
        |codec| codec.framing().filter(|_| !switching),
    );
}

/// The frames one run produced, and whether it ended with an error (as text).
pub(crate) type Run = (Vec<Frame>, Option<String>);

/// Runs all checks for the codec built by `make(max_len)`; `framing` tells which framing it used.
pub fn check_decoder<D>(
    data: &[u8],
    make: impl Fn(usize) -> D,
    framing: impl Fn(&D) -> Option<Framing>,
) where
    D: Decoder<Item = Frame, Error = CodecError>,
{
    let [limit, seed, input @ ..] = data else {
        return;
    };
    let max_len = usize::from(*limit);

    let mut whole_codec = make(max_len);
    let whole = decode(&mut whole_codec, [input], max_len, input.len());

    let sizes = chunk_sizes(*seed, input.len());
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let mut chunks = Vec::new();
    let mut rest = input;
    for size in sizes {
        let (chunk, tail) = rest.split_at(size);
        chunks.push(chunk);
        rest = tail;
    }
    let mut chunked_codec = make(max_len);
    let chunked = decode(&mut chunked_codec, chunks, max_len, largest);
    assert_eq!(whole, chunked, "splitting the input changed the result");

    if let Some(framing) = framing(&whole_codec) {
        round_trip(&whole.0, framing, max_len, seed & 1 == 1);
    }
}

/// Cuts `len` bytes into pieces whose sizes come from a small generator seeded by `seed`.
pub(crate) fn chunk_sizes(seed: u8, len: usize) -> Vec<usize> {
    // Wrapping: the multiplier spreads the seed over all 32 bits (it overflowed for seeds >= 2).
    let mut state = u32::from(seed).wrapping_mul(2_654_435_761).wrapping_add(1);
    let mut sizes = Vec::new();
    let mut left = len;
    while left > 0 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        // Mostly tiny reads, sometimes larger ones.
        let size = 1 + (state as usize % if state & 0x100 == 0 { 4 } else { 300 });
        let size = size.min(left);
        sizes.push(size);
        left -= size;
    }
    sizes
}

/// Decodes `chunks` in order, then signals end of file, checking the buffer after every step.
pub(crate) fn decode<'a, D>(
    codec: &mut D,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    max_len: usize,
    largest_chunk: usize,
) -> Run
where
    D: Decoder<Item = Frame, Error = CodecError>,
{
    // What a codec may keep between reads: a partial line of up to `max_len + 1` bytes, a
    // partial header section, or a partial body of at most `max_len` bytes.
    let held = max_len.max(MAX_HEADER_LEN) + 1;
    let capacity = 4 * (held + largest_chunk) + 1024;
    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(frame)) => frames.push(frame),
                Ok(None) => break,
                Err(e) => return (frames, Some(e.to_string())),
            }
        }
        assert!(
            buf.len() <= held,
            "{} bytes held with a limit of {max_len}",
            buf.len()
        );
        assert!(
            buf.capacity() <= capacity,
            "capacity {} with a limit of {max_len}",
            buf.capacity()
        );
    }
    loop {
        match codec.decode_eof(&mut buf) {
            Ok(Some(frame)) => frames.push(frame),
            Ok(None) => return (frames, None),
            Err(e) => return (frames, Some(e.to_string())),
        }
    }
}

/// Encodes every message the encoder accepts and checks it decodes back to itself.
fn round_trip(frames: &[Frame], framing: Framing, max_len: usize, in_place: bool) {
    let mut codec = AnyCodec::with_max_len(FramingMode::from(framing), max_len);
    let mut wire = BytesMut::new();
    let mut accepted = Vec::new();
    for body in frames.iter().filter_map(|f| f.clone().into_message()) {
        let before = wire.len();
        let result = if in_place {
            let start = codec.begin_frame(&mut wire);
            wire.put_slice(&body);
            codec.finish_frame(&mut wire, start)
        } else {
            codec.encode(body.clone(), &mut wire)
        };
        match result {
            Ok(()) => accepted.push(Frame::Message(body)),
            Err(e) => {
                assert!(!e.is_fatal(), "encoding failed fatally: {e}");
                assert_eq!(wire.len(), before, "a refused message left bytes behind");
            }
        }
    }
    let mut decoder = AnyCodec::with_max_len(FramingMode::from(framing), max_len);
    let (decoded, error) = decode(&mut decoder, [&wire[..]], max_len, wire.len());
    assert_eq!(error, None, "re-encoded messages failed to decode");
    assert_eq!(decoded, accepted, "re-encoded messages decoded differently");
}

#[cfg(test)]
mod tests {
    /// `chunk_sizes` overflowed a `u32` for every seed from 2 on (a panic under overflow checks).
    #[test]
    fn harness_runs_on_a_small_input_for_every_seed() {
        for seed in 0..=u8::MAX {
            let input = [64, seed, b'{', b'}', b'\n', b'x', b'\n'];
            super::ndjson(&input);
            super::content_length(&input);
            super::auto(&input);
        }
    }

    #[test]
    fn chunks_cover_the_input() {
        for seed in 0..=u8::MAX {
            for len in [0, 1, 7, 1000] {
                let sizes = super::chunk_sizes(seed, len);
                assert_eq!(sizes.iter().sum::<usize>(), len);
                assert!(sizes.iter().all(|&s| s > 0));
            }
        }
    }
}
