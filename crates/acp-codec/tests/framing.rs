//! Framing behaviour of every codec, fed byte literals split at every possible point.

use acp_codec::{
    AnyCodec, AutoCodec, CodecError, ContentLengthCodec, Frame, FrameEncoder, Framing, FramingMode,
    MAX_HEADER_LEN, NdjsonCodec,
};
use bytes::{BufMut, Bytes, BytesMut};
use futures::{SinkExt, StreamExt};
use proptest::prelude::*;
use tokio::io::AsyncWriteExt;
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite};

// ---------------------------------------------------------------------------------------------
// Helpers.

/// What one run of a decoder over a whole input produced.
#[derive(Debug, PartialEq)]
struct Run {
    frames: Vec<Frame>,
    /// The error that ended the run, as text, if any.
    error: Option<String>,
}

/// Feeds `chunks` to a fresh clone of `codec` one after the other, then signals end of file.
fn run_chunks<'a, D>(codec: &D, chunks: impl IntoIterator<Item = &'a [u8]>) -> Run
where
    D: Decoder<Item = Frame, Error = CodecError> + Clone,
{
    let (mut codec, mut buf, mut frames) = (codec.clone(), BytesMut::new(), Vec::new());
    let mut drain = |codec: &mut D, buf: &mut BytesMut, eof: bool| -> Result<(), CodecError> {
        loop {
            let next = if eof {
                codec.decode_eof(buf)?
            } else {
                codec.decode(buf)?
            };
            match next {
                Some(frame) => frames.push(frame),
                None => return Ok(()),
            }
        }
    };
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        if let Err(e) = drain(&mut codec, &mut buf, false) {
            return Run {
                frames,
                error: Some(e.to_string()),
            };
        }
    }
    let error = drain(&mut codec, &mut buf, true)
        .err()
        .map(|e| e.to_string());
    Run { frames, error }
}

/// Decodes `input` split at every possible point, asserts every split gives the same result,
/// and returns it.
fn decode_every_split<D>(codec: &D, input: &[u8]) -> Run
where
    D: Decoder<Item = Frame, Error = CodecError> + Clone,
{
    let whole = run_chunks(codec, [input]);
    for split in 0..=input.len() {
        let run = run_chunks(codec, [&input[..split], &input[split..]]);
        assert_eq!(run, whole, "input split at byte {split}");
    }
    for size in [1, 2, 3, 7] {
        let run = run_chunks(codec, input.chunks(size));
        assert_eq!(run, whole, "input fed {size} bytes at a time");
    }
    whole
}

/// Decodes `input` at every split and asserts it yields exactly `expected`, without error.
fn assert_frames<D>(codec: &D, input: &[u8], expected: &[Frame])
where
    D: Decoder<Item = Frame, Error = CodecError> + Clone,
{
    let run = decode_every_split(codec, input);
    assert_eq!(run.error, None, "unexpected error");
    assert_eq!(run.frames, expected);
}

/// Decodes `input` at every split and asserts it ends with an error containing `needle`.
fn assert_error<D>(codec: &D, input: &[u8], needle: &str) -> Vec<Frame>
where
    D: Decoder<Item = Frame, Error = CodecError> + Clone,
{
    let run = decode_every_split(codec, input);
    let error = run.error.expect("expected an error");
    assert!(error.contains(needle), "error {error:?} lacks {needle:?}");
    run.frames
}

fn msg(body: &'static [u8]) -> Frame {
    Frame::Message(Bytes::from_static(body))
}

fn oversized(limit: usize) -> Frame {
    Frame::Oversized { limit }
}

fn encode<E: Encoder<&'static [u8], Error = CodecError>>(
    codec: &mut E,
    body: &'static [u8],
) -> Result<BytesMut, CodecError> {
    let mut out = BytesMut::new();
    codec.encode(body, &mut out).map(|()| out)
}

// ---------------------------------------------------------------------------------------------
// NDJSON decoding.

#[test]
fn ndjson_yields_one_message_per_line() {
    assert_frames(
        &NdjsonCodec::new(),
        b"{\"a\":1}\n{\"b\":2}\n[]\n",
        &[msg(b"{\"a\":1}"), msg(b"{\"b\":2}"), msg(b"[]")],
    );
}

#[test]
fn ndjson_accepts_crlf_line_endings() {
    assert_frames(
        &NdjsonCodec::new(),
        b"{\"a\":1}\r\n{\"b\":2}\n{}\r\n",
        &[msg(b"{\"a\":1}"), msg(b"{\"b\":2}"), msg(b"{}")],
    );
}

#[test]
fn ndjson_removes_only_one_carriage_return() {
    assert_frames(&NdjsonCodec::new(), b"{}\r\r\n", &[msg(b"{}\r")]);
}

#[test]
fn ndjson_skips_blank_lines() {
    assert_frames(
        &NdjsonCodec::new(),
        b"\n\r\n{}\n\n \t \r\n\n[]\n\n",
        &[msg(b"{}"), msg(b"[]")],
    );
}

#[test]
fn ndjson_keeps_inner_whitespace_and_non_json_bytes() {
    assert_frames(
        &NdjsonCodec::new(),
        b"  { \"a\" : 1 }  \nnot json\n\xff\xfe\n",
        &[
            msg(b"  { \"a\" : 1 }  "),
            msg(b"not json"),
            msg(b"\xff\xfe"),
        ],
    );
}

