//! Read-only launch of an agent CLI (SPEC §3): from the user's own arguments and the text of the
//! CLI's `--help`, the argv, environment and notes that start that CLI as a read-only reviewer.
//!
//! Pure: the help text is an input, so every flag added is one that the installed CLI shows (a
//! guessed flag kills the launch), and the merging is unit-tested per CLI. Conflicting flags
//! the user passed are removed first, because these parsers reject repeats (codex, xAI Grok
//! Build, gemini), let a later value win (claude) or silently fall back to a write-capable
//! default (opencode `--agent`).

use serde_json::Value;

use crate::error::{Error, Result};

/// An agent CLI `agentguard launch` can start as a read-only reviewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AgentCli {
    Claude,
    Codex,
    Grok,
    Opencode,
    Gemini,
}

// The paragraph every reviewer is given, and the variable that tells agentguard's PreToolUse
// hook to enforce the role: defined with the policy that enforces them.
pub use crate::guard::pre_tool::{READ_ONLY_RULE, ROLE_READ_ONLY, ROLE_VAR};

/// The opencode agent defined through `OPENCODE_CONFIG_CONTENT` and selected with `--agent`.
pub const OPENCODE_AGENT_NAME: &str = "agentguard-read-only";
const OPENCODE_CONFIG_VAR: &str = "OPENCODE_CONFIG_CONTENT";
/// The agent's description and `permission` rules (edit and subagents denied, bash writes
/// denied by pattern); its prompt is the rule.
const OPENCODE_AGENT: &str = include_str!("../assets/opencode-readonly-agent.json");

/// Claude Code tools removed from the model's tool list. Bash writes are left to the hook:
/// a deny rule per command would be a second, weaker copy of its shell parser. (MultiEdit is
/// not listed: 2.1.332 has no such tool and warns about a deny rule that matches nothing; an
/// older Claude Code that still offers it is held by the hook's matcher.)
const CLAUDE_DENIED_TOOLS: &str = "Edit,Write,NotebookEdit";

/// Permission modes that approve writes without asking (claude, xAI Grok Build): removed.
const WRITE_APPROVING_MODES: &[&str] = &["bypassPermissions", "acceptEdits", "auto"];

/// What to run: the CLI, its arguments, the variables added to the inherited environment, and
/// the notes for stderr (what was removed, what could not be applied and why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub notes: Vec<String>,
}

impl Launch {
    /// The program followed by its arguments.
    pub fn argv(&self) -> Vec<String> {
        std::iter::once(self.program.clone())
            .chain(self.args.iter().cloned())
            .collect()
    }
}

/// The command name of each CLI, looked up on PATH.
pub fn program(cli: AgentCli) -> &'static str {
    match cli {
        AgentCli::Claude => "claude",
        AgentCli::Codex => "codex",
        AgentCli::Grok => "grok",
        AgentCli::Opencode => "opencode",
        AgentCli::Gemini => "gemini",
    }
}

/// The `--help` text of the pinned version each CLI's launch was checked against (what the
/// test suite installs), and that version: for `--print`/`--json` when the CLI is not
/// installed here. Grok stands for xAI's Grok Build, the CLI named `grok` by its vendor.
pub fn pinned_help(cli: AgentCli) -> (&'static str, &'static str) {
    match cli {
        AgentCli::Claude => (
            "2.1.332",
            include_str!("../assets/cli-help/claude-2.1.332.txt"),
        ),
        AgentCli::Codex => (
            "0.171.0",
            include_str!("../assets/cli-help/codex-0.171.0.txt"),
        ),
        AgentCli::Grok => (
            "1.0.41",
            include_str!("../assets/cli-help/xai-grok-1.0.41.txt"),
        ),
        AgentCli::Opencode => (
            "1.18.33",
            include_str!("../assets/cli-help/opencode-1.18.33.txt"),
        ),
        AgentCli::Gemini => (
            "0.61.0",
            include_str!("../assets/cli-help/gemini-0.61.0.txt"),
        ),
    }
}

/// Builds the read-only launch of `cli` from the user's arguments and the CLI's `--help` text.
/// `inherited_env` reads the caller's environment (opencode's inline config is merged, not
/// replaced). Fails only on an inherited `OPENCODE_CONFIG_CONTENT` that is not a JSON object.
pub fn plan(
    cli: AgentCli,
    user_args: &[String],
    help: &str,
    inherited_env: impl Fn(&str) -> Option<String>,
) -> Result<Launch> {
    let (options, rest) = split_at_terminator(user_args);
    let mut plan = Plan {
        help,
        args: options,
        front: Vec::new(),
        back: Vec::new(),
        env: vec![(ROLE_VAR.to_string(), ROLE_READ_ONLY.to_string())],
        notes: Vec::new(),
    };
    match cli {
        AgentCli::Claude => plan.claude(),
        AgentCli::Codex => plan.codex(),
        AgentCli::Grok => plan.grok(),
        AgentCli::Opencode => plan.opencode(inherited_env(OPENCODE_CONFIG_VAR).as_deref())?,
        AgentCli::Gemini => plan.gemini(),
    }
    let Plan {
        front,
        args,
        back,
        env,
        notes,
        ..
    } = plan;
    let args = front
        .into_iter()
        .chain(args)
        .chain(back)
        .chain(rest)
        .collect();
    Ok(Launch {
        program: program(cli).to_string(),
        args,
        env,
        notes,
    })
}

