//! `logs label` and `logs export`: human labels on decisions, and labeled examples out.

use super::*;

pub(super) fn label_decision(
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

pub(super) fn export(out: &mut Output, dir: &Path, args: &LogFilter, labeled: bool) -> Result<u8> {
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
