//! A child's stderr (an agent's log): where it goes, and reading it safely (bounded lines,
//! lossy decoding, read to its end).

use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;

/// The longest stderr line passed on, in bytes of the child's output. A longer line (or output
/// that never ends its line) is passed on in pieces of at most this length, split at a
/// character boundary where the text is UTF-8. (Decoding replaces each invalid byte with
/// U+FFFD, three bytes in UTF-8, so a line of garbage can take up to three times as much as a
/// `&str`.)
///
/// The bound keeps the memory spent on an agent's log constant whatever it writes: a line is
/// the unit handed to [`Stderr::Lines`] and to `tracing`, and a program printing a progress bar
/// or a binary blob without a newline would otherwise make it grow without end.
pub const MAX_STDERR_LINE: usize = 8 * 1024;

/// The size of each read from the pipe.
const READ_CHUNK: usize = 8 * 1024;

/// What to do with a child's stderr (where agents log).
///
/// With [`Tracing`](Self::Tracing) and [`Lines`](Self::Lines) the pipe is read to its end:
/// lines are at most [`MAX_STDERR_LINE`] bytes (longer ones are split), bytes that are not
/// UTF-8 become U+FFFD, and [`forward_stderr`] reads on until the pipe's end (`acp_client`
/// keeps reading after the connection ended, on a background task), so a program never gets
/// `EPIPE` (or `SIGPIPE`) for logging while it runs.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Stderr {
    /// Forward each line to `tracing` (level `info`, target `acp_client::agent_stderr`: the
    /// name log filters have always used for agents' stderr, kept wherever the child runs).
    #[default]
    Tracing,
    /// Pass each line (without its line ending) to a callback. A panic in the callback is
    /// caught and the line dropped; reading goes on.
    Lines(Arc<dyn Fn(&str) + Send + Sync>),
    /// Let the child write to our own stderr (the caller sets `Stdio::inherit()`; see
    /// [`Stderr::stdio`]).
    Inherit,
    /// Discard it.
    Discard,
}

impl std::fmt::Debug for Stderr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stderr::Tracing => "Tracing",
            Stderr::Lines(_) => "Lines(..)",
            Stderr::Inherit => "Inherit",
            Stderr::Discard => "Discard",
        })
    }
}

impl Stderr {
    /// The `Stdio` a child's stderr is given for this mode: inherited, discarded, or piped (to
    /// be read by [`forward_stderr`]).
    pub fn stdio(&self) -> std::process::Stdio {
        match self {
            Stderr::Inherit => std::process::Stdio::inherit(),
            Stderr::Discard => std::process::Stdio::null(),
            Stderr::Tracing | Stderr::Lines(_) => std::process::Stdio::piped(),
        }
    }

    /// Passes one line on.
    fn deliver(&self, line: &str) {
        match self {
            Stderr::Lines(callback) => {
                let call = std::panic::AssertUnwindSafe(|| callback(line));
                if std::panic::catch_unwind(call).is_err() {
                    tracing::debug!("the stderr callback panicked; the line is dropped");
                }
            }
            _ => tracing::info!(target: "acp_client::agent_stderr", "{line}"),
        }
    }
}

/// Reads a child's `stderr` to its end, passing each line on as `mode` says: lines longer
/// than [`MAX_STDERR_LINE`] are split, invalid UTF-8 is replaced, and reading goes on until
/// the end whatever the lines hold, so the child never blocks on, or dies of, a full or
/// closed pipe. `acp_client::spawn` runs it for the agent's stderr, `acp-http`'s bridge for
/// each agent program's; it serves any child that logs there (a tool, a language server).
pub fn forward_stderr(stderr: ChildStderr, mode: Stderr) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        let mut stderr = stderr;
        let mut chunk = vec![0u8; READ_CHUNK];
        let mut lines = LineSplitter::default();
        let mut deliver = |line: &str| mode.deliver(line);
        loop {
            match stderr.read(&mut chunk).await {
                Ok(0) => break,
                Ok(n) => lines.push(&chunk[..n], &mut deliver),
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    tracing::debug!(%error, "reading a child's stderr failed");
                    break;
                }
            }
        }
        lines.finish(&mut deliver);
    })
}