/// The user's options (up to a `--`), and the `--` with everything after it, which is
/// positional for every parser involved and must stay last.
fn split_at_terminator(args: &[String]) -> (Vec<String>, Vec<String>) {
    match args.iter().position(|a| a == "--") {
        Some(at) => (args[..at].to_vec(), args[at..].to_vec()),
        None => (args.to_vec(), Vec::new()),
    }
}

/// A flag as the CLI's parser knows it.
struct Flag {
    long: &'static [&'static str],
    short: Option<char>,
    takes_value: bool,
}

const fn value_flag(long: &'static [&'static str], short: Option<char>) -> Flag {
    Flag {
        long,
        short,
        takes_value: true,
    }
}

const fn switch(long: &'static [&'static str], short: Option<char>) -> Flag {
    Flag {
        long,
        short,
        takes_value: false,
    }
}

/// One occurrence of a flag in the arguments: where, how many tokens, how it was spelled, and
/// its value.
struct Occurrence {
    at: usize,
    len: usize,
    spelled: String,
    value: Option<String>,
}

struct Plan<'a> {
    help: &'a str,
    /// The user's arguments before any `--`, minus what was removed.
    args: Vec<String>,
    /// Added before the user's arguments (global options ahead of a subcommand).
    front: Vec<String>,
    /// Added after the user's arguments (after a positional prompt).
    back: Vec<String>,
    env: Vec<(String, String)>,
    notes: Vec<String>,
}

