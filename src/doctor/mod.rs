//! The checks of `agentguard doctor`, as pure functions: each takes what the command already
//! read (file texts, help texts, log records, what a path resolves to) and returns a [`Check`].
//! The command does the I/O and the rendering.
//!
//! Check ids are part of the `--json` interface: [`CheckId`] is their one list, which the
//! README's "agentguard doctor" section repeats (a test holds the two equal).

mod agent_cli;
mod backend;
mod config;
mod hook_trust;
mod log;
mod probe;
mod settings;
#[cfg(test)]
mod tests;
pub mod trust;

pub use agent_cli::*;
pub use backend::*;
pub use config::*;
pub use hook_trust::*;
pub use log::*;
pub use probe::*;
pub use settings::*;

use serde::Serialize;

use crate::hosts::{self, Host, locations};

/// Every check, in report order (`probe` only with `--probe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckId {
    Binary,
    ConfigUser,
    ConfigProject,
    /// The project file's trust (`trust::doctor_checks`).
    TrustProject,
    /// What the hook uses instead of a layer that does not load.
    ConfigFallback,
    ConfigEnv,
    Detectors,
    Backend,
    /// `settings.<host>.<scope>`, one per scope in [`locations::SCOPES`].
    Settings(Host, hosts::Scope),
    HooksInstalled,
    /// `cli.<host>`: the host's CLI, used as a judge backend.
    Cli(Host),
    /// `codex.trust`: whether Codex runs agentguard's Codex hooks (only when installed).
    CodexTrust,
    Probe,
    LogDir,
    LogJudgeFailures,
    HooksStopActivity,
    HooksPreToolActivity,
}

impl CheckId {
    /// Every id, in report order.
    pub fn all() -> Vec<CheckId> {
        let mut all = vec![
            CheckId::Binary,
            CheckId::ConfigUser,
            CheckId::ConfigProject,
            CheckId::TrustProject,
            CheckId::ConfigFallback,
            CheckId::ConfigEnv,
            CheckId::Detectors,
            CheckId::Backend,
        ];
        all.extend(locations::SCOPES.map(|(host, scope)| CheckId::Settings(host, scope)));
        all.push(CheckId::HooksInstalled);
        all.extend(Host::ALL.map(CheckId::Cli));
        all.extend([
            CheckId::CodexTrust,
            CheckId::Probe,
            CheckId::LogDir,
            CheckId::LogJudgeFailures,
            CheckId::HooksStopActivity,
            CheckId::HooksPreToolActivity,
        ]);
        all
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fixed = match self {
            CheckId::Binary => "binary",
            CheckId::ConfigUser => "config.user",
            CheckId::ConfigProject => "config.project",
            CheckId::TrustProject => "trust.project",
            CheckId::ConfigFallback => "config.fallback",
            CheckId::ConfigEnv => "config.env",
            CheckId::Detectors => "detectors",
            CheckId::Backend => "backend",
            CheckId::Settings(host, scope) => {
                return f.write_str(&locations::scope_id(*host, *scope));
            }
            CheckId::HooksInstalled => "hooks.installed",
            CheckId::Cli(host) => return write!(f, "cli.{}", host.name()),
            CheckId::CodexTrust => "codex.trust",
            CheckId::Probe => "probe",
            CheckId::LogDir => "log.dir",
            CheckId::LogJudgeFailures => "log.judge_failures",
            CheckId::HooksStopActivity => "hooks.stop_activity",
            CheckId::HooksPreToolActivity => "hooks.pre_tool_activity",
        };
        f.write_str(fixed)
    }
}

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
    pub fn ok(id: CheckId, message: impl Into<String>) -> Check {
        Check {
            id: id.to_string(),
            status: Status::Ok,
            message: message.into(),
            fix: None,
        }
    }
    pub fn warn(id: CheckId, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            id: id.to_string(),
            status: Status::Warn,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }
    pub fn fail(id: CheckId, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            id: id.to_string(),
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
