//! The human renderings of `agentguard logs`: the decision table, one decision in full, the
//! statistics. Text in, lines out; ANSI color only when the caller says so.

use jiff::tz::TimeZone;

use super::{DayStats, DetectorStats, StatsReport};
use crate::log::{Label, Record};
use crate::pipeline::Layer1;

/// Whether to color, and how.
#[derive(Debug, Clone, Copy)]
pub struct Paint {
    pub color: bool,
}

impl Paint {
    pub fn paint(&self, code: &str, text: &str) -> String {
        if self.color && !code.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

fn push(lines: &mut Vec<String>, line: impl AsRef<str>) {
    lines.push(line.as_ref().to_string());
}

pub fn table_header(p: &Paint) -> String {
    let header = format_columns(
        p,
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
    p.paint("1", &header)
}

/// One decision as a table line (times in `tz`).
pub fn table_line(p: &Paint, record: &Record, tz: &TimeZone, excerpt_chars: usize) -> String {
    let row = super::row(record, tz, excerpt_chars);
    format_columns(
        p,
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
    )
}

pub fn verdict_color(verdict: &str) -> &'static str {
    match verdict {
        "violation" => "31",
        "fail" => "33",
        "allow" => "32",
        _ => "",
    }
}

fn format_columns(p: &Paint, cells: [&str; 9], verdict: &str) -> String {
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
            line.push_str(&p.paint(verdict_color(verdict), &padded));
        } else {
            line.push_str(&padded);
        }
        line.push_str("  ");
    }
    line.push_str(cells[8]);
    line.trim_end().to_string()
}

