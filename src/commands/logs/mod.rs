//! `agentguard logs`: list, follow, show, stats, replay, label and export logged decisions.
//! The figures and mappings are in `crate::logview`; this file reads files and prints.

use std::collections::HashSet;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::tz::TimeZone;

use crate::cli::{LabelValue, LogFilter, LogsArgs, LogsCommand};
use crate::config::Config;
use crate::detectors::{Detectors, Event};
use crate::error::{Error, Result, exit};
use crate::log::{self, BadLine, Label, Record};
use crate::logview::render::{self, Paint, verdict_color};
use crate::logview::{self, Filter};
use crate::pipeline::{Judge, Pipeline};

mod follow;
mod labels;
mod list;
mod replay;
mod show;

use follow::follow_log;
#[cfg(test)]
use follow::{lines_before, read_complete_lines};
use labels::{export, label_decision};
use list::list;
use replay::{replay, stats};
use show::{find_record, show};

/// `agentguard logs` without `--since` shows this many of the newest matching decisions.
const DEFAULT_COUNT: usize = 50;
const EXCERPT_CHARS: usize = 60;
const FOLLOW_POLL: Duration = Duration::from_millis(200);

pub fn run(args: LogsArgs) -> Result<u8> {
    let cwd = std::env::current_dir().ok();
    let config = Config::load(cwd.as_deref())?;
    let dir = config
        .log
        .dir
        .clone()
        .or_else(crate::paths::log_dir)
        .ok_or_else(|| {
            Error::config("no data directory for the decision log on this platform")
                .with_hint("set `[log] dir` in the config")
        })?;
    let mut out = Output::new();
    match args.command {
        None => list(&mut out, &dir, &args.filter, args.json, args.follow),
        Some(LogsCommand::Show { id, json }) => show(&mut out, &dir, &id, json),
        Some(LogsCommand::Stats { since, json }) => stats(&mut out, &dir, since.as_deref(), json),
        Some(LogsCommand::Replay {
            filter,
            backend,
            json,
        }) => replay(&mut out, &config, &dir, &filter, backend.as_deref(), json),
        Some(LogsCommand::Label {
            id,
            label,
            note,
            detectors,
        }) => label_decision(&mut out, &config, &dir, &id, label, note, detectors),
        Some(LogsCommand::Export { labeled, filter }) => export(&mut out, &dir, &filter, labeled),
    }
}

/// Stdout with color decided once, and bad log lines reported once each on stderr.
struct Output {
    stdout: std::io::Stdout,
    style: Paint,
    reported: HashSet<(PathBuf, usize)>,
}

impl Output {
    fn new() -> Output {
        let stdout = std::io::stdout();
        let color = color_wanted(stdout.is_terminal(), std::env::var_os("NO_COLOR"));
        Output {
            stdout,
            style: Paint { color },
            reported: HashSet::new(),
        }
    }

    fn line(&mut self, text: impl AsRef<str>) -> Result<()> {
        let mut lock = self.stdout.lock();
        writeln!(lock, "{}", text.as_ref())?;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.stdout.lock().flush()?;
        Ok(())
    }

    fn bad_line(&mut self, bad: &BadLine) {
        if self.reported.insert((bad.path.clone(), bad.line)) {
            eprintln!("agentguard: warning: {bad}");
        }
    }

    /// The records of `reader`, bad lines reported and skipped.
    fn records<'a>(
        &'a mut self,
        reader: impl Iterator<Item = std::result::Result<Record, BadLine>> + 'a,
    ) -> impl Iterator<Item = Record> + 'a {
        reader.filter_map(move |item| item.map_err(|bad| self.bad_line(&bad)).ok())
    }
}

/// Color on a terminal only, and never when `NO_COLOR` is set to anything (no-color.org).
fn color_wanted(terminal: bool, no_color: Option<std::ffi::OsString>) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

fn to_filter(args: &LogFilter) -> Result<Filter> {
    let since = args
        .since
        .as_deref()
        .map(|text| logview::parse_since(text, jiff::Timestamp::now()))
        .transpose()
        .map_err(|err| Error::usage(format!("--since: {err}")))?;
    if let Some(verdict) = &args.verdict
        && !logview::VERDICT_FILTERS.contains(&verdict.as_str())
    {
        return Err(
            Error::usage(format!("--verdict: unknown verdict `{verdict}`"))
                .with_hint(format!("one of {}", logview::VERDICT_FILTERS.join(", "))),
        );
    }
    let cwd = args.cwd.as_ref().map(|dir| {
        std::path::absolute(dir)
            .unwrap_or_else(|_| dir.clone())
            .display()
            .to_string()
    });
    Ok(Filter {
        since,
        detector: args.detector.clone(),
        verdict: args.verdict.clone(),
        session: args.session.clone(),
        cwd,
    })
}

fn no_log_yet(out: &mut Output, dir: &Path, json: bool) -> Result<()> {
    let message = format!("no decisions logged yet in {}", dir.display());
    if json {
        eprintln!("{message}");
        Ok(())
    } else {
        out.line(message)
    }
}

fn with_label(mut record: Record, labels: &std::collections::HashMap<String, Label>) -> Record {
    if let Some(label) = labels.get(&record.id) {
        record.label = Some(label.label.clone());
    }
    record
}

fn print_header(out: &mut Output) -> Result<()> {
    let header = render::table_header(&out.style);
    out.line(header)
}

fn print_record(out: &mut Output, record: &Record, json: bool) -> Result<()> {
    if json {
        let line = serde_json::to_string(record).map_err(|err| Error::io(err.to_string()))?;
        return out.line(line);
    }
    let line = render::table_line(&out.style, record, &TimeZone::system(), EXCERPT_CHARS);
    out.line(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn color_only_on_a_terminal_without_no_color() {
        assert!(color_wanted(true, None));
        assert!(color_wanted(true, Some("".into())));
        assert!(!color_wanted(true, Some("1".into())));
        assert!(!color_wanted(false, None));
    }

    #[test]
    fn complete_lines_only_and_a_shrunk_file_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("decisions-2026-11-29.jsonl");
        std::fs::write(&path, "one\ntwo\nthr").unwrap();
        let (lines, offset, restarted) = read_complete_lines(&path, 0);
        assert_eq!(lines, [b"one".to_vec(), b"two".to_vec()]);
        assert_eq!((offset, restarted), (8, false));
        assert_eq!(lines_before(&path, offset), 2);
        std::fs::write(&path, "x\n").unwrap();
        let (lines, offset, restarted) = read_complete_lines(&path, 8);
        assert_eq!(lines, [b"x".to_vec()]);
        assert_eq!((offset, restarted), (2, true));
    }
}