#[test]
fn ndjson_accepts_a_line_of_exactly_the_limit() {
    let codec = NdjsonCodec::with_max_len(4);
    assert_frames(&codec, b"abcd\nefgh\r\n", &[msg(b"abcd"), msg(b"efgh")]);
}

#[test]
fn oversized_line_is_reported_once_then_skipped() {
    assert_frames(
        &NdjsonCodec::with_max_len(4),
        b"0123456789\n{}\n",
        &[oversized(4), msg(b"{}")],
    );
}

#[test]
fn ndjson_reports_a_line_one_byte_over_the_limit() {
    assert_frames(
        &NdjsonCodec::with_max_len(4),
        b"abcde\nabcde\r\n{}\n",
        &[oversized(4), oversized(4), msg(b"{}")],
    );
}

#[test]
fn ndjson_messages_after_several_oversized_lines_still_arrive() {
    let long = [b'x'; 100];
    let mut input = Vec::new();
    for i in 0..3u8 {
        input.extend_from_slice(&long);
        input.extend_from_slice(b"\n");
        input.extend_from_slice(&[b'{', b'0' + i, b'}', b'\n']);
    }
    let run = decode_every_split(&NdjsonCodec::with_max_len(10), &input);
    assert_eq!(run.error, None);
    assert_eq!(
        run.frames,
        [
            oversized(10),
            msg(b"{0}"),
            oversized(10),
            msg(b"{1}"),
            oversized(10),
            msg(b"{2}")
        ]
    );
}

#[test]
fn ndjson_delivers_an_unterminated_final_line_at_eof() {
    assert_frames(
        &NdjsonCodec::new(),
        b"{}\n{\"a\"",
        &[msg(b"{}"), msg(b"{\"a\"")],
    );
    assert_frames(&NdjsonCodec::new(), b"{}\r", &[msg(b"{}")]);
}

#[test]
fn ndjson_drops_unterminated_blank_and_oversized_tails_at_eof() {
    assert_frames(&NdjsonCodec::new(), b"{}\n  \r", &[msg(b"{}")]);
    assert_frames(
        &NdjsonCodec::with_max_len(4),
        b"{}\n0123456789",
        &[msg(b"{}"), oversized(4)],
    );
    assert_frames(&NdjsonCodec::with_max_len(4), b"abcde", &[oversized(4)]);
}

#[test]
fn ndjson_frames_across_many_small_reads() {
    let line =
        br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{}}}"#;
    let mut input = Vec::new();
    for _ in 0..50 {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    for size in [1, 5, 64, 1000] {
        let run = run_chunks(&NdjsonCodec::new(), input.chunks(size));
        assert_eq!(run.error, None);
        assert_eq!(run.frames.len(), 50);
        assert!(
            run.frames
                .iter()
                .all(|f| *f == Frame::Message(Bytes::from_static(line)))
        );
    }
}

#[test]
fn ndjson_memory_stays_bounded_on_an_endless_line() {
    let limit = 1000;
    let chunk = [b'a'; 4096];
    let mut codec = NdjsonCodec::with_max_len(limit);
    let mut buf = BytesMut::new();
    let mut reports = 0;
    for _ in 0..2000 {
        buf.extend_from_slice(&chunk);
        while let Some(frame) = codec.decode(&mut buf).unwrap() {
            assert_eq!(frame, oversized(limit));
            reports += 1;
        }
        assert!(buf.len() <= limit + 1, "buffer holds {} bytes", buf.len());
    }
    assert_eq!(reports, 1);
    buf.extend_from_slice(b"\n{}\n");
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(msg(b"{}")));
}

#[test]
fn ndjson_decoded_frames_share_the_read_buffer() {
    let mut buf = BytesMut::with_capacity(64);
    buf.extend_from_slice(b"{\"a\":1}\n{\"b\":2}\n");
    let base = buf.as_ptr() as usize;
    let mut codec = NdjsonCodec::new();
    let first = codec
        .decode(&mut buf)
        .unwrap()
        .unwrap()
        .into_message()
        .unwrap();
    let second = codec
        .decode(&mut buf)
        .unwrap()
        .unwrap()
        .into_message()
        .unwrap();
    assert_eq!(first.as_ptr() as usize, base);
    assert_eq!(second.as_ptr() as usize, base + 8);
}

// ---------------------------------------------------------------------------------------------
// NDJSON encoding.

#[test]
fn ndjson_encoder_appends_exactly_one_newline() {
    let mut codec = NdjsonCodec::new();
    assert_eq!(
        &encode(&mut codec, b"{\"a\":1}").unwrap()[..],
        b"{\"a\":1}\n"
    );
    let mut out = BytesMut::from(&b"{}\n"[..]);
    codec.encode(Bytes::from_static(b"[]"), &mut out).unwrap();
    assert_eq!(&out[..], b"{}\n[]\n");
}

#[test]
fn ndjson_encoder_refuses_raw_line_breaks() {
    let mut codec = NdjsonCodec::new();
    for body in [&b"{\"a\":\n1}"[..], b"{}\n", b"{}\r", b"{\r}"] {
        let mut out = BytesMut::from(&b"x"[..]);
        assert!(matches!(
            codec.encode(body, &mut out),
            Err(CodecError::EmbeddedNewline)
        ));
        assert_eq!(&out[..], b"x", "the buffer is left unchanged");
    }
}