impl Plan<'_> {
    /// Whether the CLI's help lists `flag` (a whole flag, not a prefix of a longer one).
    fn offers(&self, flag: &str) -> bool {
        help_offers(self.help, flag)
    }

    fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Every occurrence of `flag` in the user's arguments: `--long v`, `--long=v`, `-s v`,
    /// `-sv`, and switches alone or as `--long=true`.
    fn occurrences(&self, flag: &Flag) -> Vec<Occurrence> {
        let mut found = Vec::new();
        let mut i = 0;
        while i < self.args.len() {
            let token = self.args[i].as_str();
            let next = self.args.get(i + 1).filter(|_| flag.takes_value).cloned();
            let short = flag.short.map(|c| format!("-{c}"));
            let matched = if flag.long.contains(&token) || short.as_deref() == Some(token) {
                Some((if next.is_some() { 2 } else { 1 }, next))
            } else if let Some(value) = flag.long.iter().find_map(|long| {
                token
                    .strip_prefix(long)
                    .and_then(|rest| rest.strip_prefix('='))
            }) {
                Some((1, Some(value.to_string())))
            } else {
                short
                    .filter(|s| {
                        flag.takes_value && !token.starts_with("--") && token.len() > s.len()
                    })
                    .and_then(|s| token.strip_prefix(s.as_str()))
                    .map(|rest| (1, Some(rest.strip_prefix('=').unwrap_or(rest).to_string())))
            };
            match matched {
                Some((len, value)) => {
                    found.push(Occurrence {
                        at: i,
                        len,
                        spelled: token.to_string(),
                        value,
                    });
                    i += len;
                }
                None => i += 1,
            }
        }
        found
    }

    /// Removes every occurrence of `flag` and returns them in order.
    fn take(&mut self, flag: &Flag) -> Vec<Occurrence> {
        self.take_where(flag, |_| true)
    }

    /// Removes the occurrences of `flag` whose value `select` accepts; the others stay put.
    fn take_where(
        &mut self,
        flag: &Flag,
        select: impl Fn(Option<&str>) -> bool,
    ) -> Vec<Occurrence> {
        let taken: Vec<Occurrence> = self
            .occurrences(flag)
            .into_iter()
            .filter(|o| select(o.value.as_deref()))
            .collect();
        for occurrence in taken.iter().rev() {
            self.args
                .drain(occurrence.at..occurrence.at + occurrence.len);
        }
        taken
    }

    /// Removes switches that would override read-only, with a note for each one found.
    fn drop_overrides(&mut self, flags: &[Flag], why: &str) {
        for flag in flags {
            for removed in self.take(flag) {
                self.notes
                    .push(format!("removed `{}`: {why}", removed.spelled));
            }
        }
    }

    /// Removes a permission-mode flag; keeps the user's mode (the last one given) unless it
    /// approves writes by itself.
    fn keep_safe_permission_mode(&mut self, flag: &Flag) {
        let removed = self.take(flag);
        let Some(last) = removed.iter().rev().find_map(|r| r.value.clone()) else {
            return;
        };
        if WRITE_APPROVING_MODES.contains(&last.as_str()) {
            self.note(format!(
                "removed `{} {last}`: that mode approves writes for a read-only step",
                flag.long[0]
            ));
        } else {
            self.back.extend([flag.long[0].to_string(), last]);
        }
    }

    fn claude(&mut self) {
        self.drop_overrides(
            &[
                switch(&["--dangerously-skip-permissions"], None),
                switch(&["--allow-dangerously-skip-permissions"], None),
            ],
            "it bypasses the permission checks a read-only step relies on",
        );
        self.keep_safe_permission_mode(&value_flag(&["--permission-mode"], None));

        self.note(
            "shell writes are left to agentguard's PreToolUse hook, which acts only where \
             `agentguard install` has added it",
        );
        // The variadic `--disallowedTools <tools...>` swallows a following positional prompt;
        // the one-token `--flag=value` form ends at the token, so it is safe after a prompt.
        if self.offers("--disallowedTools") {
            self.back
                .push(format!("--disallowedTools={CLAUDE_DENIED_TOOLS}"));
        } else {
            self.note(
                "this claude does not offer --disallowedTools: Edit and Write stay in its tool \
                 list, only agentguard's PreToolUse hook and the written rule hold the step",
            );
        }
        // A repeated --append-system-prompt keeps only the last: merge the user's text with ours.
        let user_texts: Vec<String> = self
            .take(&value_flag(&["--append-system-prompt"], None))
            .into_iter()
            .filter_map(|r| r.value)
            .collect();
        if self.offers("--append-system-prompt") {
            let text = merged_text(&user_texts);
            self.back.push(format!("--append-system-prompt={text}"));
        } else {
            self.restore("--append-system-prompt", user_texts);
            self.note_no_system_prompt("claude", "--append-system-prompt");
        }
    }

    fn codex(&mut self) {
        self.drop_overrides(
            &[
                switch(
                    &["--dangerously-bypass-approvals-and-sandbox", "--yolo"],
                    None,
                ),
                switch(&["--full-auto"], None),
                switch(&["--approve-for-me"], None),
            ],
            "it overrides the read-only sandbox",
        );
        // codex rejects a repeated value flag, and a subcommand's own `-s` beats the global one.
        for (flag, ours) in [
            (value_flag(&["--sandbox"], Some('s')), "read-only"),
            (value_flag(&["--ask-for-approval"], Some('a')), "never"),
        ] {
            for removed in self.take(&flag) {
                let value = removed.value.unwrap_or_default();
                if value != ours {
                    self.notes.push(format!(
                        "removed `{} {value}`: replaced by {ours}",
                        removed.spelled
                    ));
                }
            }
        }
        let config = value_flag(&["--config"], Some('c'));
        let config_key = |value: Option<&str>| {
            value
                .unwrap_or("")
                .split('=')
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        };
        let conflicting = |value: Option<&str>| {
            matches!(
                config_key(value).as_str(),
                "sandbox_mode" | "approval_policy"
            )
        };
        for removed in self.take_where(&config, conflicting) {
            let value = removed.value.unwrap_or_default();
            self.notes.push(format!(
                "removed `{} {value}`: replaced for read-only",
                removed.spelled
            ));
        }
        let user_instructions = self
            .occurrences(&config)
            .iter()
            .any(|o| config_key(o.value.as_deref()) == "developer_instructions");

        if self.offers("--sandbox") {
            self.front.extend(["--sandbox".into(), "read-only".into()]);
            self.note(
                "the read-only sandbox also blocks build output (target/, node_modules/...): a \
                 test run that has to write fails there; the model should say so in its handoff",
            );
        } else {
            self.note(
                "this codex does not offer --sandbox: it starts with its configured sandbox, \
                 only the written rule holds the step",
            );
        }
        if self.offers("--ask-for-approval") {
            self.front
                .extend(["--ask-for-approval".into(), "never".into()]);
        }
        if user_instructions {
            self.note(
                "kept your `-c developer_instructions=...`: the read-only rule is not added to it, \
                 the sandbox still holds",
            );
        } else if self.offers("--config") {
            let value = format!(
                "developer_instructions={}",
                toml_basic_string(READ_ONLY_RULE)
            );
            self.front.extend(["--config".into(), value]);
        } else {
            self.note_no_system_prompt("codex", "--config developer_instructions");
        }
    }

    fn grok(&mut self) {
        if !self.offers("--deny") {
            // The npm @vibe-kit/grok-cli: no permission rules, no sandbox, no system prompt.
            self.note(
                "this grok (likely the npm @vibe-kit/grok-cli) has no read-only mode: it starts \
                 with the written rule only, which a model can ignore",
            );
            if !self.prepend_rule_to_prompt(&value_flag(&["--prompt"], Some('p')))
                && !self.prepend_rule_to_positional_prompt(VIBE_GROK_SUBCOMMANDS)
            {
                self.note_rule_needs_prompt("grok");
            }
            return;
        }
        self.drop_overrides(
            &[switch(&["--always-approve"], None)],
            "it approves every tool call of a read-only step",
        );
        self.keep_safe_permission_mode(&value_flag(&["--permission-mode"], None));
        // `--deny` is repeatable and "always enforced", in the TUI and headless alike.
        for tool in ["Edit", "Write"] {
            self.front.extend(["--deny".into(), tool.into()]);
        }
        // `--system-prompt-override` skips `--rules`: then the rule goes into the override.
        let override_flag = value_flag(&["--system-prompt-override", "--system-prompt"], None);
        let overrides: Vec<String> = self
            .take(&override_flag)
            .into_iter()
            .filter_map(|r| r.value)
            .collect();
        if let Some(last) = overrides.last() {
            let text = format!("{last}\n\n{READ_ONLY_RULE}");
            self.front.extend(["--system-prompt-override".into(), text]);
            return;
        }
        let rules_flag = value_flag(&["--rules", "--append-system-prompt"], None);
        let user_rules: Vec<String> = self
            .take(&rules_flag)
            .into_iter()
            .filter_map(|r| r.value)
            .collect();
        if self.offers("--rules") {
            self.front
                .extend(["--rules".into(), merged_text(&user_rules)]);
        } else {
            self.restore("--rules", user_rules);
            self.note_no_system_prompt("grok", "--rules");
        }
    }

    fn opencode(&mut self, inherited_config: Option<&str>) -> Result<()> {
        // A repeated --agent becomes "a,b", is not found, and opencode silently falls back to
        // its write-capable default agent: the user's agent has to go.
        for removed in self.take(&value_flag(&["--agent"], None)) {
            let value = removed.value.unwrap_or_default();
            if value != OPENCODE_AGENT_NAME {
                self.notes.push(format!(
                    "removed `--agent {value}`: the read-only agent `{OPENCODE_AGENT_NAME}` replaces it"
                ));
            }
        }
        if !self.offers("--agent") {
            self.note(
                "this opencode does not offer --agent: it starts with its default (write-capable) \
                 agent, without the read-only rule",
            );
            return Ok(());
        }
        let config = opencode_config(inherited_config)?;
        self.env.push((OPENCODE_CONFIG_VAR.to_string(), config));
        self.back
            .extend(["--agent".into(), OPENCODE_AGENT_NAME.into()]);
        self.note(
            "opencode runs no agentguard hook: shell writes are denied by command patterns only \
             (a redirection such as `> file` is not caught)",
        );
        Ok(())
    }

    fn gemini(&mut self) {
        self.drop_overrides(
            &[switch(&["--yolo"], Some('y'))],
            "it approves every action of a read-only step",
        );
        for removed in self.take(&value_flag(&["--approval-mode"], None)) {
            let value = removed.value.unwrap_or_default();
            if value != "plan" {
                self.notes.push(format!(
                    "removed `{} {value}`: replaced by plan",
                    removed.spelled
                ));
            }
        }
        if self.offers("--approval-mode") && self.help.contains("\"plan\"") {
            self.back.extend(["--approval-mode".into(), "plan".into()]);
            self.note(
                "gemini applies --approval-mode plan only in a trusted folder; elsewhere it falls \
                 back to default, which asks before every edit",
            );
        } else {
            self.note(
                "this gemini does not offer --approval-mode plan: it starts with its default \
                 approvals, only the written rule holds the step",
            );
        }
        // gemini has no option that adds to its system prompt: the rule goes into the prompt.
        let headless = self.prepend_rule_to_prompt(&value_flag(&["--prompt"], Some('p')));
        let interactive =
            self.prepend_rule_to_prompt(&value_flag(&["--prompt-interactive"], Some('i')));
        if !headless && !interactive && !self.prepend_rule_to_positional_prompt(GEMINI_SUBCOMMANDS)
        {
            self.note_rule_needs_prompt("gemini");
        }
    }

    /// For a CLI without a system-prompt option: puts the rule in front of the user's prompt
    /// (the last one given, which is the one the parser keeps). False when there is none.
    fn prepend_rule_to_prompt(&mut self, flag: &Flag) -> bool {
        let removed = self.take(flag);
        let Some(prompt) = removed.into_iter().rev().find_map(|r| r.value) else {
            return false;
        };
        let text = format!("{}\n\n---\n\n{prompt}", READ_ONLY_RULE.trim_end());
        self.back.extend([flag.long[0].to_string(), text]);
        true
    }

    /// Puts the rule in front of the first positional argument, the initial prompt of an
    /// interactive session, unless it names a subcommand. Which options take a value is read
    /// from the help (yargs `[string]`/`[number]`/`[array]`, commander `<value>`).
    fn prepend_rule_to_positional_prompt(&mut self, subcommands: &[&str]) -> bool {
        let takes_value = value_options(self.help);
        let mut i = 0;
        while i < self.args.len() {
            let token = &self.args[i];
            if token.starts_with('-') && token.len() > 1 {
                let skips_next = !token.contains('=') && takes_value.iter().any(|o| o == token);
                i += if skips_next { 2 } else { 1 };
                continue;
            }
            if subcommands.contains(&token.as_str()) {
                return false;
            }
            self.args[i] = format!("{}\n\n---\n\n{token}", READ_ONLY_RULE.trim_end());
            return true;
        }
        false
    }

    fn note_rule_needs_prompt(&mut self, cli: &str) {
        self.note(format!(
            "{cli} has no option that adds to its system prompt: the read-only rule goes in \
             front of your prompt, and there is none"
        ));
    }

    /// Puts back the user's values of a flag that had been taken out for merging.
    fn restore(&mut self, flag: &str, values: Vec<String>) {
        for value in values {
            self.back.extend([flag.to_string(), value]);
        }
    }

    fn note_no_system_prompt(&mut self, cli: &str, option: &str) {
        self.note(format!(
            "this {cli} does not offer {option}: the model does not get the read-only rule, \
             only the enforcement"
        ));
    }
}

