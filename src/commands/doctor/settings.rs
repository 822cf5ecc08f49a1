//! The settings files of every scope, read for the settings checks.

use super::*;

/// Checks every settings scope; returns the events of ours installed, per check id.
pub(super) fn settings_checks(
    cwd: Option<&Path>,
    exe: &Path,
    checks: &mut Vec<Check>,
) -> BTreeMap<String, BTreeSet<String>> {
    let home = paths::home_dir().unwrap_or_default();
    let project = cwd.map(Path::to_path_buf).unwrap_or_default();
    let scopes: Vec<(CheckId, &str, Host, String, Vec<SettingsFile>)> = locations::SCOPES
        .into_iter()
        .filter_map(|(host, scope)| {
            let user_dir = locations::user_dir(host, Some(&home)).unwrap_or_default();
            let files = locations::location(host, scope)?
                .paths(&user_dir, &project)
                .into_iter()
                .map(|(path, format)| read_settings(path, format))
                .collect();
            Some((
                CheckId::Settings(host, scope),
                locations::scope_label(host, scope),
                host,
                locations::install_args(host, scope),
                files,
            ))
        })
        .collect();
    let program = |prog: &str| resolve_program(prog, cwd, exe);
    let mut installed = BTreeMap::new();
    // Run from the home directory, a project scope reads the user scope's own files: report
    // them once.
    let mut seen: Vec<(PathBuf, &str)> = Vec::new();
    for (id, label, host, install_args, files) in &scopes {
        let keys: Vec<PathBuf> = files.iter().map(|file| same_file_key(&file.path)).collect();
        let earlier = keys
            .iter()
            .map(|key| seen.iter().find(|(path, _)| path == key).map(|(_, l)| *l))
            .collect::<Option<Vec<_>>>()
            .and_then(|labels| labels.first().copied());
        if let Some(earlier) = earlier {
            checks.push(Check::ok(
                *id,
                format!(
                    "{label}: the same file as the {earlier} (the current directory is your \
                     home directory)"
                ),
            ));
            installed.insert(id.to_string(), BTreeSet::new());
            continue;
        }
        seen.extend(keys.into_iter().map(|key| (key, *label)));
        let hooks_off = files.iter().find_map(|file| {
            let text = file.text.as_ref()?.as_ref().ok()?;
            doctor::hooks_off(*host, file.format, &file.path, text)
        });
        let scope = doctor::Scope {
            id: *id,
            label,
            host: *host,
            install_args,
            files,
            hooks_off,
        };
        let (check, events) = doctor::check_settings_scope(&scope, &program);
        checks.push(check);
        installed.insert(id.to_string(), events);
    }
    installed
}

/// A path that is equal for two names of one file (symlinks, `.`), existing or not.
pub(super) fn same_file_key(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    match (path.parent().map(Path::canonicalize), path.file_name()) {
        (Some(Ok(parent)), Some(name)) => parent.join(name),
        _ => path.to_path_buf(),
    }
}

pub(super) fn read_settings(path: PathBuf, format: Format) -> SettingsFile {
    let text = fsutil::resolve_symlinks(&path)
        .and_then(|resolved| fsutil::read_optional(&resolved))
        .map_err(|err| doctor::ReadError {
            message: err.to_string(),
            fix: fsutil::read_hint(&path, &err),
        })
        .transpose();
    SettingsFile { path, format, text }
}

/// What a hook command's program resolves to. A bare name is looked up on doctor's PATH, the
/// closest guess at the PATH the host gives its hooks.
pub(super) fn resolve_program(program: &str, cwd: Option<&Path>, exe: &Path) -> Program {
    use std::os::unix::fs::PermissionsExt;
    let path = if program.contains('/') {
        let path = PathBuf::from(program);
        match cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path,
        }
    } else {
        match find_in_path(program) {
            Some(found) => found,
            None => return Program::Missing,
        }
    };
    match std::fs::metadata(&path) {
        Err(_) => Program::Missing,
        Ok(meta) if !meta.is_file() => Program::Missing,
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => Program::NotExecutable,
        Ok(_) => {
            let canonical = path.canonicalize().unwrap_or(path);
            if canonical == exe {
                Program::Running
            } else {
                Program::Other(canonical)
            }
        }
    }
}
