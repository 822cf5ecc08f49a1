//! The hook entries in every settings scope of every host.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::hosts::{self, Host, OurCommand};
use crate::settings::{self, Format};

use super::{Check, CheckId};

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
    pub text: Option<Result<String, ReadError>>,
}

/// Why a file could not be read, and the fix for that cause (a directory where the file
/// should be is not a permission problem).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub message: String,
    pub fix: String,
}

/// One settings scope (`settings.<host>.<scope>`).
pub struct Scope<'a> {
    pub id: CheckId,
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
                        format!("{label}: cannot read {path}: {}", err.message),
                        err.fix.clone(),
                    ),
                    events,
                );
            }
            Some(Ok(text)) => text,
        };
        let entries = match settings::hook_entries(file.format, text) {
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
            // An older install's matcher leaves tools out (MCP tools before they were added);
            // a group without one sees every tool.
            let wanted = scope.host.pre_tool_matcher();
            if event == hosts::event_key(hosts::HookEvent::PreTool)
                && let Some(matcher) = entry.matcher.as_deref().filter(|m| *m != wanted)
            {
                warnings.push((
                    format!(
                        "the PreToolUse hook in {path} matches `{matcher}`, not `{wanted}`: the \
                         tool calls it leaves out (MCP tools, say) reach no guard"
                    ),
                    install.clone(),
                ));
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
    let id = CheckId::HooksInstalled;
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