#[test]
fn ndjson_encoder_refuses_blank_messages() {
    let mut codec = NdjsonCodec::new();
    for body in [&b""[..], b" ", b"\t \t"] {
        assert!(matches!(
            codec.encode(body, &mut BytesMut::new()),
            Err(CodecError::EmptyMessage)
        ));
    }
}

#[test]
fn ndjson_encoder_refuses_messages_over_the_limit() {
    let mut codec = NdjsonCodec::with_max_len(4);
    assert!(encode(&mut codec, b"abcd").is_ok());
    let err = encode(&mut codec, b"abcde").unwrap_err();
    assert!(matches!(
        err,
        CodecError::FrameTooLarge { len: 5, limit: 4 }
    ));
    assert!(!err.is_fatal());
}

#[test]
fn ndjson_in_place_frames_get_their_newline() {
    let mut codec = NdjsonCodec::new();
    let mut out = BytesMut::new();
    for body in [&b"{\"a\":1}"[..], b"{\"b\":2}"] {
        let start = codec.begin_frame(&mut out);
        out.put_slice(body);
        codec.finish_frame(&mut out, start).unwrap();
    }
    assert_eq!(&out[..], b"{\"a\":1}\n{\"b\":2}\n");
}

#[test]
fn ndjson_in_place_errors_truncate_back_to_the_frame_start() {
    let mut codec = NdjsonCodec::with_max_len(8);
    for (body, check) in [
        (&b"{\"a\":\n1}"[..], "raw line break"),
        (b"{\"a\":123456}", "frame limit"),
        (b"  ", "blank"),
    ] {
        let mut out = BytesMut::from(&b"{}\n"[..]);
        let start = codec.begin_frame(&mut out);
        out.put_slice(body);
        let err = codec.finish_frame(&mut out, start).unwrap_err();
        assert!(err.to_string().contains(check), "{err}");
        assert_eq!(&out[..], b"{}\n");
    }
}

#[test]
fn an_aborted_frame_leaves_only_earlier_frames() {
    let mut codec = NdjsonCodec::new();
    let mut out = BytesMut::from(&b"{}\n"[..]);
    let start = codec.begin_frame(&mut out);
    out.put_slice(b"{\"half");
    codec.abort_frame(&mut out, start);
    assert_eq!(&out[..], b"{}\n");
}

// ---------------------------------------------------------------------------------------------
// Content-Length decoding.

#[test]
fn content_length_yields_each_body() {
    assert_frames(
        &ContentLengthCodec::new(),
        b"Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n{}",
        &[msg(b"{\"a\":1}"), msg(b"{}")],
    );
}

#[test]
fn content_length_header_names_ignore_case_and_other_headers_are_ignored() {
    assert_frames(
        &ContentLengthCodec::new(),
        b"content-LENGTH: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}\
          Content-Type: application/json\r\nX-Trace:  abc \r\nCONTENT-LENGTH:2\r\n\r\n[]",
        &[msg(b"{}"), msg(b"[]")],
    );
}

#[test]
fn content_length_bodies_may_contain_newlines() {
    assert_frames(
        &ContentLengthCodec::new(),
        b"Content-Length: 10\r\n\r\n{\r\n\"a\":\n1}",
        &[msg(b"{\r\n\"a\":\n1}")],
    );
}

#[test]
fn content_length_tolerates_bare_newlines_and_whitespace_between_frames() {
    assert_frames(
        &ContentLengthCodec::new(),
        b"\r\n\nContent-Length: 2\n\n{}\r\n  \r\nContent-Length:  2  \r\n\r\n[]\r\n",
        &[msg(b"{}"), msg(b"[]")],
    );
}

#[test]
fn content_length_accepts_a_repeated_equal_length_and_a_zero_length() {
    assert_frames(
        &ContentLengthCodec::new(),
        b"Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}Content-Length: 0\r\n\r\n",
        &[msg(b"{}"), msg(b"")],
    );
}

#[test]
fn content_length_accepts_a_body_of_exactly_the_limit() {
    assert_frames(
        &ContentLengthCodec::with_max_len(4),
        b"Content-Length: 4\r\n\r\nabcd",
        &[msg(b"abcd")],
    );
}

#[test]
fn oversized_content_length_body_is_skipped_by_count_then_the_next_arrives() {
    assert_frames(
        &ContentLengthCodec::with_max_len(4),
        b"Content-Length: 10\r\n\r\n0123456789Content-Length: 2\r\n\r\n{}",
        &[oversized(4), msg(b"{}")],
    );
}

#[test]
fn an_oversized_content_length_is_never_buffered_or_reserved() {
    let mut codec = ContentLengthCodec::with_max_len(1024);
    let mut buf = BytesMut::from(&b"Content-Length: 65536\r\n\r\n"[..]);
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(oversized(1024)));
    assert!(buf.capacity() < 4096);
    for _ in 0..16 {
        buf.extend_from_slice(&[b'z'; 4096]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert!(buf.is_empty());
    }
    buf.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(msg(b"{}")));
}

