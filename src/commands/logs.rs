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

fn list(out: &mut Output, dir: &Path, args: &LogFilter, json: bool, follow: bool) -> Result<u8> {
    let filter = to_filter(args)?;
    let files = log::day_files(dir);
    // Where following starts: the end of the newest file as it is now (or today's, to come).
    let follow_from = files.last().map_or_else(
        || (today(), 0),
        |(day, path)| (*day, std::fs::metadata(path).map_or(0, |m| m.len())),
    );
    if files.is_empty() {
        no_log_yet(out, dir, json)?;
        if !follow {
            return Ok(exit::OK);
        }
    }
    let (labels, bad_labels) = log::read_labels(dir);
    for bad in &bad_labels {
        out.bad_line(bad);
    }
    // Following skips what was already shown (the newest file may grow while it is listed).
    let mut shown = HashSet::new();
    let mut printed = 0;
    if filter.since.is_some() {
        // A range: stream it, nothing held.
        let mut header = !json;
        for item in log::records_from(dir, filter.first_day()) {
            let record = match item {
                Ok(record) if filter.matches(&record) => record,
                Ok(_) => continue,
                Err(bad) => {
                    out.bad_line(&bad);
                    continue;
                }
            };
            if std::mem::take(&mut header) {
                print_header(out)?;
            }
            if follow {
                shown.insert(record.id.clone());
            }
            printed += 1;
            print_record(out, &with_label(record, &labels), json)?;
        }
    } else {
        let records = newest(out, &files, &filter, DEFAULT_COUNT);
        if !records.is_empty() && !json {
            print_header(out)?;
        }
        for record in records {
            if follow {
                shown.insert(record.id.clone());
            }
            printed += 1;
            print_record(out, &with_label(record, &labels), json)?;
        }
    }
    if printed == 0 && !files.is_empty() && !follow {
        eprintln!("no decision matches in {}", dir.display());
    }
    out.flush()?;
    if follow {
        follow_log(out, dir, &filter, json, follow_from, &shown)?;
    }
    Ok(exit::OK)
}

/// The newest `count` matching records, oldest first: files are read newest first and only
/// as many as needed.
fn newest(
    out: &mut Output,
    files: &[(jiff::civil::Date, PathBuf)],
    filter: &Filter,
    count: usize,
) -> Vec<Record> {
    let mut collected: Vec<std::collections::VecDeque<Record>> = Vec::new();
    let mut total = 0;
    for (_, path) in files.iter().rev() {
        let Ok(reader) = log::FileRecords::open(path) else {
            continue;
        };
        // Only the last `count` of a file can be shown: a ring, not the whole day.
        let mut ring = std::collections::VecDeque::with_capacity(count);
        for record in out.records(reader).filter(|r| filter.matches(r)) {
            if ring.len() == count {
                ring.pop_front();
            }
            ring.push_back(record);
        }
        total += ring.len();
        collected.push(ring);
        if total >= count {
            break;
        }
    }
    let all: Vec<Record> = collected.into_iter().rev().flatten().collect();
    let skip = all.len().saturating_sub(count);
    all.into_iter().skip(skip).collect()
}

fn today() -> jiff::civil::Date {
    jiff::Timestamp::now()
        .to_zoned_datetime(TimeZone::UTC)
        .date()
}

