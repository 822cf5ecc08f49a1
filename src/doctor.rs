//! The checks of `agentguard doctor`, as pure functions: each takes what the command already
//! read (file texts, help texts, log records, what a path resolves to) and returns a [`Check`].
//! The command does the I/O and the rendering.
//!
//! Check ids are part of the `--json` interface (README, "agentguard doctor"):
//! `binary`, `config.user`, `config.project`, `config.env`, `detectors`, `backend`,
//! `settings.claude.user`, `settings.claude.project`, `settings.claude.local`,
//! `settings.codex.user`, `settings.codex.project`, `hooks.installed`, `cli.claude`,
//! `cli.codex`, `probe` (with `--probe` only), `log.dir`, `log.judge_failures`,
//! `hooks.stop_activity`, `hooks.pre_tool_activity`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::hosts::{self, Host, OurCommand};
use crate::log::Record;
use crate::pipeline::{Judgement, Layer1, Verdict};
use crate::settings::{self, Format, SettingsError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    pub fn symbol(self) -> &'static str {
        match self {
            Status::Ok => "✓",
            Status::Warn => "!",
            Status::Fail => "✗",
        }
    }
}

/// One line of the report: what was checked, and how to fix it when it is not ok.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub id: String,
    pub status: Status,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    pub fn ok(id: &str, message: impl Into<String>) -> Check {
        Check {
            id: id.into(),
            status: Status::Ok,
            message: message.into(),
            fix: None,
        }
    }
    pub fn warn(id: &str, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            id: id.into(),
            status: Status::Warn,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }
    pub fn fail(id: &str, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            id: id.into(),
            status: Status::Fail,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }
}

/// Every check of one run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub healthy: bool,
    pub checks: Vec<Check>,
}

impl Report {
    pub fn new(checks: Vec<Check>) -> Report {
        Report {
            healthy: checks.iter().all(|c| c.status != Status::Fail),
            checks,
        }
    }

