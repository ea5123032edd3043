//! Reading server-sent events: an incremental parser that turns the chunks of an
//! `text/event-stream` body into the `data` of its events.
//!
//! What it takes from the format (WHATWG HTML, "Server-sent events"), and what it leaves:
//! - lines end with CRLF, LF or a lone CR, also when a CRLF is split between two chunks;
//! - a UTF-8 byte order mark at the very start of the stream is skipped;
//! - only `data` fields count: one space after the colon is dropped, and the values of several
//!   `data` lines of one event are joined with `\n`;
//! - comments (lines starting with `:`) and every other field (`event`, `id`, `retry`, unknown
//!   ones) are ignored: ACP sends no event names and no ids, and there is no resumption;
//! - a blank line ends an event; an event without any `data` line is not delivered;
//! - a last event that the stream ends without a blank line after is still delivered;
//! - an event is bounded: once its data (or one line) passes the limit, the rest of the event
//!   is skipped and [`Event::Oversized`] is delivered in its place, so memory stays bounded
//!   however long the server writes without a line end.

use bytes::Bytes;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One event read from the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    /// The event's data: its `data` lines joined with `\n`.
    Data(Bytes),
    /// An event whose data passed the limit; it was skipped.
    Oversized {
        /// The limit, in bytes.
        limit: usize,
    },
}

/// The incremental parser; feed it chunks, then call [`SseParser::finish`] at the end of the
/// stream.
#[derive(Debug)]
pub(crate) struct SseParser {
    /// The largest event data (and the longest line) kept, in bytes.
    max_len: usize,
    /// The start of a line that did not end in the previous chunks.
    line: Vec<u8>,
    /// The data of the current event so far.
    data: Vec<u8>,
    /// True once the current event has a `data` line.
    has_data: bool,
    /// True once the current event passed the limit: the rest of it is skipped.
    oversized: bool,
    /// True while the rest of the current line is skipped (it passed the limit).
    skipping_line: bool,
    /// True when the last chunk ended in CR: an LF at the start of the next one belongs to it.
    after_cr: bool,
    /// True until the first bytes of the stream were looked at (for the byte order mark).
    at_start: bool,
}

impl SseParser {
    /// A parser keeping at most `max_len` bytes of data per event.
    pub(crate) fn new(max_len: usize) -> Self {
        Self {
            max_len,
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            oversized: false,
            skipping_line: false,
            after_cr: false,
            at_start: true,
        }
    }