/// Subcommands that take the place of an initial prompt (the pinned versions' `--help`).
const GEMINI_SUBCOMMANDS: &[&str] = &[
    "mcp",
    "extensions",
    "extension",
    "skills",
    "skill",
    "hooks",
    "hook",
    "gemma",
];
const VIBE_GROK_SUBCOMMANDS: &[&str] = &["git", "mcp", "help"];

/// The options of a yargs or commander `--help` that take a value: the names on an option
/// line typed `[string]`, `[number]` or `[array]`, or followed by `<value>`.
fn value_options(help: &str) -> Vec<String> {
    let mut options = Vec::new();
    for line in help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
    {
        let typed = ["[string]", "[number]", "[array]"]
            .iter()
            .any(|t| line.contains(t));
        let names: Vec<&str> = line
            .split_whitespace()
            .take_while(|w| w.starts_with('-') || w.starts_with('<'))
            .collect();
        let commander_value = names.iter().any(|w| w.starts_with('<'));
        if typed || commander_value {
            options.extend(
                names
                    .iter()
                    .filter(|w| w.starts_with('-'))
                    .map(|w| w.trim_end_matches(',').to_string()),
            );
        }
    }
    options
}

/// The user's texts for a system-prompt option, then the rule.
fn merged_text(user_texts: &[String]) -> String {
    let mut parts: Vec<&str> = user_texts.iter().map(String::as_str).collect();
    parts.push(READ_ONLY_RULE.trim_end());
    parts.join("\n\n")
}

