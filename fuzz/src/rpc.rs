//! The `rpc_driver` target: the `acp-rpc` connection driver fed arbitrary bytes by its peer.
//!
//! The input is `[config, seed, stream @ ..]`. `config` picks the framing, the frame limit,
//! the cap on requests in flight and the outgoing/notification bounds (see [`config`]); `seed`
//! picks how `stream` is cut into writes. The driver runs [`acp_rpc::connect`] with a
//! [`Router`] answering a few methods (some at once, some after a while, one by calling the
//! fuzzed peer back) over an in-memory [`tokio::io::duplex`], on a current-thread runtime whose
//! clock is paused (timers fire as soon as everything else waits, so runs are fast and
//! deterministic).
//!
//! The harness writes the stream, lets every handler finish, checks what was answered, closes
//! its side and waits for the driver. Checks:
//!
//! - nothing panics;
//! - the driver keeps running until the stream ends, unless the framing is unreadable (a codec
//!   error, which ends it with an error);
//! - after the stream is closed the driver ends, within a bounded number of polls and a
//!   bounded (virtual) time;
//! - every request of the stream (a frame with a `method` and an integer or string `id`) is
//!   answered exactly once per time it was sent, before the stream ends; notifications and
//!   responses are never answered; other malformed frames get at most one `null`-id error each;
//! - what the driver writes is well framed, within the frame limit, valid JSON-RPC, and at
//!   most a fixed multiple of what it was sent.

use std::collections::HashMap;
use std::fmt;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use acp_codec::{AnyCodec, AutoCodec, Frame, FramingMode};
use acp_rpc::{Config, Driver, Peer, Router};
use acp_types::methods::{self, FsReadTextFile, Initialize, SessionLoad, SessionNew};
use acp_types::methods::{SessionPrompt, SessionSetMode};
use acp_types::{
    ContentChunk, InitializeResponse, LoadSessionResponse, NewSessionResponse, PromptResponse,
    ProtocolVersion, ReadTextFileRequest, SessionNotification, SessionUpdate,
    SetSessionModeResponse, StopReason,
};
use bytes::BytesMut;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use tokio_util::codec::Decoder;

use crate::codec::{chunk_sizes, decode};

/// Longer than any handler takes (the slowest sleeps ten minutes): once the harness has slept
/// this long after writing the stream, every request that will ever be answered was.
const SETTLE: Duration = Duration::from_secs(2 * 3600);

/// How long the driver may take to end once the stream is closed.
const END_WITHIN: Duration = Duration::from_secs(3600);

/// The capacity of each direction of the in-memory pipe: small, so both directions fill up.
const PIPE: usize = 512;

/// The connection settings `config` picks: bits 0-1 the framing, 2-3 the frame limit, 4-5 the
/// cap on requests in flight, 6-7 the outgoing buffer bound and the notification queue bound.
pub fn config(config: u8) -> Config {
    let framing = match config & 3 {
        1 => FramingMode::ContentLength,
        2 => FramingMode::Auto,
        _ => FramingMode::Ndjson,
    };
    let max_frame_len = [256, 1024, 4096, 64 * 1024][usize::from(config >> 2 & 3)];
    let max_in_flight = [1, 2, 8, 256][usize::from(config >> 4 & 3)];
    let (max_outgoing, max_queued) =
        [(64, 1), (512, 2), (4096, 16), (1 << 20, 1024)][usize::from(config >> 6 & 3)];
    Config::default()
        .framing(framing)
        .max_frame_len(max_frame_len)
        .max_in_flight(max_in_flight)
        .max_outgoing_bytes(max_outgoing)
        .max_queued_notifications(max_queued)
}

