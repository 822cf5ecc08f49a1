//! `logs show ID`: one decision, found by a prefix of its id.

use super::*;

/// The one record whose id starts with `prefix`.
pub(super) fn find_record(out: &mut Output, dir: &Path, prefix: &str) -> Result<Record> {
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

pub(super) fn show(out: &mut Output, dir: &Path, prefix: &str, json: bool) -> Result<u8> {
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
