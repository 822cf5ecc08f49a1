//! The agent CLIs (claude, codex): found, and with the flags the judge needs.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::hosts::Host;

use super::{Check, CheckId};

/// A flag agentguard passes to an agent CLI, by every name it uses (`-o` and
/// `--output-last-message` are both needed where argv uses the short form).
#[derive(Debug, Clone, Copy)]
pub struct RequiredFlag(pub &'static [&'static str]);

/// `codex exec` flags of the codex judge (see `backends/cli.rs`).
pub const CODEX_EXEC_FLAGS: &[RequiredFlag] = &[
    RequiredFlag(&["--sandbox"]),
    RequiredFlag(&["--skip-git-repo-check"]),
    RequiredFlag(&["--ephemeral"]),
    RequiredFlag(&["--output-schema"]),
    RequiredFlag(&["-o", "--output-last-message"]),
    RequiredFlag(&["-m", "--model"]),
];

/// `claude` flags of the claude judge (see `backends/cli.rs`).
pub const CLAUDE_FLAGS: &[RequiredFlag] = &[
    RequiredFlag(&["-p", "--print"]),
    RequiredFlag(&["--output-format"]),
    RequiredFlag(&["--json-schema"]),
    RequiredFlag(&["--setting-sources"]),
    RequiredFlag(&["--settings"]),
    RequiredFlag(&["--strict-mcp-config"]),
    RequiredFlag(&["--no-session-persistence"]),
    RequiredFlag(&["--tools"]),
    RequiredFlag(&["--model"]),
];

/// The option names a `--help` text defines: lines that start (after a little indentation)
/// with a dash, read up to the description; aliases are separated by ", " (`-o, --output`,
/// `--allowedTools, --allowed-tools <tools...>`). Descriptions that mention other flags on
/// continuation lines are deeply indented and not read.
pub fn help_options(help: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in help.lines() {
        let trimmed = line.trim_start();
        if line.len() - trimmed.len() > 8 || !trimmed.starts_with('-') {
            continue;
        }
        let definition = trimmed.split("  ").next().unwrap_or("");
        for alias in definition.split(", ") {
            let name = alias
                .split([' ', '<', '[', '='])
                .next()
                .unwrap_or("")
                .trim();
            if name.starts_with('-') && name.len() > 1 {
                names.insert(name.to_string());
            }
        }
    }
    names
}

/// The required flags a help text lacks, as written in `required` (`-o/--output-last-message`).
pub fn missing_flags(help: &str, required: &[RequiredFlag]) -> Vec<String> {
    let defined = help_options(help);
    required
        .iter()
        .filter(|flag| !flag.0.iter().all(|name| defined.contains(*name)))
        .map(|flag| flag.0.join("/"))
        .collect()
}

/// What the command found out about one agent CLI.
#[derive(Debug, Clone)]
pub struct CliFacts {
    /// The host whose CLI this is (claude or codex).
    pub host: Host,
    /// The configured binary (judge.<name>.binary).
    pub binary: String,
    /// Where it resolves; None when not found.
    pub path: Option<PathBuf>,
    /// First line of `--version`, or why it failed.
    pub version: Result<String, String>,
    /// The help text that lists the flags (`codex exec --help`, `claude --help`).
    pub help: Result<String, String>,
    /// The command that printed `help`.
    pub help_command: String,
}

/// A CLI is found, answers `--version`, and its help lists every flag agentguard passes.
/// A problem is a failure only when the CLI is the chosen judge backend; a missing CLI nobody
/// uses is fine.
pub fn check_cli(facts: &CliFacts, required: &[RequiredFlag], chosen: bool, hooked: bool) -> Check {
    let id = CheckId::Cli(facts.host);
    let name = facts.host.name();
    let install = match facts.host {
        Host::Codex => "npm install -g @openai/codex",
        Host::Claude => "npm install -g @anthropic-ai/claude-code",
    };
    let problem = |message: String, fix: String| {
        if chosen {
            Check::fail(id, format!("{message} (it is the judge backend)"), fix)
        } else {
            Check::warn(id, message, fix)
        }
    };
    let Some(path) = &facts.path else {
        let message = format!("{name}: `{}` not found on PATH", facts.binary);
        let fix = format!("{install}, or set judge.{name}.binary to its full path");
        if chosen {
            return Check::fail(id, format!("{message} (it is the judge backend)"), fix);
        }
        if hooked {
            return Check::warn(id, format!("{message} (its hooks are installed)"), fix);
        }
        return Check::ok(
            id,
            format!("{message} (not used: not the judge backend, no hooks for it)"),
        );
    };
    let version = match &facts.version {
        Ok(version) => version.clone(),
        Err(err) => {
            return problem(
                format!("{name} at {}: `--version` failed: {err}", path.display()),
                format!("reinstall it: {install}"),
            );
        }
    };
    let help = match &facts.help {
        Ok(help) => help,
        Err(err) => {
            return problem(
                format!(
                    "{name}: {version} at {}: `{}` failed: {err}",
                    path.display(),
                    facts.help_command
                ),
                format!("reinstall it: {install}"),
            );
        }
    };
    let missing = missing_flags(help, required);
    if missing.is_empty() {
        Check::ok(
            id,
            format!(
                "{name}: {version} at {}: all {} flags agentguard uses are in `{}`",
                path.display(),
                required.len(),
                facts.help_command
            ),
        )
    } else {
        problem(
            format!(
                "{name}: {version} at {}: `{}` lacks {}",
                path.display(),
                facts.help_command,
                missing.join(", ")
            ),
            format!(
                "install a version that has them ({install}), or choose another judge backend: \
                 agentguard config set judge.backend rules"
            ),
        )
    }
}