/// The handler: a few methods answered at once, after a while, or after calling the peer.
fn router(peer: Peer) -> Router {
    let prompt_peer = peer.clone();
    Router::new()
        .request::<Initialize, _, _>(|_| async {
            Ok(InitializeResponse::new(ProtocolVersion::LATEST))
        })
        .request::<SessionNew, _, _>(|_| async { Ok(NewSessionResponse::new("session-1")) })
        // Sends an update echoing the session id, then answers a little later (so that a
        // `$/cancel_request` can catch it running).
        .request::<SessionPrompt, _, _>(move |request| {
            let peer = prompt_peer.clone();
            async move {
                let update = SessionNotification::new(
                    request.session_id,
                    SessionUpdate::AgentMessageChunk(ContentChunk::new("working")),
                );
                peer.notify::<methods::SessionUpdate>(&update)
                    .await
                    .map_err(|e| e.to_error_object())?;
                tokio::time::sleep(Duration::from_millis(10)).await;
                Ok(PromptResponse::new(StopReason::EndTurn))
            }
        })
        // Calls the fuzzed peer back: the stream may hold the answer (our ids count from 0).
        .request::<SessionLoad, _, _>(move |request| {
            let peer = peer.clone();
            async move {
                let read = ReadTextFileRequest::new(request.session_id, "/README.md");
                let call = peer.request::<FsReadTextFile>(&read);
                match tokio::time::timeout(Duration::from_secs(60), call).await {
                    Ok(Ok(_)) => Ok(LoadSessionResponse::default()),
                    Ok(Err(e)) => Err(e.to_error_object()),
                    Err(_) => Err(acp_types::ErrorObject::internal_error("no answer")),
                }
            }
        })
        // A slow request.
        .request::<SessionSetMode, _, _>(|_| async {
            tokio::time::sleep(Duration::from_secs(600)).await;
            Ok(SetSessionModeResponse::default())
        })
        .request_raw("_echo", |params| async move {
            Ok(params
                .unwrap_or_else(|| RawValue::from_string("null".to_owned()).expect("null is JSON")))
        })
        // A slow notification handler, so that notifications queue behind it.
        .notification::<methods::SessionCancel, _, _>(|_| async {
            tokio::time::sleep(Duration::from_millis(1)).await;
        })
        .notification_raw("_note", |_| async {})
}

/// The `rpc_driver` target; see the [module docs](self).
pub fn driver(data: &[u8]) {
    let [config_byte, seed, stream @ ..] = data else {
        return;
    };
    let config = config(*config_byte);
    let limit = config.max_frame_len;

    // What the driver will read: the frames before the first codec error, if any.
    let mut codec = AnyCodec::with_max_len(config.framing, limit);
    let (frames, codec_error) = decode(&mut codec, [stream], limit, stream.len());
    let expected = Expected::of(
        &frames,
        frames_before_eof(&config, stream),
        codec_error.is_some(),
        limit,
    );

    let sizes = chunk_sizes(*seed, stream.len());
    let mut chunks = Vec::with_capacity(sizes.len());
    let mut rest = stream;
    for size in sizes {
        let (chunk, tail) = rest.split_at(size);
        chunks.push(chunk);
        rest = tail;
    }
    let max_polls = 10_000 + 200 * (frames.len() + chunks.len());

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a current-thread runtime builds");
    let (before_close, output, result) = runtime.block_on(async {
        let (ours, theirs) = tokio::io::duplex(PIPE);
        let (their_read, their_write) = tokio::io::split(theirs);
        let (mut our_read, mut our_write) = tokio::io::split(ours);
        let (peer, driver) = connect(their_read, their_write, config);
        let driver = tokio::spawn(CountPolls {
            driver,
            polls: AtomicUsize::new(0),
            max_polls,
        });

        // Read everything the driver writes, up to the bound (then stop: the check fails).
        let output = Arc::new(Mutex::new(Vec::new()));
        let reader = {
            let output = output.clone();
            let bound = expected.max_output;
            tokio::spawn(async move {
                let mut buf = [0; 4096];
                loop {
                    match our_read.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let mut out = output.lock().expect("not poisoned");
                            out.extend_from_slice(&buf[..n]);
                            assert!(
                                out.len() <= bound,
                                "the driver wrote more than {bound} bytes"
                            );
                        }
                    }
                }
            })
        };

        for chunk in chunks {
            // The driver stops reading after a codec error; the rest of the stream is lost.
            if our_write.write_all(chunk).await.is_err() {
                break;
            }
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(SETTLE).await;
        let still_running = !driver.is_finished();
        let before_close = output.lock().expect("not poisoned").clone();

        let _ = our_write.shutdown().await;
        let result = tokio::time::timeout(END_WITHIN, driver)
            .await
            .expect("the driver did not end after its input was closed")
            .expect("the driver panicked");
        drop(peer);
        reader.await.expect("the reader panicked");
        let output = std::mem::take(&mut *output.lock().expect("not poisoned"));
        (
            (before_close, still_running),
            output,
            result.map_err(|e| e.to_string()),
        )
    });
    let (before_close, still_running) = before_close;
    if debug() {
        eprintln!("frames: {frames:?}\ncodec error: {codec_error:?}\n{expected:?}");
        eprintln!("output:\n{}", String::from_utf8_lossy(&output));
    }

    match (&codec_error, &result) {
        (None, Ok(())) => assert!(still_running, "the driver ended before its input did"),
        (Some(_), Err(_)) => {}
        _ => panic!("codec error {codec_error:?}, but the driver ended with {result:?}"),
    }
    let early = Answers::of(&before_close, limit, still_running);
    // The driver ends at once at the end of the stream, in the middle of writing a batch if it
    // was (the pipe is small): the last frame may be cut short.
    let all = Answers::of(&output, limit, false);
    expected.check(&early, &all);
}

