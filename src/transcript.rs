//! The agent's text since the last real user turn, read from the END of a transcript file.
//!
//! Sessions grow to tens of MB; a stop hook must not pay for the whole file. The file is read
//! backwards in blocks, one line at a time, until the last real user line is found (or enough
//! text was collected, or a read bound is reached).
//!
//! Two formats are understood:
//! - Claude Code: `{"type":"assistant","message":{"content":[{"type":"text","text":..}]}}`; a
//!   real user line is `type:"user"`, not `isMeta`, not `isSidechain`, with no `tool_result`.
//! - Codex rollouts: `{"type":"response_item","payload":{"type":"message","role":..,
//!   "content":[{"type":"output_text"|"input_text","text":..}]}}`; user messages that carry
//!   injected context (`<environment_context>`, `<user_instructions>`) are not user turns.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

/// How far back from the end we are willing to read while looking for the turn's start.
const MAX_READ_BACK: u64 = 64 * 1024 * 1024;
const BLOCK: usize = 64 * 1024;

/// The assistant text of the current turn, oldest first, joined by blank lines. Stops early
/// once `max_bytes` of text were collected (the newest text is kept).
pub fn current_turn_text(path: &Path, max_bytes: usize) -> std::io::Result<String> {
    let mut file = File::open(path)?;
    let mut pieces: Vec<String> = Vec::new();
    let mut collected = 0usize;
    for line in ReverseLines::new(&mut file)? {
        let line = line?;
        match classify(&line) {
            Line::UserTurn => break,
            Line::AssistantText(texts) => {
                for text in texts.into_iter().rev() {
                    collected += text.len();
                    pieces.push(text);
                }
                if collected >= max_bytes {
                    break;
                }
            }
            Line::Other => {}
        }
    }
    pieces.reverse();
    Ok(pieces.join("\n\n"))
}

/// The judged text of a Stop: the transcript's turn text, with the race-free
/// `last_assistant_message` appended when the transcript lags behind it.
pub fn stop_text(turn: Option<String>, last_assistant_message: Option<&str>) -> String {
    let mut text = turn.unwrap_or_default();
    if let Some(last) = last_assistant_message
        .map(str::trim)
        .filter(|m| !m.is_empty())
        && !text.trim_end().ends_with(last)
    {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(last);
    }
    text
}

enum Line {
    UserTurn,
    AssistantText(Vec<String>),
    Other,
}

fn classify(line: &[u8]) -> Line {
    // Most lines of a transcript are neither (attachments, API blobs, progress): a substring
    // test is much cheaper than parsing them.
    let looks_relevant = memchr::memmem::find(line, b"\"assistant\"").is_some()
        || memchr::memmem::find(line, b"\"user\"").is_some();
    if !looks_relevant {
        return Line::Other;
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Line::Other;
    };
    match value.get("type").and_then(Value::as_str) {
        Some("user") => claude_user(&value),
        Some("assistant") => claude_assistant(&value),
        Some("response_item") => codex_item(value.get("payload").unwrap_or(&Value::Null)),
        _ => Line::Other,
    }
}

fn is_true(value: &Value, key: &str) -> bool {
    value.get(key).and_then(Value::as_bool) == Some(true)
}

fn claude_user(value: &Value) -> Line {
    if is_true(value, "isMeta") || is_true(value, "isSidechain") {
        return Line::Other;
    }
    let content = value.pointer("/message/content");
    let has_tool_result = content.and_then(Value::as_array).is_some_and(|blocks| {
        blocks
            .iter()
            .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
    });
    if has_tool_result {
        Line::Other
    } else {
        Line::UserTurn
    }
}

fn claude_assistant(value: &Value) -> Line {
    if is_true(value, "isSidechain") {
        return Line::Other;
    }
    let texts = value
        .pointer("/message/content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Line::AssistantText(texts)
}

fn codex_item(payload: &Value) -> Line {
    if payload.get("type").and_then(Value::as_str) != Some("message") {
        return Line::Other;
    }
    let texts: Vec<String> = payload
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    match payload.get("role").and_then(Value::as_str) {
        Some("assistant") => Line::AssistantText(texts),
        Some("user") => {
            let injected = texts.iter().all(|t| {
                let t = t.trim_start();
                t.starts_with("<environment_context>") || t.starts_with("<user_instructions>")
            });
            if injected && !texts.is_empty() {
                Line::Other
            } else {
                Line::UserTurn
            }
        }
        _ => Line::Other,
    }
}

/// Lines of a file from the last to the first, read in blocks from the end.
struct ReverseLines<'a> {
    file: &'a mut File,
    /// File offset of the start of `buffer`.
    position: u64,
    /// Bytes not yet returned, from `position` on; its first line may be partial.
    buffer: Vec<u8>,
    /// How many bytes have been read so far.
    read: u64,
    done: bool,
}

