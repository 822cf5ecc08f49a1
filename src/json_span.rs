//! A JSON document as byte spans, so an edit can replace, insert or remove one value's text and
//! leave every other byte of the user's file as it was (SPEC §6: install then uninstall gives
//! back the same bytes, compact objects stay compact).
//!
//! Only the structure is kept here; scalar values are read with `serde_json` from their span
//! when needed. Callers validate the text with `serde_json` first (it gives the user-facing
//! line:column errors); this parser then only has to find the spans of a valid document.

/// One value: its byte range in the text (`start..end`) and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    /// A string, number, `true`, `false` or `null`.
    Scalar,
}

/// One `"key": value` of an object. `key_start..key_end` spans the quoted key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub key: String,
    pub key_start: usize,
    pub key_end: usize,
    pub value: Node,
}

impl Node {
    pub fn members(&self) -> Option<&[Member]> {
        match &self.kind {
            Kind::Object(members) => Some(members),
            _ => None,
        }
    }

    pub fn elements(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Array(elements) => Some(elements),
            _ => None,
        }
    }

    /// The value of the LAST member named `key` (JSON readers keep the last duplicate).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.members()?
            .iter()
            .rev()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }

    /// Index of the last member named `key`.
    pub fn member_index(&self, key: &str) -> Option<usize> {
        self.members()?.iter().rposition(|m| m.key == key)
    }

    /// The value decoded with serde_json (scalars and small subtrees).
    pub fn value(&self, text: &str) -> Option<serde_json::Value> {
        serde_json::from_str(&text[self.start..self.end]).ok()
    }
}

/// Where the parser stopped on text that is not JSON, with what it expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanError {
    pub offset: usize,
    pub message: &'static str,
}

/// Parses `text` (which may start with a byte-order mark) into spans.
pub fn parse(text: &str) -> Result<Node, SpanError> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        pos: if text.starts_with('\u{feff}') { 3 } else { 0 },
        text,
    };
    parser.skip_whitespace()?;
    let node = parser.value(0)?;
    parser.skip_whitespace()?;
    if parser.pos != parser.bytes.len() {
        return Err(parser.error("trailing characters after the JSON value"));
    }
    Ok(node)
}

/// The offset of the first comment (`//` or `/*`) outside a string, if any: JSON has none, and
/// the hosts read their settings as strict JSON.
pub fn first_comment(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'/' if !in_string && matches!(bytes.get(i + 1), Some(b'/' | b'*')) => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Deep enough for any settings file, shallow enough that no input overflows the stack.
const MAX_DEPTH: usize = 128;

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: &'static str) -> SpanError {
        SpanError {
            offset: self.pos,
            message,
        }
    }

    fn skip_whitespace(&mut self) -> Result<(), SpanError> {
        while let Some(&byte) = self.bytes.get(self.pos) {
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' => return Err(self.error("a comment: JSON has no comments")),
                _ => break,
            }
        }
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<Node, SpanError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let start = self.pos;
        let kind = match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => {
                self.string()?;
                Kind::Scalar
            }
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                self.bare()?;
                Kind::Scalar
            }
            _ => return Err(self.error("expected a value")),
        };
        Ok(Node {
            start,
            end: self.pos,
            kind,
        })
    }

    fn object(&mut self, depth: usize) -> Result<Kind, SpanError> {
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_whitespace()?;
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Kind::Object(members));
        }
        loop {
            self.skip_whitespace()?;
            let key_start = self.pos;
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.error("expected a key"));
            }
            self.string()?;
            let key_end = self.pos;
            let raw = &self.text[key_start + 1..key_end - 1];
            let key: String = if raw.contains('\\') {
                serde_json::from_str(&self.text[key_start..key_end])
                    .map_err(|_| self.error("invalid string"))?
            } else {
                raw.to_string()
            };
            self.skip_whitespace()?;
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.error("expected `:`"));
            }
            self.pos += 1;
            self.skip_whitespace()?;
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_start,
                key_end,
                value,
            });
            self.skip_whitespace()?;
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Kind::Object(members));
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Kind, SpanError> {
        self.pos += 1;
        let mut elements = Vec::new();
        self.skip_whitespace()?;
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Kind::Array(elements));
        }
        loop {
            self.skip_whitespace()?;
            elements.push(self.value(depth + 1)?);
            self.skip_whitespace()?;
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Kind::Array(elements));
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn string(&mut self) -> Result<(), SpanError> {
        self.pos += 1;
        loop {
            match self.bytes.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => self.pos += 2,
                Some(_) => self.pos += 1,
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    /// A number or literal: everything up to the next delimiter; serde_json checked its form.
    fn bare(&mut self) -> Result<(), SpanError> {
        let start = self.pos;
        while let Some(&byte) = self.bytes.get(self.pos) {
            if matches!(
                byte,
                b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b'/'
            ) {
                break;
            }
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error("expected a value"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_keys_and_values() {
        let text = "{ \"a\": [1, {\"b\": \"x\"}], \"c\": true }";
        let root = parse(text).unwrap();
        assert_eq!((root.start, root.end), (0, text.len()));
        let a = root.get("a").unwrap();
        assert_eq!(&text[a.start..a.end], "[1, {\"b\": \"x\"}]");
        let inner = &a.elements().unwrap()[1];
        assert_eq!(&text[inner.start..inner.end], "{\"b\": \"x\"}");
        let members = root.members().unwrap();
        assert_eq!(&text[members[1].key_start..members[1].key_end], "\"c\"");
        assert_eq!(
            members[1].value.value(text),
            Some(serde_json::Value::Bool(true))
        );
    }

    #[test]
    fn escaped_keys_are_decoded_and_the_last_duplicate_wins() {
        let text = r#"{"h\u006fok": 1, "k": 1, "k": 2}"#;
        let root = parse(text).unwrap();
        assert_eq!(root.members().unwrap()[0].key, "hook");
        assert_eq!(root.get("k").unwrap().value(text), Some(2.into()));
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let text = "\u{feff}{\"a\": 1}";
        assert_eq!(parse(text).unwrap().start, 3);
    }

    #[test]
    fn comments_and_garbage_are_errors_not_panics() {
        assert!(parse("{\n // x\n \"a\": 1}").is_err());
        assert_eq!(first_comment("{\"u\": \"http://x\"} // c"), Some(18));
        assert_eq!(first_comment("{\"a\": \"/* no */\"}"), None);
        for bad in ["", "{", "[1,", "{\"a\" 1}", "\"abc", "{\"a\":}", "]"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(parse(&deep).is_err());
    }
}
