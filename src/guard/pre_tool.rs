//! The PreToolUse decision: a read-only role may not write, and destructive commands need the
//! user's approval. Both read one shell analysis of the command (`shell::CommandAnalysis`):
//! the read-only allowlist and the dangerous gate, over the same program specs.

use crate::config::Config;
use crate::detectors::{Detector, Detectors, Event};
use crate::hook::HookInput;
use crate::hosts::Host;
use crate::pipeline::{self, Judge, Judgement, Pipeline, Verdict};
use crate::protected::Protected;
use crate::shell::{self, ReadOnlyVerdict};

use super::{Action, Decision, unjudged_tool};

/// The environment variable that marks a process as a reviewer (`agentguard launch` sets it).
pub const ROLE_VAR: &str = "AGENTGUARD_ROLE";
/// The value of [`ROLE_VAR`] for a read-only reviewer.
pub const ROLE_READ_ONLY: &str = "read-only";
/// What a read-only reviewer is told: in its prompt, and with every denial.
pub const READ_ONLY_RULE: &str = include_str!("../../assets/readonly-rule.md");

/// Tools that write files directly.
const EDIT_TOOLS: [&str; 5] = ["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"];

/// The prefix of MCP tool names (`mcp__<server>__<tool>`).
const MCP_PREFIX: &str = "mcp__";

/// The shell analysis of a tool call's command, if it has one: [`decide`] reads it.
pub type Analysed = Option<Result<shell::CommandAnalysis, shell::ParseError>>;

/// The analysis [`decide`] needs for `input`. The caller keeps it: the hook leaves it to the
/// process's end rather than free thousands of allocations.
pub fn analyse(input: &HookInput) -> Analysed {
    input.command().map(shell::analyze)
}

/// The decision on one tool call, given its command's analysis (`analyse`). `role` is the
/// value of [`ROLE_VAR`] in the hook's environment; `protected`, where agentguard's own files
/// and the hosts' hook settings live.
pub fn decide(
    host: Host,
    input: &HookInput,
    analysis: &Analysed,
    role: Option<&str>,
    config: &Config,
    detectors: &Detectors,
    protected: &Protected,
) -> Decision {
    let tool = input.tool_name.as_deref().unwrap_or("");
    let command = input.command();
    // One analysis serves the guard of agentguard's own files, the read-only verdict and the
    // dangerous gate.
    let role = read_only_role(input, role, config);
    if let Some(hit) =
        protected.tool_writes(tool, input.tool_input.as_ref(), command, analysis.as_ref())
    {
        // Codex cannot ask; a read-only role never writes: deny. Otherwise the user decides.
        let action = match (host, &role) {
            (Host::Claude, None) => Action::Ask,
            _ => Action::Deny,
        };
        return Decision {
            action,
            verdict: Verdict::Violation,
            rule: Some("protected-file".into()),
            message: Some(crate::protected::hold_reason(&hit)),
            ..Decision::allow()
        };
    }
    if let Some(role) = role {
        let verdict = if EDIT_TOOLS.contains(&tool) {
            Some(("edit-tool".to_string(), format!("`{tool}` writes files")))
        } else if tool.starts_with(MCP_PREFIX) {
            (!config.readonly.is_mcp_reader(tool)).then(|| {
                (
                    "mcp-tool".to_string(),
                    format!("`{tool}` is an MCP tool not listed in [readonly] mcp_readers"),
                )
            })
        } else {
            let verdict = match analysis {
                Some(Ok(analysis)) => analysis.read_only(),
                Some(Err(err)) => ReadOnlyVerdict::Deny {
                    kind: err.kind,
                    detail: err.detail.clone(),
                },
                None => ReadOnlyVerdict::Allow,
            };
            match verdict {
                ReadOnlyVerdict::Allow => None,
                ReadOnlyVerdict::Deny { kind, detail } => Some((
                    kind.as_str().to_string(),
                    format!("`{detail}` {}", kind.describe()),
                )),
            }
        };
        if let Some((rule, what)) = verdict {
            let reason = format!(
                "agentguard denied this call: {what}, and this step is read-only ({role}).\n\n{}",
                READ_ONLY_RULE.trim()
            );
            return Decision {
                action: Action::Deny,
                verdict: Verdict::Violation,
                rule: Some(format!("read-only:{rule}")),
                message: Some(reason),
                ..Decision::allow()
            };
        }
    }
    let Some(command) = command.filter(|_| config.pretool.destructive) else {
        return Decision::allow();
    };
    // A command the analysis cannot read is held (fail-safe).
    let hold = match analysis {
        Some(Ok(analysis)) => analysis.dangerous(),
        Some(Err(err)) => Some(shell::unanalysable(err)),
        None => None,
    };
    match hold {
        Some(hold) => gate_hold(host, command, &hold, config, detectors),
        // The user's own pre-tool detectors still run over the command.
        None => gate_detectors(host, command, config, detectors),
    }
}

