//! The decision log: one JSONL record per hook decision (and per `judge` run), one file per UTC
//! day in the platform data dir, mode 0600. Concurrent hooks append whole lines (an exclusive
//! `flock` around a single `O_APPEND` write). Old files are removed per `log.retention_days`
//! when a new day's file is started.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::pipeline::Outcome;
use crate::redact::RedactionCounts;

pub const FILE_PREFIX: &str = "decisions-";
pub const FILE_SUFFIX: &str = ".jsonl";

/// One decision. Field names are part of the log format (documented in the README).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    /// RFC 3339, UTC, milliseconds.
    pub ts: String,
    /// claude, codex, or cli (the `judge` command).
    pub host: String,
    /// Stop, SubagentStop, PreToolUse, judge.
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// violation, allow or fail, over all detectors.
    pub verdict: String,
    /// What the hook did: allow, block, release, ask, deny (or `report` for `judge`).
    pub action: String,
    /// The enabled detectors that looked at the text (misses included, by name only).
    #[serde(default)]
    pub detectors_run: Vec<String>,
    /// Detectors whose Layer 1 hit or skipped, with the judge's outcome.
    #[serde(default)]
    pub detectors: Vec<Outcome>,
    /// For PreToolUse decisions made by rule (read-only role, destructive gate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The loop guard's release, when it let a violation through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// Why the hook could not judge (bad input, unreadable transcript, judge failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the agent or the user was shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub latency_ms: u64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub redactions: RedactionCounts,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_sha256: Option<String>,
    /// The redacted judged text (`log.store_text`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Human labels (`agentguard logs label`), stored in a side file and merged on read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl Record {
    /// A record stamped now, with a fresh id.
    pub fn now(host: &str, event: &str) -> Record {
        let now = jiff::Timestamp::now();
        Record {
            id: new_id(now),
            ts: now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
            host: host.into(),
            event: event.into(),
            ..Record::default()
        }
    }
}

/// `YYYYMMDD-HHMMSS-xxxxxx`: sortable, unique enough across concurrent hooks.
fn new_id(now: jiff::Timestamp) -> String {
    let salt = crate::pipeline::wrap::nonce();
    format!("{}-{}", now.strftime("%Y%m%d-%H%M%S"), &salt[..6])
}

/// The log file of the UTC day of `ts`.
pub fn file_for_day(dir: &Path, day: jiff::civil::Date) -> PathBuf {
    dir.join(format!("{FILE_PREFIX}{day}{FILE_SUFFIX}"))
}

/// Appends `record` as one line to today's file in `dir`, creating it 0600 (dir 0700).
pub fn append(dir: &Path, record: &Record, retention_days: u32) -> std::io::Result<PathBuf> {
    let today = jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date();
    let path = file_for_day(dir, today);
    let new_day = !path.exists();
    if new_day {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)?;
    // SAFETY: flock on a file descriptor we own; released when the file is closed.
    unsafe {
        libc::flock(file.as_raw_fd(), libc::LOCK_EX);
    }
    file.write_all(&line)?;
    drop(file);
    if new_day {
        remove_old_files(dir, today, retention_days);
    }
    Ok(path)
}

/// Removes day files older than `retention_days` (0 keeps everything).
pub fn remove_old_files(dir: &Path, today: jiff::civil::Date, retention_days: u32) {
    if retention_days == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(day) = day_of_file(&name.to_string_lossy()) else {
            continue;
        };
        if today
            .since(day)
            .is_ok_and(|span| span.get_days() > retention_days as i32)
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The day a log file name stands for.
pub fn day_of_file(name: &str) -> Option<jiff::civil::Date> {
    name.strip_prefix(FILE_PREFIX)?
        .strip_suffix(FILE_SUFFIX)?
        .parse()
        .ok()
}

/// The day files in `dir`, oldest first.
pub fn day_files(dir: &Path) -> Vec<(jiff::civil::Date, PathBuf)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| day_of_file(&e.file_name().to_string_lossy()).map(|d| (d, e.path())))
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn appends_whole_lines_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let mut record = Record::now("claude", "Stop");
        record.verdict = "allow".into();
        record.action = "allow".into();
        let path = append(&logs, &record, 30).unwrap();
        append(&logs, &record, 30).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        for line in text.lines() {
            let back: Record = serde_json::from_str(line).unwrap();
            assert_eq!(back.id, record.id);
        }
    }

    #[test]
    fn retention_removes_only_old_day_files() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "decisions-2026-01-01.jsonl",
            "decisions-2026-01-25.jsonl",
            "notes.txt",
        ] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        remove_old_files(dir.path(), "2026-01-31".parse().unwrap(), 10);
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["decisions-2026-01-25.jsonl", "notes.txt"]);
    }
}