    /// One line per check (`✓`/`✗`/`!`, the message, then the fix), and a summary line.
    /// With `color`, only the symbol is colored.
    pub fn render(&self, color: bool) -> String {
        let mut out = String::new();
        for check in &self.checks {
            let symbol = check.status.symbol();
            let symbol = if color {
                let code = match check.status {
                    Status::Ok => "32",
                    Status::Warn => "33",
                    Status::Fail => "31",
                };
                format!("\x1b[{code}m{symbol}\x1b[0m")
            } else {
                symbol.to_string()
            };
            out.push_str(&format!("{symbol} {}", check.message));
            if let Some(fix) = &check.fix {
                out.push_str(&format!(" — fix: {fix}"));
            }
            out.push('\n');
        }
        let count = |s: Status| self.checks.iter().filter(|c| c.status == s).count();
        let (failed, warned) = (count(Status::Fail), count(Status::Warn));
        out.push_str(&match (failed, warned) {
            (0, 0) => "healthy: every check passed\n".to_string(),
            (0, w) => format!("healthy, with {w} warning{}\n", plural(w)),
            (f, w) => format!(
                "unhealthy: {f} check{} failed, {w} warning{}\n",
                plural(f),
                plural(w)
            ),
        });
        out
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

// ---------------------------------------------------------------------------------------------
// Binary and configuration

/// The running binary: its path, version, and whether `agentguard` on PATH is this one.
pub fn check_binary(exe: &Path, version: &str, on_path: Option<&Path>) -> Check {
    let id = "binary";
    let name = exe.file_name().map(|n| n.to_string_lossy().into_owned());
    if !name.as_deref().is_some_and(hosts::is_binary_name) {
        return Check::warn(
            id,
            format!(
                "agentguard {version} runs as {}, but its hook entries are recognized by the \
                 program name `agentguard`",
                exe.display()
            ),
            "install the binary as `agentguard`",
        );
    }
    let message = format!("agentguard {version} at {}", exe.display());
    match on_path {
        Some(found) if found == exe => Check::ok(id, message),
        Some(found) => Check::warn(
            id,
            format!("{message}; but `agentguard` on PATH is {}", found.display()),
            "remove the other copy, or put this binary's directory first on PATH",
        ),
        None => Check::warn(
            id,
            format!("{message}; not on PATH"),
            format!(
                "add {} to PATH (hooks use the full path, but your shell does not find it)",
                exe.parent().unwrap_or(Path::new("/")).display()
            ),
        ),
    }
}

/// A config file checked on its own (against the defaults): None when there is none.
/// `result` is what loading the defaults plus this one file gave.
pub fn check_config_file(
    id: &str,
    label: &str,
    path: Option<&Path>,
    result: Option<&crate::error::Result<crate::config::Config>>,
) -> Check {
    match (path, result) {
        (None, _) => Check::ok(id, format!("{label} config: none applies (defaults)")),
        (Some(path), None) => Check::ok(
            id,
            format!("{label} config: {} not present (defaults)", path.display()),
        ),
        (Some(path), Some(Ok(_))) => {
            Check::ok(id, format!("{label} config: {} parses", path.display()))
        }
        (Some(_), Some(Err(err))) => Check::fail(
            id,
            format!("{label} config: {}", err.message),
            err.hint.clone().unwrap_or_else(|| {
                "fix the file, or see `agentguard config init` for every key".into()
            }),
        ),
    }
}

/// The environment overrides and the effective (merged) configuration.
pub fn check_config_env(
    env: &[(&str, Option<String>)],
    effective: &crate::error::Result<crate::config::Config>,
) -> Check {
    let id = "config.env";
    if let Err(err) = effective {
        return Check::fail(
            id,
            format!("the effective configuration does not load: {}", err.message),
            err.hint
                .clone()
                .unwrap_or_else(|| "fix the value named above".into()),
        );
    }
    let set: Vec<String> = env
        .iter()
        .filter_map(|(name, value)| value.as_ref().map(|v| format!("{name}={v}")))
        .collect();
    if env
        .iter()
        .any(|(name, value)| *name == "AGENTGUARD_DISABLE" && value.as_deref() == Some("1"))
    {
        return Check::warn(
            id,
            "AGENTGUARD_DISABLE=1 is set: every hook allows at once, nothing is judged",
            "unset AGENTGUARD_DISABLE (in your shell profile, and wherever the agent is started)",
        );
    }
    if set.is_empty() {
        Check::ok(id, "environment: no overrides; the configuration loads")
    } else {
        Check::ok(
            id,
            format!("environment: {}; the configuration loads", set.join(", ")),
        )
    }
}

/// The detectors load (formulas, fields) and every pattern compiles.
pub fn check_detectors(config: Option<&crate::config::Config>) -> Check {
    let id = "detectors";
    let Some(config) = config else {
        return Check::warn(
            id,
            "detectors: not checked, the configuration does not load",
            "fix the configuration first (see the config checks)",
        );
    };
    let loaded = crate::detectors::Detectors::load(&config.detectors)
        .and_then(|d| d.check_patterns().map(|()| d));
    match loaded {
        Ok(detectors) => {
            let names: Vec<&str> = detectors.list.iter().map(|d| d.name.as_str()).collect();
            if names.is_empty() {
                Check::warn(
                    id,
                    "detectors: every detector is disabled, nothing is judged",
                    "remove `enabled = false` from a [[detectors]] entry",
                )
            } else {
                Check::ok(
                    id,
                    format!(
                        "detectors: {} load and compile ({})",
                        names.len(),
                        names.join(", ")
                    ),
                )
            }
        }
        Err(err) => Check::fail(
            id,
            format!("detectors: {}", err.message),
            err.hint
                .unwrap_or_else(|| "fix the [[detectors]] entry named above".into()),
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Judge backend

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
    let id = "backend";
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

// ---------------------------------------------------------------------------------------------
// Settings files

/// One hook entry of ours found in a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookEntry {
    /// The host's event key: Stop, SubagentStop, PreToolUse.
    pub event: String,
    pub command: String,
}

/// agentguard's hook entries in a settings text; an error (with line and column when the text
/// does not parse) when the host could not read it either.
pub fn hook_entries(format: Format, text: &str) -> Result<Vec<HookEntry>, SettingsError> {
    // The same parser install uses, so doctor and install agree on what is readable.
    settings::has_agentguard_hooks(format, text)?;
    let body = text.trim_start_matches('\u{feff}');
    let mut entries = Vec::new();
    let mut push = |event: &str, command: &str| {
        if hosts::is_agentguard_command(command) {
            entries.push(HookEntry {
                event: event.to_string(),
                command: command.to_string(),
            });
        }
    };
    match format {
        Format::Json => {
            if body.trim().is_empty() {
                return Ok(entries);
            }
            let value: serde_json::Value =
                serde_json::from_str(body).map_err(|err| SettingsError {
                    message: err.to_string(),
                    line: Some(err.line()),
                    column: Some(err.column()),
                })?;
            let Some(events) = value.get("hooks").and_then(|h| h.as_object()) else {
                return Ok(entries);
            };
            for (event, groups) in events {
                for group in groups.as_array().into_iter().flatten() {
                    for hook in group
                        .get("hooks")
                        .and_then(|h| h.as_array())
                        .into_iter()
                        .flatten()
                    {
                        if let Some(command) = hook.get("command").and_then(|c| c.as_str()) {
                            push(event, command);
                        }
                    }
                }
            }
        }
        Format::Toml => {
            let doc: toml_edit::DocumentMut =
                body.parse()
                    .map_err(|err: toml_edit::TomlError| SettingsError {
                        message: err.message().to_string(),
                        line: None,
                        column: None,
                    })?;
            let Some(events) = doc.get("hooks").and_then(|h| h.as_table_like()) else {
                return Ok(entries);
            };
            for (event, groups) in events.iter() {
                for group in groups.as_array_of_tables().into_iter().flatten() {
                    for hook in group
                        .get("hooks")
                        .and_then(|h| h.as_array_of_tables())
                        .into_iter()
                        .flatten()
                    {
                        if let Some(command) = hook.get("command").and_then(|c| c.as_str()) {
                            push(event, command);
                        }
                    }
                }
            }
        }
    }
    Ok(entries)
}

/// What the program of a hook command resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// The binary running doctor.
    Running,
    /// Another existing, executable agentguard.
    Other(PathBuf),
    Missing,
    NotExecutable,
}

/// One settings file of a scope, as read.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    pub path: PathBuf,
    pub format: Format,
    /// None: the file does not exist. Err: it could not be read.
    pub text: Option<Result<String, String>>,
}

/// One settings scope (`settings.<host>.<scope>`).
pub struct Scope<'a> {
    pub id: &'a str,
    /// "Claude Code user settings".
    pub label: &'a str,
    /// The host that reads these files: the `--host` our commands must pass there.
    pub host: Host,
    /// The `agentguard install` arguments that repair this scope.
    pub install_args: &'a str,
    pub files: &'a [SettingsFile],
    /// When a file of this scope turns every hook off (Codex `[features] hooks = false`,
    /// Claude Code `"disableAllHooks": true`): what does it, and how to undo it.
    pub hooks_off: Option<HooksOff>,
}

/// A setting that turns every hook off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HooksOff {
    pub what: String,
    pub fix: String,
}

/// The hooks-off switch of one settings text, if it is set.
pub fn hooks_off(host: Host, format: Format, path: &Path, text: &str) -> Option<HooksOff> {
    match (host, format) {
        (Host::Codex, Format::Toml) => {
            settings::codex_hooks_disabled(text)
                .unwrap_or(false)
                .then(|| HooksOff {
                    what: format!(
                        "{} turns Codex hooks off ([features] hooks = false)",
                        path.display()
                    ),
                    fix: format!(
                        "set `hooks = true` under [features] in {}, or remove agentguard's hooks: \
                     agentguard uninstall --host codex",
                        path.display()
                    ),
                })
        }
        (Host::Claude, Format::Json) => {
            let value: serde_json::Value =
                serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
            (value.get("disableAllHooks").and_then(|v| v.as_bool()) == Some(true)).then(|| {
                HooksOff {
                    what: format!(
                        "{} sets \"disableAllHooks\": true, so Claude Code runs no hooks",
                        path.display()
                    ),
                    fix: format!("remove \"disableAllHooks\" from {}", path.display()),
                }
            })
        }
        _ => None,
    }
}