/// Prints the decisions appended after `from` (a day file and an offset) as they come, and
/// moves on to the next day's file when one appears (the UTC midnight switch).
fn follow_log(
    out: &mut Output,
    dir: &Path,
    filter: &Filter,
    json: bool,
    from: (jiff::civil::Date, u64),
    already_shown: &HashSet<String>,
) -> Result<()> {
    let (mut day, mut offset) = from;
    let mut line_number = lines_before(&log::file_for_day(dir, day), offset);
    let mut header = !json && already_shown.is_empty();
    loop {
        let path = log::file_for_day(dir, day);
        let (lines, next_offset, restarted) = read_complete_lines(&path, offset);
        offset = next_offset;
        if restarted {
            line_number = 0;
        }
        let first_line = line_number + 1;
        line_number += lines.len();
        let mut printed = false;
        for (index, line) in lines.iter().enumerate() {
            let parsed = serde_json::from_slice::<Record>(line).map_err(|err| BadLine {
                path: path.clone(),
                line: first_line + index,
                error: err.to_string(),
            });
            match parsed {
                Err(bad) => out.bad_line(&bad),
                Ok(record) if filter.matches(&record) && !already_shown.contains(&record.id) => {
                    if std::mem::take(&mut header) {
                        print_header(out)?;
                    }
                    print_record(out, &record, json)?;
                    printed = true;
                }
                Ok(_) => {}
            }
        }
        if printed {
            out.flush()?;
        }
        if lines.is_empty() {
            let next = log::day_files(dir).into_iter().find(|(d, _)| *d > day);
            if let Some((next_day, _)) = next {
                // Read the old file once more before leaving it: a line may have landed late.
                let (late, _, _) = read_complete_lines(&path, offset);
                if late.is_empty() {
                    day = next_day;
                    offset = 0;
                    line_number = 0;
                }
                continue;
            }
            std::thread::sleep(FOLLOW_POLL);
        }
    }
}

/// The complete lines of `path` after byte `offset`, and the offset after them (0 and all
/// lines when the file shrank: it was replaced). A line still being written (no newline yet)
/// waits for the next call.
fn read_complete_lines(path: &Path, offset: u64) -> (Vec<Vec<u8>>, u64, bool) {
    use std::io::Seek;
    let Ok(mut file) = std::fs::File::open(path) else {
        return (Vec::new(), offset, false);
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let restarted = len < offset;
    let offset = if restarted { 0 } else { offset };
    let mut bytes = Vec::new();
    if file.seek(std::io::SeekFrom::Start(offset)).is_err() || file.read_to_end(&mut bytes).is_err()
    {
        return (Vec::new(), offset, restarted);
    }
    let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
        return (Vec::new(), offset, restarted);
    };
    let lines = bytes[..end]
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    (lines, offset + end as u64 + 1, restarted)
}