/// Whether the agent calling this tool is a read-only reviewer, and by which setting.
fn read_only_role(input: &HookInput, role: Option<&str>, config: &Config) -> Option<String> {
    if role == Some(ROLE_READ_ONLY) {
        return Some(format!("{ROLE_VAR}={ROLE_READ_ONLY}"));
    }
    if let Some(agent_type) = &input.agent_type
        && config.readonly.agent_types.iter().any(|t| t == agent_type)
    {
        return Some(format!(
            "agent type `{agent_type}` is read-only in [readonly] agent_types"
        ));
    }
    config
        .readonly
        .project
        .then(|| "[readonly] project = true".to_string())
}

/// The detector whose judge decides, with `[pretool] judge = true`, whether a command the
/// gate holds was requested by the user.
const DESTRUCTIVE: &str = "destructive";

/// A command the gate holds needs the user's approval, with the rule and the safer route.
/// With `[pretool] judge = true` the `destructive` detector's judge is asked first whether the
/// user requested exactly this: then it runs. A command its pre-filter misses is not judged
/// and stays held; a judge failure holds too.
fn gate_hold(
    host: Host,
    command: &str,
    hold: &shell::Hold,
    config: &Config,
    detectors: &Detectors,
) -> Decision {
    let mut message = format!("agentguard held this command: {}", hold.reason());
    let mut decision = Decision {
        verdict: Verdict::Violation,
        rule: Some(hold.rule.clone()),
        ..Decision::approval(host)
    };
    if config.pretool.judge
        && let Some(detector) = detectors.get(DESTRUCTIVE)
    {
        decision.detectors_run = vec![detector.name.clone()];
        let judged = Pipeline::new(vec![detector])
            .and_then(|pipeline| Judge::for_command(config).judge(&pipeline, command));
        match judged {
            Ok(judgement) => {
                let outcome = judgement.detectors.first();
                match outcome.map(|o| o.verdict) {
                    Some(Verdict::Violation) => {
                        message = format!("{message}\n\n{}", detector.feedback.trim());
                    }
                    Some(Verdict::Fail) => {
                        let why = outcome
                            .and_then(|o| o.error.as_deref())
                            .unwrap_or("the judge failed");
                        message = format!("{message}\n\n{}", unjudged_tool(why));
                    }
                    // Judged, and not destructive-and-unrequested: the user asked for it.
                    Some(_) if !judgement.decided_by_layer1() => {
                        return Decision {
                            verdict: judgement.verdict,
                            detectors_run: decision.detectors_run,
                            judgement: Some(judgement),
                            ..Decision::allow()
                        };
                    }
                    _ => {}
                }
                decision.judgement = Some(judgement);
            }
            Err(err) => {
                message = format!("{message}\n\n{}", unjudged_tool(&err.message));
                decision.error = Some(err.message);
            }
        }
    }
    decision.message = Some(message);
    decision
}