#[test]
fn an_absurd_declared_length_is_fatal_instead_of_swallowing_the_stream() {
    // Skipping a terabyte by count would drop every later message without a word.
    let run = decode_every_split(
        &ContentLengthCodec::with_max_len(1024),
        b"Content-Length: 2\r\n\r\n{}Content-Length: 1099511627776\r\n\r\n{}Content-Length: 2\r\n\r\n[]",
    );
    assert_eq!(run.frames, [msg(b"{}")]);
    let error = run.error.expect("a fatal error");
    assert!(
        error.contains("1099511627776") && error.contains("1024-byte frame limit"),
        "{error}"
    );
    // 64 times the limit is still skipped; one byte more is not.
    let mut input = b"Content-Length: 65536\r\n\r\n".to_vec();
    input.resize(input.len() + 65536, b'z');
    input.extend_from_slice(b"Content-Length: 2\r\n\r\n[]");
    let run = run_chunks(&ContentLengthCodec::with_max_len(1024), [&input[..]]);
    assert_eq!(run.frames, [oversized(1024), msg(b"[]")]);
    assert_eq!(run.error, None);
    let mut codec = ContentLengthCodec::with_max_len(1024);
    let mut buf = BytesMut::from(&b"Content-Length: 65537\r\n\r\n"[..]);
    assert!(matches!(
        codec.decode(&mut buf),
        Err(CodecError::ImplausibleLength {
            len: 65537,
            limit: 1024
        })
    ));
}

fn malformed(reason: &str) -> Frame {
    Frame::Malformed {
        reason: reason.to_owned(),
    }
}

#[test]
fn a_header_section_without_content_length_is_reported_and_the_next_frame_arrives() {
    // With a body (whose length nobody knows) and without one.
    assert_frames(
        &ContentLengthCodec::new(),
        b"Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\"}Content-Length: 2\r\n\r\n{}",
        &[malformed("missing Content-Length header"), msg(b"{}")],
    );
    assert_frames(
        &ContentLengthCodec::new(),
        b"Content-Type: application/json\r\n\r\ncontent-length: 2\r\n\r\n{}",
        &[malformed("missing Content-Length header"), msg(b"{}")],
    );
    // A stream that ends while looking for the next frame ends cleanly.
    assert_frames(
        &ContentLengthCodec::new(),
        b"Content-Type: application/json\r\n\r\n{\"a\":\"Content-Lengt",
        &[malformed("missing Content-Length header")],
    );
}

#[test]
fn content_length_bad_values_are_reported_with_their_reason_then_skipped() {
    for (value, reason) in [
        ("", "empty Content-Length value"),
        ("-2", "negative Content-Length value"),
        ("two", "Content-Length value is not a decimal number"),
        ("2a", "Content-Length value is not a decimal number"),
        ("+2", "Content-Length value is not a decimal number"),
        ("184467440737095516160", "Content-Length value out of range"),
    ] {
        let input = format!(
            "Content-Length: {value}\r\nContent-Type: x\r\n\r\n{{\"id\":1}}Content-Length: 2\r\n\r\n{{}}"
        );
        assert_frames(
            &ContentLengthCodec::new(),
            input.as_bytes(),
            &[malformed(reason), msg(b"{}")],
        );
    }
}

#[test]
fn content_length_conflicting_lengths_are_reported_then_skipped() {
    assert_frames(
        &ContentLengthCodec::new(),
        b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{} Content-Length: 2\r\n\r\n[]",
        &[
            malformed("conflicting Content-Length headers: 2 and 3"),
            msg(b"[]"),
        ],
    );
}

#[test]
fn looking_for_the_next_frame_holds_only_a_few_bytes() {
    let mut codec = ContentLengthCodec::new();
    let mut buf = BytesMut::from(&b"Content-Length: x\r\n\r\n"[..]);
    assert_eq!(
        codec.decode(&mut buf).unwrap(),
        Some(malformed("Content-Length value is not a decimal number"))
    );
    for _ in 0..100 {
        buf.extend_from_slice(&[b'c'; 4096]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert!(buf.len() < 16, "{} bytes held", buf.len());
    }
    buf.extend_from_slice(b"ONTENT-LENGTH: 2\r\n\r\n{}");
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(msg(b"{}")));
}

#[test]
fn content_length_malformed_header_lines_are_fatal() {
    assert_error(
        &ContentLengthCodec::new(),
        b"Content-Length 2\r\n\r\n{}",
        "without `:`",
    );
    assert_error(
        &ContentLengthCodec::new(),
        b"Bad Name: 1\r\nContent-Length: 2\r\n\r\n{}",
        "invalid header name",
    );
    let frames = assert_error(
        &ContentLengthCodec::new(),
        b"Content-Length: 2\r\n\r\n{}{\"jsonrpc\":\"2.0\"}\n",
        "not a header, so the stream cannot be read as Content-Length framed",
    );
    assert_eq!(frames, [msg(b"{}")], "frames before the error are kept");
}