/// The inline opencode config: the inherited one (when set) with the read-only agent added.
fn opencode_config(inherited: Option<&str>) -> Result<String> {
    let mut config = match inherited.filter(|c| !c.trim().is_empty()) {
        None => serde_json::Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(inherited_config_error("it is not a JSON object")),
            Err(err) => {
                return Err(inherited_config_error(&format!(
                    "line {}:{}: {err}",
                    err.line(),
                    err.column()
                )));
            }
        },
    };
    let mut agent: Value = serde_json::from_str(OPENCODE_AGENT)
        .expect("assets/opencode-readonly-agent.json is valid JSON");
    agent["prompt"] = Value::String(READ_ONLY_RULE.to_string());
    let agents = config
        .entry("agent")
        .or_insert_with(|| Value::Object(Default::default()));
    match agents {
        Value::Object(agents) => {
            agents.insert(OPENCODE_AGENT_NAME.to_string(), agent);
        }
        _ => return Err(inherited_config_error("its `agent` key is not an object")),
    }
    Ok(Value::Object(config).to_string())
}

fn inherited_config_error(what: &str) -> Error {
    Error::config(format!(
        "cannot add the read-only agent to ${OPENCODE_CONFIG_VAR}: {what}"
    ))
    .with_hint(format!(
        "fix or unset {OPENCODE_CONFIG_VAR}; opencode reads it as a JSON config"
    ))
}

/// Whether a `--help` text lists `flag`: the flag followed by something that cannot continue a
/// flag name (so `--agent` is not found in `--agents`).
pub fn help_offers(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(at, _)| {
        let before_ok = help[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '-'));
        let after_ok = help[at + flag.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'));
        before_ok && after_ok
    })
}

