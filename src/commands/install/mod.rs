//! `agentguard install` / `agentguard uninstall`: add or remove our hook entries in Claude Code
//! settings or Codex hooks, and never damage the file.
//!
//! Flow per file: read and compute the new text (nothing to change: say so, exit 0); with
//! `--dry-run` print the unified diff and stop; ask on a terminal unless `--yes`; then, under the
//! directory lock, read again and recompute (another install may have run meanwhile), back up
//! the previous file, write atomically, print what changed.
//!
//! Backups: one per run that changes an existing non-empty file, taken under the lock right
//! before the write, so every state the user had before an agentguard edit can be restored;
//! the newest [`KEEP_BACKUPS`] per file are kept.
//!
//! Undo: a settings file that install created is recorded in agentguard's state, and uninstall
//! removes it again once it holds nothing but `{}`; an emptied Codex `hooks.json` goes too, and
//! so do the Codex trust entries (`[hooks.state]` in `~/.codex/config.toml`) of the removed
//! hooks. `uninstall --purge` also removes agentguard's own files.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::cli::{InstallArgs, UninstallArgs};
use crate::codex_trust::{self, Trust};
use crate::error::{Error, Result, exit};
use crate::fsutil;
use crate::hosts::locations::{self, Base};
use crate::hosts::{self, HookEvent, HookSpec, Host};
use crate::paths;
use crate::settings::{self, Change, Edit, Format, SettingsError};

mod messages;
mod purge;
mod targets;
mod undo;

use messages::{
    check_writable, confirmed, say_nothing_to_do, settings_error, summary, unified_diff,
};
use purge::{purge, purge_list, what_stays};
use targets::{hook_program, targets, warn_if_codex_hooks_disabled};
use undo::{
    codex_trust_note, forget_created, remember_created, removable_after_uninstall, removal_reason,
    remove_codex_trust_entries, write_error,
};

/// Backups kept per settings file; older ones are removed after each new backup.
pub const KEEP_BACKUPS: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Install,
    Uninstall,
}

impl Action {
    fn verb(self) -> &'static str {
        match self {
            Action::Install => "install",
            Action::Uninstall => "uninstall",
        }
    }
}

/// One settings file to edit.
#[derive(Debug)]
struct Target {
    path: PathBuf,
    format: Format,
}

pub fn run_install(args: InstallArgs) -> Result<u8> {
    run(&args, Action::Install)
}

pub fn run_uninstall(args: UninstallArgs) -> Result<u8> {
    if args.purge {
        // Purge lists and asks before anything is touched, hooks included.
        let files = purge_list(&args.target)?;
        let code = run(&args.target, Action::Uninstall)?;
        if code != exit::OK {
            return Ok(code);
        }
        return purge(&args.target, &files);
    }
    let code = run(&args.target, Action::Uninstall)?;
    if code == exit::OK && !args.target.dry_run {
        say(&what_stays(&args.target)?)?;
    }
    Ok(code)
}

fn run(args: &InstallArgs, action: Action) -> Result<u8> {
    let specs = match action {
        Action::Install => hosts::hook_specs(args.host, &hook_program()?, &args.events),
        Action::Uninstall => Vec::new(),
    };
    let mut wrote = false;
    for target in targets(args, action)? {
        match apply(args, action, &target, &specs)? {
            Outcome::Written => wrote = true,
            Outcome::Declined => return Ok(exit::FOUND),
            Outcome::NothingToDo | Outcome::DryRun => {}
        }
    }
    if wrote && action == Action::Install {
        say(&hosts::after_install_note(args.host, args.scope))?;
    }
    if args.host == Host::Codex && action == Action::Install && !args.dry_run {
        say(&codex_trust_note(args)?)?;
        warn_if_codex_hooks_disabled(args)?;
    }
    Ok(exit::OK)
}

enum Outcome {
    Written,
    NothingToDo,
    DryRun,
    Declined,
}