#[test]
fn content_length_header_sections_are_capped() {
    let mut input = b"Content-Length: 2\r\nX-Padding: ".to_vec();
    input.resize(MAX_HEADER_LEN + 10, b'p');
    input.extend_from_slice(b"\r\n\r\n{}");
    let mut codec = ContentLengthCodec::new();
    let mut buf = BytesMut::from(&input[..]);
    assert!(matches!(
        codec.decode(&mut buf),
        Err(CodecError::InvalidHeader { .. })
    ));
    // A section of exactly the cap is accepted.
    let mut input = b"Content-Length: 2\r\nX-Padding: ".to_vec();
    input.resize(MAX_HEADER_LEN - 4, b'p');
    input.extend_from_slice(b"\r\n\r\n{}");
    let mut buf = BytesMut::from(&input[..]);
    assert_eq!(
        ContentLengthCodec::new().decode(&mut buf).unwrap(),
        Some(msg(b"{}"))
    );
}

#[test]
fn a_megabyte_header_line_is_fatal_with_its_reason_and_never_buffered() {
    let mut codec = ContentLengthCodec::new();
    let mut buf = BytesMut::from(&b"Content-Type: "[..]);
    let mut result = Ok(None);
    for _ in 0..256 {
        buf.extend_from_slice(&[b'x'; 4096]);
        result = codec.decode(&mut buf);
        if result.is_err() {
            break;
        }
        assert!(buf.len() <= MAX_HEADER_LEN, "{} bytes held", buf.len());
    }
    let error = result.expect_err("a fatal error").to_string();
    assert!(
        error.contains("header section longer than 8 KiB")
            && error.contains("the next frame cannot be found"),
        "{error}"
    );
}

#[test]
fn content_length_eof_inside_a_frame_is_an_error() {
    let frames = assert_error(
        &ContentLengthCodec::new(),
        b"Content-Length: 2\r\n\r\n{}Content-Length: 5\r\n\r\n{}",
        "stream ended inside a Content-Length frame after 2 bytes",
    );
    assert_eq!(frames, [msg(b"{}")]);
    assert_error(
        &ContentLengthCodec::new(),
        b"Content-Length: 5\r\n",
        "stream ended inside a Content-Length frame",
    );
}

#[test]
fn content_length_eof_between_frames_or_while_skipping_is_clean() {
    assert_frames(
        &ContentLengthCodec::new(),
        b"Content-Length: 2\r\n\r\n{}\r\n \r\n",
        &[msg(b"{}")],
    );
    assert_frames(
        &ContentLengthCodec::with_max_len(1),
        b"Content-Length: 9\r\n\r\n{}",
        &[oversized(1)],
    );
}

// ---------------------------------------------------------------------------------------------
// Content-Length encoding.

#[test]
fn content_length_encoder_writes_the_header_form() {
    let mut codec = ContentLengthCodec::new();
    assert_eq!(
        &encode(&mut codec, b"{\"a\":\n1}").unwrap()[..],
        b"Content-Length: 8\r\n\r\n{\"a\":\n1}"
    );
    assert_eq!(
        &encode(&mut codec, b"").unwrap()[..],
        b"Content-Length: 0\r\n\r\n"
    );
}

#[test]
fn content_length_encoder_refuses_bodies_over_the_limit() {
    let mut codec = ContentLengthCodec::with_max_len(2);
    let mut out = BytesMut::from(&b"x"[..]);
    assert!(matches!(
        codec.encode(&b"abc"[..], &mut out),
        Err(CodecError::FrameTooLarge { len: 3, limit: 2 })
    ));
    assert_eq!(&out[..], b"x");
}

#[test]
fn content_length_in_place_frames_get_their_header_in_front() {
    let mut codec = ContentLengthCodec::with_max_len(100);
    let mut out = BytesMut::from(&b"Content-Length: 2\r\n\r\n{}"[..]);
    let start = codec.begin_frame(&mut out);
    out.put_slice(b"{\"long enough to need two digits\":1}");
    codec.finish_frame(&mut out, start).unwrap();
    assert_eq!(
        &out[..],
        &b"Content-Length: 2\r\n\r\n{}Content-Length: 36\r\n\r\n{\"long enough to need two digits\":1}"[..]
    );
    let start = codec.begin_frame(&mut out);
    out.put_slice(&[b'x'; 101]);
    assert!(codec.finish_frame(&mut out, start).is_err());
    assert_eq!(
        &out[..],
        &b"Content-Length: 2\r\n\r\n{}Content-Length: 36\r\n\r\n{\"long enough to need two digits\":1}"[..],
        "the failed frame was removed"
    );
}

// ---------------------------------------------------------------------------------------------
// Auto-detection.

#[test]
fn auto_detects_ndjson_and_answers_in_ndjson() {
    let mut codec = AutoCodec::new();
    let mut buf = BytesMut::from(&b"\r\n  {\"a\":1}\n{\"b\":2}\r\n"[..]);
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(msg(b"{\"a\":1}")));
    assert_eq!(codec.framing(), Some(Framing::Ndjson));
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(msg(b"{\"b\":2}")));
    assert_eq!(&encode(&mut codec, b"{}").unwrap()[..], b"{}\n");
}

#[test]
fn auto_detects_content_length_and_answers_with_headers() {
    let mut codec = AutoCodec::new();
    let mut buf = BytesMut::from(&b"\nContent-Length: 2\r\n\r\n{}"[..]);
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(msg(b"{}")));
    assert_eq!(codec.framing(), Some(Framing::ContentLength));
    assert_eq!(
        &encode(&mut codec, b"[]").unwrap()[..],
        b"Content-Length: 2\r\n\r\n[]"
    );
}

