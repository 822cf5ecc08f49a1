//! `logs stats` and `logs replay`: figures over the log, and the stored texts judged again.

use super::*;

pub(super) fn stats(out: &mut Output, dir: &Path, since: Option<&str>, json: bool) -> Result<u8> {
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
pub(super) fn compute_stats(out: &mut Output, dir: &Path, filter: &Filter) -> logview::StatsReport {
    let mut stats = logview::Stats::default();
    for record in out.records(log::records_from(dir, filter.first_day())) {
        if filter.matches(&record) {
            stats.add(&record);
        }
    }
    stats.report()
}

pub(super) fn replay(
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
