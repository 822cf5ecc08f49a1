//! `logs` (and `logs -f`): the newest matching decisions as a table or JSON lines.

use super::*;

pub(super) fn list(
    out: &mut Output,
    dir: &Path,
    args: &LogFilter,
    json: bool,
    follow: bool,
) -> Result<u8> {
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
pub(super) fn newest(
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

pub(super) fn today() -> jiff::civil::Date {
    jiff::Timestamp::now()
        .to_zoned_datetime(TimeZone::UTC)
        .date()
}
