//! The escaped view of a JSON string: a tool result, a transcript line or a log record holds a
//! whole file or a terminal's output in one double-quoted string, its lines joined by `\n`
//! escapes (`"password: |\n  s3cr3t\n"`, a PEM body, a table). The recognizers of multi-line
//! forms follow lines; they find the same secrets in the string's decoded text, and each
//! decoded range maps back to the escaped bytes it came from.

use std::ops::Range;

/// The double-quoted strings of `line` that hold a backslash escape, quotes excluded, in order.
/// Quotes are paired from the line's start, as a JSON reader pairs them. A quote escaped where
/// no string is open (`{\"key\": …`, the inside of a string shown without its quotes) opens
/// none, and a string the line leaves open is none: the pairing is not known there.
pub(super) fn escaped_strings(line: &[u8]) -> Vec<Range<usize>> {
    let mut strings = Vec::new();
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'"', &line[at..]).map(|quote| at + quote) {
        if open > 0 && line[open - 1] == b'\\' {
            at = open + 1;
            continue;
        }
        let start = open + 1;
        let mut escaped = false;
        let mut end = start;
        while end < line.len() {
            match line[end] {
                b'\\' => {
                    escaped = true;
                    end += 2;
                }
                b'"' => break,
                _ => end += 1,
            }
        }
        if end >= line.len() {
            break;
        }
        if escaped {
            strings.push(start..end);
        }
        at = end + 1;
    }
    strings
}

/// A string's text with its escapes decoded, and for each decoded byte the offset in the
/// escaped text it came from (one more entry, the escaped text's length, ends the last byte).
pub(super) struct Decoded {
    pub(super) text: Vec<u8>,
    sources: Vec<usize>,
}

impl Decoded {
    /// The escaped bytes a range of the decoded text came from.
    pub(super) fn source(&self, decoded: Range<usize>) -> Range<usize> {
        self.sources[decoded.start]..self.sources[decoded.end]
    }
}

/// Decodes JSON's escapes (`\n`, `\t`, `\"`, `\\`, `\/`, `\uXXXX` with surrogate pairs). An
/// escape JSON does not know, or a lone surrogate, is kept as written.
pub(super) fn decode(escaped: &[u8]) -> Decoded {
    let mut text = Vec::with_capacity(escaped.len());
    let mut sources = Vec::with_capacity(escaped.len() + 1);
    let mut at = 0;
    while at < escaped.len() {
        let (bytes, length): (&[u8], usize) = match (escaped[at], escaped.get(at + 1)) {
            (b'\\', Some(b'n')) => (b"\n", 2),
            (b'\\', Some(b'r')) => (b"\r", 2),
            (b'\\', Some(b't')) => (b"\t", 2),
            (b'\\', Some(b'"')) => (b"\"", 2),
            (b'\\', Some(b'\\')) => (b"\\", 2),
            (b'\\', Some(b'/')) => (b"/", 2),
            (b'\\', Some(b'b')) => (b"\x08", 2),
            (b'\\', Some(b'f')) => (b"\x0c", 2),
            (b'\\', Some(b'u')) => {
                let mut utf8 = [0; 4];
                match unicode_escape(&escaped[at..]) {
                    Some((c, length)) => {
                        let encoded = c.encode_utf8(&mut utf8).len();
                        for &byte in &utf8[..encoded] {
                            text.push(byte);
                            sources.push(at);
                        }
                        at += length;
                        continue;
                    }
                    None => (&escaped[at..at + 1], 1),
                }
            }
            _ => (&escaped[at..at + 1], 1),
        };
        for &byte in bytes {
            text.push(byte);
            sources.push(at);
        }
        at += length;
    }
    sources.push(escaped.len());
    Decoded { text, sources }
}

/// The character of a `\uXXXX` escape (two for a surrogate pair) at the start of `escaped`,
/// with the escaped length.
fn unicode_escape(escaped: &[u8]) -> Option<(char, usize)> {
    let unit = |at: usize| -> Option<u32> {
        let digits = escaped.get(at..at + 6)?;
        if !digits.starts_with(b"\\u") {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(&digits[2..]).ok()?, 16).ok()
    };
    let first = unit(0)?;
    if (0xD800..0xDC00).contains(&first) {
        let second = unit(6).filter(|second| (0xDC00..0xE000).contains(second))?;
        let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
        return char::from_u32(code).map(|c| (c, 12));
    }
    char::from_u32(first).map(|c| (c, 6))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_with_escapes_are_found_between_paired_quotes() {
        let line = br#"{"a": "plain", "b": "x\ny", "c": "q\"uote", "d": "open\n"#;
        let found: Vec<&[u8]> = escaped_strings(line)
            .into_iter()
            .map(|range| &line[range])
            .collect();
        assert_eq!(found, [&br"x\ny"[..], br#"q\"uote"#]);
        assert!(escaped_strings(br#"no "escapes" here"#).is_empty());
        assert!(escaped_strings(b"a trailing backslash \"\\").is_empty());
        assert!(escaped_strings(br#"{\"key\": \"x\ny\"}"#).is_empty());
    }

    #[test]
    fn decoded_ranges_map_back_to_their_escapes() {
        let escaped = br#"k:\n  v\"w\u00e9\ud83d\ude00\q"#;
        let decoded = decode(escaped);
        assert_eq!(decoded.text, "k:\n  v\"wé😀\\q".as_bytes());
        let v = decoded.text.iter().position(|&b| b == b'v').unwrap();
        let end = decoded.text.len();
        assert_eq!(
            &escaped[decoded.source(v..end)],
            br#"v\"w\u00e9\ud83d\ude00\q"#
        );
        assert_eq!(&escaped[decoded.source(0..3)], br"k:\n");
        // A lone surrogate or a short escape stays as written.
        assert_eq!(decode(br"\ud800x\u12").text, br"\ud800x\u12");
    }
}
