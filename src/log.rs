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

use crate::config::LogConfig;
use crate::guard::{Action, Decision};
use crate::pipeline::{Outcome, Verdict};
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
    pub verdict: Verdict,
    /// What the hook did: allow, block, release, ask, deny.
    pub action: Action,
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
    /// The turn's tool calls the decision used (read when a detector hit), redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<crate::evidence::EvidenceLog>,
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

impl Record {
    /// Takes the decision: what was done and why, the detectors that ran, and the outcomes
    /// worth keeping (Layer 1 hits and skips; a miss is implied by `detectors_run`).
    pub fn set_decision(&mut self, decision: Decision) {
        self.verdict = decision.verdict;
        self.action = decision.action;
        self.rule = decision.rule;
        self.release = decision.release.map(str::to_string);
        self.error = decision.error;
        self.message = decision.message;
        self.detectors_run = decision.detectors_run;
        if let Some(judgement) = decision.judgement {
            self.detectors = judgement
                .detectors
                .into_iter()
                .filter(|o| o.layer1 != crate::pipeline::Layer1::Miss)
                .collect();
        }
    }
}

/// The log keeps at most this much of a judged text (its end, where the final words are):
/// enough to replay a decision, small enough that a day of stops stays a few MB.
const LOG_TEXT_MAX_BYTES: usize = 32 * 1024;

impl Record {
    /// Records the judged text's hash and, with `keep_text` (`log.store_text`), its redacted
    /// end: redacted whole, then cut, so the cut never falls inside a secret (a token cut after
    /// its prefix would be kept).
    pub fn store_text(&mut self, text: &str, keep_text: bool) {
        self.text_sha256 = Some(crate::text::sha256_hex(text));
        if keep_text {
            let redacted = crate::redact::Redactor::builtin()
                .redact_mapped(text)
                .tail(LOG_TEXT_MAX_BYTES);
            for (kind, count) in &redacted.counts {
                *self.redactions.entry(kind.clone()).or_default() += count;
            }
            self.text = Some(redacted.text);
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
        create_private_dir(dir)?;
    }
    append_json_line(&path, record)?;
    if new_day {
        remove_old_files(dir, today, retention_days);
    }
    Ok(path)
}

/// Appends `record` where the log settings say (the defaults without a config); a log that
/// cannot be written must not break a hook, so errors are dropped.
pub fn append_per_config(config: Option<&LogConfig>, record: &Record) {
    if !config.is_none_or(|c| c.enabled) {
        return;
    }
    let dir = config
        .and_then(|c| c.dir.clone())
        .or_else(crate::paths::log_dir);
    let retention = config.map_or(30, |c| c.retention_days);
    if let Some(dir) = dir {
        let _ = append(&dir, record, retention);
    }
}

/// A record rendered ahead of time, for a writer that can only make system calls (the
/// PreToolUse deadline's signal handler, `deadline::Expiry`): the directory to create (0700), today's file
/// (0600) and the line.
pub struct PreparedLine {
    pub dir: PathBuf,
    pub path: PathBuf,
    pub line: Vec<u8>,
}

/// What [`append_per_config`] would write for `record` now, or `None` where it would write
/// nothing (logging off, no log directory).
pub fn prepare_per_config(config: Option<&LogConfig>, record: &Record) -> Option<PreparedLine> {
    if !config.is_none_or(|c| c.enabled) {
        return None;
    }
    let dir = config
        .and_then(|c| c.dir.clone())
        .or_else(crate::paths::log_dir)?;
    let today = jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date();
    let mut line = serde_json::to_vec(record).ok()?;
    line.push(b'\n');
    Some(PreparedLine {
        path: file_for_day(&dir, today),
        dir,
        line,
    })
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

/// A line of a day file that is not a record (a torn or hand-edited line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub path: PathBuf,
    /// 1-based.
    pub line: usize,
    pub error: String,
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: not a decision record, skipped ({})",
            self.path.display(),
            self.line,
            self.error
        )
    }
}

/// The records of one day file, read line by line (never the whole file at once).
pub struct FileRecords {
    path: PathBuf,
    reader: std::io::BufReader<std::fs::File>,
    line: usize,
    buf: Vec<u8>,
    done: bool,
}

impl FileRecords {
    pub fn open(path: &Path) -> std::io::Result<FileRecords> {
        Ok(FileRecords {
            path: path.to_path_buf(),
            reader: std::io::BufReader::new(std::fs::File::open(path)?),
            line: 0,
            buf: Vec::new(),
            done: false,
        })
    }
}

impl Iterator for FileRecords {
    type Item = Result<Record, BadLine>;

