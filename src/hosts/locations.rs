//! Where each host reads its hooks from, per scope: the one table install, uninstall and
//! doctor share.

use std::path::{Path, PathBuf};

use super::{Host, Scope};

/// The file formats a settings file can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Claude Code settings, Codex `hooks.json`.
    Json,
    /// Codex `config.toml` with inline `[[hooks.<Event>]]` tables.
    Toml,
}

/// What a scope's paths are relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// The host's user directory ([`user_dir`]).
    User,
    /// The project directory.
    Project,
}

/// The settings files of one host and scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub base: Base,
    /// Relative to `base`, with their format. Codex reads hooks from `hooks.json` and from
    /// `[hooks]` tables in `config.toml` of the same directory; Claude Code from one file.
    pub files: &'static [(&'static str, Format)],
}

/// The scopes that exist, in report order (Codex has no local scope).
pub const SCOPES: [(Host, Scope); 5] = [
    (Host::Claude, Scope::User),
    (Host::Claude, Scope::Project),
    (Host::Claude, Scope::Local),
    (Host::Codex, Scope::User),
    (Host::Codex, Scope::Project),
];

/// Where `host` keeps `scope`'s hooks; None when the host has no such scope.
pub fn location(host: Host, scope: Scope) -> Option<Location> {
    let (base, files): (Base, &'static [(&'static str, Format)]) = match (host, scope) {
        (Host::Claude, Scope::User) => (Base::User, &[("settings.json", Format::Json)]),
        (Host::Claude, Scope::Project) => {
            (Base::Project, &[(".claude/settings.json", Format::Json)])
        }
        (Host::Claude, Scope::Local) => (
            Base::Project,
            &[(".claude/settings.local.json", Format::Json)],
        ),
        (Host::Codex, Scope::User) => (
            Base::User,
            &[("hooks.json", Format::Json), ("config.toml", Format::Toml)],
        ),
        (Host::Codex, Scope::Project) => (
            Base::Project,
            &[
                (".codex/hooks.json", Format::Json),
                (".codex/config.toml", Format::Toml),
            ],
        ),
        (Host::Codex, Scope::Local) => return None,
    };
    Some(Location { base, files })
}

impl Location {
    /// The files as paths, under the user directory or the project.
    pub fn paths(&self, user_dir: &Path, project: &Path) -> Vec<(PathBuf, Format)> {
        let base = match self.base {
            Base::User => user_dir,
            Base::Project => project,
        };
        self.files
            .iter()
            .map(|(path, format)| (base.join(path), *format))
            .collect()
    }
}

/// The variable that moves the host's user directory (the host's own override).
pub fn user_dir_var(host: Host) -> &'static str {
    match host {
        Host::Claude => "CLAUDE_CONFIG_DIR",
        Host::Codex => "CODEX_HOME",
    }
}

/// The host's user directory: its override variable (read now), else `~/.claude` or
/// `~/.codex` under `home`; None without either.
pub fn user_dir(host: Host, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(user_dir_var(host)).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let name = match host {
        Host::Claude => ".claude",
        Host::Codex => ".codex",
    };
    home.map(|home| home.join(name))
}

/// `settings.<host>.<scope>`: the doctor check id of a scope.
pub fn scope_id(host: Host, scope: Scope) -> String {
    format!("settings.{}.{}", host.name(), scope.name())
}

/// How a report names a scope.
pub fn scope_label(host: Host, scope: Scope) -> &'static str {
    match (host, scope) {
        (Host::Claude, Scope::User) => "Claude Code user settings",
        (Host::Claude, Scope::Project) => "Claude Code project settings",
        (Host::Claude, Scope::Local) => "Claude Code local settings",
        (Host::Codex, Scope::User) => "Codex user hooks",
        (Host::Codex, Scope::Project) => "Codex project hooks",
        (Host::Codex, Scope::Local) => "Codex local hooks",
    }
}

/// The `agentguard install` arguments that select a scope (the defaults left out).
pub fn install_args(host: Host, scope: Scope) -> String {
    match host {
        Host::Claude => format!("--scope {}", scope.name()),
        host => format!("--host {} --scope {}", host.name(), scope.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scope_has_files_and_codex_has_no_local_scope() {
        for (host, scope) in SCOPES {
            assert!(!location(host, scope).unwrap().files.is_empty());
        }
        assert_eq!(location(Host::Codex, Scope::Local), None);
        let paths = location(Host::Codex, Scope::Project)
            .unwrap()
            .paths(Path::new("/home/u/.codex"), Path::new("/p"));
        assert_eq!(
            paths,
            [
                (PathBuf::from("/p/.codex/hooks.json"), Format::Json),
                (PathBuf::from("/p/.codex/config.toml"), Format::Toml),
            ]
        );
        assert_eq!(scope_id(Host::Codex, Scope::User), "settings.codex.user");
        assert_eq!(
            install_args(Host::Codex, Scope::User),
            "--host codex --scope user"
        );
        assert_eq!(install_args(Host::Claude, Scope::Local), "--scope local");
    }
}