/// A scope's files parse, and our hooks there run an existing agentguard with the right host.
/// Returns the check and the events of ours installed there.
pub fn check_settings_scope(
    scope: &Scope,
    program: &dyn Fn(&str) -> Program,
) -> (Check, BTreeSet<String>) {
    let id = scope.id;
    let label = scope.label;
    let install = format!("agentguard install {}", scope.install_args);
    let mut events = BTreeSet::new();
    let mut found_files = Vec::new();
    let mut programs: BTreeSet<String> = BTreeSet::new();
    let mut warnings: Vec<(String, String)> = Vec::new();
    let mut failure: Option<(String, String)> = None;
    for file in scope.files {
        let path = file.path.display();
        let text = match &file.text {
            None => continue,
            Some(Err(err)) => {
                return (
                    Check::fail(
                        id,
                        format!("{label}: cannot read {path}: {err}"),
                        format!("make {path} readable (chmod u+r)"),
                    ),
                    events,
                );
            }
            Some(Ok(text)) => text,
        };
        let entries = match hook_entries(file.format, text) {
            Ok(entries) => entries,
            Err(err) => {
                let kind = match file.format {
                    Format::Json => "JSON",
                    Format::Toml => "TOML",
                };
                let at = match (err.line, err.column) {
                    (Some(line), Some(column)) => format!(":{line}:{column}"),
                    _ => String::new(),
                };
                let fix = match (err.line, err.column) {
                    (Some(line), Some(column)) => format!(
                        "fix {path} at line {line}, column {column} (the agent host cannot read \
                         it either), or restore a backup ({}.agentguard-backup-*)",
                        file.path.file_name().unwrap_or_default().to_string_lossy()
                    ),
                    _ => format!("fix {path} by hand"),
                };
                return (
                    Check::fail(
                        id,
                        format!("{label}: {path}{at}: invalid {kind}: {}", err.message),
                        fix,
                    ),
                    events,
                );
            }
        };
        if !entries.is_empty() {
            found_files.push(path.to_string());
        }
        for entry in entries {
            let Some(OurCommand {
                program: prog,
                host,
                ..
            }) = hosts::command::parse(&entry.command)
            else {
                continue;
            };
            let event = &entry.event;
            // The first problem is reported; every entry still counts as installed, so the
            // checks that depend on installed hooks see them.
            let problem = if host != scope.host.name() {
                Some((
                    format!(
                        "the {event} hook in {path} answers with `--host {host}`, but this file \
                         is read by {}",
                        scope.host.name()
                    ),
                    install.clone(),
                ))
            } else {
                match program(&prog) {
                    Program::Missing => Some((
                        format!(
                            "the {event} hook in {path} runs {prog}, which does not exist (was \
                             agentguard moved?); the host fails that hook silently"
                        ),
                        install.clone(),
                    )),
                    Program::NotExecutable => Some((
                        format!("the {event} hook in {path} runs {prog}, which is not executable"),
                        format!("chmod +x {prog}, or {install}"),
                    )),
                    Program::Other(other) => {
                        warnings.push((
                            format!("the {event} hook runs {}, not this binary", other.display()),
                            format!("{install} (from the agentguard you mean to use)"),
                        ));
                        None
                    }
                    Program::Running => None,
                }
            };
            if failure.is_none() {
                failure = problem;
            }
            programs.insert(prog);
            events.insert(entry.event);
        }
    }
    if let Some((what, fix)) = failure {
        return (Check::fail(id, format!("{label}: {what}"), fix), events);
    }
    let present: Vec<String> = scope
        .files
        .iter()
        .filter(|f| f.text.is_some())
        .map(|f| f.path.display().to_string())
        .collect();
    if present.is_empty() {
        let paths: Vec<String> = scope
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        return (
            Check::ok(id, format!("{label}: {} not present", paths.join(", "))),
            events,
        );
    }
    if events.is_empty() {
        let off = scope
            .hooks_off
            .as_ref()
            .map(|off| format!("; {}", off.what))
            .unwrap_or_default();
        return (
            Check::ok(
                id,
                format!(
                    "{label}: {} valid, no agentguard hooks{off}",
                    present.join(", ")
                ),
            ),
            events,
        );
    }
    let list: Vec<&str> = events.iter().map(String::as_str).collect();
    let summary = format!(
        "{label}: agentguard hooks for {} in {} run {}",
        list.join(", "),
        found_files.join(", "),
        programs.into_iter().collect::<Vec<_>>().join(", ")
    );
    if let Some(off) = &scope.hooks_off {
        return (
            Check::fail(id, format!("{summary}, but {}", off.what), off.fix.clone()),
            events,
        );
    }
    if found_files.len() > 1 {
        return (
            Check::warn(
                id,
                format!("{summary}: both files hold them, so Codex runs each hook twice"),
                format!(
                    "keep one: remove agentguard's entries from one file by hand, or run \
                     agentguard uninstall {} then {install}",
                    scope.install_args
                ),
            ),
            events,
        );
    }
    if let Some((what, fix)) = warnings.into_iter().next() {
        return (Check::warn(id, format!("{summary}; {what}"), fix), events);
    }
    (Check::ok(id, summary), events)
}

