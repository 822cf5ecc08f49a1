//! `hook::read_input` on raw bytes, and on Stop / PreToolUse payloads whose values are fuzzed
//! (so the fuzzer reaches the typed fields, not only the JSON syntax errors).
#![no_main]

use agentguard::hosts::Host;
use agentguard::hook::{self, Permission};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

fn exercise(bytes: &[u8]) {
    if let Ok(input) = hook::read_input(bytes) {
        let _ = input.turn();
        let _ = input.judged_transcript();
        if let Some(command) = input.command() {
            let _ = hook::pre_tool(Host::Codex, Permission::Ask, command);
            let _ = hook::pre_tool(Host::Claude, Permission::Deny, command);
        }
        if let Some(message) = &input.last_assistant_message {
            let _ = hook::stop_block(message, Some(message));
            let _ = hook::system_message(message);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    exercise(data);
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, '\u{0}');
    let (a, b, c) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    let stop = json!({
        "session_id": a, "transcript_path": b, "cwd": c, "hook_event_name": "Stop",
        "prompt_id": a, "stop_hook_active": !a.is_empty(), "last_assistant_message": c,
    });
    exercise(stop.to_string().as_bytes());
    let tool_input: serde_json::Value =
        serde_json::from_str(c).unwrap_or_else(|_| json!({ "command": c }));
    let pre_tool = json!({
        "session_id": a, "transcript_path": b, "cwd": "/tmp", "hook_event_name": "PreToolUse",
        "tool_name": b, "tool_input": tool_input, "agent_type": a, "turn_id": b,
    });
    exercise(pre_tool.to_string().as_bytes());
});