/// The user's own pre-tool detectors over the command: a hit (or a failed judge) needs the
/// user's approval. The built-in `destructive` detector is the gate's judge, not one of them.
fn gate_detectors(host: Host, text: &str, config: &Config, detectors: &Detectors) -> Decision {
    let selected: Vec<&Detector> = match detectors.select(Event::PreTool, &[]) {
        Ok(selected) => selected
            .into_iter()
            .filter(|detector| detector.name != DESTRUCTIVE)
            .collect(),
        Err(_) => Vec::new(),
    };
    if selected.is_empty() {
        return Decision::allow();
    }
    let detectors_run: Vec<String> = selected.iter().map(|d| d.name.clone()).collect();
    let result = Pipeline::new(selected.clone()).and_then(|pipeline| {
        if config.pretool.judge {
            Judge::for_command(config).judge(&pipeline, text)
        } else {
            pipeline
                .layer1(text)
                .map(|layer1| layer1_only(&selected, layer1))
        }
    });
    let judgement = match result {
        Ok(judgement) => judgement,
        Err(err) => {
            return Decision {
                detectors_run,
                ..Decision::failed(Event::PreTool, host, err.message)
            };
        }
    };
    let flagged: Vec<_> = judgement
        .detectors
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Violation | Verdict::Fail))
        .collect();
    if flagged.is_empty() {
        return Decision {
            verdict: judgement.verdict,
            detectors_run,
            judgement: Some(judgement),
            ..Decision::allow()
        };
    }
    let reason = flagged
        .iter()
        .map(|o| match o.verdict {
            Verdict::Fail => unjudged_tool(o.error.as_deref().unwrap_or("the judge failed")),
            _ => detectors
                .get(&o.detector)
                .map(|d| d.feedback.trim().to_string())
                .unwrap_or_default(),
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let rule = flagged
        .iter()
        .map(|o| o.detector.as_str())
        .collect::<Vec<_>>()
        .join(",");
    Decision {
        verdict: judgement.verdict,
        rule: Some(rule),
        message: Some(reason),
        detectors_run,
        judgement: Some(judgement),
        ..Decision::approval(host)
    }
}

/// A judgement from Layer 1 alone: a hit is a violation (the gate asks), a skip allows.
fn layer1_only(detectors: &[&Detector], layer1: Vec<pipeline::Layer1>) -> Judgement {
    let outcomes = detectors
        .iter()
        .zip(layer1)
        .map(|(detector, result)| pipeline::Outcome::from_layer1(detector, result))
        .collect();
    Judgement::from_outcomes(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(tool: &str, input: serde_json::Value, agent_type: Option<&str>) -> HookInput {
        HookInput {
            tool_name: Some(tool.into()),
            tool_input: Some(input),
            agent_type: agent_type.map(str::to_string),
            ..HookInput::default()
        }
    }

    fn bash(command: &str) -> HookInput {
        call("Bash", json!({ "command": command }), None)
    }

    fn decide_with(host: Host, input: &HookInput, role: Option<&str>, config: &Config) -> Decision {
        let detectors = Detectors::load(&config.detectors).unwrap();
        decide(
            host,
            input,
            &analyse(input),
            role,
            config,
            &detectors,
            &protected(),
        )
    }

    /// Protected paths under a fixed home, the project at `/home/u/proj`.
    fn protected() -> Protected {
        Protected::new(
            Some("/home/u".into()),
            "/home/u/proj".into(),
            Some("/home/u/.config/agentguard/config.toml".into()),
            Some("/home/u/.config/agentguard".into()),
            Some("/home/u/.local/state/agentguard".into()),
            vec!["/home/u/.local/share/agentguard".into()],
            Some("/home/u/.claude".into()),
            Some("/home/u/.codex".into()),
        )
    }

    #[test]
    fn writes_to_the_guard_ask_on_claude_and_deny_on_codex_and_in_a_read_only_role() {
        let config = Config::defaults();
        let write = call(
            "Write",
            json!({"file_path": "/home/u/proj/.agentguard.toml"}),
            None,
        );
        let claude = decide_with(Host::Claude, &write, None, &config);
        assert_eq!(claude.action, Action::Ask);
        assert_eq!(claude.rule.as_deref(), Some("protected-file"));
        assert_eq!(permission(&claude, Host::Claude).as_deref(), Some("ask"));
        let codex = decide_with(
            Host::Codex,
            &bash("echo x > ~/.codex/hooks.json"),
            None,
            &config,
        );
        assert_eq!(permission(&codex, Host::Codex).as_deref(), Some("deny"));
        let reason = codex.message.unwrap();
        assert!(reason.contains("does not edit its own guard"), "{reason}");
        assert!(!reason.contains("To approve it"), "{reason}");
        let reviewer = decide_with(Host::Claude, &write, Some(ROLE_READ_ONLY), &config);
        assert_eq!(reviewer.action, Action::Deny);
        let reading = decide_with(
            Host::Claude,
            &bash("cat ~/.claude/settings.json"),
            None,
            &config,
        );
        assert_eq!(reading.action, Action::Allow);
    }

    #[test]
    fn a_read_only_role_calls_only_listed_mcp_readers() {
        let mut config = Config::defaults();
        config.readonly.mcp_readers = vec!["mcp__docs__search*".into()];
        let search = call("mcp__docs__search", json!({"q": "x"}), None);
        let publish = call("mcp__docs__publish", json!({"q": "x"}), None);
        let role = Some(ROLE_READ_ONLY);
        assert_eq!(
            decide_with(Host::Claude, &search, role, &config).action,
            Action::Allow
        );
        let denied = decide_with(Host::Claude, &publish, role, &config);
        assert_eq!(denied.rule.as_deref(), Some("read-only:mcp-tool"));
        assert_eq!(
            decide_with(Host::Claude, &publish, None, &config).action,
            Action::Allow
        );
    }

    fn permission(decision: &Decision, host: Host) -> Option<String> {
        decision.answer(host).map(|answer| {
            answer["hookSpecificOutput"]["permissionDecision"]
                .as_str()
                .unwrap()
                .to_string()
        })
    }

    #[test]
    fn read_only_role_denies_edit_tools_and_writing_commands() {
        let config = Config::defaults();
        let edit = call("Edit", json!({"file_path": "a.rs"}), None);
        let decision = decide_with(Host::Claude, &edit, Some(ROLE_READ_ONLY), &config);
        assert_eq!(
            (decision.action, decision.verdict),
            (Action::Deny, Verdict::Violation)
        );
        assert_eq!(decision.rule.as_deref(), Some("read-only:edit-tool"));
        let message = decision.message.as_deref().unwrap();
        assert!(message.contains("(AGENTGUARD_ROLE=read-only)"), "{message}");
        assert!(message.contains(READ_ONLY_RULE.trim()));
        assert_eq!(permission(&decision, Host::Claude).as_deref(), Some("deny"));

        let commit = decide_with(
            Host::Claude,
            &bash("git commit -am x"),
            Some(ROLE_READ_ONLY),
            &config,
        );
        assert_eq!(commit.rule.as_deref(), Some("read-only:git-write"));
        let reading = decide_with(
            Host::Claude,
            &bash("git diff HEAD~1"),
            Some(ROLE_READ_ONLY),
            &config,
        );
        assert_eq!(reading.action, Action::Allow);
        // Outside the role, the same edit is the host's business.
        assert_eq!(
            decide_with(Host::Claude, &edit, None, &config).action,
            Action::Allow
        );
    }

    #[test]
    fn read_only_agent_types_and_project_come_from_the_config() {
        let mut config = Config::defaults();
        config.readonly.agent_types = vec!["code-reviewer".into()];
        let commit = call(
            "Bash",
            json!({"command": "git commit -am x"}),
            Some("code-reviewer"),
        );
        let decision = decide_with(Host::Claude, &commit, None, &config);
        assert_eq!(decision.action, Action::Deny);
        assert!(
            decision
                .message
                .unwrap()
                .contains("agent type `code-reviewer`")
        );
        let other = call(
            "Bash",
            json!({"command": "git commit -am x"}),
            Some("implementer"),
        );
        assert_eq!(
            decide_with(Host::Claude, &other, None, &config).action,
            Action::Allow
        );

        config.readonly.project = true;
        let decision = decide_with(Host::Claude, &bash("touch x"), None, &config);
        assert!(
            decision
                .message
                .unwrap()
                .contains("[readonly] project = true")
        );
    }

    #[test]
    fn unparseable_command_is_held_in_a_read_only_role() {
        let decision = decide_with(
            Host::Claude,
            &bash("echo (unbalanced"),
            Some(ROLE_READ_ONLY),
            &Config::defaults(),
        );
        assert_eq!(decision.action, Action::Deny);
        assert_eq!(decision.rule.as_deref(), Some("read-only:unparseable"));
    }

    #[test]
    fn destructive_command_asks_on_claude_and_denies_on_codex() {
        let config = Config::defaults();
        let push = bash("git push --force origin main");
        let claude = decide_with(Host::Claude, &push, None, &config);
        assert_eq!(
            (claude.action, claude.verdict),
            (Action::Ask, Verdict::Violation)
        );
        assert_eq!(claude.rule.as_deref(), Some("git.push-force"));
        assert_eq!(permission(&claude, Host::Claude).as_deref(), Some("ask"));

        let codex = decide_with(Host::Codex, &push, None, &config);
        assert_eq!(codex.action, Action::Deny);
        let answer = codex.answer(Host::Codex).unwrap();
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
        let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains("To approve it"), "{reason}");
    }

    #[test]
    fn everyday_commands_and_a_disabled_gate_pass() {
        let mut config = Config::defaults();
        for command in ["cargo test --all", "git status"] {
            let decision = decide_with(Host::Codex, &bash(command), None, &config);
            assert_eq!(decision.action, Action::Allow, "{command}");
            assert!(decision.answer(Host::Codex).is_none());
        }
        config.pretool.destructive = false;
        let push = bash("git push --force origin main");
        assert_eq!(
            decide_with(Host::Claude, &push, None, &config).action,
            Action::Allow
        );
    }

    #[test]
    fn unparseable_command_is_held_by_the_gate() {
        let decision = decide_with(
            Host::Claude,
            &bash("git push --force origin main; echo (unbalanced"),
            None,
            &Config::defaults(),
        );
        assert_eq!(decision.action, Action::Ask);
        assert_eq!(decision.rule.as_deref(), Some("shell.unparseable"));
    }

    #[test]
    fn a_hold_names_its_rule_and_the_safer_route() {
        let decision = decide_with(
            Host::Claude,
            &bash("cd repo && git reset --hard"),
            None,
            &Config::defaults(),
        );
        assert_eq!(decision.rule.as_deref(), Some("git.reset-hard"));
        let message = decision.message.unwrap();
        assert!(
            message.contains("`git reset --hard` discards uncommitted work (rule git.reset-hard)"),
            "{message}"
        );
        assert!(message.contains("Safer: "), "{message}");
    }
}