/// Whether agentguard's hooks are installed anywhere.
pub fn check_hooks_installed(installed: &BTreeMap<String, BTreeSet<String>>) -> Check {
    let id = "hooks.installed";
    let places: Vec<String> = installed
        .iter()
        .filter(|(_, events)| !events.is_empty())
        .map(|(scope, events)| {
            format!(
                "{scope} ({})",
                events.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    if places.is_empty() {
        Check::warn(
            id,
            "agentguard's hooks are not installed in any Claude Code or Codex settings: nothing \
             calls agentguard",
            "agentguard install (Claude Code), agentguard install --host codex (Codex)",
        )
    } else {
        Check::ok(id, format!("hooks installed in {}", places.join("; ")))
    }
}

// ---------------------------------------------------------------------------------------------
// Agent CLIs

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
    /// claude or codex.
    pub name: String,
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
    let id = format!("cli.{}", facts.name);
    let name = &facts.name;
    let install = match name.as_str() {
        "codex" => "npm install -g @openai/codex",
        _ => "npm install -g @anthropic-ai/claude-code",
    };
    let problem = |message: String, fix: String| {
        if chosen {
            Check::fail(&id, format!("{message} (it is the judge backend)"), fix)
        } else {
            Check::warn(&id, message, fix)
        }
    };
    let Some(path) = &facts.path else {
        let message = format!("{name}: `{}` not found on PATH", facts.binary);
        let fix = format!("{install}, or set judge.{name}.binary to its full path");
        if chosen {
            return Check::fail(&id, format!("{message} (it is the judge backend)"), fix);
        }
        if hooked {
            return Check::warn(&id, format!("{message} (its hooks are installed)"), fix);
        }
        return Check::ok(
            &id,
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
            &id,
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

// ---------------------------------------------------------------------------------------------
// Probe

/// The probe's text: a clear, unverified proposal to commit and push, which the `commit`
/// detector must block.
pub const PROBE_TEXT: &str = "Implementation done. Shall I commit and push to main now?";

/// What the configured judge made of [`PROBE_TEXT`].
pub fn check_probe(backend: &str, judgement: &crate::error::Result<Judgement>) -> Check {
    let id = "probe";
    let judgement = match judgement {
        Ok(judgement) => judgement,
        Err(err) => {
            return Check::fail(
                id,
                format!("probe through {backend}: {}", err.message),
                err.hint
                    .clone()
                    .unwrap_or_else(|| "fix the configuration".into()),
            );
        }
    };
    let Some(outcome) = judgement.detectors.first() else {
        return Check::fail(id, "probe: no detector ran", "enable the commit detector");
    };
    if !matches!(outcome.layer1, Layer1::Hit { .. }) {
        return Check::warn(
            id,
            format!(
                "probe: Layer 1 of `commit` did not hit \"{PROBE_TEXT}\" ({}), so no judge was called",
                outcome.layer1.label()
            ),
            "check your [[detectors]] override of `commit` (triggers, skips)",
        );
    }
    let used = outcome.backend.as_deref().unwrap_or(backend);
    let model = outcome
        .model
        .as_deref()
        .map(|m| format!(", model {m}"))
        .unwrap_or_default();
    let took = format!("{} ms", outcome.latency_ms);
    match outcome.verdict {
        Verdict::Violation => Check::ok(
            id,
            format!("probe: {used}{model} judged a clear commit proposal a violation in {took}"),
        ),
        Verdict::Allow => Check::warn(
            id,
            format!(
                "probe: {used}{model} answered in {took} but allowed a clear commit proposal \
                 (\"{PROBE_TEXT}\")"
            ),
            "try another model or backend; measure it with agentguard judge --eval <labeled.jsonl>",
        ),
        Verdict::Fail => {
            let cause = outcome.error_cause.as_deref().unwrap_or("unknown");
            Check::fail(
                id,
                format!(
                    "probe: {used}{model} failed after {took} ({cause}): {}",
                    outcome.error.as_deref().unwrap_or("unknown error")
                ),
                failure_fix(cause),
            )
        }
    }
}

/// How to address a judge failure of a given cause.
fn failure_fix(cause: &str) -> String {
    match cause {
        "timeout" => "raise judge.deadline_ms (below the hook timeout of 60 s) or choose a faster \
                      backend"
            .into(),
        "spawn" => "check that the backend's program exists and runs (see the cli checks)".into(),
        "http" => "check the API key, judge.<backend>.base_url and the network".into(),
        "config" => "fix the judge backend configuration (see the backend check)".into(),
        _ => "run agentguard doctor --probe and agentguard judge on a text to see the judge's \
              error; agentguard logs --verdict fail shows the logged ones"
            .into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Decision log

/// What the command found at the log directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogDir {
    /// The directory exists.
    Exists {
        writable: bool,
        /// Permission bits.
        mode: u32,
    },
    /// It does not exist yet; the nearest existing ancestor, and whether we could create in it.
    Missing { ancestor: PathBuf, writable: bool },
    /// The path exists but is not a directory.
    NotADirectory,
    /// The platform has no data directory and none is configured.
    Unknown,
}

/// The log directory is (or can be created) writable, and private. Doctor changes nothing:
/// a missing directory is judged by its nearest existing ancestor.
pub fn check_log_dir(enabled: bool, dir: Option<&Path>, state: &LogDir) -> Check {
    let id = "log.dir";
    if !enabled {
        return Check::warn(
            id,
            "decision log: off (log.enabled = false); judge failures and hook activity are invisible",
            "agentguard config set log.enabled true",
        );
    }
    let shown = dir.map_or("(none)".to_string(), |d| d.display().to_string());
    match state {
        LogDir::Unknown => Check::fail(
            id,
            "decision log: no data directory on this platform",
            "set log.dir: agentguard config set log.dir /path/to/logs",
        ),
        LogDir::NotADirectory => Check::fail(
            id,
            format!("decision log: {shown} exists but is not a directory"),
            format!("move {shown} away, or set log.dir to another path"),
        ),
        LogDir::Exists {
            writable: false, ..
        } => Check::fail(
            id,
            format!("decision log: {shown} is not writable; hooks cannot log"),
            format!("chmod u+w {shown}"),
        ),
        LogDir::Exists { mode, .. } if mode & 0o077 != 0 => Check::warn(
            id,
            format!(
                "decision log: {shown} is writable but readable by others (mode {:o}); it holds \
                 the agent's redacted texts",
                mode & 0o777
            ),
            format!("chmod 700 {shown}"),
        ),
        LogDir::Exists { .. } => Check::ok(id, format!("decision log: {shown} is writable")),
        LogDir::Missing {
            ancestor,
            writable: true,
        } => Check::ok(
            id,
            format!(
                "decision log: {shown} does not exist yet; the first decision creates it (in {})",
                ancestor.display()
            ),
        ),
        LogDir::Missing {
            ancestor,
            writable: false,
        } => Check::fail(
            id,
            format!(
                "decision log: {shown} does not exist and {} is not writable, so hooks cannot \
                 create it",
                ancestor.display()
            ),
            format!("create it: mkdir -p -m 700 {shown}, or set log.dir to a writable path"),
        ),
    }
}

/// A log-derived check when the log is off: unknown, and said once as a warning in `log.dir`.
pub fn check_not_logged(id: &str, what: &str) -> Check {
    Check::ok(
        id,
        format!("{what}: not known, the decision log is off (see the log.dir check)"),
    )
}

fn timestamp(record: &Record) -> Option<jiff::Timestamp> {
    record.ts.parse().ok()
}

const DAY_SECONDS: i64 = 24 * 60 * 60;

fn within_day(record: &Record, now: jiff::Timestamp) -> bool {
    timestamp(record).is_some_and(|ts| now.as_second() - ts.as_second() <= DAY_SECONDS)
}

/// Judge failures of the last 24 hours, by cause. A warning when some failed; a failure
/// when at least half of the judge calls failed (the judge is effectively broken).
pub fn check_judge_failures(records: &[Record], now: jiff::Timestamp) -> Check {
    let id = "log.judge_failures";
    let mut calls = 0usize;
    let mut by_cause: BTreeMap<String, usize> = BTreeMap::new();
    let mut last_error: Option<(&str, &str)> = None;
    for record in records.iter().filter(|r| within_day(r, now)) {
        let mut outcome_failed = false;
        for outcome in &record.detectors {
            if matches!(outcome.layer1, Layer1::Hit { .. }) && outcome.backend.is_some()
                || outcome.verdict == Verdict::Fail
            {
                calls += 1;
            }
            if outcome.verdict == Verdict::Fail {
                outcome_failed = true;
                let cause = outcome.error_cause.as_deref().unwrap_or("unknown");
                *by_cause.entry(cause.to_string()).or_default() += 1;
                last_error = Some((&record.ts, outcome.error.as_deref().unwrap_or("")));
            }
        }
        // A hook that could not judge at all (bad input, broken config, unreadable transcript).
        if record.verdict == Verdict::Fail && !outcome_failed {
            calls += 1;
            *by_cause.entry("hook".to_string()).or_default() += 1;
            last_error = Some((&record.ts, record.error.as_deref().unwrap_or("")));
        }
    }
    let failures: usize = by_cause.values().sum();
    if failures == 0 {
        return Check::ok(
            id,
            format!("judge failures in the last 24 h: none ({calls} judge calls)"),
        );
    }
    let causes: Vec<String> = by_cause.iter().map(|(c, n)| format!("{c} {n}")).collect();
    let mut message = format!(
        "judge failures in the last 24 h: {failures} of {calls} judge calls ({})",
        causes.join(", ")
    );
    if let Some((ts, error)) = last_error {
        message.push_str(&format!(
            "; last at {ts}: {}",
            crate::text::one_line(error, 160)
        ));
    }
    let top = by_cause
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(c, _)| c.as_str())
        .unwrap_or("unknown");
    let fix = if top == "hook" {
        "agentguard logs --verdict fail shows what the hooks could not judge; fix the config \
         or input named there"
            .to_string()
    } else {
        failure_fix(top)
    };
    if failures * 2 >= calls {
        Check::fail(id, message, fix)
    } else {
        Check::warn(id, message, fix)
    }
}

/// When a hook last ran: a hook that silently stopped firing is the failure users cannot see.
/// `events`: the record events that count (Stop and SubagentStop for the Stop hook);
/// `installed`: whether our hook for it is in any settings file.
pub fn check_hook_activity(
    id: &str,
    label: &str,
    events: &[&str],
    installed: bool,
    records: &[Record],
    now: jiff::Timestamp,
) -> Check {
    let last = records
        .iter()
        .filter(|r| events.contains(&r.event.as_str()))
        .filter_map(|r| timestamp(r).map(|ts| (ts, r)))
        .max_by_key(|(ts, _)| *ts);
    let fix = "check that the agent host loads the hooks (Claude Code: /hooks in a session; \
               Codex: trust them in /hooks) and that the session was started after agentguard \
               install";
    match last {
        None if installed => Check::warn(
            id,
            format!("{label} hook: installed, but never ran (no {label} decision in the log)"),
            fix,
        ),
        None => Check::ok(id, format!("{label} hook: not installed, never ran")),
        Some((ts, record)) => {
            let ago = now.as_second() - ts.as_second();
            let message = format!(
                "{label} hook: last ran {} ago ({ts}, {})",
                human_duration(ago),
                record.host
            );
            if installed && ago > DAY_SECONDS {
                Check::warn(id, format!("{message}: nothing in the last 24 h"), fix)
            } else {
                Check::ok(id, message)
            }
        }
    }
}

fn human_duration(seconds: i64) -> String {
    let seconds = seconds.max(0);
    match seconds {
        s if s < 120 => format!("{s} s"),
        s if s < 2 * 3600 => format!("{} min", s / 60),
        s if s < 2 * 86400 => format!("{} h", s / 3600),
        s => format!("{} days", s / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Outcome;

    fn now() -> jiff::Timestamp {
        "2026-11-30T12:00:00Z".parse().unwrap()
    }

    fn record(ts: &str, event: &str, verdict: Verdict) -> Record {
        Record {
            ts: ts.into(),
            host: "claude".into(),
            event: event.into(),
            verdict,
            ..Record::default()
        }
    }

    fn outcome(verdict: Verdict, cause: Option<&str>) -> Outcome {
        Outcome {
            detector: "commit".into(),
            layer1: Layer1::Hit {
                pattern: "commit".into(),
                start: 0,
                end: 6,
            },
            verdict,
            fields: BTreeMap::new(),
            reason: None,
            backend: Some("codex".into()),
            model: None,
            latency_ms: 900,
            error: cause.map(|c| format!("{c} error")),
            error_cause: cause.map(str::to_string),
            redactions: BTreeMap::new(),
        }
    }

    #[test]
    fn report_is_unhealthy_only_with_a_failure_and_renders_plain_lines() {
        let report = Report::new(vec![
            Check::ok("a", "fine"),
            Check::warn("b", "meh", "do x"),
        ]);
        assert!(report.healthy);
        let text = report.render(false);
        assert!(text.starts_with("✓ fine\n! meh — fix: do x\n"), "{text}");
        assert!(text.ends_with("healthy, with 1 warning\n"));
        assert!(!text.contains('\x1b'));
        let report = Report::new(vec![Check::fail("c", "broken", "fix it")]);
        assert!(!report.healthy);
        assert!(report.render(true).contains("\x1b[31m✗\x1b[0m broken"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"healthy": false, "checks": [
                {"id": "c", "status": "fail", "message": "broken", "fix": "fix it"}]})
        );
    }

    #[test]
    fn binary_check_names_a_shadowing_copy() {
        let exe = Path::new("/opt/bin/agentguard");
        assert_eq!(check_binary(exe, "0.1.0", Some(exe)).status, Status::Ok);
        let other = check_binary(exe, "0.1.0", Some(Path::new("/usr/bin/agentguard")));
        assert_eq!(other.status, Status::Warn);
        assert!(other.message.contains("/usr/bin/agentguard"));
        assert_eq!(check_binary(exe, "0.1.0", None).status, Status::Warn);
        let renamed = check_binary(Path::new("/tmp/ag"), "0.1.0", Some(exe));
        assert_eq!(renamed.status, Status::Warn);
    }

    #[test]
    fn config_file_check_reports_the_loader_error() {
        let path = Path::new("/u/config.toml");
        let ok = check_config_file("config.user", "user", Some(path), None);
        assert_eq!(ok.status, Status::Ok);
        assert!(ok.message.contains("not present"));
        let err = crate::config::Config::from_layers(&[
            (
                crate::config::Source::Defaults,
                crate::config::DEFAULT_CONFIG.to_string(),
            ),
            (
                crate::config::Source::File(path.into()),
                "[judge\n".to_string(),
            ),
        ]);
        let check = check_config_file("config.user", "user", Some(path), Some(&err));
        assert_eq!(check.status, Status::Fail);
        assert!(
            check.message.contains("/u/config.toml:1:"),
            "{}",
            check.message
        );
        assert!(check.fix.is_some());
    }

    #[test]
    fn env_check_warns_on_the_kill_switch_and_fails_on_a_broken_config() {
        let config = Ok(crate::config::Config::defaults());
        let env = [("AGENTGUARD_BACKEND", Some("rules".to_string()))];
        let check = check_config_env(&env, &config);
        assert_eq!(check.status, Status::Ok);
        assert!(check.message.contains("AGENTGUARD_BACKEND=rules"));
        let env = [("AGENTGUARD_DISABLE", Some("1".to_string()))];
        assert_eq!(check_config_env(&env, &config).status, Status::Warn);
        let broken = Err(crate::error::Error::config("bad"));
        assert_eq!(check_config_env(&[], &broken).status, Status::Fail);
    }

    #[test]
    fn detectors_check_compiles_patterns() {
        let config = crate::config::Config::defaults();
        assert_eq!(check_detectors(Some(&config)).status, Status::Ok);
        let mut broken = config.clone();
        broken.detectors.push(crate::detectors::DetectorSpec {
            name: "commit".into(),
            triggers: Some(vec!["(unclosed".into()]),
            ..Default::default()
        });
        let check = check_detectors(Some(&broken));
        assert_eq!(check.status, Status::Fail);
        assert!(check.message.contains("commit"), "{}", check.message);
        assert_eq!(check_detectors(None).status, Status::Warn);
    }

    fn availability() -> Vec<Availability> {
        let row = |name: &str, usable: Option<&str>, unusable: &str| Availability {
            name: name.into(),
            usable: usable.map(str::to_string),
            unusable: unusable.into(),
        };
        vec![
            row("rules", Some("built in, offline"), ""),
            row("command", None, "judge.command.argv is empty"),
            row("codex", Some("found /bin/codex"), ""),
            row("claude", None, "`claude` not found on PATH"),
            row("openai", None, "$OPENAI_API_KEY is not set"),
            row("anthropic", None, "$ANTHROPIC_API_KEY is not set"),
        ]
    }

    #[test]
    fn backend_check_says_what_auto_picked_and_why() {
        let order: Vec<String> = ["openai", "anthropic", "codex", "claude", "rules"]
            .map(String::from)
            .to_vec();
        let auto = ("codex".to_string(), "found /bin/codex".to_string());
        let (check, chosen) = check_backend("auto", &order, &auto, &availability());
        assert_eq!(chosen, "codex");
        assert_eq!(check.status, Status::Ok);
        assert!(
            check
                .message
                .contains("auto picked codex (found /bin/codex)")
        );
        assert!(check.message.contains("openai: $OPENAI_API_KEY is not set"));
        let rules = (
            "rules".to_string(),
            "no other backend is usable".to_string(),
        );
        assert_eq!(
            check_backend("auto", &order, &rules, &availability())
                .0
                .status,
            Status::Warn
        );
        let (check, chosen) = check_backend("claude", &order, &auto, &availability());
        assert_eq!((check.status, chosen.as_str()), (Status::Fail, "claude"));
        assert!(check.fix.unwrap().contains("npm install"));
        assert_eq!(
            check_backend("rules", &order, &auto, &availability())
                .0
                .status,
            Status::Ok
        );
    }

    #[test]
    fn hook_entries_are_read_from_json_and_toml() {
        let json = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "lint"},
            {"type": "command", "command": "/x/agentguard hook stop --host claude"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "agentguard hook pre-tool"}]}]}}"#;
        let entries = hook_entries(Format::Json, json).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].event, "Stop");
        assert_eq!(entries[1].command, "agentguard hook pre-tool");
        let toml = "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"/x/agentguard hook stop --host codex\"\n";
        assert_eq!(hook_entries(Format::Toml, toml).unwrap().len(), 1);
        assert!(hook_entries(Format::Json, "").unwrap().is_empty());
        let err = hook_entries(Format::Json, "{\n  \"a\": 1,\n  \"b\" 2\n}\n").unwrap_err();
        assert_eq!((err.line, err.column), (Some(3), Some(7)));
    }

    #[test]
    fn command_host_is_read_with_the_claude_default() {
        let ours = hosts::command::parse("'/a b/agentguard' hook stop --host codex").unwrap();
        assert_eq!(
            (ours.program.as_str(), ours.host.as_str()),
            ("/a b/agentguard", "codex")
        );
        assert_eq!(
            hosts::command::parse("agentguard hook stop").unwrap().host,
            "claude"
        );
    }

    fn scope_files(text: Option<&str>) -> Vec<SettingsFile> {
        vec![SettingsFile {
            path: "/h/.claude/settings.json".into(),
            format: Format::Json,
            text: text.map(|t| Ok(t.to_string())),
        }]
    }

    fn scope(files: &[SettingsFile]) -> Scope<'_> {
        Scope {
            id: "settings.claude.user",
            label: "Claude Code user settings",
            host: Host::Claude,
            install_args: "--scope user",
            files,
            hooks_off: None,
        }
    }

    #[test]
    fn settings_scope_reports_moved_binaries_bad_json_and_wrong_hosts() {
        let stop = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/agentguard hook stop --host claude"}]}]}}"#;
        let files = scope_files(Some(stop));
        let (check, events) = check_settings_scope(&scope(&files), &|_| Program::Running);
        assert_eq!(check.status, Status::Ok, "{}", check.message);
        assert_eq!(events.into_iter().collect::<Vec<_>>(), ["Stop"]);

        let (check, events) = check_settings_scope(&scope(&files), &|_| Program::Missing);
        assert_eq!(check.status, Status::Fail);
        assert!(
            events.contains("Stop"),
            "a broken hook is still an installed one"
        );
        assert!(
            check
                .message
                .contains("/old/agentguard, which does not exist")
        );
        assert_eq!(
            check.fix.as_deref(),
            Some("agentguard install --scope user")
        );

        let (check, _) = check_settings_scope(&scope(&files), &|_| {
            Program::Other("/usr/bin/agentguard".into())
        });
        assert_eq!(check.status, Status::Warn);

        let files = scope_files(Some("{\n  \"hooks\": {,\n}"));
        let (check, _) = check_settings_scope(&scope(&files), &|_| Program::Running);
        assert_eq!(check.status, Status::Fail);
        assert!(
            check.message.contains("settings.json:2:"),
            "{}",
            check.message
        );
        assert!(check.fix.unwrap().contains("line 2"));

        let codex = stop.replace("--host claude", "--host codex");
        let files = scope_files(Some(&codex));
        let (check, _) = check_settings_scope(&scope(&files), &|_| Program::Running);
        assert_eq!(check.status, Status::Fail);
        assert!(check.message.contains("--host codex"));

        let files = scope_files(None);
        let (check, events) = check_settings_scope(&scope(&files), &|_| Program::Running);
        assert_eq!(check.status, Status::Ok);
        assert!(check.message.contains("not present") && events.is_empty());
    }

    #[test]
    fn codex_scope_with_hooks_switched_off_fails() {
        let files = vec![SettingsFile {
            path: "/h/.codex/hooks.json".into(),
            format: Format::Json,
            text: Some(Ok(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agentguard hook stop --host codex"}]}]}}"#.into())),
        }];
        let scope = Scope {
            id: "settings.codex.user",
            label: "Codex user hooks",
            host: Host::Codex,
            install_args: "--host codex --scope user",
            files: &files,
            hooks_off: hooks_off(
                Host::Codex,
                Format::Toml,
                Path::new("/h/.codex/config.toml"),
                "[features]\nhooks = false\n",
            ),
        };
        let (check, _) = check_settings_scope(&scope, &|_| Program::Running);
        assert_eq!(check.status, Status::Fail);
        assert!(check.message.contains("hooks = false"));
    }

    #[test]
    fn claude_disable_all_hooks_is_found() {
        let path = Path::new("/h/.claude/settings.json");
        let off = hooks_off(
            Host::Claude,
            Format::Json,
            path,
            r#"{"disableAllHooks": true}"#,
        )
        .unwrap();
        assert!(off.what.contains("disableAllHooks"));
        assert!(
            hooks_off(
                Host::Claude,
                Format::Json,
                path,
                r#"{"disableAllHooks": false}"#
            )
            .is_none()
        );
        assert!(
            hooks_off(
                Host::Codex,
                Format::Json,
                path,
                r#"{"disableAllHooks": true}"#
            )
            .is_none()
        );
        let text = r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agentguard hook stop"}]}]}}"#;
        let files = scope_files(Some(text));
        let scope = Scope {
            hooks_off: Some(off),
            ..scope(&files)
        };
        let (check, _) = check_settings_scope(&scope, &|_| Program::Running);
        assert_eq!(check.status, Status::Fail);
        assert!(check.fix.unwrap().starts_with("remove \"disableAllHooks\""));
    }

    #[test]
    fn hooks_installed_summary() {
        let mut installed = BTreeMap::new();
        installed.insert("settings.claude.user".to_string(), BTreeSet::new());
        assert_eq!(check_hooks_installed(&installed).status, Status::Warn);
        installed.insert(
            "settings.codex.user".to_string(),
            BTreeSet::from(["Stop".to_string()]),
        );
        assert_eq!(check_hooks_installed(&installed).status, Status::Ok);
    }

    #[test]
    fn help_options_read_definitions_not_descriptions() {
        let claude = "Options:\n  -p, --print                           Print response\n  \
                      --allowedTools, --allowed-tools <tools...>\n  \
                      --tools <tools...>                    Built-in tools\n                                        \
                      --strict-mcp-config to skip MCP servers\n";
        let names = help_options(claude);
        assert!(names.contains("-p") && names.contains("--print"));
        assert!(names.contains("--allowed-tools") && names.contains("--tools"));
        assert!(!names.contains("--strict-mcp-config"));
        let codex =
            "  -o, --output-last-message <FILE>\n          Specifies file\n      --ephemeral\n";
        assert_eq!(
            missing_flags(codex, CODEX_EXEC_FLAGS),
            [
                "--sandbox",
                "--skip-git-repo-check",
                "--output-schema",
                "-m/--model"
            ]
        );
    }

    #[test]
    fn recorded_help_texts_have_every_flag() {
        let claude = include_str!("../tests/fixtures/help/claude-2.1.332.txt");
        assert_eq!(missing_flags(claude, CLAUDE_FLAGS), Vec::<String>::new());
        let codex = include_str!("../tests/fixtures/help/codex-exec-0.171.0.txt");
        assert_eq!(missing_flags(codex, CODEX_EXEC_FLAGS), Vec::<String>::new());
    }

    fn facts(path: Option<&str>, help: &str) -> CliFacts {
        CliFacts {
            name: "codex".into(),
            binary: "codex".into(),
            path: path.map(PathBuf::from),
            version: Ok("codex-cli 0.171.0".into()),
            help: Ok(help.into()),
            help_command: "codex exec --help".into(),
        }
    }

    #[test]
    fn cli_check_fails_only_for_the_chosen_backend() {
        let missing = facts(None, "");
        assert_eq!(
            check_cli(&missing, CODEX_EXEC_FLAGS, false, false).status,
            Status::Ok
        );
        assert_eq!(
            check_cli(&missing, CODEX_EXEC_FLAGS, false, true).status,
            Status::Warn
        );
        let chosen = check_cli(&missing, CODEX_EXEC_FLAGS, true, false);
        assert_eq!(chosen.status, Status::Fail);
        assert_eq!(
            chosen.message.matches("judge backend").count(),
            1,
            "{}",
            chosen.message
        );
        let old = facts(Some("/bin/codex"), "  --sandbox <MODE>\n");
        assert_eq!(
            check_cli(&old, CODEX_EXEC_FLAGS, false, false).status,
            Status::Warn
        );
        let check = check_cli(&old, CODEX_EXEC_FLAGS, true, false);
        assert_eq!(check.status, Status::Fail);
        assert!(check.message.contains("--ephemeral"));
        let good = include_str!("../tests/fixtures/help/codex-exec-0.171.0.txt");
        let check = check_cli(
            &facts(Some("/bin/codex"), good),
            CODEX_EXEC_FLAGS,
            true,
            false,
        );
        assert_eq!(check.status, Status::Ok, "{}", check.message);
        assert!(check.message.contains("0.171.0"));
    }

    #[test]
    fn probe_check_by_verdict() {
        let judged = |o: Outcome| Ok(Judgement::from_outcomes(vec![o]));
        let ok = check_probe("codex", &judged(outcome(Verdict::Violation, None)));
        assert_eq!(ok.status, Status::Ok);
        assert!(ok.message.contains("900 ms"));
        assert_eq!(
            check_probe("codex", &judged(outcome(Verdict::Allow, None))).status,
            Status::Warn
        );
        let failed = check_probe("codex", &judged(outcome(Verdict::Fail, Some("timeout"))));
        assert_eq!(failed.status, Status::Fail);
        assert!(failed.fix.unwrap().contains("deadline_ms"));
        let mut miss = outcome(Verdict::Allow, None);
        miss.layer1 = Layer1::Miss;
        assert_eq!(check_probe("codex", &judged(miss)).status, Status::Warn);
    }

    #[test]
    fn log_dir_check_never_needs_the_dir_to_exist() {
        let dir = Path::new("/h/logs");
        let exists = |writable, mode| LogDir::Exists { writable, mode };
        assert_eq!(
            check_log_dir(true, Some(dir), &exists(true, 0o700)).status,
            Status::Ok
        );
        assert_eq!(
            check_log_dir(true, Some(dir), &exists(true, 0o755)).status,
            Status::Warn
        );
        assert_eq!(
            check_log_dir(true, Some(dir), &exists(false, 0o500)).status,
            Status::Fail
        );
        let missing = |writable| LogDir::Missing {
            ancestor: "/h".into(),
            writable,
        };
        assert_eq!(
            check_log_dir(true, Some(dir), &missing(true)).status,
            Status::Ok
        );
        assert_eq!(
            check_log_dir(true, Some(dir), &missing(false)).status,
            Status::Fail
        );
        assert_eq!(
            check_log_dir(false, Some(dir), &missing(true)).status,
            Status::Warn
        );
        assert_eq!(
            check_log_dir(true, None, &LogDir::Unknown).status,
            Status::Fail
        );
    }

    #[test]
    fn judge_failures_are_counted_by_cause_in_the_last_day() {
        let mut records = Vec::new();
        for (ts, verdict, cause) in [
            ("2026-11-30T11:00:00Z", Verdict::Fail, Some("timeout")),
            ("2026-11-30T10:00:00Z", Verdict::Fail, Some("timeout")),
            ("2026-11-30T09:00:00Z", Verdict::Fail, Some("exit")),
            ("2026-11-30T08:00:00Z", Verdict::Violation, None),
            ("2026-11-30T07:00:00Z", Verdict::Allow, None),
            ("2026-11-30T06:00:00Z", Verdict::Allow, None),
            ("2026-11-30T05:00:00Z", Verdict::Allow, None),
            // Older than a day: not counted.
            ("2026-11-28T11:00:00Z", Verdict::Fail, Some("spawn")),
        ] {
            let mut r = record(ts, "Stop", verdict);
            r.detectors.push(outcome(verdict, cause));
            records.push(r);
        }
        let check = check_judge_failures(&records, now());
        assert_eq!(check.status, Status::Warn, "{}", check.message);
        assert!(
            check
                .message
                .contains("3 of 7 judge calls (exit 1, timeout 2)"),
            "{}",
            check.message
        );
        assert!(check.fix.unwrap().contains("deadline_ms"));

        let mut hook_failure = record("2026-11-30T11:30:00Z", "Stop", Verdict::Fail);
        hook_failure.error = Some("config broken".into());
        let check = check_judge_failures(&[hook_failure, records[0].clone()], now());
        assert_eq!(check.status, Status::Fail);
        assert!(check.message.contains("hook 1"), "{}", check.message);
        assert_eq!(
            check_judge_failures(&records[3..7], now()).status,
            Status::Ok
        );
    }

    #[test]
    fn hook_activity_warns_when_an_installed_hook_went_quiet() {
        let stop = ["Stop", "SubagentStop"];
        let recent = [record(
            "2026-11-30T11:00:00Z",
            "SubagentStop",
            Verdict::Allow,
        )];
        let check = check_hook_activity("hooks.stop_activity", "Stop", &stop, true, &recent, now());
        assert_eq!(check.status, Status::Ok);
        assert!(check.message.contains("60 min ago"), "{}", check.message);
        let old = [record("2026-11-27T11:00:00Z", "Stop", Verdict::Allow)];
        let check = check_hook_activity("hooks.stop_activity", "Stop", &stop, true, &old, now());
        assert_eq!(check.status, Status::Warn);
        assert!(check.message.contains("3 days ago"), "{}", check.message);
        let check = check_hook_activity("hooks.stop_activity", "Stop", &stop, true, &[], now());
        assert_eq!(check.status, Status::Warn);
        assert!(check.message.contains("never"));
        let check = check_hook_activity("hooks.stop_activity", "Stop", &stop, false, &[], now());
        assert_eq!(check.status, Status::Ok);
    }
}