    /// Reads one chunk of the body, pushing each event it completes to `out`.
    pub(crate) fn feed(&mut self, mut chunk: &[u8], out: &mut impl FnMut(Event)) {
        if self.at_start {
            // The byte order mark may itself be split between chunks: wait for three bytes.
            let have = self.line.len() + chunk.len();
            if have < BOM.len() && BOM.starts_with(&[self.line.as_slice(), chunk].concat()) {
                self.line.extend_from_slice(chunk);
                return;
            }
            self.at_start = false;
            if !self.line.is_empty() {
                // Re-read the held bytes with this chunk.
                let mut held = std::mem::take(&mut self.line);
                held.extend_from_slice(chunk);
                let rest = held.strip_prefix(BOM).unwrap_or(&held).to_vec();
                self.feed(&rest, out);
                return;
            }
            chunk = chunk.strip_prefix(BOM).unwrap_or(chunk);
        }
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        while !chunk.is_empty() {
            match chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    let line_end = chunk[end];
                    let complete = &chunk[..end];
                    if self.line.is_empty() && !self.skipping_line {
                        self.on_line(complete, out);
                    } else {
                        self.extend_line(complete);
                        let line = std::mem::take(&mut self.line);
                        if !std::mem::take(&mut self.skipping_line) {
                            self.on_line(&line, out);
                        }
                        // Keep the allocation for the next partial line.
                        self.line = line;
                        self.line.clear();
                    }
                    chunk = &chunk[end + 1..];
                    if line_end == b'\r' {
                        match chunk.first() {
                            Some(b'\n') => chunk = &chunk[1..],
                            Some(_) => {}
                            None => self.after_cr = true,
                        }
                    }
                }
                None => {
                    self.extend_line(chunk);
                    break;
                }
            }
        }
    }

    /// The end of the stream: delivers a last event that had no blank line after it.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(Event)) {
        if self.at_start && !self.line.is_empty() {
            // A stream shorter than a byte order mark.
            self.at_start = false;
            let held = std::mem::take(&mut self.line);
            self.feed(&held, out);
        }
        if !self.line.is_empty() || self.skipping_line {
            let line = std::mem::take(&mut self.line);
            if !std::mem::take(&mut self.skipping_line) {
                self.on_line(&line, out);
            }
        }
        self.dispatch(out);
    }

    /// Adds to the pending partial line, or starts skipping it once it passes the limit.
    fn extend_line(&mut self, bytes: &[u8]) {
        if self.skipping_line {
            return;
        }
        // A line holds a field name, a colon, a space and the value: allow for them.
        if self.line.len() + bytes.len() > self.max_len.saturating_add(16) {
            let head: Vec<u8> = self.line.iter().chain(bytes).take(5).copied().collect();
            self.line.clear();
            self.skipping_line = true;
            if may_be_data(&head) {
                // The event cannot be delivered whole.
                self.oversized = true;
            }
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    /// One complete line.
    fn on_line(&mut self, line: &[u8], out: &mut impl FnMut(Event)) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        if name != b"data" || self.oversized {
            return;
        }
        let extra = usize::from(self.has_data);
        if self.data.len() + extra + value.len() > self.max_len {
            self.oversized = true;
            self.data = Vec::new();
            return;
        }
        if self.has_data {
            self.data.push(b'\n');
        }
        self.data.extend_from_slice(value);
        self.has_data = true;
    }

    /// The end of an event.
    fn dispatch(&mut self, out: &mut impl FnMut(Event)) {
        if std::mem::take(&mut self.oversized) {
            self.data = Vec::new();
            self.has_data = false;
            out(Event::Oversized {
                limit: self.max_len,
            });
            return;
        }
        if std::mem::take(&mut self.has_data) {
            out(Event::Data(Bytes::from(std::mem::take(&mut self.data))));
        }
    }
}