    fn next(&mut self) -> Option<Self::Item> {
        use std::io::BufRead;
        while !self.done {
            self.buf.clear();
            self.line += 1;
            let bad = |error: String| BadLine {
                path: self.path.clone(),
                line: self.line,
                error,
            };
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) if self.buf.trim_ascii().is_empty() => {}
                Ok(_) => {
                    return Some(
                        serde_json::from_slice(self.buf.trim_ascii())
                            .map_err(|err| bad(err.to_string())),
                    );
                }
                Err(err) => {
                    self.done = true;
                    return Some(Err(bad(err.to_string())));
                }
            }
        }
        None
    }
}

/// Every record of the day files in `dir` from `from` (inclusive; `None`: all), oldest first.
/// Files that vanish while reading (retention) are passed over.
pub fn records_from(
    dir: &Path,
    from: Option<jiff::civil::Date>,
) -> impl Iterator<Item = Result<Record, BadLine>> {
    day_files(dir)
        .into_iter()
        .filter(move |(day, _)| from.is_none_or(|from| *day >= from))
        .filter_map(|(_, path)| FileRecords::open(&path).ok())
        .flatten()
}

/// The side file of human labels, next to the day files.
pub const LABELS_FILE: &str = "labels.jsonl";

/// A human label on one decision (`agentguard logs label`). The last label for an id wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub id: String,
    /// right or wrong.
    pub label: String,
    /// The detectors that should block the text, when that is not implied by the decision
    /// (a `wrong` on a decision that did not block).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub detectors: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub ts: String,
}

/// Appends one label to `labels.jsonl` in `dir` (0600).
pub fn append_label(dir: &Path, label: &Label) -> std::io::Result<PathBuf> {
    create_private_dir(dir)?;
    let path = dir.join(LABELS_FILE);
    append_json_line(&path, label)?;
    Ok(path)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Appends `value` as one JSON line to `path` (created 0600): a single `O_APPEND` write under
/// an exclusive `flock`, so concurrent writers never interleave partial lines.
fn append_json_line(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    // SAFETY: flock on a file descriptor we own; released when the file is closed.
    unsafe {
        libc::flock(file.as_raw_fd(), libc::LOCK_EX);
    }
    file.write_all(&line)
}

/// The labels in `dir`, the last one per id; bad lines are returned apart.
pub fn read_labels(dir: &Path) -> (std::collections::HashMap<String, Label>, Vec<BadLine>) {
    use std::io::BufRead;
    let path = dir.join(LABELS_FILE);
    let mut labels = std::collections::HashMap::new();
    let mut bad = Vec::new();
    let Ok(file) = std::fs::File::open(&path) else {
        return (labels, bad);
    };
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let parsed = line
            .map_err(|err| err.to_string())
            .and_then(|line| serde_json::from_str::<Label>(&line).map_err(|err| err.to_string()));
        match parsed {
            Ok(label) => {
                labels.insert(label.id.clone(), label);
            }
            Err(error) => bad.push(BadLine {
                path: path.clone(),
                line: index + 1,
                error,
            }),
        }
    }
    (labels, bad)
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
        record.verdict = Verdict::Allow;
        record.action = Action::Allow;
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

    #[test]
    fn reads_records_line_by_line_and_names_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut record = Record::now("claude", "Stop");
        record.verdict = Verdict::Allow;
        let line = serde_json::to_string(&record).unwrap();
        std::fs::write(
            dir.path().join("decisions-2026-01-01.jsonl"),
            format!("{line}\n{{\"torn\n\n{line}\n"),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("decisions-2026-01-02.jsonl"),
            format!("{line}\n"),
        )
        .unwrap();
        let all: Vec<_> = records_from(dir.path(), None).collect();
        assert_eq!(all.len(), 4);
        let bad = all[1].as_ref().unwrap_err();
        assert_eq!(bad.line, 2);
        assert!(bad.to_string().contains("decisions-2026-01-01.jsonl:2:"));
        assert_eq!(
            records_from(dir.path(), Some("2026-01-02".parse().unwrap())).count(),
            1
        );
    }

    #[test]
    fn last_label_wins() {
        let dir = tempfile::tempdir().unwrap();
        for value in ["right", "wrong"] {
            let label = Label {
                id: "a".into(),
                label: value.into(),
                detectors: vec![],
                note: None,
                ts: "2026-01-01T00:00:00Z".into(),
            };
            append_label(dir.path(), &label).unwrap();
        }
        let (labels, bad) = read_labels(dir.path());
        assert!(bad.is_empty());
        assert_eq!(labels["a"].label, "wrong");
    }
}
