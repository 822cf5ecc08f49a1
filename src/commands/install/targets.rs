//! Which settings files an install or uninstall edits, and the program the hooks run.

use super::*;

/// Hooks switched off in Codex's config would make the install silently useless: say so.
pub(super) fn warn_if_codex_hooks_disabled(args: &InstallArgs) -> Result<()> {
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

/// The absolute path of the running binary, which the hooks will call.
pub(super) fn hook_program() -> Result<String> {
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
pub(super) fn settings_files(args: &InstallArgs) -> Result<Vec<(PathBuf, Format)>> {
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

pub(super) fn targets(args: &InstallArgs, action: Action) -> Result<Vec<Target>> {
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
pub(super) fn codex_targets(files: Vec<Target>, action: Action) -> Result<Vec<Target>> {
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

pub(super) fn resolve(path: &Path) -> Result<PathBuf> {
    fsutil::resolve_symlinks(path).map_err(|e| Error::io_at("resolve", path, e))
}

/// The host's user directory (its override variable, else under the home directory).
pub(super) fn user_dir(host: Host) -> Result<PathBuf> {
    locations::user_dir(host, crate::paths::home_dir().as_deref())
        .ok_or_else(|| Error::usage("cannot find the home directory").with_hint("set HOME"))
}

pub(super) fn project_dir(args: &InstallArgs) -> Result<PathBuf> {
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
