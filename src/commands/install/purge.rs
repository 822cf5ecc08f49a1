//! `uninstall --purge` and what a plain uninstall leaves: agentguard's own files (config,
//! state, logs) and the settings backups it wrote.

use super::targets::{project_dir, user_dir};
use super::*;

/// agentguard's own files and directories that exist: (what, path).
fn own_files() -> Vec<(&'static str, PathBuf)> {
    let mut found = Vec::new();
    let config = paths::user_config_file();
    let config_dir = config
        .as_ref()
        .filter(|_| std::env::var_os("AGENTGUARD_CONFIG").is_none_or(|v| v.is_empty()))
        .and_then(|c| c.parent().map(Path::to_path_buf));
    match (config_dir, config) {
        (Some(dir), _) if dir.exists() => found.push(("config", dir)),
        (None, Some(file)) if file.exists() => found.push(("config", file)),
        _ => {}
    }
    if let Some(state) = paths::state_dir().filter(|d| d.exists()) {
        found.push(("state (loop guard, trust store)", state));
    }
    if let Some(data) = paths::log_dir()
        .and_then(|logs| logs.parent().map(Path::to_path_buf))
        .filter(|d| d.exists())
    {
        found.push(("decision logs", data));
    }
    found
}

/// Every settings file agentguard may have edited for this host and scope selection: the user
/// files of both hosts, and the project's when it has them.
fn known_settings(args: &InstallArgs) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Ok(dir) = user_dir(Host::Claude) {
        files.push(dir.join("settings.json"));
    }
    if let Ok(dir) = user_dir(Host::Codex) {
        files.push(dir.join("hooks.json"));
        files.push(dir.join("config.toml"));
    }
    if let Ok(project) = project_dir(args) {
        files.push(project.join(".claude/settings.json"));
        files.push(project.join(".claude/settings.local.json"));
        files.push(project.join(".codex/hooks.json"));
        files.push(project.join(".codex/config.toml"));
    }
    files
}

fn backups_of(args: &InstallArgs) -> Vec<PathBuf> {
    known_settings(args)
        .iter()
        .flat_map(|file| fsutil::list_backups(file).unwrap_or_default())
        .collect()
}

/// What uninstall leaves, and how to remove it.
pub(super) fn what_stays(args: &InstallArgs) -> Result<String> {
    let own = own_files();
    let backups = backups_of(args);
    if own.is_empty() && backups.is_empty() {
        return Ok("Nothing else of agentguard is left on this machine but the binary.\n".into());
    }
    let mut out = String::from("Kept (agentguard uninstall --purge removes them):\n");
    for (what, path) in &own {
        out.push_str(&format!("  {what}: {}\n", path.display()));
    }
    if !backups.is_empty() {
        out.push_str(&format!(
            "  {} settings backup(s), e.g. {}\n",
            backups.len(),
            backups[0].display()
        ));
    }
    Ok(out)
}

/// What --purge will remove, listed before anything is removed.
pub(super) fn purge_list(args: &InstallArgs) -> Result<Vec<PathBuf>> {
    let own = own_files();
    let backups = backups_of(args);
    let mut listing = String::from("agentguard uninstall --purge removes:\n");
    for (what, path) in &own {
        listing.push_str(&format!("  {what}: {}\n", path.display()));
    }
    for backup in &backups {
        listing.push_str(&format!("  settings backup: {}\n", backup.display()));
    }
    listing.push_str("  and agentguard's hooks in the settings chosen below\n");
    if own.is_empty() && backups.is_empty() {
        listing = "agentguard uninstall --purge: no agentguard files besides its hooks.\n".into();
    }
    say(&listing)?;
    let files: Vec<PathBuf> = own.into_iter().map(|(_, p)| p).chain(backups).collect();
    if args.dry_run || files.is_empty() {
        return Ok(files);
    }
    if !args.yes {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return Err(
                Error::usage("not purging: no terminal to confirm on").with_hint(
                    "pass --yes to remove these without asking, or --dry-run to list them only",
                ),
            );
        }
        let yes = dialoguer::Confirm::new()
            .with_prompt("Remove all of these?")
            .default(false)
            .interact()
            .map_err(|e| Error::io(format!("cannot read the answer: {e}")))?;
        if !yes {
            return Err(Error::usage("purge declined: nothing was removed"));
        }
    }
    Ok(files)
}

pub(super) fn purge(args: &InstallArgs, files: &[PathBuf]) -> Result<u8> {
    if args.dry_run {
        say("(dry run: nothing removed)\n")?;
        return Ok(exit::OK);
    }
    for path in files {
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        match removed {
            Ok(()) => say(&format!("Removed {}\n", path.display()))?,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(Error::io_at("remove", path, err)),
        }
    }
    say("agentguard's files are gone; the binary stays (remove it yourself).\n")?;
    Ok(exit::OK)
}