/// Splits a byte stream into lines of at most [`MAX_STDERR_LINE`] bytes, decoded lossily.
#[derive(Debug, Default)]
struct LineSplitter {
    /// The line so far; always shorter than the bound between calls.
    line: Vec<u8>,
}

impl LineSplitter {
    /// Takes `data`, passing every completed (or full) line to `emit`.
    fn push(&mut self, mut data: &[u8], emit: &mut dyn FnMut(&str)) {
        while !data.is_empty() {
            let room = MAX_STDERR_LINE - self.line.len();
            // A newline right after `room` bytes still ends a line of exactly the bound.
            let window = &data[..data.len().min(room + 1)];
            if let Some(end) = window.iter().position(|&b| b == b'\n') {
                self.line.extend_from_slice(&data[..end]);
                if self.line.last() == Some(&b'\r') {
                    self.line.pop();
                }
                emit(&String::from_utf8_lossy(&self.line));
                self.line.clear();
                data = &data[end + 1..];
            } else {
                let take = data.len().min(room);
                self.line.extend_from_slice(&data[..take]);
                data = &data[take..];
                if self.line.len() >= MAX_STDERR_LINE {
                    let cut = split_point(&self.line);
                    emit(&String::from_utf8_lossy(&self.line[..cut]));
                    self.line.drain(..cut);
                }
            }
        }
    }

    /// Passes on what is left at the end of the stream.
    fn finish(&mut self, emit: &mut dyn FnMut(&str)) {
        if !self.line.is_empty() {
            emit(&String::from_utf8_lossy(&self.line));
            self.line.clear();
        }
    }
}

/// Where to split a full line: before a UTF-8 character cut off by the end, if any.
fn split_point(line: &[u8]) -> usize {
    let len = line.len();
    for back in 1..=len.min(3) {
        let byte = line[len - back];
        if byte & 0xC0 != 0x80 {
            // Not a continuation byte: ASCII, a lead byte, or invalid.
            let width = match byte {
                0xF0.. => 4,
                0xE0.. => 3,
                0xC0.. => 2,
                _ => 1,
            };
            return if width > back { len - back } else { len };
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<String> {
        let mut out = Vec::new();
        let mut splitter = LineSplitter::default();
        for chunk in chunks {
            splitter.push(chunk, &mut |line| out.push(line.to_owned()));
        }
        splitter.finish(&mut |line| out.push(line.to_owned()));
        out
    }

    #[test]
    fn lines_end_at_newlines_whatever_the_chunks() {
        let text = b"one\r\ntwo\n\nthree";
        for at in 0..=text.len() {
            let (a, b) = text.split_at(at);
            assert_eq!(split(&[a, b]), ["one", "two", "", "three"], "split at {at}");
        }
    }

    #[test]
    fn a_line_of_exactly_the_bound_is_one_line() {
        let mut text = vec![b'a'; MAX_STDERR_LINE];
        text.extend_from_slice(b"\nb\n");
        let lines = split(&[&text]);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), MAX_STDERR_LINE);
        assert_eq!(lines[1], "b");
    }

    #[test]
    fn long_lines_are_split_at_character_boundaries() {
        // "é" is two bytes: an odd number of ASCII bytes first puts one across the bound.
        let mut text = b"x".to_vec();
        for _ in 0..MAX_STDERR_LINE {
            text.extend_from_slice("é".as_bytes());
        }
        let lines = split(&[&text]);
        assert!(lines.iter().all(|l| l.len() <= MAX_STDERR_LINE));
        assert!(
            lines.iter().all(|l| !l.contains('\u{FFFD}')),
            "no character cut"
        );
        assert_eq!(lines.concat().as_bytes(), &text[..]);
    }

    #[test]
    fn invalid_bytes_are_replaced() {
        assert_eq!(split(&[b"a\xffb\n\xfe"]), ["a\u{FFFD}b", "\u{FFFD}"]);
        // A full line of continuation bytes is still cut at the bound.
        let garbage = vec![0x80u8; MAX_STDERR_LINE * 2 + 1];
        let lines = split(&[&garbage]);
        let counts: Vec<usize> = lines.iter().map(|l| l.chars().count()).collect();
        assert_eq!(counts, [MAX_STDERR_LINE, MAX_STDERR_LINE, 1]);
    }
}