/// How many frames the driver can read before the end of the stream (a last line without its
/// newline is a frame only at the end).
fn frames_before_eof(config: &Config, stream: &[u8]) -> usize {
    let mut codec = AnyCodec::with_max_len(config.framing, config.max_frame_len);
    let mut buf = BytesMut::from(stream);
    let mut count = 0;
    while let Ok(Some(_)) = codec.decode(&mut buf) {
        count += 1;
    }
    count
}

/// True when `ACP_FUZZ_DEBUG` is set: the target then prints what it read and wrote.
fn debug() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("ACP_FUZZ_DEBUG").is_some())
}

fn connect(
    read: tokio::io::ReadHalf<tokio::io::DuplexStream>,
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    config: Config,
) -> (Peer, Driver) {
    acp_rpc::connect(router, read, write, config)
}

/// The driver, counting its polls: a driver that keeps waking itself without end fails here
/// instead of spinning until the fuzzer's timeout.
struct CountPolls {
    driver: Driver,
    polls: AtomicUsize,
    max_polls: usize,
}

impl Future for CountPolls {
    type Output = Result<(), acp_rpc::Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let polls = self.polls.fetch_add(1, Ordering::Relaxed);
        assert!(
            polls < self.max_polls,
            "the driver was polled {polls} times: it spins"
        );
        Pin::new(&mut self.driver).poll(cx)
    }
}

/// A request id as the harness reads it: its JSON text.
type IdKey = String;

/// What the frames of a stream call for.
#[derive(Debug, Default)]
struct Expected {
    /// Requests that must be answered, by id, with how often each id was sent.
    must: HashMap<IdKey, usize>,
    /// Answers with these ids are allowed but not required (the frame was ambiguous).
    may: HashMap<IdKey, usize>,
    /// How many `null`-id error answers are allowed (one per malformed frame).
    nulls: usize,
    /// The most the driver may write.
    max_output: usize,
}

impl Expected {
    /// `frames` are what the driver reads, the first `before_eof` of them before the stream
    /// ends; `codec_error` tells whether the framing failed after them.
    fn of(frames: &[Frame], before_eof: usize, codec_error: bool, limit: usize) -> Self {
        let mut expected = Expected {
            max_output: 4096,
            ..Expected::default()
        };
        for (i, frame) in frames.iter().enumerate() {
            let len = match frame {
                Frame::Message(body) => body.len(),
                _ => limit,
            };
            // An answer, an update, a call back and its cancellation, each within the limit.
            expected.max_output += 4 * (limit.min(2 * len + 2048) + 64);
            let Frame::Message(body) = frame else {
                expected.nulls += 1;
                continue;
            };
            match classify(body) {
                // After a codec error, or at the end of the stream, the driver stops at once,
                // cancelling running handlers; an answer that cannot fit in the frame limit
                // cannot be sent at all.
                Class::Request(id) if codec_error || i >= before_eof || !answerable(&id, limit) => {
                    *expected.may.entry(id).or_default() += 1;
                }
                Class::Request(id) => *expected.must.entry(id).or_default() += 1,
                Class::Ambiguous(id) => {
                    *expected.may.entry(id).or_default() += 1;
                    expected.nulls += 1;
                }
                Class::Quiet => {}
                Class::Malformed => expected.nulls += 1,
            }
        }
        expected
    }

    /// `early` is what was written before the stream was closed, `all` everything.
    fn check(&self, early: &Answers, all: &Answers) {
        for (id, &count) in &self.must {
            let got = early.by_id.get(id).copied().unwrap_or(0);
            assert!(
                got >= count,
                "request {id} was sent {count} times but answered {got} times"
            );
        }
        for (id, &got) in &all.by_id {
            let most =
                self.must.get(id).copied().unwrap_or(0) + self.may.get(id).copied().unwrap_or(0);
            assert!(
                got <= most,
                "id {id} was answered {got} times, but sent as a request {most} times"
            );
        }
        assert!(
            all.nulls <= self.nulls,
            "{} null-id answers for {} malformed frames",
            all.nulls,
            self.nulls
        );
    }
}