/// How many lines the first `offset` bytes of `path` hold (for file:line in warnings).
fn lines_before(path: &Path, offset: u64) -> usize {
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    let mut head = Vec::new();
    let _ = file.take(offset).read_to_end(&mut head);
    head.iter().filter(|&&b| b == b'\n').count()
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

/// The one record whose id starts with `prefix`.
fn find_record(out: &mut Output, dir: &Path, prefix: &str) -> Result<Record> {
    let prefix = prefix.trim();
    if prefix.is_empty() {
        return Err(Error::usage("an empty id matches every decision")
            .with_hint("`agentguard logs` lists the ids"));
    }
    let mut found: Option<Record> = None;
    let mut others: Vec<String> = Vec::new();
    // An id starts with its UTC date: only that day's file, and the next (a record stamped
    // just before midnight may land there), can hold it.
    let day = logview::day_of_id(prefix);
    let files = log::day_files(dir).into_iter().filter(|(file_day, _)| {
        day.is_none_or(|day| *file_day == day || day.tomorrow().is_ok_and(|next| *file_day == next))
    });
    let reader = files
        .filter_map(|(_, path)| log::FileRecords::open(&path).ok())
        .flatten();
    for record in out.records(reader) {
        if !record.id.starts_with(prefix) {
            continue;
        }
        match &found {
            None => found = Some(record),
            Some(first) if first.id == record.id => {}
            Some(_) => others.push(record.id),
        }
    }
    match found {
        None => Err(Error::usage(format!(
            "no decision with an id starting with `{prefix}` in {}",
            dir.display()
        ))
        .with_hint("`agentguard logs` lists the ids")),
        Some(first) if !others.is_empty() => {
            others.insert(0, first.id);
            others.truncate(5);
            Err(Error::usage(format!(
                "`{prefix}` matches several decisions: {}",
                others.join(", ")
            ))
            .with_hint("give more of the id"))
        }
        Some(record) => Ok(record),
    }
}

fn show(out: &mut Output, dir: &Path, prefix: &str, json: bool) -> Result<u8> {
    let record = find_record(out, dir, prefix)?;
    let (labels, _) = log::read_labels(dir);
    let label = labels.get(&record.id).cloned();
    let record = with_label(record, &labels);
    if json {
        let line = serde_json::to_string_pretty(&record).map_err(|e| Error::io(e.to_string()))?;
        out.line(line)?;
        return Ok(exit::OK);
    }
    for line in render::show(&out.style, &record, label.as_ref()) {
        out.line(line)?;
    }
    Ok(exit::OK)
}

fn stats(out: &mut Output, dir: &Path, since: Option<&str>, json: bool) -> Result<u8> {
    let filter = to_filter(&LogFilter {
        since: since.map(str::to_string),
        ..LogFilter::default()
    })?;
    if log::day_files(dir).is_empty() {
        no_log_yet(out, dir, json)?;
        if !json {
            return Ok(exit::OK);
        }
    }
    let report = compute_stats(out, dir, &filter);
    if json {
        let text = serde_json::to_string(&report).map_err(|e| Error::io(e.to_string()))?;
        out.line(text)?;
        return Ok(exit::OK);
    }
    let range = since.map_or_else(
        || "all logged decisions".to_string(),
        |s| format!("since {s}"),
    );
    for line in render::stats(
        &out.style,
        &report,
        &format!("{range} in {}", dir.display()),
    ) {
        out.line(line)?;
    }
    Ok(exit::OK)
}

/// Streams the log through the running aggregate.
fn compute_stats(out: &mut Output, dir: &Path, filter: &Filter) -> logview::StatsReport {
    let mut stats = logview::Stats::default();
    for record in out.records(log::records_from(dir, filter.first_day())) {
        if filter.matches(&record) {
            stats.add(&record);
        }
    }
    stats.report()
}

fn replay(
    out: &mut Output,
    config: &Config,
    dir: &Path,
    args: &LogFilter,
    backend_name: Option<&str>,
    json: bool,
) -> Result<u8> {
    let filter = to_filter(args)?;
    let detectors = Detectors::load(&config.detectors)?;
    detectors.check_patterns()?;
    let judge = Judge::from_config(config, backend_name);
    if backend_name.is_some() {
        judge.backend()?;
    }
    let pipeline = Pipeline::new(detectors.select(Event::Stop, &[])?)?;
    if log::day_files(dir).is_empty() {
        no_log_yet(out, dir, json)?;
        return Ok(exit::OK);
    }
    let mut counts = logview::ReplayCounts::default();
    let mut changes = Vec::new();
    for item in log::records_from(dir, filter.first_day()) {
        let record = match item {
            Ok(record) if logview::replayable(&record) && filter.matches(&record) => record,
            Ok(_) => continue,
            Err(bad) => {
                out.bad_line(&bad);
                continue;
            }
        };
        let text = record.text.as_deref().unwrap_or_default();
        let judgement = judge.judge(&pipeline, text)?;
        let change = logview::classify(record.verdict, judgement.verdict);
        counts.add(change);
        if record.verdict != judgement.verdict || change == logview::Change::Failure {
            let after_blocking: Vec<String> =
                judgement.violations().map(|o| o.detector.clone()).collect();
            let failure = judgement.failures().find_map(|o| o.error.clone());
            changes.push(serde_json::json!({
                "id": record.id,
                "ts": record.ts,
                "change": change,
                "before": record.verdict,
                "after": judgement.verdict.as_str(),
                "blocking_before": logview::blocking_detectors(&record),
                "blocking_after": after_blocking,
                "error": failure,
                "excerpt": crate::text::one_line(&logview::excerpt(&record), EXCERPT_CHARS),
            }));
        }
    }
    if json {
        let report = serde_json::json!({"counts": counts, "changes": changes});
        out.line(report.to_string())?;
        return Ok(exit::OK);
    }
    for change in &changes {
        let after = change["after"].as_str().unwrap_or_default();
        let detectors = match change["blocking_after"].as_array() {
            Some(list) if !list.is_empty() => list
                .iter()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(","),
            _ => "-".into(),
        };
        out.line(format!(
            "{:<22}  {:>9} → {}  {:<20}  {}",
            change["id"].as_str().unwrap_or_default(),
            change["before"].as_str().unwrap_or_default(),
            out.style
                .paint(verdict_color(after), &format!("{after:<9}")),
            detectors,
            change["error"]
                .as_str()
                .or(change["excerpt"].as_str())
                .unwrap_or_default()
        ))?;
    }
    out.line(format!(
        "{} replayed: {} unchanged, {} newly blocked, {} newly allowed, {} failures",
        counts.replayed,
        counts.unchanged,
        counts.newly_blocked,
        counts.newly_allowed,
        counts.failures
    ))?;
    Ok(exit::OK)
}

fn label_decision(
    out: &mut Output,
    config: &Config,
    dir: &Path,
    prefix: &str,
    value: LabelValue,
    note: Option<String>,
    detectors: Vec<String>,
) -> Result<u8> {
    let known = Detectors::load(&config.detectors)?;
    if let Some(unknown) = detectors.iter().find(|name| known.get(name).is_none()) {
        return Err(
            Error::usage(format!("--detector: no detector named `{unknown}`"))
                .with_hint("`agentguard config show` lists the detectors"),
        );
    }
    let record = find_record(out, dir, prefix)?;
    let value = match value {
        LabelValue::Right => "right",
        LabelValue::Wrong => "wrong",
    };
    let blocks = logview::label_blocks(&record, value, &detectors)
        .map_err(|err| Error::usage(format!("{}: {err}", record.id)))?;
    let label = Label {
        id: record.id.clone(),
        label: value.into(),
        detectors,
        note,
        ts: jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string(),
    };
    let path = log::append_label(dir, &label)
        .map_err(|err| Error::io_at("write", &dir.join(log::LABELS_FILE), err))?;
    let blocks = if blocks.is_empty() {
        "nothing".to_string()
    } else {
        blocks.join(", ")
    };
    out.line(format!(
        "labeled {} {value}: it should block {blocks} (in {})",
        record.id,
        path.display()
    ))?;
    if record.text.is_none() {
        eprintln!(
            "note: this decision's text was not stored, so `logs export --labeled` cannot include it"
        );
    }
    Ok(exit::OK)
}

fn export(out: &mut Output, dir: &Path, args: &LogFilter, labeled: bool) -> Result<u8> {
    let filter = to_filter(args)?;
    let (labels, bad_labels) = log::read_labels(dir);
    for bad in &bad_labels {
        out.bad_line(bad);
    }
    let mut without_text = 0;
    let mut unmappable = Vec::new();
    let mut lines = Vec::new();
    for record in out.records(log::records_from(dir, filter.first_day())) {
        if !filter.matches(&record) {
            continue;
        }
        if !labeled {
            lines.push(serde_json::to_string(&with_label(record, &labels)));
            continue;
        }
        let Some(label) = labels.get(&record.id) else {
            continue;
        };
        match logview::labeled_example(&record, label) {
            None => without_text += 1,
            Some(Err(err)) => unmappable.push(format!("{}: {err}", record.id)),
            Some(Ok(example)) => lines.push(serde_json::to_string(&example)),
        }
    }
    for line in lines {
        out.line(line.map_err(|e| Error::io(e.to_string()))?)?;
    }
    if without_text > 0 {
        eprintln!("{without_text} labeled decision(s) left out: their text was not stored");
    }
    for problem in &unmappable {
        eprintln!("left out {problem}");
    }
    Ok(exit::OK)
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
