//! The decision log: its directory, the judge failures and the hook activity in it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::log::Record;
use crate::pipeline::{Layer1, Verdict};

use super::probe::failure_fix;
use super::{Check, CheckId};

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
    let id = CheckId::LogDir;
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
pub fn check_not_logged(id: CheckId, what: &str) -> Check {
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
    let id = CheckId::LogJudgeFailures;
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
    id: CheckId,
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