#[test]
fn auto_detects_a_header_section_that_does_not_start_with_content_length() {
    assert_frames(
        &AutoCodec::new(),
        b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        &[msg(b"{}")],
    );
}

#[test]
fn auto_reads_a_first_line_that_is_not_a_header_as_ndjson() {
    // As NDJSON mode does, so that the layer above answers it with a parse error and goes on.
    for first in [
        &b"this is not json"[..],
        b"Error: not a header we know",
        b"Content",
        b"null",
    ] {
        let mut input = first.to_vec();
        input.extend_from_slice(b"\n{\"a\":1}\n");
        let expected = [
            Frame::Message(Bytes::copy_from_slice(first)),
            msg(b"{\"a\":1}"),
        ];
        assert_frames(&AutoCodec::new(), &input, &expected);
        let mut codec = AutoCodec::new();
        let mut buf = BytesMut::from(&input[..]);
        codec.decode(&mut buf).unwrap();
        assert_eq!(codec.framing(), Some(Framing::Ndjson));
    }
    // Even when the stream ends inside what could have been a header name.
    assert_frames(&AutoCodec::new(), b"\n Content-Le", &[msg(b"Content-Le")]);
}

#[test]
fn auto_reports_a_malformed_header_section_and_goes_on() {
    assert_frames(
        &AutoCodec::new(),
        b"Content-Length: 1x\r\n\r\n{}Content-Length: 2\r\n\r\n[]",
        &[
            malformed("Content-Length value is not a decimal number"),
            msg(b"[]"),
        ],
    );
}

#[test]
fn auto_decodes_the_same_at_every_split_in_both_framings() {
    assert_frames(
        &AutoCodec::new(),
        b" \r\n{\"a\":1}\r\n\n{\"b\":2}\n",
        &[msg(b"{\"a\":1}"), msg(b"{\"b\":2}")],
    );
    assert_frames(
        &AutoCodec::new(),
        b"\r\ncontent-length: 7\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n{}",
        &[msg(b"{\"a\":1}"), msg(b"{}")],
    );
}

#[test]
fn auto_reports_nothing_and_writes_ndjson_before_detection() {
    let mut codec = AutoCodec::new();
    let mut buf = BytesMut::from(&b" \r\n\t"[..]);
    assert_eq!(codec.decode(&mut buf).unwrap(), None);
    assert!(buf.is_empty(), "whitespace before detection is dropped");
    assert_eq!(codec.framing(), None);
    assert_eq!(codec.encoding_framing(), Framing::Ndjson);
    assert_eq!(&encode(&mut codec, b"{}").unwrap()[..], b"{}\n");
    assert_eq!(codec.decode_eof(&mut buf).unwrap(), None);
}

#[test]
fn auto_does_not_switch_framing_midway_by_default() {
    // The header lines of a Content-Length frame arriving on an NDJSON stream are just lines.
    assert_frames(
        &AutoCodec::new(),
        b"{}\nContent-Length: 2\r\n\r\n[]\n",
        &[msg(b"{}"), msg(b"Content-Length: 2"), msg(b"[]")],
    );
    // An NDJSON line on a Content-Length stream is a broken header section.
    let frames = assert_error(
        &AutoCodec::new(),
        b"Content-Length: 2\r\n\r\n{}{\"a\":1}\n",
        "invalid header name",
    );
    assert_eq!(frames, [msg(b"{}")]);
}

#[test]
fn auto_switches_at_frame_boundaries_when_allowed() {
    let codec = AutoCodec::new().allow_switching(true);
    assert!(codec.switching_allowed());
    assert_frames(
        &codec,
        b"{\"a\":1}\n\r\nContent-Length: 2\r\n\r\n{}\r\n{\"b\":2}\nContent-Length: 2\r\n\r\n[]",
        &[msg(b"{\"a\":1}"), msg(b"{}"), msg(b"{\"b\":2}"), msg(b"[]")],
    );

    let mut codec = AutoCodec::new().allow_switching(true);
    let mut buf = BytesMut::from(&b"{}\nContent-Length: 2\r\n\r\n[]"[..]);
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(msg(b"{}")));
    assert_eq!(codec.framing(), Some(Framing::Ndjson));
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(msg(b"[]")));
    assert_eq!(codec.framing(), Some(Framing::ContentLength));
    assert_eq!(
        &encode(&mut codec, b"{}").unwrap()[..],
        b"Content-Length: 2\r\n\r\n{}"
    );
}

#[test]
fn auto_with_switching_keeps_the_oversized_rules_of_each_framing() {
    assert_frames(
        &AutoCodec::with_max_len(4).allow_switching(true),
        b"0123456789\nContent-Length: 6\r\n\r\n{\"a\":}{}\nContent-Length: 2\r\n\r\n[]",
        &[oversized(4), oversized(4), msg(b"{}"), msg(b"[]")],
    );
}