/// The room, beyond the smallest possible answer, that an error answer needs to fit in the
/// frame limit: 0 when `ACP_FUZZ_STRICT` is set, else room for the driver's fallback error
/// (its message and its `data` both carry the reason the first answer did not fit), which is
/// what the driver sends today when an answer is over the limit.
fn answer_room() -> usize {
    static ROOM: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *ROOM.get_or_init(|| match std::env::var_os("ACP_FUZZ_STRICT") {
        Some(_) => 0,
        None => 512,
    })
}

/// True when an answer to request `id` fits in the frame limit: the smallest error answer,
/// plus [`answer_room`].
fn answerable(id: &str, limit: usize) -> bool {
    const SMALLEST: &str =
        r#"{"jsonrpc":"2.0","id":,"error":{"code":-32603,"message":"Internal error"}}"#;
    SMALLEST.len() + id.len() + answer_room() <= limit
}

/// What a frame is, as far as answers go.
#[derive(Debug)]
enum Class {
    /// A request (a non-null `method` and a readable id): answered exactly once.
    Request(IdKey),
    /// What may be a request (a frame that is not UTF-8): answered at most once, with this id
    /// or `null`.
    Ambiguous(IdKey),
    /// A well-formed notification or response: never answered.
    Quiet,
    /// Anything else: at most one `null`-id error.
    Malformed,
}

/// Classifies a frame the way JSON-RPC 2.0 and the `acp-rpc` docs say it is answered.
fn classify(body: &[u8]) -> Class {
    if std::str::from_utf8(body).is_ok() {
        return classify_text(body);
    }
    // Not UTF-8: not JSON, strictly, but the driver still echoes the id of what reads as a
    // request, depending on where the bad bytes are (in the id, or elsewhere). Classify the
    // text with the bad bytes replaced, and allow either answer.
    match classify_text(String::from_utf8_lossy(body).as_bytes()) {
        Class::Request(id) | Class::Ambiguous(id) => Class::Ambiguous(id),
        Class::Quiet | Class::Malformed => Class::Malformed,
    }
}

/// [`classify`] for UTF-8 text.
fn classify_text(body: &[u8]) -> Class {
    let Ok(top) = serde_json::from_slice::<Top>(body) else {
        return Class::Malformed;
    };
    let id = match &top.id {
        Some(Field::Int(n)) => Some(n.to_string()),
        Some(Field::Str(s)) => Some(serde_json::to_string(s).expect("a string encodes")),
        _ => None,
    };
    let has_method = !matches!(top.method, None | Some(Text::Null));
    let version_2 = matches!(&top.jsonrpc, Some(Text::Str(v)) if v == "2.0");
    match id {
        // The driver reads a duplicate member as a malformed message, and looks for its id
        // with a reader that also refuses a duplicate `id` or `method`.
        _ if top.twice => Class::Malformed,
        Some(id) if has_method => Class::Request(id),
        _ if top.other_twice || !version_2 => Class::Malformed,
        // A notification.
        None if top.id.is_none()
            && matches!(top.method, Some(Text::Str(_)))
            && !top.result
            && !top.error =>
        {
            Class::Quiet
        }
        // A response (to a request never sent: it is ignored).
        Some(_) if top.method.is_none() && top.result && !top.error => Class::Quiet,
        _ => Class::Malformed,
    }
}

/// The top level of a message: the members that decide how it is answered.
#[derive(Debug, Default)]
struct Top {
    jsonrpc: Option<Text>,
    id: Option<Field>,
    method: Option<Text>,
    params: bool,
    result: bool,
    error: bool,
    /// `id` or `method` appear more than once: the driver cannot read the id.
    twice: bool,
    /// Another member of the envelope appears more than once: the message is invalid.
    other_twice: bool,
}

