//! The probe, and what the decision log holds.

use super::*;

/// Sends the probe text through the configured backend with the `commit` detector (enabled for
/// the probe even if the user turned it off, with the user's overrides kept).
pub(super) fn probe(config: &Config) -> Result<Judgement> {
    let mut probe_config = config.clone();
    for entry in probe_config
        .detectors
        .iter_mut()
        .filter(|d| d.name == "commit")
    {
        entry.enabled = Some(true);
    }
    let detectors = Detectors::load(&probe_config.detectors)?;
    let commit = detectors.named(&["commit".to_string()])?;
    Judge::from_config(config, None)
        .llm_only()
        .judge(&Pipeline::new(commit)?, doctor::PROBE_TEXT)
}

/// The log directory's state; a missing one is judged by its nearest existing ancestor.
pub(super) fn log_dir_state(dir: Option<&Path>) -> LogDir {
    use std::os::unix::fs::PermissionsExt;
    let Some(dir) = dir else {
        return LogDir::Unknown;
    };
    let writable = |p: &Path| fsutil::is_read_only(p).is_ok_and(|read_only| !read_only);
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => LogDir::Exists {
            writable: writable(dir),
            mode: meta.permissions().mode(),
        },
        Ok(_) => LogDir::NotADirectory,
        Err(_) => {
            let ancestor = dir
                .ancestors()
                .skip(1)
                .find(|a| a.exists())
                .unwrap_or(Path::new("/"));
            LogDir::Missing {
                ancestor: ancestor.to_path_buf(),
                writable: ancestor.is_dir() && writable(ancestor),
            }
        }
    }
}

/// The records of the last day, and enough older ones to know when each hook last ran: day
/// files are read newest first until both a Stop and a PreToolUse record have been seen.
pub(super) fn recent_records(dir: &Path, now: jiff::Timestamp) -> Vec<Record> {
    let yesterday = now
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date()
        .yesterday()
        .ok();
    let mut records = Vec::new();
    let (mut seen_stop, mut seen_pre_tool) = (false, false);
    for (day, path) in crate::log::day_files(dir).into_iter().rev() {
        let within_day = yesterday.is_some_and(|y| day >= y);
        if !within_day && seen_stop && seen_pre_tool {
            break;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text.lines() {
            let Ok(record) = serde_json::from_str::<Record>(line) else {
                continue;
            };
            seen_stop |= matches!(record.event.as_str(), "Stop" | "SubagentStop");
            seen_pre_tool |= record.event == "PreToolUse";
            records.push(record);
        }
    }
    records
}
