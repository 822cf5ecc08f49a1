//! The judge backend the hooks will use.

use super::{Check, CheckId};

/// Whether one backend could be used right now, and why (not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Availability {
    pub name: String,
    /// Some(why usable), or None.
    pub usable: Option<String>,
    /// Why it is not usable (shown when `auto` passed over it, or when it is configured).
    pub unusable: String,
}

/// How to make a backend usable.
fn backend_fix(name: &str, unusable: &str) -> String {
    match name {
        "codex" => {
            "install the Codex CLI (npm install -g @openai/codex) or set judge.codex.binary, \
                    or choose another backend: agentguard config set judge.backend rules"
                .into()
        }
        "claude" => "install Claude Code (npm install -g @anthropic-ai/claude-code) or set \
                     judge.claude.binary, or choose another backend: agentguard config set \
                     judge.backend rules"
            .into(),
        "openai" | "anthropic" => format!(
            "{unusable}: export it where the agent runs, or choose another backend: agentguard \
             config set judge.backend rules"
        ),
        "command" => "set judge.command.argv to an existing program, e.g. agentguard config set \
                      judge.command.argv '[\"/path/to/judge\"]'"
            .into(),
        _ => "agentguard config set judge.backend rules".into(),
    }
}

/// The backend the hooks will use: the configured one, or what `auto` resolves to (`auto`:
/// the resolved name and reason, as `backends::resolve_auto` gives them).
/// Returns the check and the chosen backend's name.
pub fn check_backend(
    configured: &str,
    auto_order: &[String],
    auto: &(String, String),
    availability: &[Availability],
) -> (Check, String) {
    let id = CheckId::Backend;
    let find = |name: &str| availability.iter().find(|a| a.name == name);
    if configured != "auto" {
        let Some(found) = find(configured) else {
            return (
                Check::fail(
                    id,
                    format!("judge backend `{configured}` is unknown"),
                    "agentguard config set judge.backend auto",
                ),
                configured.to_string(),
            );
        };
        let check = match &found.usable {
            Some(why) => Check::ok(
                id,
                format!("judge backend: {configured} (judge.backend; {why})"),
            ),
            None => Check::fail(
                id,
                format!(
                    "judge backend: {configured} (judge.backend) is not usable: {}; every Layer 1 \
                     hit fails (Stop lets it through, PreToolUse asks)",
                    found.unusable
                ),
                backend_fix(configured, &found.unusable),
            ),
        };
        return (check, configured.to_string());
    }
    let (chosen, reason) = auto;
    let passed_over: Vec<String> = auto_order
        .iter()
        .take_while(|name| *name != chosen)
        .filter_map(|name| find(name).map(|a| format!("{name}: {}", a.unusable)))
        .collect();
    let mut message = format!("judge backend: auto picked {chosen} ({reason})");
    if !passed_over.is_empty() {
        message.push_str(&format!("; passed over {}", passed_over.join("; ")));
    }
    let check = if chosen == "rules" {
        Check::warn(
            id,
            format!("{message}; the offline rules judge is less precise than an LLM"),
            "set an API key (OPENAI_API_KEY, ANTHROPIC_API_KEY) or install codex or claude, or \
             choose the rules judge explicitly: agentguard config set judge.backend rules",
        )
    } else {
        Check::ok(id, message)
    };
    (check, chosen.clone())
}
