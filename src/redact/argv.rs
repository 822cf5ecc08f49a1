//! Command lines written as arrays of strings: a compose healthcheck (`["CMD", "redis-cli",
//! "-a", "…", "ping"]`), a Kubernetes `command:`, a Dockerfile's exec form, a Python
//! `subprocess.run([...])`, a Codex exec event's `"command"`. The command-line rules read a
//! command as words a blank apart; the array's elements joined by blanks are that command, and
//! each secret found there maps back to the element it came from.

use std::ops::Range;

/// An array needs this many strings to be read as a command: a program, an option, its value.
const MIN_ARGUMENTS: usize = 3;

/// An array's elements joined by blanks, and for each joined byte the range of the line it
/// stands for (empty for the blanks and quotes the joining adds).
pub(super) struct Joined {
    pub(super) text: Vec<u8>,
    sources: Vec<Range<usize>>,
}

impl Joined {
    /// The bytes of the line a range of the joined text came from.
    pub(super) fn source(&self, joined: Range<usize>) -> Range<usize> {
        if joined.is_empty() {
            return 0..0;
        }
        self.sources[joined.start].start..self.sources[joined.end - 1].end
    }

    /// Appends one element; one holding a blank is quoted, as a shell word holding one is.
    fn push(&mut self, line: &[u8], element: Range<usize>) {
        if !self.text.is_empty() {
            self.text.push(b' ');
            self.sources.push(element.start..element.start);
        }
        let quoted = line[element.clone()].contains(&b' ');
        if quoted {
            self.text.push(b'\'');
            self.sources.push(element.start..element.start);
        }
        for at in element.clone() {
            self.text.push(line[at]);
            self.sources.push(at..at + 1);
        }
        if quoted {
            self.text.push(b'\'');
            self.sources.push(element.end..element.end);
        }
    }
}

/// The arrays of `MIN_ARGUMENTS` strings or more in `line` (`[` then quoted strings a comma
/// apart, then `]`), each with the line's range it spans and its elements joined.
pub(super) fn argv_arrays(line: &[u8]) -> Vec<(Range<usize>, Joined)> {
    let mut arrays = Vec::new();
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'[', &line[at..]).map(|offset| at + offset) {
        match elements(line, open + 1) {
            Some((elements, close)) if elements.len() >= MIN_ARGUMENTS => {
                let mut joined = Joined {
                    text: Vec::new(),
                    sources: Vec::new(),
                };
                for element in elements {
                    joined.push(line, element);
                }
                arrays.push((open..close + 1, joined));
                at = close + 1;
            }
            _ => at = open + 1,
        }
    }
    arrays
}

/// The strings of an array whose inside starts at `at`, and where its `]` is; `None` when
/// anything but quoted strings and commas stands there.
fn elements(line: &[u8], mut at: usize) -> Option<(Vec<Range<usize>>, usize)> {
    let mut elements = Vec::new();
    loop {
        at = skip_blanks(line, at);
        let quote = *line.get(at)?;
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let start = at + 1;
        let mut end = start;
        while end < line.len() && line[end] != quote {
            end += if line[end] == b'\\' { 2 } else { 1 };
        }
        if end >= line.len() {
            return None;
        }
        elements.push(start..end);
        at = skip_blanks(line, end + 1);
        match line.get(at)? {
            b',' => at += 1,
            b']' => return Some((elements, at)),
            _ => return None,
        }
    }
}

fn skip_blanks(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(|&b| b == b' ' || b == b'\t') {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_of_strings_is_joined_and_maps_back() {
        let line = br#"test: ["CMD", "redis-cli", "-a", "s7Gv#q2Lr", "ping"]"#;
        let arrays = argv_arrays(line);
        assert_eq!(arrays.len(), 1);
        let (span, joined) = &arrays[0];
        assert_eq!(&line[span.clone()], &line[6..]);
        assert_eq!(joined.text, b"CMD redis-cli -a s7Gv#q2Lr ping");
        let secret = 17..26;
        assert_eq!(&joined.text[secret.clone()], b"s7Gv#q2Lr");
        assert_eq!(&line[joined.source(secret)], b"s7Gv#q2Lr");
    }

    #[test]
    fn an_element_with_blanks_is_one_quoted_word() {
        let line = br#"['sshpass', '-p', 'two words', 'ssh']"#;
        let (_, joined) = &argv_arrays(line)[0];
        assert_eq!(joined.text, b"sshpass -p 'two words' ssh");
        // The quotes the joining added stand for the element's edges.
        assert_eq!(&line[joined.source(11..22)], b"two words");
    }

    #[test]
    fn short_arrays_indexes_and_mixed_items_are_no_command() {
        for line in [
            &br#"ports: ["8080", "443"]"#[..],
            br#"x = data[0]["password"]"#,
            br#"[1, "a", "b", "c"]"#,
            br#"["a", "b", "c""#,
        ] {
            assert!(
                argv_arrays(line).is_empty(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
