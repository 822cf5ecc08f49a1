//! Small text helpers shared by the core.

use sha2::{Digest, Sha256};

/// Hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first 16 hex digits of the SHA-256: enough to tell passages apart in one session.
pub fn short_hash(text: &str) -> String {
    sha256_hex(text)[..16].to_string()
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
