//! `agentguard install` / `agentguard uninstall`: add or remove our hook entries in Claude Code
//! settings or Codex hooks, and never damage the file.
//!
//! Flow per file: read and compute the new text (nothing to change: say so, exit 0); with
//! `--dry-run` print the unified diff and stop; ask on a terminal unless `--yes`; then, under the
//! directory lock, read again and recompute (another install may have run meanwhile), back up
//! the previous file, write atomically, print what changed.
//!
//! Backups: one per run that changes an existing non-empty file, taken under the lock right
//! before the write, so every state the user had before an agentguard edit can be restored.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::cli::InstallArgs;
use crate::error::{Error, Result, exit};
use crate::fsutil;
use crate::hosts::locations::{self, Base};
use crate::hosts::{self, HookEvent, HookSpec, Host};
use crate::settings::{self, Change, Edit, Format, SettingsError};

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

pub fn run_uninstall(args: InstallArgs) -> Result<u8> {
    run(&args, Action::Uninstall)
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
    if args.host == Host::Codex && action == Action::Install {
        warn_if_codex_hooks_disabled(args)?;
    }
    Ok(exit::OK)
}

/// Hooks switched off in Codex's config would make the install silently useless: say so.
fn warn_if_codex_hooks_disabled(args: &InstallArgs) -> Result<()> {
    let Some((config, _)) = settings_files(args)?
        .into_iter()
        .find(|(_, format)| *format == Format::Toml)
    else {
        return Ok(());
    };
    let Some(text) = read(&resolve(&config)?)? else {
        return Ok(());
    };
    if settings::codex_hooks_disabled(&text).unwrap_or(false) {
        eprintln!(
            "agentguard: warning: {} turns Codex hooks off ([features] hooks = false); Codex will \
             not run agentguard until you set it to true",
            config.display()
        );
    }
    Ok(())
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
    let diff = unified_diff(path, current.as_deref().unwrap_or(""), &edit.text, action);
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
    if action == Action::Install {
        std::fs::create_dir_all(&dir).map_err(|e| {
            Error::io_at("create the directory", &dir, e)
                .with_hint("create it yourself or make its parent writable, then run again")
        })?;
    }
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
    let backup = match &current {
        Some(text) if !text.trim().is_empty() => Some(
            fsutil::backup(&resolved, text.as_bytes())
                .map_err(|e| Error::io_at("write a backup of", &resolved, e))?,
        ),
        _ => None,
    };
    fsutil::atomic_write(&resolved, edit.text.as_bytes())
        .map_err(|e| Error::io_at("write", &resolved, e).with_hint("the file was not changed"))?;
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

fn settings_error(path: &Path, format: Format, err: SettingsError) -> Error {
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

fn read(path: &Path) -> Result<Option<String>> {
    fsutil::read_optional(path).map_err(|e| Error::io_at("read", path, e))
}

fn check_writable(file: &Path, dir: &Path) -> Result<()> {
    let read_only = |p: &Path| fsutil::is_read_only(p).map_err(|e| Error::io_at("inspect", p, e));
    if file.exists() && read_only(file)? {
        return Err(Error::io(format!(
            "{} is read-only; nothing was changed",
            file.display()
        ))
        .with_hint(format!(
            "agentguard does not replace a file you made read-only; make it writable \
                 (chmod u+w {}) and run again",
            file.display()
        )));
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

fn confirmed(yes: bool, action: Action, path: &Path, diff: &str) -> Result<bool> {
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

fn say_nothing_to_do(action: Action, path: &Path) -> Result<()> {
    say(&match action {
        Action::Install => format!("{}: already installed, nothing to change\n", path.display()),
        Action::Uninstall => format!(
            "{}: no agentguard hooks, nothing to remove\n",
            path.display()
        ),
    })
}

fn summary(
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

fn unified_diff(path: &Path, old: &str, new: &str, action: Action) -> String {
    let old_name = path.display().to_string();
    let new_name = format!("{} (after {})", path.display(), action.verb());
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .missing_newline_hint(true)
        .to_string()
}

fn say(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The absolute path of the running binary, which the hooks will call.
fn hook_program() -> Result<String> {
    let exe = std::env::current_exe().map_err(|e| {
        Error::io(format!(
            "cannot find the path of the running agentguard: {e}"
        ))
    })?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let name = exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !hosts::is_binary_name(&name) {
        return Err(Error::usage(format!(
            "the running binary is named `{name}`, but agentguard recognizes its own hook entries \
             by the program name `agentguard`"
        ))
        .with_hint("install the binary as `agentguard` and run install from it"));
    }
    exe.into_os_string().into_string().map_err(|path| {
        Error::io(format!(
            "the path of agentguard is not UTF-8: {}",
            PathBuf::from(path).display()
        ))
        .with_hint("move the binary to a directory whose path is UTF-8")
    })
}

/// The settings files of the chosen host and scope.
fn settings_files(args: &InstallArgs) -> Result<Vec<(PathBuf, Format)>> {
    let Some(location) = locations::location(args.host, args.scope) else {
        return Err(Error::usage("Codex has no local settings scope").with_hint(
            "use --scope project (<project>/.codex/hooks.json, loaded once Codex trusts the \
             project) or --scope user",
        ));
    };
    Ok(match location.base {
        Base::User => location.paths(&user_dir(args.host)?, Path::new("")),
        Base::Project => location.paths(Path::new(""), &project_dir(args)?),
    })
}

fn targets(args: &InstallArgs, action: Action) -> Result<Vec<Target>> {
    let files: Vec<Target> = settings_files(args)?
        .into_iter()
        .map(|(path, format)| Target { path, format })
        .collect();
    match args.host {
        Host::Claude => Ok(files),
        Host::Codex => codex_targets(files, action),
    }
}

/// Codex reads hooks from `hooks.json` and from `[hooks]` tables in `config.toml` in the same
/// directory, and warns when both are used. Install edits the file that already holds our
/// entries, else `hooks.json` if it exists, else `config.toml` if the user keeps hooks there,
/// else a new `hooks.json` (a file of its own: the user's config.toml stays untouched).
/// Uninstall looks in both.
fn codex_targets(files: Vec<Target>, action: Action) -> Result<Vec<Target>> {
    let [json, toml]: [Target; 2] = files
        .try_into()
        .map_err(|_| Error::usage("internal: the Codex scope lists hooks.json and config.toml"))?;
    let dir = json.path.parent().unwrap_or(Path::new("")).to_path_buf();
    let json_text = read(&resolve(&json.path)?)?;
    let toml_text = read(&resolve(&toml.path)?)?;
    if action == Action::Uninstall {
        let mut targets = Vec::new();
        if json_text.is_some() {
            targets.push(json);
        }
        if toml_text.is_some() {
            targets.push(toml);
        }
        if targets.is_empty() {
            say(&format!(
                "{}: no Codex hooks files, nothing to remove\n",
                dir.display()
            ))?;
        }
        return Ok(targets);
    }
    let holds_ours = |target: &Target, text: &Option<String>| -> Result<bool> {
        match text {
            Some(text) => settings::has_agentguard_hooks(target.format, text)
                .map_err(|e| settings_error(&target.path, target.format, e)),
            None => Ok(false),
        }
    };
    let chosen = if holds_ours(&json, &json_text)? {
        json
    } else if holds_ours(&toml, &toml_text)? {
        toml
    } else if json_text.is_some() {
        json
    } else if let Some(text) = &toml_text
        && settings::toml_has_hooks(text).map_err(|e| settings_error(&toml.path, toml.format, e))?
    {
        toml
    } else {
        json
    };
    Ok(vec![chosen])
}

fn resolve(path: &Path) -> Result<PathBuf> {
    fsutil::resolve_symlinks(path).map_err(|e| Error::io_at("resolve", path, e))
}

/// The host's user directory (its override variable, else under the home directory).
fn user_dir(host: Host) -> Result<PathBuf> {
    locations::user_dir(host, crate::paths::home_dir().as_deref())
        .ok_or_else(|| Error::usage("cannot find the home directory").with_hint("set HOME"))
}

fn project_dir(args: &InstallArgs) -> Result<PathBuf> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::io(format!("cannot read the current directory: {e}")))?;
    let dir = match &args.project_dir {
        Some(dir) => cwd.join(dir),
        None => cwd,
    };
    if !dir.is_dir() {
        return Err(Error::usage(format!(
            "the project directory {} does not exist",
            dir.display()
        ))
        .with_hint("pass --project-dir with an existing directory"));
    }
    Ok(dir)
}