/// True when a line starting with `head` (its first five bytes) may be a `data` line.
fn may_be_data(head: &[u8]) -> bool {
    match head.iter().position(|&b| b == b':') {
        Some(colon) => &head[..colon] == b"data",
        None => b"data".starts_with(head),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `input` fed in chunks of `size` bytes.
    fn parse_chunked(input: &[u8], size: usize, max_len: usize) -> Vec<Event> {
        let mut parser = SseParser::new(max_len);
        let mut events = Vec::new();
        for chunk in input.chunks(size.max(1)) {
            parser.feed(chunk, &mut |e| events.push(e));
        }
        parser.finish(&mut |e| events.push(e));
        events
    }

    /// Parses `input` at every chunk size, checking each gives the same events.
    fn parse(input: &[u8]) -> Vec<Event> {
        parse_limited(input, 1024)
    }

    fn parse_limited(input: &[u8], max_len: usize) -> Vec<Event> {
        let whole = parse_chunked(input, input.len(), max_len);
        for size in 1..input.len() {
            assert_eq!(
                parse_chunked(input, size, max_len),
                whole,
                "chunks of {size} bytes of {:?}",
                String::from_utf8_lossy(input)
            );
        }
        whole
    }

    fn data(text: &str) -> Event {
        Event::Data(Bytes::from(text.to_owned()))
    }

    #[test]
    fn one_event_per_blank_line() {
        assert_eq!(
            parse(b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\n"),
            vec![data("{\"a\":1}"), data("{\"b\":2}")]
        );
    }

    #[test]
    fn crlf_lf_and_lone_cr_all_end_lines() {
        let expected = vec![data("{\"a\":1}"), data("{\"b\":2}")];
        assert_eq!(
            parse(b"data: {\"a\":1}\r\n\r\ndata: {\"b\":2}\r\n\r\n"),
            expected
        );
        assert_eq!(parse(b"data: {\"a\":1}\r\rdata: {\"b\":2}\r\r"), expected);
        assert_eq!(
            parse(b"data: {\"a\":1}\r\n\ndata: {\"b\":2}\n\r\n"),
            expected
        );
    }

    #[test]
    fn a_leading_byte_order_mark_is_stripped() {
        assert_eq!(parse(b"\xEF\xBB\xBFdata: x\n\n"), vec![data("x")]);
        // Only at the very start of the stream.
        assert_eq!(parse(b"data: \xEF\xBB\xBFx\n\n"), vec![data("\u{feff}x")]);
        assert_eq!(parse(b"\xEF\xBB"), vec![]);
    }

    #[test]
    fn several_data_lines_are_joined_with_newlines() {
        assert_eq!(
            parse(b"data: {\"a\":\ndata:1}\ndata:\n\n"),
            vec![data("{\"a\":\n1}\n")]
        );
    }

    #[test]
    fn only_one_space_after_the_colon_is_dropped() {
        assert_eq!(
            parse(b"data:  x\n\ndata:y\n\n"),
            vec![data(" x"), data("y")]
        );
        // A field name without a colon has an empty value.
        assert_eq!(parse(b"data\n\n"), vec![data("")]);
    }

    #[test]
    fn comments_and_other_fields_are_ignored() {
        assert_eq!(
            parse(
                b": connected\n\n:\n\n: ping\n\nevent: message\nid: 7\nretry: 1000\nfoo: bar\n\
                  data: x\n\nevent: only\n\n"
            ),
            vec![data("x")]
        );
    }

    #[test]
    fn a_last_event_without_a_blank_line_is_delivered() {
        assert_eq!(parse(b"data: a\n\ndata: b\n"), vec![data("a"), data("b")]);
        assert_eq!(parse(b"data: a\n\ndata: b"), vec![data("a"), data("b")]);
        assert_eq!(parse(b"data: b\r"), vec![data("b")]);
    }

    #[test]
    fn an_oversized_event_is_skipped_and_reported_then_parsing_goes_on() {
        let mut input = b"data: small\n\ndata: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100));
        input.extend_from_slice(b"\ndata: more\n\ndata: after\n\n");
        assert_eq!(
            parse_limited(&input, 32),
            vec![data("small"), Event::Oversized { limit: 32 }, data("after")]
        );
        // Passing the limit across several data lines.
        let input = b"data: 0123456789\ndata: 0123456789\ndata: 0123456789\n\ndata: ok\n\n";
        assert_eq!(
            parse_limited(input, 25),
            vec![Event::Oversized { limit: 25 }, data("ok")]
        );
    }

    #[test]
    fn a_long_comment_is_skipped_without_failing_the_event() {
        let mut input = b": ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 500));
        input.extend_from_slice(b"\ndata: ok\n\n");
        assert_eq!(parse_limited(&input, 32), vec![data("ok")]);
    }

    #[test]
    fn memory_stays_bounded_without_line_ends() {
        let mut parser = SseParser::new(64);
        let mut events = Vec::new();
        parser.feed(b"data: ", &mut |e| events.push(e));
        for _ in 0..1000 {
            parser.feed(&[b'x'; 1000], &mut |e| events.push(e));
            assert!(parser.line.capacity() <= 1024);
        }
        parser.feed(b"\n\n", &mut |e| events.push(e));
        assert_eq!(events, vec![Event::Oversized { limit: 64 }]);
    }

    #[test]
    fn exactly_at_the_limit_is_kept() {
        assert_eq!(
            parse_limited(b"data: 0123456789\n\n", 10),
            vec![data("0123456789")]
        );
    }
}
