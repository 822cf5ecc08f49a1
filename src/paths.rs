//! Where agentguard keeps its files, per platform (`directories`), with env overrides for tests
//! and unusual setups.

use std::path::PathBuf;

use directories::{BaseDirs, ProjectDirs};

/// agentguard's platform directories (one lookup, for a caller that needs several of them).
pub fn project_dirs() -> Option<ProjectDirs> {
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

/// The decision-log directory: `~/.local/share/agentguard/logs` on Linux.
pub fn log_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.data_dir().join("logs"))
}

/// Per-session state (the loop guard): `~/.local/state/agentguard` on Linux, falling back to
/// the data dir where the platform has no state dir.
pub fn state_dir() -> Option<PathBuf> {
    project_dirs().as_ref().map(state_dir_of)
}

/// [`state_dir`] of directories already looked up.
pub fn state_dir_of(dirs: &ProjectDirs) -> PathBuf {
    dirs.state_dir()
        .map(|d| d.to_path_buf())
        .unwrap_or_else(|| dirs.data_dir().join("state"))
}

/// The user's home directory.
pub fn home_dir() -> Option<PathBuf> {
    BaseDirs::new().map(|dirs| dirs.home_dir().to_path_buf())
}
