//! The pure core of `agentguard logs`: `--since` parsing, record filters, table rows, running
//! statistics, replay diffing and the mapping of labeled decisions to the evaluation format.
//! Reading the files is `crate::log`'s job; printing is the command's.

pub mod render;

use std::collections::BTreeMap;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde::Serialize;

use crate::eval::Example;
use crate::log::{Label, Record};
use crate::pipeline::{Layer1, Outcome, Verdict};

/// The values `--verdict` accepts: a record's verdict, or a Layer 1 outcome.
pub const VERDICT_FILTERS: &[&str] = &["violation", "allow", "fail", "skip", "miss"];

/// `--since`: a duration back from `now` (`45m`, `2h`, `3d`, `1w`, `1d 12h`, ISO 8601 `PT2H`),
/// a UTC date (`2026-11-29`, its midnight), a UTC date-time (`2026-11-29T10:00`) or an
/// RFC 3339 timestamp.
pub fn parse_since(text: &str, now: Timestamp) -> Result<Timestamp, String> {
    let text = text.trim();
    let utc = |zoned: Result<jiff::ZonedDateTime, jiff::Error>| {
        zoned.map(|z| z.timestamp()).map_err(|e| e.to_string())
    };
    if let Ok(timestamp) = text.parse::<Timestamp>() {
        return Ok(timestamp);
    }
    if let Ok(datetime) = text.parse::<jiff::civil::DateTime>() {
        return utc(datetime.to_zoned_datetime(TimeZone::UTC));
    }
    match text.parse::<jiff::Span>() {
        Ok(span) => utc(now.to_zoned_datetime(TimeZone::UTC).checked_sub(span.abs())),
        Err(_) => Err(format!(
            "`{text}` is neither a duration (45m, 2h, 3d, 1w) nor a date (2026-11-29)"
        )),
    }
}

/// Which records to show. Every condition given must hold.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub since: Option<Timestamp>,
    pub detector: Option<String>,
    /// One of `VERDICT_FILTERS`; with `detector`, that detector's outcome.
    pub verdict: Option<String>,
    pub session: Option<String>,
    /// The working directory or any directory below it.
    pub cwd: Option<String>,
}

impl Filter {
    /// The first UTC day file that can hold a matching record.
    pub fn first_day(&self) -> Option<Date> {
        self.since
            .map(|since| since.to_zoned_datetime(TimeZone::UTC).date())
    }

    pub fn matches(&self, record: &Record) -> bool {
        if let Some(since) = self.since
            && record_time(record).is_none_or(|ts| ts < since)
        {
            return false;
        }
        if let Some(session) = &self.session
            && record.session.as_ref() != Some(session)
        {
            return false;
        }
        if let Some(cwd) = &self.cwd {
            let inside = record.cwd.as_deref().is_some_and(|dir| {
                dir == cwd
                    || dir
                        .strip_prefix(cwd.trim_end_matches('/'))
                        .is_some_and(|rest| rest.starts_with('/'))
            });
            if !inside {
                return false;
            }
        }
        if let Some(detector) = &self.detector
            && !record.detectors_run.contains(detector)
            && outcome_of(record, detector).is_none()
        {
            return false;
        }
        match self.verdict.as_deref() {
            None => true,
            Some(verdict) => self.verdict_matches(record, verdict),
        }
    }

    fn verdict_matches(&self, record: &Record, verdict: &str) -> bool {
        match (verdict, self.detector.as_deref()) {
            ("skip", None) => record
                .detectors
                .iter()
                .any(|o| matches!(o.layer1, Layer1::Skip { .. })),
            ("skip", Some(name)) => {
                outcome_of(record, name).is_some_and(|o| matches!(o.layer1, Layer1::Skip { .. }))
            }
            ("miss", None) => record.detectors.is_empty() && !record.detectors_run.is_empty(),
            ("miss", Some(name)) => outcome_of(record, name).is_none(),
            (verdict, None) => record.verdict.as_str() == verdict,
            // A detector whose Layer 1 missed allowed the text.
            (verdict, Some(name)) => {
                outcome_of(record, name).map_or("allow", |o| o.verdict.as_str()) == verdict
            }
        }
    }
}

