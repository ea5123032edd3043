//! Typed decoding and encoding of S4 traffic with `acp-types`, against the floor of
//! `serde_json::from_slice` into a struct of `IgnoredAny` fields (BENCH.md, scenario S4).
//!
//! Usage: `s4_types [--file PATH | --bytes N] [--seed S]`.
//!
//! The traffic is split into lines first (framing is `s4_codec`'s business). Each variant runs
//! one warm-up pass and one timed pass on this thread and prints one JSON line:
//! - `ignored_any_floor`: every line parsed into a struct of `IgnoredAny` fields, which
//!   validates the JSON and keeps nothing;
//! - `value_decode`: every line into a `serde_json::Value`, for reference;
//! - `string_visit_ceiling`: every line checked for UTF-8 and walked by a visitor that is handed
//!   every string and keeps nothing: what any serde_json-based decoder that reads the strings
//!   costs at least (the floor never unescapes them);
//! - `typed_decode`: every line into the typed message of its direction
//!   (`ClientMessage`/`AgentMessage`): request and notification params typed by their method,
//!   responses typed by the method of their request, which the pass tracks by id as a
//!   connection would;
//! - `typed_encode`: every decoded message written back as NDJSON.
//!
//! Before timing, it checks that every line decodes, and that re-encoding yields the same JSON
//! value, so the figures are of correct work.

// Results go to stdout and errors to stderr: this is a benchmark program, not a library.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::HashMap;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use acp_bench::report::Floor;
use acp_types::{AgentMessage, ClientMessage, Message, MethodUnion, RawMessage, RequestId};
use serde::Deserialize;
use serde::de::IgnoredAny;

/// A ceiling for any decoder built on serde_json that reads string contents: every string
/// is handed to the visitor (borrowed when it has no escapes, unescaped into serde_json's
/// scratch buffer otherwise) and dropped; nothing is allocated or kept. The floor skips
/// strings without unescaping them, which no decoder that reads them can do.
struct StringsOnly;

impl<'de> Deserialize<'de> for StringsOnly {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StringsOnly)
    }
}

impl<'de> serde::de::Visitor<'de> for StringsOnly {
    type Value = Self;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_str<E>(self, s: &str) -> Result<Self, E> {
        black_box(s);
        Ok(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<Self>()?.is_some() {}
        Ok(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value::<Self>()?;
        }
        Ok(self)
    }
}

/// Who sent a line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum From {
    Client,
    Agent,
}

/// One decoded line.
enum Decoded {
    Client(ClientMessage),
    Agent(AgentMessage),
}

struct Input {
    data: Vec<u8>,
    lines: Vec<(usize, usize)>,
    senders: Vec<From>,
}

impl Input {
    fn line(&self, i: usize) -> &[u8] {
        let (start, end) = self.lines[i];
        &self.data[start..end]
    }
}

/// Splits the traffic into lines and works out who sent each (untimed).
fn prepare(data: Vec<u8>) -> Result<Input, String> {
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', &data) {
        lines.push((start, end));
        start = end + 1;
    }
    let mut senders = Vec::with_capacity(lines.len());
    let mut pending: HashMap<RequestId, From> = HashMap::new();
    for &(start, end) in &lines {
        let raw = RawMessage::parse(&data[start..end]).map_err(|e| e.to_string())?;
        let from = match (raw.method.as_deref(), &raw.id) {
            (Some(method), id) => {
                let from = if acp_types::ClientRequestParams::is_known(method)
                    || acp_types::ClientNotificationParams::is_known(method)
                {
                    From::Client
                } else {
                    From::Agent
                };
                if let Some(id) = id {
                    pending.insert(id.clone(), from);
                }
                from
            }
            (None, Some(id)) => match pending.remove(id) {
                Some(From::Client) => From::Agent,
                Some(From::Agent) => From::Client,
                None => return Err(format!("a response to unknown id {id}")),
            },
            (None, None) => return Err("a message without method or id".into()),
        };
        senders.push(from);
    }
    Ok(Input {
        data,
        lines,
        senders,
    })
}

/// Decodes every line into its typed message, tracking request methods by id.
fn decode_all(input: &Input, keep: bool) -> Result<(usize, Vec<Decoded>), String> {
    // The methods of the requests each side sent and still awaits.
    let mut client_pending: HashMap<RequestId, String> = HashMap::new();
    let mut agent_pending: HashMap<RequestId, String> = HashMap::new();
    let mut out = Vec::with_capacity(if keep { input.lines.len() } else { 0 });
    let mut count = 0;
    for i in 0..input.lines.len() {
        let line = input.line(i);
        let decoded = match input.senders[i] {
            From::Client => {
                let m = ClientMessage::decode(line, |id| agent_pending.get(id))
                    .map_err(|e| format!("line {i}: {e}"))?;
                match &m {
                    Message::Request(r) => {
                        client_pending.insert(r.id.clone(), r.method().to_owned());
                    }
                    Message::Response(r) => {
                        agent_pending.remove(&r.id);
                    }
                    _ => {}
                }
                Decoded::Client(m)
            }
            From::Agent => {
                let m = AgentMessage::decode(line, |id| client_pending.get(id))
                    .map_err(|e| format!("line {i}: {e}"))?;
                match &m {
                    Message::Request(r) => {
                        agent_pending.insert(r.id.clone(), r.method().to_owned());
                    }
                    Message::Response(r) => {
                        client_pending.remove(&r.id);
                    }
                    _ => {}
                }
                Decoded::Agent(m)
            }
        };
        count += 1;
        if keep {
            out.push(decoded);
        } else {
            black_box(&decoded);
        }
    }
    Ok((count, out))
}