fn apply(
    args: &InstallArgs,
    action: Action,
    target: &Target,
    specs: &[HookSpec],
) -> Result<Outcome> {
    let path = &target.path;
    let resolved = fsutil::resolve_symlinks(path).map_err(|e| Error::io_at("resolve", path, e))?;
    let current = read(&resolved)?;
    let edit = compute(action, target, current.as_deref(), specs, &args.events)?;
    if !edit.changed() {
        say_nothing_to_do(action, path)?;
        return Ok(Outcome::NothingToDo);
    }
    let removes_file =
        action == Action::Uninstall && removable_after_uninstall(target, &resolved, &edit.text)?;
    let after = if removes_file { "" } else { edit.text.as_str() };
    let mut diff = unified_diff(path, current.as_deref().unwrap_or(""), after, action);
    if removes_file {
        diff.push_str(&format!("(the file goes: {})\n", removal_reason(target)));
    }
    if args.dry_run {
        say(&format!("{diff}(dry run: nothing written)\n"))?;
        return Ok(Outcome::DryRun);
    }
    if !confirmed(args.yes, action, path, &diff)? {
        say("Nothing written.\n")?;
        return Ok(Outcome::Declined);
    }

    let dir = match resolved.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir_was_there = dir.is_dir();
    if action == Action::Install {
        std::fs::create_dir_all(&dir).map_err(|e| {
            Error::io_at("create the directory", &dir, e)
                .with_hint("create it yourself or make its parent writable, then run again")
        })?;
    }
    let created_dir = action == Action::Install && !dir_was_there;
    check_writable(&resolved, &dir)?;
    let _lock = fsutil::lock_dir(&dir, || {
        eprintln!(
            "agentguard: waiting for another agentguard install or uninstall in {}",
            dir.display()
        );
    })
    .map_err(|e| Error::io_at("lock the directory", &dir, e))?;

    // Under the lock the file is ours alone; what another process wrote meanwhile counts.
    let current = read(&resolved)?;
    let edit = compute(action, target, current.as_deref(), specs, &args.events)?;
    if !edit.changed() {
        say_nothing_to_do(action, path)?;
        return Ok(Outcome::NothingToDo);
    }
    if action == Action::Uninstall && removable_after_uninstall(target, &resolved, &edit.text)? {
        // Nothing of the user's is in it: install made it, or it is an emptied hooks.json.
        std::fs::remove_file(&resolved).map_err(|e| write_error(&resolved, e))?;
        forget_created(&resolved, &dir);
        if args.host == Host::Codex {
            remove_codex_trust_entries(target, current.as_deref().unwrap_or(""))?;
        }
        say(&summary(action, path, &resolved, &edit, None))?;
        say(&format!(
            "Removed {} ({}).\n",
            path.display(),
            removal_reason(target)
        ))?;
        return Ok(Outcome::Written);
    }
    let backup = match &current {
        Some(text) if !text.trim().is_empty() => Some(
            fsutil::backup(&resolved, text.as_bytes())
                .map_err(|e| Error::io_at("write a backup of", &resolved, e))?,
        ),
        _ => None,
    };
    fsutil::atomic_write(&resolved, edit.text.as_bytes()).map_err(|e| write_error(&resolved, e))?;
    if backup.is_some() {
        fsutil::prune_backups(&resolved, KEEP_BACKUPS)
            .map_err(|e| Error::io_at("prune the old backups of", &resolved, e))?;
    }
    if action == Action::Install && current.is_none() {
        remember_created(&resolved, created_dir.then_some(dir.as_path()));
    }
    if action == Action::Uninstall && args.host == Host::Codex {
        remove_codex_trust_entries(target, current.as_deref().unwrap_or(""))?;
    }
    say(&summary(action, path, &resolved, &edit, backup.as_deref()))?;
    Ok(Outcome::Written)
}

fn compute(
    action: Action,
    target: &Target,
    current: Option<&str>,
    specs: &[HookSpec],
    events: &[HookEvent],
) -> Result<Edit> {
    let text = current.unwrap_or("");
    let edit = match action {
        Action::Install => settings::install(target.format, text, specs),
        Action::Uninstall => settings::uninstall(target.format, text, events),
    };
    edit.map_err(|err| settings_error(&target.path, target.format, err))
}

fn read(path: &Path) -> Result<Option<String>> {
    fsutil::read_optional(path).map_err(|e| {
        let hint = fsutil::read_hint(path, &e);
        Error::io_at("read", path, e).with_hint(hint)
    })
}

fn say(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