/// The time of a record, when its `ts` is readable.
pub fn record_time(record: &Record) -> Option<Timestamp> {
    record.ts.parse().ok()
}

fn outcome_of<'r>(record: &'r Record, detector: &str) -> Option<&'r Outcome> {
    record.detectors.iter().find(|o| o.detector == detector)
}

/// The UTC date an id (or an id prefix of 8 digits or more) was stamped on.
pub fn day_of_id(id: &str) -> Option<Date> {
    let digits = id
        .get(..8)
        .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))?;
    Date::strptime("%Y%m%d", digits).ok()
}

/// The detectors that blocked (judge verdict `violation`).
pub fn blocking_detectors(record: &Record) -> Vec<String> {
    record
        .detectors
        .iter()
        .filter(|o| o.verdict == Verdict::Violation)
        .map(|o| o.detector.clone())
        .collect()
}

/// One line of the `agentguard logs` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub id: String,
    pub time: String,
    pub event: String,
    pub detectors: String,
    pub layer1: String,
    pub verdict: String,
    pub action: String,
    pub latency: String,
    pub excerpt: String,
}

pub fn row(record: &Record, tz: &TimeZone, excerpt_chars: usize) -> Row {
    let time = record_time(record).map_or_else(
        || record.ts.clone(),
        |ts| {
            ts.to_zoned_datetime(tz.clone())
                .strftime("%m-%d %H:%M:%S")
                .to_string()
        },
    );
    let detectors = if !record.detectors.is_empty() {
        join(record.detectors.iter().map(|o| o.detector.as_str()))
    } else {
        record.rule.clone().unwrap_or_else(|| "-".into())
    };
    let layer1 = if !record.detectors.is_empty() {
        join(record.detectors.iter().map(|o| o.layer1.label()))
    } else if !record.detectors_run.is_empty() {
        "miss".into()
    } else {
        "-".into()
    };
    Row {
        id: record.id.clone(),
        time,
        event: record.event.clone(),
        detectors,
        layer1,
        verdict: record.verdict.as_str().to_string(),
        action: record.action.as_str().to_string(),
        latency: record.latency_ms.to_string(),
        excerpt: crate::text::one_line(&excerpt(record), excerpt_chars),
    }
}

fn join<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    parts.collect::<Vec<_>>().join(",")
}

/// What best says what a decision was about: the passage around the first Layer 1 hit, else
/// the message shown, else the error, else the end of the judged text.
pub fn excerpt(record: &Record) -> String {
    if let Some(text) = &record.text {
        for outcome in &record.detectors {
            if let Some((before, matched, after)) = hit_passage(text, &outcome.layer1, 30) {
                return format!("{before}{matched}{after}");
            }
        }
    }
    if let Some(message) = record.message.as_ref().or(record.error.as_ref()) {
        return message.clone();
    }
    record
        .text
        .as_deref()
        .map(|t| crate::redact::tail_of_redacted(t, 120).to_string())
        .unwrap_or_default()
}

/// The Layer 1 hit in `text`, with up to `context` bytes each side: (before, match, after).
/// None when the outcome is not a hit or its span does not fit the text.
pub fn hit_passage<'t>(
    text: &'t str,
    layer1: &Layer1,
    context: usize,
) -> Option<(&'t str, &'t str, &'t str)> {
    let Layer1::Hit { start, end, .. } = *layer1 else {
        return None;
    };
    let matched = text.get(start..end)?;
    let from = text.floor_char_boundary(start.saturating_sub(context));
    let to = text.ceil_char_boundary((end + context).min(text.len()));
    Some((&text[from..start], matched, &text[end..to]))
}

/// Running figures per detector (one day, or the whole range).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DetectorStats {
    pub detector: String,
    /// Stop/SubagentStop decisions this detector looked at.
    pub stops: u64,
    pub hits: u64,
    /// hits / stops.
    pub hit_rate: f64,
    pub skips: u64,
    /// Hits sent to a judge backend (the `rules` judge included).
    pub judge_calls: u64,
    pub violations: u64,
    pub allows: u64,
    /// Judge failures by `error_cause`.
    pub failures: BTreeMap<String, u64>,
    /// Violations the loop guard let through.
    pub releases: u64,
}

