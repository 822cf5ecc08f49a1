//! `logs -f`: the decisions appended to the log, as they come.

use super::*;

/// Prints the decisions appended after `from` (a day file and an offset) as they come, and
/// moves on to the next day's file when one appears (the UTC midnight switch).
pub(super) fn follow_log(
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
pub(super) fn read_complete_lines(path: &Path, offset: u64) -> (Vec<Vec<u8>>, u64, bool) {
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
pub(super) fn lines_before(path: &Path, offset: u64) -> usize {
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    let mut head = Vec::new();
    let _ = file.take(offset).read_to_end(&mut head);
    head.iter().filter(|&&b| b == b'\n').count()
}
