//! Where agentguard keeps its files, per platform (`directories`), with env overrides for tests
//! and unusual setups.

use std::path::PathBuf;

use directories::{BaseDirs, ProjectDirs};

fn project_dirs() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "agentguard")
}

/// The user config file: `$AGENTGUARD_CONFIG`, else `~/.config/agentguard/config.toml` on Linux.
pub fn user_config_file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("AGENTGUARD_CONFIG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    project_dirs().map(|dirs| dirs.config_dir().join("config.toml"))
}

/// The name of the per-project config file, found in the project directory.
pub const PROJECT_CONFIG_FILE: &str = ".agentguard.toml";

/// agentguard's config dir: `~/.config/agentguard` on Linux (the user config file lives here
/// unless `AGENTGUARD_CONFIG` moves it).
pub fn config_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.config_dir().to_path_buf())
}

/// agentguard's data dir (logs, backups): `~/.local/share/agentguard` on Linux.
pub fn data_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.data_dir().to_path_buf())
}

/// The decision-log directory: `~/.local/share/agentguard/logs` on Linux.
pub fn log_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.data_dir().join("logs"))
}

/// Per-session state (the loop guard): `~/.local/state/agentguard` on Linux, falling back to
/// the data dir where the platform has no state dir.
pub fn state_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| {
        dirs.state_dir()
            .map(|d| d.to_path_buf())
            .unwrap_or_else(|| dirs.data_dir().join("state"))
    })
}

/// The user's home directory.
pub fn home_dir() -> Option<PathBuf> {
    BaseDirs::new().map(|dirs| dirs.home_dir().to_path_buf())
}
