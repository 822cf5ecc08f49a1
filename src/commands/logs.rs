//! `agentguard logs`: list, follow, show, stats, replay, label and export logged decisions.
//! The figures and mappings are in `crate::logview`; this file reads files and prints.

use std::collections::HashSet;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::tz::TimeZone;

use crate::backends;
use crate::cli::{LabelValue, LogFilter, LogsArgs, LogsCommand};
use crate::config::Config;
use crate::detectors::{Detectors, Event};
use crate::error::{Error, Result, exit};
use crate::log::{self, BadLine, Label, Record};
use crate::logview::{self, Filter};
use crate::pipeline::{Pipeline, Window};

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
    color: bool,
    reported: HashSet<(PathBuf, usize)>,
}

impl Output {
    fn new() -> Output {
        let stdout = std::io::stdout();
        let color = color_wanted(stdout.is_terminal(), std::env::var_os("NO_COLOR"));
        Output {
            stdout,
            color,
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

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color && !code.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
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
    let header = format_columns(
        out,
        [
            "ID",
            "TIME",
            "EVENT",
            "DETECTORS",
            "LAYER 1",
            "VERDICT",
            "ACTION",
            "MS",
            "EXCERPT",
        ],
        "",
    );
    out.line(out.paint("1", &header))
}

fn verdict_color(verdict: &str) -> &'static str {
    match verdict {
        "violation" => "31",
        "fail" => "33",
        "allow" => "32",
        _ => "",
    }
}

fn format_columns(out: &Output, cells: [&str; 9], verdict: &str) -> String {
    const WIDTHS: [usize; 8] = [22, 14, 12, 20, 9, 9, 7, 6];
    let mut line = String::new();
    for (index, width) in WIDTHS.iter().enumerate() {
        let cell = crate::text::one_line(cells[index], *width);
        let padded = if index == 7 {
            format!("{cell:>width$}")
        } else {
            format!("{cell:<width$}")
        };
        if index == 5 {
            line.push_str(&out.paint(verdict_color(verdict), &padded));
        } else {
            line.push_str(&padded);
        }
        line.push_str("  ");
    }
    line.push_str(cells[8]);
    line.trim_end().to_string()
}

fn print_record(out: &mut Output, record: &Record, json: bool) -> Result<()> {
    if json {
        let line = serde_json::to_string(record).map_err(|err| Error::io(err.to_string()))?;
        return out.line(line);
    }
    let tz = TimeZone::system();
    let row = logview::row(record, &tz, EXCERPT_CHARS);
    let line = format_columns(
        out,
        [
            &row.id,
            &row.time,
            &row.event,
            &row.detectors,
            &row.layer1,
            &row.verdict,
            &row.action,
            &row.latency,
            &row.excerpt,
        ],
        &row.verdict,
    );
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
    // Values of several lines stay under their column.
    let field = |out: &Output, name: &str, value: &str| {
        let value = value.trim_end().replace('\n', &format!("\n{:15}", ""));
        format!("{}  {value}", out.paint("1", &format!("{name:<13}")))
    };
    let mut lines = vec![
        field(out, "id", &record.id),
        field(out, "time", &record.ts),
        field(
            out,
            "host / event",
            &format!("{} {}", record.host, record.event),
        ),
    ];
    for (name, value) in [
        ("session", &record.session),
        ("turn", &record.turn),
        ("cwd", &record.cwd),
        ("tool", &record.tool),
        ("agent type", &record.agent_type),
    ] {
        if let Some(value) = value {
            lines.push(field(out, name, value));
        }
    }
    lines.push(field(
        out,
        "verdict",
        &format!(
            "{}  action {}  {} ms",
            out.paint(verdict_color(&record.verdict), &record.verdict),
            record.action,
            record.latency_ms
        ),
    ));
    for (name, value) in [
        ("rule", &record.rule),
        ("release", &record.release),
        ("error", &record.error),
        ("message", &record.message),
        ("text sha256", &record.text_sha256),
    ] {
        if let Some(value) = value {
            lines.push(field(out, name, value));
        }
    }
    if !record.redactions.is_empty() {
        let counts: Vec<String> = record
            .redactions
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        lines.push(field(out, "redactions", &counts.join(", ")));
    }
    if let Some(label) = &label {
        let mut text = label.label.clone();
        if !label.detectors.is_empty() {
            text.push_str(&format!(" (detectors: {})", label.detectors.join(", ")));
        }
        if let Some(note) = &label.note {
            text.push_str(&format!(": {note}"));
        }
        lines.push(field(out, "label", &text));
    }
    if !record.detectors_run.is_empty() {
        lines.push(field(
            out,
            "detectors run",
            &record.detectors_run.join(", "),
        ));
    }
    for outcome in &record.detectors {
        lines.push(String::new());
        lines.push(out.paint("1", &format!("detector {}", outcome.detector)));
        let layer1 = match &outcome.layer1 {
            crate::pipeline::Layer1::Hit {
                pattern,
                start,
                end,
            } => format!("hit at bytes {start}..{end}, pattern {pattern}"),
            crate::pipeline::Layer1::Skip { pattern } => format!("skip, pattern {pattern}"),
            crate::pipeline::Layer1::Miss => "miss".into(),
        };
        lines.push(field(out, "  layer 1", &layer1));
        let passage = record
            .text
            .as_deref()
            .and_then(|text| logview::hit_passage(text, &outcome.layer1, 80));
        if let Some((before, matched, after)) = passage {
            let matched = if out.color {
                out.paint("1;4;31", matched)
            } else {
                format!("»{matched}«")
            };
            lines.push(field(
                out,
                "  passage",
                &format!("…{}{matched}{}…", flat(before), flat(after)),
            ));
        }
        lines.push(field(
            out,
            "  judge",
            &format!(
                "{}  backend {}  model {}  {} ms",
                out.paint(
                    verdict_color(outcome.verdict.as_str()),
                    outcome.verdict.as_str()
                ),
                outcome.backend.as_deref().unwrap_or("-"),
                outcome.model.as_deref().unwrap_or("-"),
                outcome.latency_ms
            ),
        ));
        if !outcome.fields.is_empty() {
            let fields: Vec<String> = outcome
                .fields
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            lines.push(field(out, "  fields", &fields.join(" ")));
        }
        if let Some(reason) = &outcome.reason {
            lines.push(field(out, "  reason", reason));
        }
        if let Some(error) = &outcome.error {
            let cause = outcome.error_cause.as_deref().unwrap_or("unknown");
            lines.push(field(out, "  error", &format!("[{cause}] {error}")));
        }
        if !outcome.redactions.is_empty() {
            let counts: Vec<String> = outcome
                .redactions
                .iter()
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            lines.push(field(out, "  redactions", &counts.join(", ")));
        }
    }
    lines.push(String::new());
    match &record.text {
        Some(text) => {
            lines.push(out.paint(
                "1",
                &format!("judged text (redacted, {} bytes):", text.len()),
            ));
            lines.push(text.clone());
        }
        None => lines.push("judged text: not stored (`[log] store_text = false`)".into()),
    }
    for line in lines {
        out.line(line)?;
    }
    Ok(exit::OK)
}

/// Newlines and tabs as visible escapes, so a passage stays on one line.
fn flat(text: &str) -> String {
    text.replace('\n', "⏎").replace('\t', " ")
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
    out.line(format!("{range} in {}", dir.display()))?;
    out.line(format!(
        "stops: {}   decided without an LLM call: {} ({:.1}%)   failed before judging: {}",
        report.stops,
        report.stops_without_llm,
        report.without_llm_share * 100.0,
        report.unjudged_stops
    ))?;
    out.line("")?;
    print_detector_table(out, None, &report.detectors)?;
    if report.days.len() > 1 {
        out.line("")?;
        for day in &report.days {
            print_detector_table(out, Some(day), &day.detectors)?;
        }
    }
    if !report.latency.is_empty() {
        out.line("")?;
        out.line(out.paint(
            "1",
            &format!(
                "{:<12} {:>7} {:>8} {:>8}",
                "BACKEND", "CALLS", "P50 MS", "P95 MS"
            ),
        ))?;
        for l in &report.latency {
            out.line(format!(
                "{:<12} {:>7} {:>8} {:>8}",
                l.backend, l.calls, l.p50_ms, l.p95_ms
            ))?;
        }
    }
    if !report.pretool.is_empty() {
        out.line("")?;
        out.line(out.paint(
            "1",
            &format!("{:<10} {:<28} {:>7}", "PRE-TOOL", "RULE", "COUNT"),
        ))?;
        for p in &report.pretool {
            out.line(format!("{:<10} {:<28} {:>7}", p.action, p.rule, p.count))?;
        }
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

fn print_detector_table(
    out: &mut Output,
    day: Option<&logview::DayStats>,
    rows: &[logview::DetectorStats],
) -> Result<()> {
    let first = match day {
        Some(day) => format!(
            "{}  ({} stops, {:.1}% without LLM)",
            day.day,
            day.stops,
            day.without_llm_share * 100.0
        ),
        None => "DETECTOR".into(),
    };
    out.line(out.paint(
        "1",
        &format!(
            "{first:<28} {:>6} {:>6} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>8}  FAILURES",
            "STOPS", "HITS", "HIT RATE", "SKIPS", "JUDGE", "VIOL", "ALLOW", "FAIL", "RELEASE"
        ),
    ))?;
    for s in rows {
        let failures: Vec<String> = s.failures.iter().map(|(c, n)| format!("{c} {n}")).collect();
        out.line(
            format!(
                "{:<28} {:>6} {:>6} {:>7.1}% {:>6} {:>6} {:>6} {:>6} {:>6} {:>8}  {}",
                if day.is_some() {
                    format!("  {}", s.detector)
                } else {
                    s.detector.clone()
                },
                s.stops,
                s.hits,
                s.hit_rate * 100.0,
                s.skips,
                s.judge_calls,
                s.violations,
                s.allows,
                s.failures.values().sum::<u64>(),
                s.releases,
                failures.join(", ")
            )
            .trim_end(),
        )?;
    }
    Ok(())
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
    let detectors = Detectors::load(config)?;
    detectors.check_patterns()?;
    if let Some(name) = backend_name {
        backends::select(config, Some(name))?;
    }
    let pipeline = Pipeline::new(detectors.select(Event::Stop, &[])?)?;
    if log::day_files(dir).is_empty() {
        no_log_yet(out, dir, json)?;
        return Ok(exit::OK);
    }
    let window = Window {
        bytes: config.stop.window_bytes,
        ..Window::default()
    };
    let timeout = Duration::from_millis(config.judge.deadline_ms);
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
        let judgement = pipeline.judge(
            crate::text::tail(text, config.stop.scan_bytes),
            window,
            || backends::select(config, backend_name),
            timeout,
        )?;
        let change = logview::classify(&record.verdict, judgement.verdict);
        counts.add(change);
        if record.verdict != judgement.verdict.as_str() || change == logview::Change::Failure {
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
            out.paint(verdict_color(after), &format!("{after:<9}")),
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
    let known = Detectors::load(config)?;
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