#[test]
fn auto_in_place_frames_use_the_framing_in_force_when_they_began() {
    let mut codec = AutoCodec::new();
    let mut out = BytesMut::new();
    let start = codec.begin_frame(&mut out);
    assert_eq!(start.framing(), Framing::Ndjson);
    out.put_slice(b"{}");
    // Detection happens while the frame is open: the open frame stays NDJSON.
    let mut input = BytesMut::from(&b"Content-Length: 2\r\n\r\n[]"[..]);
    assert_eq!(codec.decode(&mut input).unwrap(), Some(msg(b"[]")));
    codec.finish_frame(&mut out, start).unwrap();
    let start = codec.begin_frame(&mut out);
    out.put_slice(b"[]");
    codec.finish_frame(&mut out, start).unwrap();
    assert_eq!(&out[..], b"{}\nContent-Length: 2\r\n\r\n[]");
}

// ---------------------------------------------------------------------------------------------
// The run-time choice.

#[test]
fn any_codec_behaves_like_the_codec_of_its_mode() {
    let input = b"{\"a\":1}\n";
    for (mode, framing) in [
        (FramingMode::Ndjson, Some(Framing::Ndjson)),
        (FramingMode::ContentLength, Some(Framing::ContentLength)),
        (FramingMode::Auto, None),
    ] {
        let codec = AnyCodec::with_max_len(mode, 64);
        assert_eq!(codec.mode(), mode);
        assert_eq!(codec.max_len(), 64);
        assert_eq!(codec.framing(), framing);
        let run = run_chunks(&codec, [&input[..]]);
        match mode {
            FramingMode::ContentLength => assert!(run.error.is_some()),
            _ => assert_eq!(run.frames, [msg(b"{\"a\":1}")]),
        }
    }
    let mut codec = AnyCodec::from(AutoCodec::new().allow_switching(true));
    assert_frames(
        &codec,
        b"{}\nContent-Length: 2\r\n\r\n[]",
        &[msg(b"{}"), msg(b"[]")],
    );
    assert_eq!(AnyCodec::default().mode(), FramingMode::Auto);
    assert_eq!(
        AnyCodec::from(NdjsonCodec::new()).mode(),
        FramingMode::Ndjson
    );
    let mut out = BytesMut::new();
    let start = codec.begin_frame(&mut out);
    out.put_slice(b"{}");
    codec.finish_frame(&mut out, start).unwrap();
    assert_eq!(&out[..], b"{}\n");
}

#[test]
fn every_codec_reports_its_limit() {
    assert_eq!(
        NdjsonCodec::new().max_len(),
        acp_codec::DEFAULT_MAX_FRAME_LEN
    );
    assert_eq!(
        ContentLengthCodec::default().max_len(),
        acp_codec::DEFAULT_MAX_FRAME_LEN
    );
    assert_eq!(
        AutoCodec::default().max_len(),
        acp_codec::DEFAULT_MAX_FRAME_LEN
    );
    assert_eq!(NdjsonCodec::with_max_len(7).max_len(), 7);
    assert_eq!(ContentLengthCodec::with_max_len(7).max_len(), 7);
    assert_eq!(AutoCodec::with_max_len(7).max_len(), 7);
}

// ---------------------------------------------------------------------------------------------
// Over real I/O.

#[tokio::test(flavor = "current_thread")]
async fn framed_read_over_a_small_pipe_yields_every_frame() {
    let (mut writer, reader) = tokio::io::duplex(7);
    let write = async {
        writer
            .write_all(b"{\"a\":1}\r\n\n0123456789abcdef\n{\"b\":2}\n{\"c\"")
            .await
            .unwrap();
        drop(writer);
    };
    let read = FramedRead::new(reader, NdjsonCodec::with_max_len(10))
        .map(|frame| frame.unwrap())
        .collect::<Vec<_>>();
    let ((), frames) = tokio::join!(write, read);
    assert_eq!(
        frames,
        [
            msg(b"{\"a\":1}"),
            oversized(10),
            msg(b"{\"b\":2}"),
            msg(b"{\"c\"")
        ]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_fatal_decode_error_ends_the_framed_stream() {
    let (mut writer, reader) = tokio::io::duplex(64);
    let write = async {
        writer
            .write_all(b"Content-Length: 2\r\n\r\n{}Content-Length x\r\n\r\n{}")
            .await
            .unwrap();
        drop(writer);
    };
    let read = FramedRead::new(reader, AutoCodec::new()).collect::<Vec<_>>();
    let ((), items) = tokio::join!(write, read);
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap(), &msg(b"{}"));
    assert!(matches!(items[1], Err(CodecError::InvalidHeader { .. })));
}

#[tokio::test(flavor = "current_thread")]
async fn framed_write_then_read_round_trips_both_framings() {
    for mode in [FramingMode::Ndjson, FramingMode::ContentLength] {
        let (writer, reader) = tokio::io::duplex(16);
        let bodies = [&b"{\"a\":1}"[..], b"[1,2,3]", b"{\"text\":\"\\n\"}"];
        let write = async {
            let mut sink = FramedWrite::new(writer, AnyCodec::new(mode));
            for body in bodies {
                sink.send(body).await.unwrap();
            }
            // Two body types would fit `close`, so name one.
            SinkExt::<&[u8]>::close(&mut sink).await.unwrap();
        };
        let read = FramedRead::new(reader, AutoCodec::new())
            .map(|frame| frame.unwrap().into_message().unwrap())
            .collect::<Vec<_>>();
        let ((), got) = tokio::join!(write, read);
        assert_eq!(got, bodies, "{mode}");
    }
}

// ---------------------------------------------------------------------------------------------
// Properties.

/// A payload NDJSON can carry: no raw line breaks, not blank.
fn line_payload() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        any::<u8>().prop_filter("no line breaks", |b| *b != b'\n' && *b != b'\r'),
        0..200,
    )
    .prop_filter("not blank", |p| p.iter().any(|b| !b" \t".contains(b)))
}

