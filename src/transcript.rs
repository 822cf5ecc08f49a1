//! The agent's text since the last real user turn, read from the END of a transcript file.
//!
//! Sessions grow to tens of MB; a stop hook must not pay for the whole file. The file is read
//! backwards in blocks, one line at a time, until the last real user line is found (or enough
//! text was collected, or a read bound is reached).
//!
//! Two formats are understood:
//! - Claude Code: `{"type":"assistant","message":{"content":[{"type":"text","text":..}]}}`; a
//!   real user line is `type:"user"`, not `isMeta`, not `isSidechain`, with no `tool_result`.
//!   Tool calls are `tool_use` blocks of assistant lines (Bash `command`, Edit/Write
//!   `file_path`); their results `tool_result` blocks of user lines (`is_error`, `Exit code N`).
//! - Codex rollouts: `{"type":"response_item","payload":{"type":"message","role":..,
//!   "content":[{"type":"output_text"|"input_text","text":..}]}}`; user messages that carry
//!   injected context (`<environment_context>`, `<user_instructions>`) or a hook's feedback
//!   (`<hook_prompt>`) are not user turns. Tool calls are `function_call` / `custom_tool_call`
//!   / `local_shell_call` payloads, their results `function_call_output` /
//!   `custom_tool_call_output` (exit code in a JSON `metadata` or an `Exit code: N` header).

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
    let mut pieces: Vec<String> = Vec::new();
    let mut collected = 0usize;
    for line in ReverseLines::new(File::open(path)?)? {
        let line = line?;
        match parse_entry(&line, Detail::Text) {
            Entry::UserTurn => break,
            Entry::Assistant { texts, .. } => {
                for text in texts.into_iter().rev() {
                    collected += text.len();
                    pieces.push(text);
                }
                if collected >= max_bytes {
                    break;
                }
            }
            Entry::Results(_) | Entry::Other => {}
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

/// Every entry of the transcript with its line's size in bytes, newest first, read from the
/// end (the evidence extractor stops when it has read back far enough). A read error ends the
/// entries and is kept in `error`.
pub struct EntriesFromEnd {
    lines: ReverseLines,
    pub error: Option<std::io::Error>,
}

impl EntriesFromEnd {
    pub fn open(path: &Path) -> std::io::Result<EntriesFromEnd> {
        Ok(EntriesFromEnd {
            lines: ReverseLines::new(File::open(path)?)?,
            error: None,
        })
    }
}

impl Iterator for EntriesFromEnd {
    type Item = (usize, Entry);

    fn next(&mut self) -> Option<Self::Item> {
        match self.lines.next()? {
            Ok(line) => Some((line.len() + 1, parse_entry(&line, Detail::Tools))),
            Err(err) => {
                self.error = Some(err);
                None
            }
        }
    }
}

/// One transcript line, as far as agentguard cares.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// A line the user wrote: the start of a turn.
    UserTurn,
    /// The agent's text blocks and tool calls.
    Assistant {
        texts: Vec<String>,
        calls: Vec<ToolCall>,
    },
    /// Results of earlier tool calls.
    Results(Vec<ToolResult>),
    Other,
}

/// A tool call: a shell command, a file edit, anything else by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// Pairs the call with its result.
    pub id: String,
    pub name: String,
    /// The shell command of a shell tool.
    pub command: Option<String>,
    /// The files an edit tool writes (Edit/Write/MultiEdit/NotebookEdit, apply_patch).
    pub edits: Vec<String>,
    /// The line's timestamp, as the host wrote it.
    pub at: Option<String>,
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    pub id: String,
    /// What the tool printed (for a shell: its output without the host's header).
    pub output: String,
    /// The host says the call failed (Claude Code `is_error`; a non-zero exit code).
    pub failed: Option<bool>,
    pub exit_code: Option<i64>,
}

/// How much of a line to read: the text alone (the judged text, on every stop), or the tool
/// calls and results too (the evidence, when a detector needs it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Text,
    Tools,
}

