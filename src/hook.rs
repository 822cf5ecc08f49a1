//! The hook protocol of Claude Code and Codex: what arrives on stdin, what we answer on stdout.
//!
//! Both hosts send one JSON object; unknown fields are ignored (the protocol grows every
//! month). Both read the same answers: `{"decision":"block","reason":..}` for a Stop block,
//! `hookSpecificOutput.permissionDecision` for PreToolUse, `systemMessage` for a line shown to
//! the user. Codex has no `ask`: where Claude Code would ask, Codex gets a `deny` whose reason
//! says how to approve.

use std::io::Read;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::hosts::Host;

/// Hook input larger than this is refused (and answered per the failure direction).
pub const MAX_INPUT_BYTES: u64 = 8 * 1024 * 1024;

/// The fields we read from a hook's stdin, for both hosts and every event we handle.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    pub hook_event_name: Option<String>,
    /// Claude Code: one per user prompt.
    pub prompt_id: Option<String>,
    /// Codex: one per turn.
    pub turn_id: Option<String>,
    pub stop_hook_active: Option<bool>,
    pub last_assistant_message: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub tool_use_id: Option<String>,
    /// Set in subagents (SubagentStop, and PreToolUse inside a subagent).
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub agent_transcript_path: Option<PathBuf>,
}

impl HookInput {
    /// The turn the loop guard counts blocks in.
    pub fn turn(&self) -> Option<&str> {
        self.prompt_id.as_deref().or(self.turn_id.as_deref())
    }

    /// The transcript to judge: a subagent's own transcript on SubagentStop.
    pub fn judged_transcript(&self) -> Option<&PathBuf> {
        self.agent_transcript_path
            .as_ref()
            .or(self.transcript_path.as_ref())
    }

    /// The shell command of a Bash-like tool call.
    pub fn command(&self) -> Option<&str> {
        self.tool_input.as_ref()?.get("command")?.as_str()
    }
}

/// Reads and parses the hook input; the error says what was wrong in one line.
pub fn read_input(reader: impl Read) -> Result<HookInput, String> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read the hook input: {err}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "the hook input is larger than {} MiB",
            MAX_INPUT_BYTES >> 20
        ));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("the hook input is empty".into());
    }
    serde_json::from_slice::<HookInput>(&bytes)
        .map_err(|err| format!("the hook input is not a hook JSON object ({err})"))
}

/// The permission answers of a PreToolUse hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    Allow,
    Ask,
    Deny,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Ask => "ask",
            Permission::Deny => "deny",
        }
    }
}

/// A Stop hook's answer.
pub fn stop_block(reason: &str, system_message: Option<&str>) -> Value {
    let mut out = json!({"decision": "block", "reason": reason});
    if let Some(message) = system_message {
        out["systemMessage"] = json!(message);
    }
    out
}

/// A Stop (or any) answer that only shows the user a line.
pub fn system_message(message: &str) -> Value {
    json!({"systemMessage": message})
}

/// A PreToolUse answer for `host`. Codex cannot ask: an `Ask` becomes a `Deny` whose reason
/// tells the user how to approve.
pub fn pre_tool(host: Host, permission: Permission, reason: &str) -> Value {
    let (permission, reason) = match (host, permission) {
        (Host::Codex, Permission::Ask) => (
            Permission::Deny,
            format!(
                "{reason}\n\nCodex cannot ask for approval from a hook, so agentguard denied the \
                 call. To approve it, the user runs the command themselves in a shell (or turns \
                 the gate off with `[pretool] destructive = false` in their agentguard config; a \
                 project's .agentguard.toml needs `agentguard trust` for that)."
            ),
        ),
        _ => (permission, reason.to_string()),
    };
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": permission.as_str(),
            "permissionDecisionReason": reason,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_real_claude_payloads_and_ignores_unknown_fields() {
        let stop = include_str!("../tests/fixtures/2.1.332.stop_stdin_first.json");
        let input = read_input(stop.as_bytes()).unwrap();
        assert_eq!(input.hook_event_name.as_deref(), Some("Stop"));
        assert_eq!(input.turn(), Some("5a819064-30d1-4243-8da8-b82225fc4f1c"));
        assert_eq!(
            input.last_assistant_message.as_deref(),
            Some("Hello! I fixed the bug and all tests pass.")
        );
        let pre = include_str!("../tests/fixtures/2.1.332.pretooluse_stdin.json");
        let input = read_input(pre.as_bytes()).unwrap();
        assert_eq!(input.command(), Some("git commit -m x"));
    }

    #[test]
    fn garbage_and_empty_input_are_errors() {
        assert!(read_input(&b""[..]).unwrap_err().contains("empty"));
        assert!(read_input(&b"  \n"[..]).unwrap_err().contains("empty"));
        assert!(
            read_input(&b"not json"[..])
                .unwrap_err()
                .contains("not a hook JSON object")
        );
        assert!(read_input(&b"[1,2]"[..]).is_err());
        let huge = vec![b' '; (MAX_INPUT_BYTES + 10) as usize];
        assert!(read_input(&huge[..]).unwrap_err().contains("larger"));
    }

    #[test]
    fn codex_has_no_ask() {
        let out = pre_tool(Host::Codex, Permission::Ask, "dangerous");
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert!(
            out["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("approve")
        );
        let out = pre_tool(Host::Claude, Permission::Ask, "dangerous");
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "ask");
    }
}