/// Decodes `wire` fed in pieces of the given sizes (cycled), asserting no error.
fn decode_pieces<D>(codec: &D, wire: &[u8], sizes: &[usize]) -> Vec<Frame>
where
    D: Decoder<Item = Frame, Error = CodecError> + Clone,
{
    let mut chunks = Vec::new();
    let mut rest = wire;
    for size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at((*size).min(rest.len()));
        chunks.push(chunk);
        rest = tail;
    }
    let run = run_chunks(codec, chunks);
    assert_eq!(run.error, None);
    run.frames
}

proptest! {
    #[test]
    fn ndjson_encode_then_decode_is_identity(
        payloads in proptest::collection::vec(line_payload(), 0..20),
        sizes in proptest::collection::vec(1usize..50, 1..8),
    ) {
        let mut codec = NdjsonCodec::with_max_len(256);
        let mut wire = BytesMut::new();
        for payload in &payloads {
            codec.encode(&payload[..], &mut wire).unwrap();
        }
        let frames = decode_pieces(&codec, &wire, &sizes);
        let expected: Vec<Frame> = payloads.into_iter().map(|p| Frame::Message(p.into())).collect();
        prop_assert_eq!(frames, expected);
    }

    #[test]
    fn ndjson_encoder_accepts_exactly_what_it_can_round_trip(payload in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut codec = NdjsonCodec::new();
        let mut wire = BytesMut::new();
        if codec.encode(&payload[..], &mut wire).is_ok() {
            let frames = decode_pieces(&codec, &wire, &[1000]);
            prop_assert_eq!(frames, vec![Frame::Message(payload.into())]);
        } else {
            prop_assert!(wire.is_empty());
        }
    }

    #[test]
    fn content_length_encode_then_decode_is_identity_for_any_bytes(
        payloads in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 0..20),
        sizes in proptest::collection::vec(1usize..50, 1..8),
        in_place in any::<bool>(),
    ) {
        let mut codec = ContentLengthCodec::with_max_len(256);
        let mut wire = BytesMut::new();
        for payload in &payloads {
            if in_place {
                let start = codec.begin_frame(&mut wire);
                wire.put_slice(payload);
                codec.finish_frame(&mut wire, start).unwrap();
            } else {
                codec.encode(&payload[..], &mut wire).unwrap();
            }
        }
        let frames = decode_pieces(&codec, &wire, &sizes);
        let expected: Vec<Frame> = payloads.into_iter().map(|p| Frame::Message(p.into())).collect();
        prop_assert_eq!(frames, expected);
    }

    #[test]
    fn auto_decodes_whatever_either_encoder_wrote(
        payloads in proptest::collection::vec(line_payload(), 1..10),
        content_length in any::<bool>(),
        sizes in proptest::collection::vec(1usize..50, 1..8),
    ) {
        let mode = if content_length { FramingMode::ContentLength } else { FramingMode::Ndjson };
        let mut writer = AnyCodec::new(mode);
        let mut wire = BytesMut::new();
        for payload in &payloads {
            writer.encode(&payload[..], &mut wire).unwrap();
        }
        // On an NDJSON stream, a first payload starting with a letter would be read as a header,
        // and leading whitespace before detection is dropped; skip those cases.
        let first = payloads[0][0];
        prop_assume!(content_length || !(first.is_ascii_alphabetic() || first == b' ' || first == b'\t'));
        let frames = decode_pieces(&AutoCodec::new(), &wire, &sizes);
        let expected: Vec<Frame> = payloads.into_iter().map(|p| Frame::Message(p.into())).collect();
        prop_assert_eq!(frames, expected);
    }

    #[test]
    fn arbitrary_input_decodes_the_same_however_it_is_split(
        input in proptest::collection::vec(prop_oneof![
            Just(b'\n'), Just(b'\r'), Just(b' '), Just(b'{'), Just(b'}'), Just(b':'), Just(b'x'),
            Just(b'5'), Just(b'-'),
        ], 0..120),
        prefix in prop_oneof![Just(&b""[..]), Just(&b"Content-Length: 3\r\n\r\n"[..])],
        split in any::<prop::sample::Index>(),
        max_len in 0usize..12,
    ) {
        let mut bytes = prefix.to_vec();
        bytes.extend_from_slice(&input);
        let split = split.index(bytes.len() + 1);
        let (a, b) = bytes.split_at(split);
        macro_rules! check {
            ($codec:expr) => {{
                let codec = $codec;
                prop_assert_eq!(run_chunks(&codec, [a, b]), run_chunks(&codec, [&bytes[..]]));
            }};
        }
        check!(NdjsonCodec::with_max_len(max_len));
        check!(ContentLengthCodec::with_max_len(max_len));
        check!(AutoCodec::with_max_len(max_len));
        check!(AutoCodec::with_max_len(max_len).allow_switching(true));
    }
}