impl<'a> ReverseLines<'a> {
    fn new(file: &'a mut File) -> std::io::Result<Self> {
        let len = file.seek(SeekFrom::End(0))?;
        Ok(ReverseLines {
            file,
            position: len,
            buffer: Vec::new(),
            read: 0,
            done: false,
        })
    }

    /// Prepends the previous block to the buffer; false at the start of the file or the bound.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.position == 0 || self.read >= MAX_READ_BACK {
            return Ok(false);
        }
        let size = (BLOCK as u64).min(self.position) as usize;
        self.position -= size as u64;
        self.file.seek(SeekFrom::Start(self.position))?;
        let mut block = vec![0u8; size];
        self.file.read_exact(&mut block)?;
        self.read += size as u64;
        block.extend_from_slice(&self.buffer);
        self.buffer = block;
        Ok(true)
    }
}

impl Iterator for ReverseLines<'_> {
    type Item = std::io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            // Ignore the trailing newline(s) of the file or of the previous line.
            while self.buffer.last() == Some(&b'\n') {
                self.buffer.pop();
            }
            if let Some(newline) = self.buffer.iter().rposition(|&b| b == b'\n') {
                let line = self.buffer.split_off(newline + 1);
                self.buffer.pop();
                return Some(Ok(line));
            }
            match self.fill() {
                Ok(true) => continue,
                Ok(false) => {
                    self.done = true;
                    // At the start of the file the buffer is a whole first line; at the read
                    // bound it is a partial line, which must not be parsed as a line.
                    let complete = self.position == 0;
                    let line = std::mem::take(&mut self.buffer);
                    return (complete && !line.is_empty()).then_some(Ok(line));
                }
                Err(err) => {
                    self.done = true;
                    return Some(Err(err));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn user(text: &str) -> String {
        serde_json::json!({"type":"user","message":{"role":"user","content":text}}).to_string()
    }
    fn assistant(text: &str) -> String {
        serde_json::json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":text}]}}).to_string()
    }
    fn tool_result() -> String {
        serde_json::json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ok"}]}}).to_string()
    }
    fn meta(text: &str) -> String {
        serde_json::json!({"type":"user","isMeta":true,"message":{"role":"user","content":text}})
            .to_string()
    }

    fn write(lines: &[String]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        for line in lines {
            writeln!(file, "{line}").unwrap();
        }
        file
    }

    #[test]
    fn turn_starts_after_the_last_real_user_line() {
        let file = write(&[
            user("first"),
            assistant("old answer"),
            user("second"),
            assistant("Running tests."),
            tool_result(),
            meta("Stop hook feedback: ..."),
            assistant("All done."),
        ]);
        let text = current_turn_text(file.path(), 1 << 20).unwrap();
        assert_eq!(text, "Running tests.\n\nAll done.");
    }

    #[test]
    fn real_claude_transcript_sample() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/2.1.332.transcript_rich.jsonl");
        let text = current_turn_text(&path, 1 << 20).unwrap();
        assert_eq!(
            text,
            "Running echo now.\n\nEcho printed hi-from-bash. All tests pass.\n\nUnderstood, retracting: tests were not run."
        );
    }

    #[test]
    fn codex_rollout_lines() {
        let item = |role: &str, kind: &str, text: &str| {
            serde_json::json!({"type":"response_item","payload":{"type":"message","role":role,"content":[{"type":kind,"text":text}]}}).to_string()
        };
        let file = write(&[
            item(
                "user",
                "input_text",
                "<environment_context>cwd</environment_context>",
            ),
            item("user", "input_text", "fix it"),
            item("assistant", "output_text", "Fixed. Shall I push?"),
        ]);
        assert_eq!(
            current_turn_text(file.path(), 1 << 20).unwrap(),
            "Fixed. Shall I push?"
        );
    }

    #[test]
    fn lines_longer_than_a_block_and_a_partial_last_line() {
        let long = "y".repeat(BLOCK * 3);
        let mut file = write(&[user("q"), assistant(&long), assistant("end")]);
        write!(file, "{{\"type\":\"assistant\",\"mess").unwrap();
        let text = current_turn_text(file.path(), 1 << 20).unwrap();
        assert_eq!(text, format!("{long}\n\nend"));
    }

    #[test]
    fn stops_collecting_at_max_bytes_keeping_the_newest() {
        let file = write(&[user("q"), assistant("old"), assistant("newest")]);
        assert_eq!(current_turn_text(file.path(), 3).unwrap(), "newest");
    }

    #[test]
    fn lagging_transcript_gets_last_assistant_message() {
        assert_eq!(stop_text(Some("a".into()), Some("b")), "a\n\nb");
        assert_eq!(stop_text(Some("a\n\nb".into()), Some("b")), "a\n\nb");
        assert_eq!(stop_text(None, Some("b")), "b");
        assert_eq!(stop_text(Some("a".into()), None), "a");
        assert_eq!(stop_text(None, Some("  ")), "");
    }
}