fn encode_all(messages: &[Decoded], out: &mut Vec<u8>) -> Result<(), String> {
    for m in messages {
        match m {
            Decoded::Client(m) => serde_json::to_writer(&mut *out, m),
            Decoded::Agent(m) => serde_json::to_writer(&mut *out, m),
        }
        .map_err(|e| e.to_string())?;
        out.push(b'\n');
    }
    Ok(())
}

/// Every line decodes and re-encodes to the same JSON value.
fn verify(input: &Input, messages: &[Decoded]) -> Result<(), String> {
    let mut out = Vec::new();
    encode_all(messages, &mut out)?;
    let encoded: Vec<&[u8]> = out
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    if encoded.len() != input.lines.len() {
        return Err("encoding lost messages".into());
    }
    for (i, line) in encoded.iter().enumerate() {
        let a: serde_json::Value =
            serde_json::from_slice(input.line(i)).map_err(|e| e.to_string())?;
        let b: serde_json::Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
        if a != b {
            return Err(format!("line {i} does not round-trip:\n{a}\n{b}"));
        }
    }
    Ok(())
}

fn time<T>(mut f: impl FnMut() -> Result<T, String>) -> Result<(Duration, T), String> {
    let _warm_up = f()?;
    let start = Instant::now();
    let result = f()?;
    Ok((start.elapsed(), result))
}

fn report(name: &str, elapsed: Duration, bytes: usize, lines: usize, floor: &mut Option<f64>) {
    let secs = elapsed.as_secs_f64();
    let mb_per_s = bytes as f64 / secs / 1e6;
    let floor = *floor.get_or_insert(mb_per_s);
    println!(
        "{}",
        serde_json::json!({
            "scenario": "s4",
            "variant": name,
            "bytes": bytes,
            "lines": lines,
            "elapsed_s": secs,
            "mb_per_s": (mb_per_s * 10.0).round() / 10.0,
            "msgs_per_s": (lines as f64 / secs).round(),
            "pct_of_floor": (mb_per_s / floor * 1000.0).round() / 10.0,
            "rss_kb": acp_bench::report::peak_rss_kb(),
        })
    );
}

fn run(input: &Input) -> Result<(), String> {
    // `S4_ONLY=typed_decode` runs just that variant, for profiling.
    if let Ok(only) = std::env::var("S4_ONLY") {
        if only == "typed_decode" {
            for _ in 0..5 {
                decode_all(input, false)?;
            }
            return Ok(());
        }
        if only == "typed_decode_tag_first" {
            let (_, decoded) = decode_all(input, true)?;
            let mut out = Vec::new();
            encode_all(&decoded, &mut out)?;
            let natural = prepare(out)?;
            for _ in 0..10 {
                decode_all(&natural, false)?;
            }
            return Ok(());
        }
    }
    let (_, decoded) = decode_all(input, true)?;
    verify(input, &decoded)?;
    let bytes: usize = input.lines.iter().map(|(s, e)| e - s + 1).sum();
    let lines = input.lines.len();
    let mut floor = None;

    let (elapsed, ()) = time(|| {
        for i in 0..lines {
            let parsed: Floor = serde_json::from_slice(input.line(i)).map_err(|e| e.to_string())?;
            black_box(parsed);
        }
        Ok(())
    })?;
    report("ignored_any_floor", elapsed, bytes, lines, &mut floor);

    let (elapsed, ()) = time(|| {
        for i in 0..lines {
            let parsed: serde_json::Value =
                serde_json::from_slice(input.line(i)).map_err(|e| e.to_string())?;
            black_box(parsed);
        }
        Ok(())
    })?;
    report("value_decode", elapsed, bytes, lines, &mut floor);

    let (elapsed, ()) = time(|| {
        for i in 0..lines {
            // The same once-per-message SIMD UTF-8 check as acp-types.
            let text = simdutf8::basic::from_utf8(input.line(i)).map_err(|e| e.to_string())?;
            let parsed: StringsOnly = serde_json::from_str(text).map_err(|e| e.to_string())?;
            black_box(parsed);
        }
        Ok(())
    })?;
    report("string_visit_ceiling", elapsed, bytes, lines, &mut floor);

    let (elapsed, (count, _)) = time(|| decode_all(input, false))?;
    report("typed_decode", elapsed, bytes, count, &mut floor);

    let mut out = Vec::with_capacity(input.data.len() + input.data.len() / 4);
    let (elapsed, written) = time(|| {
        out.clear();
        encode_all(&decoded, &mut out)?;
        Ok(out.len())
    })?;
    report("typed_encode", elapsed, written, lines, &mut floor);

    // The same messages as this crate writes them (tags first, as peers usually do), decoded
    // again: the generator sorts object keys, which puts most union tags last.
    let natural = prepare(out)?;
    let (elapsed, (count, _)) = time(|| decode_all(&natural, false))?;
    report(
        "typed_decode_tag_first",
        elapsed,
        written,
        count,
        &mut floor,
    );
    Ok(())
}

fn main() -> ExitCode {
    let result = acp_bench::report::S4Args::parse("s4_types")
        .and_then(|args| args.load())
        .and_then(prepare)
        .and_then(|input| run(&input));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("s4_types: {e}");
            ExitCode::FAILURE
        }
    }
}
