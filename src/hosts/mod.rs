//! What agentguard knows about its agent hosts (Claude Code, Codex), in one place: their names,
//! the hook events, the hook entries we install and the command line in them
//! ([`command`]), and where each scope's settings live ([`locations`]). Adding a host starts
//! here. Editing a settings text is `settings`; answering a hook is `hook`.

pub mod command;
pub mod locations;

use clap::ValueEnum;

pub use command::{BINARY_NAMES, HookCall, OurCommand, is_agentguard_command, is_binary_name};
pub use locations::Format;

/// An agent host whose hooks agentguard answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Host {
    /// Claude Code
    Claude,
    /// OpenAI Codex CLI
    Codex,
}

impl Host {
    pub const ALL: [Host; 2] = [Host::Claude, Host::Codex];

    /// The host's name in the log and on the command line (`--host codex`).
    pub fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
        }
    }

    /// The host named `name` (`--host` values).
    pub fn parse(name: &str) -> Option<Host> {
        Host::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The tools that can write or run commands, as the host's PreToolUse matcher.
    pub fn pre_tool_matcher(self) -> &'static str {
        match self {
            Host::Claude => CLAUDE_PRE_TOOL_MATCHER,
            Host::Codex => CODEX_PRE_TOOL_MATCHER,
        }
    }
}

/// Which settings file of a host: the user's, the project's (shared), or the project's local one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    /// ~/.claude/settings.json, ~/.codex/
    User,
    /// .claude/settings.json in the project (shared with the team)
    Project,
    /// .claude/settings.local.json in the project (not committed)
    Local,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}

/// A hook event agentguard installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookEvent {
    Stop,
    SubagentStop,
    PreTool,
}

impl HookEvent {
    pub const ALL: [HookEvent; 3] = [HookEvent::Stop, HookEvent::SubagentStop, HookEvent::PreTool];
}

/// The key the host uses for an event.
pub fn event_key(event: HookEvent) -> &'static str {
    match event {
        HookEvent::Stop => "Stop",
        HookEvent::SubagentStop => "SubagentStop",
        HookEvent::PreTool => "PreToolUse",
    }
}

/// Stop and SubagentStop run the judge (an LLM call on a Layer 1 hit): its deadline plus margin.
pub const STOP_TIMEOUT_SECS: i64 = 60;
/// PreToolUse decides from rules only; the host waits this long at most.
pub const PRE_TOOL_TIMEOUT_SECS: i64 = 30;
/// The Claude Code tools that can write or run commands, and every MCP tool (`mcp__<server>__
/// <tool>`, denied in a read-only role unless listed in `[readonly] mcp_readers`). Claude Code
/// reads a matcher of plain names as a list and anything else as an unanchored JavaScript
/// regex, so the regex is anchored: `Write` must not match `TodoWrite`.
pub const CLAUDE_PRE_TOOL_MATCHER: &str = "^(Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.+)$";
/// The Codex tools that can write or run commands, and every MCP tool: Codex 0.171.0 sends
/// PreToolUse for each MCP call (nested in its code-mode `exec` tool too) with the tool name
/// `mcp__<server>__<tool>`. Anchored like Claude's, so only these names match.
pub const CODEX_PRE_TOOL_MATCHER: &str = "^(Bash|apply_patch|mcp__.+)$";

/// One hook entry agentguard wants in a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSpec {
    pub event: HookEvent,
    pub command: String,
    pub timeout: i64,
    pub matcher: Option<&'static str>,
}

/// The entries to install for `events`, running `program` (an absolute path).
pub fn hook_specs(host: Host, program: &str, events: &[HookEvent]) -> Vec<HookSpec> {
    let mut specs: Vec<HookSpec> = Vec::new();
    for &event in events {
        if specs.iter().any(|s| s.event == event) {
            continue;
        }
        let (call, timeout, matcher) = match event {
            HookEvent::Stop | HookEvent::SubagentStop => (HookCall::Stop, STOP_TIMEOUT_SECS, None),
            HookEvent::PreTool => (
                HookCall::PreTool,
                PRE_TOOL_TIMEOUT_SECS,
                Some(host.pre_tool_matcher()),
            ),
        };
        specs.push(HookSpec {
            event,
            command: command::format(program, call, host),
            timeout,
            matcher,
        });
    }
    specs
}

/// What the user does after an install so the host runs the new hooks.
pub fn after_install_note(host: Host, scope: Scope) -> String {
    let mut note = String::from(match host {
        Host::Claude => {
            "Claude Code reads hooks when a session starts: restart running sessions (or review \
             the hooks in /hooks).\n"
        }
        // Whether Codex trusts them is said by install itself, from the trust entries.
        Host::Codex => "",
    });
    if host == Host::Codex && scope == Scope::Project {
        note.push_str("Codex loads a project's hooks only once you trust the project.\n");
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_clap() {
        for host in Host::ALL {
            assert_eq!(Host::parse(host.name()), Some(host));
            assert_eq!(Host::from_str(host.name(), false), Ok(host));
        }
        for scope in [Scope::User, Scope::Project, Scope::Local] {
            assert_eq!(Scope::from_str(scope.name(), false), Ok(scope));
        }
        assert_eq!(Host::parse("gemini"), None);
    }

    #[test]
    fn specs_quote_the_program_name_the_host_and_skip_duplicates() {
        let specs = hook_specs(
            Host::Codex,
            "/opt/my tools/agentguard",
            &[HookEvent::Stop, HookEvent::Stop, HookEvent::PreTool],
        );
        assert_eq!(specs.len(), 2);
        assert_eq!(
            specs[0].command,
            "'/opt/my tools/agentguard' hook stop --host codex"
        );
        assert_eq!(specs[0].timeout, STOP_TIMEOUT_SECS);
        assert_eq!(specs[1].matcher, Some(CODEX_PRE_TOOL_MATCHER));
        assert!(specs.iter().all(|s| is_agentguard_command(&s.command)));
    }
}