impl DetectorStats {
    fn add(&mut self, ran: bool, outcome: Option<&Outcome>, released: bool) {
        self.stops += u64::from(ran);
        let Some(outcome) = outcome else {
            return;
        };
        match outcome.layer1 {
            Layer1::Hit { .. } => self.hits += 1,
            Layer1::Skip { .. } => self.skips += 1,
            Layer1::Miss => {}
        }
        self.judge_calls += u64::from(outcome.backend.is_some());
        if matches!(outcome.layer1, Layer1::Hit { .. }) {
            match outcome.verdict {
                Verdict::Violation => {
                    self.violations += 1;
                    self.releases += u64::from(released);
                }
                Verdict::Allow => self.allows += 1,
                Verdict::Fail => {
                    let cause = outcome.error_cause.as_deref().unwrap_or("unknown");
                    *self.failures.entry(cause.to_string()).or_default() += 1;
                }
            }
        }
    }

    fn finish(mut self, detector: &str) -> DetectorStats {
        self.detector = detector.to_string();
        self.hit_rate = ratio(self.hits, self.stops);
        self
    }
}

fn ratio(numerator: u64, denominator: u64) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

#[derive(Debug, Clone, Default)]
struct StopCounts {
    stops: u64,
    without_llm: u64,
    unjudged: u64,
    detectors: BTreeMap<String, DetectorStats>,
}

impl StopCounts {
    fn add(&mut self, record: &Record) {
        self.stops += 1;
        self.without_llm += u64::from(!used_llm(record));
        self.unjudged +=
            u64::from(record.detectors_run.is_empty() && record.verdict == Verdict::Fail);
        let released = record.release.is_some();
        let mut names: Vec<&String> = record.detectors_run.iter().collect();
        names.extend(record.detectors.iter().map(|o| &o.detector));
        names.sort();
        names.dedup();
        for name in names {
            let ran = record.detectors_run.contains(name);
            self.detectors.entry(name.clone()).or_default().add(
                ran,
                outcome_of(record, name),
                released,
            );
        }
    }

    fn detector_rows(&self) -> Vec<DetectorStats> {
        self.detectors
            .iter()
            .map(|(name, stats)| stats.clone().finish(name))
            .collect()
    }
}

/// True when a judge other than the offline `rules` judge was asked.
fn used_llm(record: &Record) -> bool {
    record
        .detectors
        .iter()
        .any(|o| o.backend.as_deref().is_some_and(|b| b != "rules"))
}

/// `agentguard logs stats`: fed one record at a time, so a month of logs is never held.
#[derive(Debug, Default)]
pub struct Stats {
    total: StopCounts,
    days: BTreeMap<String, StopCounts>,
    latencies: BTreeMap<String, Vec<u64>>,
    pretool: BTreeMap<(String, String), u64>,
}

impl Stats {
    pub fn add(&mut self, record: &Record) {
        match record.event.as_str() {
            "Stop" | "SubagentStop" => {
                self.total.add(record);
                let day = record.ts.get(..10).unwrap_or("unknown").to_string();
                self.days.entry(day).or_default().add(record);
                for outcome in &record.detectors {
                    if let Some(backend) = &outcome.backend {
                        self.latencies
                            .entry(backend.clone())
                            .or_default()
                            .push(outcome.latency_ms);
                    }
                }
            }
            "PreToolUse" => {
                let rule = record.rule.clone().unwrap_or_else(|| "-".into());
                *self
                    .pretool
                    .entry((record.action.as_str().to_string(), rule))
                    .or_default() += 1;
            }
            _ => {}
        }
    }

    pub fn report(mut self) -> StatsReport {
        let latency = self
            .latencies
            .iter_mut()
            .map(|(backend, values)| {
                values.sort_unstable();
                LatencyStats {
                    backend: backend.clone(),
                    calls: values.len() as u64,
                    p50_ms: percentile(values, 50),
                    p95_ms: percentile(values, 95),
                }
            })
            .collect();
        StatsReport {
            stops: self.total.stops,
            stops_without_llm: self.total.without_llm,
            without_llm_share: ratio(self.total.without_llm, self.total.stops),
            unjudged_stops: self.total.unjudged,
            detectors: self.total.detector_rows(),
            days: self
                .days
                .iter()
                .map(|(day, counts)| DayStats {
                    day: day.clone(),
                    stops: counts.stops,
                    stops_without_llm: counts.without_llm,
                    without_llm_share: ratio(counts.without_llm, counts.stops),
                    detectors: counts.detector_rows(),
                })
                .collect(),
            latency,
            pretool: self
                .pretool
                .into_iter()
                .map(|((action, rule), count)| PreToolCount {
                    action,
                    rule,
                    count,
                })
                .collect(),
        }
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as u64).div_ceil(100).max(1);
    sorted[rank as usize - 1]
}

