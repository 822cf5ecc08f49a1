//! Small text helpers shared by the core.

use sha2::{Digest, Sha256};

/// Hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(text.as_bytes());
    // Hashed on every hook call (the judged text, the config files): no formatter per byte.
    let mut hex = String::with_capacity(digest.len() * 2);
    for byte in digest {
        hex.push(HEX[usize::from(byte >> 4)] as char);
        hex.push(HEX[usize::from(byte & 0xf)] as char);
    }
    hex
}

/// The first 16 hex digits of the SHA-256: enough to tell passages apart in one session.
pub fn short_hash(text: &str) -> String {
    sha256_hex(text)[..16].to_string()
}

/// Whether `text` matches the glob `pattern` as a whole: `*` is any run of characters, `?` one
/// character, everything else itself.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    // Classic two-pointer match with backtracking to the last `*`.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// The last `max_bytes` of `text`, starting on a character boundary.
pub fn tail(text: &str, max_bytes: usize) -> &str {
    &text[text.ceil_char_boundary(text.len().saturating_sub(max_bytes))..]
}

/// At most `max_chars` characters of `text` on one line, with an ellipsis when cut.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max_chars {
        flat
    } else {
        let mut cut: String = flat.chars().take(max_chars.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Where `bytes` stop being text: the offset of the first NUL byte or invalid UTF-8 sequence
/// (a truncated character at the very end counts too). None for text.
pub fn binary_offset(bytes: &[u8]) -> Option<usize> {
    let nul = memchr::memchr(0, bytes);
    let invalid = std::str::from_utf8(bytes).err().map(|e| e.valid_up_to());
    match (nul, invalid) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// [`binary_offset`] for the first part of a longer input: a character cut at its end is not
/// binary (the rest of it follows).
pub fn binary_offset_in_prefix(bytes: &[u8]) -> Option<usize> {
    let nul = memchr::memchr(0, bytes);
    let invalid = std::str::from_utf8(bytes)
        .err()
        .filter(|e| e.error_len().is_some())
        .map(|e| e.valid_up_to());
    match (nul, invalid) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A command that reads stdin says so on stderr when stdin is a terminal: otherwise it looks
/// hung while it waits for input that never comes.
pub fn say_when_stdin_is_a_terminal(command: &str) {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        eprintln!(
            "agentguard {command}: reading the text from stdin (type or paste it, then Ctrl-D; \
             or pass a FILE)"
        );
    }
}

#[cfg(test)]
mod binary_tests {
    use super::binary_offset;

    #[test]
    fn binary_is_a_nul_or_invalid_utf8() {
        assert_eq!(binary_offset("grüße".as_bytes()), None);
        assert_eq!(binary_offset(b"ab\0cd"), Some(2));
        assert_eq!(binary_offset(b"abc\xff\0"), Some(3));
        assert_eq!(binary_offset(b""), None);
        let cut = &"ab€".as_bytes()[..3];
        assert_eq!(binary_offset(cut), Some(2));
        assert_eq!(super::binary_offset_in_prefix(cut), None);
        assert_eq!(super::binary_offset_in_prefix(b"a\xffb"), Some(1));
    }

    #[test]
    fn sha256_hex_is_the_known_digest() {
        assert_eq!(
            super::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn glob_matches_whole_names() {
        use super::glob_match;
        assert!(glob_match("mcp__docs__*", "mcp__docs__search"));
        assert!(glob_match("mcp__*__read_?", "mcp__fs__read_a"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "axxbyyc"));
        assert!(!glob_match("mcp__docs__*", "mcp__docs"));
        assert!(!glob_match("mcp__docs", "mcp__docs__search"));
        assert!(!glob_match("a*b", "acb_"));
    }
}
