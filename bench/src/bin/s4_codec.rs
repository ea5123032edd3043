//! Framing throughput of `acp-codec` on S4 traffic, against a bare `memchr` newline scan.
//!
//! Usage: `s4_codec [--file PATH | --bytes N] [--seed S]`.
//! Without `--file` it generates `--bytes` (default 100,000,000) of S4 traffic in memory.
//!
//! Each variant runs one warm-up pass and one timed pass on this thread, and prints one JSON line:
//! `bytes` is what the variant framed (its input for decoders, its output for encoders), `lines`
//! the number of messages, `rss_kb` the process's peak resident set so far, and `pct_of_floor` its
//! throughput as a percentage of the `memchr_floor` variant's.
//!
//! The variants:
//! - `memchr_floor`: count the newlines with `memchr::memchr_iter`; no framer can beat this.
//! - `ndjson_decode`: `NdjsonCodec::decode` over the whole traffic in one buffer.
//! - `ndjson_decode_reads`: the same, fed through a read buffer 64 KiB at a time, as `FramedRead`
//!   over a pipe would (the copy into the buffer is included).
//! - `content_length_decode` and `content_length_decode_reads`: likewise for the same messages
//!   framed with `Content-Length` headers.
//! - `ndjson_encode`, `content_length_encode`: `Encoder::encode` of every message into an output
//!   buffer that is handed off (cleared) every 64 KiB, as `FramedWrite` would flush it.
//! - `ndjson_encode_in_place`, `content_length_encode_in_place`: the same through
//!   `FrameEncoder::begin_frame`/`finish_frame`, with the body appended in between as a serializer
//!   would write it.

// Results go to stdout and errors to stderr: this is a benchmark program, not a library.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use acp_codec::{CodecError, ContentLengthCodec, Frame, FrameEncoder, NdjsonCodec};
use bytes::BytesMut;
use tokio_util::codec::{Decoder, Encoder};

/// The size of one simulated read or write.
const IO_CHUNK: usize = 64 * 1024;

/// What one pass measured.
struct Pass {
    elapsed: Duration,
    bytes: usize,
    lines: usize,
}

/// The traffic in both framings, and where each NDJSON message is.
struct Input {
    ndjson: Vec<u8>,
    content_length: Vec<u8>,
    messages: Vec<(usize, usize)>,
}

impl Input {
    fn new(ndjson: Vec<u8>) -> Result<Self, CodecError> {
        let mut messages = Vec::new();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', &ndjson) {
            messages.push((start, end));
            start = end + 1;
        }
        let mut framed = BytesMut::with_capacity(ndjson.len() + messages.len() * 24);
        let mut codec = ContentLengthCodec::new();
        for &(start, end) in &messages {
            codec.encode(&ndjson[start..end], &mut framed)?;
        }
        Ok(Self {
            content_length: framed.to_vec(),
            ndjson,
            messages,
        })
    }
}

fn memchr_floor(input: &Input) -> Pass {
    let start = Instant::now();
    let lines = memchr::memchr_iter(b'\n', black_box(&input.ndjson)).count();
    Pass {
        elapsed: start.elapsed(),
        bytes: input.ndjson.len(),
        lines: black_box(lines),
    }
}

/// Decodes `data` held in one buffer, as if it had all arrived at once.
fn decode_whole<D>(mut codec: D, data: &[u8]) -> Result<Pass, CodecError>
where
    D: Decoder<Item = Frame, Error = CodecError>,
{
    let mut buf = BytesMut::from(data);
    let (mut lines, mut body_bytes) = (0, 0);
    let start = Instant::now();
    while let Some(frame) = codec.decode(&mut buf)? {
        if let Frame::Message(body) = frame {
            lines += 1;
            body_bytes += body.len();
        }
    }
    let elapsed = start.elapsed();
    black_box(body_bytes);
    Ok(Pass {
        elapsed,
        bytes: data.len(),
        lines,
    })
}

/// Decodes `data` arriving `IO_CHUNK` bytes at a time into a reused read buffer.
fn decode_reads<D>(mut codec: D, data: &[u8]) -> Result<Pass, CodecError>
where
    D: Decoder<Item = Frame, Error = CodecError>,
{
    let mut buf = BytesMut::with_capacity(IO_CHUNK);
    let (mut lines, mut body_bytes) = (0, 0);
    let start = Instant::now();
    for chunk in data.chunks(IO_CHUNK) {
        buf.extend_from_slice(chunk);
        while let Some(frame) = codec.decode(&mut buf)? {
            if let Frame::Message(body) = frame {
                lines += 1;
                body_bytes += body.len();
            }
        }
    }
    while let Some(frame) = codec.decode_eof(&mut buf)? {
        if let Frame::Message(body) = frame {
            lines += 1;
            body_bytes += body.len();
        }
    }
    let elapsed = start.elapsed();
    black_box(body_bytes);
    Ok(Pass {
        elapsed,
        bytes: data.len(),
        lines,
    })
}