/// One decision in full: context, each detector's Layer 1 match and judge reply, the text.
pub fn show(p: &Paint, record: &Record, label: Option<&Label>) -> Vec<String> {
    // Values of several lines stay under their column.
    let field = |p: &Paint, name: &str, value: &str| {
        let value = value.trim_end().replace('\n', &format!("\n{:15}", ""));
        format!("{}  {value}", p.paint("1", &format!("{name:<13}")))
    };
    let mut lines = vec![
        field(p, "id", &record.id),
        field(p, "time", &record.ts),
        field(
            p,
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
            lines.push(field(p, name, value));
        }
    }
    lines.push(field(
        p,
        "verdict",
        &format!(
            "{}  action {}  {} ms",
            p.paint(
                verdict_color(record.verdict.as_str()),
                record.verdict.as_str()
            ),
            record.action.as_str(),
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
            lines.push(field(p, name, value));
        }
    }
    if !record.redactions.is_empty() {
        let counts: Vec<String> = record
            .redactions
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        lines.push(field(p, "redactions", &counts.join(", ")));
    }
    if let Some(label) = &label {
        let mut text = label.label.clone();
        if !label.detectors.is_empty() {
            text.push_str(&format!(" (detectors: {})", label.detectors.join(", ")));
        }
        if let Some(note) = &label.note {
            text.push_str(&format!(": {note}"));
        }
        lines.push(field(p, "label", &text));
    }
    if !record.detectors_run.is_empty() {
        lines.push(field(p, "detectors run", &record.detectors_run.join(", ")));
    }
    for outcome in &record.detectors {
        lines.push(String::new());
        lines.push(p.paint("1", &format!("detector {}", outcome.detector)));
        let layer1 = match &outcome.layer1 {
            Layer1::Hit {
                pattern,
                start,
                end,
            } => format!("hit at bytes {start}..{end}, pattern {pattern}"),
            Layer1::Skip { pattern } => format!("skip, pattern {pattern}"),
            Layer1::Miss => "miss".into(),
        };
        lines.push(field(p, "  layer 1", &layer1));
        let passage = record
            .text
            .as_deref()
            .and_then(|text| super::hit_passage(text, &outcome.layer1, 80));
        if let Some((before, matched, after)) = passage {
            let matched = if p.color {
                p.paint("1;4;31", matched)
            } else {
                format!("»{matched}«")
            };
            lines.push(field(
                p,
                "  passage",
                &format!("…{}{matched}{}…", flat(before), flat(after)),
            ));
        }
        lines.push(field(
            p,
            "  judge",
            &format!(
                "{}  backend {}  model {}  {} ms",
                p.paint(
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
            lines.push(field(p, "  fields", &fields.join(" ")));
        }
        if let Some(reason) = &outcome.reason {
            lines.push(field(p, "  reason", reason));
        }
        if let Some(error) = &outcome.error {
            let cause = outcome.error_cause.as_deref().unwrap_or("unknown");
            lines.push(field(p, "  error", &format!("[{cause}] {error}")));
        }
        if !outcome.redactions.is_empty() {
            let counts: Vec<String> = outcome
                .redactions
                .iter()
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            lines.push(field(p, "  redactions", &counts.join(", ")));
        }
    }
    if let Some(evidence) = &record.evidence {
        lines.push(String::new());
        lines.extend(evidence_lines(p, evidence));
    }
    lines.push(String::new());
    match &record.text {
        Some(text) => {
            lines.push(p.paint(
                "1",
                &format!("judged text (redacted, {} bytes):", text.len()),
            ));
            lines.push(text.clone());
        }
        None => lines.push("judged text: not stored (`[log] store_text = false`)".into()),
    }
    lines
}

/// The turn's tool calls a decision used, oldest first.
pub fn evidence_lines(p: &Paint, evidence: &crate::evidence::EvidenceLog) -> Vec<String> {
    let mut notes = Vec::new();
    if !evidence.turn_complete {
        notes.push("the turn's start was beyond the read bound");
    }
    if evidence.lagging {
        notes.push("the transcript lagged behind the final message");
    }
    let heading = if notes.is_empty() {
        "evidence (the turn's tool calls, oldest first):".to_string()
    } else {
        format!(
            "evidence (the turn's tool calls, oldest first; {}):",
            notes.join("; ")
        )
    };
    let mut lines = vec![p.paint("1", &heading)];
    if evidence.steps.is_empty() {
        lines.push("  no test, build, lint or CI run and no edit".into());
    }
    lines.extend(evidence.steps.iter().map(|step| format!("  {step}")));
    if evidence.omitted > 0 {
        lines.push(format!("  ({} other commands not shown)", evidence.omitted));
    }
    lines
}

/// Newlines and tabs as visible escapes, so a passage stays on one line.
fn flat(text: &str) -> String {
    text.replace('\n', "⏎").replace('\t', " ")
}

/// `logs stats` as text, under `heading`.
pub fn stats(p: &Paint, report: &StatsReport, heading: &str) -> Vec<String> {
    let mut lines = vec![heading.to_string()];
    push(
        &mut lines,
        format!(
            "stops: {}   decided without an LLM call: {} ({:.1}%)   failed before judging: {}",
            report.stops,
            report.stops_without_llm,
            report.without_llm_share * 100.0,
            report.unjudged_stops
        ),
    );
    lines.push(String::new());
    detector_table(p, &mut lines, None, &report.detectors);
    if report.days.len() > 1 {
        lines.push(String::new());
        for day in &report.days {
            detector_table(p, &mut lines, Some(day), &day.detectors);
        }
    }
    if !report.latency.is_empty() {
        lines.push(String::new());
        push(
            &mut lines,
            p.paint(
                "1",
                &format!(
                    "{:<12} {:>7} {:>8} {:>8}",
                    "BACKEND", "CALLS", "P50 MS", "P95 MS"
                ),
            ),
        );
        for l in &report.latency {
            push(
                &mut lines,
                format!(
                    "{:<12} {:>7} {:>8} {:>8}",
                    l.backend, l.calls, l.p50_ms, l.p95_ms
                ),
            );
        }
    }
    if !report.pretool.is_empty() {
        lines.push(String::new());
        push(
            &mut lines,
            p.paint(
                "1",
                &format!("{:<10} {:<28} {:>7}", "PRE-TOOL", "RULE", "COUNT"),
            ),
        );
        for p in &report.pretool {
            push(
                &mut lines,
                format!("{:<10} {:<28} {:>7}", p.action, p.rule, p.count),
            );
        }
    }
    lines
}

fn detector_table(
    p: &Paint,
    lines: &mut Vec<String>,
    day: Option<&DayStats>,
    rows: &[DetectorStats],
) {
    let first = match day {
        Some(day) => format!(
            "{}  ({} stops, {:.1}% without LLM)",
            day.day,
            day.stops,
            day.without_llm_share * 100.0
        ),
        None => "DETECTOR".into(),
    };
    push(
        lines,
        p.paint(
            "1",
            &format!(
                "{first:<28} {:>6} {:>6} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>8}  FAILURES",
                "STOPS", "HITS", "HIT RATE", "SKIPS", "JUDGE", "VIOL", "ALLOW", "FAIL", "RELEASE"
            ),
        ),
    );
    for s in rows {
        let failures: Vec<String> = s.failures.iter().map(|(c, n)| format!("{c} {n}")).collect();
        push(
            lines,
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
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Outcome, Verdict};

    fn blocked() -> Record {
        let mut outcome: Outcome = serde_json::from_value(serde_json::json!({
            "detector": "commit", "verdict": "violation", "backend": "rules",
            "layer1": {"outcome": "hit", "pattern": "(?i)commit", "start": 8, "end": 14},
            "fields": {"new_proposal": true}, "reason": "asks to commit"
        }))
        .unwrap();
        outcome.verdict = Verdict::Violation;
        Record {
            id: "20261130-101500-abc123".into(),
            ts: "2026-11-30T10:15:00.000Z".into(),
            event: "Stop".into(),
            verdict: Verdict::Violation,
            action: crate::guard::Action::Block,
            message: Some("first line\nsecond line".into()),
            detectors_run: vec!["commit".into()],
            detectors: vec![outcome],
            text: Some("Shall I commit now?".into()),
            ..Record::default()
        }
    }

    #[test]
    fn show_quotes_the_match_without_color_and_highlights_it_with() {
        let plain = show(&Paint { color: false }, &blocked(), None).join("\n");
        assert!(
            plain.contains("hit at bytes 8..14, pattern (?i)commit"),
            "{plain}"
        );
        assert!(plain.contains("…Shall I »commit« now?…"), "{plain}");
        assert!(plain.contains("new_proposal=true"), "{plain}");
        assert!(
            plain.contains(&format!("first line\n{:15}second line", "")),
            "{plain}"
        );
        assert!(!plain.contains('\x1b'));
        let colored = show(&Paint { color: true }, &blocked(), None).join("\n");
        assert!(colored.contains("\x1b[1;4;31mcommit\x1b[0m"), "{colored}");
    }

    #[test]
    fn table_lines_keep_their_columns() {
        let p = Paint { color: false };
        let header = table_header(&p);
        let line = table_line(&p, &blocked(), &TimeZone::UTC, 40);
        assert_eq!(header.find("VERDICT"), line.find("violation"));
        assert!(line.ends_with("Shall I commit now?"), "{line}");
    }
}