/// A TOML basic string (codex parses `-c key=value` values as TOML).
fn toml_basic_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE_HELP: &str = include_str!("../assets/cli-help/claude-2.1.332.txt");
    const CODEX_HELP: &str = include_str!("../assets/cli-help/codex-0.171.0.txt");
    const OPENCODE_HELP: &str = include_str!("../assets/cli-help/opencode-1.18.33.txt");
    const GEMINI_HELP: &str = include_str!("../assets/cli-help/gemini-0.61.0.txt");
    const XAI_GROK_HELP: &str = include_str!("../assets/cli-help/xai-grok-1.0.41.txt");
    const VIBE_GROK_HELP: &str = include_str!("../assets/cli-help/vibe-kit-grok-0.0.34.txt");

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    fn launch(cli: AgentCli, words: &[&str], help: &str) -> Launch {
        plan(cli, &args(words), help, |_| None).unwrap()
    }

    /// The values that follow `flag` (two-token form) in `args`.
    fn values_of<'a>(args: &'a [String], flag: &str) -> Vec<&'a str> {
        args.windows(2)
            .filter(|w| w[0] == flag)
            .map(|w| w[1].as_str())
            .collect()
    }

    fn count(args: &[String], pred: impl Fn(&str) -> bool) -> usize {
        args.iter().filter(|a| pred(a)).count()
    }

    #[test]
    fn every_launch_sets_the_read_only_role() {
        for (cli, help) in [
            (AgentCli::Claude, CLAUDE_HELP),
            (AgentCli::Codex, CODEX_HELP),
            (AgentCli::Opencode, OPENCODE_HELP),
            (AgentCli::Gemini, GEMINI_HELP),
            (AgentCli::Grok, XAI_GROK_HELP),
            (AgentCli::Grok, VIBE_GROK_HELP),
        ] {
            let launch = launch(cli, &[], help);
            assert!(
                launch
                    .env
                    .contains(&(ROLE_VAR.into(), ROLE_READ_ONLY.into())),
                "{cli:?}"
            );
            assert_eq!(launch.argv()[0], program(cli));
        }
    }

    #[test]
    fn help_offers_matches_whole_flags_only() {
        assert!(help_offers(CLAUDE_HELP, "--agents"));
        assert!(help_offers("  --agent <a>", "--agent"));
        assert!(!help_offers("  --agents <json>", "--agent"));
        assert!(!help_offers("  --no-sandbox", "--sandbox"));
        assert!(help_offers(CODEX_HELP, "--sandbox"));
        assert!(!help_offers(VIBE_GROK_HELP, "--deny"));
    }

    #[test]
    fn codex_conflicting_flags_are_replaced_by_one_read_only_sandbox() {
        let launch = launch(
            AgentCli::Codex,
            &[
                "-s",
                "workspace-write",
                "--dangerously-bypass-approvals-and-sandbox",
                "-a",
                "on-request",
                "exec",
                "--sandbox=danger-full-access",
                "-sworkspace-write",
                "--yolo",
                "--full-auto",
                "--approve-for-me",
                "-c",
                "sandbox_mode=\"danger-full-access\"",
                "--config=approval_policy=untrusted",
                "-c",
                "model=\"o3\"",
                "--skip-git-repo-check",
                "review this",
            ],
            CODEX_HELP,
        );
        let a = &launch.args;
        assert_eq!(values_of(a, "--sandbox"), ["read-only"]);
        assert_eq!(
            count(a, |t| t == "-s"
                || t.starts_with("--sandbox=")
                || t.starts_with("-sw")),
            0
        );
        assert_eq!(values_of(a, "--ask-for-approval"), ["never"]);
        assert_eq!(count(a, |t| t == "-a"), 0);
        for gone in [
            "--dangerously-bypass-approvals-and-sandbox",
            "--yolo",
            "--full-auto",
            "--approve-for-me",
        ] {
            assert!(!a.iter().any(|t| t == gone), "{gone} left in {a:?}");
        }
        assert!(
            !a.iter()
                .any(|t| t.contains("sandbox_mode") || t.contains("approval_policy")),
            "{a:?}"
        );
        // Global flags go before the subcommand; the user's other flags keep their place.
        let exec_at = a.iter().position(|t| t == "exec").unwrap();
        assert!(a.iter().position(|t| t == "--sandbox").unwrap() < exec_at);
        assert_eq!(
            &a[exec_at..],
            args(&[
                "exec",
                "-c",
                "model=\"o3\"",
                "--skip-git-repo-check",
                "review this"
            ])
        );
        let instructions = values_of(a, "--config");
        assert_eq!(instructions.len(), 1);
        assert!(instructions[0].starts_with("developer_instructions=\"This step is read-only"));
        assert!(launch.notes.iter().any(|n| n.contains("--yolo")));
        assert!(
            launch
                .notes
                .iter()
                .any(|n| n.contains("-s workspace-write"))
        );
    }

    #[test]
    fn codex_keeps_the_users_developer_instructions_and_says_so() {
        let launch = launch(
            AgentCli::Codex,
            &["-c", "developer_instructions=\"mine\"", "exec", "x"],
            CODEX_HELP,
        );
        assert_eq!(
            values_of(&launch.args, "-c"),
            ["developer_instructions=\"mine\""]
        );
        assert!(
            !launch
                .args
                .iter()
                .any(|a| a.contains("This step is read-only"))
        );
        assert!(
            launch
                .notes
                .iter()
                .any(|n| n.contains("developer_instructions"))
        );
    }

    #[test]
    fn codex_rule_is_a_toml_string_that_round_trips() {
        let launch = launch(AgentCli::Codex, &[], CODEX_HELP);
        let value = values_of(&launch.args, "--config")[0];
        let doc: toml_edit::DocumentMut = value.parse().unwrap();
        assert_eq!(doc["developer_instructions"].as_str(), Some(READ_ONLY_RULE));
    }

    #[test]
    fn codex_without_sandbox_in_help_falls_back_and_says_so() {
        let launch = launch(
            AgentCli::Codex,
            &["-s", "workspace-write", "exec"],
            "Usage: codex [OPTIONS]\n",
        );
        assert_eq!(launch.args, args(&["exec"]));
        assert!(
            launch
                .notes
                .iter()
                .any(|n| n.contains("does not offer --sandbox"))
        );
    }

    #[test]
    fn claude_flags_follow_the_prompt_in_one_token_each() {
        let launch = launch(
            AgentCli::Claude,
            &[
                "-p",
                "review the diff",
                "--disallowedTools",
                "Bash(git push:*)",
            ],
            CLAUDE_HELP,
        );
        let a = &launch.args;
        assert_eq!(
            &a[..4],
            args(&[
                "-p",
                "review the diff",
                "--disallowedTools",
                "Bash(git push:*)"
            ])
        );
        assert_eq!(a[4], "--disallowedTools=Edit,Write,NotebookEdit");
        assert!(a[5].starts_with("--append-system-prompt=This step is read-only"));
        assert_eq!(a.len(), 6);
    }

    #[test]
    fn claude_drops_write_approving_modes_and_keeps_the_others() {
        let launch = launch(
            AgentCli::Claude,
            &[
                "--dangerously-skip-permissions",
                "--permission-mode",
                "bypassPermissions",
                "-p",
                "x",
            ],
            CLAUDE_HELP,
        );
        assert!(
            !launch
                .args
                .iter()
                .any(|a| a.contains("dangerously") || a.contains("permission-mode"))
        );
        assert_eq!(
            launch
                .notes
                .iter()
                .filter(|n| n.starts_with("removed"))
                .count(),
            2
        );

        let kept = super::tests::launch(
            AgentCli::Claude,
            &["--permission-mode=plan", "-p", "x"],
            CLAUDE_HELP,
        );
        assert_eq!(values_of(&kept.args, "--permission-mode"), ["plan"]);
    }

    #[test]
    fn claude_merges_the_users_appended_system_prompt() {
        let launch = launch(
            AgentCli::Claude,
            &["--append-system-prompt", "Be terse.", "-p", "x"],
            CLAUDE_HELP,
        );
        let appended: Vec<&String> = launch
            .args
            .iter()
            .filter(|a| a.starts_with("--append-system-prompt"))
            .collect();
        assert_eq!(appended.len(), 1);
        assert!(
            appended[0].starts_with("--append-system-prompt=Be terse.\n\nThis step is read-only")
        );
    }

    #[test]
    fn claude_flags_stay_before_a_double_dash() {
        let launch = launch(
            AgentCli::Claude,
            &["-p", "--", "-prompt-with-dash"],
            CLAUDE_HELP,
        );
        let a = &launch.args;
        assert_eq!(&a[a.len() - 2..], args(&["--", "-prompt-with-dash"]));
        assert!(a[1].starts_with("--disallowedTools="));
    }

    #[test]
    fn claude_without_the_flags_in_help_notes_both_fallbacks() {
        let launch = launch(AgentCli::Claude, &["-p", "x"], "Usage: claude [options]\n");
        assert_eq!(launch.args, args(&["-p", "x"]));
        assert!(
            launch
                .notes
                .iter()
                .any(|n| n.contains("does not offer --disallowedTools"))
        );
        assert!(
            launch
                .notes
                .iter()
                .any(|n| n.contains("does not offer --append-system-prompt"))
        );
    }

    #[test]
    fn opencode_gets_one_agent_defined_in_its_inline_config() {
        let launch = launch(
            AgentCli::Opencode,
            &["run", "--agent", "build", "--agent=plan", "look"],
            OPENCODE_HELP,
        );
        assert_eq!(
            launch.args,
            args(&["run", "look", "--agent", OPENCODE_AGENT_NAME])
        );
        let (_, config) = launch
            .env
            .iter()
            .find(|(k, _)| k == OPENCODE_CONFIG_VAR)
            .unwrap();
        let config: Value = serde_json::from_str(config).unwrap();
        let agent = &config["agent"][OPENCODE_AGENT_NAME];
        assert_eq!(agent["permission"]["edit"], "deny");
        assert_eq!(agent["permission"]["bash"]["git commit *"], "deny");
        assert_eq!(agent["prompt"], READ_ONLY_RULE);
        assert_eq!(
            launch
                .notes
                .iter()
                .filter(|n| n.contains("removed `--agent"))
                .count(),
            2
        );
    }

    #[test]
    fn opencode_merges_an_inherited_inline_config() {
        let inherited = r#"{"model":"fake/m","agent":{"mine":{"mode":"primary"}}}"#;
        let launch = plan(AgentCli::Opencode, &[], OPENCODE_HELP, |_| {
            Some(inherited.to_string())
        })
        .unwrap();
        let (_, config) = launch
            .env
            .iter()
            .find(|(k, _)| k == OPENCODE_CONFIG_VAR)
            .unwrap();
        let config: Value = serde_json::from_str(config).unwrap();
        assert_eq!(config["model"], "fake/m");
        assert_eq!(config["agent"]["mine"]["mode"], "primary");
        assert!(config["agent"][OPENCODE_AGENT_NAME].is_object());
    }

    #[test]
    fn opencode_rejects_an_inherited_config_that_is_not_an_object() {
        for bad in ["[1]", "{not json", r#"{"agent":3}"#] {
            let err = plan(AgentCli::Opencode, &[], OPENCODE_HELP, |_| {
                Some(bad.to_string())
            })
            .unwrap_err();
            assert_eq!(err.kind, crate::error::ErrorKind::Config, "{bad}");
            assert!(err.message.contains(OPENCODE_CONFIG_VAR));
        }
    }

    #[test]
    fn gemini_approval_mode_is_plan_once_and_yolo_is_gone() {
        let launch = launch(
            AgentCli::Gemini,
            &[
                "-y",
                "--yolo",
                "--approval-mode",
                "yolo",
                "--approval-mode=auto_edit",
                "-p",
                "check it",
            ],
            GEMINI_HELP,
        );
        let a = &launch.args;
        assert_eq!(values_of(a, "--approval-mode"), ["plan"]);
        assert!(
            !a.iter()
                .any(|t| t == "-y" || t == "--yolo" || t.starts_with("--approval-mode="))
        );
        let prompt = values_of(a, "--prompt");
        assert_eq!(prompt.len(), 1);
        assert!(
            prompt[0].starts_with("This step is read-only")
                && prompt[0].ends_with("---\n\ncheck it")
        );
    }

    #[test]
    fn gemini_interactive_prompt_gets_the_rule_in_front() {
        let launch = launch(
            AgentCli::Gemini,
            &[
                "-m",
                "gemini-pro",
                "--include-directories=a",
                "-d",
                "review",
                "the diff",
            ],
            GEMINI_HELP,
        );
        let a = &launch.args;
        assert_eq!(
            &a[..4],
            args(&["-m", "gemini-pro", "--include-directories=a", "-d"])
        );
        assert!(a[4].starts_with("This step is read-only") && a[4].ends_with("---\n\nreview"));
        assert_eq!(a[5], "the diff");

        let subcommand = super::tests::launch(AgentCli::Gemini, &["mcp", "list"], GEMINI_HELP);
        assert_eq!(
            subcommand.args,
            args(&["mcp", "list", "--approval-mode", "plan"])
        );
    }

    #[test]
    fn value_options_are_read_from_yargs_and_commander_help() {
        let gemini = value_options(GEMINI_HELP);
        for option in [
            "-m",
            "--model",
            "--approval-mode",
            "-p",
            "--include-directories",
        ] {
            assert!(gemini.iter().any(|o| o == option), "{option}: {gemini:?}");
        }
        assert!(
            !gemini.iter().any(|o| o == "-d" || o == "--yolo"),
            "{gemini:?}"
        );
        let vibe = value_options(VIBE_GROK_HELP);
        for option in ["-d", "--directory", "-m", "--max-tool-rounds"] {
            assert!(vibe.iter().any(|o| o == option), "{option}: {vibe:?}");
        }
        assert!(!vibe.iter().any(|o| o == "-h" || o == "-V"), "{vibe:?}");
    }

    #[test]
    fn gemini_without_a_prompt_says_the_rule_is_not_delivered() {
        let launch = launch(AgentCli::Gemini, &[], GEMINI_HELP);
        assert_eq!(launch.args, args(&["--approval-mode", "plan"]));
        assert!(launch.notes.iter().any(|n| n.contains("there is none")));
    }

    #[test]
    fn xai_grok_gets_deny_rules_and_one_merged_rules_flag() {
        let launch = launch(
            AgentCli::Grok,
            &[
                "--always-approve",
                "--permission-mode",
                "bypassPermissions",
                "--rules",
                "Be brief.",
                "-p",
                "review",
            ],
            XAI_GROK_HELP,
        );
        let a = &launch.args;
        assert_eq!(values_of(a, "--deny"), ["Edit", "Write"]);
        let rules = values_of(a, "--rules");
        assert_eq!(rules.len(), 1);
        assert!(rules[0].starts_with("Be brief.\n\nThis step is read-only"));
        assert!(
            !a.iter()
                .any(|t| t == "--always-approve" || t == "--permission-mode")
        );
        assert_eq!(&a[a.len() - 2..], args(&["-p", "review"]));
    }

    #[test]
    fn xai_grok_system_prompt_override_carries_the_rule() {
        let launch = launch(
            AgentCli::Grok,
            &["--system-prompt", "You review.", "-p", "x"],
            XAI_GROK_HELP,
        );
        let a = &launch.args;
        assert!(!a.iter().any(|t| t == "--rules" || t == "--system-prompt"));
        let text = values_of(a, "--system-prompt-override");
        assert_eq!(text.len(), 1);
        assert!(text[0].starts_with("You review.\n\nThis step is read-only"));
    }

    #[test]
    fn vibe_kit_grok_is_launched_with_the_written_rule_only() {
        let launch = launch(AgentCli::Grok, &["-p", "review"], VIBE_GROK_HELP);
        assert!(!launch.args.iter().any(|t| t == "--deny" || t == "--rules"));
        let prompt = values_of(&launch.args, "--prompt");
        assert!(prompt[0].starts_with("This step is read-only") && prompt[0].ends_with("review"));
        assert!(launch.notes.iter().any(|n| n.contains("no read-only mode")));

        let positional =
            super::tests::launch(AgentCli::Grok, &["-m", "grok-4", "review"], VIBE_GROK_HELP);
        assert_eq!(positional.args[..2], args(&["-m", "grok-4"]));
        assert!(positional.args[2].starts_with("This step is read-only"));

        let interactive = super::tests::launch(AgentCli::Grok, &[], VIBE_GROK_HELP);
        assert!(interactive.args.is_empty());
        assert_eq!(interactive.notes.len(), 2, "{:?}", interactive.notes);
    }

    #[test]
    fn the_rule_names_what_stays_open_and_where_findings_go() {
        for needle in [
            "read-only",
            "not an obstacle",
            "git diff",
            "tests",
            "linters",
            "handoff",
            "line",
        ] {
            assert!(READ_ONLY_RULE.contains(needle), "{needle}");
        }
    }
}
