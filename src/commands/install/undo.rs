//! The undo half of install: what uninstall removes besides our entries (a settings file
//! install created, an emptied Codex `hooks.json`, the Codex trust entries of removed hooks),
//! the record of created files that makes that possible, and Codex trust notes.

use super::targets::{resolve, user_dir};
use super::*;

/// The record of settings files (and directories) that install created, in the state dir.
const CREATED_RECORD: &str = "created-by-install.txt";

/// Whether Codex will run the hooks just installed: it skips untrusted or modified hooks
/// silently in `codex exec`, so say which, and how to trust them.
pub(super) fn codex_trust_note(args: &InstallArgs) -> Result<String> {
    let config_path = user_dir(Host::Codex)?.join("config.toml");
    let config = read(&resolve(&config_path)?)?.unwrap_or_default();
    let mut hooks = Vec::new();
    for target in targets(args, Action::Install)? {
        if let Some(text) = read(&resolve(&target.path)?)? {
            hooks.extend(
                codex_trust::our_hooks(&target.path.display().to_string(), target.format, &text)
                    .map_err(|e| settings_error(&target.path, target.format, e))?,
            );
        }
    }
    let statuses = codex_trust::check(&config, &hooks);
    Ok(codex_trust_summary(&statuses, &config_path))
}

/// One paragraph on the trust of our Codex hooks: all trusted, or which are not and the fix.
fn codex_trust_summary(statuses: &[(codex_trust::CodexHook, Trust)], config: &Path) -> String {
    match codex_trust::skipped_summary(statuses) {
        None => format!(
            "Codex trusts these hooks ({}): they run.\n",
            config.display()
        ),
        Some(skipped) => format!(
            "Codex runs a hook only once you trust it, and `codex exec` skips an untrusted one \
             without a word. Not trusted now: {skipped}.\nTo trust them: {} (Codex records \
             that under [hooks.state] in {}).\n",
            codex_trust::TRUST_FIX,
            config.display()
        ),
    }
}

pub(super) fn write_error(path: &Path, err: std::io::Error) -> Error {
    let block = fsutil::write_block(path).ok().flatten().or_else(|| {
        (err.raw_os_error() == Some(libc::EPERM)).then_some(fsutil::WriteBlock::Immutable)
    });
    match block {
        Some(block) => {
            let (what, fix) = block.describe(path);
            Error::io(format!("{what}; nothing was changed")).with_hint(fix)
        }
        None => Error::io_at("write", path, err).with_hint("the file was not changed"),
    }
}

/// Whether uninstall should remove the file rather than write `after`: only `{}` is left,
/// and install created the file, or it is Codex's hooks.json (a file for hooks alone).
pub(super) fn removable_after_uninstall(
    target: &Target,
    resolved: &Path,
    after: &str,
) -> Result<bool> {
    if target.format != Format::Json || !is_empty_object(after) {
        return Ok(false);
    }
    Ok(target.path.file_name().is_some_and(|n| n == "hooks.json") || was_created(resolved))
}

pub(super) fn removal_reason(target: &Target) -> &'static str {
    if target.path.file_name().is_some_and(|n| n == "hooks.json") {
        "a Codex hooks.json with no hooks left"
    } else {
        "agentguard install created it"
    }
}

fn is_empty_object(text: &str) -> bool {
    let body: String = text
        .trim_start_matches('\u{feff}')
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    body == "{}"
}

/// The Codex trust entries of the hooks uninstall just removed from `target` (whose text
/// before the removal was `before`) are stale: remove them from the user's config.toml.
pub(super) fn remove_codex_trust_entries(target: &Target, before: &str) -> Result<()> {
    let Ok(removed) =
        codex_trust::our_hooks(&target.path.display().to_string(), target.format, before)
    else {
        return Ok(());
    };
    let keys: Vec<String> = removed.into_iter().map(|hook| hook.key).collect();
    let config = resolve(&user_dir(Host::Codex)?.join("config.toml"))?;
    // The config may be the file just edited (hooks in config.toml): read it afresh.
    let Some(text) = read(&config)? else {
        return Ok(());
    };
    let Some(edited) = codex_trust::remove_entries(&text, &keys) else {
        return Ok(());
    };
    let backup = fsutil::backup(&config, text.as_bytes())
        .map_err(|e| Error::io_at("write a backup of", &config, e))?;
    fsutil::atomic_write(&config, edited.as_bytes()).map_err(|e| write_error(&config, e))?;
    fsutil::prune_backups(&config, KEEP_BACKUPS)
        .map_err(|e| Error::io_at("prune the old backups of", &config, e))?;
    say(&format!(
        "Removed the Codex trust entries of those hooks from {} (backup: {}).\n",
        config.display(),
        backup.display()
    ))
}

fn created_record() -> Option<PathBuf> {
    paths::state_dir().map(|dir| dir.join(CREATED_RECORD))
}

fn created_lines() -> Vec<String> {
    created_record()
        .and_then(|record| std::fs::read_to_string(record).ok())
        .map(|text| text.lines().map(String::from).collect())
        .unwrap_or_default()
}

fn was_created(path: &Path) -> bool {
    let line = format!("file {}", path.display());
    created_lines().contains(&line)
}

/// Records that install created `file` (and `dir`). Best effort: without the record, uninstall
/// leaves `{}` behind, which the hosts read as no settings.
pub(super) fn remember_created(file: &Path, dir: Option<&Path>) {
    let Some(record) = created_record() else {
        return;
    };
    let mut lines = created_lines();
    let mut add = |line: String| {
        if !lines.contains(&line) {
            lines.push(line);
        }
    };
    add(format!("file {}", file.display()));
    if let Some(dir) = dir {
        add(format!("dir {}", dir.display()));
    }
    write_record(&record, &lines);
}

/// Drops `file` from the record, and removes `dir` too when install created it and it is empty.
pub(super) fn forget_created(file: &Path, dir: &Path) {
    let Some(record) = created_record() else {
        return;
    };
    let mut lines = created_lines();
    lines.retain(|line| *line != format!("file {}", file.display()));
    let dir_line = format!("dir {}", dir.display());
    if lines.contains(&dir_line) && std::fs::remove_dir(dir).is_ok() {
        lines.retain(|line| *line != dir_line);
    }
    write_record(&record, &lines);
}

fn write_record(record: &Path, lines: &[String]) {
    if lines.is_empty() {
        let _ = std::fs::remove_file(record);
        return;
    }
    if let Some(dir) = record.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = fsutil::atomic_write(record, format!("{}\n", lines.join("\n")).as_bytes());
}