#[derive(Debug, Clone, Serialize)]
pub struct StatsReport {
    /// Stop and SubagentStop decisions.
    pub stops: u64,
    /// Stops where no LLM judge was asked (no Layer 1 hit, or only the `rules` judge).
    pub stops_without_llm: u64,
    pub without_llm_share: f64,
    /// Stops that failed before any detector ran (unreadable input, bad config).
    pub unjudged_stops: u64,
    pub detectors: Vec<DetectorStats>,
    pub days: Vec<DayStats>,
    pub latency: Vec<LatencyStats>,
    pub pretool: Vec<PreToolCount>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DayStats {
    pub day: String,
    pub stops: u64,
    pub stops_without_llm: u64,
    pub without_llm_share: f64,
    pub detectors: Vec<DetectorStats>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyStats {
    pub backend: String,
    pub calls: u64,
    pub p50_ms: u64,
    pub p95_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreToolCount {
    pub action: String,
    pub rule: String,
    pub count: u64,
}

/// The records `logs replay` can judge again: stops (and `judge` runs) with a stored text.
pub fn replayable(record: &Record) -> bool {
    record.text.is_some() && matches!(record.event.as_str(), "Stop" | "SubagentStop" | "judge")
}

/// How a replayed verdict compares with the logged one, in blocking terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Unchanged,
    NewlyBlocked,
    NewlyAllowed,
    /// The replay's judge failed (whatever the logged verdict).
    Failure,
}

pub fn classify(before: Verdict, after: Verdict) -> Change {
    let blocked_before = before == Verdict::Violation;
    match after {
        Verdict::Fail => Change::Failure,
        Verdict::Violation if !blocked_before => Change::NewlyBlocked,
        Verdict::Allow if blocked_before => Change::NewlyAllowed,
        _ => Change::Unchanged,
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReplayCounts {
    pub replayed: u64,
    pub unchanged: u64,
    pub newly_blocked: u64,
    pub newly_allowed: u64,
    pub failures: u64,
}

impl ReplayCounts {
    pub fn add(&mut self, change: Change) {
        self.replayed += 1;
        *match change {
            Change::Unchanged => &mut self.unchanged,
            Change::NewlyBlocked => &mut self.newly_blocked,
            Change::NewlyAllowed => &mut self.newly_allowed,
            Change::Failure => &mut self.failures,
        } += 1;
    }
}

/// The detectors that should block a labeled decision's text (the evaluation set's `blocks`).
///
/// - `right`: the detectors that blocked (none when it allowed).
/// - `wrong` on a block: the blocking detectors minus the wrong ones (`named`, or all of them).
/// - `wrong` on an allow: the `named` detectors; without names, the one detector whose Layer 1
///   hit or skipped; with no such detector, or several, the label must name them.
pub fn label_blocks(record: &Record, label: &str, named: &[String]) -> Result<Vec<String>, String> {
    let blocked = blocking_detectors(record);
    match label {
        "right" if named.is_empty() => Ok(blocked),
        "right" => {
            Err("--detector goes with `wrong` only: `right` keeps the decision as it was".into())
        }
        "wrong" if !blocked.is_empty() => {
            if let Some(stray) = named.iter().find(|n| !blocked.contains(n)) {
                return Err(format!(
                    "`{stray}` did not block this decision (blocked: {})",
                    blocked.join(", ")
                ));
            }
            Ok(blocked
                .into_iter()
                .filter(|d| !named.is_empty() && !named.contains(d))
                .collect())
        }
        "wrong" if !named.is_empty() => Ok(named.to_vec()),
        "wrong" => match record.detectors.as_slice() {
            [only] => Ok(vec![only.detector.clone()]),
            [] => Err(
                "this decision allowed without any Layer 1 hit: name the detector that should \
                 have blocked with --detector NAME"
                    .into(),
            ),
            several => Err(format!(
                "several detectors matched ({}): name the one(s) that should have blocked with \
                 --detector NAME",
                join(several.iter().map(|o| o.detector.as_str())).replace(',', ", ")
            )),
        },
        other => Err(format!("unknown label `{other}` (right or wrong)")),
    }
}

/// A labeled decision as an evaluation example; None when its text was not stored.
pub fn labeled_example(record: &Record, label: &Label) -> Option<Result<Example, String>> {
    let text = record.text.clone()?;
    Some(
        label_blocks(record, &label.label, &label.detectors).map(|blocks| Example {
            id: record.id.clone(),
            lang: None,
            blocks,
            text,
            note: label.note.clone(),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::Action;

    fn now() -> Timestamp {
        "2026-11-30T12:00:00Z".parse().unwrap()
    }

    fn outcome(detector: &str, layer1: Layer1, verdict: Verdict) -> Outcome {
        let mut outcome: Outcome = serde_json::from_value(serde_json::json!({
            "detector": detector, "layer1": {"outcome": "miss"}, "verdict": "allow"
        }))
        .unwrap();
        outcome.layer1 = layer1;
        outcome.verdict = verdict;
        outcome
    }

    fn hit(start: usize, end: usize) -> Layer1 {
        Layer1::Hit {
            pattern: "p".into(),
            start,
            end,
        }
    }

    fn stop(ts: &str, run: &[&str], detectors: Vec<Outcome>, verdict: Verdict) -> Record {
        Record {
            id: format!("id-{ts}"),
            ts: ts.into(),
            event: "Stop".into(),
            verdict,
            action: if verdict == Verdict::Violation {
                Action::Block
            } else {
                Action::Allow
            },
            detectors_run: run.iter().map(|s| s.to_string()).collect(),
            detectors,
            ..Record::default()
        }
    }

    #[test]
    fn since_accepts_durations_dates_and_timestamps() {
        let at = |s: &str| parse_since(s, now()).unwrap().to_string();
        assert_eq!(at("2h"), "2026-11-30T10:00:00Z");
        assert_eq!(at("45m"), "2026-11-30T11:15:00Z");
        assert_eq!(at("3d"), "2026-11-27T12:00:00Z");
        assert_eq!(at("1w"), "2026-11-23T12:00:00Z");
        assert_eq!(at("2026-11-29"), "2026-11-29T00:00:00Z");
        assert_eq!(at("2026-11-29T08:30"), "2026-11-29T08:30:00Z");
        assert_eq!(at("2026-11-29T08:30:00+02:00"), "2026-11-29T06:30:00Z");
        let err = parse_since("yesterday-ish", now()).unwrap_err();
        assert!(err.contains("2h"), "{err}");
    }

    #[test]
    fn ids_carry_their_day() {
        assert_eq!(
            day_of_id("20261129-101500-abc123").unwrap().to_string(),
            "2026-11-29"
        );
        assert_eq!(day_of_id("20261129").unwrap().to_string(), "2026-11-29");
        assert!(day_of_id("2026112").is_none());
        assert!(day_of_id("20261399-x").is_none());
        assert!(day_of_id("abcdefgh").is_none());
    }

    #[test]
    fn filters_combine() {
        let mut record = stop(
            "2026-11-30T11:00:00.000Z",
            &["commit", "scope-check"],
            vec![outcome("commit", hit(0, 4), Verdict::Violation)],
            Verdict::Violation,
        );
        record.session = Some("s1".into());
        record.cwd = Some("/work/app".into());
        let filter = |f: Filter| f.matches(&record);
        assert!(filter(Filter::default()));
        assert!(filter(Filter {
            since: Some(parse_since("2h", now()).unwrap()),
            ..Filter::default()
        }));
        assert!(!filter(Filter {
            since: Some(parse_since("30m", now()).unwrap()),
            ..Filter::default()
        }));
        assert!(filter(Filter {
            cwd: Some("/work".into()),
            ..Filter::default()
        }));
        assert!(!filter(Filter {
            cwd: Some("/wo".into()),
            ..Filter::default()
        }));
        assert!(!filter(Filter {
            session: Some("s2".into()),
            ..Filter::default()
        }));
        let by = |detector: &str, verdict: &str| {
            Filter {
                detector: Some(detector.into()),
                verdict: Some(verdict.into()),
                ..Filter::default()
            }
            .matches(&record)
        };
        assert!(by("commit", "violation"));
        assert!(by("scope-check", "allow"));
        assert!(by("scope-check", "miss"));
        assert!(!by("scope-check", "violation"));
        assert!(!by("commit", "skip"));
        assert!(!by("destructive", "allow"), "did not run");
    }

    #[test]
    fn rows_and_excerpts_point_at_the_hit() {
        let mut record = stop(
            "2026-11-30T11:00:00.000Z",
            &["commit"],
            vec![outcome("commit", hit(24, 30), Verdict::Violation)],
            Verdict::Violation,
        );
        record.text = Some("All tests pass. Shall I commit now?".into());
        let row = row(&record, &TimeZone::UTC, 60);
        assert_eq!(row.time, "11-30 11:00:00");
        assert_eq!(row.detectors, "commit");
        assert_eq!(row.layer1, "hit");
        assert_eq!(row.excerpt, "All tests pass. Shall I commit now?");
        let (before, matched, after) =
            hit_passage(record.text.as_deref().unwrap(), &hit(24, 30), 5).unwrap();
        assert_eq!((before, matched, after), ("ll I ", "commit", " now?"));
        assert!(hit_passage("short", &hit(3, 99), 5).is_none());
    }

    #[test]
    fn stats_count_per_detector_day_and_backend() {
        let mut judged = outcome("commit", hit(0, 1), Verdict::Violation);
        judged.backend = Some("claude".into());
        judged.latency_ms = 100;
        let mut failed = outcome("commit", hit(0, 1), Verdict::Fail);
        failed.backend = Some("claude".into());
        failed.latency_ms = 300;
        failed.error_cause = Some("timeout".into());
        let mut rules = outcome("commit", hit(0, 1), Verdict::Allow);
        rules.backend = Some("rules".into());
        let skip = outcome(
            "scope-check",
            Layer1::Skip {
                pattern: "s".into(),
            },
            Verdict::Allow,
        );
        let run = &["commit", "scope-check"];
        let mut released = stop(
            "2026-11-29T10:00:00Z",
            run,
            vec![judged],
            Verdict::Violation,
        );
        released.release = Some("repeat".into());
        let mut pretool = Record {
            event: "PreToolUse".into(),
            action: Action::Deny,
            rule: Some("read-only".into()),
            ts: "2026-11-29T10:00:00Z".into(),
            ..Record::default()
        };
        let mut stats = Stats::default();
        for record in [
            released,
            stop("2026-11-29T11:00:00Z", run, vec![failed], Verdict::Fail),
            stop(
                "2026-11-30T10:00:00Z",
                run,
                vec![rules, skip],
                Verdict::Allow,
            ),
            stop("2026-11-30T11:00:00Z", run, vec![], Verdict::Allow),
            stop("2026-11-30T12:00:00Z", &[], vec![], Verdict::Fail),
        ] {
            stats.add(&record);
        }
        stats.add(&pretool);
        pretool.action = Action::Allow;
        pretool.rule = None;
        stats.add(&pretool);
        stats.add(&pretool);
        let report = stats.report();
        assert_eq!(report.stops, 5);
        assert_eq!(report.stops_without_llm, 3);
        assert_eq!(report.without_llm_share, 0.6);
        assert_eq!(report.unjudged_stops, 1);
        let commit = &report.detectors[0];
        assert_eq!(commit.detector, "commit");
        assert_eq!(
            (
                commit.stops,
                commit.hits,
                commit.judge_calls,
                commit.violations,
                commit.allows
            ),
            (4, 3, 3, 1, 1)
        );
        assert_eq!(commit.hit_rate, 0.75);
        assert_eq!(commit.failures, BTreeMap::from([("timeout".into(), 1)]));
        assert_eq!(commit.releases, 1);
        let scope = &report.detectors[1];
        assert_eq!((scope.stops, scope.hits, scope.skips), (4, 0, 1));
        assert_eq!(report.days.len(), 2);
        assert_eq!(report.days[0].stops, 2);
        assert_eq!(report.days[0].stops_without_llm, 0);
        assert_eq!(report.days[1].detectors[0].hits, 1);
        assert_eq!(
            report.latency,
            vec![
                LatencyStats {
                    backend: "claude".into(),
                    calls: 2,
                    p50_ms: 100,
                    p95_ms: 300
                },
                LatencyStats {
                    backend: "rules".into(),
                    calls: 1,
                    p50_ms: 0,
                    p95_ms: 0
                }
            ]
        );
        assert_eq!(report.pretool.len(), 2);
        assert_eq!(report.pretool[0].count, 2);
        assert_eq!(report.pretool[1].rule, "read-only");
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&values, 50), 10);
        assert_eq!(percentile(&values, 95), 19);
        assert_eq!(percentile(&[7], 95), 7);
        assert_eq!(percentile(&[], 50), 0);
    }

    #[test]
    fn replay_changes_are_about_blocking() {
        assert_eq!(
            classify(Verdict::Allow, Verdict::Violation),
            Change::NewlyBlocked
        );
        assert_eq!(
            classify(Verdict::Fail, Verdict::Violation),
            Change::NewlyBlocked
        );
        assert_eq!(
            classify(Verdict::Violation, Verdict::Allow),
            Change::NewlyAllowed
        );
        assert_eq!(
            classify(Verdict::Violation, Verdict::Violation),
            Change::Unchanged
        );
        assert_eq!(classify(Verdict::Fail, Verdict::Allow), Change::Unchanged);
        assert_eq!(classify(Verdict::Allow, Verdict::Fail), Change::Failure);
        let mut counts = ReplayCounts::default();
        counts.add(Change::Unchanged);
        counts.add(Change::Failure);
        assert_eq!(
            (counts.replayed, counts.unchanged, counts.failures),
            (2, 1, 1)
        );
    }

    #[test]
    fn labels_map_to_blocks() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let run = &["commit", "scope-check"];
        let blocked = stop(
            "2026-11-30T11:00:00Z",
            run,
            vec![
                outcome("commit", hit(0, 1), Verdict::Violation),
                outcome("scope-check", hit(0, 1), Verdict::Violation),
            ],
            Verdict::Violation,
        );
        assert_eq!(
            label_blocks(&blocked, "right", &[]).unwrap(),
            names(&["commit", "scope-check"])
        );
        assert!(label_blocks(&blocked, "wrong", &[]).unwrap().is_empty());
        assert_eq!(
            label_blocks(&blocked, "wrong", &names(&["commit"])).unwrap(),
            names(&["scope-check"])
        );
        assert!(label_blocks(&blocked, "wrong", &names(&["destructive"])).is_err());
        assert!(label_blocks(&blocked, "right", &names(&["commit"])).is_err());

        let one_hit = stop(
            "2026-11-30T11:00:00Z",
            run,
            vec![outcome("commit", hit(0, 1), Verdict::Allow)],
            Verdict::Allow,
        );
        assert!(label_blocks(&one_hit, "right", &[]).unwrap().is_empty());
        assert_eq!(
            label_blocks(&one_hit, "wrong", &[]).unwrap(),
            names(&["commit"])
        );
        let missed = stop("2026-11-30T11:00:00Z", run, vec![], Verdict::Allow);
        let err = label_blocks(&missed, "wrong", &[]).unwrap_err();
        assert!(err.contains("--detector"), "{err}");
        assert_eq!(
            label_blocks(&missed, "wrong", &names(&["scope-check"])).unwrap(),
            names(&["scope-check"])
        );

        let label = Label {
            id: one_hit.id.clone(),
            label: "wrong".into(),
            detectors: vec![],
            note: Some("it asked to push".into()),
            ts: String::new(),
        };
        assert!(
            labeled_example(&one_hit, &label).is_none(),
            "no text stored"
        );
        let mut with_text = one_hit.clone();
        with_text.text = Some("Shall I push?".into());
        let example = labeled_example(&with_text, &label).unwrap().unwrap();
        assert_eq!(example.blocks, names(&["commit"]));
        assert_eq!(example.note.as_deref(), Some("it asked to push"));
    }
}
