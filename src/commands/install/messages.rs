//! What install and uninstall tell the user: diffs, summaries, errors, the confirmation.

use super::*;

pub(super) fn settings_error(path: &Path, format: Format, err: SettingsError) -> Error {
    let kind = match format {
        Format::Json => "JSON",
        Format::Toml => "TOML",
    };
    match (err.line, err.column) {
        (Some(line), Some(column)) => Error::config(format!(
            "{}:{line}:{column}: invalid {kind}: {}; nothing was written",
            path.display(),
            err.message
        ))
        .with_hint(
            "fix the file at that line and column (the agent host cannot read it either), or \
             restore a backup, then run again",
        ),
        _ => Error::config(format!(
            "{}: {}; nothing was written",
            path.display(),
            err.message
        ))
        .with_hint(
            "agentguard only edits the hook layout the agent host documents; fix the file by hand",
        ),
    }
}

pub(super) fn check_writable(file: &Path, dir: &Path) -> Result<()> {
    let read_only = |p: &Path| fsutil::is_read_only(p).map_err(|e| Error::io_at("inspect", p, e));
    if file.exists()
        && let Some(block) =
            fsutil::write_block(file).map_err(|e| Error::io_at("inspect", file, e))?
    {
        let (what, fix) = block.describe(file);
        return Err(Error::io(format!("{what}; nothing was changed")).with_hint(fix));
    }
    if let Some(fsutil::WriteBlock::Immutable) =
        fsutil::write_block(dir).map_err(|e| Error::io_at("inspect", dir, e))?
    {
        let (what, fix) = fsutil::WriteBlock::Immutable.describe(dir);
        return Err(Error::io(format!("{what}; nothing was changed")).with_hint(fix));
    }
    if read_only(dir)? {
        return Err(Error::io(format!(
            "the directory {} is read-only; nothing was changed",
            dir.display()
        ))
        .with_hint(format!(
            "agentguard writes a temporary file, a backup and a lock file next to the settings; \
             make the directory writable (chmod u+w {}) and run again",
            dir.display()
        )));
    }
    Ok(())
}

pub(super) fn confirmed(yes: bool, action: Action, path: &Path, diff: &str) -> Result<bool> {
    if yes {
        return Ok(true);
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(Error::usage(format!(
            "not asking to {} {}: no terminal to confirm on",
            action.verb(),
            path.display()
        ))
        .with_hint("pass --yes to write without asking, or --dry-run to see the change first"));
    }
    eprint!("{diff}");
    dialoguer::Confirm::new()
        .with_prompt(format!("Write these changes to {}?", path.display()))
        .default(true)
        .interact()
        .map_err(|e| Error::io(format!("cannot read the answer: {e}")))
}

pub(super) fn say_nothing_to_do(action: Action, path: &Path) -> Result<()> {
    say(&match action {
        Action::Install => format!("{}: already installed, nothing to change\n", path.display()),
        Action::Uninstall => format!(
            "{}: no agentguard hooks, nothing to remove\n",
            path.display()
        ),
    })
}

pub(super) fn summary(
    action: Action,
    path: &Path,
    resolved: &Path,
    edit: &Edit,
    backup: Option<&Path>,
) -> String {
    let mut out = match action {
        Action::Install => format!("Installed agentguard hooks in {}", path.display()),
        Action::Uninstall => format!("Removed agentguard hooks from {}", path.display()),
    };
    if resolved != path {
        out.push_str(&format!(" (a link to {})", resolved.display()));
    }
    out.push_str(":\n");
    for (event, change) in &edit.changes {
        let word = match change {
            Change::Added => "added",
            Change::Updated => "updated",
            Change::Unchanged => "unchanged",
            Change::Removed => "removed",
            Change::Absent => "not present",
        };
        out.push_str(&format!("  {:<13} {word}\n", hosts::event_key(*event)));
    }
    if let Some(backup) = backup {
        out.push_str(&format!(
            "Backup of the previous file: {}\n",
            backup.display()
        ));
    }
    out
}

pub(super) fn unified_diff(path: &Path, old: &str, new: &str, action: Action) -> String {
    let old_name = path.display().to_string();
    let new_name = format!("{} (after {})", path.display(), action.verb());
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .missing_newline_hint(true)
        .to_string()
}
