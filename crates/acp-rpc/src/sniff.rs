//! A shallow look at a message that could not be parsed: which members its top-level object
//! has, found without parsing the values (nested values are skipped by counting brackets), so
//! that nesting too deep for the parser, or any other fault inside a value, does not hide what
//! kind of message it was meant to be.

/// The top-level members a JSON-RPC message can be told apart by.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Members<'a> {
    /// The text of the `id` member's value.
    pub(crate) id: Option<&'a [u8]>,
    pub(crate) method: bool,
    pub(crate) result: bool,
    pub(crate) error: bool,
}

impl Members<'_> {
    /// True when the message was meant as a response: it has an `id`, a `result` or an
    /// `error`, and no `method`. A response is never answered, however malformed.
    pub(crate) fn is_response(self) -> bool {
        self.id.is_some() && !self.method && (self.result || self.error)
    }
}

/// The members of the top-level object of `bytes`, as far as they can be read; members after
/// a point where the text stops making sense are not reported.
pub(crate) fn members(bytes: &[u8]) -> Members<'_> {
    let mut found = Members::default();
    let mut s = Scanner { bytes, at: 0 };
    s.skip_ws();
    if !s.eat(b'{') {
        return found;
    }
    loop {
        s.skip_ws();
        let Some(key) = s.string() else {
            return found;
        };
        s.skip_ws();
        if !s.eat(b':') {
            return found;
        }
        s.skip_ws();
        let start = s.at;
        let complete = s.skip_value();
        match key {
            b"id" if complete => found.id = Some(&bytes[start..s.at]),
            b"method" => found.method = true,
            b"result" => found.result = true,
            b"error" => found.error = true,
            _ => {}
        }
        if !complete {
            return found;
        }
        s.skip_ws();
        if !s.eat(b',') {
            return found;
        }
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    /// A string's raw contents (escapes left as they are), the cursor after its closing quote.
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(&self.bytes[start..self.at - 1]);
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// Skips one value of any depth; false when the text ends first.
    fn skip_value(&mut self) -> bool {
        self.skip_ws();
        match self.peek() {
            None => false,
            Some(b'"') => self.string().is_some(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    match self.peek() {
                        None => return false,
                        Some(b'"') => {
                            if self.string().is_none() {
                                return false;
                            }
                        }
                        Some(b'{' | b'[') => {
                            depth += 1;
                            self.at += 1;
                        }
                        Some(b'}' | b']') => {
                            depth -= 1;
                            self.at += 1;
                            if depth == 0 {
                                return true;
                            }
                        }
                        Some(_) => self.at += 1,
                    }
                }
            }
            // A scalar: up to the member's separator or the object's end.
            Some(_) => {
                while !matches!(self.peek(), None | Some(b',' | b'}')) {
                    self.at += 1;
                }
                self.peek().is_some()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_top_level_members_whatever_the_values_hold() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":3,"error":{{"code":1,"message":"m","data":{}{}}}}}"#,
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        let m = members(deep.as_bytes());
        assert_eq!(
            m,
            Members {
                id: Some(b"3"),
                error: true,
                ..Members::default()
            }
        );
        assert!(m.is_response());
    }

    #[test]
    fn nested_members_and_strings_do_not_count() {
        let text = br#" { "params": {"method": "x", "id": 1}, "note": "\"method\": {", "id": 2, "result": null }"#;
        let m = members(text);
        assert!(
            m.id == Some(b"2".as_slice()) && m.result && !m.method,
            "{m:?}"
        );
        assert!(m.is_response());
        let request = br#"{"id": 1, "method": "x", "params": [[[[1]]]]}"#;
        assert!(!members(request).is_response());
    }

    #[test]
    fn stops_where_the_text_stops_making_sense() {
        assert_eq!(members(b"not json"), Members::default());
        assert_eq!(members(b"[1,2]"), Members::default());
        let cut = members(br#"{"id": 1, "result": {"a": "#);
        assert!(cut.id == Some(b"1".as_slice()) && cut.result);
        assert!(!members(br#"{"id" 1, "result": 2}"#).result);
    }
}