impl<'de> serde::Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TopVisitor;

        impl<'de> Visitor<'de> for TopVisitor {
            type Value = Top;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
                let mut top = Top::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "jsonrpc" => {
                            top.other_twice |= top.jsonrpc.is_some();
                            top.jsonrpc = Some(Text::of(map.next_value()?));
                        }
                        "id" => {
                            top.twice |= top.id.is_some();
                            top.id = Some(map.next_value()?);
                        }
                        "method" => {
                            top.twice |= top.method.is_some();
                            top.method = Some(Text::of(map.next_value()?));
                        }
                        other => {
                            map.next_value::<IgnoredAny>()?;
                            let (result, error) = (other == "result", other == "error");
                            top.other_twice |= (result && top.result)
                                || (error && top.error)
                                || (other == "params" && top.params);
                            top.result |= result;
                            top.error |= error;
                            top.params |= other == "params";
                        }
                    }
                }
                Ok(top)
            }
        }

        deserializer.deserialize_map(TopVisitor)
    }
}

/// A member's value, as `jsonrpc` and `method` are read: the driver skips them without
/// checking their strings when it looks for the id of a malformed request.
#[derive(Debug)]
enum Text {
    Null,
    /// A valid string.
    Str(String),
    /// Anything else, including strings that do not decode (a lone surrogate escape).
    Other,
}

impl Text {
    fn of(raw: &RawValue) -> Self {
        match raw.get() {
            "null" => Text::Null,
            json => serde_json::from_str(json).map_or(Text::Other, Text::Str),
        }
    }
}

/// A member's value, as a request id is read: an `i64`, a string, `null`, or anything else.
#[derive(Debug)]
enum Field {
    Int(i64),
    Str(String),
    Null,
    Other,
}

impl<'de> serde::Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;

        impl<'de> Visitor<'de> for FieldVisitor {
            type Value = Field;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Field, E> {
                Ok(Field::Int(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Field, E> {
                Ok(i64::try_from(v).map_or(Field::Other, Field::Int))
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Field, E> {
                Ok(Field::Other)
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Field, E> {
                Ok(Field::Other)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                Ok(Field::Str(v.to_owned()))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Field, E> {
                Ok(Field::Null)
            }

            fn visit_none<E: de::Error>(self) -> Result<Field, E> {
                Ok(Field::Null)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Field, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Field, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
        }

        deserializer.deserialize_any(FieldVisitor)
    }
}

/// The answers found in the driver's output.
#[derive(Debug, Default)]
struct Answers {
    by_id: HashMap<IdKey, usize>,
    nulls: usize,
}

impl Answers {
    /// Reads the output, checking that it is well framed and valid JSON-RPC. Unless
    /// `complete`, the last frame may be cut short: a driver that stops drops the batch it was
    /// writing, as documented ("messages still queued for sending then are dropped").
    fn of(output: &[u8], limit: usize, complete: bool) -> Self {
        // The driver answers in the peer's framing, which auto-detection finds.
        let mut codec = AutoCodec::with_max_len(limit).allow_switching(true);
        let (frames, error) = if complete {
            decode(&mut codec, [output], limit, output.len())
        } else {
            let mut buf = BytesMut::from(output);
            let mut frames = Vec::new();
            let error = loop {
                match codec.decode(&mut buf) {
                    Ok(Some(frame)) => frames.push(frame),
                    Ok(None) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            (frames, error)
        };
        assert_eq!(error, None, "the driver's output is not well framed");
        let mut answers = Answers::default();
        for frame in frames {
            let Frame::Message(body) = frame else {
                panic!("the driver wrote a frame over its limit of {limit} bytes");
            };
            // Read as the harness reads input: `_echo` results are the peer's raw params,
            // which may hold escapes that do not decode (a lone surrogate).
            let text = || String::from_utf8_lossy(&body).into_owned();
            let message: Top = serde_json::from_slice(&body)
                .unwrap_or_else(|e| panic!("the driver wrote {:?}: {e}", text()));
            assert!(!message.twice, "{}", text());
            assert!(
                matches!(&message.jsonrpc, Some(Text::Str(v)) if v == "2.0"),
                "{}",
                text()
            );
            if message.method.is_some() {
                continue;
            }
            assert!(
                message.result != message.error,
                "not one of result and error: {}",
                text()
            );
            match message.id {
                Some(Field::Null) => answers.nulls += 1,
                Some(Field::Int(n)) => *answers.by_id.entry(n.to_string()).or_default() += 1,
                Some(Field::Str(s)) => {
                    let id = serde_json::to_string(&s).expect("a string encodes");
                    *answers.by_id.entry(id).or_default() += 1;
                }
                _ => panic!("no id, or a bad one: {}", text()),
            }
        }
        answers
    }
}