/// Tools of Claude Code that write files, and the input key naming the file.
const CLAUDE_EDIT_TOOLS: [(&str, &str); 4] = [
    ("Edit", "file_path"),
    ("Write", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// Codex user messages that the host injects (context, hook feedback): not a user's turn.
const CODEX_INJECTED: [&str; 4] = [
    "<environment_context>",
    "<user_instructions>",
    "<hook_prompt",
    "<turn_aborted>",
];

/// Parses one line of either host's transcript.
pub fn parse_entry(line: &[u8], detail: Detail) -> Entry {
    // Most lines of a transcript are neither (attachments, API blobs, progress): a substring
    // test is much cheaper than parsing them.
    let find = |needle: &[u8]| memchr::memmem::find(line, needle).is_some();
    let looks_relevant = find(b"\"assistant\"")
        || find(b"\"user\"")
        || (detail == Detail::Tools
            && (find(b"_call\"") || find(b"_call_output\"") || find(b"\"tool_use\"")));
    if !looks_relevant {
        return Entry::Other;
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Entry::Other;
    };
    let at = value
        .get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_string);
    match value.get("type").and_then(Value::as_str) {
        Some("user") => claude_user(&value, detail),
        Some("assistant") => claude_assistant(&value, detail, at),
        Some("response_item") => {
            codex_item(value.get("payload").unwrap_or(&Value::Null), detail, at)
        }
        _ => Entry::Other,
    }
}

fn is_true(value: &Value, key: &str) -> bool {
    value.get(key).and_then(Value::as_bool) == Some(true)
}

fn str_of<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

fn claude_user(value: &Value, detail: Detail) -> Entry {
    if is_true(value, "isMeta") || is_true(value, "isSidechain") {
        return Entry::Other;
    }
    let blocks = value.pointer("/message/content").and_then(Value::as_array);
    let results: Vec<&Value> = blocks
        .into_iter()
        .flatten()
        .filter(|b| str_of(b, "type") == Some("tool_result"))
        .collect();
    if results.is_empty() {
        return Entry::UserTurn;
    }
    if detail == Detail::Text {
        return Entry::Other;
    }
    Entry::Results(results.into_iter().map(claude_result).collect())
}

/// A Claude Code `tool_result`: a failed Bash call is `is_error` with `Exit code N` first.
fn claude_result(block: &Value) -> ToolResult {
    let output = match block.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| str_of(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let failed = block.get("is_error").and_then(Value::as_bool);
    let exit_code = match failed {
        Some(true) => output.strip_prefix("Exit code ").and_then(leading_int),
        Some(false) => Some(0),
        None => None,
    };
    ToolResult {
        id: str_of(block, "tool_use_id").unwrap_or_default().to_string(),
        output,
        failed,
        exit_code,
    }
}

fn leading_int(text: &str) -> Option<i64> {
    let text = text.trim_start();
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(text.len(), |(i, _)| i);
    text[..end].parse().ok()
}

fn claude_assistant(value: &Value, detail: Detail, at: Option<String>) -> Entry {
    if is_true(value, "isSidechain") {
        return Entry::Other;
    }
    let blocks = value
        .pointer("/message/content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let texts = blocks
        .iter()
        .filter(|b| str_of(b, "type") == Some("text"))
        .filter_map(|b| str_of(b, "text"))
        .map(str::to_string)
        .collect();
    let calls = match detail {
        Detail::Text => Vec::new(),
        Detail::Tools => blocks
            .iter()
            .filter(|b| str_of(b, "type") == Some("tool_use"))
            .map(|b| claude_call(b, at.clone()))
            .collect(),
    };
    Entry::Assistant { texts, calls }
}

fn claude_call(block: &Value, at: Option<String>) -> ToolCall {
    let name = str_of(block, "name").unwrap_or_default().to_string();
    let input = block.get("input").unwrap_or(&Value::Null);
    let edits = CLAUDE_EDIT_TOOLS
        .iter()
        .find(|(tool, _)| *tool == name)
        .and_then(|(_, key)| str_of(input, key))
        .map(|path| vec![path.to_string()])
        .unwrap_or_default();
    let command = (name == "Bash")
        .then(|| str_of(input, "command").map(str::to_string))
        .flatten();
    ToolCall {
        id: str_of(block, "id").unwrap_or_default().to_string(),
        name,
        command,
        edits,
        at,
    }
}

fn codex_item(payload: &Value, detail: Detail, at: Option<String>) -> Entry {
    match str_of(payload, "type") {
        Some("message") => codex_message(payload),
        Some("function_call" | "custom_tool_call" | "local_shell_call")
            if detail == Detail::Tools =>
        {
            Entry::Assistant {
                texts: Vec::new(),
                calls: vec![codex_call(payload, at)],
            }
        }
        Some("function_call_output" | "custom_tool_call_output") if detail == Detail::Tools => {
            Entry::Results(vec![codex_result(payload)])
        }
        _ => Entry::Other,
    }
}

fn codex_message(payload: &Value) -> Entry {
    let texts: Vec<String> = payload
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| str_of(b, "text"))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    match str_of(payload, "role") {
        Some("assistant") => Entry::Assistant {
            texts,
            calls: Vec::new(),
        },
        Some("user") => {
            let injected = texts.iter().all(|t| {
                let t = t.trim_start();
                CODEX_INJECTED.iter().any(|tag| t.starts_with(tag))
            });
            if injected && !texts.is_empty() {
                Entry::Other
            } else {
                Entry::UserTurn
            }
        }
        _ => Entry::Other,
    }
}

/// A Codex tool call: `shell` (argv), `exec_command` (`cmd`), `local_shell_call` (an exec
/// action), `apply_patch` (a function or custom tool carrying the patch).
fn codex_call(payload: &Value, at: Option<String>) -> ToolCall {
    let name = str_of(payload, "name")
        .unwrap_or_else(|| str_of(payload, "type").unwrap_or_default())
        .to_string();
    // Function arguments are a JSON document in a string.
    let arguments: Value = str_of(payload, "arguments")
        .and_then(|a| serde_json::from_str(a).ok())
        .unwrap_or(Value::Null);
    let argv = arguments
        .get("command")
        .or_else(|| payload.pointer("/action/command"))
        .and_then(Value::as_array)
        .map(|argv| argv.iter().filter_map(Value::as_str).collect::<Vec<_>>());
    let mut command = str_of(&arguments, "cmd")
        .map(str::to_string)
        .or_else(|| argv.as_deref().map(shell_line));
    let patch = str_of(payload, "input")
        .or_else(|| str_of(&arguments, "input"))
        .or_else(|| str_of(&arguments, "patch"))
        .filter(|_| name == "apply_patch")
        .or_else(|| {
            argv.as_deref()
                .filter(|argv| argv.first() == Some(&"apply_patch"))
                .and_then(|argv| argv.get(1).copied())
        });
    let edits = patch
        .map(|patch| {
            crate::protected::patch_files(patch)
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if !edits.is_empty() {
        command = None;
    }
    ToolCall {
        id: str_of(payload, "call_id").unwrap_or_default().to_string(),
        name,
        command,
        edits,
        at,
    }
}

/// The command line of an argv: the script of `bash -lc SCRIPT`, else the words joined.
fn shell_line(argv: &[&str]) -> String {
    match argv {
        [shell, flag, script, ..]
            if matches!(
                *shell,
                "bash" | "sh" | "zsh" | "/bin/bash" | "/bin/sh" | "/bin/zsh"
            ) && matches!(*flag, "-c" | "-lc" | "-ic") =>
        {
            script.to_string()
        }
        _ => shlex::try_join(argv.iter().copied()).unwrap_or_else(|_| argv.join(" ")),
    }
}

/// A Codex tool output: a JSON document `{"output", "metadata": {"exit_code"}}`, or text
/// with an `Exit code: N` / `Process exited with code N` header before `Output:`.
fn codex_result(payload: &Value) -> ToolResult {
    let id = str_of(payload, "call_id").unwrap_or_default().to_string();
    let raw = match payload.get("output") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Object(object)) => str_of(&Value::Object(object.clone()), "content")
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    };
    if let Ok(document) = serde_json::from_str::<Value>(&raw)
        && let Some(output) = str_of(&document, "output")
    {
        let exit_code = document
            .pointer("/metadata/exit_code")
            .and_then(Value::as_i64);
        return ToolResult {
            id,
            output: output.to_string(),
            failed: exit_code.map(|code| code != 0),
            exit_code,
        };
    }
    let (header, body) = match raw.split_once("\nOutput:\n") {
        Some((header, body)) => (header, body.to_string()),
        None => ("", raw.clone()),
    };
    let exit_code = header.lines().find_map(|line| {
        line.strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))
            .and_then(leading_int)
    });
    ToolResult {
        id,
        output: if header.is_empty() { raw } else { body },
        failed: exit_code.map(|code| code != 0),
        exit_code,
    }
}

/// Lines of a file from the last to the first, read in blocks from the end.
struct ReverseLines {
    file: File,
    /// File offset of the start of `buffer`.
    position: u64,
    /// Bytes not yet returned, from `position` on; its first line may be partial.
    buffer: Vec<u8>,
    /// How many bytes have been read so far.
    read: u64,
    done: bool,
}

impl ReverseLines {
    fn new(mut file: File) -> std::io::Result<Self> {
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

impl Iterator for ReverseLines {
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
        // A Stop hook's feedback is injected as a user message: the turn goes on through it.
        let file = write(&[
            item("user", "input_text", "fix it"),
            item("assistant", "output_text", "Shall I push?"),
            item(
                "user",
                "input_text",
                "<hook_prompt hook_run_id=\"stop:2\">agentguard: run the checks</hook_prompt>",
            ),
            item("assistant", "output_text", "Tests pass."),
        ]);
        assert_eq!(
            current_turn_text(file.path(), 1 << 20).unwrap(),
            "Shall I push?\n\nTests pass."
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