/// Encodes every message with `Encoder::encode`, handing the output off every `IO_CHUNK` bytes.
fn encode<E>(mut codec: E, input: &Input) -> Result<Pass, CodecError>
where
    E: for<'a> Encoder<&'a [u8], Error = CodecError>,
{
    let mut dst = BytesMut::with_capacity(2 * IO_CHUNK);
    let mut written = 0;
    let start = Instant::now();
    for &(from, to) in &input.messages {
        codec.encode(&input.ndjson[from..to], &mut dst)?;
        if dst.len() >= IO_CHUNK {
            written += black_box(&dst).len();
            dst.clear();
        }
    }
    written += dst.len();
    Ok(Pass {
        elapsed: start.elapsed(),
        bytes: written,
        lines: input.messages.len(),
    })
}

/// Encodes every message through the in-place API, the body appended between begin and finish.
fn encode_in_place<E: FrameEncoder>(mut codec: E, input: &Input) -> Result<Pass, CodecError> {
    let mut dst = BytesMut::with_capacity(2 * IO_CHUNK);
    let mut written = 0;
    let start = Instant::now();
    for &(from, to) in &input.messages {
        let frame = codec.begin_frame(&mut dst);
        dst.extend_from_slice(&input.ndjson[from..to]);
        codec.finish_frame(&mut dst, frame)?;
        if dst.len() >= IO_CHUNK {
            written += black_box(&dst).len();
            dst.clear();
        }
    }
    written += dst.len();
    Ok(Pass {
        elapsed: start.elapsed(),
        bytes: written,
        lines: input.messages.len(),
    })
}

/// The peak resident set size of this process so far, in KiB.
fn run(input: &Input) -> Result<(), CodecError> {
    type Variant = fn(&Input) -> Result<Pass, CodecError>;
    let variants: [(&str, Variant); 9] = [
        ("memchr_floor", |i| Ok(memchr_floor(i))),
        ("ndjson_decode", |i| {
            decode_whole(NdjsonCodec::new(), &i.ndjson)
        }),
        ("ndjson_decode_reads", |i| {
            decode_reads(NdjsonCodec::new(), &i.ndjson)
        }),
        ("content_length_decode", |i| {
            decode_whole(ContentLengthCodec::new(), &i.content_length)
        }),
        ("content_length_decode_reads", |i| {
            decode_reads(ContentLengthCodec::new(), &i.content_length)
        }),
        ("ndjson_encode", |i| encode(NdjsonCodec::new(), i)),
        ("content_length_encode", |i| {
            encode(ContentLengthCodec::new(), i)
        }),
        ("ndjson_encode_in_place", |i| {
            encode_in_place(NdjsonCodec::new(), i)
        }),
        ("content_length_encode_in_place", |i| {
            encode_in_place(ContentLengthCodec::new(), i)
        }),
    ];
    let mut floor_mb_per_s = None;
    for (name, variant) in variants {
        let _warm_up = variant(input)?;
        let pass = variant(input)?;
        assert_eq!(
            pass.lines,
            input.messages.len(),
            "{name} framed every message"
        );
        let secs = pass.elapsed.as_secs_f64();
        let mb_per_s = pass.bytes as f64 / secs / 1e6;
        let floor = *floor_mb_per_s.get_or_insert(mb_per_s);
        println!(
            "{}",
            serde_json::json!({
                "scenario": "s4",
                "variant": name,
                "bytes": pass.bytes,
                "lines": pass.lines,
                "elapsed_s": secs,
                "mb_per_s": (mb_per_s * 10.0).round() / 10.0,
                "msgs_per_s": (pass.lines as f64 / secs).round(),
                "pct_of_floor": (mb_per_s / floor * 1000.0).round() / 10.0,
                "rss_kb": acp_bench::report::peak_rss_kb(),
            })
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let data = match acp_bench::report::S4Args::parse("s4_codec").and_then(|args| args.load()) {
        Ok(data) => data,
        Err(e) => {
            eprintln!("s4_codec: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = Input::new(data).and_then(|input| run(&input));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("s4_codec: {e}");
            ExitCode::FAILURE
        }
    }
}
