//! The names of the two framings, and the configuration choice between them.

use std::fmt;
use std::str::FromStr;

use crate::frame::is_whitespace;

/// The headers of the LSP base protocol, one of which starts every Content-Length stream.
const HEADER_NAMES: [&[u8]; 2] = [b"content-length", b"content-type"];

/// One of the two ways ACP messages are framed on a byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Framing {
    /// Newline-delimited JSON: one message per line, the framing the ACP specification uses.
    Ndjson,
    /// LSP-style framing: a `Content-Length` header section, a blank line, then the body.
    ContentLength,
}

impl Framing {
    /// Guesses the framing of a stream from its first bytes.
    ///
    /// Leading whitespace is ignored.
    /// The stream is [`Framing::ContentLength`] when it starts with one of the two headers of the
    /// LSP base protocol, `Content-Length` or `Content-Type` (in any case), followed by `:` (or
    /// spaces before it); anything else is [`Framing::Ndjson`], the framing of the ACP
    /// specification, whose decoder then reports a line that is not JSON to the layer above
    /// instead of failing the stream.
    /// Returns `None` while `prefix` holds nothing but whitespace, or only the start of one of
    /// those header names (at most 15 bytes after the whitespace are needed to decide).
    ///
    /// ```
    /// use acp_codec::Framing;
    ///
    /// assert_eq!(Framing::detect(b"\r\n{\"jsonrpc\":\"2.0\"}"), Some(Framing::Ndjson));
    /// assert_eq!(Framing::detect(b"Content-Length: 2\r\n\r\n{}"), Some(Framing::ContentLength));
    /// assert_eq!(Framing::detect(b"this is not json\n"), Some(Framing::Ndjson));
    /// assert_eq!(Framing::detect(b"  \n"), None);
    /// assert_eq!(Framing::detect(b"Content-"), None);
    /// ```
    #[must_use]
    pub fn detect(prefix: &[u8]) -> Option<Framing> {
        let start = prefix.iter().position(|&b| !is_whitespace(b))?;
        let rest = &prefix[start..];
        let mut undecided = false;
        for name in HEADER_NAMES {
            let n = rest.len().min(name.len());
            if !rest[..n].eq_ignore_ascii_case(&name[..n]) {
                continue;
            }
            match rest.get(name.len()) {
                Some(b':' | b' ' | b'\t') => return Some(Framing::ContentLength),
                Some(_) => {}
                // The name so far, or the whole name: the next byte decides.
                None => undecided = true,
            }
        }
        (!undecided).then_some(Framing::Ndjson)
    }

    /// The lowercase name also accepted by [`FramingMode::from_str`].
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Framing::Ndjson => "ndjson",
            Framing::ContentLength => "content-length",
        }
    }
}

impl fmt::Display for Framing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which framing a connection uses: a fixed one, or whichever the peer speaks first.
///
/// This is the configuration value the connection layers take; build the codec itself with
/// [`AnyCodec::new`](crate::AnyCodec::new).
/// It parses from (and prints as) `ndjson`, `content-length` and `auto`, so it can come straight from
/// a command-line flag.
///
/// ```
/// use acp_codec::FramingMode;
///
/// let mode: FramingMode = "content-length".parse()?;
/// assert_eq!(mode, FramingMode::ContentLength);
/// assert_eq!(FramingMode::default(), FramingMode::Auto);
/// # Ok::<(), acp_codec::ParseFramingModeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FramingMode {
    /// Always newline-delimited JSON.
    Ndjson,
    /// Always Content-Length headers.
    ContentLength,
    /// Detect the framing from the first bytes received, and answer in the same framing.
    ///
    /// Until something has been received, messages are written as NDJSON, the framing of the ACP
    /// specification.
    #[default]
    Auto,
}

impl FramingMode {
    /// The name this mode parses from.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FramingMode::Ndjson => "ndjson",
            FramingMode::ContentLength => "content-length",
            FramingMode::Auto => "auto",
        }
    }
}

impl From<Framing> for FramingMode {
    fn from(framing: Framing) -> Self {
        match framing {
            Framing::Ndjson => FramingMode::Ndjson,
            Framing::ContentLength => FramingMode::ContentLength,
        }
    }
}

impl fmt::Display for FramingMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FramingMode {
    type Err = ParseFramingModeError;

    /// Parses `ndjson`, `content-length` or `auto`, ignoring ASCII case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            FramingMode::Ndjson,
            FramingMode::ContentLength,
            FramingMode::Auto,
        ]
        .into_iter()
        .find(|mode| mode.as_str().eq_ignore_ascii_case(s))
        .ok_or(ParseFramingModeError(()))
    }
}

/// The error returned when a string names no [`FramingMode`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown framing mode (expected `ndjson`, `content-length` or `auto`)")]
pub struct ParseFramingModeError(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_looks_past_whitespace_at_the_first_byte() {
        assert_eq!(Framing::detect(b""), None);
        assert_eq!(Framing::detect(b" \t\r\n"), None);
        assert_eq!(Framing::detect(b"\n\n{"), Some(Framing::Ndjson));
        assert_eq!(Framing::detect(b"["), Some(Framing::Ndjson));
        assert_eq!(
            Framing::detect(b"content-length:"),
            Some(Framing::ContentLength)
        );
        assert_eq!(
            Framing::detect(b"\r\nCONTENT-TYPE :"),
            Some(Framing::ContentLength)
        );
    }

    #[test]
    fn only_a_content_length_or_content_type_header_means_content_length() {
        for ndjson in [
            &b"this is not json\n"[..],
            b"Error: something went wrong\n",
            b"Content-Lengthy: 5",
            b"Content-Range: 5",
            b"contents",
            b"C\n",
            b"null",
        ] {
            assert_eq!(
                Framing::detect(ndjson),
                Some(Framing::Ndjson),
                "{:?}",
                String::from_utf8_lossy(ndjson)
            );
        }
        // Undecided while the bytes are the start of a header name, or the whole name.
        for undecided in [&b"c"[..], b"Content", b"content-t", b"Content-Length"] {
            assert_eq!(Framing::detect(undecided), None);
        }
    }

    #[test]
    fn modes_parse_from_their_names_in_any_case() {
        for mode in [
            FramingMode::Ndjson,
            FramingMode::ContentLength,
            FramingMode::Auto,
        ] {
            assert_eq!(mode.to_string().parse::<FramingMode>(), Ok(mode));
            assert_eq!(
                mode.as_str().to_uppercase().parse::<FramingMode>(),
                Ok(mode)
            );
        }
        assert!("lsp".parse::<FramingMode>().is_err());
    }

    #[test]
    fn a_framing_converts_to_the_fixed_mode() {
        assert_eq!(FramingMode::from(Framing::Ndjson), FramingMode::Ndjson);
        assert_eq!(
            FramingMode::from(Framing::ContentLength),
            FramingMode::ContentLength
        );
        assert_eq!(Framing::ContentLength.to_string(), "content-length");
    }
}
